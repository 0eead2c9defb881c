//! The reference's hedged requests and ordered results, event by event: a hedge after its delay while
//! no attempt answered, the first answer winning and the others cancelled at that instant, hedges within
//! their limits (the call's hedges and attempts, a token, the retry budget, the elapsed-time limit), and
//! results held until every earlier call returned.

use timelaw_core::reference::{Policy, Reference};
use timelaw_core::{
    execute, Abort, CallScript, Case, Event, EventKind, Limits, Outcome, Schedule, Step, TraceEnd, VDuration,
};

/// One event as a line: `at call.attempt what`, with instants in milliseconds.
fn line(event: &Event) -> String {
    let what = match event.kind {
        EventKind::CallStart { .. } => "start".to_owned(),
        EventKind::AttemptStart => "attempt".to_owned(),
        EventKind::AttemptEnd { outcome } => format!("{outcome:?}").to_lowercase(),
        EventKind::AttemptCancelled => "cancelled".to_owned(),
        EventKind::AttemptTimedOut { .. } => "timed out".to_owned(),
        EventKind::SleepRequested { duration } => format!("sleep {duration}"),
        EventKind::Notify { .. } => "notify".to_owned(),
        EventKind::Queued => "queued".to_owned(),
        EventKind::CallEnd { result } => format!("-> {result:?}"),
        kind => format!("{kind:?}"),
    };
    let at_ms = event.at.since_epoch().as_nanos() / 1_000_000;
    format!("{at_ms} {}.{} {what}", event.call, event.attempt)
}

/// Runs `config` (the reference's JSON) on `schedule` (JSON) and compares the timeline, event by event.
#[track_caller]
fn check(config: &str, schedule: &str, expect: &[&str]) {
    let policy: Policy = serde_json::from_str(config).expect("a reference config");
    let schedule: Schedule = serde_json::from_str(schedule).expect("a schedule");
    let trace = execute(&Reference, &policy, &schedule, 0);
    let lines: Vec<String> = trace.events.iter().map(line).collect();
    assert_eq!(lines, expect, "end: {:?}", trace.end);
    assert_eq!(trace.end, TraceEnd::Complete);
}

/// Two attempts, no backoff, hedged after `delay`; `more` adds fields.
fn hedging(delay: &str, max_hedges: u32, more: &str) -> String {
    format!(
        r#"{{"max_attempts": 2, "backoff": {{"constant": {{"delay": "0"}}}}, "delay_max": "0",
        "hedge": {{"delay": "{delay}", "max_hedges": {max_hedges}}}{more}}}"#
    )
}

/// One call whose attempts take these steps (JSON), arriving at 0.
fn one_call(steps: &str) -> String {
    format!(r#"{{"calls": [{{"steps": [{steps}], "arrival": "0"}}]}}"#)
}

const SLOW_OK: &str = r#"{"duration": "50ms", "outcome": "ok"}"#;
const QUICK_OK: &str = r#"{"duration": "10ms", "outcome": "ok"}"#;
const QUICK_FAIL: &str = r#"{"duration": "10ms", "outcome": "transient"}"#;

#[test]
fn a_slow_attempt_is_hedged_and_the_first_answer_wins() {
    let slow_then_quick = one_call(&format!("{SLOW_OK}, {QUICK_OK}"));
    // The hedge starts 5ms in and answers at 15ms: the first attempt is cancelled at that instant.
    let won = ["0 0.0 start", "0 0.1 attempt", "5 0.2 attempt", "15 0.2 ok", "15 0.1 cancelled", "15 0.0 -> Ok"];
    check(&hedging("5ms", 1, ""), &slow_then_quick, &won);
    // A failing hedge answers first too: the try fails, the first attempt is cancelled, and with no
    // attempt left the call returns the hedge's error.
    let failed = [
        "0 0.0 start",
        "0 0.1 attempt",
        "5 0.2 attempt",
        "15 0.2 transient",
        "15 0.1 cancelled",
        "15 0.0 -> Err(Transient)",
    ];
    check(&hedging("5ms", 1, ""), &one_call(&format!("{SLOW_OK}, {QUICK_FAIL}")), &failed);
    // An attempt that answers before the hedge delay, or at that very instant, is never hedged.
    let alone = ["0 0.0 start", "0 0.1 attempt", "50 0.1 ok", "50 0.0 -> Ok"];
    check(&hedging("60ms", 1, ""), &slow_then_quick, &alone);
    check(&hedging("50ms", 1, ""), &slow_then_quick, &alone);
    // No hedge allowed, a hedge too far off to come, a single attempt, a call that is not idempotent.
    check(&hedging("5ms", 0, ""), &slow_then_quick, &alone);
    check(&hedging("18446744073709551615ns", 1, ""), &slow_then_quick, &alone);
    check(&hedging("5ms", 1, "").replace(r#""max_attempts": 2"#, r#""max_attempts": 1"#), &slow_then_quick, &alone);
    let once =
        r#"{"calls": [{"steps": [{"duration": "50ms", "outcome": "ok"}], "arrival": "0", "idempotent": false}]}"#;
    let alone_once = ["0 0.0 start", "0 0.1 attempt", "50 0.1 ok", "50 0.0 -> Ok"];
    check(&hedging("5ms", 1, ""), once, &alone_once);
}

#[test]
fn hedges_come_a_delay_apart_up_to_the_limits() {
    let config = hedging("0", 2, "").replace(r#""max_attempts": 2"#, r#""max_attempts": 3"#);
    let three = one_call(&format!("{SLOW_OK}, {SLOW_OK}, {QUICK_OK}"));
    // A zero delay starts every hedge at once; the quickest answer wins and both others are cancelled.
    let at_once = [
        "0 0.0 start",
        "0 0.1 attempt",
        "0 0.2 attempt",
        "0 0.3 attempt",
        "10 0.3 ok",
        "10 0.1 cancelled",
        "10 0.2 cancelled",
        "10 0.0 -> Ok",
    ];
    check(&config, &three, &at_once);
    let spaced = hedging("20ms", 2, "").replace(r#""max_attempts": 2"#, r#""max_attempts": 3"#);
    let apart = [
        "0 0.0 start",
        "0 0.1 attempt",
        "20 0.2 attempt",
        "40 0.3 attempt",
        "50 0.1 ok",
        "50 0.2 cancelled",
        "50 0.3 cancelled",
        "50 0.0 -> Ok",
    ];
    check(&spaced, &three, &apart);
    // The hedges of a call are counted over its tries: after a failed try, the retry is not hedged.
    let retried = hedging("5ms", 1, "").replace(r#""max_attempts": 2"#, r#""max_attempts": 3"#);
    let steps = one_call(&format!("{SLOW_OK}, {QUICK_FAIL}, {SLOW_OK}"));
    let once_per_call = [
        "0 0.0 start",
        "0 0.1 attempt",
        "5 0.2 attempt",
        "15 0.2 transient",
        "15 0.1 cancelled",
        "15 0.2 notify",
        "15 0.2 sleep 0ms",
        "15 0.3 attempt",
        "65 0.3 ok",
        "65 0.0 -> Ok",
    ];
    check(&retried, &steps, &once_per_call);
}

#[test]
fn a_hedge_needs_a_token_a_retry_from_the_budget_and_time_before_the_limits() {
    let slow_then_quick = one_call(&format!("{SLOW_OK}, {QUICK_OK}"));
    let alone = ["0 0.0 start", "0 0.1 attempt", "50 0.1 ok", "50 0.0 -> Ok"];
    // One token: the first attempt takes it, the hedge finds none and is not sent (nothing refused).
    check(&hedging("5ms", 1, r#", "limiter": {"burst": 1, "refill_every": "1s"}"#), &slow_then_quick, &alone);
    // A budget with no retry: a hedge is a retry to it.
    let budget = r#", "retry_budget": {"min_retries": 0, "retry_percent": 0}"#;
    check(&hedging("5ms", 1, budget), &slow_then_quick, &alone);
    // No retry after 3ms: no hedge at 5ms either.
    check(&hedging("5ms", 1, r#", "retry_elapsed_max": "3ms""#), &slow_then_quick, &alone);
    // Retries allowed until exactly 5ms, or a deadline far off: the hedge due at 5ms goes.
    let won = ["0 0.0 start", "0 0.1 attempt", "5 0.2 attempt", "15 0.2 ok", "15 0.1 cancelled", "15 0.0 -> Ok"];
    check(&hedging("5ms", 1, r#", "retry_elapsed_max": "5ms""#), &slow_then_quick, &won);
    check(&hedging("5ms", 1, r#", "deadline": "1s""#), &slow_then_quick, &won);
    // Two tokens and a budget of one: the hedge goes.
    let room =
        r#", "limiter": {"burst": 2, "refill_every": "1s"}, "retry_budget": {"min_retries": 1, "retry_percent": 0}"#;
    check(&hedging("5ms", 1, room), &slow_then_quick, &won);
}

/// Two calls arriving together: call 0 takes 30ms, call 1 10ms (call 1 cancelled after `cancel`, if any).
fn racing(cancel: Option<&str>) -> String {
    let cancel = cancel.map_or(String::new(), |after| format!(r#", "cancel_after": "{after}""#));
    format!(
        r#"{{"calls": [{{"steps": [{{"duration": "30ms", "outcome": "ok"}}], "arrival": "0"}},
        {{"steps": [{{"duration": "10ms", "outcome": "ok"}}], "arrival": "0"{cancel}}}]}}"#
    )
}

const ORDERED: &str = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
    "ordered_results": true}"#;

#[test]
fn ordered_results_wait_for_every_earlier_call() {
    let held = [
        "0 0.0 start",
        "0 1.0 start",
        "0 0.1 attempt",
        "0 1.1 attempt",
        "10 1.1 ok",
        "30 0.1 ok",
        "30 0.0 -> Ok",
        "30 1.0 -> Ok",
    ];
    check(ORDERED, &racing(None), &held);
    let unordered = ORDERED.replace(r#""ordered_results": true"#, r#""ordered_results": false"#);
    let free = [
        "0 0.0 start",
        "0 1.0 start",
        "0 0.1 attempt",
        "0 1.1 attempt",
        "10 1.1 ok",
        "10 1.0 -> Ok",
        "30 0.1 ok",
        "30 0.0 -> Ok",
    ];
    check(&unordered, &racing(None), &free);
    // Its caller stops waiting at the cancellation: the call returns its result then, out of order.
    let cancelled = [
        "0 0.0 start",
        "0 1.0 start",
        "0 0.1 attempt",
        "0 1.1 attempt",
        "10 1.1 ok",
        "20 1.0 -> Ok",
        "30 0.1 ok",
        "30 0.0 -> Ok",
    ];
    check(ORDERED, &racing(Some("20ms")), &cancelled);
}

#[test]
fn ordered_calls_enter_the_bulkhead_in_input_order() {
    // One slot and a queue: call 1 is polled first, yet call 0 enters first (else call 1 would hold the
    // slot waiting for call 0, which waits for the slot).
    let config = ORDERED.replace(
        r#""ordered_results": true"#,
        r#""ordered_results": true, "bulkhead": {"max_in_flight": 1, "queue_max": 1}"#,
    );
    let schedule: Schedule = serde_json::from_str(&racing(None)).expect("a schedule");
    let schedule = serde_json::to_string(&schedule.with_interleave(vec![1])).expect("serializable");
    let in_order = [
        "0 0.0 start",
        "0 1.0 start",
        "0 0.1 attempt",
        "0 1.0 queued",
        "30 0.1 ok",
        "30 0.0 -> Ok",
        "30 1.1 attempt",
        "40 1.1 ok",
        "40 1.0 -> Ok",
    ];
    check(&config, &schedule, &in_order);
}

/// A case found by fuzzing under load (`cases/gave_up_in_the_queue.json`, which the facade's
/// `tests/suite/reference_load.rs` also judges by the whole catalogue).
const GAVE_UP_IN_THE_QUEUE: &str = include_str!("cases/gave_up_in_the_queue.json");

#[test]
fn a_call_that_gave_up_in_the_queue_keeps_its_place_in_the_queue_until_its_ordered_return() {
    // Call 1 waits in the queue and gives up at its deadline, the instant calls 2 to 4 arrive; it holds
    // its result until call 0 returned, and until then the trace shows it queued, so it keeps its place
    // in the queue's room: call 4 finds the queue full (calls 2 and 3 took the rest).
    let case: Case<Policy> = serde_json::from_str(GAVE_UP_IN_THE_QUEUE).expect("a reference case");
    assert_eq!(rejected(&case), [4]);
    // Once it returned, its place is free again: four calls arriving later fill the slot and the whole
    // queue of three, and none is rejected.
    let mut later = case.clone();
    let at_400ms = || {
        CallScript::new(vec![Step::new(VDuration::from_millis(1), Outcome::Ok)]).arriving(VDuration::from_millis(400))
    };
    later.schedule.calls.extend(std::iter::repeat_with(at_400ms).take(4));
    assert_eq!(rejected(&later), [4]);
}

/// The calls of `case` the bulkhead rejected, in trace order.
fn rejected(case: &Case<Policy>) -> Vec<u32> {
    let trace = execute(&Reference, &case.config, &case.schedule, case.seed);
    assert_eq!(trace.end, TraceEnd::Complete);
    (trace.events.iter())
        .filter(|event| matches!(event.kind, EventKind::Rejected { .. }))
        .map(|event| event.call)
        .collect()
}

#[test]
fn a_hedge_due_at_the_runs_time_limit_still_comes_and_one_past_it_never_does() {
    // The first attempt hangs; the hedge would answer at once. `Limits::default().virtual_time_max` is
    // 100 years: a hedge due at exactly that instant comes and wins; one due a nanosecond later could
    // never come, and the hang is reported as one.
    let limit = Limits::default().virtual_time_max;
    let hang_then_ok = one_call(r#"{"duration": "0", "outcome": "hang"}, {"duration": "0", "outcome": "ok"}"#);
    let run = |delay: VDuration| {
        let policy: Policy =
            serde_json::from_str(&hedging(&format!("{}ns", delay.as_nanos()), 1, "")).expect("a config");
        let schedule: Schedule = serde_json::from_str(&hang_then_ok).expect("a schedule");
        execute(&Reference, &policy, &schedule, 0)
    };
    let at_limit = run(limit);
    let lines: Vec<String> = at_limit.events.iter().map(line).collect();
    let years_ms = limit.as_nanos() / 1_000_000;
    let expect = [
        "0 0.0 start".to_owned(),
        "0 0.1 attempt".to_owned(),
        format!("{years_ms} 0.2 attempt"),
        format!("{years_ms} 0.2 ok"),
        format!("{years_ms} 0.1 cancelled"),
        format!("{years_ms} 0.0 -> Ok"),
    ];
    assert_eq!((lines, at_limit.end), (expect.to_vec(), TraceEnd::Complete));
    let past_limit = run(limit.saturating_add(VDuration::from_nanos(1)));
    assert_eq!(past_limit.end, TraceEnd::Aborted(Abort::Hung { call: 0, attempt: 1 }), "{:?}", past_limit.events);
}
