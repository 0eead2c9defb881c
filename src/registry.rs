//! Subjects by name, with their config types erased: what the CLI and the replay harness work with.

use std::path::{Path, PathBuf};

use timelaw_core::{mix, Abort, StdClocks, StdRandom, Trace, TraceEnd};
use timelaw_generators::{sample_case_answers, ConfigDomain};
use timelaw_laws::{Catalogue, Law, Verdict};

use crate::config::Config;
use crate::fixture::{self, Fixture, FixtureError, Placed, Profile, Provenance, Source, Status};
use crate::known::{compare, KnownMatch};
use crate::report::{mark_harness_laws, to_report};
use crate::runner::{build_fixture, build_fixture_from, run, Progress, StoreNotes};
use crate::shrink::{shrink_bounded, Drawn, ShrinkBudget};
use crate::watchdog::evaluate_bounded;
use timelaw_reports::Report;

/// What replaying one fixture found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayResult {
    /// The fixture's law.
    pub law: String,
    /// The fixture's status.
    pub status: Status,
    /// The verdict now.
    pub verdict: Verdict,
    /// What replay found, against the fixture's status and stored verdict.
    pub outcome: ReplayOutcome,
    /// Whether the fixture's expectation is met.
    pub passed: bool,
    /// A sentence saying why it passed or failed.
    pub explanation: String,
    /// What about the fixture's case lies outside the subject's domain (empty when it belongs): a
    /// hand-edited or imported case may; replay warns, since a violation there may be no bug.
    pub outside: Vec<String>,
}

impl ReplayResult {
    /// The warning line for a case outside the domain, naming `path`; `None` when it belongs.
    pub fn outside_warning(&self, path: &Path) -> Option<String> {
        (!self.outside.is_empty()).then(|| {
            format!(
                "warning: {}: the case lies outside the domain: {}",
                crate::fixture::shown(path),
                self.outside.join("; ")
            )
        })
    }
}

/// What replaying a fixture found. Only [`ReplayOutcome::Holds`] and [`ReplayOutcome::StillViolated`]
/// pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// A regression fixture: the law holds, on a run that completed (or that a documented cut ended).
    Holds,
    /// A regression fixture: the law is violated or inconclusive again.
    Regressed,
    /// A regression fixture whose case no longer exercises its law: the law is vacuous on it, or the
    /// run did not complete (the subject refused the config, hung, panicked, misused the World), so the
    /// fixture proves nothing any more. Fails; `why` says which.
    NotExercised {
        /// Why, in a few words: `vacuous`, or how the run ended.
        why: String,
    },
    /// A regression fixture whose law no longer applies to its config.
    NotApplicable,
    /// A known violation that still reproduces: the same violation ([`KnownMatch::Same`]), or as far as
    /// an older stored verdict allows comparing ([`KnownMatch::Loosely`]).
    StillViolated(KnownMatch),
    /// A known violation whose law is still violated, but differently (another event or message class):
    /// a changed bug, not the known one. Fails.
    ViolatedDifferently(KnownMatch),
    /// A known violation that no longer reproduces. Fails.
    NoLongerViolated,
    /// A nondeterministic finding that still reproduces on some runs and not on others: a warning,
    /// neither a pass nor a failure.
    Nondeterministic,
    /// A fixture of another build profile (it states one, [`Profile`]): skipped, visibly; neither a pass
    /// nor a failure.
    OtherProfile {
        /// The profile the fixture belongs to.
        profile: Profile,
    },
    /// A fixture whose case ran with virtual std clocks while its subject now declares real ones
    /// ([`timelaw_core::std_clocks`]): the case would run on the machine's clocks. Fails.
    OtherStdClocks {
        /// The clocks the fixture's case ran with.
        fixture: StdClocks,
        /// The clocks the subject declares.
        subject: StdClocks,
    },
    /// A fixture whose case ran with seeded std randomness while its subject now declares the operating
    /// system's ([`timelaw_core::std_random`]). Fails.
    OtherStdRandom {
        /// The randomness the fixture's case ran with.
        fixture: StdRandom,
        /// The randomness the subject declares.
        subject: StdRandom,
    },
    /// A nondeterministic finding that reproduced on every one of the runs replay made, or on none: it is
    /// no longer nondeterministic (pin it as a finding, or delete it as fixed). Fails.
    NowDeterministic {
        /// The runs on which the stored violation reproduced.
        reproduced: usize,
        /// The runs made ([`NONDETERMINISTIC_RUNS`]).
        runs: usize,
    },
}

impl ReplayOutcome {
    /// `true` for the outcomes that meet the fixture's expectation.
    pub fn passed(&self) -> bool {
        matches!(self, ReplayOutcome::Holds | ReplayOutcome::StillViolated(_))
    }
    /// `true` for a warning: neither a pass nor a failure.
    pub fn is_warning(&self) -> bool {
        matches!(self, ReplayOutcome::Nondeterministic)
    }
    /// `true` for a fixture this build does not replay (another build profile): neither a pass nor a
    /// failure, and said so.
    pub fn is_skip(&self) -> bool {
        matches!(self, ReplayOutcome::OtherProfile { .. })
    }
}

/// A fixture's case run again, for `timelaw explain`.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The law.
    pub law: Law,
    /// The trace.
    pub trace: Trace,
    /// The law's verdict on it.
    pub verdict: Verdict,
    /// The fixture's note.
    pub note: Option<String>,
}

/// Why a fixture operation failed.
#[derive(Debug, thiserror::Error)]
pub enum OperationError {
    /// A bad fixture file.
    #[error(transparent)]
    Fixture(#[from] FixtureError),
    /// The fixture's case no longer violates its law, so there is nothing to shrink.
    #[error("{path}: the case does not violate `{law}` (verdict: {verdict}); nothing to shrink")]
    NotFailing {
        /// The file.
        path: PathBuf,
        /// The law.
        law: String,
        /// The verdict now.
        verdict: Verdict,
    },
    /// A fixture whose case hangs (the watchdog saw no progress): it is not shrunk in-process.
    #[error("{path}: the case makes no progress for {timeout_ms} ms; a hang is not shrunk in-process")]
    Hangs {
        /// The file.
        path: PathBuf,
        /// The watchdog's limit.
        timeout_ms: u64,
    },
    /// A crash artifact whose case violates no law.
    #[error(
        "{path}: the decoded case violates no law (verdicts hold); was the artifact an out-of-memory report, or a timeout that is only slow?"
    )]
    NoViolation {
        /// The artifact.
        path: PathBuf,
    },
    /// A crash artifact imported for one law (`--law`, the law its crash message names) whose case does
    /// not violate that law.
    #[error(
        "{path}: the decoded case does not violate `{law}`; give the law the crash message names (its \
         `import:` line), or import without --law to take the first law the case violates"
    )]
    LawNotViolated {
        /// The artifact.
        path: PathBuf,
        /// The law asked for.
        law: String,
    },
}

/// Which config `timelaw contract` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigPick {
    /// The config of case 0 of a run with this seed (`timelaw check --seed N`).
    Seed(u64),
    /// The domain's simplest config ([`ConfigDomain::simplest_config`]).
    Simplest,
}

/// A config of a subject (as JSON) and the contract it states for it.
#[derive(Clone, Debug, PartialEq)]
pub struct ContractSample {
    /// The config, as fixtures write it.
    pub config: serde_json::Value,
    /// What the subject promises for it.
    pub contract: timelaw_core::Contract,
}

/// A subject with its config type erased.
pub trait DynSubject: Sync {
    /// The config `pick` names and the subject's contract for it (`timelaw contract`).
    ///
    /// # Errors
    /// A config that does not serialize to JSON (a map with non-string keys).
    fn contract_sample(&self, pick: ConfigPick) -> Result<ContractSample, serde_json::Error>;
    /// Its name.
    fn name(&self) -> &str;
    /// The laws that judge the harness driving it, not the code under test (see
    /// [`Subject::harness_laws`]).
    fn harness_laws(&self) -> &'static [&'static str];
    /// Runs `laws` under `config` and builds the report; the store's notes say what happened to the
    /// fixtures folder (a write error, recovered files, findings already pinned).
    fn check(&self, laws: &Catalogue, config: &Config, progress: &dyn Progress) -> (Report, StoreNotes);
    /// Replays the fixture `text` read from `path`.
    ///
    /// # Errors
    /// A bad fixture, an unknown law.
    fn replay(&self, laws: &Catalogue, path: &Path, text: &str, config: &Config) -> Result<ReplayResult, FixtureError>;
    /// The single shrink moves from the fixture's case ([`crate::shrink::moves`]) on which its law is
    /// still violated, each as "move: violation"; empty when the case is 1-minimal.
    ///
    /// # Errors
    /// A bad fixture, an unknown law.
    fn violating_moves(
        &self,
        laws: &Catalogue,
        path: &Path,
        text: &str,
        config: &Config,
    ) -> Result<Vec<String>, FixtureError>;
    /// The fixture `text` read from `path` rewritten in the current format version, or `None` when it is
    /// current already (`timelaw fixtures upgrade`).
    ///
    /// # Errors
    /// A bad fixture (it is then never rewritten).
    fn upgrade(&self, path: &Path, text: &str) -> Result<Option<String>, FixtureError>;
    /// Runs the fixture's case again and judges its law.
    ///
    /// # Errors
    /// A bad fixture, an unknown law.
    fn explain(&self, laws: &Catalogue, path: &Path, text: &str, config: &Config) -> Result<Explanation, FixtureError>;
    /// Shrinks the fixture's case again and rewrites the file (asked for by the user) under its new name,
    /// keeping its status and note. Another existing file is never replaced (unless `config.bless`): when
    /// one already pins the shrunk case, the fixture is left as it is and that file is returned.
    ///
    /// # Errors
    /// A bad fixture, a case that no longer fails, a write error.
    fn shrink_fixture(
        &self,
        laws: &Catalogue,
        path: &Path,
        text: &str,
        config: &Config,
    ) -> Result<Placed, OperationError>;
    /// Decodes a fuzz artifact as the target that wrote it did: `config.concurrency` says which target
    /// that was (`true` for `check_bytes_concurrent`, `false` for `check_bytes`; see
    /// [`crate::fuzz::Decoding::from_concurrency`]). [`Config::default`] has it on (a check draws
    /// overlapping calls by default), so set it to `false` for an artifact of a sequential target, as
    /// `timelaw import-crash` does without `--concurrency`. Then finds the first violated law of `laws`
    /// that is not a finding pinned in `dir` ([`crate::known::pinned_finding`]; the first violated law
    /// when all are), shrinks and places the fixture in `dir` (never replacing a file unless
    /// `config.bless`). To import the crash for the law the target crashed on, whatever `dir` pins, pass
    /// a catalogue of that law alone (`timelaw import-crash --law ID`, which the crash message prints).
    ///
    /// # Errors
    /// An unreadable artifact, a case that violates nothing ([`OperationError::LawNotViolated`] when
    /// `laws` holds one law), an unwritable folder.
    fn import_crash(
        &self,
        laws: &Catalogue,
        artifact: &Path,
        dir: &Path,
        config: &Config,
    ) -> Result<Placed, OperationError>;
}

/// A random-search fixture's case with the answers its config was drawn from, found again from its run
/// seed and case index under `config`'s swarm settings (used only when they describe the stored config:
/// see `shrink::Drawn`); other fixtures' cases without answers.
fn drawn_again<S: ConfigDomain + ?Sized>(
    subject: &S,
    fixture: &Fixture<S::Config>,
    config: &Config,
) -> Drawn<S::Config> {
    let provenance = &fixture.provenance;
    let run_seed =
        provenance.run_seed.as_deref().and_then(|seed| u64::from_str_radix(seed.strip_prefix("0x")?, 16).ok());
    let answers = match (provenance.source, run_seed, provenance.case_index) {
        (Source::RandomSearch, Some(seed), Some(index)) => {
            let run = Config { seed, ..config.clone() };
            sample_case_answers(subject, mix(seed, index), &run.swarm_of(index))
        }
        _ => None,
    };
    Drawn { case: fixture.case.clone(), answers }
}

fn law_of<'a>(laws: &'a Catalogue, path: &Path, id: &str) -> Result<&'a Law, FixtureError> {
    laws.get(id).ok_or_else(|| FixtureError::UnknownLaw { path: path.to_owned(), id: id.to_owned() })
}

/// What replaying a fixture of `status` found, given the verdict now and how the run ended.
fn replay_verdict(status: Status, stored: &Verdict, verdict: &Verdict, end: &TraceEnd) -> (ReplayOutcome, String) {
    let exercised = matches!(end, TraceEnd::Complete) || end.cut().is_some();
    match (status, verdict) {
        (Status::Regression, Verdict::Holds) if exercised => (ReplayOutcome::Holds, "the law holds".to_owned()),
        (Status::Regression, Verdict::Holds | Verdict::Vacuous) => {
            let why = if exercised { "vacuous".to_owned() } else { ended_how(end) };
            let text = format!(
                "the fixture no longer exercises the law ({why}): it proves nothing now; regenerate or delete it"
            );
            (ReplayOutcome::NotExercised { why }, text)
        }
        (Status::Regression, Verdict::NotApplicable) => (
            ReplayOutcome::NotApplicable,
            "the law no longer applies to this config; regenerate or delete the fixture".to_owned(),
        ),
        (Status::Regression, other) => (ReplayOutcome::Regressed, format!("regression: {other}")),
        (Status::KnownViolation, _) => known_verdict(stored, verdict),
        (Status::Nondeterministic, _) => (
            ReplayOutcome::Nondeterministic,
            format!(
                "warning: a nondeterministic finding, not a fact (now: {verdict}); find why the subject's runs differ"
            ),
        ),
    }
}

/// The result of replaying `fixture` when it belongs to the other build profile than this build's.
fn other_profile<C>(fixture: &Fixture<C>) -> Option<ReplayResult> {
    let profile = fixture.profile.filter(|profile| *profile != Profile::current())?;
    let explanation = format!(
        "skipped: the finding belongs to {} builds (overflow checks {}) and this is a {} build",
        profile.name(),
        if profile == Profile::Debug { "on" } else { "off" },
        Profile::current().name()
    );
    Some(not_run(fixture, ReplayOutcome::OtherProfile { profile }, explanation))
}

/// The result of a fixture that replay did not run: `outcome`, saying why, never a pass.
fn not_run<C>(fixture: &Fixture<C>, outcome: ReplayOutcome, explanation: String) -> ReplayResult {
    ReplayResult {
        law: fixture.law.clone(),
        status: fixture.status,
        verdict: Verdict::NotApplicable,
        outcome,
        passed: false,
        explanation,
        outside: Vec::new(),
    }
}

/// The result of replaying `fixture`, whose case ran with virtual std clocks, with a subject that now
/// declares real ones: the case would run on the machine's clocks, so it proves nothing either way.
/// Fails. A fixture that states no clocks (real, or written before fixtures stated them) replays with
/// the subject's.
fn other_std_clocks<C>(fixture: &Fixture<C>, subject: StdClocks) -> Option<ReplayResult> {
    if !fixture.std_clocks.is_virtual() || subject.is_virtual() {
        return None;
    }
    let explanation = format!(
        "the case ran with virtual std clocks (the fixture's `std_clocks`) and subject `{}` now declares real \
         ones (`Subject::std_clocks`): it would run on the machine's clocks; declare virtual std clocks again, \
         or regenerate the fixture",
        fixture.subject
    );
    Some(not_run(fixture, ReplayOutcome::OtherStdClocks { fixture: fixture.std_clocks, subject }, explanation))
}

/// The result of replaying `fixture`, whose case ran with seeded std randomness, with a subject that now
/// declares the operating system's: the case would draw other randomness. Fails, as
/// [`other_std_clocks`].
fn other_std_random<C>(fixture: &Fixture<C>, subject: StdRandom) -> Option<ReplayResult> {
    if !fixture.std_random.is_seeded() || subject.is_seeded() {
        return None;
    }
    let explanation = format!(
        "the case ran with seeded std randomness (the fixture's `std_random`) and subject `{}` now declares the \
         operating system's (`Subject::std_random`): it would draw other randomness; declare seeded std \
         randomness again, or regenerate the fixture",
        fixture.subject
    );
    Some(not_run(fixture, ReplayOutcome::OtherStdRandom { fixture: fixture.std_random, subject }, explanation))
}

/// How often replay runs a `nondeterministic` fixture's case: enough that a finding which violates on
/// about one run in two is seen both ways almost always (a miss needs 8 equal runs: 1 in 128).
pub const NONDETERMINISTIC_RUNS: usize = 8;

/// What `verdicts`, runs of a `nondeterministic` fixture's case, say of it: still a warning while the
/// stored violation reproduces on some runs and not on others; a failure once it reproduces on every run
/// (it is deterministic now: pin it as a finding) or on none (it is fixed, or never was a bug).
fn nondeterministic_verdict(stored: &Verdict, verdicts: &[Verdict]) -> (ReplayOutcome, String) {
    let reproduced = verdicts.iter().filter(|verdict| compare(stored, verdict).reproduces()).count();
    let runs = verdicts.len();
    let now = verdicts.first().map_or_else(String::new, ToString::to_string);
    match reproduced {
        0 => (
            ReplayOutcome::NowDeterministic { reproduced, runs },
            format!(
                "the nondeterministic finding never reproduced in {runs} runs (now: {now}): it is fixed or was \
                 never a bug; delete the fixture, or set its status to \"regression\" to keep the case"
            ),
        ),
        _ if reproduced == runs => (
            ReplayOutcome::NowDeterministic { reproduced, runs },
            format!(
                "the nondeterministic finding reproduced in all {runs} runs (now: {now}): it is deterministic; \
                 pin it with status \"known_violation\", or fix it"
            ),
        ),
        _ => (
            ReplayOutcome::Nondeterministic,
            format!(
                "warning: a nondeterministic finding, not a fact (reproduced in {reproduced} of {runs} runs; now: \
                 {now}); find why the subject's runs differ"
            ),
        ),
    }
}

/// How a run that did not complete ended, in a few words.
fn ended_how(end: &TraceEnd) -> String {
    match end {
        TraceEnd::Complete => "the run completed".to_owned(),
        TraceEnd::Aborted(Abort::InvalidConfig(reason)) => format!("the subject refused the config: {reason}"),
        TraceEnd::Aborted(Abort::NoProgress { timeout_ms }) => format!("the run hung: no progress for {timeout_ms} ms"),
        TraceEnd::Aborted(abort) => format!("the run ended early: {abort}"),
        TraceEnd::Panicked(message) => format!("the subject panicked: {message}"),
    }
}

fn known_verdict(stored: &Verdict, verdict: &Verdict) -> (ReplayOutcome, String) {
    match compare(stored, verdict) {
        KnownMatch::NotViolated => (
            ReplayOutcome::NoLongerViolated,
            format!("the known violation no longer reproduces ({verdict}); if upstream fixed it, set status to \"regression\""),
        ),
        same @ KnownMatch::Same => (ReplayOutcome::StillViolated(same), format!("still reproduces: {verdict}")),
        loose @ KnownMatch::Loosely { .. } => {
            let text = format!("still reproduces: {verdict} ({loose})");
            (ReplayOutcome::StillViolated(loose), text)
        }
        changed @ KnownMatch::Differently { .. } => {
            let text = format!("{changed} (stored: {stored}; now: {verdict}); if the change is understood, \
                rewrite the fixture's verdict, otherwise this is a new bug");
            (ReplayOutcome::ViolatedDifferently(changed), text)
        }
    }
}

impl<S: ConfigDomain> DynSubject for S {
    fn contract_sample(&self, pick: ConfigPick) -> Result<ContractSample, serde_json::Error> {
        let config = match pick {
            ConfigPick::Seed(seed) => {
                let swarm = timelaw_generators::swarm_for(seed, 0);
                timelaw_generators::sample_case(self, timelaw_core::mix(seed, 0), &swarm).config
            }
            ConfigPick::Simplest => self.simplest_config(),
        };
        Ok(ContractSample { contract: Subject::contract(self, &config), config: serde_json::to_value(&config)? })
    }

    fn name(&self) -> &str {
        Subject::name(self)
    }

    fn harness_laws(&self) -> &'static [&'static str] {
        Subject::harness_laws(self)
    }

    fn check(&self, laws: &Catalogue, config: &Config, progress: &dyn Progress) -> (Report, StoreNotes) {
        let output = run(self, laws, config, progress);
        let mut report = to_report(&output);
        mark_harness_laws(&mut report, Subject::harness_laws(self));
        (report, output.store)
    }

    fn replay(&self, laws: &Catalogue, path: &Path, text: &str, config: &Config) -> Result<ReplayResult, FixtureError> {
        let fixture: Fixture<S::Config> = fixture::parse(path, text)?;
        let law = law_of(laws, path, &fixture.law)?;
        if let Some(skipped) = other_profile(&fixture) {
            return Ok(skipped);
        }
        if let Some(mismatch) = other_std_clocks(&fixture, Subject::std_clocks(self)) {
            return Ok(mismatch);
        }
        if let Some(mismatch) = other_std_random(&fixture, Subject::std_random(self)) {
            return Ok(mismatch);
        }
        let replay = law.id == timelaw_laws::ids::DETERMINISTIC_REPLAY;
        let evaluation = evaluate_bounded(self, &fixture.case, config.limits, replay, config.case_timeout_ms);
        let verdict = evaluation.judge(law, &fixture.case);
        let (mut outcome, mut explanation) =
            replay_verdict(fixture.status, &fixture.verdict, &verdict, &evaluation.trace.end);
        if fixture.status == Status::Nondeterministic {
            let runs = |_| {
                let again = evaluate_bounded(self, &fixture.case, config.limits, replay, config.case_timeout_ms);
                again.judge(law, &fixture.case)
            };
            let verdicts: Vec<Verdict> =
                std::iter::once(verdict.clone()).chain((1..NONDETERMINISTIC_RUNS).map(runs)).collect();
            (outcome, explanation) = nondeterministic_verdict(&fixture.verdict, &verdicts);
        }
        let passed = outcome.passed();
        let outside = timelaw_generators::case_outside(self, &fixture.case).iter().map(ToString::to_string).collect();
        Ok(ReplayResult { law: fixture.law, status: fixture.status, verdict, outcome, passed, explanation, outside })
    }

    fn violating_moves(
        &self,
        laws: &Catalogue,
        path: &Path,
        text: &str,
        config: &Config,
    ) -> Result<Vec<String>, FixtureError> {
        let fixture: Fixture<S::Config> = fixture::parse(path, text)?;
        let law = law_of(laws, path, &fixture.law)?;
        let replay = law.id == timelaw_laws::ids::DETERMINISTIC_REPLAY;
        // A move counts as the shrinker counts it: a violation found by another check, or a panic of
        // another class, is another finding. The fixture's own case, run, says which check finds it (a
        // stored verdict has no site).
        let found = evaluate_bounded(self, &fixture.case, config.limits, replay, config.case_timeout_ms)
            .judge(law, &fixture.case);
        let stored = match (&found, &fixture.verdict) {
            (Verdict::Violated(violation), _) | (_, Verdict::Violated(violation)) => Some(violation),
            _ => None,
        };
        let still = |next: &crate::shrink::Move<S::Config>| match evaluate_bounded(
            self,
            &next.case,
            config.limits,
            replay,
            config.case_timeout_ms,
        )
        .judge(law, &next.case)
        {
            Verdict::Violated(violation)
                if !stored.is_some_and(|stored| crate::shrink::another_finding(stored, &violation)) =>
            {
                Some(format!("{}: {}", next.name, violation.message))
            }
            _ => None,
        };
        Ok(crate::shrink::moves(self, &fixture.case).iter().filter_map(still).collect())
    }

    fn upgrade(&self, path: &Path, text: &str) -> Result<Option<String>, FixtureError> {
        fixture::migrate::upgrade::<S::Config>(path, text)
    }

    fn explain(&self, laws: &Catalogue, path: &Path, text: &str, config: &Config) -> Result<Explanation, FixtureError> {
        let fixture: Fixture<S::Config> = fixture::parse(path, text)?;
        let law = *law_of(laws, path, &fixture.law)?;
        let evaluation = evaluate_bounded(self, &fixture.case, config.limits, true, config.case_timeout_ms);
        let verdict = evaluation.judge(&law, &fixture.case);
        Ok(Explanation { law, trace: evaluation.trace, verdict, note: fixture.note })
    }

    fn shrink_fixture(
        &self,
        laws: &Catalogue,
        path: &Path,
        text: &str,
        config: &Config,
    ) -> Result<Placed, OperationError> {
        let fixture: Fixture<S::Config> = fixture::parse(path, text)?;
        let law = *law_of(laws, path, &fixture.law)?;
        let probe = evaluate_bounded(self, &fixture.case, config.limits, false, config.case_timeout_ms);
        if let TraceEnd::Aborted(Abort::NoProgress { timeout_ms }) = probe.trace.end {
            return Err(OperationError::Hangs { path: path.to_owned(), timeout_ms });
        }
        let budget = ShrinkBudget { evals_max: config.shrink_evals_max, time_max: None };
        let (case, limits, timeout_ms) = (drawn_again(self, &fixture, config), config.limits, config.case_timeout_ms);
        let outcome = shrink_bounded(self, &law, case, budget, limits, timeout_ms).map_err(|error| {
            OperationError::NotFailing { path: path.to_owned(), law: law.id.to_owned(), verdict: error.verdict }
        })?;
        let provenance = Provenance { shrunk: true, shrink_evaluations: outcome.evaluations, ..fixture.provenance };
        let mut rebuilt = build_fixture(self, &law, config, &outcome.case, provenance);
        rebuilt.status = fixture.status;
        rebuilt.note = fixture.note;
        rebuilt.profile = fixture.profile;
        rebuilt.version = fixture::version_of(&rebuilt);
        let dir = path.parent().unwrap_or(Path::new("."));
        let name = fixture::file_name(&rebuilt.law, &rebuilt.subject, &rebuilt.case);
        if dir.join(&name) == path || path.file_name().is_some_and(|own| own == name.as_str()) {
            // The user asked to shrink this very file: rewrite it in place.
            let mut text = serde_json::to_string_pretty(&rebuilt).map_err(|e| FixtureError::parse(path, &e))?;
            text.push('\n');
            fixture::write_atomic(path, &text)?;
            return Ok(Placed::Written(path.to_owned()));
        }
        let placed = fixture::place(dir, &rebuilt, config.bless)?;
        if let Placed::Written(_) = placed {
            std::fs::remove_file(path).map_err(|e| FixtureError::io(path, e))?;
        }
        Ok(placed)
    }

    fn import_crash(
        &self,
        laws: &Catalogue,
        artifact: &Path,
        dir: &Path,
        config: &Config,
    ) -> Result<Placed, OperationError> {
        let bytes = std::fs::read(artifact).map_err(|e| FixtureError::io(artifact, e))?;
        // Decoded as the fuzz target did: overlapping calls when `config.concurrency` is set.
        let drawn = crate::fuzz::Decoding::from_concurrency(config.concurrency).drawn(self, &bytes);
        let case = drawn.case.clone();
        // libFuzzer's `timeout-*` artifacts import like crashes: the watchdog bounds the run.
        let evaluation = evaluate_bounded(self, &case, config.limits, true, config.case_timeout_ms);
        // The fuzz targets skip inputs whose every violation is a pinned finding; import the first one that
        // is not (`known::pinned_finding`: the same law, message class and, shrunk, the pinned case).
        let pinned = crate::known::pinned_in(dir, Subject::name(self))?;
        let violated: Vec<(&Law, Verdict)> = laws
            .iter()
            .map(|law| (law, evaluation.judge(law, &case)))
            .filter(|(_, verdict)| verdict.is_violated())
            .collect();
        let hang = matches!(evaluation.trace.end, TraceEnd::Aborted(Abort::NoProgress { .. }));
        let fresh = violated
            .iter()
            .find(|(law, verdict)| hang || crate::known::pinned_finding(self, &pinned, law, verdict, &drawn).is_none());
        let law = fresh.or(violated.first()).map(|(law, _)| *law).ok_or_else(|| match laws.laws() {
            [only] => OperationError::LawNotViolated { path: artifact.to_owned(), law: only.id.to_owned() },
            _ => OperationError::NoViolation { path: artifact.to_owned() },
        })?;
        let budget = ShrinkBudget { evals_max: config.shrink_evals_max, time_max: None };
        // A hang is not shrunk in-process (every candidate that still hangs would cost a thread).
        let (limits, timeout_ms) = (config.limits, config.case_timeout_ms);
        let shrunk = if hang { None } else { shrink_bounded(self, law, drawn, budget, limits, timeout_ms).ok() };
        let (shrunk, evaluations) = shrunk.map_or((case, 0), |outcome| (outcome.case, outcome.evaluations));
        let provenance = Provenance {
            source: Source::Fuzz,
            run_seed: None,
            case_index: None,
            shrunk: !hang,
            shrink_evaluations: evaluations,
            timelaw_version: crate::VERSION.to_owned(),
        };
        let fixture = match hang {
            true => build_fixture_from(self, law, &shrunk, provenance, &evaluation),
            false => build_fixture(self, law, config, &shrunk, provenance),
        };
        Ok(fixture::place(dir, &fixture, config.bless)?)
    }
}

use timelaw_core::Subject;

#[cfg(feature = "adapters")]
fn add_adapters(registry: &mut Registry) {
    use timelaw_adapters::{backon, exponential_backoff, governor, recloser, tokio_retry2, tokio_timeout_loop, tower};
    registry
        .add(backon::BackonExponential)
        .add(backon::BackonFibonacci)
        .add(backon::BackonConstant)
        .add(backon::BackonRetry)
        .add(tower::TowerBackoff)
        .add(tower::TowerBudget)
        .add(tower::TowerConcurrencyLimit)
        .add(tower::TowerRateLimit)
        .add(tower::TowerHedge)
        .add(exponential_backoff::ExponentialBackoffSubject)
        .add(tokio_retry2::TokioRetry2Exponential)
        .add(tokio_retry2::TokioRetry2ExponentialFactor)
        .add(tokio_retry2::TokioRetry2Fibonacci)
        .add(tokio_retry2::TokioRetry2Fixed)
        .add(tokio_retry2::TokioRetry2Linear)
        .add(tokio_retry2::TokioRetry2Retry)
        .add(tokio_timeout_loop::TokioTimeoutLoop)
        .add(governor::Governor)
        .add(recloser::RecloserSubject);
}

/// The subjects known by name.
#[derive(Default)]
pub struct Registry {
    subjects: Vec<Box<dyn DynSubject>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }
    /// The built-in subjects: the reference interpreter and, with the `adapters` feature (off by
    /// default; the `timelaw` binary has it), the bundled adapters for real retry crates.
    pub fn builtin() -> Registry {
        let mut registry = Registry::new();
        registry.add(timelaw_core::reference::Reference);
        #[cfg(feature = "adapters")]
        add_adapters(&mut registry);
        registry
    }
    /// Adds a subject (a later subject with the same name replaces the earlier one).
    pub fn add<S: ConfigDomain + 'static>(&mut self, subject: S) -> &mut Registry {
        let name = Subject::name(&subject).to_owned();
        self.subjects.retain(|known| known.name() != name);
        self.subjects.push(Box::new(subject));
        self
    }
    /// Adds a subject and gives the registry back, for one-line binaries:
    /// `timelaw::cli::main(Registry::builtin().with(MySubject))` (as [`Registry::add`] otherwise).
    pub fn with<S: ConfigDomain + 'static>(mut self, subject: S) -> Registry {
        self.add(subject);
        self
    }
    /// The subject called `name`.
    pub fn get(&self, name: &str) -> Option<&dyn DynSubject> {
        self.subjects.iter().find(|subject| subject.name() == name).map(|subject| subject.as_ref())
    }
    /// The names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.subjects.iter().map(|subject| subject.name()).collect()
    }
    /// The subject a fixture names, or a located error listing the known ones.
    ///
    /// # Errors
    /// [`FixtureError::UnknownSubject`].
    pub fn for_fixture(&self, path: &Path, name: &str) -> Result<&dyn DynSubject, FixtureError> {
        self.get(name).ok_or_else(|| FixtureError::UnknownSubject {
            path: path.to_owned(),
            name: name.to_owned(),
            known: self.names().join(", "),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use timelaw_core::reference::Reference;

    #[track_caller]
    fn check(registry: Registry, expect: &[&str]) {
        assert_eq!(registry.names(), expect);
    }

    #[test]
    fn with_adds_like_add_and_replaces_by_name() {
        check(Registry::new(), &[]);
        check(Registry::new().with(Reference), &["reference"]);
        check(Registry::new().with(Reference).with(Reference), &["reference"]);
        let mut added = Registry::new();
        added.add(Reference);
        check(added, &["reference"]);
    }
}
