//! The laws about work a call runs at once, on hand-built traces: hedges (how many, how soon, losers
//! cancelled), attempts left running after a cancellation, and ordered results.

mod support;

use support::*;
use timelaw_core::{
    CallResult, CallScript, Contract, Declared, ErrorKind, EventKind, HedgeContract, Outcome, Schedule, Trace,
    VDuration,
};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, contract: Contract, schedule: &Schedule, trace: &Trace, expect: Expect) {
    assert_verdict(id, &observed(contract, schedule.clone(), trace.clone()), expect);
}

fn hedge(delay_ms: u64, max_hedges: u32) -> Contract {
    let hedge = HedgeContract { delay: ms(delay_ms), max_hedges };
    Contract { hedge: Declared::Stated(hedge), ..Contract::default() }
}

const DROPPED: EventKind = EventKind::AttemptDropped { ran: VDuration::from_millis(7) };

/// The first attempt hangs; a hedge at `hedge_ms` wins at 7ms; the loser is dropped unless `leak`.
fn hedged(hedge_ms: u64, leak: bool) -> Trace {
    let mut events = vec![(0, 0, 0, START), (0, 0, 1, ATTEMPT), (hedge_ms, 0, 2, ATTEMPT), (7, 0, 2, SUCCEEDED)];
    if !leak {
        events.push((7, 0, 1, DROPPED));
    }
    events.push((7, 0, 0, RETURNED_OK));
    hand_built(&events)
}

#[test]
fn hedging_laws() {
    let one = calls(&[&[OK]]);
    let good = hedged(5, false);
    check(ids::HEDGES_WITHIN_LIMIT_AND_DELAY, hedge(5, 1), &one, &good, Expect::Holds);
    check(ids::HEDGES_WITHIN_LIMIT_AND_DELAY, hedge(5, 1), &one, &hedged(3, false), Expect::At(2));
    check(ids::HEDGES_WITHIN_LIMIT_AND_DELAY, hedge(5, 0), &one, &good, Expect::At(2));
    // Attempts one after another are no hedges.
    let sequential = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (1, 0, 1, FAILED),
        (1, 0, 2, ATTEMPT),
        (2, 0, 2, SUCCEEDED),
        (2, 0, 0, RETURNED_OK),
    ]);
    check(ids::HEDGES_WITHIN_LIMIT_AND_DELAY, hedge(5, 0), &one, &sequential, Expect::Vacuous);
    check(ids::HEDGES_WITHIN_LIMIT_AND_DELAY, Contract::default(), &one, &good, Expect::NotApplicable);

    check(ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, hedge(5, 1), &one, &good, Expect::Holds);
    check(ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, hedge(5, 1), &one, &hedged(5, true), Expect::At(4));
    let unstated = Contract { hedge: Declared::Unstated, ..Contract::default() };
    check(ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, unstated, &one, &hedged(5, true), Expect::At(4));
    check(ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, hedge(5, 1), &one, &Trace::new(), Expect::Vacuous);
    check(ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING, Contract::default(), &one, &good, Expect::NotApplicable);
}

/// Calls 0 and 1 (arriving at 0 and 1ms) each hedge once, `hedge_ms` after their first attempt; the
/// hedges win and the first attempts are dropped.
fn two_hedged_calls(hedge_ms: [u64; 2]) -> Trace {
    let mut events = vec![
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (1, 1, 0, START),
        (1, 1, 1, ATTEMPT),
        (hedge_ms[0], 0, 2, ATTEMPT),
        (1 + hedge_ms[1], 1, 2, ATTEMPT),
    ];
    events.sort_by_key(|&(at_ms, call, ..)| (at_ms, call));
    for (call, at_ms) in [(0, 20), (1, 21)] {
        events.extend([(at_ms, call, 2, SUCCEEDED), (at_ms, call, 1, DROPPED), (at_ms, call, 0, RETURNED_OK)]);
    }
    hand_built(&events)
}

#[test]
fn hedges_are_counted_and_timed_per_call_when_calls_overlap() {
    let two = calls(&[&[OK], &[OK]]);
    let id = ids::HEDGES_WITHIN_LIMIT_AND_DELAY;
    // Each call hedges 5ms after its own first attempt, within its own limit of one.
    check(id, hedge(5, 1), &two, &two_hedged_calls([5, 5]), Expect::Holds);
    // Call 1 hedges 3ms after its first attempt: too early, whatever call 0 did.
    check(id, hedge(5, 1), &two, &two_hedged_calls([5, 3]), Expect::At(4));
    check(id, hedge(5, 1), &two, &two_hedged_calls([3, 5]), Expect::At(4));
    // One hedge each is two hedges in all, and none too many for its call.
    check(id, hedge(5, 0), &two, &two_hedged_calls([5, 5]), Expect::At(4));
    // The delay runs from the latest attempt start, not from any later event of the call (a wall jump).
    let jumped = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (3, 0, 1, EventKind::WallJump { by_ns: 1 }),
        (5, 0, 2, ATTEMPT),
        (7, 0, 2, SUCCEEDED),
        (7, 0, 1, DROPPED),
        (7, 0, 0, RETURNED_OK),
    ]);
    check(id, hedge(5, 1), &calls(&[&[OK]]), &jumped, Expect::Holds);
}

fn cancelled_at(millis: u64) -> Schedule {
    Schedule::new(vec![CallScript { cancel_after: Some(ms(millis)), ..CallScript::outcomes(&[HANG, HANG]) }])
}

fn honors_cancellation() -> Contract {
    let mut contract = Contract::default();
    contract.timing.honors_cancellation = true;
    contract
}

#[test]
fn cancellation_leaves_nothing_running() {
    let returned = EventKind::CallEnd { result: CallResult::Err(ErrorKind::Cancelled) };
    let cut = EventKind::AttemptCancelled;
    // Two attempts running (a hedge) when the caller cancels at 10ms.
    let both_cut = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (5, 0, 2, ATTEMPT),
        (10, 0, 1, cut),
        (10, 0, 2, cut),
        (10, 0, 0, returned),
    ]);
    let one_left = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (5, 0, 2, ATTEMPT),
        (10, 0, 1, cut),
        (10, 0, 0, returned),
        (30, 0, 2, SUCCEEDED),
    ]);
    let ended_late = hand_built(&[(0, 0, 0, START), (0, 0, 1, ATTEMPT), (30, 0, 1, cut), (30, 0, 0, returned)]);
    let id = ids::CANCELLATION_LEAVES_NOTHING_RUNNING;
    check(id, honors_cancellation(), &cancelled_at(10), &both_cut, Expect::Holds);
    check(id, honors_cancellation(), &cancelled_at(10), &one_left, Expect::At(4));
    check(id, honors_cancellation(), &cancelled_at(10), &ended_late, Expect::At(2));
    check(id, honors_cancellation(), &cancelled_at(50), &both_cut, Expect::Vacuous);
    check(id, Contract::default(), &cancelled_at(10), &one_left, Expect::NotApplicable);
}

#[test]
fn ordered_results_in_input_order() {
    let ordered = |first: u32| {
        let second = 1 - first;
        hand_built(&[
            (0, 0, 0, START),
            (0, 0, 1, ATTEMPT),
            (0, 1, 0, START),
            (0, 1, 1, ATTEMPT),
            (5, first, 1, SUCCEEDED),
            (5, first, 0, RETURNED_OK),
            (6, second, 1, SUCCEEDED),
            (6, second, 0, RETURNED_OK),
        ])
    };
    let mut contract = Contract::default();
    contract.timing.ordered_results = true;
    let two = calls(&[&[OK], &[OK]]);
    let id = ids::ORDERED_RESULTS_IN_INPUT_ORDER;
    check(id, contract, &two, &ordered(0), Expect::Holds);
    check(id, contract, &two, &ordered(1), Expect::At(7));
    check(id, contract, &two, &hand_built(&[(0, 0, 0, START)]), Expect::Vacuous);
    check(id, Contract::default(), &two, &ordered(1), Expect::NotApplicable);
    // Call 1 starts at 5ms and is cancelled 10ms later: its caller stops waiting at 15ms, so a result
    // out of order at that instant is due; one before it (at 12ms) puts call 0's result out of order.
    let cancelled = Schedule::new(vec![
        CallScript::outcomes(&[OK]),
        CallScript { cancel_after: Some(ms(10)), ..CallScript::outcomes(&[OK]) },
    ]);
    let returns_early = |at_ms: u64, result: EventKind| {
        hand_built(&[
            (0, 0, 0, START),
            (0, 0, 1, ATTEMPT),
            (5, 1, 0, START),
            (5, 1, 1, ATTEMPT),
            (at_ms, 1, 1, EventKind::AttemptCancelled),
            (at_ms, 1, 0, result),
            (20, 0, 1, SUCCEEDED),
            (20, 0, 0, RETURNED_OK),
        ])
    };
    let gave_up = EventKind::CallEnd { result: CallResult::Err(ErrorKind::Cancelled) };
    check(id, contract, &cancelled, &returns_early(15, gave_up), Expect::Holds);
    check(id, contract, &cancelled, &returns_early(12, gave_up), Expect::At(7));
}

/// A hedged call whose two attempts run together until attempt `winner` ends with `outcome` at 5ms;
/// the other is cancelled at `cut_ms` (5ms: at once, a hedge's loser), then the call returns `result`.
fn decided(winner: u32, outcome: EventKind, cut_ms: u64, result: EventKind) -> Trace {
    let loser = 3 - winner;
    let cut = EventKind::AttemptCancelled;
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 0, 2, ATTEMPT),
        (5, 0, winner, outcome),
        (cut_ms, 0, loser, cut),
        (cut_ms, 0, 0, result),
    ])
}

/// These verdicts were false alarms before a hedge's loser counted as no result (the loser's
/// `Err(Cancelled)` was taken as the call's last attempt).
#[test]
fn a_hedge_loser_is_not_the_last_attempt() {
    let one = calls(&[&[OK, OK]]);
    let mut contract = promise(2, ms(0));
    contract.retry.reports_last_result = true;
    contract.hedge = Declared::Stated(HedgeContract { delay: ms(0), max_hedges: 1 });
    let last = ids::RESULT_MATCHES_LAST_ATTEMPT;
    let exhausted = ids::EXHAUSTED_RETRIES_RETURN_ERR;
    for winner in [1, 2] {
        check(last, contract, &one, &decided(winner, SUCCEEDED, 5, RETURNED_OK), Expect::Holds);
        check(last, contract, &one, &decided(winner, FAILED, 5, RETURNED_ERR), Expect::Holds);
        check(last, contract, &one, &decided(winner, FAILED, 5, RETURNED_OK), Expect::At(5));
        check(exhausted, contract, &one, &decided(winner, SUCCEEDED, 5, RETURNED_OK), Expect::Vacuous);
        check(exhausted, contract, &one, &decided(winner, FAILED, 5, RETURNED_OK), Expect::At(5));
    }
    // Cancelled later, the attempt is no loser of that answer: it is the last attempt.
    check(last, contract, &one, &decided(2, SUCCEEDED, 6, RETURNED_OK), Expect::At(5));
    check(exhausted, contract, &one, &decided(2, SUCCEEDED, 6, RETURNED_OK), Expect::At(5));
}

/// The loser of a rate-limited answer leaves its retry-after in force for the sleep after it (a false
/// alarm of the backoff law before).
#[test]
fn a_hedge_loser_keeps_the_retry_after() {
    let one = calls(&[&[OK, OK, OK]]);
    let mut contract = promise(3, ms(0));
    contract.rate.honors_retry_after = true;
    let limited = EventKind::AttemptEnd { outcome: rate_limited(3) };
    let slept = |sleep_ms| {
        hand_built(&[
            (0, 0, 0, START),
            (0, 0, 1, ATTEMPT),
            (0, 0, 2, ATTEMPT),
            (0, 0, 2, limited),
            (0, 0, 1, EventKind::AttemptCancelled),
            (0, 0, 2, EventKind::SleepRequested { duration: ms(sleep_ms) }),
            (sleep_ms, 0, 3, ATTEMPT),
            (sleep_ms, 0, 3, SUCCEEDED),
            (sleep_ms, 0, 0, RETURNED_OK),
        ])
    };
    let id = ids::BACKOFF_SHAPE_WITHOUT_JITTER;
    check(id, contract, &one, &slept(3), Expect::Holds);
    check(id, contract, &one, &slept(0), Expect::At(5));
}

/// With hedging declared, a call that hedged is not judged by `eventually_succeeds` (the first answer
/// decided the try, and which step each dispatch took depended on timing); one that did not hedge is.
#[test]
fn eventually_succeeds_leaves_hedged_calls_alone() {
    let one = calls(&[&[OK, Outcome::Transient]]);
    let hedging =
        Contract { hedge: Declared::Stated(HedgeContract { delay: ms(0), max_hedges: 1 }), ..promise(2, ms(0)) };
    let id = ids::EVENTUALLY_SUCCEEDS;
    check(id, hedging, &one, &decided(2, FAILED, 5, RETURNED_ERR), Expect::Vacuous);
    check(id, promise(2, ms(0)), &one, &decided(2, FAILED, 5, RETURNED_ERR), Expect::At(5));
    let alone = hand_built(&[(0, 0, 0, START), (0, 0, 1, ATTEMPT), (5, 0, 1, FAILED), (5, 0, 0, RETURNED_ERR)]);
    check(id, hedging, &one, &alone, Expect::At(3));
    // A retry after the first attempt ended is no hedge: the call is judged.
    let retried = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (5, 0, 1, FAILED),
        (5, 0, 2, ATTEMPT),
        (6, 0, 2, FAILED),
        (6, 0, 0, RETURNED_ERR),
    ]);
    check(id, hedging, &one, &retried, Expect::At(5));
    // A wall-clock jump between the two starts ends no attempt: the call still hedged.
    let mut jumped = decided(2, FAILED, 5, RETURNED_ERR);
    jumped.events.insert(2, jumped.events[1]);
    jumped.events[2].kind = EventKind::WallJump { by_ns: 1 };
    for (seq, event) in jumped.events.iter_mut().enumerate() {
        event.seq = seq as u32;
    }
    check(id, hedging, &one, &jumped, Expect::Vacuous);
}

/// A call cancelled by its caller leaves the ordered stream: it may return at its cancellation instant,
/// before an earlier call, and counts as no result (a false alarm before, against a reference that
/// returns a cancelled call at once as `cancellation_stops_work` asks).
#[test]
fn a_cancelled_call_leaves_the_ordered_stream() {
    let returns_first = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 1, ATTEMPT),
        (5, 1, 1, SUCCEEDED),
        (5, 1, 0, RETURNED_OK),
        (6, 0, 1, SUCCEEDED),
        (6, 0, 0, RETURNED_OK),
    ]);
    let cancelled = |millis| {
        let second = CallScript { cancel_after: Some(ms(millis)), ..CallScript::outcomes(&[OK]) };
        Schedule::new(vec![CallScript::outcomes(&[OK]), second])
    };
    let mut contract = Contract::default();
    contract.timing.ordered_results = true;
    let id = ids::ORDERED_RESULTS_IN_INPUT_ORDER;
    check(id, contract, &cancelled(5), &returns_first, Expect::Holds);
    check(id, contract, &cancelled(4), &returns_first, Expect::Holds);
    check(id, contract, &cancelled(6), &returns_first, Expect::At(7));
}
