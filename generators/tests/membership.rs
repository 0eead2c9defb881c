//! The generators never draw a case outside their own membership rules (`timelaw_generators::membership`),
//! under every swarm option on its own and under all of them, for the reference interpreter and for a
//! contract with every limit at its extremes (zero, 1 ns, near and at `VDuration::MAX`): the limits the
//! schedules aim at are where the rules are easiest to break (an attempt aimed at an elapsed-time limit
//! near the end of time, which nothing could cut).
//!
//! `TIMELAW_MEMBERSHIP_CASES` sets the cases per swarm (default 4,000; docs/findings.md gives the
//! 1,000,000-case figure).

use timelaw_core::reference::Reference;
use timelaw_core::{
    mix, Abort, BackoffShape, CircuitContract, Contract, Declared, DelayContract, JitterBounds, RetryContract, RetryOn,
    Subject, TimingContract, VDuration, World,
};
use timelaw_generators::membership::case_outside;
use timelaw_generators::{sample_case, Choices, ConfigDomain, Describe, OutcomeMix, Swarm};

fn cases() -> u64 {
    match std::env::var("TIMELAW_MEMBERSHIP_CASES") {
        Ok(text) => text.parse().unwrap_or_else(|_| panic!("TIMELAW_MEMBERSHIP_CASES={text}: not a count")),
        Err(_) => 4_000,
    }
}

/// A subject that is its contract: every limit drawn at an extreme. Never run.
#[derive(Clone)]
struct ExtremeLimits;

impl Subject for ExtremeLimits {
    type Config = Contract;
    fn name(&self) -> &str {
        "extreme-limits"
    }
    fn contract(&self, config: &Contract) -> Contract {
        *config
    }
    fn run(&self, _: &Contract, _: &mut World<'_>) -> Result<(), Abort> {
        Ok(())
    }
}

fn extreme<C: Choices + ?Sized>(c: &mut C) -> VDuration {
    let near = VDuration::MAX.saturating_sub(VDuration::from_millis(1));
    [VDuration::ZERO, VDuration::from_nanos(1), VDuration::from_secs(600), near, VDuration::MAX][c.pick(5) as usize]
}

fn limit<C: Choices + ?Sized>(c: &mut C) -> Option<VDuration> {
    c.maybe(1, 2).then(|| extreme(c))
}

impl Describe for ExtremeLimits {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> Contract {
        let delay = extreme(c);
        let circuit = c.maybe(1, 2).then(|| CircuitContract { open_for: extreme(c), ..CircuitContract::DEFAULT });
        Contract {
            retry: RetryContract {
                max_attempts: Some([1, 3, 100][c.pick(3) as usize]),
                retry_on: Some(RetryOn::ALL),
                ..RetryContract::default()
            },
            delays: DelayContract {
                max: limit(c),
                backoff: Some(BackoffShape::Constant { delay }),
                jitter: Some(JitterBounds::None),
                sleep_budget: limit(c),
                ..DelayContract::default()
            },
            timing: TimingContract {
                attempt_timeout: limit(c),
                deadline: limit(c),
                retry_elapsed_max: limit(c),
                ..TimingContract::default()
            },
            circuit: Declared::from(circuit),
            ..Contract::default()
        }
    }
}

/// A swarm option's name and the switch that turns it on.
type SwitchOn = (&'static str, fn(&mut Swarm));

/// Every swarm option on its own (with every outcome and the boundary bias on), then all of them, then
/// all of them with overlapping calls.
fn swarms() -> Vec<(&'static str, Swarm)> {
    let none = Swarm {
        jitter: false,
        attempt_timeout: false,
        deadline: false,
        sleep_budget: false,
        circuit: false,
        retry_budget: false,
        retry_after: false,
        cancellation: false,
        multi_call: false,
        non_idempotent: false,
        clock_faults: false,
        boundary_percent: 60,
        outcomes: OutcomeMix::BALANCED,
        long_runs: false,
        retry_elapsed_max: false,
        concurrency: false,
        refinements: false,
    };
    let on: [SwitchOn; 15] = [
        ("none", |_| ()),
        ("jitter", |s| s.jitter = true),
        ("attempt_timeout", |s| s.attempt_timeout = true),
        ("deadline", |s| s.deadline = true),
        ("sleep_budget", |s| s.sleep_budget = true),
        ("circuit", |s| s.circuit = true),
        ("retry_budget", |s| s.retry_budget = true),
        ("retry_after", |s| s.retry_after = true),
        ("cancellation", |s| s.cancellation = true),
        ("multi_call", |s| s.multi_call = true),
        ("non_idempotent", |s| s.non_idempotent = true),
        ("clock_faults", |s| s.clock_faults = true),
        ("long_runs", |s| s.long_runs = true),
        ("retry_elapsed_max", |s| s.retry_elapsed_max = true),
        ("refinements", |s| s.refinements = true),
    ];
    let mut swarms: Vec<(&str, Swarm)> = on
        .iter()
        .map(|(name, switch)| {
            let mut swarm = none;
            switch(&mut swarm);
            (*name, swarm)
        })
        .collect();
    let everything = Swarm { boundary_percent: 60, refinements: true, ..Swarm::everything() };
    swarms.push(("everything", everything));
    swarms.push(("concurrency", everything.with_concurrency()));
    swarms
}

#[track_caller]
fn check_inside<S: ConfigDomain>(subject: &S) {
    for (name, swarm) in swarms() {
        for index in 0..cases() {
            let case = sample_case(subject, mix(0x0D0_4A1E, index), &swarm);
            let outside = case_outside(subject, &case);
            assert!(outside.is_empty(), "{} under {name}, case {index}: {outside:?}\n{case:?}", subject.name());
        }
    }
}

#[test]
fn no_generated_case_lies_outside_the_domain_under_any_swarm_option() {
    check_inside(&Reference);
    check_inside(&ExtremeLimits);
}
