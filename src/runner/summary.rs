//! [`Summary`]: the one-screen account of a run (counts, laws by verdict, first violation, wall time).

use std::fmt;
use std::time::Duration;

use super::counterexample::RunOutput;
use super::unjudged::UnjudgedReason;

/// What a run found, in numbers: see [`RunOutput::summary`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The subject's name.
    pub subject: String,
    /// Cases judged (the most any law judged; every law judges every case).
    pub cases: u64,
    /// Laws checked.
    pub laws: usize,
    /// Laws that applied to at least one case (the contract had what they need).
    pub laws_applicable: usize,
    /// Applicable laws with no violation and no inconclusive case.
    pub laws_holding: usize,
    /// Laws violated at least once.
    pub laws_violated: usize,
    /// Laws not violated but unable to judge at least one case that no documented cut ended.
    pub laws_inconclusive: usize,
    /// Cases left unjudged (no documented cut ended them), per reason: each fails the run.
    pub unjudged: Vec<(UnjudgedReason, u64)>,
    /// Laws the run barely exercised (see [`RunOutput::barely_exercised`]): a warning, or a failure under
    /// `require_judged`.
    pub barely_exercised: Vec<&'static str>,
    /// The lowest case index with a violation, and the law it violated (the first in catalogue order
    /// at that index).
    pub first_violation: Option<(u64, &'static str)>,
    /// Cases the World cut at its virtual time limit (never violations by themselves).
    pub time_limit_cuts: u64,
    /// Cases cut at a count limit inside a long scripted run (never violations by themselves).
    pub long_run_cuts: u64,
    /// Wall-clock time of the run (search and shrinking).
    pub wall_time: Duration,
}

impl<C> RunOutput<C> {
    /// The run in numbers; its `Display` is a one-screen text.
    ///
    /// ```
    /// use timelaw::reference::Reference;
    /// let summary = timelaw::check(&Reference).cases(200).env(false).run().summary();
    /// assert_eq!((summary.cases, summary.laws_violated, summary.first_violation), (200, 0, None));
    /// assert!(summary.to_string().contains("200 cases"));
    /// ```
    pub fn summary(&self) -> Summary {
        let mut summary = Summary {
            subject: self.subject.clone(),
            cases: self.laws.iter().map(|law| law.counts.cases).max().unwrap_or(0),
            laws: self.laws.len(),
            laws_applicable: 0,
            laws_holding: 0,
            laws_violated: 0,
            laws_inconclusive: 0,
            unjudged: self.unjudged.nonzero().collect(),
            barely_exercised: self
                .laws
                .iter()
                .filter(|law| law.counts.barely_exercised())
                .map(|law| law.law.id)
                .collect(),
            first_violation: None,
            time_limit_cuts: self.time_limit_cuts,
            long_run_cuts: self.long_run_cuts,
            wall_time: self.wall_time,
        };
        for outcome in &self.laws {
            let counts = &outcome.counts;
            if counts.cases > counts.not_applicable {
                summary.laws_applicable += 1;
            }
            if counts.violated > 0 {
                summary.laws_violated += 1;
            } else if counts.inconclusive > 0 {
                summary.laws_inconclusive += 1;
            } else if counts.cases > counts.not_applicable {
                summary.laws_holding += 1;
            }
            let first = outcome.counterexamples.iter().map(|example| example.case_index).min();
            if let Some(index) = first {
                if summary.first_violation.is_none_or(|(lowest, _)| index < lowest) {
                    summary.first_violation = Some((index, outcome.law.id));
                }
            }
        }
        summary
    }
}

impl fmt::Display for Summary {
    /// ```text
    /// timelaw: `reference`: 2000 cases in 0.412 s
    /// laws: 28 checked, 27 applicable: 27 hold, 0 violated, 0 inconclusive
    /// cut at the virtual time limit: 0 cases
    /// cut at a step limit inside a long scripted run: 0 cases
    /// unjudged: 0 cases
    /// first violation: none
    /// ```
    ///
    /// With cases left unjudged, one line per reason follows `unjudged: N cases`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = self.wall_time.as_secs_f64();
        writeln!(f, "timelaw: `{}`: {} cases in {seconds:.3} s", self.subject, self.cases)?;
        writeln!(
            f,
            "laws: {} checked, {} applicable: {} hold, {} violated, {} inconclusive",
            self.laws, self.laws_applicable, self.laws_holding, self.laws_violated, self.laws_inconclusive
        )?;
        writeln!(f, "cut at the virtual time limit: {} cases", self.time_limit_cuts)?;
        writeln!(f, "cut at a step limit inside a long scripted run: {} cases", self.long_run_cuts)?;
        let unjudged = self.unjudged.iter().fold(0_u64, |sum, (_, cases)| sum.saturating_add(*cases));
        writeln!(f, "unjudged: {unjudged} cases")?;
        for (reason, cases) in &self.unjudged {
            writeln!(f, "  {cases} cases: {}", reason.describe())?;
        }
        if !self.barely_exercised.is_empty() {
            writeln!(f, "barely exercised (under 0.1% of applicable cases): {}", self.barely_exercised.join(", "))?;
        }
        match self.first_violation {
            Some((index, law)) => writeln!(f, "first violation: case {index} ({law})"),
            None => writeln!(f, "first violation: none"),
        }
    }
}
