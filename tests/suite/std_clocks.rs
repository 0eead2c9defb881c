//! Virtual std clocks end to end: a retry loop whose elapsed-time limit reads `std::time::Instant::now()`
//! itself is checked with one builder call (`with_std_clocks`), its fixture records the clocks, and replay
//! refuses to run a virtual-clock fixture on real clocks.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use timelaw::core::sync_loop::{contract_for, retryable};
use timelaw::core::{Abort, AttemptResult, CallResult, Contract, Outcome, VDuration, World};
use timelaw::fixture::{self, Fixture};
use timelaw::laws::Catalogue;
use timelaw::replay::replay_file;
use timelaw::{draw, subject, Choices, Config, FnSubject, Registry, ReplayOutcome, StdClocks};

/// Up to `retries` retries `delay_ms` apart, none after `limit_ms` since the call started.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Limited {
    retries: u32,
    delay_ms: u64,
    limit_ms: u64,
}

impl Limited {
    fn describe(c: &mut dyn Choices) -> Limited {
        Limited { retries: draw::retries(c, 10) as u32, delay_ms: c.between(0, 50), limit_ms: c.between(0, 200) }
    }
    fn contract(&self) -> Contract {
        let mut contract = contract_for(Contract::constant(self.retries + 1, VDuration::from_millis(self.delay_ms)));
        contract.timing.retry_elapsed_max = Some(VDuration::from_millis(self.limit_ms));
        contract
    }
    /// The loop; `late` checks the limit before the delay (a retry can start after it).
    fn serve(&self, world: &mut World<'_>, late: bool) -> Result<(), Abort> {
        let (delay, limit) = (Duration::from_millis(self.delay_ms), Duration::from_millis(self.limit_ms));
        world.for_each_call(|world, call| {
            let start = Instant::now();
            let mut retries = 0;
            loop {
                let outcome = match world.dispatch()? {
                    AttemptResult::Completed(outcome) => outcome,
                    AttemptResult::TimedOut | AttemptResult::Cancelled => Outcome::Transient,
                };
                let elapsed = if late { start.elapsed() } else { start.elapsed() + delay };
                if outcome == Outcome::Ok || !call.idempotent || !retryable(outcome) || retries == self.retries {
                    return Ok(CallResult::from_outcome(outcome));
                }
                if elapsed > limit {
                    return Ok(CallResult::from_outcome(outcome));
                }
                retries += 1;
                world.sleep_std(delay)?;
            }
        })
    }
}

const LATE: FnSubject<Limited> =
    subject("std-late", Limited::describe, Limited::contract, |l, world| l.serve(world, true))
        .with_std_clocks(StdClocks::Virtual);
const ON_TIME: FnSubject<Limited> =
    subject("std-on-time", Limited::describe, Limited::contract, |l, world| l.serve(world, false))
        .with_std_clocks(StdClocks::Virtual);
/// `LATE` declaring real std clocks: the same code on the machine's clocks.
const LATE_ON_REAL_CLOCKS: FnSubject<Limited> =
    subject("std-late", Limited::describe, Limited::contract, |l, world| l.serve(world, true));

const LAWS: &[&str] = &["no_retry_after_elapsed_limit", "attempts_within_max", "deterministic_replay"];

#[test]
fn a_limit_read_on_std_clocks_is_checked_in_virtual_time() {
    let dir = std::env::temp_dir().join(format!("timelaw-std-clocks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The correct loop holds, every law judged in virtual time (a limit on real time would never pass).
    let output = timelaw::check(&ON_TIME).cases(3000).seed(1).only_laws(LAWS).env(false).run();
    output.assert_holds();
    let judged = output.laws.iter().find(|law| law.law.id == "no_retry_after_elapsed_limit").unwrap().counts.holds;
    assert!(judged > 100, "judged in {judged} cases");

    // The late one is found, and its fixture says it ran on virtual std clocks (version 5).
    let output = timelaw::check(&LATE).cases(3000).seed(1).only_laws(LAWS).env(false).fixtures(&dir).run();
    let law = output.laws.iter().find(|law| law.law.id == "no_retry_after_elapsed_limit").unwrap();
    let path = law.counterexamples.first().and_then(|example| example.fixture.clone()).expect("found and written");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"std_clocks\": \"virtual\""), "{text}");
    let written: Fixture<Limited> = fixture::parse(&path, &text).unwrap();
    assert_eq!((written.version, written.std_clocks), (fixture::VERSION, StdClocks::Virtual));

    // Replayed with the subject that found it: the violation reproduces, deterministically.
    let replayed = |subject: FnSubject<Limited>| {
        let mut registry = Registry::new();
        registry.add(subject);
        replay_file(&registry, &Catalogue::standard(), &path, &Config::default()).unwrap()
    };
    assert_eq!(replayed(LATE).outcome, ReplayOutcome::Regressed);
    // Replayed with the same code declaring real clocks: refused, not run on the machine's clocks.
    let refused = replayed(LATE_ON_REAL_CLOCKS);
    let mismatch = ReplayOutcome::OtherStdClocks { fixture: StdClocks::Virtual, subject: StdClocks::Real };
    assert_eq!(refused.outcome, mismatch);
    assert!(!refused.passed && refused.explanation.contains("virtual std clocks"), "{}", refused.explanation);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn virtual_std_clocks_give_the_same_verdicts_on_any_thread_count() {
    let run = |threads: usize| {
        let output = timelaw::check(&LATE).cases(2000).seed(9).threads(threads).only_laws(LAWS).env(false).run();
        let laws: Vec<_> = output.laws.iter().map(|law| (law.law.id, law.counts)).collect();
        let minima: Vec<_> =
            output.laws.iter().flat_map(|law| law.counterexamples.iter().map(|e| e.shrunk.clone())).collect();
        (laws, minima)
    };
    let one = run(1);
    assert!(!one.1.is_empty(), "the late loop is found");
    assert_eq!(one, run(2), "each case reads its own thread's clocks, whichever thread runs it");
}
