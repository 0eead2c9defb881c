//! Consistency as a property: the reference interpreter keeps its contract, and so every weaker statement
//! of it ([`Restated`]); it draws every retry-after policy and breaker refinement it implements, and the
//! restatements unstate mechanisms, coarsen timers (zero to 1 s) and add tolerances. The whole catalogue
//! must hold on every case, sequential and overlapping calls alike: a violation is a law that fires on
//! correct code (or a reference bug), an inconclusive verdict a case no documented cut explains.
//!
//! A modest sample here; `cargo bench --bench consistency` runs 1,000,000 cases (docs/findings.md,
//! "Consistency").

use timelaw::core::reference::Policy;
use timelaw::core::{Case, EventKind, Limits, VInstant};
use timelaw::generators::restated::Restated;
use timelaw::generators::SwarmSwitch;
use timelaw::laws::{Catalogue, Verdict};
use timelaw::reference::Reference;

/// Cases per run: enough to reach every refinement and restatement, few enough for the debug test build.
const CASES: u64 = 1_500;

#[track_caller]
fn check(seed: u64, concurrency: bool) {
    let output =
        timelaw::check(&Restated::new(Reference)).cases(CASES).seed(seed).concurrency(concurrency).env(false).run();
    output.assert_holds();
}

#[test]
fn the_reference_keeps_every_law_under_every_statable_contract() {
    check(0x00C0_4515, false);
}

#[test]
fn the_reference_keeps_every_law_under_load_under_every_statable_contract() {
    check(0x00C0_4516, true);
}

/// The reference holds on every setting: with each swarm switch forced on in every batch (overlapping
/// calls, clock faults, long runs and the rest at full strength, every other option drawn as usual),
/// every case is judged and no law is violated. `.ci/swarm-sweep` runs 1,000,000 cases per switch on
/// three seeds (docs/measurements.md, "The reference on every setting").
#[test]
fn the_reference_holds_with_each_swarm_switch_forced_on() {
    for switch in SwarmSwitch::ALL {
        let output = timelaw::check(&Reference).cases(1_000).seed(0x5A4A_0001).swarm_on(switch).env(false).run();
        assert!(output.holds(), "--swarm-on {switch}:\n{}", output.failure_message());
    }
}

/// Found by `.ci/swarm-sweep` (1,000,000 cases, cancellation, clock faults or overlapping calls forced on):
/// with ordered results, a call that gave up at once (its next sleep would reach its deadline, or its
/// clock could not be read) holds its `Err(DeadlineExceeded)` until the call before it returns, which
/// falls on the instant of its own cancellation; `interrupt_tie_as_declared` read the held return as
/// interrupted at the tie and expected the `Err(Cancelled)` declared first. A result decided before the
/// call returns is no longer judged as an interruption; no law of the catalogue fires on these cases.
#[test]
fn a_held_result_is_not_read_as_an_interruption_at_a_tie() {
    const GAVE_UP_BEFORE_ITS_SLEEP: &str = r#"{"config":{"max_attempts":2,"backoff":{"constant":{"delay":"1ns"}},"delay_max":"1ns","jitter":"none","retry_on":{"transient":true,"rate_limited":true,"timeout":true},"honor_retry_after":false,"attempt_timeout":null,"deadline":"1ns","sleep_budget":null,"circuit":null,"retry_budget":null,"ordered_results":true,"interrupt_tie":"cancellation_first"},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"1ns","outcome":"ok"}],"cancel_after":null,"idempotent":true,"arrival":"0"},{"gap_before":"0","steps":[{"duration":"0","outcome":"transient"}],"cancel_after":"1ns","idempotent":true,"arrival":"0"}]},"seed":0}"#;
    const CLOCK_UNREADABLE: &str = r#"{"config":{"max_attempts":1,"backoff":{"constant":{"delay":"0"}},"delay_max":"0","jitter":"none","retry_on":{"transient":true,"rate_limited":true,"timeout":true},"honor_retry_after":false,"attempt_timeout":null,"deadline":"1ns","sleep_budget":null,"circuit":null,"retry_budget":null,"ordered_results":true,"interrupt_tie":"cancellation_first"},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"1ns","outcome":"ok"}],"cancel_after":null,"idempotent":true,"arrival":"0"},{"gap_before":"0","steps":[],"cancel_after":"1ns","idempotent":true,"arrival":"0"}],"clock":{"read_failures":[{"clock":"monotonic","from":{"after_reads":1},"count":1}]}},"seed":0}"#;
    for text in [GAVE_UP_BEFORE_ITS_SLEEP, CLOCK_UNREADABLE] {
        let case: Case<Policy> = serde_json::from_str(text).expect("a case");
        let evaluation = timelaw::eval::evaluate(&Reference, &case, Limits::default(), true);
        let ends = evaluation.trace.events.iter().filter(|event| matches!(event.kind, EventKind::CallEnd { .. }));
        let late = ends.map(|event| event.at).max().expect("the calls return");
        assert_eq!(late, VInstant::from_nanos(1), "the held result returns at the tie");
        Catalogue::standard().judge_each(&evaluation.observation(&case), |_, law, verdict| {
            assert!(!matches!(verdict, Verdict::Violated(_)), "{}: {verdict:?}\n{text}", law.id);
        });
    }
}
