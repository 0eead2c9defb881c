//! A call that gave up in the bulkhead's queue under ordered results, judged by the whole catalogue. The
//! reference's load mechanisms themselves (their timelines event by event, and the concurrent path serving
//! a sequential case as the sequential path does) are timelaw-core's tests (`core/tests/load.rs`,
//! `core/tests/hedged_and_ordered.rs`, `core/tests/both_paths.rs`), where mutation testing of the
//! reference runs them.

use timelaw::core::{Case, EventKind};
use timelaw::laws::Catalogue;
use timelaw::reference::{Policy, Reference};

#[test]
fn a_call_that_gave_up_in_the_queue_keeps_its_place_until_its_ordered_return() {
    // Found by fuzzing under load: a call that gave up in the bulkhead's queue under ordered results.
    // timelaw-core's `core/tests/hedged_and_ordered.rs` pins its timeline; here no law may call it a
    // violation.
    let case: Case<Policy> = serde_json::from_str(include_str!("../../core/tests/cases/gave_up_in_the_queue.json"))
        .expect("a reference case");
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
