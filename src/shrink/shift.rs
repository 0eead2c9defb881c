//! A coupled move over time: a step's duration taken out of the limits that count from the call's
//! start (the deadline, the elapsed-time limit). A failure that needs "the retry wakes exactly on the
//! deadline" after a slow attempt survives when the attempt takes no time and the deadline comes that
//! much sooner, where lowering either alone loses it.

use timelaw_core::{Case, VDuration};
use timelaw_generators::ConfigDomain;

/// `case` with step `step` of call `call` taking no time and every config number that carries a limit
/// counting from the call's start lowered by the step's duration; `None` when the step takes no time,
/// no limit is at least that long, or the domain cannot write the lowered config.
pub(super) fn time_taken_out<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
    step: usize,
) -> Option<Case<S::Config>> {
    let took = case.schedule.calls.get(call)?.steps.get(step)?.duration;
    if took.is_zero() {
        return None;
    }
    let mut next = case.clone();
    next.config = limits_lowered(subject, &case.config, took)?;
    next.schedule.calls[call].steps[step].duration = VDuration::ZERO;
    Some(next)
}

/// `config` with every config number that carries a limit counting from the call's start (the
/// deadline, the elapsed-time limit) lowered by `took`; `None` when no limit is at least that long or
/// the domain cannot write the lowered config. A zero `took` lowers nothing (`None`).
pub(super) fn limits_lowered<S: ConfigDomain + ?Sized>(
    subject: &S,
    config: &S::Config,
    took: VDuration,
) -> Option<S::Config> {
    if took.is_zero() {
        return None;
    }
    let limits_of = |config: &S::Config| {
        let contract = subject.contract(config);
        [contract.timing.deadline, contract.timing.retry_elapsed_max]
    };
    let before = limits_of(config);
    let values: Vec<u64> =
        before.into_iter().flatten().filter(|limit| *limit >= took).map(VDuration::as_nanos).collect();
    let mut lowered_config = config.clone();
    let mut moved = false;
    for (index, number) in subject.config_numbers(config).into_iter().enumerate() {
        if !values.contains(&number.value) {
            continue;
        }
        // Only a number that carries a limit (writing it moves the limit), not one equal by chance.
        let Some(lowered) = subject.with_config_number(&lowered_config, index, number.value - took.as_nanos()) else {
            continue;
        };
        if limits_of(&lowered) != limits_of(&lowered_config) {
            lowered_config = lowered;
            moved = true;
        }
    }
    moved.then_some(lowered_config)
}

#[cfg(test)]
mod tests {
    use timelaw_core::reference::{Backoff, Policy, Reference};
    use timelaw_core::{Outcome, Schedule, Step};

    use super::*;

    fn case(deadline_ns: Option<u64>, elapsed_ns: Option<u64>, step_ns: u64) -> Case<Policy> {
        let policy = Policy {
            deadline: deadline_ns.map(VDuration::from_nanos),
            retry_elapsed_max: elapsed_ns.map(VDuration::from_nanos),
            ..Policy::new(2, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
        };
        let step = Step::new(VDuration::from_nanos(step_ns), Outcome::Transient);
        Case::new(policy, Schedule::single(vec![step]), 0)
    }

    #[track_caller]
    fn check(from: Case<Policy>, expect: Option<Case<Policy>>) {
        assert_eq!(time_taken_out(&Reference, &from, 0, 0), expect);
    }

    #[test]
    fn a_step_gives_its_time_back_to_the_limits_counting_from_the_call_start() {
        check(case(Some(5), None, 2), Some(case(Some(3), None, 0)));
        check(case(Some(5), Some(7), 2), Some(case(Some(3), Some(5), 0)));
        check(case(Some(2), None, 2), Some(case(Some(0), None, 0)));
        check(case(Some(1), None, 2), None);
        check(case(None, None, 2), None);
        check(case(Some(5), None, 0), None);
    }
}
