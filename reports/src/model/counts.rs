//! Verdict counts of one law over the cases of a run.

use serde::{Deserialize, Serialize};
use timelaw_laws::Verdict;

/// The least share of its applicable cases a law must be judged non-vacuously in for the run's health
/// check ([`Counts::barely_exercised`]): 0.1%.
pub const EXERCISED_SHARE_MIN: f64 = 0.001;

/// How many cases ended in each verdict, for one law.
///
/// Invariant: `cases == holds + vacuous + not_applicable + violated + inconclusive + cut`
/// ([`Counts::add`] and [`Counts::merge`] keep it; [`crate::Report::validate`] checks it).
///
/// ```
/// use timelaw_laws::Verdict;
/// use timelaw_reports::Counts;
/// let mut counts = Counts::default();
/// for verdict in [Verdict::Holds, Verdict::Vacuous, Verdict::Vacuous, Verdict::NotApplicable] {
///     counts.add(&verdict);
/// }
/// assert_eq!((counts.cases, counts.holds, counts.vacuous), (4, 1, 2));
/// assert_eq!(counts.vacuous_share(), 2.0 / 3.0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Cases judged.
    pub cases: u64,
    /// Cases where the law held and what it speaks about happened.
    pub holds: u64,
    /// Cases where the law applied but what it speaks about never happened.
    pub vacuous: u64,
    /// Cases whose contract lacks what the law needs.
    pub not_applicable: u64,
    /// Cases that violated the law.
    pub violated: u64,
    /// Cases the law could not judge although no documented cut ended them (a step limit set below its
    /// default, exhausted scripted randomness, ...): each one fails the run (exit code 3).
    pub inconclusive: u64,
    /// Cases a documented cut ended before the law could judge them (an inconclusive verdict on a run the
    /// World cut at its virtual time limit or inside a long scripted run, `timelaw_core::Cut`): safety
    /// laws were judged on the prefix; the cut cannot hide a bug, so it does not fail the run. Absent
    /// (zero) in reports that predate it, and not written when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut: u64,
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl Counts {
    /// Counts one more case with `verdict`, on a run no documented cut ended. Saturates at `u64::MAX`
    /// (never reached in practice).
    pub fn add(&mut self, verdict: &Verdict) {
        self.add_on(verdict, false);
    }

    /// Counts one more case with `verdict`; `cut` says a documented cut ended the case's run, so an
    /// inconclusive verdict counts as [`Counts::cut`] (every other verdict counts as itself).
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use timelaw_laws::Verdict;
    /// use timelaw_reports::Counts;
    /// let mut counts = Counts::default();
    /// let inconclusive = Verdict::Inconclusive(Cow::Borrowed("the trace was cut short"));
    /// counts.add_on(&inconclusive, true);
    /// counts.add_on(&inconclusive, false);
    /// counts.add_on(&Verdict::Holds, true);
    /// assert_eq!((counts.cases, counts.cut, counts.inconclusive, counts.holds), (3, 1, 1, 1));
    /// ```
    pub fn add_on(&mut self, verdict: &Verdict, cut: bool) {
        self.cases = self.cases.saturating_add(1);
        let bucket = match verdict {
            Verdict::NotApplicable => &mut self.not_applicable,
            Verdict::Holds => &mut self.holds,
            Verdict::Vacuous => &mut self.vacuous,
            Verdict::Violated(_) => &mut self.violated,
            Verdict::Inconclusive(_) if cut => &mut self.cut,
            Verdict::Inconclusive(_) => &mut self.inconclusive,
        };
        *bucket = bucket.saturating_add(1);
    }

    /// Adds `other`'s counts to these (for the shards or the threads of one run). Saturating.
    pub fn merge(&mut self, other: &Counts) {
        self.cases = self.cases.saturating_add(other.cases);
        self.holds = self.holds.saturating_add(other.holds);
        self.vacuous = self.vacuous.saturating_add(other.vacuous);
        self.not_applicable = self.not_applicable.saturating_add(other.not_applicable);
        self.violated = self.violated.saturating_add(other.violated);
        self.inconclusive = self.inconclusive.saturating_add(other.inconclusive);
        self.cut = self.cut.saturating_add(other.cut);
    }

    /// Cases where the law applied: `holds + vacuous + violated + inconclusive + cut`.
    pub fn applicable(&self) -> u64 {
        let judged = self.holds.saturating_add(self.vacuous).saturating_add(self.violated);
        judged.saturating_add(self.inconclusive).saturating_add(self.cut)
    }

    /// The sum of the six verdict buckets; equals `cases` in a consistent count.
    pub fn verdict_total(&self) -> u64 {
        self.applicable().saturating_add(self.not_applicable)
    }

    /// Cases that judged the law non-vacuously: it held where what it speaks about happened, or it was
    /// violated.
    pub fn exercised(&self) -> u64 {
        self.holds.saturating_add(self.violated)
    }

    /// Whether the law applied to some case yet was judged non-vacuously in fewer than
    /// [`EXERCISED_SHARE_MIN`] of its applicable cases (none at all counts too): the contract states what
    /// the law needs, but the run barely reached it. A law that applied to no case is not (its mechanism
    /// is absent).
    ///
    /// ```
    /// use timelaw_reports::Counts;
    /// let rare = Counts { cases: 10_000, holds: 5, vacuous: 9_995, ..Counts::default() };
    /// assert!(rare.barely_exercised()); // 0.05%
    /// let often = Counts { cases: 10_000, holds: 50, vacuous: 9_950, ..Counts::default() };
    /// assert!(!often.barely_exercised());
    /// assert!(!Counts { cases: 10, not_applicable: 10, ..Counts::default() }.barely_exercised());
    /// ```
    pub fn barely_exercised(&self) -> bool {
        let (applicable, exercised) = (self.applicable(), self.exercised());
        applicable > 0 && (exercised == 0 || (exercised as f64) < EXERCISED_SHARE_MIN * applicable as f64)
    }

    /// The share of applicable cases that were vacuous, in `0.0..=1.0`; `0.0` when no case was applicable.
    ///
    /// A high share means the generator rarely exercises what the law speaks about.
    pub fn vacuous_share(&self) -> f64 {
        match self.applicable() {
            0 => 0.0,
            applicable => self.vacuous as f64 / applicable as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use timelaw_laws::Violation;

    use super::*;

    fn counts_of(verdicts: &[Verdict]) -> Counts {
        let mut counts = Counts::default();
        verdicts.iter().for_each(|verdict| counts.add(verdict));
        counts
    }

    #[track_caller]
    fn check_share(verdicts: &[Verdict], share: f64) {
        assert_eq!(counts_of(verdicts).vacuous_share(), share, "{verdicts:?}");
    }

    #[test]
    fn vacuous_share_counts_only_applicable_cases() {
        let violated = Verdict::Violated(Violation::new(None, "x"));
        let inconclusive = Verdict::Inconclusive(Cow::Borrowed("truncated"));
        check_share(&[], 0.0);
        check_share(&[Verdict::NotApplicable, Verdict::NotApplicable], 0.0);
        check_share(&[Verdict::Vacuous, Verdict::NotApplicable], 1.0);
        check_share(&[Verdict::Vacuous, Verdict::Holds], 0.5);
        check_share(&[Verdict::Vacuous, violated, inconclusive, Verdict::Holds], 0.25);
    }

    #[test]
    fn merge_adds_every_bucket_and_keeps_the_invariant() {
        let left = counts_of(&[Verdict::Holds, Verdict::Vacuous, Verdict::NotApplicable]);
        let right = counts_of(&[Verdict::violated_at(3, "x"), Verdict::Inconclusive(Cow::Borrowed("y"))]);
        let mut merged = left;
        merged.merge(&right);
        let expected =
            Counts { cases: 5, holds: 1, vacuous: 1, not_applicable: 1, violated: 1, inconclusive: 1, cut: 0 };
        assert_eq!(merged, expected);
        assert_eq!(merged.verdict_total(), merged.cases);
        assert_eq!(merged.applicable(), 4);
    }
}
