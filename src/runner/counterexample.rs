//! From the search's tally to the run's output: shrink each kept violation, place its fixture (its raw
//! counterexample was saved when the search found it, so a crash mid-shrink loses nothing), and gather
//! per-law outcomes.

use std::fmt::Write as _;
use std::path::PathBuf;

use rayon::prelude::*;
use timelaw_core::{mix, Case};
use timelaw_generators::{sample_case_answers, ConfigDomain};
use timelaw_laws::{Catalogue, Law, Verdict, Violation};

use super::child::Launcher;
use super::persist::{Finds, StoreNotes};
use super::progress::Progress;
use super::tally::{Found, Tally};
use super::unjudged::{Unjudged, UnjudgedCases};
use crate::config::Config;
use crate::eval::Evaluation;
use crate::fixture::{self, Fixture, Provenance, Source, Status, ABOUT, FORMAT};
use crate::shrink::{shrink_bounded, shrink_with, Drawn, ShrinkBudget};
use crate::watchdog::{evaluate_bounded, hung};
use timelaw_reports::Counts;

/// One shrunk counterexample.
#[derive(Clone, Debug)]
pub struct Counterexample<C> {
    /// The case index where the search found it.
    pub case_index: u64,
    /// The case as found.
    pub found: Case<C>,
    /// The minimal case.
    pub shrunk: Case<C>,
    /// The violation on the minimal case.
    pub violation: Violation,
    /// Shrink evaluations spent.
    pub shrink_evaluations: u64,
    /// The fixture file that pins it (written by this run, or already there), if fixtures are on.
    pub fixture: Option<PathBuf>,
    /// `Some` when a re-run of the found case on a fresh World did not violate the law the same way:
    /// a nondeterministic finding, never shrunk and never written as a fact.
    pub nondeterministic: Option<Nondeterminism>,
    /// The watchdog saw no progress on this case ("no progress for N ms"): it was never run again
    /// in-process; it was shrunk in child processes (see `runner/child.rs`) when this executable could be
    /// run again, else its fixture holds the case as found.
    pub hang: bool,
}

/// A violation the search saw that a re-run of the same case did not reproduce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nondeterminism {
    /// The re-run's verdict.
    pub rerun: Verdict,
    /// The first event of the violating run that differs from the re-run (see
    /// [`crate::eval::first_difference`]); `None` when the events agree and only the verdict differs.
    pub first_difference: Option<u32>,
}

impl std::fmt::Display for Nondeterminism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "nondeterministic: a re-run of the same case gave `{}`", self.rerun.name())?;
        match self.first_difference {
            Some(event) => write!(f, "; the traces first differ at event #{event}"),
            None => write!(f, "; the traces' events agree"),
        }
    }
}

/// Everything a run learned about one law.
#[derive(Clone, Debug)]
pub struct LawOutcome<C> {
    /// The law.
    pub law: Law,
    /// Verdict counts over the cases.
    pub counts: Counts,
    /// Shrunk counterexamples, distinct, lowest case index first.
    pub counterexamples: Vec<Counterexample<C>>,
    /// The first case the law could not judge although no documented cut ended it (see
    /// [`UnjudgedReason`](crate::runner::UnjudgedReason)), with the fixture that replays it when the run writes fixtures. Such a case
    /// fails the run ([`RunOutput::assert_holds`]).
    pub inconclusive: Option<Unjudged<C>>,
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunOutput<C> {
    /// The subject's name.
    pub subject: String,
    /// The options of the run.
    pub config: Config,
    /// Worker threads used.
    pub threads: usize,
    /// Per law, in catalogue order.
    pub laws: Vec<LawOutcome<C>>,
    /// How many cases reached each boundary class.
    pub coverage: timelaw_generators::coverage::Coverage,
    /// How many cases the World cut at its virtual time limit: their safety laws were judged on the
    /// prefix, their liveness laws are inconclusive, and the cut alone is never a violation.
    pub time_limit_cuts: u64,
    /// How many cases the World cut at a count limit (attempts, sleeps, events) while the subject was still
    /// working through a long scripted run: judged like time-limit cuts.
    pub long_run_cuts: u64,
    /// Cases some law could not judge although no documented cut ended them, per reason: each one fails
    /// the run.
    pub unjudged: UnjudgedCases,
    /// Worker threads the watchdog abandoned in a subject that made no progress ([`crate::watchdog`]);
    /// each still spins in the subject's code until the process ends.
    pub abandoned_threads: u64,
    /// What the run did to the fixture store: a write error, recovered files, findings already pinned.
    pub store: StoreNotes,
    /// Wall-clock time of the whole run, search and shrinking (measured around the run, never read on
    /// the checking path; zero where the run was not timed).
    pub wall_time: std::time::Duration,
}

impl<C: serde::Serialize> RunOutput<C> {
    /// `true` when no law is violated and every case was judged (apart from documented cuts, see
    /// [`crate::runner::UnjudgedReason`]), and, under [`Config::require_judged`], no law was barely
    /// exercised: what [`RunOutput::assert_holds`] checks.
    pub fn holds(&self) -> bool {
        let exercised = !self.config.require_judged || self.barely_exercised().is_empty();
        !self.violated() && self.judged() && exercised
    }

    /// The laws the run barely exercised: the contract states what they need, yet they were judged
    /// non-vacuously in under 0.1% of their applicable cases ([`Counts::barely_exercised`]). A warning in
    /// [`RunOutput::summary`]; a failure under [`Config::require_judged`].
    pub fn barely_exercised(&self) -> Vec<&'static str> {
        self.laws.iter().filter(|law| law.counts.barely_exercised()).map(|law| law.law.id).collect()
    }

    /// `true` when some law is violated.
    pub fn violated(&self) -> bool {
        self.laws.iter().any(|law| law.counts.violated > 0)
    }

    /// `true` when every case was judged by every law, apart from documented cuts (a run cut at the
    /// virtual time limit or inside a long scripted run: its safety laws judged the prefix).
    pub fn judged(&self) -> bool {
        self.laws.iter().all(|law| law.counts.inconclusive == 0)
    }

    /// Panics with every violated law, its shrunk case, its fixture path and the seed to reproduce, and
    /// with every law some case left unjudged (its reason, first case and fixture).
    ///
    /// # Panics
    /// When a law is violated, or a case could not be judged (an inconclusive verdict that no documented
    /// cut explains): that is its purpose, in `cargo test`. Also when a fixture could not be written (the
    /// error names the path and the OS error).
    #[track_caller]
    pub fn assert_holds(&self) {
        if let Some(error) = &self.store.error {
            panic!("timelaw: a fixture could not be written: {error}");
        }
        if self.holds() {
            return;
        }
        panic!("{}", self.failure_message());
    }

    /// The text [`RunOutput::assert_holds`] panics with.
    pub fn failure_message(&self) -> String {
        let mut text = String::new();
        if self.violated() {
            text = format!("timelaw: `{}` violates laws\n", self.subject);
            self.write_violations(&mut text);
        }
        if !self.judged() {
            let _ = writeln!(
                text,
                "timelaw: `{}` left cases unjudged (a run holds only when every case was judged)",
                self.subject
            );
            self.write_unjudged(&mut text);
        }
        let barely = self.barely_exercised();
        if self.config.require_judged && !barely.is_empty() {
            let _ = writeln!(
                text,
                "timelaw: `{}` barely exercised laws its contract states (judged non-vacuously in under 0.1% of \
                 their applicable cases; require_judged is on): {}\n  the description rarely draws what they speak \
                 about, or the contract states a mechanism the code does not have",
                self.subject,
                barely.join(", ")
            );
        }
        text
    }

    fn write_violations(&self, text: &mut String) {
        for law in self.laws.iter().filter(|law| law.counts.violated > 0) {
            for example in &law.counterexamples {
                let case = serde_json::to_string(&example.shrunk).unwrap_or_default();
                let _ = writeln!(text, "\nlaw `{}`: {}", law.law.id, example.violation.message);
                if let Some(flaky) = &example.nondeterministic {
                    let _ = writeln!(text, "  {flaky} (not shrunk)");
                }
                let _ = writeln!(text, "  violating event: {:?}", example.violation.event);
                let _ = writeln!(text, "  shrunk case: {case}");
                if let Some(path) = &example.fixture {
                    let _ = writeln!(text, "  fixture: {}", path.display());
                }
                let _ = writeln!(
                    text,
                    "  reproduce: TIMELAW_SEED={:#x} (case index {}, {} cases)",
                    self.config.seed, example.case_index, self.config.cases
                );
            }
        }
    }

    fn write_unjudged(&self, text: &mut String) {
        for (reason, cases) in self.unjudged.nonzero() {
            let _ = writeln!(text, "  {cases} cases: {}", reason.describe());
        }
        for law in self.laws.iter().filter(|law| law.counts.inconclusive > 0) {
            let Some(first) = &law.inconclusive else { continue };
            let _ = writeln!(
                text,
                "\nlaw `{}` could not judge {} cases; first, case {}: {}",
                law.law.id, law.counts.inconclusive, first.case_index, first.reason
            );
            let case = serde_json::to_string(&first.case).unwrap_or_default();
            let _ = writeln!(text, "  case: {case}");
            if let Some(path) = &first.fixture {
                let _ = writeln!(text, "  fixture: {}", path.display());
            }
            let _ = writeln!(
                text,
                "  reproduce: TIMELAW_SEED={:#x} (case index {}, {} cases)",
                self.config.seed, first.case_index, self.config.cases
            );
        }
    }
}

/// Shrinks the kept violations of `tally`, laws in parallel, and places each shrunk fixture by the
/// store's rules (its raw counterexample was saved by `finds` during the search).
pub fn resolve<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    tally: Tally<S::Config>,
    progress: &dyn Progress,
    finds: Finds<'_, S>,
    launcher: Option<&Launcher>,
) -> RunOutput<S::Config> {
    let Tally {
        counts,
        found,
        inconclusive,
        unjudged,
        coverage,
        time_limit_cuts,
        long_run_cuts,
        abandoned_threads,
        ..
    } = tally;
    let to_shrink = found.iter().map(|list| list.len() as u64).sum();
    if to_shrink > 0 {
        progress.start("shrinking", to_shrink);
    }
    let law_list: Vec<Law> = laws.iter().copied().collect();
    let outcomes = law_list
        .into_par_iter()
        .zip(counts)
        .zip(found)
        .zip(inconclusive)
        .map(|(((law, counts), found), inconclusive)| {
            let counterexamples = shrink_all(subject, &law, config, found, progress, &finds, launcher);
            let inconclusive = inconclusive.map(|first| place_unjudged(subject, &law, config, first, &finds));
            LawOutcome { law, counts, counterexamples, inconclusive }
        })
        .collect();
    if to_shrink > 0 {
        progress.finish();
    }
    let threads = rayon::current_num_threads();
    let store = finds.finish();
    let wall_time = std::time::Duration::ZERO; // Set by `runner::run`, which times the whole run.
    RunOutput {
        subject: subject.name().to_owned(),
        config: config.clone(),
        threads,
        laws: outcomes,
        coverage,
        time_limit_cuts,
        long_run_cuts,
        unjudged,
        abandoned_threads,
        store,
        wall_time,
    }
}

fn shrink_all<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    config: &Config,
    found: Vec<Found<S::Config>>,
    progress: &dyn Progress,
    finds: &Finds<'_, S>,
    launcher: Option<&Launcher>,
) -> Vec<Counterexample<S::Config>> {
    let mut examples: Vec<Counterexample<S::Config>> = Vec::new();
    for entry in found {
        let mut example = shrink_one(subject, law, config, entry, finds.failed(), launcher);
        progress.advance(1);
        if examples.iter().any(|known| known.shrunk == example.shrunk) {
            finds.discard(law, example.case_index);
            continue;
        }
        if finds.writes() {
            let shrunk = example.nondeterministic.is_none();
            let shrunk = shrunk && (!example.hang || example.shrink_evaluations > 0);
            let provenance = provenance(config, example.case_index, shrunk, example.shrink_evaluations);
            let mut fixture = if example.hang {
                let evaluation = hung(subject, &example.shrunk, config.case_timeout_ms);
                build_fixture_from(subject, law, &example.shrunk, provenance, &evaluation)
            } else {
                build_fixture(subject, law, config, &example.shrunk, provenance)
            };
            if let Some(flaky) = &example.nondeterministic {
                fixture.status = Status::Nondeterministic;
                fixture.note = Some(format!("the search saw `{}`; {flaky}", example.violation.message));
            }
            example.fixture = finds.promote(law, example.case_index, &fixture).map(|placed| placed.path().to_owned());
        }
        examples.push(example);
    }
    examples
}

/// Writes the first case `law` left unjudged as a fixture (unshrunk: the shrinker keeps violations), with
/// the inconclusive verdict stored: replay fails on it until the case is judged.
fn place_unjudged<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    config: &Config,
    mut first: Unjudged<S::Config>,
    finds: &Finds<'_, S>,
) -> Unjudged<S::Config> {
    if !finds.writes() {
        return first;
    }
    let provenance = provenance(config, first.case_index, false, 0);
    let mut fixture = build_fixture(subject, law, config, &first.case, provenance);
    fixture.note = Some(format!(
        "not judged: {}; a run holds only when every case was judged, so this fixture fails until the law can \
         judge the case",
        first.reason
    ));
    first.fixture = finds.promote(law, first.case_index, &fixture).map(|placed| placed.path().to_owned());
    first
}

/// How a random-search counterexample was found (and shrunk).
pub(super) fn provenance(config: &Config, case_index: u64, shrunk: bool, evaluations: u64) -> Provenance {
    Provenance {
        source: Source::RandomSearch,
        run_seed: Some(format!("{:#x}", config.seed)),
        case_index: Some(case_index),
        shrunk,
        shrink_evaluations: evaluations,
        timelaw_version: crate::VERSION.to_owned(),
    }
}

/// Shrinks one found violation (not when the store already failed: the run ends with its error).
fn shrink_one<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    config: &Config,
    found: Found<S::Config>,
    store_failed: bool,
    launcher: Option<&Launcher>,
) -> Counterexample<S::Config> {
    let budget = ShrinkBudget { evals_max: config.shrink_evals_max, time_max: shrink_time(config) };
    // A hang is never run again in-process: it would hang again (and cost one more abandoned thread).
    // It is re-run and shrunk in child processes instead, when this executable can be run again.
    let hang = is_hang(&found);
    let nondeterministic = match (hang, launcher) {
        (false, _) => rerun(subject, law, config, &found),
        (true, Some(launcher)) => launcher.rerun_hang(subject, law, config, &found), // In a child process.
        (true, None) => None,
    };
    let drawn = drawn(subject, config, &found);
    let shrunk = match (store_failed || nondeterministic.is_some(), hang, launcher) {
        (true, _, _) | (false, true, None) => None,
        (false, true, Some(launcher)) => {
            let evaluator = |case: &Case<S::Config>, replay| launcher.evaluate(subject, case, replay, config);
            shrink_with(subject, law, drawn, budget, config.limits, Some(&evaluator)).ok()
        }
        (false, false, _) => shrink_bounded(subject, law, drawn, budget, config.limits, config.case_timeout_ms).ok(),
    };
    let (shrunk, violation, evaluations) = match shrunk {
        Some(outcome) => (outcome.case, outcome.violation, outcome.evaluations),
        // The search saw a violation; a failing re-run means the subject is nondeterministic.
        None => (found.case.clone(), found.violation.clone(), 0),
    };
    Counterexample {
        case_index: found.case_index,
        found: found.case,
        shrunk,
        violation,
        shrink_evaluations: evaluations,
        fixture: None,
        nondeterministic,
        hang,
    }
}

/// The found case with the answers its config was drawn from (the run's seed and swarm for its index), so
/// a config whose domain lists no numbers of its own shrinks by them (see `shrink::Drawn`).
fn drawn<S: ConfigDomain + ?Sized>(subject: &S, config: &Config, found: &Found<S::Config>) -> Drawn<S::Config> {
    let index = found.case_index;
    let answers = sample_case_answers(subject, mix(config.seed, index), &config.swarm_of(index));
    Drawn { case: found.case.clone(), answers }
}

/// Re-runs the found case on a fresh World: `None` when it violates the law the same way again, else
/// what differed.
fn rerun<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    config: &Config,
    found: &Found<S::Config>,
) -> Option<Nondeterminism> {
    let replay = law.id == timelaw_laws::ids::DETERMINISTIC_REPLAY;
    let evaluation = evaluate_bounded(subject, &found.case, config.limits, replay, config.case_timeout_ms);
    let verdict = evaluation.judge(law, &found.case);
    if matches!(&verdict, Verdict::Violated(violation) if *violation == found.violation) {
        return None;
    }
    let first_difference = crate::eval::first_difference(&found.trace, &evaluation.trace);
    Some(Nondeterminism { rerun: verdict, first_difference })
}

/// Whether the search recorded `found` as a hang (the watchdog's "no progress" trace).
pub(super) fn is_hang<C>(found: &Found<C>) -> bool {
    matches!(found.trace.end, timelaw_core::TraceEnd::Aborted(timelaw_core::Abort::NoProgress { .. }))
}

fn shrink_time(config: &Config) -> Option<std::time::Duration> {
    config.shrink_time_ms.map(std::time::Duration::from_millis)
}

/// A regression fixture for `case` (the verdict and trace are recomputed from the case, under the
/// watchdog: a case that hangs gives a fixture of its "no progress" verdict).
pub fn build_fixture<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    config: &Config,
    case: &Case<S::Config>,
    provenance: Provenance,
) -> Fixture<S::Config> {
    let replay = law.id == timelaw_laws::ids::DETERMINISTIC_REPLAY;
    let evaluation = evaluate_bounded(subject, case, config.limits, replay, config.case_timeout_ms);
    build_fixture_from(subject, law, case, provenance, &evaluation)
}

/// A regression fixture for `case` from its `evaluation` (no run).
pub fn build_fixture_from<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    case: &Case<S::Config>,
    provenance: Provenance,
    evaluation: &Evaluation,
) -> Fixture<S::Config> {
    let verdict: Verdict = evaluation.judge(law, case);
    Fixture {
        about: ABOUT.to_owned(),
        format: FORMAT.to_owned(),
        version: if subject.std_clocks().is_virtual() || subject.std_random().is_seeded() {
            fixture::VERSION
        } else {
            fixture::version_for(case)
        },
        law: law.id.to_owned(),
        subject: subject.name().to_owned(),
        status: Status::Regression,
        note: None,
        profile: None,
        std_clocks: subject.std_clocks(),
        std_random: subject.std_random(),
        case: case.clone(),
        verdict,
        provenance,
        trace: fixture::trace_lines(&evaluation.trace),
    }
}
