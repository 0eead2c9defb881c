//! Consistency as a property: the reference interpreter keeps its contract, and so every weaker statement
//! of it ([`Restated`]); it draws every retry-after policy and breaker refinement it implements, and the
//! restatements unstate mechanisms, coarsen timers (zero to 1 s) and add tolerances. The whole catalogue
//! must hold on every case, sequential and overlapping calls alike: a violation is a law that fires on
//! correct code (or a reference bug), an inconclusive verdict a case no documented cut explains.
//!
//! A modest sample here; `cargo bench --bench consistency` runs 1,000,000 cases (docs/findings.md,
//! "Consistency").

use timelaw::generators::restated::Restated;
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
