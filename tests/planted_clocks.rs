//! The planted clock bugs: each is found by a normal run within 100,000 cases, shrinks to its exact
//! minimum, and is pinned by a checked-in `known_violation` fixture (`TIMELAW_BLESS=1` rewrites them).

mod common;

use std::path::Path;

use common::planted_clocks::{ClockBug, ClockPlanted, CLOCK_BUGS};
use timelaw::core::reference::Policy;
use timelaw::core::Case;
use timelaw::core::Subject;
use timelaw::fixture::{self, Status};
use timelaw::laws::Catalogue;
use timelaw::runner::{build_fixture, run, Silent};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;

/// The first violation of `law` by `bug` in a normal run: its case index, its minimum and the case as found.
fn found(bug: ClockBug, law: &str, seed: u64, _fixtures: Option<&Path>) -> (u64, Case<Policy>, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config = Config { cases: CASES_MAX, seed, threads: 1, ..Config::default() };
    let output = run(&ClockPlanted(bug), &laws, &config, &Silent);
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found"));
    (example.case_index, example.shrunk.clone(), example.found.clone())
}

/// The canonical minimum of each planted clock bug (stated, in words, in `tests/common/corpus_minima.rs`).
fn expected(bug: ClockBug) -> Case<Policy> {
    common::corpus_minima::clock_minimum(bug)
}

/// The wall-clock limit is shrunk, but not always to one canonical minimum: it has two families of minima
/// (the wall clock ahead of a limit the monotonic clock has not reached, or behind one it has), and a
/// violation found on the exact boundary between the limit and the monotonic time needs the step
/// durations and the limit to move together, which the shrinker only does for limits the contract states
/// (an elapsed-time limit cannot be stated yet). So its canonical minimum is pinned by hand (the fixture's
/// provenance says `hand`) and checked to violate, and every run must find the bug within 100,000 cases
/// and shrink it to a case that still violates with no more calls, steps or jumps than it was found with.
#[test]
fn each_planted_clock_bug_is_found_and_shrinks() {
    for (bug, law) in CLOCK_BUGS {
        for seed in [0, 1, 2, 3, 4] {
            let (index, minimum, found_case) = found(bug, law, seed, None);
            assert!(index < CASES_MAX, "{bug:?} found at case {index}");
            let shown = serde_json::to_string(&minimum).unwrap();
            if bug == ClockBug::WallClockLimit {
                let size = |case: &Case<Policy>| {
                    let steps: usize = case.schedule.calls.iter().map(|call| call.steps.len()).sum();
                    (case.schedule.calls.len(), steps, case.schedule.clock.wall_jumps.len())
                };
                let (small, large) = (size(&minimum), size(&found_case));
                assert!(small.0 <= large.0 && small.1 <= large.1 && small.2 <= large.2, "{shown}");
                assert!(verdict(bug, law, &minimum).is_violated(), "{shown}");
                continue;
            }
            assert_eq!(minimum, expected(bug), "{bug:?} (seed {seed}) shrank to {shown}");
        }
        assert!(verdict(bug, law, &expected(bug)).is_violated(), "{bug:?}: the pinned minimum must violate {law}");
    }
}

fn verdict(bug: ClockBug, law: &str, case: &Case<Policy>) -> timelaw::laws::Verdict {
    let law = *Catalogue::standard().get(law).unwrap();
    timelaw::eval::evaluate(&ClockPlanted(bug), case, Config::default().limits, false).judge(&law, case)
}

#[test]
fn checked_in_planted_clock_fixtures_are_the_current_minima() {
    let bless = common::bless::bless();
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-clocks-{}", std::process::id()));
    for (bug, law) in CLOCK_BUGS {
        let mut fixture: fixture::Fixture<Policy> = if bug == ClockBug::WallClockLimit {
            let provenance = fixture::Provenance {
                source: fixture::Source::Hand,
                run_seed: None,
                case_index: None,
                shrunk: false,
                shrink_evaluations: 0,
                timelaw_version: env!("CARGO_PKG_VERSION").to_owned(),
            };
            let law = *Catalogue::standard().get(law).unwrap();
            build_fixture(&ClockPlanted(bug), &law, &Config::default(), &expected(bug), provenance)
        } else {
            let (_, _, written) = found_fixture(bug, law, &scratch);
            serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap()
        };
        fixture.status = Status::KnownViolation;
        fixture.note =
            Some(format!("planted bug {bug:?}: this subject is broken on purpose, so the violation must reproduce"));
        let expected = format!("{}\n", serde_json::to_string_pretty(&fixture).unwrap());
        let name = fixture::file_name(law, ClockPlanted(bug).name(), &fixture.case);
        let target = Path::new(PLANTED_DIR).join(name);
        if bless {
            std::fs::write(&target, &expected).unwrap();
        }
        let checked_in = std::fs::read_to_string(&target).unwrap_or_default();
        assert_eq!(checked_in, expected, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

fn found_fixture(bug: ClockBug, law: &str, scratch: &Path) -> (u64, Case<Policy>, std::path::PathBuf) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config =
        Config { cases: CASES_MAX, seed: 0, threads: 1, fixtures: Some(scratch.to_path_buf()), ..Config::default() };
    let output = run(&ClockPlanted(bug), &laws, &config, &Silent);
    let example = output.laws[0].counterexamples.first().expect("found");
    (example.case_index, example.shrunk.clone(), example.fixture.clone().expect("a fixture is written"))
}
