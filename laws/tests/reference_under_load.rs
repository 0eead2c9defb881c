//! The reference interpreter under load, on cases a concurrent run once flagged by mistake: each law
//! named must not be violated. Every case is data: the reference's config and the schedule, as JSON.

mod support;

use support::*;
use timelaw_core::reference::Policy;
use timelaw_core::Schedule;
use timelaw_laws::ids;

#[track_caller]
fn check(config: &str, schedule: &str, laws: &[&str]) {
    let policy: Policy = serde_json::from_str(config).expect("a reference config");
    let schedule: Schedule = serde_json::from_str(schedule).expect("a schedule");
    let run = reference(policy, schedule);
    for id in laws {
        let verdict = run.judge(id);
        assert!(!verdict.is_violated(), "{id}: {verdict}\n{}", Listing(&run.trace));
    }
}

const ONE_PROBE: &str = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
    "circuit": {"window": 1, "min_calls": 1, "failure_percent": 1, "open_for": "0", "half_open_probes": 1}}"#;

#[test]
fn a_call_decided_after_the_probe_closed_the_breaker_is_no_probe() {
    // Call 2 starts with the probe (call 1) but runs after the probe closed the breaker; its failure then
    // reopens it, which is no settling of the probe's result.
    let schedule = r#"{"calls": [
        {"steps": [{"duration": "0", "outcome": "transient"}], "arrival": "0"},
        {"steps": [], "arrival": "426.121329255s"},
        {"steps": [{"duration": "0", "outcome": "transient"}], "arrival": "426.121329255s"}]}"#;
    check(ONE_PROBE, schedule, &[ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, ids::CIRCUIT_CLOSED_ADMITS]);
}

#[test]
fn a_queued_call_refused_by_the_limiter_is_a_breaker_result() {
    // Call 1 waits for the bulkhead, is admitted by the breaker, and the empty limiter refuses it: the
    // breaker counts that failure and opens, so call 2's refusal is due.
    let config = r#"{"max_attempts": 2, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "circuit": {"window": 1, "min_calls": 1, "failure_percent": 1, "open_for": "1ns", "half_open_probes": 1},
        "bulkhead": {"max_in_flight": 1, "queue_max": 4}, "limiter": {"burst": 1, "refill_every": "148.13264ms"}}"#;
    let schedule = r#"{"calls": [
        {"steps": [{"duration": "148.13264ms", "outcome": "transient"}], "arrival": "0"},
        {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "9.721971ms"}]}"#;
    check(config, schedule, &[ids::CIRCUIT_CLOSED_ADMITS, ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH]);
}

#[test]
fn a_call_cancelled_in_the_bulkhead_queue_never_reached_the_breaker() {
    // Found by fuzzing under load. Calls 1 to 3 arrive together once the breaker may probe; call 2 is
    // polled first, takes the bulkhead's only slot and the probe; call 3 waits in the queue and is
    // cancelled there, so it never asked the breaker and frees no probe slot; call 2's probe fails and
    // reopens the breaker, so call 1's refusal is due.
    let config = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "circuit": {"window": 1, "min_calls": 1, "failure_percent": 1, "open_for": "1ns", "half_open_probes": 1},
        "bulkhead": {"max_in_flight": 1, "queue_max": 4}}"#;
    let schedule = r#"{"calls": [
        {"steps": [{"duration": "0", "outcome": "transient"}], "arrival": "0"},
        {"steps": [], "arrival": "329.00865075s"},
        {"steps": [{"duration": "1ns", "outcome": "transient"}], "arrival": "329.00865075s"},
        {"steps": [], "cancel_after": "0", "arrival": "329.00865075s"}],
        "interleave": [4, 7, 7, 7]}"#;
    let laws = [ids::CIRCUIT_PROBE_SLOT_FREED, ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN, ids::CIRCUIT_CLOSED_ADMITS];
    check(config, schedule, &laws);
}

#[test]
fn a_call_that_left_the_bulkhead_queue_and_failed_before_dispatch_is_a_breaker_result() {
    // Found by fuzzing under load. Call 1 waits for the slot of call 0, gets it when call 0's deadline
    // ends it, passes the breaker and fails its first clock read: its `Err(DeadlineExceeded)` is the
    // breaker's second failure, which opens it, so call 2's refusal is due.
    let config = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "deadline": "294.967291ms",
        "circuit": {"window": 2, "min_calls": 2, "failure_percent": 1, "open_for": "1ns", "half_open_probes": 1},
        "bulkhead": {"max_in_flight": 1, "queue_max": 4}}"#;
    let schedule = r#"{"calls": [
        {"steps": [{"duration": "294.967291ms", "outcome": "ok"}], "arrival": "0"},
        {"steps": [], "arrival": "294.967291ms"},
        {"steps": [], "arrival": "294.967291ms"}],
        "clock": {"read_failures": [{"clock": "monotonic", "from": {"after_reads": 1}, "count": 1}]},
        "interleave": [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]}"#;
    let laws = [ids::CIRCUIT_CLOSED_ADMITS, ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, ids::CIRCUIT_PROBE_SLOT_FREED];
    check(config, schedule, &laws);
}

#[test]
fn a_wall_jump_while_queued_does_not_take_the_call_out_of_the_queue() {
    // Found by fuzzing under load. Call 2 waits for the slot of call 1; the case's wall-clock jump is
    // recorded during its wait (as its event), and its deadline ends it in the queue: no breaker result.
    // So the window holds one success and one failure (50%, under 51%) and call 3 may be dispatched.
    let config = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "deadline": "294.967291ms",
        "circuit": {"window": 2, "min_calls": 1, "failure_percent": 51, "open_for": "1ns", "half_open_probes": 1},
        "bulkhead": {"max_in_flight": 1, "queue_max": 4}}"#;
    let schedule = r#"{"calls": [
        {"steps": [], "arrival": "0"},
        {"steps": [{"duration": "294.967291ms", "outcome": "ok"}], "arrival": "0"},
        {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "294.967291ms"}],
        "clock": {"wall_jumps": [{"at": {"instant": "1ns"}, "by": "-1ns"}]}}"#;
    let laws = [ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED];
    check(config, schedule, &laws);
}

#[test]
fn a_call_that_turned_the_breaker_half_open_was_decided_there() {
    // Found by fuzzing under load. Four calls arrive together; call 0 fails its deadline of 0 and opens
    // the breaker; call 2 (polled next) turns it half-open as its probe, fails its deadline too, and
    // holds its result for the ordered stream; call 1 finds the probe slot taken. Call 2 was decided at
    // its transition, not at its start (when the breaker was still closed), so call 1's refusal is due.
    let config = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0", "deadline": "0",
        "circuit": {"window": 1, "min_calls": 1, "failure_percent": 1, "open_for": "0", "half_open_probes": 1},
        "ordered_results": true}"#;
    let schedule = r#"{"calls": [
        {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"}],
        "interleave": [3, 6, 7, 7, 2, 2, 0, 0, 6, 7, 7, 1]}"#;
    let laws =
        [ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN, ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, ids::CIRCUIT_CLOSED_ADMITS];
    check(config, schedule, &laws);
}

#[test]
fn a_call_is_decided_in_the_poll_that_records_its_first_own_event() {
    // Found by fuzzing under load. Calls 6 and 7 pass the closed breaker in their first poll (their
    // failed clock reads show it), fail for lack of timing, and hold their results for the ordered
    // stream until after call 3's probe closed the breaker again: results of an earlier closed period,
    // which do not reopen it.
    let config = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0", "deadline": "1ns",
        "circuit": {"window": 1, "min_calls": 1, "failure_percent": 1, "open_for": "0", "half_open_probes": 1},
        "ordered_results": true}"#;
    let schedule = r#"{"calls": [
        {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"}],
        "clock": {"read_failures": [{"clock": "monotonic", "from": {"after_reads": 0}, "count": 3}]},
        "interleave": [6, 6, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}"#;
    let laws =
        [ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED, ids::CIRCUIT_CLOSED_ADMITS, ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN];
    check(config, schedule, &laws);
}

#[test]
fn a_wall_jump_is_no_action_of_the_call_it_is_recorded_under() {
    // Found by fuzzing under load. The case's wall-clock jump at 0 is recorded under call 0 before any
    // call ran; call 0 runs (and deposits) only after call 2's retry was refused, when two deposits of
    // 34 % allowed no retry.
    let config = r#"{"max_attempts": 2, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "retry_budget": {"min_retries": 0, "retry_percent": 34}}"#;
    let schedule = r#"{"calls": [
        {"steps": [], "arrival": "0"}, {"steps": [], "arrival": "0"},
        {"steps": [{"duration": "0", "outcome": "transient"}], "arrival": "0"}],
        "clock": {"wall_jumps": [{"at": {"instant": "0"}, "by": "1ns"}]},
        "interleave": [7, 7, 7, 7, 7, 7, 7, 7]}"#;
    check(config, schedule, &[ids::RETRY_BUDGET_ADMITS_WITH_ROOM, ids::RETRY_BUDGET_RESPECTED]);
}

#[test]
fn a_call_that_records_nothing_of_its_own_was_decided_at_its_end() {
    // Found by fuzzing under load. Call 3 is cancelled at once and records only its start and end; it
    // ran in one poll after call 2's probe closed the breaker, so it took no probe slot from call 2.
    let config = r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "circuit": {"window": 2, "min_calls": 2, "failure_percent": 1, "open_for": "1ns", "half_open_probes": 1}}"#;
    let schedule = r#"{"calls": [
        {"steps": [{"duration": "0", "outcome": "transient"}], "arrival": "0"},
        {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "1ns"},
        {"steps": [], "cancel_after": "0", "arrival": "1ns"},
        {"steps": [], "arrival": "1ns"},
        {"steps": [{"duration": "0", "outcome": "transient"}], "arrival": "1ns"},
        {"steps": [], "arrival": "1ns"}]}"#;
    let laws = [
        ids::CIRCUIT_CLOSES_AFTER_PROBES,
        ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN,
        ids::CIRCUIT_PROBE_SLOT_FREED,
        ids::CIRCUIT_CLOSED_ADMITS,
        ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED,
    ];
    check(config, schedule, &laws);
}
