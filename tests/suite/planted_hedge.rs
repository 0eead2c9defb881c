//! The planted hedging and ordering bugs: each is found by a run with the defaults (overlapping calls on) within
//! 100,000 cases, shrinks to a stated minimum, and is pinned by a checked-in `known_violation` fixture
//! (`TIMELAW_BLESS=1` rewrites them).
//!
//! The shrinker serializes what need not overlap (a hedge minimum is one sequential call: hedging acts
//! within a call) and drops interleaving choices no minimum needs, so each minimum is stated exactly.

use crate::common;

use std::path::Path;

use common::planted_hedge::{HedgeBug, HedgePlanted, HEDGE_BUGS};
use timelaw::core::reference::{Backoff, Policy, Reference};
use timelaw::core::{CallScript, Case, HedgeContract, Outcome, Schedule, Step, VDuration};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;

fn config(seed: u64, fixtures: Option<&Path>) -> Config {
    let fixtures = fixtures.map(Path::to_owned);
    Config { cases: CASES_MAX, seed, threads: 1, fixtures, ..Config::default() }
}

/// The first violation of `law` by `bug` in a normal run with concurrency on: its case index and its
/// minimum.
fn found(bug: HedgeBug, law: &str, seed: u64) -> (u64, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let output = common::first::run_to_first(&HedgePlanted(bug), &laws, &config(seed, None));
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found"));
    (example.case_index, example.shrunk.clone())
}

/// The minimum of each planted bug, in words.
fn expected(bug: HedgeBug) -> Case<Policy> {
    let simplest =
        |max_attempts| Policy::new(max_attempts, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    let hedged = |delay_ns| Policy {
        hedge: Some(HedgeContract { delay: VDuration::from_nanos(delay_ns), max_hedges: 1 }),
        ..simplest(2)
    };
    // A first attempt of 1ns; a hedge takes the next step, past the script: `Ok` at once.
    let one_slow = || CallScript::new(vec![Step::new(VDuration::from_nanos(1), Outcome::Ok)]);
    match bug {
        // A hedge at once (delay 0) answers first; the 1ns attempt is left running as the call returns.
        HedgeBug::LoserNotCancelled => Case::new(hedged(0), Schedule::new(vec![one_slow()]), 0),
        // A hedge delay of 1ns: the hedge starts at 0, beside the 1ns attempt.
        HedgeBug::HedgeBeforeDelay => Case::new(hedged(1), Schedule::new(vec![one_slow()]), 0),
        // Two calls arriving together; call 1 answers at once, call 0 after 1ns: call 1 returns first.
        HedgeBug::OutOfOrder => {
            let policy = Policy { ordered_results: true, ..simplest(1) };
            let quick = CallScript::new(vec![]).arriving(VDuration::ZERO);
            Case::new(policy, Schedule::new(vec![one_slow().arriving(VDuration::ZERO), quick]), 0)
        }
    }
}

fn verdict<S: timelaw::core::Subject<Config = Policy>>(subject: &S, law: &str, case: &Case<Policy>) -> Verdict {
    let law = *Catalogue::standard().get(law).unwrap();
    timelaw::eval::evaluate(subject, case, Config::default().limits, false).judge(&law, case)
}

#[test]
fn each_planted_hedge_bug_is_found_and_shrinks_to_its_minimum() {
    let searched = common::parallel::per_seed(&HEDGE_BUGS, &[0, 1, 2], |bug, law, seed| (law, found(bug, law, seed)));
    for (bug, seed, (law, (index, shrunk))) in searched {
        assert!(index < CASES_MAX, "{bug:?} found at case {index}");
        let shown = serde_json::to_string(&shrunk).unwrap();
        assert!(verdict(&HedgePlanted(bug), law, &shrunk).is_violated(), "{bug:?}: {shown}");
        assert_eq!(shrunk, expected(bug), "{bug:?} (seed {seed}) shrank to {shown}");
    }
    for (bug, law) in HEDGE_BUGS {
        let minimum = expected(bug);
        assert!(verdict(&HedgePlanted(bug), law, &minimum).is_violated(), "{bug:?}: the minimum must violate {law}");
    }
}

#[test]
fn the_reference_keeps_what_the_planted_hedge_bugs_break() {
    for (bug, law) in HEDGE_BUGS {
        let case = expected(bug);
        // The reference's attempt answers at the very instant its hedge was due: it is not hedged.
        let expect = if bug == HedgeBug::HedgeBeforeDelay { Verdict::Vacuous } else { Verdict::Holds };
        assert_eq!(verdict(&Reference, law, &case), expect, "{bug:?}: the reference on the same case");
    }
}

#[test]
fn checked_in_planted_hedge_fixtures_are_the_current_minima() {
    use timelaw::fixture::{self, Fixture, Status};
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-hedge-{}", std::process::id()));
    for (bug, law) in HEDGE_BUGS {
        let subject = HedgePlanted(bug);
        let laws = Catalogue::standard().select(&[law]).unwrap();
        let output = common::first::run_to_first(&subject, &laws, &config(0, Some(&scratch)));
        let written = output.laws[0].counterexamples.first().and_then(|example| example.fixture.clone());
        let written = written.expect("a fixture is written");
        let mut pinned: Fixture<Policy> = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
        pinned.status = Status::KnownViolation;
        pinned.note =
            Some(format!("planted bug {bug:?}: this subject is broken on purpose, so the violation must reproduce"));
        let expect = format!("{}\n", serde_json::to_string_pretty(&pinned).unwrap());
        let target =
            Path::new(PLANTED_DIR).join(fixture::file_name(law, timelaw::core::Subject::name(&subject), &pinned.case));
        if common::bless::bless() {
            std::fs::write(&target, &expect).unwrap();
        }
        let checked_in = std::fs::read_to_string(&target).unwrap_or_default();
        assert_eq!(checked_in, expect, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
