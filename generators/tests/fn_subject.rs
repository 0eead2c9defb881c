//! `subject(name, describe, contract, run)`: a subject of plain functions is the same subject as the
//! hand-written `Subject` + `Describe` pair with the same functions.

use arbitrary::Unstructured;
use serde::{Deserialize, Serialize};
use timelaw_core::{
    execute, Abort, Contract, EventKind, Outcome, Schedule, SplitMix64, Step, Subject, VDuration, World,
};
use timelaw_generators::{draw, simplest_config, subject, Choices, ConfigDomain, Describe, FnSubject, Swarm};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct Settings {
    retries: u32,
    delay: VDuration,
}

fn describe(c: &mut dyn Choices) -> Settings {
    Settings { retries: draw::retries(c, 20) as u32, delay: draw::delay(c, draw::SEC) }
}

fn contract(s: &Settings) -> Contract {
    Contract::constant(s.retries + 1, s.delay)
}

/// One attempt per call, then `retries` sleeps of `delay` (enough to tell runs apart).
fn run(s: &Settings, world: &mut World<'_>) -> Result<(), Abort> {
    world.for_each_call(|world, _call| {
        let outcome = world.dispatch()?;
        for _ in 0..s.retries.min(3) {
            world.sleep(s.delay)?;
        }
        Ok(timelaw_core::CallResult::from_outcome(match outcome {
            timelaw_core::AttemptResult::Completed(outcome) => outcome,
            _ => Outcome::Hang,
        }))
    })
}

const FN_SUBJECT: FnSubject<Settings> = subject("settings", describe, contract, run);

/// The same subject written as a struct.
#[derive(Clone)]
struct ByHand;

impl Subject for ByHand {
    type Config = Settings;
    fn name(&self) -> &str {
        "settings"
    }
    fn contract(&self, s: &Settings) -> Contract {
        contract(s)
    }
    fn run(&self, s: &Settings, world: &mut World<'_>) -> Result<(), Abort> {
        run(s, world)
    }
}

impl Describe for ByHand {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> Settings {
        let mut c = c;
        describe(&mut c)
    }
}

/// Both forms agree on the config sampled from `seed`, its fuzz decoding, contract and run, and its
/// shrink candidates.
#[track_caller]
fn check(seed: u64) {
    let swarm = Swarm::everything();
    let config = FN_SUBJECT.sample_config(&mut SplitMix64::new(seed), &swarm);
    assert_eq!(config, ByHand.sample_config(&mut SplitMix64::new(seed), &swarm), "sampled");
    let bytes = seed.to_le_bytes();
    assert_eq!(
        FN_SUBJECT.arbitrary_config(&mut Unstructured::new(&bytes)),
        ByHand.arbitrary_config(&mut Unstructured::new(&bytes)),
        "decoded"
    );
    assert_eq!(FN_SUBJECT.contract(&config), ByHand.contract(&config), "contract");
    let schedule = Schedule::single(vec![Step::new(VDuration::from_millis(seed % 7), Outcome::Transient)]);
    assert_eq!(execute(&FN_SUBJECT, &config, &schedule, seed), execute(&ByHand, &config, &schedule, seed), "run");
    assert_eq!(FN_SUBJECT.shrink_config(&config), ByHand.shrink_config(&config), "shrink candidates");
}

#[test]
fn a_subject_of_functions_is_the_subject_by_hand() {
    for seed in [0, 1, 2, 3, 7, 42, 0xdead_beef, u64::MAX] {
        check(seed);
    }
}

#[test]
fn the_simplest_config_and_the_name_follow() {
    assert_eq!(simplest_config(&FN_SUBJECT), Settings { retries: 0, delay: VDuration::ZERO });
    assert_eq!(FN_SUBJECT.name(), "settings");
    assert_eq!(format!("{FN_SUBJECT:?}"), "FnSubject { name: \"settings\", .. }");
    let config = Settings { retries: 2, delay: VDuration::from_millis(5) };
    let trace = execute(&FN_SUBJECT, &config, &Schedule::single(vec![Step::instant(Outcome::Ok)]), 0);
    let sleeps = trace.events.iter().filter(|e| matches!(e.kind, EventKind::SleepRequested { .. })).count();
    assert_eq!(sleeps, 2);
}

#[test]
fn harness_laws_are_none_unless_declared() {
    assert!(FN_SUBJECT.harness_laws().is_empty());
    let declared = FN_SUBJECT.with_harness_laws(&["success_ends_call"]);
    assert_eq!(declared.harness_laws(), &["success_ends_call"]);
    assert_eq!(declared.name(), FN_SUBJECT.name());
}
