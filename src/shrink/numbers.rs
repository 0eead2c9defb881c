//! The shrink pass over the config's numbers (`shrink_numbers`): each number the domain lists
//! ([`ConfigDomain::config_numbers`]: counts, percentages, durations in nanoseconds) is tried at its
//! minimum, then one lower (when that loses the failure the number stays: a binary search assumes no
//! smaller value fails either), then by binary search to the smallest value that still fails, so a
//! duration reaches its exact boundary, to the nanosecond. Numbers of equal value (a deadline equal to
//! a delay and its cap) are then lowered together the same way, the coupled move for values that
//! must fall together. A
//! value that loses the failure alone is tried again with the schedule's durations on the moved
//! contract boundaries moved along (`adapt`), as for a simpler config.

use timelaw_generators::{ConfigDomain, ConfigNumber};

use super::adapt::adapt;
use super::engine::Shrinker;

/// Lowers every number of the best config in turn, then each group of numbers that are equal (a
/// deadline drawn equal to a delay, a cap equal to the initial delay) together; whether any was kept.
pub(super) fn shrink_numbers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let count = shrinker.subject.config_numbers(&shrinker.best.config).len();
    for index in 0..count {
        progress |= lower_numbers(shrinker, &[index]);
        if shrinker.out_of_budget() {
            return progress;
        }
    }
    for group in tied_groups(&shrinker.subject.config_numbers(&shrinker.best.config)) {
        progress |= lower_numbers(shrinker, &group);
        if shrinker.out_of_budget() {
            break;
        }
    }
    progress
}

/// The indices of numbers that share one value above each one's minimum, in groups of two or more
/// (in the order of their first number).
pub(super) fn tied_groups(numbers: &[ConfigNumber]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (index, number) in numbers.iter().enumerate().filter(|(_, number)| number.value > number.min) {
        match groups.iter_mut().find(|group| numbers[group[0]].value == number.value) {
            Some(group) => group.push(index),
            None => groups.push(vec![index]),
        }
    }
    groups.retain(|group| group.len() > 1);
    groups
}

/// Lowers the numbers `indices` (equal values) together: to the largest minimum among them, then one
/// lower than now (when that loses the failure, so would any smaller value, by the binary search's own
/// assumption, and the search is skipped), then by binary search in between.
fn lower_numbers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, indices: &[usize]) -> bool {
    let numbers = shrinker.subject.config_numbers(&shrinker.best.config);
    let Some(value) = indices.first().and_then(|&index| numbers.get(index)).map(|number| number.value) else {
        return false;
    };
    let min = indices.iter().filter_map(|&index| numbers.get(index)).map(|number| number.min).max().unwrap_or(0);
    if value <= min {
        return false;
    }
    if try_value(shrinker, indices, min) {
        return true;
    }
    if value - 1 == min || !try_value(shrinker, indices, value - 1) {
        return false;
    }
    // Binary search between the minimum (which lost the failure) and the current value (which fails).
    let (mut low, mut high) = (min, value - 1);
    while high - low > 1 && !shrinker.out_of_budget() {
        let middle = low + (high - low) / 2;
        if try_value(shrinker, indices, middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    true
}

/// Tries the best case with the numbers `indices` set to `value`; `false` when that config is not valid.
fn try_value<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, indices: &[usize], value: u64) -> bool {
    let mut config = shrinker.best.config.clone();
    for &index in indices {
        match shrinker.subject.with_config_number(&config, index, value) {
            Some(next) => config = next,
            None => return false,
        }
    }
    let mut candidate = shrinker.best.clone();
    candidate.config = config;
    let old = shrinker.contract();
    let new = shrinker.subject.contract(&candidate.config);
    if shrinker.attempt(candidate.clone()) {
        return true;
    }
    // The coupled move, as for a simpler config: durations on a moved boundary move with it (no number
    // removes a timeout, so no run is needed for the trace).
    let at = shrinker.violated_at();
    match adapt(&candidate, &old, &new, || shrinker.best_trace(), at) {
        Some((adapted, allowance)) => shrinker.attempt_within(adapted, allowance),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(numbers: &[(u64, u64)], expect: &[&[usize]]) {
        let numbers: Vec<ConfigNumber> =
            numbers.iter().map(|&(value, min)| ConfigNumber { name: "n", value, min }).collect();
        assert_eq!(tied_groups(&numbers), expect);
    }

    #[test]
    fn numbers_of_equal_value_above_their_minima_are_tied() {
        check(&[(5, 0), (7, 0), (5, 0)], &[&[0, 2]]);
        check(&[(5, 0), (5, 0), (5, 1), (9, 0), (9, 0)], &[&[0, 1, 2], &[3, 4]]);
        check(&[(1, 1), (1, 1), (1, 0)], &[]);
        check(&[(5, 0), (6, 0)], &[]);
        check(&[], &[]);
    }
}
