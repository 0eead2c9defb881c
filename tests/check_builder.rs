//! The `Check` builder's options (`only_laws`, `without_laws`, `replay_every`, `env`, validation) and
//! `RunOutput::summary`.

use std::sync::atomic::{AtomicU64, Ordering};

use timelaw::core::sync_loop::{loop_contract, serve_calls};
use timelaw::core::{Abort, Contract, Subject, VDuration, World};
use timelaw::laws::ids::{DELAY_WITHIN_CAP, DETERMINISTIC_REPLAY, NEVER_PANICS};
use timelaw::laws::LawError;
use timelaw::reference::Reference;
use timelaw::{CheckError, Choices, ConfigError, Describe, Swarm};

/// A subject that sleeps a different delay on every run (a global counter): only a replay can tell.
#[derive(Clone)]
struct Unseeded;

static RUNS: AtomicU64 = AtomicU64::new(0);

impl Subject for Unseeded {
    type Config = u32;
    fn name(&self) -> &str {
        "unseeded"
    }
    fn contract(&self, _: &u32) -> Contract {
        loop_contract()
    }
    fn run(&self, retries: &u32, world: &mut World<'_>) -> Result<(), Abort> {
        let delay = VDuration::from_millis(RUNS.fetch_add(1, Ordering::Relaxed) % 7 + 1).to_std();
        serve_calls(world, |_| Ok(std::iter::repeat_n(delay, *retries as usize)))
    }
}

impl Describe for Unseeded {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> u32 {
        c.between(1, 3) as u32 // At most 3.
    }
}

fn violated<C>(output: &timelaw::RunOutput<C>) -> Vec<&'static str> {
    output.laws.iter().filter(|law| law.counts.violated > 0).map(|law| law.law.id).collect()
}

#[test]
fn replay_every_zero_switches_the_replay_check_off() {
    let with_replay = timelaw::check(&Unseeded).cases(64).seed(3).env(false).run();
    assert_eq!(violated(&with_replay), vec![DETERMINISTIC_REPLAY]);
    let without = timelaw::check(&Unseeded).cases(64).seed(3).env(false).replay_every(0).run();
    assert_eq!(violated(&without), Vec::<&str>::new());
    let replay_law = without.laws.iter().find(|law| law.law.id == DETERMINISTIC_REPLAY).map(|law| law.counts);
    assert_eq!(replay_law.map(|counts| counts.holds + counts.violated), Some(0), "{replay_law:?}");
}

#[test]
fn law_selection() {
    #[track_caller]
    fn check(only: Option<&[&str]>, without: &[&str], expect: Result<Vec<&str>, String>) {
        let mut builder = timelaw::check(&Reference).cases(50).env(false).without_laws(without);
        if let Some(only) = only {
            builder = builder.only_laws(only);
        }
        let got = builder.try_run().map(|output| output.laws.iter().map(|law| law.law.id).collect::<Vec<_>>());
        assert_eq!(got.map_err(|error| error.to_string()), expect);
    }
    check(Some(&[NEVER_PANICS, DELAY_WITHIN_CAP]), &[], Ok(vec![NEVER_PANICS, DELAY_WITHIN_CAP]));
    check(Some(&[NEVER_PANICS, DELAY_WITHIN_CAP]), &[NEVER_PANICS], Ok(vec![DELAY_WITHIN_CAP]));
    check(Some(&[NEVER_PANICS]), &[NEVER_PANICS], Err("no laws left to check after only_laws / without_laws".into()));
    let unknown = LawError::Unknown { ids: vec!["no_such_law".into()] }.to_string();
    check(Some(&["no_such_law"]), &[], Err(unknown.clone()));
    check(None, &["no_such_law"], Err(unknown));
    let all = timelaw::laws::Catalogue::standard();
    let rest: Vec<&str> = all.ids().filter(|id| *id != DETERMINISTIC_REPLAY).collect();
    check(None, &[DETERMINISTIC_REPLAY], Ok(rest));
}

#[test]
fn options_that_check_nothing_are_errors() {
    let no_cases = timelaw::check(&Reference).cases(0).env(false).try_run().map(|_| ());
    assert!(matches!(no_cases, Err(CheckError::Config(ConfigError::NoCases))), "{no_cases:?}");
}

#[test]
fn env_false_ignores_the_environment() {
    // The only test of this binary that reads the environment; the others pass `.env(false)`.
    std::env::set_var("TIMELAW_CASES", "not-a-number");
    let read = timelaw::check(&Reference).seed(1).try_run().map(|_| ());
    let ignored =
        timelaw::check(&Reference).seed(1).env(false).cases(20).try_run().map(|output| output.summary().cases);
    std::env::remove_var("TIMELAW_CASES");
    assert!(matches!(read, Err(CheckError::Config(ConfigError::Env { .. }))), "{read:?}");
    assert_eq!(ignored.ok(), Some(20));
}

#[test]
fn summary_counts_laws_and_the_first_violation() {
    let holds = timelaw::check(&Reference).cases(300).seed(2).env(false).run().summary();
    assert_eq!((holds.subject.as_str(), holds.cases, holds.laws), ("reference", 300, 58));
    assert_eq!((holds.laws_violated, holds.laws_inconclusive, holds.first_violation), (0, 0, None));
    assert_eq!(holds.laws_holding, holds.laws_applicable);
    assert!(holds.laws_applicable > 20 && holds.laws_applicable <= 58, "{holds:?}");
    let broken = timelaw::check(&Unseeded).cases(64).seed(3).env(false).run().summary();
    assert_eq!((broken.laws_violated, broken.first_violation), (1, Some((0, DETERMINISTIC_REPLAY))));
    let text = broken.to_string();
    assert!(text.starts_with("timelaw: `unseeded`: 64 cases in "), "{text}");
    assert!(
        text.contains("1 violated") && text.ends_with("first violation: case 0 (deterministic_replay)\n"),
        "{text}"
    );
    let cuts = broken.time_limit_cuts; // Arrivals past the end of time, drawn with overlapping calls.
    assert!(text.contains(&format!("\ncut at the virtual time limit: {cuts} cases\n")), "{text}");
    assert!(text.contains("\ncut at a step limit inside a long scripted run: 0 cases\n"), "{text}");
    assert!(text.contains("\nunjudged: 0 cases\n"), "{text}");
    // 64 cases leave some laws barely exercised: their line is the seventh.
    let barely = usize::from(!broken.barely_exercised.is_empty());
    assert_eq!(text.lines().count(), 6 + barely, "{text}");
}
