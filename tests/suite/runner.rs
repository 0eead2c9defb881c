//! The runner: the reference interpreter holds the catalogue; runs are deterministic on any thread count;
//! counterexamples are shrunk and written as fixtures; failures say how to reproduce.

use crate::common;

use std::path::{Path, PathBuf};

use common::planted::{Bug, Planted};
use timelaw::laws::Catalogue;
use timelaw::reference::Reference;
use timelaw::runner::{run, Silent};
use timelaw::{check, Config};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timelaw-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn the_reference_interpreter_holds_the_whole_catalogue() {
    check(&Reference).cases(3_000).run().assert_holds();
}

#[test]
fn verdicts_counterexamples_and_fixtures_are_identical_on_1_2_and_4_threads() {
    let laws = Catalogue::standard();
    let mut seen = Vec::new();
    for threads in [1, 2, 4] {
        let dir = temp_dir(&format!("threads{threads}"));
        let config = Config { cases: 1_500, seed: 11, threads, fixtures: Some(dir.clone()), ..Config::default() };
        let output = run(&Planted(Bug::ExtraAttempt), &laws, &config, &Silent);
        let counts: Vec<_> = output.laws.iter().map(|law| law.counts).collect();
        let shrunk: Vec<_> = output
            .laws
            .iter()
            .flat_map(|law| law.counterexamples.iter().map(|c| (c.case_index, c.shrunk.clone())))
            .collect();
        seen.push((counts, shrunk, files(&dir)));
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(!seen[0].1.is_empty(), "the planted bug is found");
    assert!(!seen[0].2.is_empty(), "fixtures are written");
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
}

#[test]
fn the_same_seed_gives_the_same_run_and_another_seed_another() {
    let laws = Catalogue::standard();
    let output = |seed| {
        let config = Config { cases: 400, seed, threads: 2, ..Config::default() };
        let output = run(&Reference, &laws, &config, &Silent);
        output.laws.iter().map(|law| law.counts).collect::<Vec<_>>()
    };
    assert_eq!(output(5), output(5));
    assert_ne!(output(5), output(6));
}

#[test]
fn a_failing_check_names_the_law_the_shrunk_case_the_fixture_and_the_seed() {
    let dir = temp_dir("message");
    let output = check(&Planted(Bug::RetriesFatal)).cases(2_000).seed(3).fixtures(&dir).run();
    assert!(!output.holds());
    let message = output.failure_message();
    assert!(message.contains("law `fatal_not_retried`"), "{message}");
    assert!(message.contains("shrunk case: {"), "{message}");
    assert!(message.contains("fixture: "), "{message}");
    assert!(message.contains("TIMELAW_SEED=0x3"), "{message}");
    let written = files(&dir);
    assert!(written.iter().any(|(name, _)| name.starts_with("fatal_not_retried--planted-retries-fatal--")));
    assert!(written.iter().all(|(_, text)| text.contains("\"shrunk\": true")), "raw fixtures are replaced");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Collects up to 3 counterexamples of `delay_within_cap` on the uncapped-delay bug with a shrink budget
/// of `shrink_evals_max` subject runs; returns (case index, shrunk case) of each kept.
fn collect_three(shrink_evals_max: u64) -> Vec<(u64, timelaw::core::Case<timelaw::reference::Policy>)> {
    let laws = Catalogue::standard().select(&["delay_within_cap"]).unwrap();
    let stop_at = timelaw::StopAt::Collect(3);
    let config = Config { cases: 3_000, seed: 1, stop_at, shrink_evals_max, ..Config::default() };
    let output = run(&Planted(Bug::UncappedDelay), &laws, &config, &Silent);
    output.laws[0].counterexamples.iter().map(|example| (example.case_index, example.shrunk.clone())).collect()
}

#[test]
fn collecting_keeps_several_distinct_counterexamples() {
    // No shrinking (a budget of one run: the first run of the case): the three lowest-index violations,
    // each kept as found.
    let unshrunk = collect_three(1);
    assert_eq!(unshrunk.len(), 3, "{unshrunk:?}");
    assert!(unshrunk.windows(2).all(|pair| pair[0].0 < pair[1].0), "lowest case indices first: {unshrunk:?}");
    assert!(unshrunk.windows(2).all(|pair| pair[0].1 != pair[1].1) && unshrunk[0].1 != unshrunk[2].1);
    // Shrunk, all three reach the one canonical minimum: kept once, as distinct after shrinking.
    let shrunk = collect_three(4_000);
    assert_eq!(shrunk.len(), 1, "{shrunk:?}");
    assert_eq!(shrunk[0].0, unshrunk[0].0);
    assert_eq!(shrunk[0].1, common::minima::stated_minimum(Bug::UncappedDelay));
}

#[test]
fn panics_are_caught_and_reported_as_never_panics_violations() {
    use timelaw::core::{Abort, Contract, Subject, World};
    use timelaw::generators::{ConfigDomain, Swarm};

    /// Panics on every second call.
    struct Panicky;
    impl Subject for Panicky {
        type Config = u8;
        fn name(&self) -> &str {
            "panicky"
        }
        fn contract(&self, _: &u8) -> Contract {
            Contract::default()
        }
        fn run(&self, _: &u8, world: &mut World<'_>) -> Result<(), Abort> {
            world.for_each_call(|_, call| {
                assert!(call.index < 1, "boom on call {}", call.index);
                Ok(timelaw::core::CallResult::Ok)
            })
        }
    }
    impl ConfigDomain for Panicky {
        fn sample_config(&self, _: &mut timelaw::core::SplitMix64, _: &Swarm) -> u8 {
            0
        }
        fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<u8> {
            use proptest::strategy::Strategy;
            proptest::strategy::Just(0).boxed()
        }
        fn arbitrary_config(&self, _: &mut arbitrary::Unstructured<'_>) -> u8 {
            0
        }
    }
    let laws = Catalogue::standard().select(&["never_panics"]).unwrap();
    let output = run(&Panicky, &laws, &Config { cases: 300, ..Config::default() }, &Silent);
    let law = &output.laws[0];
    assert!(law.counts.violated > 0 && law.counts.holds > 0, "{:?}", law.counts);
    let example = &law.counterexamples[0];
    assert!(example.violation.message.contains("boom on call 1"), "{}", example.violation.message);
    assert_eq!(example.shrunk.schedule.calls.len(), 2, "two calls are the minimum for a panic on the second");
}
