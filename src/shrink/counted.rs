//! The shrink pass `drop_counted_calls`: a call dropped together with a config number that may count
//! calls lowered by one. A limit on calls (a half-open probe limit, a breaker's window, a bulkhead's
//! slots) is often what makes one call more than needed: with two probes allowed the bug needs a third
//! caller, and dropping one caller alone, or lowering the limit alone, loses the failure, while both
//! together keep it. Item 1 of [`super::order`] (fewer calls) beats any config, so the pair is smaller.
//!
//! Only numbers that could count the case's calls are lowered (above their minimum and smaller than the
//! number of calls: a limit the calls exceed). The pass runs after the config's numbers were lowered
//! one at a time (each is then the smallest that fails alone, and fewer are above their minimum), and
//! costs at most [`PAIRS_MAX`] candidates a round.

use timelaw_core::Case;
use timelaw_generators::{ConfigDomain, ConfigNumber};

use super::engine::Shrinker;

/// Candidates the pass tries at most in one round.
pub(super) const PAIRS_MAX: usize = 16;

/// The indices of the numbers that could count `calls` calls: above their minimum and below `calls` (a
/// limit the calls exceed).
pub(super) fn counting(numbers: &[ConfigNumber], calls: usize) -> Vec<usize> {
    let calls = calls as u64;
    numbers.iter().enumerate().filter(|(_, n)| n.value > n.min && n.value < calls).map(|(index, _)| index).collect()
}

/// Every case with one call dropped and one number that could count calls lowered by one, first call
/// first (then numbers in the domain's order), at most [`PAIRS_MAX`]; empty for a case of one call.
pub(super) fn dropped_with_counts<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
) -> Vec<Case<S::Config>> {
    let calls = case.schedule.calls.len();
    if calls < 2 {
        return Vec::new();
    }
    let numbers = subject.config_numbers(&case.config);
    let counting = counting(&numbers, calls);
    let mut out = Vec::new();
    for call in 0..calls {
        for &index in &counting {
            let Some(config) = subject.with_config_number(&case.config, index, numbers[index].value - 1) else {
                continue;
            };
            let mut next = Case { config, ..case.clone() };
            next.schedule.calls.remove(call);
            out.push(next);
            if out.len() == PAIRS_MAX {
                return out;
            }
        }
    }
    out
}

/// `drop_counted_calls`: the first case of [`dropped_with_counts`] that keeps the failure, again from
/// it until none does.
pub(super) fn drop_counted_calls<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    shrinker.keep_first_repeatedly(|s| dropped_with_counts(s.subject, &s.best))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(value: u64, min: u64) -> ConfigNumber {
        ConfigNumber { name: "n", value, min }
    }

    #[test]
    fn only_numbers_that_could_count_the_calls_are_lowered() {
        let numbers = [number(2, 1), number(1, 1), number(3, 0), number(4, 0), number(1_000, 0), number(0, 0)];
        assert_eq!(counting(&numbers, 3), [0]);
        assert_eq!(counting(&numbers, 4), [0, 2]);
        assert_eq!(counting(&numbers, 5), [0, 2, 3]);
        assert_eq!(counting(&numbers, 1), Vec::<usize>::new());
    }
}
