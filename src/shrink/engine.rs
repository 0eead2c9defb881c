//! The shrink loop and its bookkeeping.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use thiserror::Error;
use timelaw_core::trace::Fnv1a;
use timelaw_core::{Abort, Case, Limits, TraceEnd};
use timelaw_generators::{case_outside, Answers, ConfigDomain, ConfigNumber};
use timelaw_laws::{ids, Law, Verdict, Violation};

use super::order::{arrivals, case_shape, within, Bound, Shape};
use super::passes::passes;
use crate::eval::{evaluate, Evaluation};
use crate::watchdog::Bounded;

/// How the shrinker runs a case when not in-process: `(case, replay)` to its evaluation. The runner
/// passes one that runs each candidate in a child process when shrinking a hang.
pub type Evaluator<'a, C> = &'a (dyn Fn(&Case<C>, bool) -> Evaluation + Sync);

/// The most candidates of one in-process shrink ([`shrink_bounded`]) the watchdog may cut as hung;
/// then the shrink stops with the best case so far. Each cut candidate costs a case timeout of wall time,
/// and one that loops in pure code keeps a thread spinning until the process ends.
pub const SHRINK_HANGS_MAX: u64 = 3;

/// Limits on one shrink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShrinkBudget {
    /// Subject runs at most, every run counted (see [`ShrinkOutcome::evaluations`]). The first run of the
    /// given case is always made; a candidate is tried only while the budget has room for both of its runs.
    pub evals_max: u64,
    /// Wall-clock time at most; `None` (the default) keeps shrinking deterministic.
    pub time_max: Option<Duration>,
}

impl Default for ShrinkBudget {
    fn default() -> ShrinkBudget {
        ShrinkBudget { evals_max: 4_000, time_max: None }
    }
}

/// What one pass did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassStats {
    /// The pass's name.
    pub name: &'static str,
    /// Candidates it evaluated.
    pub tried: u64,
    /// Candidates it kept.
    pub accepted: u64,
}

/// The minimal case found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrinkOutcome<C> {
    /// The minimal case.
    pub case: Case<C>,
    /// The law's violation on it.
    pub violation: Violation,
    /// Subject runs spent, every one counted: the first run of the given case, each candidate's run, the
    /// confirming run of the best case after each pass that kept one (see `Shrinker::confirm`), the runs of the current best case whose trace the config
    /// pass adapts schedules to, and both runs of each evaluation under `deterministic_replay`.
    pub evaluations: u64,
    /// Per pass statistics.
    pub passes: Vec<PassStats>,
    /// Whether a budget ran out before the passes reached a fixpoint (or [`SHRINK_HANGS_MAX`] candidates
    /// hung).
    pub exhausted: bool,
    /// Candidates the watchdog cut as hung (no progress for the case timeout): rejected, never kept,
    /// unless the case shrunk is itself such a hang.
    pub hung_candidates: u64,
}

/// The case given to the shrinker does not violate the law.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("the case does not violate `{law}` (verdict: {verdict})")]
pub struct NotFailing {
    /// The law.
    pub law: String,
    /// Its verdict on the case.
    pub verdict: Verdict,
}

/// The state a pass works on.
pub(super) struct Shrinker<'a, S: ConfigDomain + ?Sized> {
    pub(super) subject: &'a S,
    law: &'a Law,
    limits: Limits,
    replay: bool,
    pub(super) best: Case<S::Config>,
    violation: Violation,
    evaluations: u64,
    budget: ShrinkBudget,
    started: Option<Instant>,
    exhausted: bool,
    stats: PassStats,
    visited: HashSet<u64>,
    /// Digests of candidates evaluated and refused (the failure lost, or not reproduced): never run again,
    /// so a later round of the passes costs nothing for what an earlier round already tried.
    refused: HashSet<u64>,
    /// The shape of `best`: no candidate may be larger (see [`super::order`]).
    shape: Shape,
    /// How many domain rules `best` breaks (0 for every generated case): no candidate may break more.
    outside: usize,
    evaluator: Option<Evaluator<'a, S::Config>>,
    /// Whether the case shrunk is itself a hang the watchdog cut (then hung candidates are what it keeps).
    shrinking_hang: bool,
    /// Candidates the watchdog cut as hung so far, and how many may be before the shrink stops (`None`:
    /// no limit, each hang dies with its child process).
    hung: (u64, Option<u64>),
    /// The best cases kept since the last confirmation, oldest first (each run once); the current best
    /// is the last. See [`Shrinker::confirm`].
    pending: Vec<Kept<S::Config>>,
    /// The last best case confirmed by a second run (the given case to begin with).
    anchor: Kept<S::Config>,
    /// The config number the last kept halvings lowered and how many halvings of it were kept in a
    /// row (see `numbers::after_halving`).
    pub(super) halving_walk: (usize, u32),
    /// The config numbers (one bit per index) of the last config change kept by
    /// `numbers::coupled_attempt`, and whether its coupled form was the one kept.
    pub(super) coupled_won: Option<(u64, bool)>,
    /// The answers each config met so far was described from, where known (see [`Drawn`]): the
    /// numbers of a config whose domain lists none of its own ([`Shrinker::numbers`]).
    answers: RefCell<HashMap<S::Config, Answers>>,
}

/// A case to shrink and, when known, the answers its config was drawn from
/// ([`timelaw_generators::answers`]). With them, a config whose domain lists no numbers of its own
/// ([`ConfigDomain::config_numbers`], as for the short `subject(..)` form) shrinks by its answers:
/// `shrink_numbers` lowers each answer as it lowers a number, and the domain describes the config again
/// ([`ConfigDomain::config_of_answers`]). Without them such a config only shrinks to the domain's own
/// candidates (the simplest config). A [`Case`] converts into one without answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn<C> {
    /// The case.
    pub case: Case<C>,
    /// The answers its config was drawn from (see [`timelaw_generators::sample_case_answers`]).
    pub answers: Option<Answers>,
}

impl<C> From<Case<C>> for Drawn<C> {
    fn from(case: Case<C>) -> Drawn<C> {
        Drawn { case, answers: None }
    }
}

/// A best case with what the shrinker knows of it.
#[derive(Clone)]
struct Kept<C> {
    case: Case<C>,
    violation: Violation,
    shape: Shape,
    outside: usize,
}

fn digest<C: Hash>(case: &Case<C>) -> u64 {
    let mut hasher = Fnv1a::default();
    case.hash(&mut hasher);
    hasher.finish()
}

impl<S: ConfigDomain + ?Sized> Shrinker<'_, S> {
    /// The numbers of `config` the config passes lower: the domain's own
    /// ([`ConfigDomain::config_numbers`]), else the answers `config` was described from, each with
    /// minimum `0`, when known (see [`Drawn`]).
    pub(super) fn numbers(&self, config: &S::Config) -> Vec<ConfigNumber> {
        let own = self.subject.config_numbers(config);
        if !own.is_empty() {
            return own;
        }
        let answers = self.answers.borrow();
        let Some(answers) = answers.get(config) else { return own };
        answers.answers.iter().map(|&value| ConfigNumber { name: "answer", value, min: 0 }).collect()
    }

    /// Whether the numbers of `config` are the answers it was described from (not durations or counts).
    pub(super) fn numbers_are_answers(&self, config: &S::Config) -> bool {
        self.subject.config_numbers(config).is_empty() && self.answers.borrow().contains_key(config)
    }

    /// `config` with its number `index` (as [`Shrinker::numbers`] lists them) set to `value`: through
    /// the domain ([`ConfigDomain::with_config_number`]), or by describing the config again from its
    /// answers with answer `index` set to `value` (the new config's answers are then known too).
    pub(super) fn with_number(&self, config: &S::Config, index: usize, value: u64) -> Option<S::Config> {
        if !self.numbers_are_answers(config) {
            return self.subject.with_config_number(config, index, value);
        }
        let mut answers = self.answers.borrow().get(config)?.answers.clone();
        *answers.get_mut(index)? = value;
        self.with_answers(config, answers)
    }

    /// The config `answers` describe (under the swarm `config` was described with), when `config`'s
    /// numbers are its answers; its answers are then known too.
    pub(super) fn with_answers(&self, config: &S::Config, answers: Vec<u64>) -> Option<S::Config> {
        if !self.numbers_are_answers(config) {
            return None;
        }
        let swarm = self.answers.borrow().get(config)?.swarm;
        let (next, used) = self.subject.config_of_answers(&Answers { answers, swarm })?;
        self.know_answers(next.clone(), used);
        Some(next)
    }

    /// Finds the answers of `next`, a config the domain offered as simpler than the best one
    /// ([`ConfigDomain::shrink_config`]: a flag switched off, a field at its default), among the best
    /// config's answers with one answer lowered to `0` (and the one or two after it deleted, for an
    /// option that reads fewer) or by one. Without them the answer passes could not go on from `next`.
    /// Descriptions only: no evaluation is spent.
    fn carry_answers(&self, next: &S::Config) {
        if !self.numbers_are_answers(&self.best.config) || !self.subject.config_numbers(next).is_empty() {
            return;
        }
        if self.answers.borrow().contains_key(next) {
            return;
        }
        let Some(known) = self.answers.borrow().get(&self.best.config).cloned() else { return };
        for candidate in nearby_answers(&known.answers) {
            let Some((config, used)) =
                self.subject.config_of_answers(&Answers { answers: candidate, swarm: known.swarm })
            else {
                continue;
            };
            if config == *next {
                self.know_answers(config, used);
                return;
            }
        }
    }

    /// Records that `config` is described by `answers` (the smaller answers, when two describe it).
    fn know_answers(&self, config: S::Config, answers: Answers) {
        let mut known = self.answers.borrow_mut();
        match known.get(&config) {
            Some(old) if old.answers <= answers.answers => {}
            _ => {
                known.insert(config, answers);
            }
        }
    }

    /// Evaluates `candidate`; keeps it as the new best when the law still fails on it, deterministically.
    pub(super) fn attempt(&mut self, candidate: Case<S::Config>) -> bool {
        self.attempt_within(candidate, self.shape)
    }

    /// Tries the candidates `make` gives for the best case, in order, and keeps the first that still
    /// fails; then starts again from the new best, until none fails or the budget is spent. Whether
    /// any was kept. The loop of every paired pass (a call dropped with a count lowered, ties broken by
    /// time, ...): each pass only says which candidates to try.
    pub(super) fn keep_first_repeatedly(&mut self, make: impl Fn(&Self) -> Vec<Case<S::Config>>) -> bool {
        let mut progress = false;
        'again: loop {
            for candidate in make(self) {
                if self.out_of_budget() {
                    return progress;
                }
                if self.attempt(candidate) {
                    progress = true;
                    continue 'again;
                }
            }
            return progress;
        }
    }

    /// [`Shrinker::attempt`], with the candidate's shape allowed up to `shape_max` when that is larger
    /// than the best case's (a removed timeout's cut attempts written out; see [`super::order`]).
    pub(super) fn attempt_within(&mut self, candidate: Case<S::Config>, shape_max: Shape) -> bool {
        if candidate == self.best || self.out_of_budget() {
            return false;
        }
        // A case accepted once is never accepted again: subjects' shrink candidates may form cycles
        // (A offers B, B offers A), and this keeps the loop finite and the minimum canonical. A config
        // described by its answers counts with them (see `accepted_key`); a case that held once holds.
        let digest = digest(&candidate);
        let accepted = self.accepted_key(&candidate, digest);
        if self.visited.contains(&accepted) || self.refused.contains(&digest) {
            return false;
        }
        if !self.admissible(&candidate, shape_max.max(self.shape)) {
            return false;
        }
        self.stats.tried += 1;
        let Some(violation) = self.violation_on(&candidate) else {
            self.refused.insert(digest);
            return false;
        };
        self.visited.insert(accepted);
        if candidate.config != self.best.config {
            self.carry_answers(&candidate.config);
        }
        let outside = case_outside(self.subject, &candidate).len();
        self.keep(Kept { shape: case_shape(self.subject, &candidate), outside, case: candidate, violation });
        self.pending.push(self.kept());
        self.stats.accepted += 1;
        true
    }

    /// The key `case` (of digest `digest`) is kept under in `visited`: its digest, with the answers
    /// its config is known by when its numbers are its answers. The same config is met again under
    /// smaller answers when an earlier one offered it under larger ones (1 ns as the first of
    /// `draw::delay`'s fixed values, before the count of nanoseconds that gives it was lowered to 1):
    /// taken again, it moves the config down the answers' order, which only falls, so no cycle.
    fn accepted_key(&self, case: &Case<S::Config>, digest: u64) -> u64 {
        if !self.numbers_are_answers(&case.config) {
            return digest;
        }
        let mut hasher = Fnv1a::default();
        digest.hash(&mut hasher);
        self.answers.borrow().get(&case.config).map(|known| &known.answers).hash(&mut hasher);
        hasher.finish()
    }

    fn kept(&self) -> Kept<S::Config> {
        Kept { case: self.best.clone(), violation: self.violation.clone(), shape: self.shape, outside: self.outside }
    }

    fn keep(&mut self, kept: Kept<S::Config>) {
        (self.best, self.violation, self.shape, self.outside) = (kept.case, kept.violation, kept.shape, kept.outside);
    }

    /// Confirms the best case by a second run on a fresh World: the same violation again, or it is
    /// dropped (never kept: a nondeterministic failure) with the cases kept after the last confirmation,
    /// latest first, until one reproduces; when none does (or the budget has no room for the runs) the
    /// last confirmed case is the best again. Run after every pass, so a deterministic subject pays one
    /// confirming run per pass that kept something, not one per kept candidate.
    pub(super) fn confirm(&mut self) {
        while let Some(top) = self.pending.pop() {
            if self.evaluations.saturating_add(self.runs_per_evaluation()) > self.budget.evals_max {
                self.exhausted = true;
                break;
            }
            if self.violation_on(&top.case).as_ref() == Some(&top.violation) {
                self.anchor = top;
                self.pending.clear();
                break;
            }
            self.refused.insert(digest(&top.case));
            self.stats.accepted = self.stats.accepted.saturating_sub(1);
        }
        self.pending.clear();
        self.keep(self.anchor.clone());
    }

    /// Whether `candidate` may replace the best case at all, before any run: its shape is no larger
    /// (a shorter schedule beats a simpler config), at an equal shape its config ranks no higher, at an
    /// equal rank too its arrivals are no less simple (see [`super::order`]), and it breaks no more
    /// domain rules (a case inside the domain never leaves it; see `timelaw_generators::membership`).
    pub(super) fn admissible(&self, candidate: &Case<S::Config>, shape_max: Shape) -> bool {
        let rank = || self.subject.config_rank(&candidate.config);
        let best_rank = self.subject.config_rank(&self.best.config);
        let bound = Bound { shape: shape_max, rank: &best_rank, arrivals: arrivals(&self.best.schedule) };
        within(case_shape(self.subject, candidate), rank, || arrivals(&candidate.schedule), &bound)
            && case_outside(self.subject, candidate).len() <= self.outside
    }

    /// Subject runs in one evaluation: two when the law compares a replay.
    fn runs_per_evaluation(&self) -> u64 {
        if self.replay {
            2
        } else {
            1
        }
    }

    fn violation_on(&mut self, case: &Case<S::Config>) -> Option<Violation> {
        self.evaluations += self.runs_per_evaluation();
        let evaluation = self.run(case, self.replay);
        if is_cut(&evaluation) && !self.shrinking_hang {
            self.hung.0 += 1;
            self.exhausted |= self.hung.1.is_some_and(|max| self.hung.0 >= max);
            return None; // A candidate that hangs is no smaller case of the failure being shrunk.
        }
        match evaluation.judge(self.law, case) {
            Verdict::Violated(violation) if !another_finding(&self.violation, &violation) => Some(violation),
            _ => None,
        }
    }

    /// The trace of the current best case (one more subject run, counted).
    pub(super) fn best_trace(&mut self) -> timelaw_core::Trace {
        self.evaluations += 1;
        self.run(&self.best, false).trace
    }

    /// One evaluation: through the caller's evaluator when there is one, else in-process.
    fn run(&self, case: &Case<S::Config>, replay: bool) -> Evaluation {
        match self.evaluator {
            Some(evaluator) => evaluator(case, replay),
            None => evaluate(self.subject, case, self.limits, replay),
        }
    }

    /// The event the current violation names, if one.
    pub(super) fn violated_at(&self) -> Option<u32> {
        self.violation.event
    }

    /// The contract of the current best case.
    pub(super) fn contract(&self) -> timelaw_core::Contract {
        self.subject.contract(&self.best.config)
    }

    pub(super) fn out_of_budget(&mut self) -> bool {
        let over_time = match (self.budget.time_max, self.started) {
            (Some(limit), Some(started)) => started.elapsed() > limit,
            _ => false,
        };
        // Room for a whole candidate: its run and, when it still fails, the confirming run.
        let candidate_runs = 2 * self.runs_per_evaluation();
        if self.evaluations.saturating_add(candidate_runs) > self.budget.evals_max || over_time {
            self.exhausted = true;
        }
        self.exhausted
    }
}

/// Records the answers the best case's config was drawn from, when they describe it again (answers that
/// describe another config, say for a case edited by hand, are ignored), and the empty answers of the
/// simplest config under the same swarm.
fn known_answers<S: ConfigDomain + ?Sized>(shrinker: &Shrinker<'_, S>, answers: Answers) {
    let Some((config, used)) = shrinker.subject.config_of_answers(&answers) else { return };
    if config != shrinker.best.config {
        return;
    }
    shrinker.know_answers(config, used);
    let none = Answers { answers: Vec::new(), swarm: answers.swarm };
    if let Some((simplest, used)) = shrinker.subject.config_of_answers(&none) {
        shrinker.know_answers(simplest, used);
    }
}

/// Whether the watchdog cut this evaluation ("no progress for N ms").
fn is_cut(evaluation: &Evaluation) -> bool {
    matches!(evaluation.trace.end, TraceEnd::Aborted(Abort::NoProgress { .. }))
}

/// Shrinks `case`, which violates `law` for `subject`, to a minimal case that still violates it.
///
/// # Errors
/// [`NotFailing`] when `case` does not violate `law`.
pub fn shrink<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    case: impl Into<Drawn<S::Config>>,
    budget: ShrinkBudget,
    limits: Limits,
) -> Result<ShrinkOutcome<S::Config>, NotFailing> {
    shrink_with(subject, law, case, budget, limits, None)
}

/// [`shrink`] with every case run under the per-case watchdog (`timeout_ms`, 0: none) on one watched
/// worker ([`Bounded`]): a candidate that makes no progress for the timeout (a loop in pure code) is cut
/// and rejected, so a hanging candidate never freezes the shrink; after [`SHRINK_HANGS_MAX`] such
/// candidates the shrink stops with the best case so far. What the runner and the CLI shrink with.
///
/// # Errors
/// [`NotFailing`] when `case` does not violate `law` (a given case that hangs is a `terminates`
/// violation, shrunk here only when nothing else is possible: the runner shrinks hangs in child
/// processes).
pub fn shrink_bounded<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    case: impl Into<Drawn<S::Config>>,
    budget: ShrinkBudget,
    limits: Limits,
    timeout_ms: u64,
) -> Result<ShrinkOutcome<S::Config>, NotFailing> {
    let bounded = Bounded::new(subject, limits, timeout_ms);
    let evaluator = |case: &Case<S::Config>, replay| bounded.evaluate(case, replay);
    shrink_within(subject, law, case.into(), (budget, limits), Some(&evaluator), Some(SHRINK_HANGS_MAX))
}

/// [`shrink`], running every case through `evaluator` when given (in-process otherwise).
///
/// # Errors
/// [`NotFailing`] when `case` does not violate `law`.
pub fn shrink_with<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    case: impl Into<Drawn<S::Config>>,
    budget: ShrinkBudget,
    limits: Limits,
    evaluator: Option<Evaluator<'_, S::Config>>,
) -> Result<ShrinkOutcome<S::Config>, NotFailing> {
    shrink_within(subject, law, case.into(), (budget, limits), evaluator, None)
}

/// [`shrink_with`], stopping after `hangs_max` candidates the watchdog cut (`None`: never).
fn shrink_within<S: ConfigDomain + ?Sized>(
    subject: &S,
    law: &Law,
    Drawn { case, answers }: Drawn<S::Config>,
    (budget, limits): (ShrinkBudget, Limits),
    evaluator: Option<Evaluator<'_, S::Config>>,
    hangs_max: Option<u64>,
) -> Result<ShrinkOutcome<S::Config>, NotFailing> {
    let replay = law.id == ids::DETERMINISTIC_REPLAY;
    let first = match evaluator {
        Some(evaluator) => evaluator(&case, replay),
        None => evaluate(subject, &case, limits, replay),
    };
    let shrinking_hang = is_cut(&first);
    let violation = match first.judge(law, &case) {
        Verdict::Violated(violation) => violation,
        verdict => return Err(NotFailing { law: law.id.to_owned(), verdict }),
    };
    let outside = case_outside(subject, &case).len();
    let anchor = Kept { case: case.clone(), violation: violation.clone(), shape: case_shape(subject, &case), outside };
    let mut shrinker = Shrinker {
        subject,
        law,
        limits,
        replay,
        violation,
        evaluations: if replay { 2 } else { 1 },
        budget,
        started: budget.time_max.map(|_| Instant::now()),
        exhausted: false,
        stats: PassStats { name: "", tried: 0, accepted: 0 },
        visited: HashSet::new(),
        refused: HashSet::new(),
        shape: case_shape(subject, &case),
        outside,
        best: case,
        evaluator,
        shrinking_hang,
        hung: (0, hangs_max),
        pending: Vec::new(),
        anchor,
        halving_walk: (usize::MAX, 0),
        coupled_won: None,
        answers: RefCell::new(HashMap::new()),
    };
    if let Some(answers) = answers {
        known_answers(&shrinker, answers);
    }
    let first = shrinker.accepted_key(&shrinker.best, digest(&shrinker.best));
    shrinker.visited.insert(first);
    let list = passes::<S>();
    let mut stats: Vec<PassStats> = list.iter().map(|(name, _)| PassStats { name, tried: 0, accepted: 0 }).collect();
    loop {
        let mut progress = false;
        // The passes of a round, then, when the round kept nothing, the last-resort passes.
        for last_resort in [false, true] {
            if last_resort && (progress || shrinker.out_of_budget()) {
                break;
            }
            for (index, (name, pass)) in list.iter().enumerate() {
                if super::passes::LAST_RESORT.contains(name) != last_resort {
                    continue;
                }
                shrinker.stats = PassStats { name, tried: 0, accepted: 0 };
                progress |= pass(&mut shrinker);
                shrinker.confirm();
                stats[index].tried += shrinker.stats.tried;
                stats[index].accepted += shrinker.stats.accepted;
            }
        }
        if !progress || shrinker.out_of_budget() {
            break;
        }
    }
    Ok(ShrinkOutcome {
        case: shrinker.best,
        violation: shrinker.violation,
        evaluations: shrinker.evaluations,
        passes: stats,
        exhausted: shrinker.exhausted,
        hung_candidates: shrinker.hung.0,
    })
}

/// `answers` with one answer above `0` lowered: to `0` with none, one or two of the answers after it
/// deleted, or by one; first to last. The candidates [`Shrinker::carry_answers`] tries.
fn nearby_answers(answers: &[u64]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for (index, &value) in answers.iter().enumerate().filter(|(_, &value)| value > 0) {
        for deleted in 0..=2 {
            let Some(rest) = answers.get(index + 1 + deleted..) else { break };
            let mut candidate = answers[..index].to_vec();
            candidate.push(0);
            candidate.extend_from_slice(rest);
            out.push(candidate);
        }
        if value > 1 {
            let mut candidate = answers.to_vec();
            candidate[index] = value - 1;
            out.push(candidate);
        }
    }
    out
}

/// Whether `candidate` is another finding than `best`, not a smaller case of it: found by another check
/// of the law ([`timelaw_laws::CheckSite::other_than`]: the law's wording may change while a case
/// shrinks, its check does not), or a panic of another class ([`another_panic`]). What the shrinker
/// refuses, and what the minimality of a fixture is judged by.
pub fn another_finding(best: &Violation, candidate: &Violation) -> bool {
    best.check.other_than(candidate.check) || another_panic(best, candidate)
}

/// Whether `candidate` is a panic of another class than `best`'s panic ([`crate::known::same_class`]):
/// another bug, not a smaller case of the one being shrunk (a breaker's ring of length 0 panicking
/// instead of its open period overflowing `Instant`). Other violations may change their wording while
/// they shrink (an outcome named in the message becomes a simpler one).
pub fn another_panic(best: &Violation, candidate: &Violation) -> bool {
    crate::known::is_panic(&best.message)
        && crate::known::is_panic(&candidate.message)
        && !crate::known::same_class(&best.message, candidate)
}
