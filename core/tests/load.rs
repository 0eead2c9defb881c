//! The reference interpreter under load: the bulkhead, the rate limiter (token bucket or fixed windows) and half-open probes
//! admitted concurrently, on overlapping calls.

use timelaw_core::reference::{Backoff, Policy, Reference};
use timelaw_core::{
    execute, BulkheadContract, CallScript, CircuitContract, EventKind, LimiterContract, LimiterWindow, Outcome,
    Schedule, Step, VDuration,
};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

fn one_attempt() -> Policy {
    Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
}

/// A call arriving at `at_ms` whose one attempt takes `took_ms` and ends with `outcome`.
fn call(at_ms: u64, took_ms: u64, outcome: Outcome) -> CallScript {
    CallScript::new(vec![Step::new(ms(took_ms), outcome)]).arriving(ms(at_ms))
}

/// The trace as `t(ms) call kind` lines, without starts, wall stamps and clock reads.
#[track_caller]
fn check(policy: &Policy, calls: Vec<CallScript>, expect: &[&str]) {
    let schedule = Schedule::new(calls);
    let trace = execute(&Reference, policy, &schedule, 0);
    assert!(trace.is_complete(), "{:?}", trace.end);
    let found: Vec<String> = trace
        .events
        .iter()
        .filter_map(|event| {
            let kind = match event.kind {
                EventKind::CallStart { .. } => return None,
                EventKind::CallEnd { result } => format!("end {result:?}"),
                EventKind::AttemptStart => "attempt".into(),
                EventKind::AttemptEnd { outcome } => outcome.name().into(),
                EventKind::Rejected { reason } => format!("rejected {reason:?}"),
                EventKind::CircuitTransition { to, .. } => format!("circuit {to:?}"),
                EventKind::Queued => "queued".into(),
                other => format!("{other:?}"),
            };
            Some(format!("{} c{} {kind}", event.at.as_nanos() / 1_000_000, event.call))
        })
        .collect();
    assert_eq!(found, expect, "{schedule:?}");
}

fn bulkhead(max_in_flight: u32, queue_max: u32) -> Policy {
    Policy { bulkhead: Some(BulkheadContract::new(max_in_flight, queue_max)), ..one_attempt() }
}

#[test]
fn the_bulkhead_admits_its_limit_and_rejects_or_queues_the_rest() {
    let three = || vec![call(0, 10, Outcome::Ok), call(0, 10, Outcome::Ok), call(0, 10, Outcome::Ok)];
    check(
        &bulkhead(2, 0),
        three(),
        &[
            "0 c0 attempt",
            "0 c1 attempt",
            "0 c2 rejected BulkheadFull",
            "0 c2 end Err(BulkheadFull)",
            "10 c0 ok",
            "10 c0 end Ok",
            "10 c1 ok",
            "10 c1 end Ok",
        ],
    );
    check(
        &bulkhead(2, 1),
        three(),
        &[
            "0 c0 attempt",
            "0 c1 attempt",
            "0 c2 queued",
            "10 c0 ok",
            "10 c0 end Ok",
            "10 c1 ok",
            "10 c1 end Ok",
            "10 c2 attempt",
            "20 c2 ok",
            "20 c2 end Ok",
        ],
    );
    check(
        &bulkhead(3, 0),
        three(),
        &[
            "0 c0 attempt",
            "0 c1 attempt",
            "0 c2 attempt",
            "10 c0 ok",
            "10 c0 end Ok",
            "10 c1 ok",
            "10 c1 end Ok",
            "10 c2 ok",
            "10 c2 end Ok",
        ],
    );
}

#[test]
fn a_queued_call_leaves_the_queue_at_its_deadline_or_cancellation() {
    let deadline = Policy { deadline: Some(ms(4)), ..bulkhead(1, 1) };
    check(
        &deadline,
        vec![call(0, 3, Outcome::Ok), call(1, 1, Outcome::Ok)],
        &["0 c0 attempt", "1 c1 queued", "3 c0 ok", "3 c0 end Ok", "3 c1 attempt", "4 c1 ok", "4 c1 end Ok"],
    );
    check(
        &deadline,
        vec![call(0, 9, Outcome::Ok), call(0, 1, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c1 queued",
            "4 c0 AttemptTimedOut { timeout: 4ms }",
            "4 c0 end Err(DeadlineExceeded)",
            "4 c1 end Err(DeadlineExceeded)",
        ],
    );
    let cancelled = CallScript { cancel_after: Some(ms(2)), ..call(1, 1, Outcome::Ok) };
    check(
        &bulkhead(1, 1),
        vec![call(0, 9, Outcome::Ok), cancelled],
        &["0 c0 attempt", "1 c1 queued", "3 c1 end Err(Cancelled)", "9 c0 ok", "9 c0 end Ok"],
    );
}

#[test]
fn the_limiter_admits_its_burst_then_one_dispatch_per_refill() {
    let limiter = Policy { limiter: Some(LimiterContract::token_bucket(2, ms(10))), ..one_attempt() };
    check(
        &limiter,
        vec![
            call(0, 0, Outcome::Ok),
            call(0, 0, Outcome::Ok),
            call(0, 0, Outcome::Ok),
            call(10, 0, Outcome::Ok),
            call(10, 0, Outcome::Ok),
        ],
        &[
            "0 c0 attempt",
            "0 c0 ok",
            "0 c0 end Ok",
            "0 c1 attempt",
            "0 c1 ok",
            "0 c1 end Ok",
            "0 c2 rejected LimiterEmpty",
            "0 c2 end Err(LimiterEmpty)",
            "10 c3 attempt",
            "10 c3 ok",
            "10 c3 end Ok",
            "10 c4 rejected LimiterEmpty",
            "10 c4 end Err(LimiterEmpty)",
        ],
    );
    // Retries take tokens too: a second attempt at 9 ms finds the bucket empty.
    let retrying = Policy { max_attempts: 3, ..limiter.clone() };
    let failing = CallScript::new(vec![Step::new(ms(9), Outcome::Transient); 3]).arriving(ms(0));
    check(
        &Policy { limiter: Some(LimiterContract::token_bucket(1, ms(10))), ..retrying },
        vec![failing],
        &[
            "0 c0 attempt",
            "9 c0 transient",
            "9 c0 Notify { delay: 0ms }",
            "9 c0 SleepRequested { duration: 0ms }",
            "9 c0 rejected LimiterEmpty",
            "9 c0 end Err(LimiterEmpty)",
        ],
    );
}

/// Fixed windows of two per 10 ms, each opened by a dispatch: 3 ms opens one (3 and 12 fill it, 12 is
/// refused), 13 ms opens the next (13 and 13 fill it): four within 10 ms, as fixed windows allow.
#[test]
fn a_fixed_window_limiter_opens_its_window_at_a_dispatch() {
    let fixed = LimiterContract { window: LimiterWindow::Fixed, ..LimiterContract::token_bucket(2, ms(10)) };
    let limiter = Policy { limiter: Some(fixed), ..one_attempt() };
    let at = |ms| call(ms, 0, Outcome::Ok);
    let dispatched = |t: u64, c: u32| [format!("{t} c{c} attempt"), format!("{t} c{c} ok"), format!("{t} c{c} end Ok")];
    let mut expect: Vec<String> = Vec::new();
    expect.extend(dispatched(3, 0));
    expect.extend(dispatched(12, 1));
    expect.extend(["12 c2 rejected LimiterEmpty".to_owned(), "12 c2 end Err(LimiterEmpty)".to_owned()]);
    expect.extend(dispatched(13, 3));
    expect.extend(dispatched(13, 4));
    let expect: Vec<&str> = expect.iter().map(String::as_str).collect();
    check(&limiter, vec![at(3), at(12), at(12), at(13), at(13)], &expect);
}

fn breaker(half_open_probes: u32) -> Policy {
    let circuit = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent: 100,
        open_for: ms(10),
        half_open_probes,
        ..CircuitContract::DEFAULT
    };
    Policy { circuit: Some(circuit), ..one_attempt() }
}

#[test]
fn half_open_admits_its_probes_concurrently_and_a_failed_probe_reopens() {
    let opening = call(0, 0, Outcome::Transient);
    check(
        &breaker(2),
        vec![opening.clone(), call(10, 5, Outcome::Ok), call(10, 5, Outcome::Ok), call(10, 5, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c0 transient",
            "0 c0 circuit Open",
            "0 c0 end Err(Transient)",
            "10 c1 circuit HalfOpen",
            "10 c1 attempt",
            "10 c2 attempt",
            "10 c3 rejected CircuitOpen",
            "10 c3 end Err(CircuitOpen)",
            "15 c1 ok",
            "15 c1 end Ok",
            "15 c2 ok",
            "15 c2 circuit Closed",
            "15 c2 end Ok",
        ],
    );
    // Two probes: the success lands first (one of the two needed), the failure beside it reopens.
    check(
        &breaker(2),
        vec![opening.clone(), call(10, 5, Outcome::Ok), call(10, 5, Outcome::Transient)],
        &[
            "0 c0 attempt",
            "0 c0 transient",
            "0 c0 circuit Open",
            "0 c0 end Err(Transient)",
            "10 c1 circuit HalfOpen",
            "10 c1 attempt",
            "10 c2 attempt",
            "15 c1 ok",
            "15 c1 end Ok",
            "15 c2 transient",
            "15 c2 circuit Open",
            "15 c2 end Err(Transient)",
        ],
    );
    check(
        &breaker(1),
        vec![opening, call(10, 5, Outcome::Ok), call(10, 5, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c0 transient",
            "0 c0 circuit Open",
            "0 c0 end Err(Transient)",
            "10 c1 circuit HalfOpen",
            "10 c1 attempt",
            "10 c2 rejected CircuitOpen",
            "10 c2 end Err(CircuitOpen)",
            "15 c1 ok",
            "15 c1 circuit Closed",
            "15 c1 end Ok",
        ],
    );
}

#[test]
fn a_result_landing_after_the_breaker_moved_on_is_dropped() {
    // Call 0 is admitted while closed and fails at 30ms, when the breaker (opened by call 1 at 0ms) is
    // half-open with call 2 as its probe: the stale failure is dropped, and the probe's success closes.
    check(
        &breaker(1),
        vec![call(0, 30, Outcome::Transient), call(0, 0, Outcome::Transient), call(10, 25, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c1 attempt",
            "0 c1 transient",
            "0 c1 circuit Open",
            "0 c1 end Err(Transient)",
            "10 c2 circuit HalfOpen",
            "10 c2 attempt",
            "30 c0 transient",
            "30 c0 end Err(Transient)",
            "35 c2 ok",
            "35 c2 circuit Closed",
            "35 c2 end Ok",
        ],
    );
}

#[test]
fn without_ordered_results_calls_take_slots_in_the_order_they_run() {
    // Both arrive at 0 and the interleaving runs call 1 first: it takes the one slot, call 0 queues.
    // (Input order at the bulkhead is for ordered results only.)
    let schedule = Schedule::new(vec![call(0, 10, Outcome::Ok), call(0, 10, Outcome::Ok)]).with_interleave(vec![1]);
    let trace = execute(&Reference, &bulkhead(1, 1), &schedule, 0);
    let attempts: Vec<(u64, u32)> = (trace.events.iter())
        .filter(|event| event.kind == EventKind::AttemptStart)
        .map(|event| (event.at.as_nanos() / 1_000_000, event.call))
        .collect();
    assert_eq!(attempts, [(0, 1), (10, 0)], "{:#?}", trace.events);
}

#[test]
fn a_queued_call_that_gives_up_leaves_the_rest_of_the_queue_in_place() {
    // Calls 1 and 2 queue behind call 0; call 1 gives up at 3ms; call 2 still gets the slot at 9ms.
    let gives_up = CallScript { cancel_after: Some(ms(3)), ..call(0, 1, Outcome::Ok) };
    check(
        &bulkhead(1, 2),
        vec![call(0, 9, Outcome::Ok), gives_up, call(0, 1, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c1 queued",
            "0 c2 queued",
            "3 c1 end Err(Cancelled)",
            "9 c0 ok",
            "9 c0 end Ok",
            "9 c2 attempt",
            "10 c2 ok",
            "10 c2 end Ok",
        ],
    );
}

#[test]
fn under_ordered_results_a_call_that_never_dispatched_frees_its_slot_while_it_waits() {
    // Two slots, one token refilled every 5ms. Call 1 finds no token at 0ms (no dispatch) and holds its
    // result until call 0 returns at 30ms, but not its slot: call 2 takes it at 5ms with the new token.
    let policy =
        Policy { ordered_results: true, limiter: Some(LimiterContract::token_bucket(1, ms(5))), ..bulkhead(2, 1) };
    check(
        &policy,
        vec![call(0, 30, Outcome::Ok), call(0, 0, Outcome::Ok), call(5, 1, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c1 rejected LimiterEmpty",
            "5 c2 attempt",
            "6 c2 ok",
            "30 c0 ok",
            "30 c0 end Ok",
            "30 c1 end Err(LimiterEmpty)",
            "30 c2 end Ok",
        ],
    );
}

#[test]
fn under_ordered_results_a_call_that_dispatched_holds_its_slot_until_it_returns() {
    // Two slots. Call 1 is done at 1ms but returns after call 0 (30ms), in flight until then: call 2,
    // arriving at 5ms, waits in the queue for a slot until both returned.
    let policy = Policy { ordered_results: true, ..bulkhead(2, 1) };
    check(
        &policy,
        vec![call(0, 30, Outcome::Ok), call(0, 1, Outcome::Ok), call(5, 1, Outcome::Ok)],
        &[
            "0 c0 attempt",
            "0 c1 attempt",
            "1 c1 ok",
            "5 c2 queued",
            "30 c0 ok",
            "30 c0 end Ok",
            "30 c1 end Ok",
            "30 c2 attempt",
            "31 c2 ok",
            "31 c2 end Ok",
        ],
    );
}
