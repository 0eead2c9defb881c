//! The laws' helpers that read one call's events out of a trace regrouped by call, an attempt's result
//! out of its event, and the last attempt's result while walking a call.

mod support;

use support::*;
use timelaw_core::{CallResult, ErrorKind, EventKind, VDuration};
use timelaw_laws::catalogue::support::{attempt_result, take_call, LastAttempt};

#[test]
fn take_call_slices_each_call_in_turn_and_skips_the_missing() {
    // Calls 0, 1 and 3 (call 2 made no event): each call's events in turn, call 2 empty.
    let trace = hand_built(&[
        (0, 0, 0, START),
        (0, 0, 1, ATTEMPT),
        (0, 1, 0, START),
        (0, 1, 1, ATTEMPT),
        (0, 1, 1, FAILED),
        (0, 3, 0, START),
    ]);
    let events = &trace.events;
    let mut cursor = 0;
    let calls: Vec<Vec<u32>> =
        (0..5).map(|call| take_call(events, &mut cursor, call).iter().map(|event| event.seq).collect()).collect();
    assert_eq!(calls, [vec![0, 1], vec![2, 3, 4], vec![], vec![5], vec![]]);
    assert_eq!(cursor, events.len());
    // Asking for a later call first skips the earlier calls' events.
    let mut cursor = 0;
    let third: Vec<u32> = take_call(events, &mut cursor, 3).iter().map(|event| event.seq).collect();
    assert_eq!(third, [5]);
    let mut cursor = 0;
    let second: Vec<u32> = take_call(events, &mut cursor, 1).iter().map(|event| event.seq).collect();
    assert_eq!((second, cursor), (vec![2, 3, 4], 5));
}

#[test]
fn attempt_result_reads_every_ending() {
    let timeout = VDuration::from_millis(5);
    let cases = [
        (SUCCEEDED, Some(CallResult::Ok)),
        (FAILED, Some(CallResult::Err(ErrorKind::Transient))),
        (EventKind::AttemptTimedOut { timeout }, Some(CallResult::Err(ErrorKind::Timeout))),
        (EventKind::AttemptCancelled, Some(CallResult::Err(ErrorKind::Cancelled))),
        (EventKind::AttemptDropped { ran: timeout }, None),
        (ATTEMPT, None),
    ];
    for (kind, expected) in cases {
        assert_eq!(attempt_result(&kind), expected, "{kind:?}");
    }
}

/// Walks `events` (hand-built: (ms, call, attempt, kind)) with one `LastAttempt`; after each event, whether
/// it ended an attempt that counts and the last result.
fn walked(events: &[(u64, u32, u32, EventKind)]) -> Vec<(bool, Option<CallResult>)> {
    let mut last = LastAttempt::default();
    hand_built(events).events.iter().map(|event| (last.step(event), last.result)).collect()
}

#[test]
fn the_last_attempt_skips_a_hedge_loser_and_resets_at_a_call_start() {
    let (ok, cancelled) = (Some(CallResult::Ok), Some(CallResult::Err(ErrorKind::Cancelled)));
    let cut = EventKind::AttemptCancelled;
    // A hedge's loser cancelled at the instant the winner succeeded stands for no result.
    let loser = walked(&[(0, 0, 1, ATTEMPT), (0, 0, 2, ATTEMPT), (5, 0, 2, SUCCEEDED), (5, 0, 1, cut)]);
    assert_eq!(loser, [(false, None), (false, None), (true, ok), (false, ok)]);
    // Once another attempt started at that instant, a cancellation there is that attempt's own result.
    let retried = walked(&[(0, 0, 1, ATTEMPT), (5, 0, 1, SUCCEEDED), (5, 0, 2, ATTEMPT), (5, 0, 2, cut)]);
    assert_eq!(retried, [(false, None), (true, ok), (false, ok), (true, cancelled)]);
    // A new call starts with no last attempt.
    let next = walked(&[(0, 0, 1, ATTEMPT), (1, 0, 1, FAILED), (1, 1, 0, START)]);
    assert_eq!(next, [(false, None), (true, Some(CallResult::Err(ErrorKind::Transient))), (false, None)]);
}
