//! A concurrent case end to end: a planted bug that only overlapping calls reveal (an attempt counter
//! shared by all calls and reset when a call starts) is found by a run with the concurrency option, never
//! without it, shrinks to two overlapping calls, is written as a fixture and replays.

use std::cell::Cell;
use std::rc::Rc;

use timelaw::core::concurrent::run_async_calls;
use timelaw::core::reference::{Policy, Reference};
use timelaw::core::{Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, Subject, World};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::{fixture, Config};

/// A retry loop whose attempt count lives in state shared by every call, reset when a call starts: a call
/// that starts while another is retrying gives that one its attempts back.
#[derive(Clone, Copy, Debug)]
struct SharedCounter;

impl Subject for SharedCounter {
    type Config = Policy;
    fn name(&self) -> &str {
        "planted-shared-attempt-counter"
    }
    fn contract(&self, policy: &Policy) -> Contract {
        Reference.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        let (max_attempts, delay) = (policy.max_attempts, policy.backoff.initial());
        let attempts = Rc::new(Cell::new(0_u32));
        run_async_calls(world, move |w, _call| {
            let attempts = Rc::clone(&attempts);
            async move {
                attempts.set(0);
                loop {
                    attempts.set(attempts.get() + 1);
                    let failure = match w.dispatch().await? {
                        AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                        AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome),
                        AttemptResult::TimedOut | AttemptResult::Cancelled => Some(ErrorKind::Cancelled),
                    };
                    let failure = failure.unwrap_or(ErrorKind::Transient);
                    if attempts.get() >= max_attempts || failure != ErrorKind::Transient {
                        return Ok(CallResult::Err(failure));
                    }
                    w.sleep(delay).await?;
                }
            }
        })
    }
}

timelaw::describe_like!(SharedCounter => Reference);

const LAW: &str = "attempts_within_max";

fn config(concurrency: bool, fixtures: Option<std::path::PathBuf>) -> Config {
    Config { cases: 20_000, seed: 1, threads: 1, concurrency, fixtures, ..Config::default() }
}

#[test]
fn the_shared_counter_is_found_only_with_overlapping_calls_and_pinned_as_a_fixture() {
    let laws = Catalogue::standard().select(&[LAW]).unwrap();
    let sequential = run(&SharedCounter, &laws, &config(false, None), &Silent);
    assert!(sequential.laws[0].counterexamples.is_empty(), "found without overlapping calls");

    let dir = std::env::temp_dir().join(format!("timelaw-concurrent-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = run(&SharedCounter, &laws, &config(true, Some(dir.clone())), &Silent);
    let example = output.laws[0].counterexamples.first().expect("found with overlapping calls");
    let minimum = &example.shrunk;
    assert_eq!(minimum.schedule.calls.len(), 2, "{minimum:?}");
    assert!(minimum.schedule.has_arrivals(), "{minimum:?}");
    let [first, second] = [&minimum.schedule.calls[0], &minimum.schedule.calls[1]];
    assert!(second.arrival > first.arrival || first.steps.len() > 1, "the calls overlap: {minimum:?}");

    let path = example.fixture.clone().expect("a fixture was written");
    let text = std::fs::read_to_string(&path).unwrap();
    let written: fixture::Fixture<Policy> = fixture::parse(&path, &text).unwrap();
    assert_eq!(&written.case, minimum);
    assert!(text.contains("\"arrival\""), "{text}");
    let evaluation = timelaw::eval::evaluate(&SharedCounter, &written.case, Config::default().limits, false);
    let law = *Catalogue::standard().get(LAW).unwrap();
    assert!(evaluation.judge(&law, &written.case).is_violated(), "the fixture's case still violates {LAW}");
    std::fs::remove_dir_all(&dir).unwrap();
}
