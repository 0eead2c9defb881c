//! The shrink pass `drop_counted_shares`: a call dropped together with a config number that may count
//! calls lowered by one and every share of it (a percent) raised so that the same number of calls
//! still reaches it. A breaker that opens when 50% of a window of two results failed opens on one
//! failure; with a window of one it needs 100% for one failure, so dropping a call and lowering the
//! window alone (`drop_counted_calls`) moves the threshold, where raising the share with it keeps it.
//! Item 1 of [`super::order`] (fewer calls) beats any config, so the candidate is smaller.
//!
//! A number is a share when its name says so (it ends with `percent`). The pass runs after
//! `drop_counted_calls` (the same drops without the shares raised were refused there), only on a case
//! with a share above zero, and costs at most [`SHARES_MAX`] candidates a round.

use timelaw_core::Case;
use timelaw_generators::{ConfigDomain, ConfigNumber};

use super::engine::Shrinker;

/// Candidates the pass tries at most in one round.
pub(super) const SHARES_MAX: usize = 8;

/// Whether `number` is a share of a count, in percent (its name says so).
fn is_share(number: &ConfigNumber) -> bool {
    number.name.ends_with("percent")
}

/// The share `percent` of `count` items raised so that the same number of items reaches it among
/// `count - 1`: `ceil(percent * count / (count - 1))`, at most 100 when it was at most 100 (all of
/// them); `None` for a count below 2.
pub(super) fn share_raised(percent: u64, count: u64) -> Option<u64> {
    let fewer = count.checked_sub(1).filter(|&fewer| fewer > 0)?;
    let raised = percent.checked_mul(count)?.div_ceil(fewer);
    Some(if percent <= 100 { raised.min(100) } else { raised })
}

/// `config` with number `index` (a count) lowered by one and every share above zero raised to match
/// ([`share_raised`]); `None` when no share moves or the domain cannot write the config.
fn count_lowered_shares_raised<S: ConfigDomain + ?Sized>(
    subject: &S,
    config: &S::Config,
    numbers: &[ConfigNumber],
    index: usize,
) -> Option<S::Config> {
    let count = numbers.get(index)?.value;
    let mut next = subject.with_config_number(config, index, count - 1)?;
    let mut moved = false;
    for (share, number) in numbers.iter().enumerate().filter(|(_, number)| is_share(number) && number.value > 0) {
        let raised = share_raised(number.value, count)?;
        if raised != number.value {
            next = subject.with_config_number(&next, share, raised)?;
            moved = true;
        }
    }
    moved.then_some(next)
}

/// Every case with one call dropped, one number that could count calls lowered by one and the shares
/// raised with it, first call first (then counts in the domain's order), at most [`SHARES_MAX`]; empty
/// for a case of one call or without a share above zero.
pub(super) fn dropped_with_shares<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
) -> Vec<Case<S::Config>> {
    let calls = case.schedule.calls.len();
    let numbers = subject.config_numbers(&case.config);
    if calls < 2 || !numbers.iter().any(|number| is_share(number) && number.value > 0) {
        return Vec::new();
    }
    let configs: Vec<S::Config> = super::counted::counting(&numbers, calls)
        .into_iter()
        .filter(|&index| !is_share(&numbers[index]))
        .filter_map(|index| count_lowered_shares_raised(subject, &case.config, &numbers, index))
        .collect();
    let mut out = Vec::new();
    for call in 0..calls {
        for config in &configs {
            let mut next = Case { config: config.clone(), ..case.clone() };
            next.schedule.calls.remove(call);
            out.push(next);
            if out.len() == SHARES_MAX {
                return out;
            }
        }
    }
    out
}

/// `drop_counted_shares`: the first case of [`dropped_with_shares`] that keeps the failure, again from
/// it until none does.
pub(super) fn drop_counted_shares<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    shrinker.keep_first_repeatedly(|s| dropped_with_shares(s.subject, &s.best))
}

#[cfg(test)]
mod tests {
    use timelaw_core::reference::{Backoff, Policy, Reference};
    use timelaw_core::{CallScript, CircuitContract, Outcome, Schedule, Step, VDuration};

    use super::*;

    #[track_caller]
    fn check_share(percent: u64, count: u64, expect: Option<u64>) {
        assert_eq!(share_raised(percent, count), expect);
    }

    #[test]
    fn a_share_is_raised_to_keep_the_same_number_of_items() {
        check_share(50, 2, Some(100));
        check_share(34, 3, Some(51));
        check_share(67, 3, Some(100));
        check_share(1, 2, Some(2));
        check_share(100, 4, Some(100));
        check_share(200, 2, Some(400));
        check_share(50, 1, None);
        check_share(50, 0, None);
    }

    fn case(window: u32, min_calls: u32, failure_percent: u32, calls: usize) -> Case<Policy> {
        let circuit = CircuitContract {
            window,
            min_calls,
            failure_percent,
            open_for: VDuration::from_nanos(1),
            half_open_probes: 1,
            ..CircuitContract::DEFAULT
        };
        let policy = Policy {
            circuit: Some(circuit),
            ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
        };
        let mut scripts = vec![CallScript::new(vec![]); calls];
        scripts[calls / 2] = CallScript::new(vec![Step::instant(Outcome::Transient)]);
        Case::new(policy, Schedule::new(scripts), 0)
    }

    #[track_caller]
    fn check(from: Case<Policy>, expect: &[(u32, u32, u32)]) {
        let got: Vec<(u32, u32, u32)> = dropped_with_shares(&Reference, &from)
            .iter()
            .map(|candidate| {
                let circuit = candidate.config.circuit.unwrap_or(CircuitContract::DEFAULT);
                assert_eq!(candidate.schedule.calls.len() + 1, from.schedule.calls.len());
                (circuit.window, circuit.min_calls, circuit.failure_percent)
            })
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn a_call_drops_with_its_count_lowered_and_the_share_raised() {
        check(case(2, 1, 50, 3), &[(1, 1, 100); 3]);
        check(case(2, 2, 50, 3), &[(2, 1, 100); 3]);
        check(case(3, 1, 34, 4), &[(2, 1, 51); 4]);
        check(case(2, 1, 100, 3), &[]);
        check(case(1, 1, 50, 3), &[]);
        check(case(2, 1, 50, 1), &[]);
        check(case(5, 1, 50, 3), &[]);
    }
}
