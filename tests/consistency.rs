//! Consistency as a property: the reference interpreter keeps its contract, and so every weaker statement
//! of it ([`Restated`]); it draws every retry-after policy and breaker refinement it implements, and the
//! restatements unstate mechanisms, coarsen timers (zero to 1 s) and add tolerances. The whole catalogue
//! must hold on every case, sequential and overlapping calls alike: a violation is a law that fires on
//! correct code (or a reference bug), an inconclusive verdict a case no documented cut explains.
//!
//! A modest sample here; `cargo bench --bench consistency` runs 1,000,000 cases (docs/findings.md,
//! "Consistency").

use timelaw::generators::restated::Restated;
use timelaw::generators::SwarmSwitch;
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
