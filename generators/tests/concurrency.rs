//! Overlapping calls in generated cases: only with the concurrency option, drawn after everything else
//! (so sequential cases read the answers they always read), reaching every arrival boundary class from
//! every front-end, and never leaving the domain.

use arbitrary::Unstructured;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use timelaw_core::reference::{Policy, Reference};
use timelaw_core::{mix, Case, Contract, SplitMix64, Subject, VDuration};
use timelaw_generators::{
    arbitrary_case, arbitrary_case_with, arbitrary_schedule_with, case_outside, case_strategy_with, sample_case,
    sample_schedule, schedule_strategy_with, swarm_for, swarm_for_run, Swarm,
};

const CASES: u64 = 20_000;

fn cases(concurrency: bool) -> impl Iterator<Item = Case<Policy>> {
    (0..CASES).map(move |index| {
        let swarm = swarm_for(3, index);
        let swarm = if concurrency { swarm.with_concurrency() } else { swarm };
        sample_case(&Reference, mix(3, index), &swarm)
    })
}

#[test]
fn without_the_option_nothing_overlaps() {
    for case in cases(false) {
        assert!(!case.schedule.has_arrivals() && case.schedule.interleave.is_empty(), "{case:?}");
        assert!(!case.config.has_load_mechanisms(), "{case:?}");
    }
    assert!((0..4_096).all(|index| !swarm_for_run(3, index, false).concurrency));
}

/// With the option, every call has an arrival and no gap, and the case stays in the domain. (Without
/// it, the option's answers are never read: `optional` reads nothing for a switch that is off, and the
/// arrivals are drawn after everything else, so sequential cases are the ones drawn before it existed.)
#[test]
fn the_option_gives_every_call_an_arrival_inside_the_domain() {
    for case in cases(true) {
        assert!(case.schedule.calls.iter().all(|call| call.arrival.is_some()), "{case:?}");
        assert!(case.schedule.arrivals_check().is_ok(), "{case:?}");
        assert_eq!(case_outside(&Reference, &case), vec![], "{case:?}");
    }
}

/// What a concurrent case reaches, one flag per boundary class.
#[derive(Debug, Default, PartialEq)]
struct Reached {
    same_instant: bool,
    zero_first: bool,
    huge: bool,
    open_period_end: bool,
    refill_instant: bool,
    interleave: bool,
    bulkhead: bool,
    limiter: bool,
}

impl Reached {
    const ALL: Reached = Reached {
        same_instant: true,
        zero_first: true,
        huge: true,
        open_period_end: true,
        refill_instant: true,
        interleave: true,
        bulkhead: true,
        limiter: true,
    };

    fn see(&mut self, config: &Policy, contract: &Contract, schedule: &timelaw_core::Schedule) {
        let arrivals: Vec<VDuration> = schedule.calls.iter().filter_map(|call| call.arrival).collect();
        self.zero_first |= arrivals.first() == Some(&VDuration::ZERO);
        self.huge |= arrivals.iter().any(|&at| at >= VDuration::MAX.saturating_sub(VDuration::from_secs(1)));
        for pair in arrivals.windows(2) {
            let step = pair[1].saturating_sub(pair[0]);
            self.same_instant |= pair.len() == 2 && step == VDuration::ZERO;
            let open = contract.circuit.into_stated().map(|circuit| circuit.open_for);
            self.open_period_end |= open.is_some_and(|open| open > VDuration::ZERO && step == open);
        }
        let refill = contract.limiter.into_stated().map(|limiter| limiter.refill_every.as_nanos());
        self.refill_instant |= refill.is_some_and(|every| {
            every > 1 && arrivals.iter().any(|&at| at.as_nanos() > 0 && at.as_nanos() % every == 0)
        });
        self.interleave |= !schedule.interleave.is_empty();
        self.bulkhead |= config.bulkhead.is_some();
        self.limiter |= config.limiter.is_some();
    }
}

#[test]
fn the_native_sampler_reaches_every_arrival_class() {
    let mut reached = Reached::default();
    for case in cases(true).take(5_000) {
        reached.see(&case.config, &Reference.contract(&case.config), &case.schedule);
    }
    assert_eq!(reached, Reached::ALL);
}

/// A policy with a breaker and a limiter, so the schedule front-ends can aim at both.
fn loaded_policy() -> Policy {
    let mut rng = SplitMix64::new(5);
    let swarm = Swarm::everything().with_concurrency();
    loop {
        let case = sample_case(&Reference, rng.next_u64(), &swarm);
        let open = case.config.circuit.is_some_and(|circuit| circuit.open_for > VDuration::ZERO);
        let refill = case.config.limiter.is_some_and(|limiter| limiter.refill_every.as_nanos() > 1);
        if open && refill {
            return case.config;
        }
    }
}

#[test]
fn proptest_and_arbitrary_reach_every_arrival_class_too() {
    let policy = loaded_policy();
    let contract = Reference.contract(&policy);
    let swarm = Swarm::everything().with_concurrency();
    let strategy = schedule_strategy_with(contract, swarm);
    let mut runner = TestRunner::deterministic();
    let (mut by_proptest, mut by_arbitrary, mut natively) =
        (Reached::default(), Reached::default(), Reached::default());
    let mut bytes_rng = SplitMix64::new(9);
    for _ in 0..4_000 {
        let schedule = strategy.new_tree(&mut runner).unwrap().current();
        by_proptest.see(&policy, &contract, &schedule);
        let bytes: Vec<u8> = (0..512).map(|_| bytes_rng.next_u64() as u8).collect();
        let schedule = arbitrary_schedule_with(&mut Unstructured::new(&bytes), &contract, &swarm);
        by_arbitrary.see(&policy, &contract, &schedule);
        natively.see(&policy, &contract, &sample_schedule(&mut bytes_rng, &swarm, &contract));
    }
    let expected = Reached { bulkhead: policy.bulkhead.is_some(), limiter: true, ..Reached::ALL };
    assert_eq!(natively, expected, "native");
    assert_eq!(by_proptest, expected, "proptest");
    assert_eq!(by_arbitrary, expected, "arbitrary");
}

#[test]
fn whole_cases_from_proptest_and_arbitrary_overlap_with_the_option() {
    let swarm = Swarm::everything().with_concurrency();
    let strategy = case_strategy_with(&Reference, swarm);
    let mut runner = TestRunner::deterministic();
    let (mut by_proptest, mut by_arbitrary) = (Reached::default(), Reached::default());
    let mut bytes_rng = SplitMix64::new(13);
    for _ in 0..3_000 {
        let case = strategy.new_tree(&mut runner).unwrap().current();
        by_proptest.see(&case.config, &Reference.contract(&case.config), &case.schedule);
        assert_eq!(case_outside(&Reference, &case), vec![], "{case:?}");
        let bytes: Vec<u8> = (0..768).map(|_| bytes_rng.next_u64() as u8).collect();
        let case = arbitrary_case_with(&Reference, &bytes, &swarm);
        by_arbitrary.see(&case.config, &Reference.contract(&case.config), &case.schedule);
        assert_eq!(case_outside(&Reference, &case), vec![], "{case:?}");
    }
    for reached in [by_proptest, by_arbitrary] {
        assert!(reached.same_instant && reached.zero_first && reached.interleave, "{reached:?}");
        assert!(reached.bulkhead && reached.limiter, "{reached:?}");
    }
    // Without the option the whole-case front-ends are what they were: no overlap.
    let plain = arbitrary_case(&Reference, &[7; 256]);
    assert!(!plain.schedule.has_arrivals() && !plain.config.has_load_mechanisms());
}
