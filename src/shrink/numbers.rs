//! The shrink pass over the config's numbers (`shrink_numbers`): each number the domain lists
//! ([`ConfigDomain::config_numbers`]: counts, percentages, durations in nanoseconds) is tried at its
//! minimum, then one above its minimum, then one lower than now (when that loses the failure the
//! number stays: a binary search assumes no smaller value fails either), then by binary search to the
//! smallest value that still fails, so a duration reaches its exact boundary, to the nanosecond.
//! Numbers of equal value (a deadline equal to a delay and its cap) are then lowered together the same
//! way, and pairs a little apart (a cap of 11 ns over an initial delay of 10 ns) by one amount, keeping
//! their difference: the coupled moves for values that must fall together. A value that loses the
//! failure alone is tried again with the schedule's durations on the moved contract boundaries moved
//! along (`adapt`), as for a simpler config (first, when that is the simpler of the two).
//!
//! A config whose domain lists no numbers of its own is lowered through the answers it was described
//! from, when the shrinker knows them (`Shrinker::numbers`, see `engine::Drawn`): each answer is a
//! number with minimum `0`, and the config is described again from the lowered answers.

use timelaw_generators::{ConfigDomain, ConfigNumber};

use timelaw_core::Case;

use super::adapt::{adapt, adapted_first};
use super::engine::Shrinker;

/// Lowers every number of the best config in turn, then each group of numbers that are equal (a
/// deadline drawn equal to a delay, a cap equal to the initial delay) together; whether any was kept.
pub(super) fn shrink_numbers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let count = shrinker.numbers(&shrinker.best.config).len();
    for index in 0..count {
        progress |= lower_numbers(shrinker, &[index]);
        if shrinker.out_of_budget() {
            return progress;
        }
    }
    for group in tied_groups(&shrinker.numbers(&shrinker.best.config)) {
        let kept = lower_numbers(shrinker, &group);
        // A tie with a number of a higher minimum (a count of 2 beside durations of 2 ns) holds the
        // group at that minimum: the rest of the group is lowered without it.
        let rest = without_highest_minimum(&shrinker.numbers(&shrinker.best.config), &group);
        progress |= kept || (rest.len() > 1 && lower_numbers(shrinker, &rest));
        if shrinker.out_of_budget() {
            return progress;
        }
    }
    for pair in near_pairs(&shrinker.numbers(&shrinker.best.config)) {
        progress |= lower_pair(shrinker, pair);
        if shrinker.out_of_budget() {
            break;
        }
    }
    progress
}

/// Pairs of unequal numbers, both above their minima, whose difference is smaller than the smaller of
/// them (a cap of 11 ns over an initial delay of 10 ns): values offset by a little, which may have to
/// fall together, keeping their difference.
pub(super) fn near_pairs(numbers: &[ConfigNumber]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (i, a) in numbers.iter().enumerate().filter(|(_, n)| n.value > n.min) {
        for (j, b) in numbers.iter().enumerate().skip(i + 1).filter(|(_, n)| n.value > n.min) {
            if a.value != b.value && a.value.abs_diff(b.value) < a.value.min(b.value) {
                pairs.push((i, j));
            }
        }
    }
    pairs
}

/// Lowers both numbers of `pair` by one amount, keeping their difference: by as much as the nearer to
/// its minimum allows, then by one (when that loses the failure the pair stays), then by binary search.
fn lower_pair<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, (i, j): (usize, usize)) -> bool {
    let numbers = shrinker.numbers(&shrinker.best.config);
    let (Some(a), Some(b)) = (numbers.get(i).copied(), numbers.get(j).copied()) else { return false };
    let slack = (a.value - a.min).min(b.value - b.min);
    let lowered = |shrinker: &mut Shrinker<'_, S>, by: u64| {
        let config = shrinker.with_number(&shrinker.best.config, i, a.value - by);
        let config = config.and_then(|config| shrinker.with_number(&config, j, b.value - by));
        config.is_some_and(|config| coupled_attempt(shrinker, Case { config, ..shrinker.best.clone() }))
    };
    if slack == 0 || lowered(shrinker, slack) {
        return slack > 0;
    }
    if slack == 1 || !lowered(shrinker, 1) {
        return false;
    }
    // The largest amount that keeps the failure, between 1 (kept) and `slack` (lost), from `a` and `b`.
    let (mut low, mut high) = (1, slack);
    while high - low > 1 && !shrinker.out_of_budget() {
        let middle = low + (high - low) / 2;
        let kept = lowered(shrinker, middle);
        if kept {
            low = middle;
        } else {
            high = middle;
        }
    }
    true
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

/// The numbers of `group` but those with the group's highest minimum; empty when every minimum is
/// that one.
pub(super) fn without_highest_minimum(numbers: &[ConfigNumber], group: &[usize]) -> Vec<usize> {
    let minimum = |index: usize| numbers.get(index).map_or(0, |number| number.min);
    let highest = group.iter().map(|&index| minimum(index)).max().unwrap_or(0);
    group.iter().copied().filter(|&index| minimum(index) < highest).collect()
}

/// Lowers the numbers `indices` (equal values) together: to the largest minimum among them, then to
/// one above it, then one lower than now (when that loses the failure, so would any smaller value, by
/// the binary search's own assumption, and the search is skipped), then by binary search in between.
fn lower_numbers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, indices: &[usize]) -> bool {
    let numbers = shrinker.numbers(&shrinker.best.config);
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
    // One above the minimum next: where a boundary sits just above it, no search is needed.
    if value - 1 > min && try_value(shrinker, indices, min + 1) {
        return true;
    }
    if value - 1 <= min + 1 || !try_value(shrinker, indices, value - 1) {
        return false;
    }
    // Binary search between one above the minimum (which lost the failure) and the current value.
    let (mut low, mut high) = (min + 1, value - 1);
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

/// After a simpler config that halved one number was kept (`before` are the numbers of the config it
/// replaced), tries that number at its minimum and one above it at once: where the boundary sits just
/// above the minimum, a walk of halvings one evaluation each is cut short. Where the probe fails, the
/// boundary moves down with the number (the schedule's durations near it follow it down) or sits
/// higher, so along one walk of kept halvings of a number the probe is made after the 1st, 2nd, 4th,
/// 8th, ... halving only: a walk of `n` halvings pays `2 log2(n)` probes, not `2n`. Whether one was kept.
pub(super) fn after_halving<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, before: &[ConfigNumber]) -> bool {
    let now = shrinker.numbers(&shrinker.best.config);
    let changed: Vec<usize> = (0..now.len().min(before.len())).filter(|&i| now[i].value != before[i].value).collect();
    let [index] = changed[..] else { return false };
    let (old, new, min) = (before[index].value, now[index].value, now[index].min);
    let halved = new < old && old / 2 <= new && new <= old.div_ceil(2);
    if !halved || new <= min.saturating_add(1) {
        return false;
    }
    let walked = if shrinker.halving_walk.0 == index { shrinker.halving_walk.1.saturating_add(1) } else { 1 };
    shrinker.halving_walk = (index, walked);
    if !walked.is_power_of_two() {
        return false;
    }
    let kept = try_value(shrinker, &[index], min) || try_value(shrinker, &[index], min + 1);
    if kept {
        shrinker.halving_walk = (usize::MAX, 0);
    }
    kept
}

/// Tries the best case with the numbers `indices` set to `value`; `false` when that config is not valid.
fn try_value<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, indices: &[usize], value: u64) -> bool {
    let mut config = shrinker.best.config.clone();
    for &index in indices {
        match shrinker.with_number(&config, index, value) {
            Some(next) => config = next,
            None => return false,
        }
    }
    let mut candidate = shrinker.best.clone();
    candidate.config = config;
    coupled_attempt(shrinker, candidate)
}

/// Tries `candidate` (the best case with another config) and its coupled form (durations on a moved
/// boundary moved with it, see `adapt`, or on a lowered number that is no stated boundary, see
/// `followed`): the coupled form first when it is the simpler of the two (every boundary moved down, no
/// timeout removed), else only when the plain candidate lost the failure; but where the last change of
/// the same config numbers was kept in one form after the other lost the failure, that form first (a
/// walk lowering one number keeps needing the same form, and pays one run a step instead of two).
pub(super) fn coupled_attempt<S: ConfigDomain + ?Sized>(
    shrinker: &mut Shrinker<'_, S>,
    candidate: Case<S::Config>,
) -> bool {
    let old = shrinker.contract();
    let new = shrinker.subject.contract(&candidate.config);
    let numbers = |config| shrinker.numbers(config);
    let key = numbers_changed(&numbers(&shrinker.best.config), &numbers(&candidate.config));
    let coupled_first = match shrinker.coupled_won {
        Some((last, won)) if last == key => won,
        _ => adapted_first(&old, &new),
    };
    if !coupled_first && shrinker.attempt(candidate.clone()) {
        return true;
    }
    if coupled(shrinker, &candidate, &old, &new) {
        shrinker.coupled_won = Some((key, true));
        return true;
    }
    let won = shrinker.attempt(candidate);
    if won {
        shrinker.coupled_won = Some((key, false));
    }
    won && coupled_first
}

/// The coupled forms of `candidate` (see [`coupled_attempt`]); whether one was kept.
fn coupled<S: ConfigDomain + ?Sized>(
    shrinker: &mut Shrinker<'_, S>,
    candidate: &Case<S::Config>,
    old: &timelaw_core::Contract,
    new: &timelaw_core::Contract,
) -> bool {
    let at = shrinker.violated_at();
    let adapted = (!shrinker.out_of_budget()).then(|| adapt(candidate, old, new, || shrinker.best_trace(), at));
    if adapted.flatten().is_some_and(|(adapted, allowance)| shrinker.attempt_within(adapted, allowance)) {
        return true;
    }
    followed(shrinker, candidate)
}

/// Which config numbers differ between `old` and `new`, one bit per index (the first 64).
fn numbers_changed(old: &[ConfigNumber], new: &[ConfigNumber]) -> u64 {
    let changed = old.iter().zip(new).enumerate().filter(|(_, (a, b))| a.value != b.value);
    changed.filter(|(index, _)| *index < 64).fold(0, |mask, (index, _)| mask | 1 << index)
}

/// Tries `candidate` with the schedule's durations on a lowered config number lowered with it (see
/// `adapt::numbers_followed`), when the change moved no contract boundary (those `adapt` follows).
fn followed<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, candidate: &Case<S::Config>) -> bool {
    if shrinker.numbers_are_answers(&shrinker.best.config) {
        return false; // Answers are no durations the schedule's could follow.
    }
    let contract = shrinker.subject.contract(&candidate.config);
    if !super::adapt::boundary_moves(&shrinker.contract(), &contract).is_empty() {
        return false;
    }
    let old = shrinker.numbers(&shrinker.best.config);
    let new = shrinker.numbers(&candidate.config);
    let next = super::adapt::numbers_followed(candidate, &old, &new);
    next.is_some_and(|next| !shrinker.out_of_budget() && shrinker.attempt(next))
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

    #[track_caller]
    fn check_near(numbers: &[(u64, u64)], expect: &[(usize, usize)]) {
        let numbers: Vec<ConfigNumber> =
            numbers.iter().map(|&(value, min)| ConfigNumber { name: "n", value, min }).collect();
        assert_eq!(near_pairs(&numbers), expect);
    }

    #[test]
    fn numbers_a_little_apart_are_near() {
        check_near(&[(10, 0), (11, 0), (3, 1)], &[(0, 1)]);
        check_near(&[(10, 0), (19, 0), (20, 0)], &[(0, 1), (1, 2)]);
        check_near(&[(10, 0), (10, 0)], &[]);
        check_near(&[(2, 2), (3, 0)], &[]);
        check_near(&[(1, 0), (2, 0)], &[]);
    }

    #[test]
    fn a_tie_without_its_highest_minimum_leaves_the_lower_ones() {
        let numbers: Vec<ConfigNumber> = [(2, 1), (2, 0), (2, 0), (2, 0)]
            .iter()
            .map(|&(value, min)| ConfigNumber { name: "n", value, min })
            .collect();
        assert_eq!(without_highest_minimum(&numbers, &[0, 1, 2, 3]), vec![1, 2, 3]);
        assert_eq!(without_highest_minimum(&numbers, &[1, 2]), Vec::<usize>::new(), "one minimum: nothing left");
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
