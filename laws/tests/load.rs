//! The bulkhead and rate-limiter laws on hand-built traces of overlapping calls: each holds on a correct
//! interleaving, is vacuous or not applicable when it has nothing to judge, and is violated by the
//! off-by-one and too-sparing admissions real limiters get wrong.

mod support;

use support::*;
use timelaw_core::{
    BulkheadContract, CallResult, ClockKind, Contract, Declared, Diagnostic, ErrorKind, EventKind, LimiterContract,
    LimiterWindow, Rejection, Trace,
};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, contract: Contract, trace: &Trace, expect: Expect) {
    let run = observed(contract, calls(&[&[OK], &[OK], &[OK], &[OK]]), trace.clone());
    assert_verdict(id, &run, expect);
}

fn bulkhead(max_in_flight: u32, queue_max: u32) -> Contract {
    Contract { bulkhead: Declared::Stated(BulkheadContract::new(max_in_flight, queue_max)), ..Contract::default() }
}

const FULL: EventKind = EventKind::Rejected { reason: Rejection::BulkheadFull };
const REFUSED_FULL: EventKind = EventKind::CallEnd { result: CallResult::Err(ErrorKind::BulkheadFull) };

/// Two calls in flight, a third queued, a fourth rejected; the queued one runs once a slot frees.
fn bulkhead_trace() -> Trace {
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 1, ATTEMPT),
        (0, 2, 0, START),
        (0, 2, 0, EventKind::Queued),
        (0, 3, 0, START),
        (0, 3, 0, FULL),
        (0, 3, 0, REFUSED_FULL),
        (5, 0, 1, SUCCEEDED),
        (5, 0, 0, RETURNED_OK),
        (5, 2, 1, ATTEMPT),
        (6, 1, 1, SUCCEEDED),
        (6, 1, 0, RETURNED_OK),
        (7, 2, 1, SUCCEEDED),
        (7, 2, 0, RETURNED_OK),
    ])
}

/// [`bulkhead_trace`] with the rejected call dispatched anyway.
fn rejected_yet_dispatched() -> Trace {
    let mut events: Vec<_> =
        bulkhead_trace().events.iter().map(|e| (e.at.as_nanos() / 1_000_000, e.call, e.attempt, e.kind)).collect();
    events.insert(8, (0, 3, 1, ATTEMPT));
    hand_built(&events)
}

#[test]
fn bulkhead_laws() {
    let trace = bulkhead_trace();
    let empty = Trace::new();
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(2, 1), &trace, Expect::Holds);
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(1, 1), &trace, Expect::At(3));
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(2, 0), &trace, Expect::At(5));
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(2, 1), &empty, Expect::Vacuous);
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, Contract::default(), &trace, Expect::NotApplicable);
    let unstated = Contract { bulkhead: Declared::Unstated, ..Contract::default() };
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, unstated, &trace, Expect::NotApplicable);

    check(ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH, bulkhead(2, 1), &trace, Expect::Holds);
    check(ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH, unstated, &trace, Expect::Holds);
    check(ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH, bulkhead(2, 1), &rejected_yet_dispatched(), Expect::At(8));
    check(ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH, bulkhead(2, 1), &empty, Expect::Vacuous);
    check(ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH, Contract::default(), &trace, Expect::NotApplicable);

    // Too sparing: a free slot or a free queue place at the rejection.
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(2, 1), &trace, Expect::Holds);
    // With three slots, call 2 should not have waited; but once it waits, the free slot is owed to it,
    // and call 3's rejection (the queue full) is due. (Waiting with a slot free is not judged.)
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(3, 1), &trace, Expect::Holds);
    let alone = hand_built(&[(0, 0, 0, START), (0, 0, 1, ATTEMPT), (0, 1, 0, START), (0, 1, 0, FULL)]);
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(2, 0), &alone, Expect::At(3));
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(1, 0), &alone, Expect::Holds);
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(2, 2), &trace, Expect::At(7));
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(2, 1), &empty, Expect::Vacuous);
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, Contract::default(), &trace, Expect::NotApplicable);
    // A slot freed while a call waits in the full queue is owed to that call: a newcomer's rejection is due.
    let full = EventKind::Rejected { reason: Rejection::BulkheadFull };
    let refused = EventKind::CallEnd { result: CallResult::Err(ErrorKind::BulkheadFull) };
    let owed = hand_built(&[
        (0, 0, 0, START),
        (0, 1, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, EventKind::Queued),
        (1, 2, 0, START),
        (1, 0, 1, SUCCEEDED),
        (1, 0, 0, RETURNED_OK),
        (1, 2, 0, full),
        (1, 2, 0, refused),
        (1, 1, 1, ATTEMPT),
        (1, 1, 1, SUCCEEDED),
        (1, 1, 0, RETURNED_OK),
    ]);
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(1, 1), &owed, Expect::Holds);
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(1, 2), &owed, Expect::At(7));
    // A wall-clock jump the World tags with the waiting call does not take it out of the queue.
    let mut jumped: Vec<_> =
        owed.events.iter().map(|e| (e.at.as_nanos() / 1_000_000, e.call, e.attempt, e.kind)).collect();
    jumped.insert(5, (1, 1, 0, EventKind::WallJump { by_ns: 1 }));
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(1, 1), &hand_built(&jumped), Expect::Holds);

    // A call rejected after waiting in the queue is not judged (its place in the queue is gone).
    let rejected_after_waiting = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 0, EventKind::Queued),
        (3, 1, 0, FULL),
        (3, 1, 0, REFUSED_FULL),
        (5, 0, 1, SUCCEEDED),
        (5, 0, 0, RETURNED_OK),
    ]);
    check(ids::BULKHEAD_ADMITS_BELOW_LIMIT, bulkhead(1, 1), &rejected_after_waiting, Expect::Vacuous);
    // A call that leaves the queue frees its place: two waits one after the other fit a queue of one.
    let waits_in_turn = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 0, EventKind::Queued),
        (5, 0, 1, SUCCEEDED),
        (5, 0, 0, RETURNED_OK),
        (5, 1, 1, ATTEMPT),
        (6, 2, 0, START),
        (6, 2, 0, EventKind::Queued),
        (9, 1, 1, SUCCEEDED),
        (9, 1, 0, RETURNED_OK),
        (9, 2, 1, ATTEMPT),
        (10, 2, 1, SUCCEEDED),
        (10, 2, 0, RETURNED_OK),
    ]);
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(1, 1), &waits_in_turn, Expect::Holds);
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(1, 0), &waits_in_turn, Expect::At(3));
    // Nothing dispatched or queued (one call rejected at once): nothing to judge.
    let only_rejected = hand_built(&[(0, 0, 0, START), (0, 0, 0, FULL), (0, 0, 0, REFUSED_FULL)]);
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, bulkhead(1, 1), &only_rejected, Expect::Vacuous);

    // A rejection needs a declared bulkhead.
    check(ids::NO_UNDECLARED_REJECTION, Contract::default(), &trace, Expect::At(7));
    check(ids::NO_UNDECLARED_REJECTION, unstated, &trace, Expect::Holds);
}

fn limiter(burst: u32, refill_ms: u64) -> Contract {
    let limiter = LimiterContract::token_bucket(burst, ms(refill_ms));
    Contract { limiter: Declared::Stated(limiter), ..Contract::default() }
}

const EMPTY: EventKind = EventKind::Rejected { reason: Rejection::LimiterEmpty };

/// One call per entry at `at_ms`: dispatched (`true`) or refused by the limiter.
fn limited(calls: &[(u64, bool)]) -> Trace {
    let mut events = Vec::new();
    for (call, &(at, dispatched)) in (0_u32..).zip(calls) {
        events.push((at, call, 0, START));
        if dispatched {
            events.extend([(at, call, 1, ATTEMPT), (at, call, 1, SUCCEEDED), (at, call, 0, RETURNED_OK)]);
        } else {
            let refused = EventKind::CallEnd { result: CallResult::Err(ErrorKind::LimiterEmpty) };
            events.extend([(at, call, 0, EMPTY), (at, call, 0, refused)]);
        }
    }
    hand_built(&events)
}

#[test]
fn limiter_laws() {
    // Burst 2, a token every 10ms: two at once, a refusal, then one per refill.
    let steady = limited(&[(0, true), (0, true), (0, false), (10, true), (20, true)]);
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &steady, Expect::Holds);
    check(ids::LIMITER_ADMITS_WITH_TOKENS, limiter(2, 10), &steady, Expect::Holds);
    // Burst + 1 at once; and three before the first refill.
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &limited(&[(0, true), (0, true), (0, true)]), Expect::At(9));
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &limited(&[(0, true), (1, true), (9, true)]), Expect::At(9));
    check(ids::LIMITER_WITHIN_RATE, limiter(1, 10), &steady, Expect::At(5));
    // A window across a refill: 0, 0, then 10 and 10 again is one too many.
    let burst_again = limited(&[(0, true), (0, true), (10, true), (10, true)]);
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &burst_again, Expect::At(13));
    check(ids::LIMITER_WITHIN_RATE, limiter(3, 10), &burst_again, Expect::Holds);
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &Trace::new(), Expect::Vacuous);
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 0), &steady, Expect::NotApplicable);
    check(ids::LIMITER_WITHIN_RATE, Contract::default(), &steady, Expect::NotApplicable);

    // Too sparing: a refusal with a token left, at once or after a refill.
    check(ids::LIMITER_ADMITS_WITH_TOKENS, limiter(3, 10), &steady, Expect::At(9));
    let refused_after_refill = limited(&[(0, true), (0, true), (15, false)]);
    check(ids::LIMITER_ADMITS_WITH_TOKENS, limiter(2, 10), &refused_after_refill, Expect::At(9));
    check(ids::LIMITER_ADMITS_WITH_TOKENS, limiter(2, 20), &refused_after_refill, Expect::Holds);
    check(ids::LIMITER_ADMITS_WITH_TOKENS, limiter(2, 10), &limited(&[(0, true)]), Expect::Vacuous);
    check(ids::LIMITER_ADMITS_WITH_TOKENS, Contract::default(), &steady, Expect::NotApplicable);
    // After a long idle spell the bucket holds its burst again, no more: two at 100ms are due, a third
    // in that window is one too many, whatever the refills before it (the window starts at 100ms).
    let idle_then_two = limited(&[(0, true), (100, true), (100, true)]);
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &idle_then_two, Expect::Holds);
    let idle_then_three = limited(&[(0, true), (100, true), (100, true), (100, true)]);
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &idle_then_three, Expect::At(13));
    // A bucket of no tokens refuses every call: each refusal is due.
    check(ids::LIMITER_ADMITS_WITH_TOKENS, limiter(0, 10), &limited(&[(0, false), (50, false)]), Expect::Holds);
}

fn first_come(max_in_flight: u32, queue_max: u32) -> Contract {
    let bulkhead = BulkheadContract { first_come: true, ..BulkheadContract::new(max_in_flight, queue_max) };
    Contract { bulkhead: Declared::Stated(bulkhead), ..Contract::default() }
}

/// One slot: call 0 runs, calls 1 and 2 queue in that order; the slot goes to `first` then the other.
fn queue_served(first: u32) -> Trace {
    let second = 3 - first;
    hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 0, EventKind::Queued),
        (0, 2, 0, START),
        (0, 2, 0, EventKind::Queued),
        (5, 0, 1, SUCCEEDED),
        (5, 0, 0, RETURNED_OK),
        (5, first, 1, ATTEMPT),
        (6, first, 1, SUCCEEDED),
        (6, first, 0, RETURNED_OK),
        (6, second, 1, ATTEMPT),
        (7, second, 1, SUCCEEDED),
        (7, second, 0, RETURNED_OK),
    ])
}

#[test]
fn bulkhead_queue_first_come() {
    let id = ids::BULKHEAD_QUEUE_FIRST_COME;
    check(id, first_come(1, 2), &queue_served(1), Expect::Holds);
    // Last come, first served: call 2 takes the slot call 1 waited for longer.
    check(id, first_come(1, 2), &queue_served(2), Expect::At(8));
    // Not stated: nothing judged.
    check(id, bulkhead(1, 2), &queue_served(2), Expect::NotApplicable);
    check(id, Contract::default(), &queue_served(2), Expect::NotApplicable);
    // Nobody waited: nothing to judge.
    check(id, first_come(2, 1), &limited(&[(0, true), (0, true)]), Expect::Vacuous);

    // One slot: call 0 runs while call 1 waits; call 0 returns at 5ms; then `rest`.
    let waiting_then = |rest: &[(u64, u32, u32, EventKind)]| {
        let mut events = vec![
            (0, 0, 0, START),
            (0, 0, 1, ATTEMPT),
            (0, 1, 0, START),
            (0, 1, 0, EventKind::Queued),
            (5, 0, 1, SUCCEEDED),
            (5, 0, 0, RETURNED_OK),
        ];
        events.extend_from_slice(rest);
        hand_built(&events)
    };
    // A newcomer that arrives while call 1 waits and dispatches before it jumps the queue (barging).
    let newcomer = [(5, 2, 0, START), (5, 2, 1, ATTEMPT), (6, 2, 1, SUCCEEDED), (6, 2, 0, RETURNED_OK)];
    let served = [(6, 1, 1, ATTEMPT), (7, 1, 1, SUCCEEDED), (7, 1, 0, RETURNED_OK)];
    check(id, first_come(1, 1), &waiting_then(&[&newcomer[..], &served[..]].concat()), Expect::At(7));
    // A call that gave up waiting (its next action is its return) is not compared: the newcomer may
    // take the slot it no longer waits for.
    let gave_up = (6, 1, 0, EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) });
    check(id, first_come(1, 1), &waiting_then(&[&newcomer[..], &[gave_up]].concat()), Expect::Vacuous);
    // A queued call refused by another mechanism once it left the queue still took its slot in turn.
    let refused = (5, 1, 0, EventKind::CallEnd { result: CallResult::Err(ErrorKind::LimiterEmpty) });
    let refused_in_turn = waiting_then(&[(5, 1, 0, EMPTY), refused]);
    check(id, first_come(1, 1), &refused_in_turn, Expect::Holds);
    // A queued call whose first event after the queue is a failed clock read (it took the slot, could not
    // tell the time, gave up as its contract declares and freed the slot before returning in order) left
    // the queue there: a newcomer that dispatches afterwards jumped nobody (found by fuzzing the reference).
    let unreadable = [
        (5, 1, 0, EventKind::ClockReadFailed { clock: ClockKind::Monotonic }),
        (5, 1, 0, EventKind::Diagnostic { diagnostic: Diagnostic::TimingMissing { clock: ClockKind::Monotonic } }),
    ];
    let returned_late = (7, 1, 0, EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) });
    let after_unreadable = waiting_then(&[&unreadable[..], &newcomer[..], &[returned_late]].concat());
    check(id, first_come(1, 1), &after_unreadable, Expect::Holds);
    // The same newcomer while call 1 still waits (its failed read after the newcomer's dispatch) jumps it.
    let unreadable_late = unreadable.map(|(_, call, attempt, kind)| (6, call, attempt, kind));
    let read_late = waiting_then(&[&newcomer[..], &unreadable_late[..], &[returned_late]].concat());
    check(id, first_come(1, 1), &read_late, Expect::At(7));
    // Every bulkhead law reads the same rule: after call 1 left the queue at its failed read, call 2 may
    // queue in the one place of the queue (it was counted as a second queued call before).
    let queued_after = [
        (6, 2, 0, START),
        (6, 2, 0, EventKind::Queued),
        (7, 1, 0, EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) }),
    ];
    let second_queued = waiting_then(&[&unreadable[..], &queued_after[..]].concat());
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, first_come(1, 1), &second_queued, Expect::Holds);
    let still_waiting = waiting_then(&queued_after[..2]);
    check(ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT, first_come(1, 1), &still_waiting, Expect::At(7));
    // A wall-clock jump tagged with the waiting call is not its leaving the queue.
    let mut jumped: Vec<_> =
        queue_served(1).events.iter().map(|e| (e.at.as_nanos() / 1_000_000, e.call, e.attempt, e.kind)).collect();
    jumped.insert(6, (1, 2, 0, EventKind::WallJump { by_ns: 1 }));
    check(id, first_come(1, 2), &hand_built(&jumped), Expect::Holds);
}

fn fixed(burst: u32, window_ms: u64) -> Contract {
    let limiter =
        LimiterContract { window: LimiterWindow::Fixed, ..LimiterContract::token_bucket(burst, ms(window_ms)) };
    Contract { limiter: Declared::Stated(limiter), ..Contract::default() }
}

#[test]
fn fixed_window_limiter_laws() {
    // Two per 10ms window, the window opening at its first dispatch: 3, 12 (full until 13), a refusal at
    // 12, then a new window at 13 admits two more at once: four within 10ms, as a fixed window allows.
    let windows = limited(&[(3, true), (12, true), (12, false), (13, true), (13, true)]);
    check(ids::LIMITER_WITHIN_RATE, fixed(2, 10), &windows, Expect::Holds);
    check(ids::LIMITER_ADMITS_WITH_TOKENS, fixed(2, 10), &windows, Expect::Holds);
    // The same dispatches break a token bucket of the same numbers: the kind is what tells them apart.
    check(ids::LIMITER_WITHIN_RATE, limiter(2, 10), &windows, Expect::At(16));
    // A window that admits one too many (an off-by-one in the count).
    let three = limited(&[(3, true), (5, true), (12, true)]);
    check(ids::LIMITER_WITHIN_RATE, fixed(2, 10), &three, Expect::At(9));
    // A window reopened 1ms early: 12 falls in the window opened at 3.
    let early = limited(&[(3, true), (4, true), (12, true)]);
    check(ids::LIMITER_WITHIN_RATE, fixed(2, 10), &early, Expect::At(9));
    // Windows are not aligned to the case start: 9 and 11 are in the window opened at 9.
    let unaligned = limited(&[(9, true), (11, true), (11, false)]);
    check(ids::LIMITER_WITHIN_RATE, fixed(2, 10), &unaligned, Expect::Holds);
    check(ids::LIMITER_ADMITS_WITH_TOKENS, fixed(2, 10), &unaligned, Expect::Holds);
    // Too sparing: a refusal with room left in the window, or once the window is over.
    check(ids::LIMITER_ADMITS_WITH_TOKENS, fixed(2, 10), &limited(&[(3, true), (4, false)]), Expect::At(5));
    check(ids::LIMITER_ADMITS_WITH_TOKENS, fixed(1, 10), &limited(&[(3, true), (13, false)]), Expect::At(5));
    check(ids::LIMITER_ADMITS_WITH_TOKENS, fixed(1, 10), &limited(&[(3, true), (12, false)]), Expect::Holds);
    // Burst 0: every dispatch is one too many, every refusal is due.
    check(ids::LIMITER_WITHIN_RATE, fixed(0, 10), &limited(&[(0, true)]), Expect::At(1));
    check(ids::LIMITER_ADMITS_WITH_TOKENS, fixed(0, 10), &limited(&[(0, false), (50, false)]), Expect::Holds);
    check(ids::LIMITER_WITHIN_RATE, fixed(2, 0), &windows, Expect::NotApplicable);
}
