//! The planted-bug corpus (`tests/common/corpus.rs`): the faithful copy of the reference behaves like
//! the reference; every canonical minimum violates its law under its bug and holds under the reference;
//! and on a few seeds every bug is found within 100,000 cases and shrinks to its canonical minimum (or,
//! for the entries marked `Missing`, to a case no larger than the one found that still violates; the
//! `shrink_quality` bench measures how often they reach the minimum).

use crate::common;

use common::corpus::{names_agree, CorpusBug, Reach, CORPUS};
use common::corpus_measure::judge;
use common::corpus_minima::canonical;
use common::corpus_subject::{Slip, Slipped};
use common::guide_corpus::GUIDE_CORPUS;
use timelaw::core::reference::{Policy, Reference};
use timelaw::core::{execute, mix, Case};
use timelaw::generators::{sample_case, swarm_for};

/// Seeds the corpus test measures (the bench measures 100).
const SEEDS: [u64; 3] = [0, 1, 2];
/// Cases searched per seed, as the target.
const CASES_MAX: u64 = 100_000;

#[test]
fn the_corpus_has_at_least_twenty_bugs_with_distinct_names() {
    assert!(CORPUS.len() >= 20, "{} bugs", CORPUS.len());
    assert!(names_agree());
    let mut names: Vec<&str> = CORPUS.iter().map(|entry| entry.bug.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), CORPUS.len());
}

/// The faithful copy runs every case of its domain (the reference's, without the refinements it does not
/// copy) exactly like the reference: the same trace, event for event.
#[test]
fn the_faithful_copy_matches_the_reference() {
    for index in 0..20_000 {
        let case: Case<Policy> = sample_case(&Slipped(Slip::None), mix(7, index), &swarm_for(7, index));
        let reference = execute(&Reference, &case.config, &case.schedule, case.seed);
        let copy = execute(&Slipped(Slip::None), &case.config, &case.schedule, case.seed);
        assert_eq!(reference.events, copy.events, "case {index}: {}", serde_json::to_string(&case).unwrap());
    }
}

#[track_caller]
fn check_minimum(bug: CorpusBug, law: &str) {
    let minimum = canonical(bug);
    let shown = serde_json::to_string(&minimum).unwrap();
    assert!(bug.judge(law, &minimum).is_violated(), "{bug:?}: the canonical minimum must violate {law}: {shown}");
    let reference = judge(&Reference, law, &minimum);
    assert!(!reference.is_violated(), "{bug:?}: the reference violates {law} on the minimum: {reference:?}");
}

#[test]
fn every_canonical_minimum_violates_under_its_bug_and_holds_under_the_reference() {
    for entry in CORPUS {
        check_minimum(entry.bug, entry.law);
    }
}

#[track_caller]
fn check_found_and_shrunk(bug: CorpusBug, law: &str, reach: Reach, seed: u64) {
    let measured = bug.measure(law, seed, CASES_MAX);
    let index = measured.case_index.unwrap_or_else(|| panic!("{bug:?} not found in {CASES_MAX} cases (seed {seed})"));
    let shrunk = measured.shrunk.expect("a found bug is shrunk");
    let shown = serde_json::to_string(&shrunk).unwrap();
    match reach {
        Reach::Canonical => {
            assert_eq!(shrunk, canonical(bug), "{bug:?} (seed {seed}, case {index}) shrank to {shown}")
        }
        Reach::Missing(why) => {
            assert!(bug.judge(law, &shrunk).is_violated(), "{bug:?} (seed {seed}, {why}): {shown}");
            let found = measured.found.expect("a found bug has its case");
            assert!(size(&shrunk) <= size(&found), "{bug:?} (seed {seed}) grew: {shown}");
        }
    }
}

#[test]
fn every_corpus_bug_is_found_and_shrinks_to_its_canonical_minimum() {
    for entry in CORPUS {
        for seed in SEEDS {
            check_found_and_shrunk(entry.bug, entry.law, entry.reach, seed);
        }
    }
}

/// Calls, then steps (repeats counted), of a case.
fn size(case: &Case<Policy>) -> (usize, u64) {
    let steps = case.schedule.calls.iter().flat_map(|call| &call.steps).map(|step| u64::from(step.count())).sum();
    (case.schedule.calls.len(), steps)
}

/// The guide corpus (`tests/common/guide_corpus.rs`): every canonical minimum violates its law under its
/// slip and holds under the guide's own code.
#[test]
fn every_guide_minimum_violates_under_its_slip_and_holds_under_the_guide() {
    for entry in GUIDE_CORPUS {
        let (slipped, faithful) = entry.minimum_verdicts();
        assert!(
            slipped.is_violated(),
            "{}: the canonical minimum must violate {}: {slipped:?}",
            entry.name(),
            entry.law
        );
        assert!(!faithful.is_violated(), "{}: the guide's code violates {}: {faithful:?}", entry.name(), entry.law);
    }
}

/// On a few seeds, every slip of the guide corpus is found and its config, drawn by a short-form
/// description with no numbers of its own, shrinks with its schedule to the canonical minimum.
#[test]
fn every_guide_slip_is_found_and_shrinks_to_its_canonical_minimum() {
    for entry in GUIDE_CORPUS {
        for seed in SEEDS {
            let reached = entry.reach(seed, CASES_MAX);
            let index = reached.case_index.unwrap_or_else(|| panic!("{} not found (seed {seed})", entry.name()));
            assert!(
                reached.at_minimum,
                "{} (seed {seed}, case {index}) shrank to {}",
                entry.name(),
                reached.shrunk_json
            );
        }
    }
}

/// The README quotes the size of both corpora; the counts there are these.
#[test]
fn the_readme_quotes_the_corpus_sizes() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let quoted = format!("{} planted bugs of the shrink corpus, and of the {} slips", CORPUS.len(), GUIDE_CORPUS.len());
    assert!(readme.replace('\n', " ").replace("  ", " ").contains(&quoted), "README.md should say: {quoted}");
}
