//! Whether a case belongs to the domain the generators draw from: [`case_outside`] lists what lies
//! outside it, as [`Outside`] values that name the place and say why.
//!
//! # The rules
//! The config belongs to its domain when [`ConfigDomain::config_outside`] finds nothing (for a
//! [`Describe`](crate::Describe)d subject, [`Describe::outside`](crate::Describe::outside); the
//! reference interpreter's policies must pass [`Policy::validate`](timelaw_core::reference::Policy)).
//! The schedule belongs to the domain of [`describe_schedule`](crate::describe_schedule) for the
//! config's contract when:
//! 1. it has at least one call and at most [`CALLS_MAX`];
//! 2. each call has at most [`STEPS_PER_CALL_MAX`] steps (the description starts the first call at once, but a
//!    first call that waits is in the domain: when a case starts matters to subjects whose timers round
//!    to a grid, and hand-written or older cases start later);
//! 3. a step repeats at most [`LONG_RUN_MAX`] times, whatever the contract's `max_attempts` (a limit
//!    cuts a long run, never an input);
//! 4. a step hangs, or takes a duration near the end of time (at least [`cuts_below`]: from an instant
//!    before the World's time limit it would end where the clock saturates, which the World reads as a
//!    hang), only where something can cut the attempt ([`can_cut`]): the contract has an attempt timeout,
//!    or the call a cancellation delay, below [`cuts_below`] (a longer one would fire at the end of time,
//!    where nothing fires);
//! 5. every call has an arrival or none, arrivals never decrease, and a call with an arrival has no
//!    `gap_before` ([`Schedule::arrivals_check`]); any arrival value is in the domain (0, equal ones,
//!    `VDuration::MAX`), and so is any `interleave` list.
//!
//! Rule 4 is the one a correct subject depends on: a hang that nothing can end makes every subject
//! fail `terminates`, so a counterexample outside it would claim a bug the subject does not have.
//! The sampling ranges of plain durations (a gap up to [`GAP_MAX`](crate::GAP_MAX), say) are not
//! rules: a longer duration is a legal input that the World cuts at its time limit.
//!
//! The shrinker never accepts a candidate with more of these than the case it shrinks (so a case
//! inside the domain stays inside), and replaying a fixture whose case lies outside prints a warning.

use std::fmt;

use timelaw_core::{ArrivalError, Case, Contract, Outcome, Schedule, VDuration};

use crate::domain::ConfigDomain;
use crate::schedule::{CALLS_MAX, LONG_RUN_MAX, STEPS_PER_CALL_MAX};

/// One way a case lies outside the domain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outside {
    /// The config is outside its domain; the sentence says why.
    Config(String),
    /// The schedule has no call, or more than [`CALLS_MAX`].
    CallCount {
        /// Its calls.
        calls: usize,
    },
    /// A call has more than [`STEPS_PER_CALL_MAX`] steps.
    StepCount {
        /// The call (from 0).
        call: usize,
        /// Its steps.
        steps: usize,
    },
    /// A step repeats more often than the domain's long runs do.
    Repeat {
        /// The call (from 0).
        call: usize,
        /// The step (from 0).
        step: usize,
        /// Its repeat count.
        count: u32,
        /// The most the domain repeats a step for this contract.
        max: u64,
    },
    /// A step hangs (or takes nearly forever) where nothing can cut the attempt.
    Uncut {
        /// The call (from 0).
        call: usize,
        /// The step (from 0).
        step: usize,
    },
    /// The arrivals break rule 5; the error names the call.
    Arrival(ArrivalError),
}

impl fmt::Display for Outside {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outside::Config(why) => write!(f, "config: {why}"),
            Outside::CallCount { calls } => write!(f, "{calls} calls (the domain has 1 to {CALLS_MAX})"),
            Outside::StepCount { call, steps } => {
                write!(f, "call {call} has {steps} steps (the domain has at most {STEPS_PER_CALL_MAX})")
            }
            Outside::Repeat { call, step, count, max } => {
                write!(f, "call {call} step {step} repeats {count} times (the domain repeats at most {max})")
            }
            Outside::Uncut { call, step } => write!(
                f,
                "call {call} step {step} hangs (or takes nearly forever) but nothing can cut it \
                 (no attempt timeout or cancellation that fires before the end of time)"
            ),
            Outside::Arrival(error) => write!(f, "{error}"),
        }
    }
}

/// The longest attempt timeout or cancellation delay that can still cut an attempt: one that fires before
/// the end of time ([`VDuration::MAX`] past the start, where the World's clock saturates) from any
/// instant the World reaches before its default virtual time limit.
pub fn cuts_below() -> VDuration {
    VDuration::MAX.saturating_sub(timelaw_core::Limits::default().virtual_time_max)
}

/// Whether something can cut an attempt of a call cancelled after `cancel_after` under `contract`
/// (rule 4): an attempt timeout or a cancellation delay below [`cuts_below`].
pub fn can_cut(contract: &Contract, cancel_after: Option<VDuration>) -> bool {
    let cuts = |limit: Option<VDuration>| limit.is_some_and(|limit| limit < cuts_below());
    cuts(contract.timing.attempt_timeout) || cuts(cancel_after)
}

/// Everything about `case` that lies outside `subject`'s domain (empty when it belongs).
///
/// ```
/// use timelaw_core::reference::{Backoff, Policy, Reference};
/// use timelaw_core::{Case, Outcome, Schedule, Step, VDuration};
/// use timelaw_generators::membership::{case_outside, Outside};
///
/// let policy = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
/// let hang = Schedule::single(vec![Step::instant(Outcome::Hang)]);
/// let case = Case::new(policy.clone(), hang.clone(), 0);
/// assert_eq!(case_outside(&Reference, &case), vec![Outside::Uncut { call: 0, step: 0 }]);
/// let cut = Policy { attempt_timeout: Some(VDuration::from_millis(5)), ..policy };
/// assert!(case_outside(&Reference, &Case::new(cut, hang, 0)).is_empty());
/// ```
pub fn case_outside<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>) -> Vec<Outside> {
    let mut outside: Vec<Outside> = subject.config_outside(&case.config).into_iter().map(Outside::Config).collect();
    outside.extend(schedule_outside(&case.schedule, &subject.contract(&case.config)));
    outside
}

/// Everything about `schedule` that lies outside the schedule domain for `contract` (see the rules).
pub fn schedule_outside(schedule: &Schedule, contract: &Contract) -> Vec<Outside> {
    let mut outside = Vec::new();
    let calls = schedule.calls.len();
    if calls == 0 || calls as u64 > CALLS_MAX {
        outside.push(Outside::CallCount { calls });
    }
    let repeat_max = LONG_RUN_MAX;
    let near_max = cuts_below();
    for (call, script) in schedule.calls.iter().enumerate() {
        if script.steps.len() as u64 > STEPS_PER_CALL_MAX {
            outside.push(Outside::StepCount { call, steps: script.steps.len() });
        }
        let cut = can_cut(contract, script.cancel_after);
        for (index, step) in script.steps.iter().enumerate() {
            if u64::from(step.count()) > repeat_max {
                outside.push(Outside::Repeat { call, step: index, count: step.count(), max: repeat_max });
            }
            let endless = step.outcome == Outcome::Hang || step.duration >= near_max;
            if endless && !cut {
                outside.push(Outside::Uncut { call, step: index });
            }
        }
    }
    if let Err(error) = schedule.arrivals_check() {
        outside.push(Outside::Arrival(error));
    }
    outside
}

#[cfg(test)]
mod tests {
    use timelaw_core::reference::Reference;
    use timelaw_core::{CallScript, SplitMix64, Step, Subject};

    use super::*;
    use crate::swarm::swarm_for;
    use timelaw_core::{RetryContract, TimingContract};

    #[track_caller]
    fn check(schedule: Schedule, contract: Contract, expect: &[&str]) {
        let found: Vec<String> = schedule_outside(&schedule, &contract).iter().map(ToString::to_string).collect();
        assert_eq!(found, expect, "{schedule:?}");
    }

    fn hang(cancel_after: Option<VDuration>) -> Schedule {
        let mut call = CallScript::new(vec![Step::instant(Outcome::Ok), Step::instant(Outcome::Hang)]);
        call.cancel_after = cancel_after;
        Schedule::new(vec![call])
    }

    #[test]
    fn the_rules_name_what_is_outside() {
        let timeout = Contract {
            timing: TimingContract { attempt_timeout: Some(VDuration::ZERO), ..TimingContract::default() },
            ..Contract::default()
        };
        let three = Contract {
            retry: RetryContract { max_attempts: Some(3), ..RetryContract::default() },
            ..Contract::default()
        };
        let uncut = "call 0 step 1 hangs (or takes nearly forever) but nothing can cut it (no attempt timeout or \
                     cancellation that fires before the end of time)";
        check(hang(None), Contract::default(), &[uncut]);
        check(hang(None), timeout, &[]);
        check(hang(Some(VDuration::ZERO)), Contract::default(), &[]);
        let forever = Schedule::single(vec![Step::new(VDuration::MAX, Outcome::Ok)]);
        check(forever.clone(), timeout, &[]);
        check(forever, Contract::default(), &[&uncut.replace("step 1", "step 0")]);
        // A timeout or a cancellation that would fire past the end of time cuts nothing.
        let endless = Contract {
            timing: TimingContract { attempt_timeout: Some(VDuration::MAX), ..TimingContract::default() },
            ..Contract::default()
        };
        check(hang(None), endless, &[uncut]);
        check(hang(Some(VDuration::MAX)), Contract::default(), &[uncut]);
        check(hang(Some(cuts_below().saturating_sub(VDuration::from_nanos(1)))), Contract::default(), &[]);
        check(Schedule::new(vec![]), Contract::default(), &["0 calls (the domain has 1 to 8)"]);
        let waits = Schedule::new(vec![CallScript { gap_before: VDuration::from_nanos(1), ..CallScript::new(vec![]) }]);
        check(waits, Contract::default(), &[]);
        check(
            Schedule::new(vec![CallScript::new(vec![]); 9]),
            Contract::default(),
            &["9 calls (the domain has 1 to 8)"],
        );
        let long = Schedule::single(vec![Step::instant(Outcome::Ok); 13]);
        check(long, Contract::default(), &["call 0 has 13 steps (the domain has at most 12)"]);
        let at = |ms: u64| CallScript::new(vec![]).arriving(VDuration::from_millis(ms));
        check(Schedule::new(vec![at(0), at(0), at(u64::MAX / 1_000_000)]), Contract::default(), &[]);
        check(
            Schedule::new(vec![at(3), CallScript::new(vec![])]),
            Contract::default(),
            &["call 1 has no arrival while call 0 has one (give every call an arrival or none)"],
        );
        check(
            Schedule::new(vec![at(3), at(2)]),
            Contract::default(),
            &["call 1 arrives at 2ms, before call 0 at 3ms (arrivals never decrease)"],
        );
        let gap = CallScript { gap_before: VDuration::from_nanos(1), ..at(4) };
        check(
            Schedule::new(vec![gap]),
            Contract::default(),
            &["call 0 has an arrival and a gap_before of 1ns (a call with an arrival has no gap)"],
        );
        let repeated = |count| Schedule::single(vec![Step::instant(Outcome::Transient).repeated(count)]);
        check(repeated(4), three, &[]);
        check(repeated(5), three, &[]);
        check(repeated(100_000), three, &[]);
        check(
            repeated(100_001),
            Contract::default(),
            &["call 0 step 0 repeats 100001 times (the domain repeats at most 100000)"],
        );
    }

    /// Every generated case belongs to the domain: the rules and the description agree.
    #[test]
    fn every_sampled_case_is_inside() {
        for index in 0..20_000 {
            let case = crate::sample_case(&Reference, timelaw_core::mix(7, index), &swarm_for(7, index));
            assert_eq!(case_outside(&Reference, &case), vec![], "case {index}: {case:?}");
        }
        let mut rng = SplitMix64::new(3);
        let contract = Reference.contract(&crate::simplest_config(&Reference));
        let schedule = crate::sample_schedule(&mut rng, &crate::Swarm::everything(), &contract);
        assert_eq!(schedule_outside(&schedule, &contract), vec![]);
    }

    #[test]
    fn an_invalid_policy_is_outside() {
        let mut policy = crate::simplest_config(&Reference);
        policy.max_attempts = 0;
        let case = Case::new(policy, Schedule::single(vec![]), 0);
        let found = case_outside(&Reference, &case);
        assert!(matches!(found.as_slice(), [Outside::Config(why)] if why.contains("max_attempts")), "{found:?}");
    }
}
