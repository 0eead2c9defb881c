//! The planted clock bugs: each is found by a normal run within 100,000 cases, shrinks to its exact
//! minimum, and is pinned by a checked-in `known_violation` fixture (`TIMELAW_BLESS=1` rewrites them).

use crate::common;

use std::path::Path;

use common::planted_clocks::{ClockBug, ClockPlanted, CLOCK_BUGS};
use timelaw::core::reference::Policy;
use timelaw::core::Subject;
use timelaw::core::{Case, JumpAt};
use timelaw::fixture::{self, Status};
use timelaw::laws::Catalogue;
use timelaw::runner::build_fixture;
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;

/// The first violation of `law` by `bug` in a normal run: its case index, its minimum and the case as found.
fn found(bug: ClockBug, law: &str, seed: u64, _fixtures: Option<&Path>) -> (u64, Case<Policy>, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config = Config { cases: CASES_MAX, seed, threads: 1, ..Config::default() };
    let output = common::first::run_to_first(&ClockPlanted(bug), &laws, &config);
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found"));
    (example.case_index, example.shrunk.clone(), example.found.clone())
}

/// The canonical minimum of each planted clock bug (stated, in words, in `tests/common/corpus_minima.rs`).
fn expected(bug: ClockBug) -> Case<Policy> {
    common::corpus_minima::clock_minimum(bug)
}

/// Each planted clock bug is found within 100,000 cases and shrinks to its canonical minimum on seeds
/// 0 to 4. The wall-clock limit has two families of stops (the wall clock ahead of a limit the
/// monotonic clock has not reached, or behind one it has); a step made instant with the backward jump
/// turned forward joins them, and durations drawn at the loop's own (unstated) limit are lowered with
/// it. (At 100 seeds two still spend the whole budget: `docs/shrink-quality.md`.)
#[test]
fn each_planted_clock_bug_is_found_and_shrinks() {
    let searched =
        common::parallel::per_seed(&CLOCK_BUGS, &[0, 1, 2, 3, 4], |bug, law, seed| found(bug, law, seed, None));
    for (bug, seed, (index, minimum, _)) in searched {
        assert!(index < CASES_MAX, "{bug:?} found at case {index}");
        let shown = serde_json::to_string(&minimum).unwrap();
        assert_eq!(minimum, expected(bug), "{bug:?} (seed {seed}) shrank to {shown}");
    }
    for (bug, law) in CLOCK_BUGS {
        assert!(verdict(bug, law, &expected(bug)).is_violated(), "{bug:?}: the pinned minimum must violate {law}");
    }
}

/// A wall jump at an instant (or a sleep) that only the attempts' time reaches holds up every duration
/// and limit until the jump moves: its point is moved to the first attempt before the steps are made
/// instant (with a backward jump turned forward) and the config is searched, so the limit is searched
/// once, to its own boundary. On these run seeds (found at an instant after a slow attempt, backward
/// and forward) the shrink spent 169 to 178 evaluations before; it must reach the minimum within 120.
#[test]
fn a_jump_reached_by_time_moves_to_the_first_attempt_before_the_search() {
    let law = "wall_jump_keeps_monotonic_limits";
    for seed in [1, 6, 7] {
        let measured =
            common::corpus_measure::measure_seed(&ClockPlanted(ClockBug::WallClockLimit), law, seed, CASES_MAX);
        let found = measured.found.expect("found within the cases");
        let jumps = &found.schedule.clock.wall_jumps;
        assert!(jumps.iter().any(|jump| !matches!(jump.at, JumpAt::Attempt(1))), "seed {seed}: {jumps:?}");
        assert_eq!(measured.shrunk, Some(expected(ClockBug::WallClockLimit)), "seed {seed}");
        assert!(measured.evaluations < 120, "seed {seed}: {} evaluations", measured.evaluations);
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
    let output = common::first::run_to_first(&ClockPlanted(bug), &laws, &config);
    let example = output.laws[0].counterexamples.first().expect("found");
    (example.case_index, example.shrunk.clone(), example.fixture.clone().expect("a fixture is written"))
}
