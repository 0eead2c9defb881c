//! The three front-ends, on the reference interpreter and on a small hand-written subject: validity,
//! termination, determinism, boundary coverage and shrinking.

use arbitrary::Unstructured;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestError, TestRunner};
use serde::{Deserialize, Serialize};
use timelaw_core::reference::{Backoff, Policy, Reference};
use timelaw_core::{
    execute, mix, Abort, AttemptResult, BackoffShape, CallResult, Case, CircuitContract, Contract, DelayContract,
    ErrorKind, Outcome, RetryContract, Schedule, SplitMix64, Step, Subject, TimingContract, TraceEnd, VDuration, World,
};
use timelaw_generators::coverage::{classify, BoundaryClass, Coverage};
use timelaw_generators::{
    arbitrary_case, case_strategy, sample_case, sample_schedule, schedule_strategy, swarm_for, ConfigDomain, Swarm,
    CALLS_MAX, LONG_RUN_MAX, STEPS_PER_CALL_MAX,
};

/// A constant-delay retry with its own tiny config: the second `ConfigDomain`, written with plain
/// proptest combinators and plain `arbitrary` calls rather than a description.
#[derive(Clone, Copy, Debug, Default)]
struct ConstantRetry;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct ConstantConfig {
    attempts: u32,
    delay_ms: u64,
    timeout_ms: Option<u64>,
}

impl Subject for ConstantRetry {
    type Config = ConstantConfig;
    fn name(&self) -> &str {
        "constant_retry"
    }
    fn contract(&self, config: &ConstantConfig) -> Contract {
        let delay = VDuration::from_millis(config.delay_ms);
        Contract {
            retry: RetryContract { max_attempts: Some(config.attempts), ..RetryContract::default() },
            delays: DelayContract {
                min: Some(delay),
                max: Some(delay),
                backoff: Some(BackoffShape::Constant { delay }),
                ..DelayContract::default()
            },
            timing: TimingContract {
                attempt_timeout: config.timeout_ms.map(VDuration::from_millis),
                ..TimingContract::default()
            },
            ..Contract::default()
        }
    }
    fn run(&self, config: &ConstantConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let contract = self.contract(config);
        world.for_each_call(|world, _call| {
            let mut attempt = 0;
            loop {
                attempt += 1;
                let result = match contract.timing.attempt_timeout {
                    Some(timeout) => world.dispatch_with_timeout(timeout, contract.timing.timeout_tie)?,
                    None => world.dispatch()?,
                };
                let error = match result {
                    AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                    AttemptResult::Completed(Outcome::Fatal) => return Ok(CallResult::Err(ErrorKind::Fatal)),
                    AttemptResult::Completed(_) => ErrorKind::Transient,
                    AttemptResult::TimedOut => ErrorKind::Timeout,
                    AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
                };
                if attempt >= config.attempts {
                    return Ok(CallResult::Err(error));
                }
                world.sleep(VDuration::from_millis(config.delay_ms))?;
            }
        })
    }
}

impl ConfigDomain for ConstantRetry {
    fn sample_config(&self, rng: &mut SplitMix64, swarm: &Swarm) -> ConstantConfig {
        let timeout_ms = (swarm.attempt_timeout && rng.chance(1, 2)).then(|| rng.between_inclusive(0, 100));
        ConstantConfig { attempts: rng.between_inclusive(1, 6) as u32, delay_ms: rng.below(50), timeout_ms }
    }
    fn config_strategy(&self) -> BoxedStrategy<ConstantConfig> {
        (1_u32..=6, 0_u64..50, proptest::option::of(0_u64..=100))
            .prop_map(|(attempts, delay_ms, timeout_ms)| ConstantConfig { attempts, delay_ms, timeout_ms })
            .boxed()
    }
    fn arbitrary_config(&self, u: &mut Unstructured<'_>) -> ConstantConfig {
        let attempts = u.int_in_range(1..=6).unwrap_or(1);
        let delay_ms = u.int_in_range(0..=49).unwrap_or(0);
        let timeout_ms =
            if u.arbitrary::<bool>().unwrap_or(false) { Some(u.int_in_range(0..=100).unwrap_or(0)) } else { None };
        ConstantConfig { attempts, delay_ms, timeout_ms }
    }
    fn shrink_config(&self, config: &ConstantConfig) -> Vec<ConstantConfig> {
        let simplest = ConstantConfig { attempts: 1, delay_ms: 0, timeout_ms: None };
        [simplest, ConstantConfig { attempts: config.attempts.div_ceil(2), ..config.clone() }]
            .into_iter()
            .filter(|candidate| candidate != config)
            .collect()
    }
}

/// How many cases each front-end test draws.
const CASES: u64 = 4000;

/// The three front-ends, each giving `count` cases of `subject`.
#[derive(Clone, Copy, Debug)]
enum FrontEnd {
    Native,
    Proptest,
    Arbitrary,
}

const FRONT_ENDS: [FrontEnd; 3] = [FrontEnd::Native, FrontEnd::Proptest, FrontEnd::Arbitrary];

fn cases<S: ConfigDomain + Clone + 'static>(subject: &S, front_end: FrontEnd, count: u64) -> Vec<Case<S::Config>> {
    match front_end {
        FrontEnd::Native => (0..count).map(|index| sample_case(subject, mix(7, index), &swarm_for(7, index))).collect(),
        FrontEnd::Proptest => {
            let strategy = case_strategy(subject);
            let mut runner = TestRunner::deterministic();
            (0..count).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
        }
        FrontEnd::Arbitrary => {
            let mut rng = SplitMix64::new(11);
            let mut bytes = Vec::new();
            (0..count)
                .map(|_| {
                    let len = rng.below(1024) as usize;
                    bytes.clear();
                    bytes.extend((0..len).map(|_| rng.next_u64() as u8));
                    arbitrary_case(subject, &bytes)
                })
                .collect()
        }
    }
}

/// Ranges every schedule keeps, whoever the subject.
#[track_caller]
fn check_schedule_limits(schedule: &Schedule, contract: &Contract) {
    assert!((1..=CALLS_MAX as usize).contains(&schedule.calls.len()), "{schedule:?}");
    for call in &schedule.calls {
        assert!(call.steps.len() as u64 <= STEPS_PER_CALL_MAX, "{call:?}");
        let cut = contract.timing.attempt_timeout.is_some() || call.cancel_after.is_some();
        for step in &call.steps {
            assert!(cut || step.outcome != Outcome::Hang, "a hang nothing ends: {call:?} {contract:?}");
            let huge = step.duration > VDuration::from_secs(3600);
            assert!(cut || !huge, "a huge attempt nothing cuts: {call:?} {contract:?}");
        }
    }
}

#[track_caller]
fn check_runs_to_completion<S: ConfigDomain>(subject: &S, case: &Case<S::Config>) {
    let trace = execute(subject, &case.config, &case.schedule, case.seed);
    assert_eq!(trace.end, TraceEnd::Complete, "{case:?}");
}

#[test]
fn reference_cases_are_valid_and_terminate_on_every_front_end() {
    for front_end in FRONT_ENDS {
        for case in cases(&Reference, front_end, CASES) {
            assert_eq!(case.config.validate(), Ok(()), "{front_end:?}: {case:?}");
            check_schedule_limits(&case.schedule, &Reference.contract(&case.config));
            if sleeps_any_retry_after(&case.config) {
                // A retry-after of up to 584 years slept above the cap: the World's time limit cuts the run.
                let trace = execute(&Reference, &case.config, &case.schedule, case.seed);
                let cut = TraceEnd::Aborted(Abort::StepLimit {
                    kind: timelaw_core::LimitKind::VirtualTime,
                    limit: timelaw_core::Limits::default().virtual_time_max.as_nanos(),
                });
                assert!(trace.end == TraceEnd::Complete || trace.end == cut, "{case:?}: {:?}", trace.end);
                continue;
            }
            check_runs_to_completion(&Reference, &case);
        }
    }
}

/// A policy that sleeps a retry-after above its cap, however long.
fn sleeps_any_retry_after(policy: &Policy) -> bool {
    policy.retry_after_policy.is_some_and(|rule| rule.above_cap == timelaw_core::AboveCap::SleepAnyway)
}

#[test]
fn hand_written_subject_cases_terminate_on_every_front_end() {
    for front_end in FRONT_ENDS {
        for case in cases(&ConstantRetry, front_end, CASES / 4) {
            assert!((1..=6).contains(&case.config.attempts), "{front_end:?}: {case:?}");
            check_schedule_limits(&case.schedule, &ConstantRetry.contract(&case.config));
            check_runs_to_completion(&ConstantRetry, &case);
        }
    }
}

#[test]
fn every_front_end_reaches_every_boundary_class() {
    for front_end in FRONT_ENDS {
        let mut coverage = Coverage::default();
        for case in cases(&Reference, front_end, CASES) {
            coverage.record(classify(&case.schedule, &Reference.contract(&case.config)));
        }
        assert!(coverage.missing().is_empty(), "{front_end:?} misses {}:\n{coverage}", coverage.missing());
    }
}

#[test]
fn hand_written_subject_reaches_its_timeout_boundaries() {
    for front_end in FRONT_ENDS {
        let mut coverage = Coverage::default();
        for case in cases(&ConstantRetry, front_end, CASES) {
            coverage.record(classify(&case.schedule, &ConstantRetry.contract(&case.config)));
        }
        for class in [
            BoundaryClass::AttemptAtTimeout,
            BoundaryClass::AttemptJustUnderTimeout,
            BoundaryClass::AttemptJustOverTimeout,
            BoundaryClass::StepsOverAttempts,
            BoundaryClass::StepsEqualAttempts,
            BoundaryClass::DelayReachesCap,
        ] {
            assert!(coverage.hits(class) > 0, "{front_end:?} misses {class}:\n{coverage}");
        }
    }
}

#[test]
fn native_sampling_is_deterministic() {
    for index in [0, 1, 63, 64, 1000] {
        let swarm = swarm_for(3, index);
        assert_eq!(sample_case(&Reference, mix(3, index), &swarm), sample_case(&Reference, mix(3, index), &swarm));
    }
    assert_ne!(sample_case(&Reference, 1, &Swarm::everything()), sample_case(&Reference, 2, &Swarm::everything()));
}

#[test]
fn switched_off_features_never_appear() {
    let mut swarm = Swarm::everything();
    swarm.circuit = false;
    swarm.multi_call = false;
    swarm.jitter = false;
    swarm.outcomes.fatal = 0;
    for seed in 0..2000 {
        let case = sample_case(&Reference, seed, &swarm);
        assert_eq!(case.config.circuit, None);
        assert_eq!(case.config.jitter, timelaw_core::reference::Jitter::None);
        assert_eq!(case.schedule.calls.len(), 1);
        assert!(case.schedule.calls[0].steps.iter().all(|step| step.outcome != Outcome::Fatal));
    }
}

fn simplest_policy() -> Policy {
    Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
}

#[test]
fn running_out_of_bytes_gives_the_simplest_case() {
    let simplest = Case::new(simplest_policy(), Schedule::single(vec![]), 0);
    assert_eq!(arbitrary_case(&Reference, &[]), simplest);
    assert_eq!(arbitrary_case(&Reference, &[0; 64]), simplest);
    let constant = arbitrary_case(&ConstantRetry, &[]);
    assert_eq!(constant.config, ConstantConfig { attempts: 1, delay_ms: 0, timeout_ms: None });
    assert_eq!(constant.schedule, Schedule::single(vec![]));
}

/// Shrinks a failure of `test` over `strategy` with a deterministic runner; the minimal value.
fn minimal<T: Clone + std::fmt::Debug>(strategy: BoxedStrategy<T>, test: impl Fn(&T) -> bool) -> T {
    let mut runner = TestRunner::new_with_rng(
        Config { cases: 2000, failure_persistence: None, ..Config::default() },
        proptest::test_runner::TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    match runner.run(&strategy, |value| {
        prop_assert!(test(&value));
        Ok(())
    }) {
        Err(TestError::Fail(_, value)) => value,
        other => panic!("expected a failure, got {other:?}"),
    }
}

fn contract(max_attempts: u32) -> Contract {
    Contract {
        retry: RetryContract { max_attempts: Some(max_attempts), ..RetryContract::default() },
        ..Contract::default()
    }
}

fn transients(call: &timelaw_core::CallScript) -> usize {
    call.steps.iter().filter(|step| step.outcome == Outcome::Transient).count()
}

#[test]
fn schedules_shrink_to_the_exact_minimal_counterexample() {
    let ms = VDuration::from_millis;
    let transient = Step::instant(Outcome::Transient);
    #[allow(clippy::type_complexity)]
    let table: [(&str, Contract, fn(&Schedule) -> bool, Schedule); 4] = [
        (
            "three transients",
            contract(3),
            |s| s.calls.iter().all(|c| transients(c) < 3),
            Schedule::single(vec![transient; 3]),
        ),
        (
            "two calls",
            contract(3),
            |s| s.calls.len() < 2,
            Schedule::new(vec![timelaw_core::CallScript::new(vec![]), timelaw_core::CallScript::new(vec![])]),
        ),
        (
            "a slow step",
            contract(3),
            |s| s.calls.iter().flat_map(|c| &c.steps).all(|st| st.duration < VDuration::from_millis(5)),
            Schedule::single(vec![Step::new(ms(5), Outcome::Ok)]),
        ),
        (
            "a fatal step",
            contract(1),
            |s| s.calls.iter().flat_map(|c| &c.steps).all(|st| st.outcome != Outcome::Fatal),
            Schedule::single(vec![Step::instant(Outcome::Fatal)]),
        ),
    ];
    for (name, contract, holds, expected) in table {
        assert_eq!(minimal(schedule_strategy(contract), holds), expected, "{name}");
    }
}

#[test]
fn policies_shrink_to_the_exact_minimal_counterexample() {
    let policy = minimal(Reference.config_strategy(), |p| p.max_attempts < 4 || p.circuit.is_none());
    let circuit = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent: 1,
        open_for: VDuration::ZERO,
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    assert_eq!(policy, Policy { max_attempts: 4, circuit: Some(circuit), ..simplest_policy() });

    let policy = minimal(Reference.config_strategy(), |p| p.delay_max < VDuration::from_millis(1));
    assert_eq!(policy, Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::from_millis(1)));
}

#[test]
fn cases_shrink_config_and_schedule_together() {
    // Fails when a call with at least two attempts allowed meets two transient errors.
    let case = minimal(case_strategy(&Reference), |case| {
        case.config.max_attempts < 2 || case.schedule.calls.iter().all(|call| transients(call) < 2)
    });
    assert_eq!(case.config.max_attempts, 2, "{case:?}");
    assert_eq!(case.schedule.calls.len(), 1, "{case:?}");
    assert_eq!(case.schedule.calls[0].steps, vec![Step::instant(Outcome::Transient); 2], "{case:?}");
    assert_eq!(case.seed, 0);
}

#[test]
fn reference_shrink_candidates_are_valid_simpler_and_most_aggressive_first() {
    let mut rng = SplitMix64::new(5);
    for _ in 0..500 {
        let policy = Reference.sample_config(&mut rng, &Swarm::everything());
        let candidates = Reference.shrink_config(&policy);
        for candidate in &candidates {
            assert_eq!(candidate.validate(), Ok(()), "{candidate:?}");
            assert_ne!(candidate, &policy);
        }
        if policy != simplest_policy() {
            assert_eq!(candidates.first(), Some(&simplest_policy()), "{policy:?}");
        }
    }
    assert!(Reference.shrink_config(&simplest_policy()).is_empty());
}

#[test]
fn shrink_candidates_switch_features_off() {
    let ms = VDuration::from_millis;
    let rich = Policy {
        max_attempts: 6,
        backoff: Backoff::Exponential { initial: ms(10), factor: 4 },
        delay_max: ms(500),
        jitter: timelaw_core::reference::Jitter::Full,
        attempt_timeout: Some(ms(30)),
        deadline: Some(ms(900)),
        ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
    };
    let candidates = Reference.shrink_config(&rich);
    let offers = |check: fn(&Policy) -> bool| candidates.iter().any(check);
    assert!(offers(|p| p.attempt_timeout.is_none() && p.deadline.is_some()));
    assert!(offers(|p| p.deadline.is_none() && p.attempt_timeout.is_some()));
    assert!(offers(|p| p.jitter == timelaw_core::reference::Jitter::None && p.max_attempts == 6));
    assert!(offers(|p| p.backoff == Backoff::Constant { delay: VDuration::from_millis(10) }));
    assert!(offers(|p| p.max_attempts == 3));
    assert!(offers(|p| p.delay_max == VDuration::from_millis(10)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The strategies work in a user's own `proptest!` test.
    #[test]
    fn reference_stays_within_max_attempts(case in case_strategy(&Reference)) {
        let trace = execute(&Reference, &case.config, &case.schedule, case.seed);
        let attempts = trace.events.iter().filter(|event| event.kind == timelaw_core::EventKind::AttemptStart).count();
        let calls = case.schedule.calls.len();
        prop_assert!(attempts <= calls * case.config.max_attempts as usize);
    }
}

/// The longest repeat in `schedule`.
fn longest_repeat(schedule: &Schedule) -> u32 {
    schedule.calls.iter().flat_map(|call| &call.steps).map(|step| step.count()).max().unwrap_or(0)
}

#[test]
fn every_front_end_reaches_long_runs_past_the_contract() {
    for front_end in FRONT_ENDS {
        let cases = cases(&Reference, front_end, CASES);
        let mut longest = 0;
        let mut past_max_attempts = false;
        for case in &cases {
            let repeat = longest_repeat(&case.schedule);
            assert!(u64::from(repeat) <= LONG_RUN_MAX, "{front_end:?}: {case:?}");
            // Limits cut runs, never inputs: a run may script more failures than the contract allows.
            let max = Reference.contract(&case.config).retry.max_attempts.unwrap_or(u32::MAX);
            past_max_attempts |= repeat > max.saturating_add(1);
            longest = longest.max(repeat);
        }
        assert!(longest > 1, "{front_end:?} never repeats a step");
        assert!(past_max_attempts, "{front_end:?} never scripts more failures than max_attempts + 1");
    }
}

#[test]
fn long_runs_reach_thousands_where_nothing_caps_them() {
    let unbounded = Contract::default();
    let swarm = Swarm { long_runs: true, ..Swarm::everything() };
    let longest =
        (0..4000).map(|seed| longest_repeat(&sample_schedule(&mut SplitMix64::new(seed), &swarm, &unbounded)));
    let longest: Vec<u32> = longest.collect();
    assert!(longest.iter().any(|&n| (13..=64).contains(&n)), "no run of 13 to 64");
    assert!(longest.iter().any(|&n| n > 1_000), "no run over 1,000");
    let off = Swarm { long_runs: false, ..swarm };
    assert!((0..4000).all(|seed| longest_repeat(&sample_schedule(&mut SplitMix64::new(seed), &off, &unbounded)) <= 1));
}
