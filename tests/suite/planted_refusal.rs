//! The planted refusal bugs: each is found by a normal run within 100,000 cases, shrinks to its exact
//! minimum, and is pinned by a checked-in `known_violation` fixture (`TIMELAW_BLESS=1` rewrites them).

use crate::common;

use common::planted_refusal::{RefusalBug, RefusalPlanted, REFUSAL_BUGS};
use timelaw::core::reference::{Backoff, Policy};
use timelaw::core::{CallScript, Case, CircuitContract, Outcome, Schedule, Step, VDuration};
use timelaw::laws::Catalogue;
use timelaw::laws::Verdict;
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;

/// The first violation of `law` by `bug` in a normal run: its case index and its minimum.
fn found(bug: RefusalBug, law: &str, seed: u64) -> (u64, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config = Config { cases: CASES_MAX, seed, threads: 1, ..Config::default() };
    let output = common::first::run_to_first(&RefusalPlanted(bug), &laws, &config);
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found"));
    (example.case_index, example.shrunk.clone())
}

/// The canonical minimum of each planted refusal bug, in words, with the breaker's `failure_percent` as a
/// parameter: the minimum has 1 (the smallest), and any value opens a one-call window on one failure.
fn expected(bug: RefusalBug, failure_percent: u32) -> Case<Policy> {
    let simplest = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    let circuit = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent,
        open_for: VDuration::ZERO,
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    let behind = Policy { circuit: Some(circuit), ..simplest.clone() };
    let empty = || CallScript::new(vec![]);
    let cancelled_at_once = || CallScript { cancel_after: Some(VDuration::ZERO), ..empty() };
    match bug {
        // One call to a closed breaker: rejected.
        RefusalBug::RejectsEverything => Case::new(behind, Schedule::new(vec![empty()]), 0),
        // A failure opens the breaker for no time; the probe is cancelled at once; the next call finds its
        // slot still taken.
        RefusalBug::CancelledProbeKeepsSlot => {
            let failing = CallScript::new(vec![Step::instant(Outcome::Transient)]);
            Case::new(behind, Schedule::new(vec![failing, cancelled_at_once(), empty()]), 0)
        }
        // A deadline of zero and a cancellation at zero: the call returns Cancelled.
        RefusalBug::CancellationWinsTie => {
            let policy = Policy { deadline: Some(VDuration::ZERO), ..simplest };
            Case::new(policy, Schedule::new(vec![cancelled_at_once()]), 0)
        }
        // A deadline of 1ns and a cancellation at 2ns: the deadline does not cut the 3ns attempt, the
        // cancellation does, and the call returns Cancelled although its deadline fell first.
        RefusalBug::LaterInterruptionWins => {
            let policy = Policy { deadline: Some(VDuration::from_nanos(1)), ..simplest };
            let attempt = Step::new(VDuration::from_nanos(3), Outcome::Ok);
            let call = CallScript { cancel_after: Some(VDuration::from_nanos(2)), ..CallScript::new(vec![attempt]) };
            Case::new(policy, Schedule::new(vec![call]), 0)
        }
        // Linear delays 0, 1ns, ...: a rate limit with a retry-after of 0 replaces the first delay, and the
        // transient error after it sleeps 1ns (the second delay) instead of 0 (the first).
        RefusalBug::AdvancesReplacedBackoff => {
            let ns = VDuration::from_nanos;
            let backoff = Backoff::Linear { initial: VDuration::ZERO, step: ns(1) };
            let policy = Policy::new(3, backoff, ns(1));
            let rate_limited = Step::instant(Outcome::RateLimited { retry_after: VDuration::ZERO });
            let call = CallScript::new(vec![rate_limited, Step::instant(Outcome::Transient)]);
            Case::new(policy, Schedule::new(vec![call]), 0)
        }
    }
}

fn verdict(bug: RefusalBug, law: &str, case: &Case<Policy>) -> Verdict {
    let law = *Catalogue::standard().get(law).unwrap();
    timelaw::eval::evaluate(&RefusalPlanted(bug), case, Config::default().limits, false).judge(&law, case)
}

#[test]
fn each_planted_refusal_bug_is_found_and_shrinks_to_its_minimum() {
    for (bug, seed, (index, minimum)) in common::parallel::per_seed(&REFUSAL_BUGS, &[0, 1, 2], found) {
        assert!(index < CASES_MAX, "{bug:?} found at case {index}");
        let shown = serde_json::to_string(&minimum).unwrap();
        assert_eq!(minimum, expected(bug, 1), "{bug:?} (seed {seed}) shrank to {shown}");
    }
    for (bug, law) in REFUSAL_BUGS {
        for percent in [1, 50, 100] {
            let pinned = expected(bug, percent);
            assert!(verdict(bug, law, &pinned).is_violated(), "{bug:?}: the pinned minimum must violate {law}");
        }
    }
}

#[test]
fn the_reference_keeps_what_the_planted_bugs_break() {
    use timelaw::core::reference::Reference;
    for (bug, law) in REFUSAL_BUGS {
        let law_data = *Catalogue::standard().get(law).unwrap();
        let case = expected(bug, 50);
        let judged =
            timelaw::eval::evaluate(&Reference, &case, Config::default().limits, false).judge(&law_data, &case);
        // The reference returns at its deadline, before the cancellation falls: nothing to judge there.
        let expect = if bug == RefusalBug::LaterInterruptionWins { Verdict::Vacuous } else { Verdict::Holds };
        assert_eq!(judged, expect, "{bug:?}: the reference on the same case");
    }
}

#[test]
fn checked_in_planted_refusal_fixtures_are_the_current_minima() {
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-refusal-{}", std::process::id()));
    for (bug, law) in REFUSAL_BUGS {
        let name = format!("{bug:?}");
        common::bless::assert_planted_fixture_current(
            &RefusalPlanted(bug),
            law,
            &name,
            CASES_MAX,
            PLANTED_DIR,
            &scratch,
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
