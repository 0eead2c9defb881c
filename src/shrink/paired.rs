//! Paired drops (`drop_paired`): one failing dispatch dropped (or simplified) together with the config
//! change that keeps the rest of the call as it was, for failures that need "the k-th retry" where dropping a
//! dispatch alone moves every later retry:
//! - the call's first dispatch dropped with the backoff advanced by one retry (the new delay `n` is
//!   the old delay `n + 1`), so the retries left sleep the delays they slept before: a growing backoff
//!   that crosses its cap on the third retry crosses it on the second;
//! - the call's last dispatch dropped with the time its retry slept taken out of the limits that count
//!   from the call's start (the deadline, the elapsed-time limit), so the last retry left wakes where
//!   the dropped one woke relative to them: three 50 ms sleeps waking on a 150 ms deadline become two
//!   waking on a 100 ms one;
//! - the call's first dispatch, rate limited, made a transient failure with the backoff's first delay
//!   raised to its retry-after, so the first retry sleeps what it slept: a rate limit that only stood
//!   in for a longer delay becomes the simpler outcome.
//!
//! Each pair is tried only after the plain drop (the same candidate without the config change) lost
//! the failure, and only when the config change exists, so a case without a growing backoff, or
//! without a limit, pays nothing. The config changes go through the domain's own numbers
//! ([`ConfigDomain::with_config_number`]) and are checked on the contract: the backoff pair must
//! change nothing but the delay sequence (and the smallest delay it promises), and only by one retry.

use timelaw_core::{BackoffShape, Case, Contract, Outcome, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// Delays of the advanced backoff compared with the old one's next: enough to tell a shift by one
/// retry from a change that only agrees on the first delays.
const ADVANCE_CHECKED: u32 = 6;

/// `case` with one dispatch of step `step` of call `call` fewer (a repeated step repeats once less);
/// `None` when there is no such step.
pub(super) fn one_dispatch_fewer<C: Clone>(case: &Case<C>, call: usize, step: usize) -> Option<Case<C>> {
    let current = *case.schedule.calls.get(call)?.steps.get(step)?;
    let mut next = case.clone();
    let steps = &mut next.schedule.calls[call].steps;
    if current.count() > 1 {
        steps[step] = current.repeated(current.count() - 1);
    } else {
        steps.remove(step);
    }
    Some(next)
}

/// `config` with its backoff advanced by one retry: one number (the one carrying the first delay) set
/// to the second delay, so the new delay `n` is the old delay `n + 1` and nothing else of the contract
/// changes but the smallest delay it promises; `None` for a backoff that does not grow (a drop alone
/// keeps its delays), one without a jitter-free sequence, or a domain that cannot write it.
pub(super) fn advanced_config<S: ConfigDomain + ?Sized>(subject: &S, config: &S::Config) -> Option<S::Config> {
    let shape = subject.contract(config).delays.backoff?;
    let (first, second) = (shape.nth(1)?, shape.nth(2)?);
    if second <= first {
        return None;
    }
    first_delay_set(subject, config, second, |advanced| {
        (1..=ADVANCE_CHECKED).all(|n| advanced.nth(n) == shape.nth(n + 1))
    })
}

/// `config` with the number that carries the backoff's first delay set to `value`, when the new
/// backoff passes `accept` and nothing else of the contract changes but the delay sequence and the
/// smallest delay it promises; `None` when no number does that.
pub(super) fn first_delay_set<S: ConfigDomain + ?Sized>(
    subject: &S,
    config: &S::Config,
    value: VDuration,
    accept: impl Fn(BackoffShape) -> bool,
) -> Option<S::Config> {
    let old = subject.contract(config);
    let first = old.delays.backoff?.nth(1)?;
    let numbers = subject.config_numbers(config);
    for (index, _) in numbers.iter().enumerate().filter(|(_, number)| number.value == first.as_nanos()) {
        let Some(next) = subject.with_config_number(config, index, value.as_nanos()) else { continue };
        let new = subject.contract(&next);
        let Some(backoff) = new.delays.backoff else { continue };
        let delays = timelaw_core::DelayContract { backoff: Some(backoff), min: new.delays.min, ..old.delays };
        if new == (Contract { delays, ..old }) && accept(backoff) {
            return Some(next);
        }
    }
    None
}

/// `case` with the first dispatch of call `call`, rate limited, made a transient failure and the
/// backoff's first delay raised to its retry-after (the first retry sleeps what it slept when the
/// retry-after was honoured); `None` when that dispatch is not a lone rate limit, its retry-after is
/// not longer than the first delay, or no number carries the first delay.
pub(super) fn rate_limit_as_delay<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Option<Case<S::Config>> {
    let step = *case.schedule.calls.get(call)?.steps.first()?;
    let Outcome::RateLimited { retry_after } = step.outcome else { return None };
    let first = subject.contract(&case.config).delays.backoff?.nth(1)?;
    if step.count() != 1 || retry_after <= first {
        return None;
    }
    let mut next = case.clone();
    next.config = first_delay_set(subject, &case.config, retry_after, |raised| raised.nth(1) == Some(retry_after))?;
    next.schedule.calls[call].steps[0].outcome = Outcome::Transient;
    Some(next)
}

/// `case` with the first dispatch of call `call` dropped and the backoff advanced by one retry.
pub(super) fn advanced<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Option<Case<S::Config>> {
    let mut next = one_dispatch_fewer(case, call, 0)?;
    next.config = advanced_config(subject, &case.config)?;
    Some(next)
}

/// The delay the `retry`-th retry (from 1) sleeps by the contract: the jitter-free delay under the
/// cap; `None` with jitter or without a jitter-free sequence.
pub(super) fn promised_delay(contract: &Contract, retry: u32) -> Option<VDuration> {
    if !matches!(contract.delays.jitter, None | Some(timelaw_core::JitterBounds::None)) {
        return None;
    }
    let delay = contract.delays.backoff?.nth(retry)?;
    Some(contract.delays.max.map_or(delay, |cap| delay.min(cap)))
}

/// `case` with the last dispatch of call `call` dropped and the delay its retry slept (the retry after
/// the call's last scripted dispatch) taken out of the limits counting from the call's start.
pub(super) fn slept_out<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Option<Case<S::Config>> {
    let script = case.schedule.calls.get(call)?;
    let last = script.steps.len().checked_sub(1)?;
    let retry = u32::try_from(script.dispatches_scripted()).ok()?;
    let slept = promised_delay(&subject.contract(&case.config), retry)?;
    let mut next = one_dispatch_fewer(case, call, last)?;
    next.config = super::shift::limits_lowered(subject, &case.config, slept)?;
    Some(next)
}

/// A paired drop: the plain drop and the drop with its config change.
pub(super) struct Pair<C> {
    /// What the pair does, in words.
    pub(super) name: String,
    /// The same dispatch dropped alone (tried first).
    pub(super) plain: Case<C>,
    /// The dispatch dropped with the config change.
    pub(super) paired: Case<C>,
}

/// The paired drops of call `call` of `case` (see the module docs and [`super::absorb`]): at most six.
pub(super) fn paired_drops<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Vec<Pair<S::Config>> {
    let mut out = Vec::new();
    if let (Some(plain), Some(paired)) = (one_dispatch_fewer(case, call, 0), advanced(subject, case, call)) {
        // Under a jitter the advanced case fails only at its seed's draws: also tried without the jitter,
        // the first delay at its lowest draw and the second kept.
        let unjittered = super::unjitter::unjittered_second_kept(subject, &paired);
        let name = format!("call {call}: first dispatch dropped, backoff advanced one retry");
        out.push(Pair { name, plain: plain.clone(), paired });
        if let Some(paired) = unjittered {
            let name = format!(
                "call {call}: first dispatch dropped, backoff advanced one retry, jitter removed with the \
                 first delay at its lowest draw and the second kept"
            );
            out.push(Pair { name, plain, paired });
        }
    }
    if let Some(paired) = rate_limit_as_delay(subject, case, call) {
        let mut plain = case.clone();
        plain.schedule.calls[call].steps[0].outcome = Outcome::Transient;
        let name = format!(
            "call {call}: first dispatch's rate limit made a transient failure, its retry-after the first delay"
        );
        out.push(Pair { name, plain, paired });
    }
    let last = case.schedule.calls.get(call).map_or(0, |script| script.steps.len().saturating_sub(1));
    if let (Some(plain), Some(paired)) = (one_dispatch_fewer(case, call, last), slept_out(subject, case, call)) {
        let name = format!("call {call}: last dispatch dropped, its retry's delay taken out of the limits");
        out.push(Pair { name, plain, paired });
    }
    if let (Some(plain), Some(paired)) =
        (one_dispatch_fewer(case, call, last), super::absorb::last_attempt_absorbed(subject, case, call))
    {
        let name = format!("call {call}: last attempt dropped, attempts one fewer, its time in the attempt before");
        out.push(Pair { name, plain, paired });
    }
    if let (Some(plain), Some(paired)) =
        (one_dispatch_fewer(case, call, 0), super::absorb::first_attempt_absorbed(subject, case, call))
    {
        let name = format!("call {call}: first attempt dropped, attempts one fewer, its time in the attempt after");
        out.push(Pair { name, plain, paired });
    }
    out
}

/// `drop_paired`: each call's paired drops, each pair tried when its plain drop loses the failure.
pub(super) fn drop_paired<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut call = 0;
    while call < shrinker.best.schedule.calls.len() && !shrinker.out_of_budget() {
        let mut kept = false;
        for pair in paired_drops(shrinker.subject, &shrinker.best, call) {
            if shrinker.attempt(pair.plain) || shrinker.attempt(pair.paired) {
                kept = true;
                break;
            }
        }
        progress |= kept;
        if !kept {
            call += 1;
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use timelaw_core::reference::{Backoff, Policy, Reference};
    use timelaw_core::{Outcome, Schedule, Step};

    use super::*;

    const NS: VDuration = VDuration::from_nanos(1);

    fn policy(backoff: Backoff, cap_ns: u64) -> Policy {
        Policy::new(4, backoff, VDuration::from_nanos(cap_ns))
    }

    fn linear(initial_ns: u64, step_ns: u64) -> Backoff {
        Backoff::Linear { initial: VDuration::from_nanos(initial_ns), step: VDuration::from_nanos(step_ns) }
    }

    fn exponential(initial_ns: u64, factor: u32) -> Backoff {
        Backoff::Exponential { initial: VDuration::from_nanos(initial_ns), factor }
    }

    #[track_caller]
    fn check_advanced(from: Policy, expect: Option<Policy>) {
        assert_eq!(advanced_config(&Reference, &from), expect);
    }

    #[test]
    fn a_growing_backoff_advances_by_one_retry() {
        check_advanced(policy(linear(0, 1), 1), Some(policy(linear(1, 1), 1)));
        check_advanced(policy(exponential(1, 2), 3), Some(policy(exponential(2, 2), 3)));
        check_advanced(policy(linear(5, 2), 9), Some(policy(linear(7, 2), 9)));
        // The advanced first delay would pass the cap: outside the domain, so no pair.
        check_advanced(policy(exponential(1, 2), 1), None);
        // A delay that does not grow: a drop alone keeps the delays.
        check_advanced(policy(Backoff::Constant { delay: NS }, 1), None);
        check_advanced(policy(linear(3, 0), 3), None);
    }

    fn deadline_case(deadline_ns: Option<u64>, delay_ns: u64, failures: u32) -> Case<Policy> {
        let delay = VDuration::from_nanos(delay_ns);
        let policy = Policy {
            deadline: deadline_ns.map(VDuration::from_nanos),
            ..Policy::new(4, Backoff::Constant { delay }, delay)
        };
        Case::new(policy, Schedule::single(vec![Step::instant(Outcome::Transient).repeated(failures)]), 0)
    }

    #[track_caller]
    fn check_slept_out(from: Case<Policy>, expect: Option<Case<Policy>>) {
        assert_eq!(slept_out(&Reference, &from, 0), expect);
    }

    fn limited(retry_after_ns: u64, backoff: Backoff, cap_ns: u64) -> Case<Policy> {
        let outcome = Outcome::RateLimited { retry_after: VDuration::from_nanos(retry_after_ns) };
        let policy = Policy { honor_retry_after: true, ..policy(backoff, cap_ns) };
        Case::new(policy, Schedule::single(vec![Step::instant(outcome)]), 0)
    }

    #[track_caller]
    fn check_as_delay(from: Case<Policy>, expect: Option<(Backoff, Outcome)>) {
        let found = rate_limit_as_delay(&Reference, &from, 0);
        let found = found.map(|case| (case.config.backoff, case.schedule.calls[0].steps[0].outcome));
        assert_eq!(found, expect);
    }

    #[test]
    fn a_rate_limit_hands_its_retry_after_to_the_first_delay() {
        let constant = |ns| Backoff::Constant { delay: VDuration::from_nanos(ns) };
        check_as_delay(limited(1, constant(0), 1), Some((constant(1), Outcome::Transient)));
        check_as_delay(limited(3, linear(1, 2), 5), Some((linear(3, 2), Outcome::Transient)));
        // Not longer than the first delay: the plain simplification keeps the sleep.
        check_as_delay(limited(1, constant(1), 1), None);
        // Past the cap: no valid config holds that first delay.
        check_as_delay(limited(2, constant(0), 1), None);
    }

    #[test]
    fn a_dropped_retry_gives_its_sleep_back_to_the_limits() {
        check_slept_out(deadline_case(Some(150), 50, 3), Some(deadline_case(Some(100), 50, 2)));
        check_slept_out(
            deadline_case(Some(60), 50, 1),
            Some(deadline_case(Some(10), 50, 0)).map(|mut case| {
                case.schedule.calls[0].steps.clear();
                case
            }),
        );
        check_slept_out(deadline_case(Some(40), 50, 2), None);
        check_slept_out(deadline_case(None, 50, 2), None);
    }
}
