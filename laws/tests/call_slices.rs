//! The laws' helpers that read one call's events out of a trace regrouped by call, and an attempt's
//! result out of its event.

mod support;

use support::*;
use timelaw_core::{CallResult, ErrorKind, EventKind, VDuration};
use timelaw_laws::catalogue::support::{attempt_result, take_call};

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
