//! Per-law counts and the violations kept, merged across threads in any order with the same result.

use timelaw_core::{Case, Trace};
use timelaw_generators::coverage::Coverage;
use timelaw_laws::{Verdict, Violation};
use timelaw_reports::Counts;

use super::unjudged::{Unjudged, UnjudgedCases, UnjudgedReason};

/// A violating case found by search, before shrinking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found<C> {
    /// The case's index in the run.
    pub case_index: u64,
    /// The case.
    pub case: Case<C>,
    /// The violation.
    pub violation: Violation,
    /// The trace of the run that violated the law (compared with the re-run before reporting).
    pub trace: Trace,
}

/// The counts and the lowest-index violations of every law over a set of cases.
#[derive(Clone, Debug)]
pub struct Tally<C> {
    /// Per law (catalogue order).
    pub counts: Vec<Counts>,
    /// Per law, the violations with the smallest case indices, sorted, at most `keep`.
    pub found: Vec<Vec<Found<C>>>,
    /// Per law, the first case (lowest index) it could not judge although no documented cut ended the
    /// run ([`UnjudgedReason`]): such a case fails the run.
    pub inconclusive: Vec<Option<Unjudged<C>>>,
    /// Cases some law could not judge, per reason (each case once).
    pub unjudged: UnjudgedCases,
    /// The last case index counted in `unjudged` (a tally records a case's laws one after another).
    unjudged_last: Option<u64>,
    /// The case being recorded and why its inconclusive verdicts are unjudged ([`Tally::begin_case`]).
    current: Option<(u64, Option<UnjudgedReason>)>,
    /// How many cases reached each boundary class.
    pub coverage: Coverage,
    /// How many cases the World cut at its virtual time limit (safety laws judged on the prefix,
    /// liveness laws inconclusive).
    pub time_limit_cuts: u64,
    /// How many cases the World cut at a count limit inside a long scripted run
    /// ([`TraceEnd::is_long_run_cut`](timelaw_core::TraceEnd::is_long_run_cut)).
    pub long_run_cuts: u64,
    /// Worker threads the watchdog abandoned in a hung subject (see [`crate::watchdog`]).
    pub abandoned_threads: u64,
    keep: usize,
}

impl<C: Clone> Tally<C> {
    /// An empty tally for `laws` laws keeping `keep` violations per law.
    pub fn new(laws: usize, keep: usize) -> Tally<C> {
        Tally {
            counts: vec![Counts::default(); laws],
            found: vec![Vec::new(); laws],
            inconclusive: vec![None; laws],
            unjudged: UnjudgedCases::default(),
            unjudged_last: None,
            current: None,
            coverage: Coverage::default(),
            time_limit_cuts: 0,
            long_run_cuts: 0,
            abandoned_threads: 0,
            keep,
        }
    }

    /// Records `verdict` of law `law` on case `case_index`; `case` is cloned only when kept. Returns
    /// whether a violation was kept (it is among the lowest-index violations of this tally). An
    /// inconclusive verdict on a run a documented cut ended counts as cut; any other is a case left
    /// unjudged (counted per reason once per case: the laws of one case are recorded one after another).
    #[inline]
    pub fn record(&mut self, law: usize, case_index: u64, case: &Case<C>, trace: &Trace, verdict: Verdict) -> bool {
        // Most verdicts are only counted: that path stays small enough to inline into the judging loop.
        if matches!(verdict, Verdict::Holds | Verdict::Vacuous | Verdict::NotApplicable) {
            self.counts[law].add_on(&verdict, false);
            return false;
        }
        self.record_judgement(law, case_index, case, trace, verdict)
    }

    /// [`Tally::record`] of a violated or inconclusive verdict, out of line.
    #[inline(never)]
    fn record_judgement(
        &mut self,
        law: usize,
        case_index: u64,
        case: &Case<C>,
        trace: &Trace,
        verdict: Verdict,
    ) -> bool {
        let unjudged = match (&verdict, self.current) {
            (Verdict::Inconclusive(_), Some((index, reason))) if index == case_index => reason,
            (Verdict::Inconclusive(_), _) => UnjudgedReason::of_end(&trace.end),
            _ => None,
        };
        self.counts[law].add_on(&verdict, matches!(verdict, Verdict::Inconclusive(_)) && unjudged.is_none());
        match verdict {
            Verdict::Violated(violation) => {
                let found = &mut self.found[law];
                if found.len() < self.keep || found.last().is_some_and(|last| last.case_index > case_index) {
                    insert_sorted(
                        found,
                        Found { case_index, case: case.clone(), violation, trace: trace.clone() },
                        self.keep,
                    );
                    return true;
                }
            }
            Verdict::Inconclusive(why) => {
                let Some(reason) = unjudged else { return false };
                if self.unjudged_last != Some(case_index) {
                    self.unjudged_last = Some(case_index);
                    self.unjudged.add(reason);
                }
                let slot = &mut self.inconclusive[law];
                if slot.as_ref().is_none_or(|first| first.case_index > case_index) {
                    let reason = why.into_owned();
                    *slot = Some(Unjudged { case_index, reason, case: case.clone(), fixture: None });
                }
            }
            Verdict::Holds | Verdict::Vacuous | Verdict::NotApplicable => {}
        }
        false
    }

    /// Says why the inconclusive verdicts of case `case_index`, recorded next, are unjudged
    /// ([`UnjudgedReason::of`], which knows whether `terminates` blames a step limit); without it, a
    /// case's reason is taken from how its run ended alone ([`UnjudgedReason::of_end`]).
    pub fn begin_case(&mut self, case_index: u64, observation: &timelaw_laws::Observation<'_>) {
        let reason = match UnjudgedReason::of_end(&observation.trace.end) {
            None => None,
            Some(_) => UnjudgedReason::of(observation),
        };
        self.current = Some((case_index, reason));
    }

    /// Says that the inconclusive verdicts of case `case_index`, recorded next, are unjudged for `reason`
    /// (a case that was never run, say).
    pub fn begin_unjudged_case(&mut self, case_index: u64, reason: UnjudgedReason) {
        self.current = Some((case_index, Some(reason)));
    }

    /// Merges another tally (the result is independent of merge order).
    pub fn merge(mut self, other: Tally<C>) -> Tally<C> {
        self.coverage.merge(&other.coverage);
        self.time_limit_cuts = self.time_limit_cuts.saturating_add(other.time_limit_cuts);
        self.long_run_cuts = self.long_run_cuts.saturating_add(other.long_run_cuts);
        self.abandoned_threads = self.abandoned_threads.saturating_add(other.abandoned_threads);
        self.unjudged.merge(&other.unjudged);
        for (law, counts) in other.counts.iter().enumerate() {
            self.counts[law].merge(counts);
        }
        for (law, found) in other.found.into_iter().enumerate() {
            for entry in found {
                insert_sorted(&mut self.found[law], entry, self.keep);
            }
        }
        for (law, slot) in other.inconclusive.into_iter().enumerate() {
            if let Some(first) = slot {
                if self.inconclusive[law].as_ref().is_none_or(|mine| mine.case_index > first.case_index) {
                    self.inconclusive[law] = Some(first);
                }
            }
        }
        self
    }
}

fn insert_sorted<C>(found: &mut Vec<Found<C>>, entry: Found<C>, keep: usize) {
    let at = found.partition_point(|existing| existing.case_index < entry.case_index);
    if at >= keep {
        return;
    }
    found.insert(at, entry);
    found.truncate(keep);
}
