//! Replay in `cargo test`: every fixture file becomes its own named test (libtest-mimic).
//!
//! A `harness = false` test target with two lines of code replays a folder:
//!
//! ```text
//! // tests/replay.rs, with `[[test]] name = "replay" harness = false` in Cargo.toml
//! fn main() {
//!     let registry = timelaw::Registry::builtin(); // or Registry::new() + .add(MySubject)
//!     timelaw::replay::main(registry, &["tests/fixtures"]);
//! }
//! ```
//!
//! Test names are `<subject>::<law>::<file stem>`, so `cargo test --test replay attempts_within_max` runs the
//! fixtures of one law. A malformed fixture is a failing test that names the file, line, column and what
//! was expected; an unknown subject or law, or a newer format version, is named as such.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use timelaw_laws::Catalogue;

use crate::config::{Config, ENV_REPLAY};
use crate::fixture::{self, FixtureError};
use crate::registry::{Registry, ReplayResult};

/// Replays one fixture file with the subject it names.
///
/// # Errors
/// Any [`FixtureError`] (unreadable, malformed, unknown subject or law, newer version).
pub fn replay_file(
    registry: &Registry,
    laws: &Catalogue,
    path: &Path,
    config: &Config,
) -> Result<ReplayResult, FixtureError> {
    let text = fixture::read_text(path)?;
    let header = fixture::parse_header(path, &text)?;
    let subject = registry.for_fixture(path, &header.subject)?;
    subject.replay(laws, path, &text, config)
}

/// The trial's name, from the file's name made [`fixture::printable`] (libtest prints it on a line of its
/// own: a newline in a file name must not fake a result line).
fn trial_name(path: &Path) -> String {
    let stem =
        path.file_stem().map(|stem| fixture::printable(&stem.to_string_lossy()).into_owned()).unwrap_or_default();
    let mut parts = stem.splitn(3, "--");
    match (parts.next(), parts.next(), parts.next()) {
        (Some(law), Some(subject), Some(hash)) => format!("{subject}::{law}::{hash}"),
        _ => format!("fixture::{stem}"),
    }
}

/// One trial per fixture file under `roots` (folders are searched recursively). A root that cannot be
/// listed becomes a failing trial naming it.
pub fn trials(registry: &'static Registry, laws: &'static Catalogue, roots: &[impl AsRef<Path>]) -> Vec<Trial> {
    let mut trials = Vec::new();
    for root in roots {
        let root = root.as_ref().to_owned();
        match fixture::list(&root) {
            Ok(files) => trials.extend(files.into_iter().map(|path| trial(registry, laws, path))),
            Err(error) => {
                let name = format!("fixtures::{}", fixture::shown(&root));
                trials.push(Trial::test(name, move || Err(Failed::from(error.to_string()))));
            }
        }
    }
    trials
}

fn trial(registry: &'static Registry, laws: &'static Catalogue, path: PathBuf) -> Trial {
    // libtest has no warning outcome: a nondeterministic finding, and a fixture of another build profile,
    // is listed as ignored (neither a pass nor a failure) and, when run with `--include-ignored`, prints
    // its warning or why it is skipped.
    let flaky = nondeterministic(&path) || other_profile(&path);
    Trial::test(trial_name(&path), move || {
        // Replay reads only the step-limit variables, so a bad `TIMELAW_CASES` cannot fail it.
        let config = Config::default().with_env_vars(ENV_REPLAY).map_err(|error| Failed::from(error.to_string()))?;
        let result = replay_file(registry, laws, &path, &config).map_err(|error| Failed::from(error.to_string()))?;
        if let Some(warning) = result.outside_warning(&path) {
            eprintln!("{warning}");
        }
        if result.passed {
            return Ok(());
        }
        if result.outcome.is_warning() || result.outcome.is_skip() {
            eprintln!("{}: law `{}`: {}", fixture::shown(&path), result.law, result.explanation);
            return Ok(());
        }
        Err(Failed::from(format!("{}: law `{}`: {}", fixture::shown(&path), result.law, result.explanation)))
    })
    .with_ignored_flag(flaky)
}

/// Whether the fixture at `path` has status `nondeterministic` (a file that cannot be read is not: its
/// trial reports the error).
fn nondeterministic(path: &std::path::Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap_or_default();
    value.get("status").and_then(serde_json::Value::as_str) == Some("nondeterministic")
}

/// Whether the fixture at `path` states a build profile other than this build's (a file that cannot be
/// read does not: its trial reports the error).
fn other_profile(path: &std::path::Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap_or_default();
    let stated = value.get("profile").and_then(serde_json::Value::as_str);
    stated.is_some_and(|profile| profile != fixture::Profile::current().name())
}

/// The whole `main` of a replay test target: parses libtest arguments, replays every fixture under
/// `roots` against the standard catalogue, and exits with libtest's status.
pub fn main(registry: Registry, roots: &[&str]) -> ! {
    main_with(registry, Catalogue::standard(), roots)
}

/// As [`main`], against `laws` (the standard catalogue plus laws of your own, so that fixtures of your
/// own laws replay too).
pub fn main_with(registry: Registry, laws: Catalogue, roots: &[&str]) -> ! {
    let args = Arguments::from_args();
    // The trials run on libtest-mimic's threads; both live for the rest of the process.
    let registry: &'static Registry = Box::leak(Box::new(registry));
    let laws: &'static Catalogue = Box::leak(Box::new(laws));
    libtest_mimic::run(&args, trials(registry, laws, roots)).exit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trial_names_escape_what_would_start_a_line() {
        assert_eq!(trial_name(Path::new("d/l--s--0f.json")), "s::l::0f");
        assert_eq!(trial_name(Path::new("d/x\ntest y ... ok\u{1b}[2J.json")), "fixture::x\\ntest y ... ok\\u{1b}[2J");
    }
}
