//! Judging a case that holds allocates nothing once the judging thread's buffers have grown: the
//! catalogue's regrouped copy of an interleaved trace and the breaker replay's tables are reused from one
//! case to the next (`temporal::with_grouped_by_call`). Counted with an allocator that counts this
//! thread's allocations only, over sequential and overlapping runs of the reference interpreter.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{execute, BudgetContract, CallScript, Outcome, Schedule, Step, Subject, VDuration};
use timelaw_laws::temporal::calls_interleave;
use timelaw_laws::{Catalogue, Observation, Verdict};

/// The system allocator, counting the allocations of a thread while it has counting on.
struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is the system allocator's own; the counters are const thread-locals without a
// destructor, so reading them never allocates or re-enters the allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn count() {
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = ALLOCATIONS.try_with(|allocations| allocations.set(allocations.get() + 1));
        }
    });
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many allocations `work` made on this thread.
fn allocations_of(work: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|allocations| allocations.set(0));
    COUNTING.with(|on| on.set(true));
    work();
    COUNTING.with(|on| on.set(false));
    ALLOCATIONS.with(Cell::get)
}

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// A policy with retries, jittered backoff, a timeout, a deadline and a retry budget (no breaker: its
/// model's result window is the one table judging still allocates).
fn policy() -> Policy {
    Policy {
        jitter: Jitter::Equal,
        honor_retry_after: true,
        attempt_timeout: Some(ms(50)),
        deadline: Some(ms(500)),
        retry_budget: Some(BudgetContract { min_retries: 2, retry_percent: 50, ..BudgetContract::default() }),
        ..Policy::new(3, Backoff::Exponential { initial: ms(10), factor: 2 }, ms(40))
    }
}

fn call() -> CallScript {
    CallScript::new(vec![
        Step::new(ms(5), Outcome::Transient),
        Step::new(ms(3), Outcome::RateLimited { retry_after: ms(7) }),
        Step::new(ms(2), Outcome::Ok),
    ])
}

#[test]
fn judging_a_case_that_holds_allocates_nothing_once_the_buffers_grew() {
    let laws = Catalogue::standard();
    let sequential = Schedule::new(vec![call(), call()]);
    let overlapping = Schedule::new(vec![call().arriving(ms(0)), call().arriving(ms(1)), call().arriving(ms(4))]);
    let policy = policy();
    let contract = Reference.contract(&policy);
    let mut verdicts = Vec::with_capacity(laws.len());
    for (name, schedule) in [("sequential", &sequential), ("overlapping", &overlapping)] {
        let trace = execute(&Reference, &policy, schedule, 7);
        assert_eq!(calls_interleave(&trace.events), name == "overlapping", "{name}: the run is not {name}");
        let observation = Observation::single_run(schedule, 7, &contract, &trace);
        laws.judge_all(&observation, &mut verdicts); // The first judging grows the buffers.
        let broken: Vec<_> = laws.ids().zip(&verdicts).filter(|(_, verdict)| !judged(verdict)).collect();
        assert!(broken.is_empty(), "{name}: the case does not hold: {broken:?}");
        let allocations = allocations_of(|| laws.judge_all(&observation, &mut verdicts));
        assert_eq!(allocations, 0, "{name}: judging the {} laws again allocated", laws.len());
    }
}

/// Holds, vacuous or not applicable: a verdict that builds no message.
fn judged(verdict: &Verdict) -> bool {
    matches!(verdict, Verdict::Holds | Verdict::Vacuous | Verdict::NotApplicable)
}
