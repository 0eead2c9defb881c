//! `TIMELAW_BLESS`, read the way timelaw reads it: `1`/`true` rewrite the checked-in fixtures the tests
//! own, `0`/`false` or unset do not.
#![allow(dead_code)] // Each test target uses a part of the shared code.

use std::path::Path;

/// Whether the tests should rewrite the fixtures they own instead of comparing with them.
///
/// # Panics
/// On any other value, naming it, so a typo never silently compares or rewrites.
pub fn bless() -> bool {
    let Some(value) = std::env::var_os("TIMELAW_BLESS") else { return false };
    match value.to_string_lossy().trim().to_ascii_lowercase().as_str() {
        "1" | "true" => true,
        "0" | "false" => false,
        other => panic!("TIMELAW_BLESS={other:?}: expected 1 or 0 (true or false)"),
    }
}

/// Runs `subject` against `law` (seed 0, one thread, `cases` at most, fixtures into `scratch`), takes the
/// fixture it writes for the first counterexample, marks it `known_violation` with the planted-bug note
/// for `bug`, and compares it with the file of the same name under `dir` (rewriting that file when
/// [`bless`] says so).
///
/// # Panics
/// When nothing is found, or the checked-in file differs ("stale; rerun with TIMELAW_BLESS=1").
#[track_caller]
pub fn assert_planted_fixture_current<S>(subject: &S, law: &str, bug: &str, cases: u64, dir: &str, scratch: &Path)
where
    S: timelaw::generators::ConfigDomain,
    S::Config: serde::Serialize + serde::de::DeserializeOwned,
{
    let config = timelaw::Config { cases, ..timelaw::Config::default() };
    assert_planted_fixture_current_with(subject, law, bug, config, dir, scratch);
}

/// [`assert_planted_fixture_current`] with the run's `config` (its cases and options, such as
/// concurrency; the seed, threads and fixture folder are set here).
#[track_caller]
pub fn assert_planted_fixture_current_with<S>(
    subject: &S,
    law: &str,
    bug: &str,
    config: timelaw::Config,
    dir: &str,
    scratch: &Path,
) where
    S: timelaw::generators::ConfigDomain,
    S::Config: serde::Serialize + serde::de::DeserializeOwned,
{
    use timelaw::fixture::{self, Fixture, Status};
    let laws = timelaw::laws::Catalogue::standard().select(&[law]).unwrap();
    let config = timelaw::Config { seed: 0, threads: 1, fixtures: Some(scratch.to_owned()), ..config };
    let output = super::first::run_to_first(subject, &laws, &config);
    let written = output.laws[0]
        .counterexamples
        .first()
        .and_then(|example| example.fixture.clone())
        .expect("a fixture is written");
    let mut fixture: Fixture<S::Config> = serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    fixture.status = Status::KnownViolation;
    fixture.note =
        Some(format!("planted bug {bug}: this subject is broken on purpose, so the violation must reproduce"));
    let expected = format!("{}\n", serde_json::to_string_pretty(&fixture).unwrap());
    let target = Path::new(dir).join(fixture::file_name(law, subject.name(), &fixture.case));
    if bless() {
        std::fs::write(&target, &expected).unwrap();
    }
    let checked_in = std::fs::read_to_string(&target).unwrap_or_default();
    assert_eq!(checked_in, expected, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
}
