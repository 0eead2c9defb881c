//! `step_to_gap`: a step's time moved out of it, to where it only let time pass:
//! - a call's last step dropped with its time moved into the gap before the next call, so the next
//!   call starts when it did. A step that only let time pass between two calls (a success that took a
//!   while, then a call that needs the time gone by) is a gap: dropping the step alone, or making it
//!   instant, loses the time, and the gap form has one dispatch fewer (item 4 of [`super::order`]).
//!   Sequential cases only: a call with an arrival has no gap;
//! - a call's first step, an attempt its timeout cut, made an instant transient failure with its time
//!   (the timeout) moved into the backoff's first delay, so the first retry starts when it did: an
//!   attempt that only let time pass before the retry (ranking as a hang, the outcome nobody saw)
//!   becomes the simplest retried failure (item 5), for a first delay one number of the config carries
//!   (a larger config for a simpler shape).
//!
//! `lower_gap_with_number`: a call's gap and one number of the config lowered by one amount (as much
//! as either allows), so what the call meets when it arrives (an open period, a window, a deadline
//! counted from an earlier call) stays as it was: a gap that only waited for a boundary to pass comes
//! down with the boundary, where either alone loses the failure.

use timelaw_core::{Case, Contract, Outcome, Step, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::paired::{first_delay_set, one_dispatch_fewer, promised_delay};

/// `case` with one dispatch of call `call`'s last step dropped and its duration added to the next
/// call's gap; `None` for the last call, a call without steps, an instant last step, or a case whose
/// calls have arrivals.
pub(super) fn into_gap<C: Clone>(case: &Case<C>, call: usize) -> Option<Case<C>> {
    let calls = &case.schedule.calls;
    if calls.iter().any(|script| script.arrival.is_some()) {
        return None;
    }
    calls.get(call + 1)?;
    let last = calls.get(call)?.steps.len().checked_sub(1)?;
    let duration = calls[call].steps[last].duration;
    if duration.is_zero() {
        return None;
    }
    let mut next = one_dispatch_fewer(case, call, last)?;
    let following = &mut next.schedule.calls[call + 1];
    following.gap_before = following.gap_before.saturating_add(duration);
    Some(next)
}

/// `case` with call `call`'s first step, an attempt its timeout cut, an instant transient failure (one
/// dispatch of it, when repeated) and the backoff's first delay longer by the timeout (the time it ran);
/// `None` for a call without steps, a first step no timeout cuts (or a timeout of zero), a backoff with jitter or without a jitter-free first delay, or a domain where no
/// number carries the first delay alone.
pub(super) fn into_delay<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Option<Case<S::Config>> {
    let step = *case.schedule.calls.get(call)?.steps.first()?;
    let contract = subject.contract(&case.config);
    // Only an attempt its timeout cut (the caller saw it end at the timeout, never its outcome): how
    // long it ran is the timeout.
    let timeout = contract.timing.attempt_timeout?;
    let cut = step.outcome == Outcome::Hang || step.duration >= timeout;
    if !cut || timeout.is_zero() {
        return None;
    }
    let ran = timeout;
    let first = promised_delay(&contract, 1)?;
    let longer = first.checked_add(ran)?;
    let config = first_delay_set(subject, &case.config, longer, |raised| raised.nth(1) == Some(longer))
        .or_else(|| delays_raised_together(subject, &case.config, first, longer))?;
    let mut next = one_dispatch_fewer(case, call, 0)?;
    next.config = config;
    next.schedule.calls[call].steps.insert(0, Step::instant(Outcome::Transient));
    Some(next)
}

/// `config` with every number equal to the first delay `first` (the initial delay and a cap equal to
/// it, say) set to `longer` together, when that changes nothing of the contract but its delays and
/// makes the first delay `longer`; `None` otherwise.
fn delays_raised_together<S: ConfigDomain + ?Sized>(
    subject: &S,
    config: &S::Config,
    first: VDuration,
    longer: VDuration,
) -> Option<S::Config> {
    let old = subject.contract(config);
    let numbers = subject.config_numbers(config);
    let tied: Vec<usize> =
        numbers.iter().enumerate().filter(|(_, number)| number.value == first.as_nanos()).map(|(i, _)| i).collect();
    // Each number is set on its own and must leave a valid config: a cap raised before the delay it
    // caps, or after it, whichever the domain accepts.
    let raise = |order: Vec<usize>| {
        order
            .into_iter()
            .try_fold(config.clone(), |config, index| subject.with_config_number(&config, index, longer.as_nanos()))
    };
    let raised = raise(tied.clone()).or_else(|| raise(tied.into_iter().rev().collect()))?;
    let new = subject.contract(&raised);
    let only_delays = new == Contract { delays: new.delays, ..old };
    (only_delays && promised_delay(&new, 1) == Some(longer)).then_some(raised)
}

/// The pass: each call's last step into the next call's gap, then each call's first step's time into
/// the first delay, from the first call; whether it kept one.
pub(super) fn step_to_gap<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut call = 0;
    while call + 1 < shrinker.best.schedule.calls.len() && !shrinker.out_of_budget() {
        let kept = into_gap(&shrinker.best, call).is_some_and(|candidate| shrinker.attempt(candidate));
        if kept {
            progress = true;
        } else {
            call += 1;
        }
    }
    for call in 0..shrinker.best.schedule.calls.len() {
        if shrinker.out_of_budget() {
            break;
        }
        if let Some(candidate) = into_delay(shrinker.subject, &shrinker.best, call) {
            progress |= shrinker.attempt(candidate);
        }
    }
    progress
}

/// `case` with call `call`'s gap and config number `index` both lowered by as much as the smaller of
/// the gap and the number's room above its minimum; `None` when either has none or the domain cannot
/// write the number.
pub(super) fn gap_lowered_with<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
    index: usize,
) -> Option<Case<S::Config>> {
    let gap = case.schedule.calls.get(call)?.gap_before.as_nanos();
    let number = *subject.config_numbers(&case.config).get(index)?;
    let by = gap.min(number.value.saturating_sub(number.min));
    if by == 0 {
        return None;
    }
    let mut next = case.clone();
    next.config = subject.with_config_number(&case.config, index, number.value - by)?;
    next.schedule.calls[call].gap_before = VDuration::from_nanos(gap - by);
    Some(next)
}

/// The pass `lower_gap_with_number` (see the module docs): whether it kept a candidate.
pub(super) fn lower_gap_with_number<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        for index in 0..shrinker.numbers(&shrinker.best.config).len() {
            if shrinker.out_of_budget() {
                return progress;
            }
            if shrinker.numbers_are_answers(&shrinker.best.config) {
                return progress; // Answers are no durations a gap could follow.
            }
            if let Some(candidate) = gap_lowered_with(shrinker.subject, &shrinker.best, call, index) {
                progress |= shrinker.attempt(candidate);
            }
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, Outcome, Schedule, Step, VDuration};

    use super::*;

    fn ns(nanos: u64) -> VDuration {
        VDuration::from_nanos(nanos)
    }

    #[test]
    fn the_last_step_becomes_the_next_calls_gap() {
        let first = CallScript::new(vec![Step::instant(Outcome::Transient), Step::new(ns(5), Outcome::Ok)]);
        let second = CallScript { gap_before: ns(2), ..CallScript::new(vec![]) };
        let case = Case::new((), Schedule::new(vec![first, second]), 0);
        let moved = into_gap(&case, 0).expect("a timed last step and a next call");
        assert_eq!(moved.schedule.calls[0].steps, vec![Step::instant(Outcome::Transient)]);
        assert_eq!(moved.schedule.calls[1].gap_before, ns(7));
        assert_eq!(into_gap(&case, 1), None, "the last call has no next call");
        assert_eq!(into_gap(&moved, 0), None, "an instant last step has no time to move");
        let mut repeated = case.clone();
        repeated.schedule.calls[0].steps[1] = Step::new(ns(5), Outcome::Ok).repeated(3);
        let moved = into_gap(&repeated, 0).unwrap();
        assert_eq!(moved.schedule.calls[0].steps[1], Step::new(ns(5), Outcome::Ok).repeated(2));
        let mut arriving = case;
        for script in &mut arriving.schedule.calls {
            script.gap_before = VDuration::ZERO;
            script.arrival = Some(VDuration::ZERO);
        }
        assert_eq!(into_gap(&arriving, 0), None, "a call with an arrival has no gap");
    }
}
