//! The planted load bugs: each is found by a normal run with overlapping calls on (`Config::concurrency`)
//! within 100,000 cases on several seeds, shrinks to its canonical minimum, and is pinned by a checked-in
//! `known_violation` fixture (`TIMELAW_BLESS=1` rewrites them).

mod common;

use common::planted_load::{LoadBug, LoadPlanted, LOAD_BUGS};
use timelaw::core::reference::{Backoff, Policy, Reference};
use timelaw::core::{
    BulkheadContract, CallScript, Case, CircuitContract, LimiterContract, Outcome, Schedule, Step, VDuration,
};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::runner::{run, Silent};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;
const SEEDS: [u64; 3] = [0, 1, 2];

fn config(seed: u64) -> Config {
    Config { cases: CASES_MAX, seed, threads: 1, concurrency: true, ..Config::default() }
}

/// The first violation of `law` by `bug` in a normal run with concurrency on: its case index and its minimum.
fn found(bug: LoadBug, law: &str, seed: u64) -> (u64, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let output = run(&LoadPlanted(bug), &laws, &config(seed), &Silent);
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found (seed {seed})"));
    (example.case_index, example.shrunk.clone())
}

fn ns(nanos: u64) -> VDuration {
    VDuration::from_nanos(nanos)
}

/// The canonical minimum of each planted load bug, in words.
fn expected(bug: LoadBug) -> Case<Policy> {
    let simplest = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    let at_once = |steps: Vec<Step>| CallScript::new(steps).arriving(VDuration::ZERO);
    match bug {
        // A failure opens a one-call breaker for no time; two calls arrive with it: the first is the
        // probe (its attempt still running), the second is let through beside it.
        LoadBug::HalfOpenAdmitsAll => {
            let circuit = CircuitContract {
                window: 1,
                min_calls: 1,
                failure_percent: 1,
                open_for: VDuration::ZERO,
                half_open_probes: 1,
                ..CircuitContract::DEFAULT
            };
            let calls = vec![
                at_once(vec![Step::instant(Outcome::Transient)]),
                at_once(vec![Step::new(ns(1), Outcome::Ok)]),
                at_once(vec![]),
            ];
            Case::new(Policy { circuit: Some(circuit), ..simplest }, Schedule::new(calls), 0)
        }
        // A bulkhead of one slot: two calls arrive together, the first's attempt still running when the
        // second dispatches (limit + 1 calls).
        LoadBug::BulkheadOffByOne => {
            let bulkhead = BulkheadContract { max_in_flight: 1, queue_max: 0 };
            let calls = vec![at_once(vec![Step::new(ns(1), Outcome::Ok)]), at_once(vec![])];
            Case::new(Policy { bulkhead: Some(bulkhead), ..simplest }, Schedule::new(calls), 0)
        }
        // An empty bucket (burst 0, refilled every nanosecond) dispatches at once: one call, sequential.
        LoadBug::LimiterBurstPlusOne => {
            let limiter = LimiterContract { burst: 0, refill_every: ns(1) };
            Case::new(Policy { limiter: Some(limiter), ..simplest }, Schedule::new(vec![CallScript::new(vec![])]), 0)
        }
        // Cancelled 1 ns after it starts, the call's 2 ns attempt ends at 2 ns: one call, sequential.
        LoadBug::CancelledAttemptKeepsRunning => {
            let call = CallScript { cancel_after: Some(ns(1)), ..CallScript::new(vec![Step::new(ns(2), Outcome::Ok)]) };
            Case::new(simplest, Schedule::new(vec![call]), 0)
        }
    }
}

fn verdict<S: timelaw::core::Subject<Config = Policy>>(subject: &S, law: &str, case: &Case<Policy>) -> Verdict {
    let law = *Catalogue::standard().get(law).unwrap();
    timelaw::eval::evaluate(subject, case, Config::default().limits, false).judge(&law, case)
}

#[test]
fn each_planted_load_bug_is_found_and_shrinks_to_its_minimum() {
    let mut failures = Vec::new();
    for (bug, law) in LOAD_BUGS {
        for seed in SEEDS {
            let (index, minimum) = found(bug, law, seed);
            assert!(index < CASES_MAX, "{bug:?} found at case {index}");
            if minimum != expected(bug) {
                failures.push(format!("{bug:?} (seed {seed}) shrank to {}", serde_json::to_string(&minimum).unwrap()));
            }
        }
        assert!(verdict(&LoadPlanted(bug), law, &expected(bug)).is_violated(), "{bug:?}: the minimum must violate {law}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reference, on each planted minimum, keeps the law the planted bug breaks.
#[test]
fn the_reference_keeps_what_the_planted_load_bugs_break() {
    for (bug, law) in LOAD_BUGS {
        let judged = verdict(&Reference, law, &expected(bug));
        assert!(!judged.is_violated(), "{bug:?}: the reference on the same case: {judged}");
    }
}

#[test]
fn checked_in_planted_load_fixtures_are_the_current_minima() {
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-load-{}", std::process::id()));
    for (bug, law) in LOAD_BUGS {
        let name = format!("{bug:?}");
        let config = Config { cases: CASES_MAX, concurrency: true, ..Config::default() };
        common::bless::assert_planted_fixture_current_with(&LoadPlanted(bug), law, &name, config, PLANTED_DIR, &scratch);
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
