//! The shrinker's tables: for each planted bug, the exact minimal counterexample; and shrinking cases that
//! come from elsewhere (a hand-written case, a proptest failure).

use crate::common;

use common::minima::stated_minimum as expected;
use common::planted::{Bug, Planted, BUGS};
use timelaw::core::reference::{Backoff, Policy};
use timelaw::core::{CallScript, Case, JumpAt, Limits, Outcome, Schedule, Step, VDuration, VInstant, WallJump};
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
    let mut schedule = Schedule::new(vec![CallScript::outcomes(&[Outcome::Ok]), call]);
    // A wall jump the bug does not depend on, for the clock pass to remove.
    schedule
        .clock
        .wall_jumps
        .push(WallJump { at: JumpAt::Instant(VInstant::from_nanos(40_000_000)), by_ns: -3_000_000 });
    let case = Case::new(policy, schedule, 77);
    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let outcome = shrink(&Planted(Bug::ExtraAttempt), &law, case, ShrinkBudget::default(), Limits::default()).unwrap();
    assert_eq!(outcome.case, expected(Bug::ExtraAttempt));
    assert!(!outcome.exhausted);
    // The case gives every pass work: a call to drop, steps to drop, a config to simplify, a gap to
    // remove, transients to turn into successes, durations to zero, a seed to zero and a wall jump to drop.
    // Each pass must have tried a candidate and kept one, except those this case gives nothing to do:
    // plain steps to `lower_repeats` (`a_long_failure_run_shrinks_by_lowering_its_repeat_count` is its
    // test), no dispatch the bug needs dropped with the backoff or the deadline (`tests/suite/shrink_paired.rs`
    // is its test), no call to fold, step to merge or pair to rewrite once the others dropped them, no number left once the
    // simplest config is kept (`the_new_moves_reach_their_minima` tests those three), and no outcome to
    // simplify once the steps are dropped (outcomes go before the config, in the order's order, and the
    // one transient left is the bug's); the case is sequential, so the passes over overlapping calls have
    // nothing to do (`tests/suite/shrink_concurrent.rs` is their test, and the paired moves': a call dropped
    // with a count lowered, alone or with its percents raised, once the calls are one, choices broken by time and retries folded), and its wall jump counts no attempt, so
    // no call drops with it re-indexed (`tests/suite/shrink_stops.rs` is that pass's test).
    let ran = |name: &str| outcome.passes.iter().find(|pass| pass.name == name).copied();
    for name in PASSES {
        let pass = ran(name).unwrap_or_else(|| panic!("pass {name} missing from {:?}", outcome.passes));
        assert!(pass.tried >= pass.accepted, "{pass:?}");
        let idle = [
            "lower_repeats",
            "drop_paired",
            "drop_calls_reindexed",
            "fold_calls",
            "merge_steps",
            "shrink_numbers",
            // The reference lists numbers of its own, so its answers are not shrunk
            // (`tests/suite/shrink_answers.rs` is that pass's test).
            "shrink_answers",
            "couple_answers",
            // The reference lists numbers of its own (searched by `shrink_numbers`): nothing to bisect
            // (`known_violations::other_starts_of_a_pinned_finding_shrink_to_its_case` is that pass's test).
            "bisect_config",
            "rewrite_pairs",
            "simplify_outcomes",
            "serialize",
            "shrink_interleave",
            "shrink_arrivals",
            "break_ties_by_time",
            "fold_retries",
            "drop_counted_calls",
            "drop_counted_shares",
            "join_counted_calls",
            "drop_jitter_lowered",
            // One call is left once the calls are dropped: no step's time to move into a next call's
            // gap (`tests/suite/shrink_stops.rs` is that pass's test).
            "step_to_gap",
            // Its gap is removed by `simplify_calls`, after the config passes.
            "lower_gap_with_number",
            // The attempts dropped with one attempt fewer add their time to the attempt left, until
            // the attempt timeout cuts it; a cut attempt then becomes a failure at once, with no
            // duration left (`simplify_outcomes`).
            "shrink_durations",
            // Likewise no step has time left to take away at once by then (the corpus's
            // `planted-wall-clock-limit` is where it keeps something: the bench's pass counts).
            "zero_step_durations",
            // The wall jump is dropped by the time the clock faults' points are simplified.
            "clock_points_first",
        ]
        .contains(&name);
        assert!(
            idle || pass.accepted > 0,
            "pass {name} kept nothing on a case it should simplify: {pass:?} of {:?}",
            outcome.passes
        );
    }
    assert_eq!(outcome.passes.len(), PASSES.len(), "{:?}", outcome.passes);
}

/// Every shrink pass, in the order they run.
const PASSES: [&str; 31] = [
    "drop_calls",
    "drop_calls_reindexed",
    "fold_calls",
    "serialize",
    "shrink_interleave",
    "break_ties_by_time",
    "drop_steps",
    "merge_steps",
    "lower_repeats",
    "drop_paired",
    "step_to_gap",
    "simplify_outcomes",
    "fold_retries",
    "rewrite_pairs",
    "clock_points_first",
    "zero_step_durations",
    "shrink_config",
    "shrink_numbers",
    "shrink_answers",
    "bisect_config",
    "couple_answers",
    "drop_counted_calls",
    "drop_counted_shares",
    "join_counted_calls",
    "drop_jitter_lowered",
    "lower_gap_with_number",
    "shrink_arrivals",
    "simplify_calls",
    "shrink_durations",
    "zero_seed",
    "shrink_clock_faults",
];

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

/// A planted subject that counts every run of it.
struct Counted {
    planted: Planted,
    runs: std::sync::atomic::AtomicU64,
}

impl timelaw::core::Subject for Counted {
    type Config = Policy;
    fn name(&self) -> &str {
        self.planted.name()
    }
    fn contract(&self, policy: &Policy) -> timelaw::core::Contract {
        self.planted.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.planted.run(policy, world)
    }
}

impl timelaw::generators::ConfigDomain for Counted {
    fn sample_config(&self, rng: &mut timelaw::core::SplitMix64, swarm: &timelaw::generators::Swarm) -> Policy {
        self.planted.sample_config(rng, swarm)
    }
    fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<Policy> {
        self.planted.config_strategy()
    }
    fn arbitrary_config(&self, bytes: &mut arbitrary::Unstructured<'_>) -> Policy {
        self.planted.arbitrary_config(bytes)
    }
    fn shrink_config(&self, policy: &Policy) -> Vec<Policy> {
        self.planted.shrink_config(policy)
    }
}

/// The evaluations a shrink reports are exactly the subject runs it made.
#[track_caller]
fn check_runs_counted(bug: Bug, law: &str, case: Case<Policy>, evals_max: u64) {
    use timelaw::core::Subject as _;
    let subject = Counted { planted: Planted(bug), runs: Default::default() };
    let law = *Catalogue::standard().get(law).unwrap();
    let budget = ShrinkBudget { evals_max, time_max: None };
    let outcome = shrink(&subject, &law, case, budget, Limits::default()).unwrap();
    let runs = subject.runs.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(outcome.evaluations, runs, "{} on {}: {:?}", subject.name(), law.id, outcome.passes);
    assert!(runs <= evals_max, "{runs} runs over a budget of {evals_max}");
}

#[test]
fn evaluations_count_every_subject_run() {
    for (bug, law) in BUGS {
        let laws = Catalogue::standard().select(&[law]).unwrap();
        let config = Config { cases: 5_000, seed: 1, threads: 1, replay_every: 0, ..Config::default() };
        let output = run(&Planted(bug), &laws, &config, &Silent);
        let found = output.laws[0].counterexamples[0].found.clone();
        check_runs_counted(bug, law, found.clone(), 4_000);
        check_runs_counted(bug, law, found, 7);
    }
}

/// The reference interpreter with one mechanism stripped before it runs, declaring the full contract: a
/// subject that never lets the World cut an attempt (no attempt timeout), never cuts at its deadline, or
/// whose circuit never opens. Test code only: broken on purpose.
#[derive(Clone, Copy)]
struct Stripped(&'static str, fn(&mut Policy));

impl timelaw::core::Subject for Stripped {
    type Config = Policy;
    fn name(&self) -> &str {
        self.0
    }
    fn contract(&self, policy: &Policy) -> timelaw::core::Contract {
        timelaw::reference::Reference.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        let mut stripped = policy.clone();
        (self.1)(&mut stripped);
        timelaw::reference::Reference.run(&stripped, world)
    }
}

impl timelaw::generators::ConfigDomain for Stripped {
    fn sample_config(&self, rng: &mut timelaw::core::SplitMix64, swarm: &timelaw::generators::Swarm) -> Policy {
        timelaw::reference::Reference.sample_config(rng, swarm)
    }
    fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<Policy> {
        timelaw::reference::Reference.config_strategy()
    }
    fn arbitrary_config(&self, bytes: &mut arbitrary::Unstructured<'_>) -> Policy {
        timelaw::reference::Reference.arbitrary_config(bytes)
    }
    fn shrink_config(&self, policy: &Policy) -> Vec<Policy> {
        timelaw::reference::Reference.shrink_config(policy)
    }
    fn config_outside(&self, policy: &Policy) -> Option<String> {
        timelaw::reference::Reference.config_outside(policy)
    }
}

const NEVER_CUTS: Stripped = Stripped("never-cuts", |p| p.attempt_timeout = None);
const NEVER_ENDS_AT_DEADLINE: Stripped = Stripped("never-ends-at-deadline", |p| p.deadline = None);
const NEVER_OPENS: Stripped = Stripped("never-opens", |p| p.circuit = None);

/// A minimum of a broken subject lies inside the domain, and the correct subject holds on it: a fixture
/// never claims more than the subject did.
#[track_caller]
fn check_minimum_in_domain(subject: Stripped, law: &str, case: Case<Policy>) -> Case<Policy> {
    use timelaw::generators::case_outside;
    let law = *Catalogue::standard().get(law).unwrap();
    let outcome = shrink(&subject, &law, case, ShrinkBudget::default(), Limits::default()).unwrap();
    let shown = serde_json::to_string(&outcome.case).unwrap();
    assert_eq!(case_outside(&subject, &outcome.case), vec![], "{} {}: {shown}", subject.0, law.id);
    let correct = timelaw::eval::evaluate(&timelaw::reference::Reference, &outcome.case, Limits::default(), false);
    let verdict = correct.judge(&law, &outcome.case);
    assert!(
        !verdict.is_violated(),
        "{} {}: the reference fails the minimum too: {verdict} on {shown}",
        subject.0,
        law.id
    );
    outcome.case
}

#[test]
fn a_hang_that_only_the_timeout_cuts_keeps_its_timeout() {
    let policy = Policy { attempt_timeout: Some(ms(5)), max_attempts: 2, ..expected(Bug::ExtraAttempt).config };
    let hang = Schedule::single(vec![Step::new(ms(3), Outcome::Transient), Step::instant(Outcome::Hang)]);
    let found = check_minimum_in_domain(NEVER_CUTS, "terminates", Case::new(policy.clone(), hang, 3));
    let timeout_zero = Policy { attempt_timeout: Some(VDuration::ZERO), ..expected(Bug::ExtraAttempt).config };
    assert_eq!(found, Case::new(timeout_zero, Schedule::single(vec![Step::instant(Outcome::Hang)]), 0));
    // A hang past the attempts a case reaches, which the trace never shows timed out, is still not left
    // behind when the timeout goes.
    let policy = Policy { max_attempts: 3, ..policy };
    let mut late = CallScript::new(vec![Step::instant(Outcome::Transient), Step::instant(Outcome::Hang)]);
    late.gap_before = ms(1);
    let schedule = Schedule::new(vec![CallScript::new(vec![Step::instant(Outcome::Hang)]), late]);
    check_minimum_in_domain(NEVER_CUTS, "terminates", Case::new(policy, schedule, 0));
}

/// Every violation a search finds in a subject that never cuts, never ends at its deadline or never
/// opens its circuit shrinks to a minimum inside the domain that the reference holds on.
#[test]
fn searched_minima_of_subjects_that_never_cut_stay_in_the_domain() {
    for subject in [NEVER_CUTS, NEVER_ENDS_AT_DEADLINE, NEVER_OPENS] {
        let laws = Catalogue::standard();
        let config = Config { cases: 3_000, seed: 5, threads: 1, replay_every: 0, ..Config::default() };
        let output = run(&subject, &laws, &config, &Silent);
        let mut checked = 0;
        for law in &output.laws {
            for example in &law.counterexamples {
                check_minimum_in_domain(subject, law.law.id, example.found.clone());
                checked += 1;
            }
        }
        assert!(checked > 0, "{}: the search found nothing to shrink", subject.0);
    }
}

/// A hand-edited fixture whose hang nothing can cut replays with a warning naming the file and the step.
#[test]
fn replaying_a_fixture_outside_the_domain_warns() {
    use timelaw::fixture::{Provenance, Source, Status};
    use timelaw::registry::Registry;
    let dir = std::env::temp_dir().join(format!("timelaw-outside-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let law = *Catalogue::standard().get("terminates").unwrap();
    let provenance = Provenance {
        source: Source::Hand,
        run_seed: None,
        case_index: None,
        shrunk: false,
        shrink_evaluations: 0,
        timelaw_version: "0.1.0".to_owned(),
    };
    let write = |name: &str, case: &Case<Policy>| {
        let reference = timelaw::reference::Reference;
        let mut fixture =
            timelaw::runner::build_fixture(&reference, &law, &Config::default(), case, provenance.clone());
        fixture.status = Status::KnownViolation;
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_string_pretty(&fixture).unwrap()).unwrap();
        timelaw::replay::replay_file(&Registry::builtin(), &Catalogue::standard(), &path, &Config::default()).unwrap()
    };
    let simplest = expected(Bug::ExtraAttempt).config;
    let hang = Schedule::single(vec![Step::instant(Outcome::Hang)]);
    let path = dir.join("outside.json");
    let outside = write("outside.json", &Case::new(simplest.clone(), hang.clone(), 0));
    let warning = outside.outside_warning(&path).expect("a warning");
    assert!(warning.contains("outside.json") && warning.contains("call 0 step 0 hangs"), "{warning}");
    let cut = Policy { attempt_timeout: Some(ms(1)), ..simplest };
    let inside = write("inside.json", &Case::new(cut, hang, 0));
    assert_eq!(inside.outside, Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example, as a subject: with a backoff factor of 16 it breaks its attempt limit after 9
/// failures, with a factor of 2 only after 33. Its simpler config (a factor of 2, no timeout) would
/// have the schedule padded with the attempts the timeout cut; a shorter schedule beats a simpler
/// config, so the minimum keeps the factor and 9 failures do.
#[derive(Clone, Copy)]
struct FactorNeeds;

/// (backoff factor, attempt timeout).
type FactorConfig = (u32, Option<VDuration>);

fn failures_needed(factor: u32) -> u32 {
    if factor >= 16 {
        9
    } else {
        33
    }
}

impl timelaw::core::Subject for FactorNeeds {
    type Config = FactorConfig;
    fn name(&self) -> &str {
        "factor-needs"
    }
    fn contract(&self, config: &FactorConfig) -> timelaw::core::Contract {
        timelaw::core::Contract {
            retry: timelaw::core::RetryContract {
                max_attempts: Some(failures_needed(config.0)),
                ..timelaw::core::RetryContract::default()
            },
            timing: timelaw::core::TimingContract {
                attempt_timeout: config.1,
                ..timelaw::core::TimingContract::default()
            },
            ..timelaw::core::Contract::default()
        }
    }
    fn run(&self, config: &FactorConfig, world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        use timelaw::core::{AttemptResult, CallResult, ErrorKind, TieRule};
        world.for_each_call(|world, _call| {
            for _ in 0..40 {
                let result = match config.1 {
                    Some(timeout) => world.dispatch_with_timeout(timeout, TieRule::Expired)?,
                    None => world.dispatch()?,
                };
                if result == AttemptResult::Completed(Outcome::Ok) {
                    return Ok(CallResult::Ok);
                }
            }
            Ok(CallResult::Err(ErrorKind::Transient))
        })
    }
}

impl timelaw::generators::ConfigDomain for FactorNeeds {
    fn sample_config(&self, _: &mut timelaw::core::SplitMix64, _: &timelaw::generators::Swarm) -> FactorConfig {
        (16, Some(VDuration::ZERO))
    }
    fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<FactorConfig> {
        use proptest::strategy::Strategy;
        proptest::strategy::Just((16, Some(VDuration::ZERO))).boxed()
    }
    fn arbitrary_config(&self, _: &mut arbitrary::Unstructured<'_>) -> FactorConfig {
        (16, Some(VDuration::ZERO))
    }
    fn shrink_config(&self, config: &FactorConfig) -> Vec<FactorConfig> {
        [(2, None), (config.0, None)].into_iter().filter(|simpler| simpler != config).collect()
    }
}

#[test]
fn a_shorter_schedule_beats_a_simpler_config() {
    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    // Every attempt times out, so the schedule scripts nothing; the subject goes on past the violation.
    let start = Case::new((16, Some(VDuration::ZERO)), Schedule::single(vec![]), 0);
    let outcome = shrink(&FactorNeeds, &law, start, ShrinkBudget::default(), Limits::default()).unwrap();
    // Nine transient failures, written in the normal form of equal steps: one step repeated nine times.
    let nine = Schedule::single(vec![Step::instant(Outcome::Transient).repeated(9)]);
    assert_eq!(outcome.case, Case::new((16, None), nine.clone(), 0));
    // Given the long schedule and the factor of 16, the schedule shrinks and the factor stays.
    let long = Case::new((16, None), transients(40), 0);
    let outcome = shrink(&FactorNeeds, &law, long, ShrinkBudget::default(), Limits::default()).unwrap();
    assert_eq!(outcome.case, Case::new((16, None), nine, 0));
}

/// The shrinker's minimum of `start` for the reference interpreter under the law `check` builds.
#[track_caller]
fn check_new_move(law: timelaw::laws::Law, start: Case<Policy>, expect: Case<Policy>) {
    let reference = timelaw::reference::Reference;
    let outcome = shrink(&reference, &law, start, ShrinkBudget::default(), Limits::default()).unwrap();
    let shown = serde_json::to_string(&outcome.case).unwrap();
    assert_eq!(outcome.case, expect, "{shown} ({} evaluations)", outcome.evaluations);
}

fn violated_if(holds: bool) -> timelaw::laws::Verdict {
    if holds {
        timelaw::laws::Verdict::violated_with(None, "the condition under test".to_owned())
    } else {
        timelaw::laws::Verdict::Holds
    }
}

fn law_with(check: fn(&timelaw::laws::Observation<'_>) -> timelaw::laws::Verdict) -> timelaw::laws::Law {
    fn always(_: &timelaw::core::Contract) -> bool {
        true
    }
    timelaw::laws::Law {
        id: "test_law",
        title: "a condition under test",
        kind: timelaw::laws::LawKind::Safety,
        needs: &[],
        applies: always,
        check,
    }
}

fn simplest() -> Policy {
    expected(Bug::ExtraAttempt).config
}

fn empty() -> Schedule {
    Schedule::single(vec![])
}

/// The moves issue 15 found missing, each reaching the exact minimum: circuit and budget numbers, the
/// exact duration boundary, a factor, a call's gap folded into the next, two steps merged into one.
#[test]
fn the_new_moves_reach_their_minima() {
    use timelaw::core::{BudgetContract, CircuitContract, EventKind};
    let circuit = CircuitContract {
        window: 8,
        min_calls: 3,
        failure_percent: 57,
        open_for: VDuration::from_nanos(655_516_637),
        half_open_probes: 2,
        ..CircuitContract::DEFAULT
    };
    let big_circuit = Policy { circuit: Some(circuit), ..simplest() };
    let circuit_law = law_with(|o| {
        violated_if(
            o.contract.circuit.into_stated().is_some_and(|c| c.window >= 2 && c.open_for >= VDuration::from_nanos(1)),
        )
    });
    let small_circuit = CircuitContract {
        window: 2,
        min_calls: 1,
        failure_percent: 1,
        open_for: VDuration::from_nanos(1),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    check_new_move(
        circuit_law,
        Case::new(big_circuit, empty(), 9),
        Case::new(Policy { circuit: Some(small_circuit), ..simplest() }, empty(), 0),
    );
    // A timeout of 3 ns where 2 ns fail: halving gives 1 ns, which loses the failure.
    let timeout_law = law_with(|o| violated_if(o.contract.timing.attempt_timeout.is_some_and(|t| t.as_nanos() >= 2)));
    let timeout = |nanos| Policy { attempt_timeout: Some(VDuration::from_nanos(nanos)), ..simplest() };
    check_new_move(timeout_law, Case::new(timeout(3), empty(), 0), Case::new(timeout(2), empty(), 0));
    let budget_law = law_with(|o| violated_if(o.contract.budget.into_stated().is_some_and(|b| b.retry_percent >= 7)));
    let budget = |retry_percent| Policy {
        retry_budget: Some(BudgetContract {
            min_retries: if retry_percent > 7 { 5 } else { 0 },
            retry_percent,
            ..BudgetContract::default()
        }),
        ..simplest()
    };
    check_new_move(budget_law, Case::new(budget(900), empty(), 0), Case::new(budget(7), empty(), 0));
    // A call that starts 10 ms or more after the first: seven calls 2 ms apart fold into two.
    let late_law = law_with(|o| {
        let late = o.trace.events.iter().any(|event| {
            matches!(event.kind, EventKind::CallStart { .. }) && event.call >= 1 && event.at.as_nanos() >= 10_000_000
        });
        violated_if(late)
    });
    let spaced = |gaps_ms: &[u64]| {
        let calls = gaps_ms.iter().map(|&gap| CallScript { gap_before: ms(gap), ..CallScript::new(vec![]) });
        Schedule::new(calls.collect())
    };
    check_new_move(
        late_law,
        Case::new(simplest(), spaced(&[0, 2, 2, 2, 2, 2, 2]), 0),
        Case::new(simplest(), spaced(&[0, 10]), 0),
    );
    // The first call fails although a retry is allowed: two transient failures become one fatal one.
    let fails_law = law_with(|o| {
        let failed = o
            .trace
            .events
            .iter()
            .any(|event| matches!(event.kind, EventKind::CallEnd { result } if !result.is_ok()) && event.call == 0);
        violated_if(failed && o.contract.retry.max_attempts.is_some_and(|max| max >= 2))
    });
    let two = Policy { max_attempts: 2, ..simplest() };
    let start = Schedule::new(vec![
        CallScript::outcomes(&[Outcome::Transient, Outcome::Transient]),
        CallScript::outcomes(&[Outcome::Transient]),
    ]);
    check_new_move(
        fails_law,
        Case::new(two.clone(), start, 0),
        Case::new(two, Schedule::single(vec![Step::instant(Outcome::Fatal)]), 0),
    );
}

/// A planted subject whose failure is flaky on schedules of at most `flaky_steps` steps: such a case
/// fails only on its first run, and behaves like the reference after (a warmed cache, say). Test code
/// only: nondeterministic on purpose.
struct Flaky {
    planted: Planted,
    flaky_steps: usize,
    seen: std::sync::Mutex<std::collections::HashSet<u64>>,
}

impl timelaw::core::Subject for Flaky {
    type Config = Policy;
    fn name(&self) -> &str {
        self.planted.name()
    }
    fn contract(&self, policy: &Policy) -> timelaw::core::Contract {
        self.planted.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (policy, world.schedule()).hash(&mut hasher);
        let seen_before = !self.seen.lock().unwrap().insert(hasher.finish());
        if world.schedule().step_count() <= self.flaky_steps && seen_before {
            return timelaw::reference::Reference.run(policy, world);
        }
        self.planted.run(policy, world)
    }
}

impl timelaw::generators::ConfigDomain for Flaky {
    fn sample_config(&self, rng: &mut timelaw::core::SplitMix64, swarm: &timelaw::generators::Swarm) -> Policy {
        self.planted.sample_config(rng, swarm)
    }
    fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<Policy> {
        self.planted.config_strategy()
    }
    fn arbitrary_config(&self, bytes: &mut arbitrary::Unstructured<'_>) -> Policy {
        self.planted.arbitrary_config(bytes)
    }
    fn shrink_config(&self, policy: &Policy) -> Vec<Policy> {
        self.planted.shrink_config(policy)
    }
}

/// Shrinks `steps` transient failures under `Flaky` (flaky on schedules of at most `flaky_steps`) and
/// expects a minimum of `expect_steps` steps: a flaky case kept for a pass is dropped when the pass's
/// confirming run does not reproduce it.
#[track_caller]
fn check_flaky(flaky_steps: usize, steps: usize, expect_steps: usize) {
    let subject = Flaky { planted: Planted(Bug::ExtraAttempt), flaky_steps, seen: Default::default() };
    let law = *Catalogue::standard().get("attempts_within_max").unwrap();
    let case = Case::new(Policy { max_attempts: 9, ..expected(Bug::ExtraAttempt).config }, transients(steps), 5);
    let outcome = shrink(&subject, &law, case, ShrinkBudget::default(), Limits::default()).unwrap();
    let shown = serde_json::to_string(&outcome.case).unwrap();
    assert_eq!(outcome.case.schedule.step_count(), expect_steps, "{shown}");
    let planted = timelaw::eval::evaluate(&Planted(Bug::ExtraAttempt), &outcome.case, Limits::default(), false);
    assert!(planted.judge(&law, &outcome.case).is_violated(), "{shown}");
}

#[test]
fn a_flaky_failure_is_never_the_minimum() {
    check_flaky(0, 12, 1);
    check_flaky(1, 12, 2);
    check_flaky(2, 12, 3);
}

/// The moves of the total order on configs (`timelaw::shrink::order`), each reaching the exact minimum
/// from a start the shrinker used to leave elsewhere: one `retry_on` flag switched back on at a time (a
/// failure that needs only rate limits unretried: switching all flags on loses it), and a hang cut by
/// a cancellation made an `ok` attempt still running when the cancellation falls.
#[test]
fn the_total_order_moves_reach_their_minima() {
    use timelaw::core::{EventKind, RetryOn};
    let flags_law = law_with(|o| violated_if(o.contract.retry.retry_on.is_some_and(|on| !on.rate_limited)));
    let flags = |transient, timeout| Policy {
        retry_on: RetryOn { transient, rate_limited: false, timeout },
        max_attempts: 3,
        ..simplest()
    };
    let one_flag_off = Policy { max_attempts: 1, ..flags(true, true) };
    check_new_move(flags_law, Case::new(flags(false, false), empty(), 0), Case::new(one_flag_off, empty(), 0));
    let cancelled_law =
        law_with(|o| violated_if(o.trace.events.iter().any(|event| matches!(event.kind, EventKind::AttemptCancelled))));
    let cancelled = |step: Step, cancel_ns| {
        let call = CallScript { cancel_after: Some(VDuration::from_nanos(cancel_ns)), ..CallScript::new(vec![step]) };
        Schedule::new(vec![call])
    };
    let hang = Step::new(VDuration::from_nanos(7), Outcome::Hang);
    // A cancellation at 0 falls before the first attempt: 1 ns is the earliest that cuts one.
    let running = Step::new(VDuration::from_nanos(2), Outcome::Ok);
    check_new_move(
        cancelled_law,
        Case::new(simplest(), cancelled(hang, 5), 0),
        Case::new(simplest(), cancelled(running, 1), 0),
    );
}

/// A domain whose simpler configs include one of a larger rank (a cycle: `3` offers `9`, `9` offers
/// `3`), under a law every config violates: the shrinker refuses the larger rank, so the minimum is the
/// smallest rank reached, not wherever the cycle happens to stop.
#[derive(Clone, Copy, Debug)]
struct Cycle;

impl timelaw::core::Subject for Cycle {
    type Config = u32;
    fn name(&self) -> &str {
        "cycle"
    }
    fn contract(&self, _: &u32) -> timelaw::core::Contract {
        timelaw::core::Contract::default()
    }
    fn run(&self, _: &u32, world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        world.for_each_call(|world, _call| {
            world.dispatch()?;
            Ok(timelaw::core::CallResult::Ok)
        })
    }
}

impl timelaw::generators::ConfigDomain for Cycle {
    fn sample_config(&self, _: &mut timelaw::core::SplitMix64, _: &timelaw::generators::Swarm) -> u32 {
        9
    }
    fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<u32> {
        use proptest::strategy::Strategy;
        proptest::strategy::Just(9).boxed()
    }
    fn arbitrary_config(&self, _: &mut arbitrary::Unstructured<'_>) -> u32 {
        9
    }
    fn shrink_config(&self, config: &u32) -> Vec<u32> {
        match config {
            9 => vec![3],
            3 => vec![9, 5],
            _ => vec![],
        }
    }
    fn config_rank(&self, config: &u32) -> Vec<u64> {
        vec![u64::from(*config)]
    }
}

#[test]
fn a_config_of_a_larger_rank_is_never_accepted() {
    let law = law_with(|_| violated_if(true));
    let outcome = shrink(&Cycle, &law, Case::new(9, empty(), 0), ShrinkBudget::default(), Limits::default()).unwrap();
    assert_eq!(outcome.case.config, 3, "3 offers 9 (refused) and 5 (a larger rank than 3: refused)");
    let moves: Vec<u32> =
        timelaw::shrink::moves(&Cycle, &Case::new(3, empty(), 0)).iter().map(|m| m.case.config).collect();
    assert!(!moves.contains(&9) && !moves.contains(&5), "{moves:?}");
}

/// `neighbours` is `moves` with the config moves that lead back kept: 9 offers 3, which offers 9 again,
/// so 3 is no move from 9 for the minimality test, but it is one move away for the fuzz masking.
#[test]
fn neighbours_keep_the_moves_that_lead_back() {
    let configs = |list: Vec<timelaw::shrink::Move<u32>>| list.iter().map(|m| m.case.config).collect::<Vec<u32>>();
    let nine = Case::new(9, empty(), 0);
    assert!(!configs(timelaw::shrink::moves(&Cycle, &nine)).contains(&3));
    assert!(configs(timelaw::shrink::neighbours(&Cycle, &nine)).contains(&3));
}

/// Two panics of one subject: an empty ring panics first; a large value overflows later.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct TwoPanics {
    ring: u32,
    big: u32,
}

fn two_panics_described(c: &mut dyn timelaw::Choices) -> TwoPanics {
    TwoPanics { ring: c.between(0, 10) as u32, big: c.between(0, 1000) as u32 }
}

const TWO_PANICS: timelaw::FnSubject<TwoPanics> = timelaw::subject(
    "two-panics",
    two_panics_described,
    |_| timelaw::core::sync_loop::contract_for(timelaw::core::Contract::constant(1, VDuration::ZERO)),
    |config, world| {
        timelaw::core::sync_loop::serve_calls(world, |_| {
            assert!(config.ring > 0, "the ring is empty");
            assert!(config.big < 100, "overflow past {}", config.big);
            Ok(std::iter::empty())
        })
    },
);

/// A panic shrinks to a smaller case of the same panic, never to another one the shrink happens to
/// reach (here, the simplest ring is empty and panics first).
#[test]
fn a_panic_shrinks_within_its_own_class() {
    use timelaw::generators::{Answers, ConfigDomain, Swarm};
    std::panic::set_hook(Box::new(|_| {})); // The panics are the point.
    let law = *Catalogue::standard().get("never_panics").unwrap();
    let answers = Answers { answers: vec![3, 150], swarm: Swarm::everything() };
    let (config, answers) = TWO_PANICS.config_of_answers(&answers).unwrap();
    assert_eq!(config, TwoPanics { ring: 3, big: 150 });
    let case = Case::new(config, Schedule::single(vec![Step::instant(Outcome::Ok)]), 0);
    let drawn = timelaw::shrink::Drawn { case, answers: Some(answers) };
    let outcome = shrink(&TWO_PANICS, &law, drawn, ShrinkBudget::default(), Limits::default()).unwrap();
    let _ = std::panic::take_hook();
    assert_eq!(outcome.case.config, TwoPanics { ring: 1, big: 100 }, "{}", outcome.violation.message);
    assert!(outcome.violation.message.contains("overflow past 100"), "{}", outcome.violation.message);
}

/// A finding shrinks on the check of the law that found it ([`timelaw::laws::CheckSite`]): a smaller
/// config that the law rejects through another of its checks is another finding, not a smaller case of
/// this one, even when its message reads alike. The first check's wording changes as it shrinks (the
/// count in it); the check does not.
#[test]
#[allow(clippy::if_same_then_else)] // Two checks worded alike on purpose: the site tells them apart.
fn a_finding_shrinks_on_the_check_that_found_it() {
    let two_checks = law_with(|o| {
        let attempts = o.contract.retry.max_attempts.unwrap_or(0);
        if attempts >= 3 {
            timelaw::laws::Verdict::violated_with(None, format!("{attempts} attempts allowed"))
        } else {
            timelaw::laws::Verdict::violated_with(None, format!("{attempts} attempts allowed"))
        }
    });
    let start = Case::new(Policy { max_attempts: 7, ..simplest() }, empty(), 0);
    check_new_move(two_checks, start, Case::new(Policy { max_attempts: 3, ..simplest() }, empty(), 0));
    // One check violated everywhere shrinks to the simplest config.
    let one_check = law_with(|o| violated_if(o.contract.retry.max_attempts.is_some_and(|attempts| attempts > 0)));
    let start = Case::new(Policy { max_attempts: 7, ..simplest() }, empty(), 0);
    check_new_move(one_check, start, Case::new(simplest(), empty(), 0));
}
