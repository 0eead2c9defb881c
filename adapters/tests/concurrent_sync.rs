//! The synchronous seam for overlapping calls (`timelaw_core::concurrent_sync`): a small synchronous
//! bulkhead served through it replays exactly, follows the recorded interleaving, and a broken one is
//! caught by `bulkhead_in_flight_within_limit`.

mod support;

use timelaw_core::concurrent_sync::{serve_sync_calls, SyncAction, SyncEvent, SyncServer};
use timelaw_core::{
    execute, Abort, AttemptResult, BulkheadContract, CallInfo, CallResult, CallScript, Case, Contract, Declared,
    ErrorKind, EventKind, Outcome, Rejection, Schedule, Step, Subject, VDuration, World,
};
use timelaw_laws::Verdict;

/// A bulkhead with a queue: at most `limit` calls dispatching, up to `queue` more waiting for a slot;
/// `off_by_one` admits `limit + 1` (the planted bug).
struct Permits {
    limit: u32,
    queue: u32,
    off_by_one: bool,
    in_flight: u32,
    waiting: u32,
}

impl Permits {
    fn full(&self) -> bool {
        let limit = if self.off_by_one { self.limit + 1 } else { self.limit };
        self.in_flight >= limit
    }

    fn admit(&mut self) -> SyncAction {
        self.in_flight += 1;
        SyncAction::dispatch()
    }
}

impl SyncServer for Permits {
    fn on_event(&mut self, world: &mut World<'_>, _call: CallInfo, event: SyncEvent) -> Result<SyncAction, Abort> {
        Ok(match event {
            SyncEvent::Arrived if !self.full() => self.admit(),
            SyncEvent::Arrived if self.waiting < self.queue => {
                self.waiting += 1;
                world.record_queued()?;
                SyncAction::Wait
            }
            SyncEvent::Arrived => {
                world.reject(Rejection::BulkheadFull)?;
                SyncAction::End(CallResult::Err(ErrorKind::BulkheadFull))
            }
            SyncEvent::Nudged { cancelled: true } => {
                self.waiting -= 1;
                SyncAction::End(CallResult::Err(ErrorKind::Cancelled))
            }
            SyncEvent::Nudged { cancelled: false } if self.full() => SyncAction::Wait,
            SyncEvent::Nudged { cancelled: false } => {
                self.waiting -= 1;
                self.admit()
            }
            SyncEvent::AttemptEnded(attempt) => {
                self.in_flight -= 1;
                SyncAction::End(match attempt {
                    AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
                    AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
                    AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
                })
            }
            SyncEvent::Woke(_) => SyncAction::End(CallResult::Err(ErrorKind::Cancelled)),
        })
    }
}

/// `(limit, queue, off_by_one)`.
struct SyncBulkhead;

impl Subject for SyncBulkhead {
    type Config = (u32, u32, bool);
    fn name(&self) -> &str {
        "sync-bulkhead"
    }
    fn contract(&self, &(limit, queue, _): &(u32, u32, bool)) -> Contract {
        Contract { bulkhead: Declared::Stated(BulkheadContract::new(limit, queue)), ..Contract::default() }
    }
    fn run(&self, &(limit, queue, off_by_one): &(u32, u32, bool), world: &mut World<'_>) -> Result<(), Abort> {
        serve_sync_calls(world, Permits { limit, queue, off_by_one, in_flight: 0, waiting: 0 })
    }
}

const MS: fn(u64) -> VDuration = VDuration::from_millis;

/// `calls` calls of one 10 ms attempt each, all arriving at 0, with `interleave`.
fn together(calls: usize, interleave: &[u32]) -> Schedule {
    let call = CallScript::new(vec![Step::new(MS(10), Outcome::Ok)]).arriving(VDuration::ZERO);
    Schedule::new(vec![call; calls]).with_interleave(interleave.to_vec())
}

/// `(call, kind, at ms)` of every event.
fn events(config: (u32, u32, bool), schedule: &Schedule) -> Vec<(u32, EventKind, u64)> {
    let trace = execute(&SyncBulkhead, &config, schedule, 0);
    trace.events.iter().map(|e| (e.call, e.kind, e.at.as_nanos() / 1_000_000)).collect()
}

#[track_caller]
fn check_law(config: (u32, u32, bool), schedule: Schedule, law: &str, expect: &str) {
    let case = Case { config, schedule, seed: 0 };
    let verdict = match support::judge(&SyncBulkhead, &case, law) {
        Verdict::Holds => "holds",
        Verdict::Vacuous => "vacuous",
        Verdict::Violated(_) => "violated",
        Verdict::NotApplicable => "not applicable",
        Verdict::Inconclusive(_) => "inconclusive",
    };
    assert_eq!(verdict, expect, "{law}");
}

#[test]
fn the_same_case_gives_the_same_trace() {
    for interleave in [&[][..], &[1], &[2, 1], &[7, 7, 7]] {
        let schedule = together(4, interleave);
        assert_eq!(events((2, 1, false), &schedule), events((2, 1, false), &schedule));
    }
}

#[test]
fn interleave_choices_change_who_is_served() {
    let rejected = |interleave: &[u32]| -> Vec<u32> {
        let found = events((1, 0, false), &together(3, interleave));
        found.iter().filter(|(_, kind, _)| matches!(kind, EventKind::Rejected { .. })).map(|e| e.0).collect()
    };
    assert_eq!(rejected(&[]), [1, 2]);
    assert_eq!(rejected(&[1]), [0, 2]);
    assert_eq!(rejected(&[2]), [0, 1]);
}

#[test]
fn a_queued_call_is_served_when_a_slot_frees() {
    let found = events((1, 1, false), &together(2, &[]));
    let call_1: Vec<(EventKind, u64)> = found.iter().filter(|e| e.0 == 1).map(|e| (e.1, e.2)).collect();
    assert_eq!(call_1[1], (EventKind::Queued, 0));
    assert_eq!(call_1[2], (EventKind::AttemptStart, 10));
    assert_eq!(call_1.last().map(|e| e.1), Some(20));
}

#[test]
fn a_queued_call_cancelled_while_waiting_ends_at_its_cancellation() {
    let mut schedule = together(2, &[]);
    schedule.calls[1].cancel_after = Some(MS(4));
    let found = events((1, 1, false), &schedule);
    let last = found.iter().rfind(|e| e.0 == 1).copied();
    assert_eq!(last, Some((1, EventKind::CallEnd { result: CallResult::Err(ErrorKind::Cancelled) }, 4)));
}

#[test]
fn every_call_waiting_for_nothing_is_hung() {
    // A bulkhead of zero slots with a queue: the queued call waits for a slot that never frees.
    let trace = execute(&SyncBulkhead, &(0, 1, false), &together(1, &[]), 0);
    assert!(matches!(trace.end, timelaw_core::TraceEnd::Aborted(Abort::Hung { call: 0, .. })), "{:?}", trace.end);
}

#[test]
fn bulkhead_in_flight_within_limit_judges_the_sync_bulkhead() {
    let law = "bulkhead_in_flight_within_limit";
    check_law((2, 0, false), together(3, &[]), law, "holds");
    check_law((2, 1, false), together(5, &[3, 1]), law, "holds");
    check_law((2, 0, true), together(2, &[]), law, "holds");
    check_law((2, 0, true), together(3, &[]), law, "violated");
    check_law((1, 2, true), together(3, &[2]), law, "violated");
}
