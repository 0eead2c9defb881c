//! The shrink pass `join_counted_calls`: two adjacent calls of one dispatch each joined into one call of
//! one dispatch lasting both (the gap between them included) and ending with the less simple of the
//! two outcomes, with the config numbers that could count calls lowered by one (all of them, or all but
//! one). A limit counting
//! results (a breaker's window and its minimum calls) that needs a failure and a later, slower result
//! counts them as one result when both are one call's: a failure taking the time both took. Item 1 of
//! [`super::order`] (fewer calls) beats any config, so the candidate is smaller.
//!
//! The pass runs after `drop_counted_calls` and `drop_counted_shares`, only on a case with a number
//! that could count its calls, and costs at most [`JOINS_MAX`] candidates a round.

use timelaw_core::{Case, Step};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::order::outcome_rank;

/// Candidates the pass tries at most in one round.
pub(super) const JOINS_MAX: usize = 8;

/// The configs with the numbers that could count `calls` calls lowered by one together: all of them,
/// then all but one (each left out in turn, in the domain's order); only those the domain can write.
fn counts_lowered<S: ConfigDomain + ?Sized>(subject: &S, config: &S::Config, calls: usize) -> Vec<S::Config> {
    let numbers = subject.config_numbers(config);
    let counting = super::counted::counting(&numbers, calls);
    let lowered = |left_out: Option<usize>| {
        let mut next = config.clone();
        for &index in counting.iter().filter(|&&index| Some(index) != left_out) {
            next = subject.with_config_number(&next, index, numbers[index].value - 1)?;
        }
        Some(next)
    };
    let all = (!counting.is_empty()).then(|| lowered(None)).flatten();
    let but_one = counting.iter().filter(|_| counting.len() > 1).filter_map(|&index| lowered(Some(index)));
    all.into_iter().chain(but_one).collect()
}

/// Calls `first` and `first + 1` of `case` joined (see the module docs); `None` unless both script one
/// dispatch.
fn joined<C: Clone>(case: &Case<C>, first: usize) -> Option<Case<C>> {
    let calls = &case.schedule.calls;
    let (a, b) = (calls.get(first)?, calls.get(first + 1)?);
    if a.dispatches_scripted() != 1 || b.dispatches_scripted() != 1 {
        return None;
    }
    let (sa, sb) = (a.steps[0], b.steps[0]);
    let took = sa.duration.checked_add(b.gap_before)?.checked_add(sb.duration)?;
    let outcome = if outcome_rank(sb.outcome) > outcome_rank(sa.outcome) { sb.outcome } else { sa.outcome };
    let mut next = case.clone();
    next.schedule.calls[first].steps = vec![Step::new(took, outcome)];
    next.schedule.calls.remove(first + 1);
    Some(next)
}

/// Every case with two adjacent calls joined and the counts lowered ([`counts_lowered`]), first pair
/// first, at most
/// [`JOINS_MAX`]; empty when no number could count the calls.
pub(super) fn joined_with_counts<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
) -> Vec<Case<S::Config>> {
    let calls = case.schedule.calls.len();
    let configs = counts_lowered(subject, &case.config, calls);
    let mut out = Vec::new();
    for next in (0..calls.saturating_sub(1)).filter_map(|first| joined(case, first)) {
        for config in &configs {
            out.push(Case { config: config.clone(), ..next.clone() });
            if out.len() == JOINS_MAX {
                return out;
            }
        }
    }
    out
}

/// `join_counted_calls`: the first case of [`joined_with_counts`] that keeps the failure, again from it
/// until none does.
pub(super) fn join_counted_calls<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    shrinker.keep_first_repeatedly(|s| joined_with_counts(s.subject, &s.best))
}

#[cfg(test)]
mod tests {
    use timelaw_core::reference::{Backoff, Policy, Reference};
    use timelaw_core::{CallScript, CircuitContract, Outcome, Schedule, VDuration};

    use super::*;

    fn ns(nanos: u64) -> VDuration {
        VDuration::from_nanos(nanos)
    }

    fn case(window: u32, min_calls: u32, calls: Vec<CallScript>) -> Case<Policy> {
        let circuit = CircuitContract {
            window,
            min_calls,
            failure_percent: 1,
            open_for: ns(1),
            half_open_probes: 1,
            ..CircuitContract::DEFAULT
        };
        let base = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
        Case::new(Policy { circuit: Some(circuit), ..base }, Schedule::new(calls), 0)
    }

    fn one(took: u64, outcome: Outcome) -> CallScript {
        CallScript::new(vec![Step::new(ns(took), outcome)])
    }

    /// `from` gives `count` candidates, `expect` among them.
    #[track_caller]
    fn check(from: Case<Policy>, count: usize, expect: Option<Case<Policy>>) {
        let got = joined_with_counts(&Reference, &from);
        assert_eq!(got.len(), count, "{got:?}");
        assert!(expect.is_none_or(|expect| got.contains(&expect)), "{got:?}");
    }

    #[test]
    fn two_calls_of_one_dispatch_join_with_the_counts_lowered() {
        let (t, ok, empty) = (Outcome::Transient, Outcome::Ok, CallScript::new(vec![]));
        // Counting numbers: min_calls 2, window 2, open_for 1 ns: all lowered, all but the window,
        // all but open_for (all but min_calls leaves min_calls above the window: invalid).
        let stop = case(2, 2, vec![one(0, t), one(1, ok), empty.clone()]);
        check(stop, 3, Some(case(1, 1, vec![one(1, t), empty.clone()])));
        let mut gap = one(2, ok);
        gap.gap_before = ns(3);
        let joined_gap = case(1, 1, vec![one(6, ok), empty.clone()]);
        check(case(2, 1, vec![one(1, ok), gap, empty.clone()]), 3, Some(joined_gap));
        let twice = CallScript::new(vec![Step::instant(t).repeated(2)]);
        check(case(2, 2, vec![twice, one(1, ok), empty.clone()]), 0, None);
        check(case(2, 2, vec![empty.clone(), one(1, ok), empty]), 0, None);
    }
}
