//! The reference's concurrent path (taken for overlapping calls or a load mechanism) serves a sequential
//! case exactly as the sequential path does: the same events, instants and results, so the load
//! mechanisms add behaviour only where they act; and a call that gave up in the bulkhead's queue under
//! ordered results, judged by the whole catalogue. The mechanisms' own timelines, event by event, are
//! timelaw-core's tests (`core/tests/load.rs`, `core/tests/hedged_and_ordered.rs`), where mutation testing
//! of the reference runs them.

use timelaw::core::{execute, mix, BulkheadContract, Case, EventKind, LimiterContract, Schedule, VDuration};
use timelaw::generators::{sample_case, swarm_for};
use timelaw::laws::Catalogue;
use timelaw::reference::{Policy, Reference};

/// The policy with a neutral load mechanism, which sends it down the concurrent path.
fn neutral(policy: &Policy, limiter: bool) -> Policy {
    let mut policy = policy.clone();
    if limiter {
        policy.limiter = Some(LimiterContract { burst: u32::MAX, refill_every: VDuration::ZERO });
    } else {
        policy.bulkhead = Some(BulkheadContract { max_in_flight: u32::MAX, queue_max: 0 });
    }
    policy
}

#[test]
fn sequential_cases_run_alike_on_both_paths() {
    let mut differ = Vec::new();
    for index in 0..3_000 {
        let case = sample_case(&Reference, mix(11, index), &swarm_for(11, index));
        let sequential = execute(&Reference, &case.config, &case.schedule, case.seed);
        let concurrent = execute(&Reference, &neutral(&case.config, index % 2 == 0), &case.schedule, case.seed);
        if sequential.events != concurrent.events || sequential.end != concurrent.end {
            differ.push(index);
        }
    }
    assert_eq!(differ, Vec::<u64>::new());
}

#[test]
fn a_call_that_gave_up_in_the_queue_keeps_its_place_until_its_ordered_return() {
    // Found by fuzzing under load. Call 1 waits in the queue and gives up at its deadline, the instant
    // calls 2 to 4 arrive; it holds its result until call 0 returned, and until then the trace shows it
    // queued, so it must keep its place in the queue's room: call 4 finds the queue full.
    let policy: Policy = serde_json::from_str(
        r#"{"max_attempts": 1, "backoff": {"constant": {"delay": "0"}}, "delay_max": "0",
        "deadline": "294.967291ms", "bulkhead": {"max_in_flight": 1, "queue_max": 3}, "ordered_results": true}"#,
    )
    .expect("a reference config");
    let schedule: Schedule = serde_json::from_str(
        r#"{"calls": [
        {"steps": [{"duration": "294.967291ms", "outcome": "ok"}], "arrival": "0"},
        {"steps": [], "arrival": "0"},
        {"steps": [], "arrival": "294.967291ms"},
        {"steps": [], "arrival": "294.967291ms"},
        {"steps": [], "arrival": "294.967291ms"}],
        "interleave": [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]}"#,
    )
    .expect("a schedule");
    let case = Case::new(policy, schedule, 0);
    let evaluation = timelaw::eval::evaluate(&Reference, &case, timelaw::core::Limits::default(), false);
    let rejected: Vec<u32> = (evaluation.trace.events.iter())
        .filter(|e| matches!(e.kind, EventKind::Rejected { .. }))
        .map(|e| e.call)
        .collect();
    assert_eq!(rejected, [4], "{:#?}", evaluation.trace.events);
    for law in Catalogue::standard().iter() {
        let verdict = evaluation.judge(law, &case);
        assert!(!verdict.is_violated(), "{}: {verdict}", law.id);
    }
}
