//! The shrinker's tables: for each planted bug, the exact minimal counterexample; and shrinking cases that
//! come from elsewhere (a hand-written case, a proptest failure).

mod common;

use common::planted::{Bug, Planted, BUGS};
use timelaw::core::reference::{Backoff, Policy};
use timelaw::core::{CallScript, Case, Limits, Outcome, Schedule, Step, VDuration};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::shrink::{shrink, ShrinkBudget};
use timelaw::Config;

fn minimum(bug: Bug, law: &str, seed: u64) -> Case<Policy> {
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config = Config { cases: 5_000, seed, threads: 1, replay_every: 0, ..Config::default() };
    let output = run(&Planted(bug), &laws, &config, &Silent);
    output.laws[0].counterexamples.first().map(|example| example.shrunk.clone()).expect("the planted bug is found")
}

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

fn transients(count: usize) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); count])
}

/// The canonical minimum of each planted bug, in words:
fn expected(bug: Bug) -> Case<Policy> {
    let simplest = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    match bug {
        // One attempt allowed, one transient failure: the defect makes a second attempt.
        Bug::ExtraAttempt => Case::new(simplest, transients(1), 0),
        // Delays 0 ns then 1 ns against a 0 ns cap.
        Bug::UncappedDelay => Case::new(
            Policy::new(
                3,
                Backoff::Linear { initial: VDuration::ZERO, step: VDuration::from_nanos(1) },
                VDuration::ZERO,
            ),
            transients(2),
            0,
        ),
        // A retry allowed, a fatal failure: the defect retries it.
        Bug::RetriesFatal => {
            Case::new(Policy { max_attempts: 2, ..simplest }, Schedule::single(vec![Step::instant(Outcome::Fatal)]), 0)
        }
        // A 0 ns timeout cuts the (implicit) instant success; the defect returns Ok.
        Bug::TimeoutAsOk => {
            Case::new(Policy { attempt_timeout: Some(VDuration::ZERO), ..simplest }, Schedule::single(vec![]), 0)
        }
        // One attempt, one transient failure: the defect sleeps before returning the error.
        Bug::SleepsAfterLast => Case::new(simplest, transients(1), 0),
        // A 0 ns timeout and an instant success: a tie, which must count as expired.
        Bug::TieNotExpired => {
            Case::new(Policy { attempt_timeout: Some(VDuration::ZERO), ..simplest }, Schedule::single(vec![]), 0)
        }
    }
}

#[test]
fn each_planted_bug_shrinks_to_its_exact_minimum_from_several_seeds() {
    for (bug, law) in BUGS {
        for seed in [0, 1, 2, 3] {
            let found = minimum(bug, law, seed);
            let shown = serde_json::to_string(&found).unwrap();
            assert_eq!(found, expected(bug), "{bug:?} (seed {seed}) shrank to {shown}");
        }
    }
}

#[test]
fn a_hand_written_case_shrinks_like_a_found_one() {
    let policy = Policy {
        attempt_timeout: Some(ms(500)),
        deadline: Some(VDuration::from_secs(60)),
        ..Policy::new(4, Backoff::Exponential { initial: ms(100), factor: 2 }, VDuration::from_secs(5))
    };
    let mut call = CallScript::new(vec![Step::new(ms(30), Outcome::Transient); 6]);
    call.gap_before = ms(250);
    let case = Case::new(policy, Schedule::new(vec![CallScript::outcomes(&[Outcome::Ok]), call]), 77);
    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let outcome = shrink(&Planted(Bug::ExtraAttempt), &law, case, ShrinkBudget::default(), Limits::default()).unwrap();
    assert_eq!(outcome.case, expected(Bug::ExtraAttempt));
    assert!(!outcome.exhausted);
    let names: Vec<&str> = outcome.passes.iter().map(|pass| pass.name).collect();
    let all = [
        "drop_calls",
        "drop_steps",
        "lower_repeats",
        "shrink_config",
        "simplify_calls",
        "simplify_outcomes",
        "shrink_durations",
        "zero_seed",
    ];
    assert_eq!(names, all);
}

#[test]
fn a_long_failure_run_shrinks_by_lowering_its_repeat_count() {
    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let policy = Policy { max_attempts: 5, ..expected(Bug::ExtraAttempt).config };
    let long = Schedule::single(vec![Step::instant(Outcome::Transient).repeated(100_000)]);
    let limits = Limits { attempts_max: 200_000, sleeps_max: 200_000, events_max: 1_000_000, ..Limits::default() };
    let outcome =
        shrink(&Planted(Bug::ExtraAttempt), &law, Case::new(policy, long, 0), ShrinkBudget::default(), limits);
    let outcome = outcome.unwrap();
    assert_eq!(outcome.case, expected(Bug::ExtraAttempt));
    let repeats = outcome.passes.iter().find(|pass| pass.name == "lower_repeats").unwrap();
    assert!(repeats.accepted > 0, "{:?}", outcome.passes);
    // Binary search: about log2(100,000) = 17 evaluations, not 100,000.
    assert!(outcome.evaluations < 200, "{} evaluations", outcome.evaluations);
}

#[test]
fn a_case_that_does_not_fail_is_refused() {
    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let error = shrink(
        &timelaw::reference::Reference,
        &law,
        expected(Bug::ExtraAttempt),
        ShrinkBudget::default(),
        Limits::default(),
    );
    assert!(error.is_err());
}

#[test]
fn the_evaluation_budget_is_respected() {
    let law = *Catalogue::standard().get("delay_within_cap").unwrap();
    let found = minimum(Bug::UncappedDelay, "delay_within_cap", 9);
    let bigger = Case { schedule: transients(8), ..found };
    let budget = ShrinkBudget { evals_max: 5, time_max: None };
    let outcome = shrink(&Planted(Bug::UncappedDelay), &law, bigger, budget, Limits::default()).unwrap();
    assert!(outcome.evaluations <= 5 && outcome.exhausted);
}

#[test]
fn a_proptest_failure_shrinks_to_the_same_minimum() {
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestRng, TestRunner};
    use timelaw::eval::evaluate;
    use timelaw::generators::case_strategy;

    let subject = Planted(Bug::RetriesFatal);
    let law = *Catalogue::standard().get("fatal_not_retried").unwrap();
    let config = ProptestConfig { failure_persistence: None, ..ProptestConfig::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let strategy = case_strategy(&subject);
    let failing = (0..10_000)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .find(|case| evaluate(&subject, case, Limits::default(), false).judge(&law, case).is_violated())
        .expect("proptest generation finds the planted bug");
    let outcome = shrink(&subject, &law, failing, ShrinkBudget::default(), Limits::default()).unwrap();
    assert_eq!(outcome.case, expected(Bug::RetriesFatal));
}
