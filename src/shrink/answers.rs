//! The shrink pass over a config's answers (`shrink_answers`), for a config whose numbers are the
//! answers it was described from (see `engine::Drawn`): the moves `shrink_numbers` cannot make by
//! lowering one answer at a time, because one answer decides how the next is read.
//!
//! For each answer above `0`, first to last:
//! - `0` with the one or two answers after it deleted: a choice lowered to an option that reads fewer
//!   answers (`draw::delay`'s class `0`, zero, reads no value) leaves the answers of the draws after it
//!   where they were read;
//! - `0`, then one lower, then `1`, with the next answer at its largest: a tier lowered with its value
//!   raised to the top of the lower tier (`draw::retries`' `6..=12` to `0..=5` at `5`), which
//!   `shrink_numbers` then lowers again, and a choice past several options lowered to the one just
//!   above the simplest (as `shrink_numbers` tries a number's minimum, then one above it);
//! - one lower with an answer at its largest inserted after it: a choice lowered to an option that reads
//!   a value where the current option reads none (`draw::delay`'s crate default to a count of
//!   milliseconds, then to nanoseconds), the answers of the draws after it left where they were read.
//!
//! Every candidate lowers an answer and keeps the ones before it, so its answers are smaller at the first
//! difference: the pass only moves down the answers' order.
//!
//! `couple_answers` lowers an answer by one with one later answer, two to [`COUPLED_REACH`] places after
//! it, at its largest (the adjacent one is `shrink_answers`' own move): a count that only fails with
//! fewer retries under a larger factor drawn after it (a bounded search: at most three candidates per
//! answer above `0`, each one evaluation). It too only lowers the first answer that differs; the
//! raised answer is lowered again by `shrink_numbers`' binary search, the lowered one further by its
//! search down from the minimum.

use timelaw_core::Case;
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::numbers::coupled_attempt;

/// The pass: whether it kept a candidate.
pub(super) fn shrink_answers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut index = 0;
    while index < answers_of(shrinker).len() && !shrinker.out_of_budget() {
        progress |= try_answer(shrinker, index);
        index += 1;
    }
    progress
}

/// Tries the candidates for answer `index`; whether one was kept.
fn try_answer<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, index: usize) -> bool {
    for candidate in candidates(&answers_of(shrinker), index) {
        let Some(config) = shrinker.with_answers(&shrinker.best.config, candidate) else { continue };
        if coupled_attempt(shrinker, Case { config, ..shrinker.best.clone() }) {
            return true;
        }
        if shrinker.out_of_budget() {
            break;
        }
    }
    false
}

/// How far after a lowered answer `couple_answers` raises another.
pub(super) const COUPLED_REACH: usize = 4;

/// The pass `couple_answers` (see the module docs): whether it kept a candidate.
pub(super) fn couple_answers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut index = 0;
    while index < answers_of(shrinker).len() && !shrinker.out_of_budget() {
        for candidate in coupled_candidates(&answers_of(shrinker), index) {
            let Some(config) = shrinker.with_answers(&shrinker.best.config, candidate) else { continue };
            if coupled_attempt(shrinker, Case { config, ..shrinker.best.clone() }) {
                progress = true;
                break;
            }
            if shrinker.out_of_budget() {
                break;
            }
        }
        index += 1;
    }
    progress
}

/// Answer `index` of `answers` lowered by one with each answer two to [`COUPLED_REACH`] places after
/// it at its largest, in turn (nearest first).
fn coupled_candidates(answers: &[u64], index: usize) -> Vec<Vec<u64>> {
    let Some(&value) = answers.get(index).filter(|&&value| value > 0) else { return Vec::new() };
    let last = (index + COUPLED_REACH).min(answers.len().saturating_sub(1));
    (index + 2..=last)
        .filter(|&raised| answers[raised] != u64::MAX)
        .map(|raised| {
            let mut next = answers.to_vec();
            next[index] = value - 1;
            next[raised] = u64::MAX;
            next
        })
        .collect()
}

/// The best config's answers (empty when its numbers are not answers).
fn answers_of<S: ConfigDomain + ?Sized>(shrinker: &Shrinker<'_, S>) -> Vec<u64> {
    if !shrinker.numbers_are_answers(&shrinker.best.config) {
        return Vec::new();
    }
    shrinker.numbers(&shrinker.best.config).iter().map(|number| number.value).collect()
}

/// The candidates for answer `index` of `answers`, in the order tried (see the module docs).
fn candidates(answers: &[u64], index: usize) -> Vec<Vec<u64>> {
    let Some(&value) = answers.get(index).filter(|&&value| value > 0) else { return Vec::new() };
    let with = |lowered: u64, rest: &[u64]| {
        let mut next = answers[..index].to_vec();
        next.push(lowered);
        next.extend_from_slice(rest);
        next
    };
    let after = &answers[index + 1..];
    let mut out = Vec::new();
    if !after.is_empty() {
        out.push(with(0, &after[1..]));
    }
    if after.len() >= 2 {
        out.push(with(0, &after[2..]));
    }
    // The next answer at its largest (answers past the end read 0, so the last one has a next too).
    let raised = |lowered| {
        let mut rest = if after.is_empty() { vec![0] } else { after.to_vec() };
        rest[0] = u64::MAX;
        with(lowered, &rest)
    };
    out.push(raised(0));
    if value > 1 {
        out.push(raised(value - 1));
    }
    // One above the simplest, as `shrink_numbers` tries it: a choice past several options lowered to
    // the first that reads a value (`draw::delay`'s minute range to its count of nanoseconds).
    if value > 2 {
        out.push(raised(1));
    }
    // One lower with an answer at its largest inserted after it: an option that reads a value where the
    // current one reads none (`draw::delay`'s `default`, class 3, to class 2, a count of milliseconds)
    // leaves the answers of the draws after it where they were read.
    let mut inserted = answers[..index].to_vec();
    inserted.extend([value - 1, u64::MAX]);
    inserted.extend_from_slice(after);
    if !out.contains(&inserted) {
        out.push(inserted); // Past the last answer, it is the raised candidate above.
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coupled_candidate_lowers_one_answer_and_raises_a_later_one() {
        let m = u64::MAX;
        assert_eq!(
            coupled_candidates(&[9, 0, 2, 5, 1, 7], 0),
            vec![vec![8, 0, m, 5, 1, 7], vec![8, 0, 2, m, 1, 7], vec![8, 0, 2, 5, m, 7]],
        );
        assert_eq!(coupled_candidates(&[9, 0, m], 0), Vec::<Vec<u64>>::new(), "already at its largest");
        assert_eq!(coupled_candidates(&[0, 0, 3], 0), Vec::<Vec<u64>>::new(), "nothing to lower");
        assert_eq!(coupled_candidates(&[4, 1], 0), Vec::<Vec<u64>>::new(), "the next answer is shrink_answers'");
    }

    #[test]
    fn each_candidate_lowers_the_answer_and_keeps_the_ones_before() {
        let m = u64::MAX;
        assert_eq!(
            candidates(&[3, 6, 2, 9], 1),
            vec![vec![3, 0, 9], vec![3, 0], vec![3, 0, m, 9], vec![3, 5, m, 9], vec![3, 1, m, 9], vec![3, 5, m, 2, 9]],
        );
        assert_eq!(candidates(&[3, 1, 2], 1), vec![vec![3, 0], vec![3, 0, m], vec![3, 0, m, 2]]);
        assert_eq!(candidates(&[3, 0, 2], 1), Vec::<Vec<u64>>::new(), "an answer at 0 has nothing lower");
        assert_eq!(
            candidates(&[3, 4], 1),
            vec![vec![3, 0, m], vec![3, 3, m], vec![3, 1, m]],
            "the answers past the end read 0"
        );
        for (answers, index) in [(vec![5u64, 7, 1, 1], 0), (vec![1, 2, 3], 1)] {
            for candidate in candidates(&answers, index) {
                assert_eq!(candidate[..index], answers[..index]);
                assert!(candidate[index] < answers[index]);
            }
        }
    }
}
