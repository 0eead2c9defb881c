//! Cases a law could not judge although no documented cut ended them: why, counted per case over the run,
//! and the first such case per law (the runner writes it as a fixture that replays it).
//!
//! The rule: a run holds only when every case was judged. A case whose run a documented cut ended
//! ([`timelaw_core::Cut`]: the virtual time limit, or a count limit inside a long scripted run) is judged
//! on its prefix by the safety laws, and its liveness laws count as cut, not as a failure. Any other
//! inconclusive verdict is a case timelaw could not judge, and it fails the run.

use timelaw_core::{Abort, Case, TraceEnd};
use timelaw_laws::{catalogue::TERMINATES, Observation};

/// Why a case's run left some law unjudged, from how the run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnjudgedReason {
    /// Stopped at a count limit (attempts, sleeps, events) set below its default, where `terminates`
    /// cannot tell a loop from a long run.
    StepLimit,
    /// The subject's scripted randomness ran out or did not fit (a test's setup, not the subject).
    Randomness,
    /// The run completed, yet a law could not judge it.
    Complete,
    /// The case was never run: no worker was left to run it (the watchdog's abandoned threads reached
    /// their cap).
    NotRun,
}

impl UnjudgedReason {
    /// Every reason, in report order.
    pub const ALL: [UnjudgedReason; 4] =
        [UnjudgedReason::StepLimit, UnjudgedReason::Randomness, UnjudgedReason::Complete, UnjudgedReason::NotRun];

    /// The reason the run `observation` saw leaves its inconclusive verdicts unjudged; `None` when they
    /// are not a failure to judge: a documented cut ended the run, or the way it ended is itself a
    /// violation of the law that owns it (a hang or a step limit `terminates` blames, a panic, a misuse
    /// of the World, a refused config), so the case was judged.
    pub fn of(observation: &Observation<'_>) -> Option<UnjudgedReason> {
        match Self::of_end(&observation.trace.end) {
            Some(UnjudgedReason::StepLimit) if TERMINATES.judge(observation).is_violated() => None,
            reason => reason,
        }
    }

    /// [`UnjudgedReason::of`] from how the run ended alone: a step limit counts as unjudged whether or not
    /// `terminates` blames it.
    pub fn of_end(end: &TraceEnd) -> Option<UnjudgedReason> {
        if end.cut().is_some() {
            return None;
        }
        match end {
            TraceEnd::Complete => Some(UnjudgedReason::Complete),
            TraceEnd::Aborted(Abort::StepLimit { .. }) => Some(UnjudgedReason::StepLimit),
            TraceEnd::Aborted(Abort::Randomness(_)) => Some(UnjudgedReason::Randomness),
            // Each violates its own law: terminates, uses_world_as_documented, accepts_described_configs,
            // never_panics.
            TraceEnd::Aborted(_) | TraceEnd::Panicked(_) => None,
        }
    }

    /// A sentence saying what it means and what to do.
    pub const fn describe(self) -> &'static str {
        match self {
            UnjudgedReason::StepLimit => {
                "stopped at a step limit set below its default (a loop and a long run look alike there): \
                 raise the limit (TIMELAW_*_MAX) or leave it at its default"
            }
            UnjudgedReason::Randomness => {
                "the scripted randomness ran out or did not fit the range asked for: script more values"
            }
            UnjudgedReason::Complete => "a law could not judge a complete run (a bug in the law: please report it)",
            UnjudgedReason::NotRun => {
                "never run: no worker was left while abandoned threads spun in the subject's code (fix the hang \
                 the run reports, or run fewer cases)"
            }
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How many cases were left unjudged, per reason (a case counts once, however many laws it left
/// unjudged). Merging is a sum, so the result is the same on any thread count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnjudgedCases {
    counts: [u64; UnjudgedReason::ALL.len()],
}

impl UnjudgedCases {
    /// Counts one more case left unjudged for `reason`.
    pub fn add(&mut self, reason: UnjudgedReason) {
        let count = &mut self.counts[reason.index()];
        *count = count.saturating_add(1);
    }
    /// Adds `other`'s counts.
    pub fn merge(&mut self, other: &UnjudgedCases) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine = mine.saturating_add(theirs);
        }
    }
    /// The cases left unjudged for `reason`.
    pub fn get(&self, reason: UnjudgedReason) -> u64 {
        self.counts[reason.index()]
    }
    /// Every reason with at least one case, in [`UnjudgedReason::ALL`] order.
    pub fn nonzero(&self) -> impl Iterator<Item = (UnjudgedReason, u64)> + '_ {
        UnjudgedReason::ALL.into_iter().map(|reason| (reason, self.get(reason))).filter(|(_, cases)| *cases > 0)
    }
    /// All cases left unjudged.
    pub fn total(&self) -> u64 {
        self.counts.iter().fold(0, |sum, count| sum.saturating_add(*count))
    }
}

/// The first case (lowest index) on which a law was left unjudged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unjudged<C> {
    /// The case's index in the run.
    pub case_index: u64,
    /// The law's inconclusive reason.
    pub reason: String,
    /// The case, to replay (written as a fixture when the run writes fixtures).
    pub case: Case<C>,
    /// The fixture that replays it, when the run wrote one.
    pub fixture: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use timelaw_core::{LimitKind, Misuse, RandomnessError};

    use super::*;

    #[track_caller]
    fn check(end: TraceEnd, expect: Option<UnjudgedReason>) {
        assert_eq!(UnjudgedReason::of_end(&end), expect, "{end:?}");
    }

    #[test]
    fn documented_cuts_are_never_unjudged() {
        check(TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::VirtualTime, limit: 9 }), None);
        check(TraceEnd::Aborted(Abort::LongRunCut { kind: LimitKind::Sleeps, limit: 9 }), None);
        check(
            TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::Sleeps, limit: 9 }),
            Some(UnjudgedReason::StepLimit),
        );
        let exhausted = Abort::Randomness(RandomnessError::Exhausted { consumed: 3 });
        check(TraceEnd::Aborted(exhausted), Some(UnjudgedReason::Randomness));
        check(TraceEnd::Aborted(Abort::Misuse(Misuse::Finished)), None);
        check(TraceEnd::Aborted(Abort::InvalidConfig("no".into())), None);
        check(TraceEnd::Aborted(Abort::Hung { call: 0, attempt: 1 }), None);
        check(TraceEnd::Panicked("boom".into()), None);
        check(TraceEnd::Complete, Some(UnjudgedReason::Complete));
    }

    #[test]
    fn cases_count_per_reason_and_merge_as_a_sum() {
        let mut left = UnjudgedCases::default();
        left.add(UnjudgedReason::StepLimit);
        left.add(UnjudgedReason::StepLimit);
        let mut right = UnjudgedCases::default();
        right.add(UnjudgedReason::Complete);
        left.merge(&right);
        let nonzero: Vec<_> = left.nonzero().collect();
        assert_eq!(nonzero, [(UnjudgedReason::StepLimit, 2), (UnjudgedReason::Complete, 1)]);
        assert_eq!(left.total(), 3);
    }
}
