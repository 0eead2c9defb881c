//! Count limits are cuts inside long scripted runs: a subject still consuming a run of up to 100,000
//! scripted failures when the World's attempt limit is reached is cut there (counted, safety laws judged
//! on the prefix, liveness laws inconclusive), while a subject that loops without consuming its script
//! still violates `terminates`. Long runs reach retry counts far past 40 whatever `max_attempts` is.

use serde::{Deserialize, Serialize};
use timelaw::core::{
    Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, RetryContract, RetryOn, Schedule, Step, Subject,
    World,
};
use timelaw::generators::{Choices, Describe, Swarm};

/// The defect of a [`Persistent`] retry loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Defect {
    /// None: retries transient failures up to `max_attempts`.
    None,
    /// Gives up after 40 attempts, whatever `max_attempts` promises.
    GivesUpAt40,
    /// Never stops: after a success it dispatches again (past the end of its script).
    NeverStops,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct PersistentConfig {
    max_attempts: u32,
}

/// A retry loop without delays, promising `max_attempts` (up to 100,000) attempts per call.
#[derive(Clone)]
struct Persistent(Defect);

impl Subject for Persistent {
    type Config = PersistentConfig;
    fn name(&self) -> &str {
        "persistent"
    }
    fn contract(&self, config: &PersistentConfig) -> Contract {
        let retry_on = RetryOn { transient: true, rate_limited: false, timeout: false };
        Contract {
            retry: RetryContract {
                max_attempts: Some(config.max_attempts),
                retry_on: Some(retry_on),
                ..RetryContract::default()
            },
            ..Contract::default()
        }
    }
    fn run(&self, config: &PersistentConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            let mut attempt = 0_u32;
            loop {
                attempt += 1;
                let failure = match world.dispatch()? {
                    AttemptResult::Completed(Outcome::Ok) if self.0 == Defect::NeverStops => continue,
                    AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                    AttemptResult::Completed(Outcome::Transient) => ErrorKind::Transient,
                    AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Fatal),
                    AttemptResult::TimedOut => ErrorKind::Timeout,
                    AttemptResult::Cancelled => ErrorKind::Cancelled,
                };
                let gives_up = self.0 == Defect::GivesUpAt40 && attempt >= 40;
                if failure != ErrorKind::Transient || attempt >= config.max_attempts || gives_up {
                    return Ok(CallResult::Err(failure));
                }
            }
        })
    }
}

impl Describe for Persistent {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> PersistentConfig {
        let max_attempts = match c.weighted(&[2, 1, 1]) {
            0 => c.between(1, 64),
            1 => c.between(65, 1_000),
            _ => c.between(1_001, 100_000),
        };
        // At most 100,000, which fits a u32.
        PersistentConfig { max_attempts: u32::try_from(max_attempts).unwrap_or(1) }
    }
    fn simpler(&self, config: &PersistentConfig) -> Vec<PersistentConfig> {
        let max = config.max_attempts;
        let fewer = [1, max / 2, max.saturating_sub(1)].into_iter().filter(|&m| m >= 1 && m < max);
        fewer.map(|max_attempts| PersistentConfig { max_attempts }).collect()
    }
}

/// The laws these tests judge (the others say nothing about long runs; leaving them out keeps the test
/// short).
const LAWS: [&str; 4] = ["terminates", "attempts_within_max", "eventually_succeeds", "success_ends_call"];

/// Runs `cases` cases of `defect` and checks what is cut and what is violated (`violated`: the laws
/// that must be violated, no others).
#[track_caller]
fn check(defect: Defect, cases: u64, violated: &[&str]) -> timelaw::runner::RunOutput<PersistentConfig> {
    let output = timelaw::check(&Persistent(defect)).cases(cases).only_laws(&LAWS).env(false).run();
    for outcome in &output.laws {
        assert_eq!(outcome.counts.violated > 0, violated.contains(&outcome.law.id), "{defect:?}: {}", outcome.law.id);
    }
    let report = timelaw::report::to_report(&output);
    assert_eq!(report.long_run_cuts, output.long_run_cuts);
    let table = timelaw::reports::render_table(&report, false);
    assert!(table.contains("inside a long scripted run"), "{table}");
    assert!(output.summary().to_string().contains("inside a long scripted run"));
    output
}

#[test]
fn a_correct_subject_is_cut_inside_long_runs_never_blamed() {
    let output = check(Defect::None, 20_000, &[]);
    assert!(output.long_run_cuts > 0, "no case reached the attempt limit inside a long run");
    let law = |id: &str| output.laws.iter().find(|law| law.law.id == id).unwrap();
    assert!(law("eventually_succeeds").counts.cut > 0, "liveness is counted as cut on a cut");
    assert!(law("eventually_succeeds").counts.holds > 0);
    // A documented cut is no failure to judge: the run holds.
    assert_eq!(output.laws.iter().map(|law| law.counts.inconclusive).sum::<u64>(), 0);
    output.assert_holds();
}

#[test]
fn a_subject_that_never_stops_still_violates_terminates() {
    // It also ignores a success and then gives up on the next failure: `eventually_succeeds`.
    let violated = ["terminates", "attempts_within_max", "success_ends_call", "eventually_succeeds"];
    let output = check(Defect::NeverStops, 100, &violated);
    let found = &output.laws.iter().find(|law| law.law.id == "terminates").unwrap().counterexamples[0];
    assert!(found.violation.message.contains("stopped at the step limit"), "{}", found.violation.message);
}

#[test]
fn giving_up_at_retry_40_is_found_past_the_old_cap() {
    let output = check(Defect::GivesUpAt40, 5_000, &["eventually_succeeds"]);
    let found = &output.laws.iter().find(|law| law.law.id == "eventually_succeeds").unwrap().counterexamples[0];
    // The minimum: 41 attempts promised, 40 transient failures, then the success it never reaches.
    let expected = timelaw::core::Case::new(
        PersistentConfig { max_attempts: 41 },
        Schedule::single(vec![Step::instant(Outcome::Transient).repeated(40)]),
        0,
    );
    assert_eq!(found.shrunk, expected);
}
