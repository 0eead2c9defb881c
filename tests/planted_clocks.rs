//! The planted clock bugs: each is found by a normal run within 100,000 cases, shrinks to its exact
//! minimum, and is pinned by a checked-in `known_violation` fixture (`TIMELAW_BLESS=1` rewrites them).

mod common;

use std::path::Path;

use common::planted_clocks::{ClockBug, ClockPlanted, CLOCK_BUGS};
use timelaw::core::reference::{Backoff, Policy};
use timelaw::core::{
    Case, ClockFaults, ClockKind, FailFrom, JumpAt, Outcome, ReadFailure, Schedule, Step, VDuration, WallJump,
};
use timelaw::fixture::{self, Status};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;

/// The first violation of `law` by `bug` in a normal run: its case index, its minimum and its fixture.
fn found(
    bug: ClockBug,
    law: &str,
    seed: u64,
    fixtures: Option<&Path>,
) -> (u64, Case<Policy>, Option<std::path::PathBuf>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config =
        Config { cases: CASES_MAX, seed, threads: 1, fixtures: fixtures.map(Path::to_path_buf), ..Config::default() };
    let output = run(&ClockPlanted(bug), &laws, &config, &Silent);
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found"));
    (example.case_index, example.shrunk.clone(), example.fixture.clone())
}

fn one_transient(clock: ClockFaults) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient)]).with_clock(clock)
}

/// The canonical minimum of each planted clock bug, in words:
fn expected(bug: ClockBug) -> Case<Policy> {
    let simplest = Policy::new(2, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    let jump =
        |by_ns| ClockFaults { wall_jumps: vec![WallJump { at: JumpAt::Attempt(1), by_ns }], read_failures: vec![] };
    match bug {
        // A 1 ns limit, a transient failure, the wall clock 1 ns ahead during it: the wall-clock limit
        // gives up where the monotonic one retries.
        ClockBug::WallClockLimit => {
            Case::new(Policy { deadline: Some(VDuration::from_nanos(1)), ..simplest }, one_transient(jump(1)), 0)
        }
        // A retry decision after the wall clock went back 1 ns during the first attempt.
        ClockBug::PanicsOnBackwardsJump => Case::new(simplest, one_transient(jump(-1)), 0),
        // A limit (of 0 ns: the clock is read before the comparison), a transient failure, and the first
        // monotonic read fails: the defect returns Ok.
        ClockBug::FailedReadAsOk => {
            let rule = ReadFailure { clock: ClockKind::Monotonic, from: FailFrom::AfterReads(0), count: 1 };
            let failing = ClockFaults { wall_jumps: vec![], read_failures: vec![rule] };
            Case::new(Policy { deadline: Some(VDuration::ZERO), ..simplest }, one_transient(failing), 0)
        }
    }
}

/// The wall-clock limit has two families of minima (the wall clock ahead of a limit the monotonic clock
/// has not reached, or behind one it has), and a limit the contract cannot state (issue 14's elapsed-time
/// limit) cannot move a step's duration with it while shrinking. From other seeds it reaches a minimal
/// shape: one call, at most one step, one jump during the first attempt.
#[track_caller]
fn check_minimal_shape(minimum: &Case<Policy>, shown: &str) {
    let schedule = &minimum.schedule;
    assert_eq!((schedule.calls.len(), minimum.config.max_attempts), (1, 2), "{shown}");
    assert!(schedule.calls[0].steps.len() <= 1, "{shown}");
    assert_eq!(schedule.clock.wall_jumps.len(), 1, "{shown}");
    assert_eq!(schedule.clock.wall_jumps[0].at, JumpAt::Attempt(1), "{shown}");
    assert!(schedule.clock.read_failures.is_empty(), "{shown}");
}

#[test]
fn each_planted_clock_bug_is_found_and_shrinks_to_its_exact_minimum() {
    for (bug, law) in CLOCK_BUGS {
        for seed in [0, 1, 2, 3, 4] {
            let (index, minimum, _) = found(bug, law, seed, None);
            assert!(index < CASES_MAX, "{bug:?} found at case {index}");
            let shown = serde_json::to_string(&minimum).unwrap();
            if bug == ClockBug::WallClockLimit && seed != 0 {
                check_minimal_shape(&minimum, &shown);
                continue;
            }
            assert_eq!(minimum, expected(bug), "{bug:?} (seed {seed}) shrank to {shown}");
        }
    }
}

#[test]
fn checked_in_planted_clock_fixtures_are_the_current_minima() {
    let bless = std::env::var_os("TIMELAW_BLESS").is_some();
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-clocks-{}", std::process::id()));
    for (bug, law) in CLOCK_BUGS {
        let (_, _, written) = found(bug, law, 0, Some(&scratch));
        let written = written.expect("a fixture is written");
        let text = std::fs::read_to_string(&written).unwrap();
        let mut fixture: fixture::Fixture<Policy> = serde_json::from_str(&text).unwrap();
        fixture.status = Status::KnownViolation;
        fixture.note =
            Some(format!("planted bug {bug:?}: this subject is broken on purpose, so the violation must reproduce"));
        let expected = format!("{}\n", serde_json::to_string_pretty(&fixture).unwrap());
        let target = Path::new(PLANTED_DIR).join(written.file_name().unwrap());
        if bless {
            std::fs::write(&target, &expected).unwrap();
        }
        let checked_in = std::fs::read_to_string(&target).unwrap_or_default();
        assert_eq!(checked_in, expected, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
