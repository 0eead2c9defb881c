//! Judging the whole catalogue allocates nothing on the common path (holds, vacuous, not applicable),
//! once the judging thread's reused buffers have grown (the breaker replay's decisions, the regrouped
//! trace): each run is judged once to grow them, then judged again while counting.
//! One test in this binary: a counting allocator counts the allocations of the judging thread only.

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use support::*;
use timelaw_core::reference::{Backoff, Jitter, Policy};
use timelaw_core::{BudgetContract, CallScript, CircuitContract, Schedule, Step};
use timelaw_laws::{Catalogue, Replay, Verdict};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: defers every operation to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Typical runs: retries with jitter, timeouts, a deadline, a breaker cycling, a budget, a stream.
fn runs() -> Vec<Run> {
    let base = Policy::new(4, Backoff::Exponential { initial: ms(5), factor: 2 }, ms(40));
    let breaker = CircuitContract {
        window: 4,
        min_calls: 2,
        failure_percent: 50,
        open_for: ms(50),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    let mut stream = calls(&[&[T, T, T, T], &[T, T, T, T], &[OK], &[T, OK], &[HANG, OK], &[rate_limited(5), OK]]);
    stream.calls[3].gap_before = ms(60);
    let mut cancelled = CallScript::outcomes(&[T, T, OK]);
    cancelled.cancel_after = Some(ms(7));
    vec![
        reference(Policy { jitter: Jitter::Full, ..base.clone() }, single(&[T, T, T, OK])),
        reference(Policy { honor_retry_after: true, ..base.clone() }, single(&[rate_limited(30), T, OK])),
        reference(Policy { attempt_timeout: Some(ms(10)), deadline: Some(ms(60)), ..base.clone() }, stream.clone()),
        reference(Policy { circuit: Some(breaker), attempt_timeout: Some(ms(10)), ..base.clone() }, stream),
        reference(
            Policy {
                retry_budget: Some(BudgetContract { min_retries: 2, retry_percent: 50, ..BudgetContract::default() }),
                ..base.clone()
            },
            calls(&[&[T, T], &[T, T, T]]),
        ),
        reference(Policy { sleep_budget: Some(ms(12)), ..base.clone() }, Schedule::new(vec![cancelled])),
        reference(base, Schedule::single(vec![Step::new(ms(10), F)])),
    ]
}

#[test]
fn judging_the_catalogue_does_not_allocate() {
    let catalogue = Catalogue::standard();
    let mut runs = runs();
    for run in &mut runs {
        run.replay = Some(Replay { first: 1, second: 1, first_difference: None, second_panicked: false });
    }
    let mut verdicts = Vec::with_capacity(catalogue.len());
    for run in &runs {
        catalogue.judge_all(&run.observation(), &mut verdicts);
    }
    COUNTING.with(|counting| counting.set(true));
    for run in &runs {
        catalogue.judge_all(&run.observation(), &mut verdicts);
        let allocations = ALLOCATIONS.swap(0, Ordering::Relaxed);
        COUNTING.with(|counting| counting.set(false));
        for (law, verdict) in catalogue.iter().zip(&verdicts) {
            assert!(!matches!(verdict, Verdict::Violated(_) | Verdict::Inconclusive(_)), "{}: {verdict}", law.id);
        }
        assert_eq!(allocations, 0, "judging allocated\n{}", Listing(&run.trace));
        COUNTING.with(|counting| counting.set(true));
    }
    COUNTING.with(|counting| counting.set(false));
}
