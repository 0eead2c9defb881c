//! Hangs in pure code: a subject that loops without calling the World is caught by the per-case
//! watchdog as a `terminates` violation ("no progress for N ms"), its raw counterexample is written at
//! once, the run goes on without the hung thread, and every case that does not hang is judged as it
//! would be without the watchdog. The case timeout here is 200 ms (the default is 2,000 ms), so the
//! tests stay short in CI.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use timelaw::core::{Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, Subject, VDuration, World};
use timelaw::generators::{Choices, Describe, Swarm};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, RunOutput, Silent};
use timelaw::Config;

/// The case timeout of these tests.
const TIMEOUT_MS: u64 = 200;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpinConfig {
    max_attempts: u32,
    delay: VDuration,
}

/// A retry loop that paces its delay in eighths with a busy loop in pure code; with `planted`, a delay
/// of 1 to 7 ns makes the step zero and the loop never ends. Without it the step is at least 1 ns.
#[derive(Clone, Copy)]
struct Spin {
    planted: bool,
}

impl Spin {
    fn pace(&self, delay: VDuration) -> u64 {
        let (total, mut waited) = (delay.as_nanos(), 0_u64);
        let step = if self.planted { total / 8 } else { (total / 8).max(1) };
        let mut rounds = 0_u64;
        while waited < total {
            waited = waited.saturating_add(step);
            rounds = std::hint::black_box(rounds.wrapping_add(1));
        }
        rounds
    }
}

impl Subject for Spin {
    type Config = SpinConfig;
    fn name(&self) -> &str {
        if self.planted {
            "planted-spins-forever"
        } else {
            "spin"
        }
    }
    fn contract(&self, config: &SpinConfig) -> Contract {
        Contract { max_attempts: Some(config.max_attempts), ..Contract::default() }
    }
    fn run(&self, config: &SpinConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            for attempt in 1..=config.max_attempts {
                match world.dispatch()? {
                    AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                    AttemptResult::Completed(Outcome::Transient) if attempt < config.max_attempts => {}
                    _ => return Ok(CallResult::Err(ErrorKind::Transient)),
                }
                // Pacing at most 8 rounds per delay (more for the huge ones is still bounded: delays
                // are drawn below 1 s).
                self.pace(config.delay);
                world.sleep(config.delay)?;
            }
            Ok(CallResult::Err(ErrorKind::Transient))
        })
    }
}

impl Describe for Spin {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> SpinConfig {
        let max_attempts = u32::try_from(c.between(1, 5)).unwrap_or(1); // At most 5.
        let delay = match c.weighted(&[200, 1]) {
            0 => VDuration::from_millis(c.between(0, 1_000)),
            _ => VDuration::from_nanos(c.between(0, 15)),
        };
        SpinConfig { max_attempts, delay }
    }
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("timelaw-hangs-{}-{name}", std::process::id()))
}

fn check_run(subject: &Spin, cases: u64, threads: usize, fixtures: Option<PathBuf>) -> RunOutput<SpinConfig> {
    let laws = Catalogue::standard();
    let config = Config { cases, threads, seed: 7, case_timeout_ms: TIMEOUT_MS, fixtures, ..Config::default() };
    run(subject, &laws, &config, &Silent)
}

#[test]
fn a_pure_loop_is_a_terminates_violation_and_the_run_goes_on() {
    let dir = scratch("found");
    let output = check_run(&Spin { planted: true }, 100_000, 2, Some(dir.clone()));
    let law = output.laws.iter().find(|law| law.law.id == "terminates").unwrap();
    let found = law.counterexamples.first().expect("the hang is found in 100,000 cases");
    assert_eq!(found.violation.message, format!("no progress for {TIMEOUT_MS} ms"));
    assert!(found.hang);
    assert!((1..=7).contains(&found.found.config.delay.as_nanos()), "{:?}", found.found);
    // Every case was judged by every law, the hung ones included.
    assert!(output.laws.iter().all(|law| law.counts.cases == 100_000));
    assert!(output.abandoned_threads >= 1);
    let written = found.fixture.clone().expect("a fixture is written");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("no progress for 200 ms"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_seed_gives_the_same_verdicts_on_every_case_that_does_not_hang() {
    let counts = |planted, threads| {
        let output = check_run(&Spin { planted }, 3_000, threads, None);
        output.laws.iter().map(|law| (law.law.id, law.counts.clone())).collect::<Vec<_>>()
    };
    // The planted subject hangs only on delays of 1 to 7 ns; with seed 7 and 3,000 cases none is drawn,
    // so its verdicts equal the correct subject's, and they do not depend on the thread count.
    assert_eq!(counts(true, 1), counts(false, 1));
    assert_eq!(counts(true, 3), counts(false, 1));
}
