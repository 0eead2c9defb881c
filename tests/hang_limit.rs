//! The watchdog's limits, in a test binary of their own (every thread abandoned in pure code spins until
//! the process ends, and the cap counts them process-wide): a subject that hangs on every case costs at
//! most `ABANDONED_MAX` threads, after which the cases left are inconclusive, each with a reason naming
//! them; with the watchdog off the search gives the same verdicts as with it on.

use serde::{Deserialize, Serialize};
use timelaw::core::{Abort, Contract, Subject, World};
use timelaw::generators::{Choices, Describe, Swarm};
use timelaw::reference::Reference;
use timelaw::runner::ABANDONED_MAX;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Nothing;

/// Starts a call, then spins in pure code for good.
#[derive(Clone, Copy)]
struct AlwaysSpins;

impl Subject for AlwaysSpins {
    type Config = Nothing;
    fn name(&self) -> &str {
        "always-spins"
    }
    fn contract(&self, _config: &Nothing) -> Contract {
        Contract::default()
    }
    fn run(&self, _config: &Nothing, world: &mut World<'_>) -> Result<(), Abort> {
        world.start_call()?;
        let mut rounds = 0_u64;
        loop {
            rounds = std::hint::black_box(rounds.wrapping_add(1));
        }
    }
}

impl Describe for AlwaysSpins {
    fn describe<C: Choices + ?Sized>(&self, _c: &mut C, _swarm: &Swarm) -> Nothing {
        Nothing
    }
}

/// The cases left once no worker can be replaced are counted, each inconclusive with a reason that
/// names them: the run never looks as if it had judged them.
#[test]
fn a_subject_that_always_spins_costs_at_most_abandoned_max_threads_and_names_the_cases_left() {
    let output = timelaw::check(&AlwaysSpins).cases(200).threads(2).case_timeout_ms(50).env(false).run();
    assert_eq!(output.abandoned_threads, ABANDONED_MAX);
    let terminates = output.laws.iter().find(|law| law.law.id == "terminates").unwrap();
    assert_eq!(terminates.counts.violated, ABANDONED_MAX);
    assert_eq!(terminates.counts.cases, 200, "every case is counted");
    assert_eq!(terminates.counts.inconclusive, 200 - ABANDONED_MAX);
    assert_eq!(terminates.counterexamples[0].violation.message, "no progress for 50 ms");
    let first = terminates.inconclusive.clone().expect("the cases left are inconclusive");
    let reason = first.reason;
    assert_eq!(first.case_index, ABANDONED_MAX, "one chunk: cases 0 to 15 hung one after the other");
    assert!(reason.starts_with("not judged: no worker was left while "), "{reason}");
    assert!(reason.ends_with("(at most 16); cases 16..200 were not judged"), "{reason}");
    assert!(output.laws.iter().all(|law| law.counts.cases == 200));
    // Cases never run are unjudged: the run does not hold on them, and says why.
    let never_run = timelaw::runner::UnjudgedReason::NotRun;
    assert_eq!(output.unjudged.get(never_run), 200 - ABANDONED_MAX);
    assert!(output.failure_message().contains("never run: no worker was left"), "{}", output.failure_message());
}

#[test]
fn the_watchdog_changes_no_verdict_of_a_subject_that_never_hangs() {
    let counts = |timeout_ms| {
        let output = timelaw::check(&Reference).cases(3_000).seed(5).case_timeout_ms(timeout_ms).env(false).run();
        assert_eq!(output.abandoned_threads, 0);
        output.laws.iter().map(|law| (law.law.id, law.counts)).collect::<Vec<_>>()
    };
    assert_eq!(counts(0), counts(2_000));
}
