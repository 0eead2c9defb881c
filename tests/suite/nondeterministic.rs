//! Flaky findings are not facts: a violation is re-run before it is reported or written; one that does
//! not reproduce is reported as nondeterministic (with the traces' first difference), never shrunk, and
//! its fixture has status `nondeterministic`, which replay treats as a warning while it still reproduces
//! on some runs and not on others, and as a failure once it reproduces on every run or on none.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use common::planted::{Bug, Planted};
use timelaw::core::{Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, RetryContract, Subject, World};
use timelaw::fixture::{self, Status};
use timelaw::generators::{Choices, Describe, Swarm};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::registry::{Registry, ReplayOutcome};
use timelaw::replay::replay_file;
use timelaw::runner::{run, Silent};
use timelaw::Config;

/// One attempt allowed; the very first run in its life makes a second one (state outside the World,
/// like a crate reading the wall clock or the thread RNG), every later run is correct.
#[derive(Clone, Debug, Default)]
struct FirstRunOnly(Arc<AtomicBool>);

impl Subject for FirstRunOnly {
    type Config = u32;
    fn name(&self) -> &str {
        "flaky-first-run"
    }
    fn contract(&self, _config: &u32) -> Contract {
        one_attempt()
    }
    fn run(&self, _config: &u32, world: &mut World<'_>) -> Result<(), Abort> {
        let first = !self.0.swap(true, Ordering::SeqCst);
        serve(world, first)
    }
}

impl Describe for FirstRunOnly {
    fn describe<C: Choices + ?Sized>(&self, _c: &mut C, _swarm: &Swarm) -> u32 {
        0
    }
}

/// The same subject (by name) later in its life: it makes the second attempt on every run
/// (`every == 1`), or on every other run (`every == 2`).
#[derive(Clone, Debug, Default)]
struct LaterInLife {
    every: u64,
    runs: Arc<AtomicU64>,
}

impl Subject for LaterInLife {
    type Config = u32;
    fn name(&self) -> &str {
        "flaky-first-run"
    }
    fn contract(&self, _config: &u32) -> Contract {
        one_attempt()
    }
    fn run(&self, _config: &u32, world: &mut World<'_>) -> Result<(), Abort> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst);
        serve(world, run.is_multiple_of(self.every))
    }
}

impl Describe for LaterInLife {
    fn describe<C: Choices + ?Sized>(&self, _c: &mut C, _swarm: &Swarm) -> u32 {
        0
    }
}

fn one_attempt() -> Contract {
    Contract { retry: RetryContract { max_attempts: Some(1), ..RetryContract::default() }, ..Contract::default() }
}

/// Serves every call with one attempt, and a second after a failure when `retries`.
fn serve(world: &mut World<'_>, retries: bool) -> Result<(), Abort> {
    world.for_each_call(|world, _call| {
        let mut result = world.dispatch()?;
        if retries && result != AttemptResult::Completed(Outcome::Ok) {
            result = world.dispatch()?;
        }
        Ok(match result {
            AttemptResult::Completed(Outcome::Ok) => CallResult::Ok,
            _ => CallResult::Err(ErrorKind::Transient),
        })
    })
}

/// Replays `path` with `subject` as the registry's only subject.
fn replayed<S: timelaw::generators::ConfigDomain + 'static>(
    subject: S,
    path: &std::path::Path,
) -> timelaw::registry::ReplayResult {
    let mut registry = Registry::new();
    registry.add(subject);
    replay_file(&registry, &Catalogue::standard(), path, &Config::default()).unwrap()
}

fn config(cases: u64, dir: &std::path::Path) -> Config {
    Config { cases, seed: 3, threads: 1, replay_every: 0, fixtures: Some(dir.to_owned()), ..Config::default() }
}

#[test]
fn a_violation_that_does_not_reproduce_is_reported_as_nondeterministic_and_never_shrunk() {
    let dir = std::env::temp_dir().join(format!("timelaw-nondeterministic-{}", std::process::id()));
    let laws = Catalogue::standard().select(&["attempts_within_max"]).unwrap();
    let subject = FirstRunOnly::default();
    // Case 0 of seed 3 scripts a failed first attempt, so the very first run violates the law.
    let output = run(&subject, &laws, &config(64, &dir), &Silent);
    let law = &output.laws[0];
    assert_eq!(law.counts.violated, 1, "only the very first run violates");
    let example = &law.counterexamples[0];
    let flaky = example.nondeterministic.as_ref().expect("reported as nondeterministic");
    assert!(matches!(flaky.rerun, Verdict::Holds | Verdict::Vacuous), "{flaky:?}");
    assert!(flaky.first_difference.is_some(), "the traces differ: {flaky:?}");
    assert_eq!((example.shrink_evaluations, &example.shrunk), (0, &example.found), "never shrunk");
    assert!(output.failure_message().contains("nondeterministic"), "{}", output.failure_message());

    let path = example.fixture.clone().expect("its fixture is written");
    let written: fixture::Fixture<u32> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written.status, Status::Nondeterministic);
    assert!(!written.provenance.shrunk);
    // Replayed by the same subject, which never violates again: the finding no longer reproduces on any
    // run, so the fixture fails (fixed, or never a bug).
    let never = replayed(subject, &path);
    let runs = timelaw::registry::NONDETERMINISTIC_RUNS;
    assert_eq!(never.outcome, ReplayOutcome::NowDeterministic { reproduced: 0, runs });
    assert!(!never.outcome.is_warning() && !never.passed, "{never:?}");
    assert!(never.explanation.contains("never reproduced in 8 runs"), "{}", never.explanation);
    // Still flaky (every other run): a warning, neither a pass nor a failure.
    let flaky = replayed(LaterInLife { every: 2, runs: Arc::default() }, &path);
    assert_eq!(flaky.outcome, ReplayOutcome::Nondeterministic);
    assert!(flaky.outcome.is_warning() && !flaky.passed, "{flaky:?}");
    assert!(flaky.explanation.contains("reproduced in 4 of 8 runs"), "{}", flaky.explanation);
    // Violating on every run now: deterministic, to be pinned as a finding.
    let always = replayed(LaterInLife { every: 1, runs: Arc::default() }, &path);
    assert_eq!(always.outcome, ReplayOutcome::NowDeterministic { reproduced: runs, runs });
    assert!(!always.passed && always.explanation.contains("known_violation"), "{}", always.explanation);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_violation_that_reproduces_is_shrunk_as_before() {
    let dir = std::env::temp_dir().join(format!("timelaw-deterministic-{}", std::process::id()));
    let laws = Catalogue::standard().select(&["attempts_within_max"]).unwrap();
    let output = run(&Planted(Bug::ExtraAttempt), &laws, &config(5_000, &dir), &Silent);
    let example = &output.laws[0].counterexamples[0];
    assert_eq!(example.nondeterministic, None);
    assert!(example.shrink_evaluations > 0);
    let written = std::fs::read_to_string(example.fixture.as_ref().unwrap()).unwrap();
    assert!(written.contains("\"status\": \"regression\""), "{written}");
    let _ = std::fs::remove_dir_all(&dir);
}
