//! The planted load bugs: each is found by a run with the defaults (overlapping calls on, `Config::concurrency`)
//! within 100,000 cases on several seeds, shrinks to its canonical minimum, and is pinned by a checked-in
//! `known_violation` fixture (`TIMELAW_BLESS=1` rewrites them).

use crate::common;

use common::planted_load::{load_minimum, LoadBug, LoadPlanted, LOAD_BUGS};
use timelaw::core::reference::{Policy, Reference};
use timelaw::core::{CallScript, Case, Outcome, Schedule, Step, VDuration};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";
const CASES_MAX: u64 = 100_000;
const SEEDS: [u64; 3] = [0, 1, 2];

fn config(seed: u64) -> Config {
    Config { cases: CASES_MAX, seed, threads: 1, ..Config::default() }
}

/// The first violation of `law` by `bug` in a normal run with concurrency on: its case index and its minimum.
fn found(bug: LoadBug, law: &str, seed: u64) -> (u64, Case<Policy>) {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let output = common::first::run_to_first(&LoadPlanted(bug), &laws, &config(seed));
    let example = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found (seed {seed})"));
    (example.case_index, example.shrunk.clone())
}

fn verdict<S: timelaw::core::Subject<Config = Policy>>(subject: &S, law: &str, case: &Case<Policy>) -> Verdict {
    let law = *Catalogue::standard().get(law).unwrap();
    timelaw::eval::evaluate(subject, case, Config::default().limits, false).judge(&law, case)
}

#[test]
fn each_planted_load_bug_is_found_and_shrinks_to_its_minimum() {
    let mut failures = Vec::new();
    for (bug, seed, (index, minimum)) in common::parallel::per_seed(&LOAD_BUGS, &SEEDS, found) {
        assert!(index < CASES_MAX, "{bug:?} found at case {index}");
        if minimum != load_minimum(bug) {
            failures.push(format!("{bug:?} (seed {seed}) shrank to {}", serde_json::to_string(&minimum).unwrap()));
        }
    }
    for (bug, law) in LOAD_BUGS {
        if !verdict(&LoadPlanted(bug), law, &load_minimum(bug)).is_violated() {
            failures.push(format!("{bug:?}: the stated minimum does not violate {law}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reference, on each planted minimum, keeps the law the planted bug breaks.
#[test]
fn the_reference_keeps_what_the_planted_load_bugs_break() {
    for (bug, law) in LOAD_BUGS {
        let judged = verdict(&Reference, law, &load_minimum(bug));
        assert!(!judged.is_violated(), "{bug:?}: the reference on the same case: {judged}");
    }
}

#[test]
fn checked_in_planted_load_fixtures_are_the_current_minima() {
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-load-{}", std::process::id()));
    for (bug, law) in LOAD_BUGS {
        let name = format!("{bug:?}");
        let config = Config { cases: CASES_MAX, ..Config::default() };
        common::bless::assert_planted_fixture_current_with(
            &LoadPlanted(bug),
            law,
            &name,
            config,
            PLANTED_DIR,
            &scratch,
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// `circuit_probes_settle_as_declared` judges every close out of half-open, not only the instants a probe
/// result lands: a call admitted while closed that succeeds once the breaker half-opened must not close
/// it. The violation is at the subject's own transition, before any probe result; the reference, on the
/// same case, keeps the law.
#[test]
fn a_late_success_of_a_call_admitted_closed_does_not_close_the_breaker() {
    use timelaw::core::{CircuitState, EventKind};
    let (bug, law) = (LoadBug::LateResultCloses, "circuit_probes_settle_as_declared");
    let case = load_minimum(bug);
    let planted = timelaw::eval::evaluate(&LoadPlanted(bug), &case, Config::default().limits, false);
    let Verdict::Violated(violation) = planted.judge(&Catalogue::standard().get(law).copied().unwrap(), &case) else {
        panic!("{bug:?}: {}", verdict(&LoadPlanted(bug), law, &case));
    };
    let event = &planted.trace.events[violation.event.unwrap() as usize];
    let close = EventKind::CircuitTransition { from: CircuitState::HalfOpen, to: CircuitState::Closed };
    assert_eq!((event.call, event.kind), (0, close), "judged at call 0's close: {}", violation.message);
    assert!(!verdict(&Reference, law, &case).is_violated(), "the reference keeps the law on the same case");
}

/// A subject that checks cancellation before asking its breaker returns `Err(Cancelled)` from a call the
/// breaker never saw; the settle law does not read that as a probe result (the planted subjects serve
/// calls that way, and their breaker is the reference's).
#[test]
fn a_call_cancelled_before_the_breaker_settles_nothing() {
    // A one-call breaker opened for no time by call 0's failure; call 1 is cancelled as it starts.
    let mut case = load_minimum(LoadBug::HalfOpenAdmitsAll);
    case.schedule = Schedule::new(vec![
        CallScript::new(vec![Step::instant(Outcome::Transient)]),
        CallScript { cancel_after: Some(VDuration::ZERO), ..CallScript::new(vec![]) },
    ]);
    let law = "circuit_probes_settle_as_declared";
    for subject in [LoadPlanted(LoadBug::LateResultCloses), LoadPlanted(LoadBug::CancelledAttemptKeepsRunning)] {
        assert!(!verdict(&subject, law, &case).is_violated(), "{}", verdict(&subject, law, &case));
    }
    assert!(!verdict(&Reference, law, &case).is_violated());
}

/// A breaker whose docs say results count in the state they land in (`circuit.late_results =
/// landing_state`): on the same case, the late success of call 0 closes the half-open breaker, and that
/// close is due. The reference implements that reading and closes there too; the planted subject, which
/// records late successes that way, is a correct subject of it.
#[test]
fn a_late_success_closes_a_breaker_that_records_results_where_they_land() {
    use timelaw::core::{CircuitState, EventKind, LateResults};
    let law = "circuit_probes_settle_as_declared";
    let mut case = load_minimum(LoadBug::LateResultCloses);
    case.config.circuit = case
        .config
        .circuit
        .map(|circuit| timelaw::core::CircuitContract { late_results: LateResults::LandingState, ..circuit });
    let close = EventKind::CircuitTransition { from: CircuitState::HalfOpen, to: CircuitState::Closed };
    let reference = timelaw::eval::evaluate(&Reference, &case, Config::default().limits, false);
    let closed_by = reference.trace.events.iter().find(|event| event.kind == close).map(|event| event.call);
    assert_eq!(closed_by, Some(0), "the reference closes on call 0's late success");
    for verdict in [verdict(&Reference, law, &case), verdict(&LoadPlanted(LoadBug::LateResultCloses), law, &case)] {
        assert_eq!(verdict, Verdict::Holds);
    }
}
