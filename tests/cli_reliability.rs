//! The fixture store under stress, through the real `timelaw` binary: existing fixtures are never changed
//! or removed without `--bless`, counterexamples are on disk as soon as they are found (a kill loop shows a
//! kill loses at most the case being evaluated), write errors are loud, and fixtures are read strictly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

const REFERENCE_FIXTURE: &str = "tests/fixtures/reference/fatal_not_retried--reference--925a5b655c5df803.json";
const BACKON_FIXTURE: &str = "tests/fixtures/adapters/delay_within_cap--backon-exponential--3f77ba277d591716.json";

fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_timelaw"));
    command.env("NO_COLOR", "1");
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TIMELAW_") {
            command.env_remove(name);
        }
    }
    command
}

fn timelaw(args: &[&str], env: &[(&str, &str)]) -> Output {
    command().args(args).envs(env.iter().copied()).output().expect("the timelaw binary runs")
}

/// The output of `args`: exit code and stdout + stderr; no panic ever.
#[track_caller]
fn run(args: &[&str], env: &[(&str, &str)], code: i32) -> (String, String) {
    let output = timelaw(args, env);
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    let err = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(code), "{args:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    (out, err)
}

/// A fresh folder, distinct for every call (tests run in parallel).
fn temp_dir(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("timelaw-reliability-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap()
}

// ---------------------------------------------------------------------------------------------------------
// Strict reading.

/// Replays `text` (a fixture edited from `base`) and expects `code` with `expect` in stdout or stderr.
#[track_caller]
fn check_reading(base: &str, edit: impl Fn(&str) -> String, code: i32, expect: &[&str]) {
    let dir = temp_dir("reading");
    let path = dir.join("edited.json");
    let text = edit(&read(base));
    assert_ne!(text, read(base), "the edit changed nothing");
    std::fs::write(&path, &text).unwrap();
    let (out, err) = run(&["replay", path.to_str().unwrap()], &[], code);
    let both = format!("{out}{err}");
    for text in expect {
        assert!(both.contains(text), "replay of the edited fixture lacks {text:?}:\n{both}");
    }
}

fn field_line(text: &str, needle: &str) -> usize {
    text.lines().position(|line| line.contains(needle)).unwrap() + 1
}

#[test]
fn unknown_fields_anywhere_are_errors_with_place_and_name() {
    let r = REFERENCE_FIXTURE;
    let typo = |from: &'static str, to: &'static str| move |text: &str| text.replacen(from, to, 1);
    let line = field_line(&read(r), "\"cancel_after\"");
    let at = format!("edited.json:{line}:");
    let call = "field `case.schedule.calls[0].cancel_afer`: unknown field `cancel_afer`";
    check_reading(r, typo("\"cancel_after\"", "\"cancel_afer\""), 2, &[&at, call]);
    let step = "field `case.schedule.calls[0].steps[0].outcom`: unknown field `outcom`";
    check_reading(r, typo("\"outcome\"", "\"outcom\""), 2, &[step]);
    check_reading(r, typo("\"shrunk\"", "\"shrunk\": true, \"shrank\""), 2, &["unknown field `shrank`"]);
    check_reading(r, typo("\"note\"", "\"notes\": null, \"note\""), 2, &["unknown field `notes`"]);
    check_reading(r, typo("\"jitter\"", "\"jiter\": 1, \"jitter\""), 2, &["field `case.config", "`jiter`"]);
    check_reading(r, typo("\"delay\": 0", "\"delay\": 0, \"dealy\": 0"), 2, &["unknown field `dealy`"]);
    let retry_on = "field `case.config.retry_on.fatal`";
    check_reading(r, typo("\"timeout\": true", "\"timeout\": true, \"fatal\": true"), 2, &[retry_on]);
    let b = BACKON_FIXTURE;
    let adapter = "field `case.config.max_time`: unknown field `max_time`";
    check_reading(b, typo("\"max_times\"", "\"max_time\": 3, \"max_times\""), 2, &[adapter]);
}

#[test]
fn versions_bom_nan_and_wrong_configs_are_named() {
    let r = REFERENCE_FIXTURE;
    let version = |v: &'static str| move |text: &str| text.replacen("\"version\": 1,", v, 1);
    check_reading(r, version("\"version\": 0,"), 2, &["fixture format version 0 does not exist"]);
    check_reading(r, version("\"version\": 2,"), 2, &["fixture format version 2 is newer than this timelaw"]);
    check_reading(r, |text| format!("\u{feff}{text}"), 0, &["1 passed"]);
    let nan = "field `case.config.factor`: `NaN` is not a JSON number";
    check_reading(BACKON_FIXTURE, |text| text.replacen("\"factor\": 2.0", "\"factor\": NaN", 1), 2, &[nan]);
    let to_reference =
        |text: &str| text.replacen("\"subject\": \"backon-exponential\"", "\"subject\": \"reference\"", 1);
    let wrong =
        ["field `case.config.jitter`: `false` does not fit here", "(reading the config of subject `reference`)"];
    check_reading(BACKON_FIXTURE, to_reference, 2, &wrong);
    let not_a_number = "field `case.config.max_times`: invalid type: string \"3\", expected";
    check_reading(
        BACKON_FIXTURE,
        |text| text.replacen("\"max_times\": 3", "\"max_times\": \"3\"", 1),
        2,
        &[not_a_number],
    );
}
