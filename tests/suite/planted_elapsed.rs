//! The planted elapsed-time-limit bugs: each is found by a normal run within 100,000 cases, shrinks to
//! its exact minimum, and is pinned by a checked-in `known_violation` fixture (`TIMELAW_BLESS=1`
//! rewrites them). They prove the reference's domain reaches the boundary of `retry_elapsed_max`.

use crate::common;

use common::planted_elapsed::{ElapsedBug, ElapsedPlanted, ELAPSED_BUGS};
use timelaw::core::reference::{Backoff, Policy, Reference};
use timelaw::core::{CallScript, Case, Outcome, Schedule, Step, Subject, VDuration};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;

/// The first violation of `law` by `bug` in a normal run: its case index and its minimum.
fn found(bug: ElapsedBug, law: &str, seed: u64) -> (u64, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config = Config { cases: CASES_MAX, seed, threads: 1, ..Config::default() };
    let output = common::first::run_to_first(&ElapsedPlanted(bug), &laws, &config);
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found"));
    (example.case_index, example.shrunk.clone())
}

/// The minimum of each planted bug, in words: one call, one transient failure, a second attempt
/// allowed, no delay.
fn expected(bug: ElapsedBug) -> Case<Policy> {
    let ns = VDuration::from_nanos;
    let failing = |took: VDuration| Schedule::new(vec![CallScript::new(vec![Step::new(took, Outcome::Transient)])]);
    let limited = |limit: VDuration| Policy {
        retry_elapsed_max: Some(limit),
        ..Policy::new(2, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
    };
    match bug {
        // A limit of 0 and a first attempt of 1 ns: the retry starts 1 ns after the limit and is taken.
        // The attempt's duration follows the limit down (the shrinker's coupled moves keep "1 ns after
        // the limit" while the limit is lowered).
        ElapsedBug::LateByOne => Case::new(limited(VDuration::ZERO), failing(ns(1)), 0),
        // A limit of 0 and an instant failure: the retry would start exactly on the limit (allowed) and
        // is refused.
        ElapsedBug::StopsEarly => Case::new(limited(VDuration::ZERO), failing(VDuration::ZERO), 0),
    }
}

fn verdict<S: Subject<Config = Policy>>(subject: &S, law: &str, case: &Case<Policy>) -> Verdict {
    let law = *Catalogue::standard().get(law).unwrap();
    timelaw::eval::evaluate(subject, case, Config::default().limits, false).judge(&law, case)
}

#[track_caller]
fn check(bug: ElapsedBug, law: &str, seed: u64) {
    let (index, minimum) = found(bug, law, seed);
    assert!(index < CASES_MAX, "{bug:?} found at case {index}");
    let shown = serde_json::to_string(&minimum).unwrap();
    assert_eq!(minimum, expected(bug), "{bug:?} (seed {seed}) shrank to {shown}");
}

#[test]
fn each_planted_elapsed_bug_is_found_and_shrinks_to_its_minimum() {
    let bugs = [
        (ElapsedBug::LateByOne, "no_retry_after_elapsed_limit"),
        (ElapsedBug::StopsEarly, "elapsed_limit_does_not_stop_early"),
    ];
    common::parallel::per_seed(&bugs, &[0, 1, 2], check);
}

#[test]
fn the_pinned_minima_violate_and_the_reference_keeps_them() {
    for (bug, law) in ELAPSED_BUGS {
        let case = expected(bug);
        assert!(verdict(&ElapsedPlanted(bug), law, &case).is_violated(), "{bug:?}: the minimum must violate {law}");
        let judged = verdict(&Reference, law, &case);
        assert!(!judged.is_violated(), "{bug:?}: the reference on the same case: {judged:?}");
    }
}

#[test]
fn checked_in_planted_elapsed_fixtures_are_the_current_minima() {
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-elapsed-{}", std::process::id()));
    for (bug, law) in ELAPSED_BUGS {
        let name = format!("{bug:?}");
        common::bless::assert_planted_fixture_current(
            &ElapsedPlanted(bug),
            law,
            &name,
            CASES_MAX,
            PLANTED_DIR,
            &scratch,
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
