//! The real `timelaw` binary at its edges: empty runs, symlink cycles, a closed stdout, the thread cap,
//! flags against environment variables, bad values, `TERM=dumb`, progress rates and merging shards of
//! different settings.

use crate::common;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_timelaw");

/// A regression fixture of the reference interpreter that replays as `ok`.
fn good_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reference/attempts_within_max--reference--af53e7ed18cc773e.json")
}

fn command(args: &[&OsStr], env: &[(&str, &OsStr)]) -> Command {
    let mut command = Command::new(BIN);
    command.args(args).env("NO_COLOR", "1").stdin(Stdio::null());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TIMELAW_") {
            command.env_remove(name);
        }
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs the binary and checks its exit code and that stdout / stderr contain the given texts.
#[track_caller]
fn check(args: &[&OsStr], env: &[(&str, &OsStr)], code: i32, stdout_has: &[&str], stderr_has: &[&str]) -> Output {
    let output = command(args, env).output().expect("the timelaw binary runs");
    let (out, err) = (text(&output.stdout), text(&output.stderr));
    let context = format!("{args:?} {env:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert_eq!(output.status.code(), Some(code), "{context}");
    for want in stdout_has {
        assert!(out.contains(want), "stdout lacks {want:?}: {context}");
    }
    for want in stderr_has {
        assert!(err.contains(want), "stderr lacks {want:?}: {context}");
    }
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{context}");
    output
}

fn os(text: &str) -> &OsStr {
    OsStr::new(text)
}

fn args<'a>(words: &[&'a str]) -> Vec<&'a OsStr> {
    words.iter().map(|word| OsStr::new(*word)).collect()
}

#[cfg(unix)]
fn not_utf8() -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(vec![b'1', 0xff, b'2'])
}

/// A fresh folder, distinct for every call, removed when dropped.
fn temp_dir(name: &str) -> crate::common::scratch::Scratch {
    crate::common::scratch::Scratch::new("edges", name)
}

// Part 5: no empty success.

#[test]
fn no_cases_is_an_error_not_holds() {
    let cases = "a run needs at least 1 case";
    check(&args(&["check", "--cases", "0"]), &[], 2, &[], &["invalid value '0' for '--cases", cases]);
    check(&args(&["check"]), &[("TIMELAW_CASES", os("0"))], 2, &[], &["TIMELAW_CASES"]);
    let empty = "shard 3/4 of 2 cases has no cases";
    check(&args(&["check", "--cases", "2", "--shard", "3/4"]), &[], 2, &[], &[empty, "at most 2 shards"]);
    check(&args(&["check", "--cases", "4", "--shard", "4/4", "--law", "never_panics"]), &[], 0, &["holds"], &[]);
}

#[test]
fn a_replay_that_finds_no_fixtures_is_an_error() {
    let dir = temp_dir("empty-replay");
    std::fs::write(dir.join("notes.txt"), "not a fixture").expect("write");
    let dir_text = dir.to_string_lossy().into_owned();
    check(&args(&["replay", &dir_text]), &[], 2, &[], &["no fixture files (*.json) under"]);
    let good = good_fixture().to_string_lossy().into_owned();
    check(&args(&["replay", &good, &dir_text]), &[], 2, &[], &["no fixture files"]);
    check(&args(&["replay", &good]), &[], 0, &["1 passed, 0 failed, 0 errors, 1 fixtures"], &[]);
}

// Part 6: robust walking and output.

/// Runs `timelaw replay dir`, failing (instead of hanging the suite) if it has not ended after a
/// generous deadline; a correct walk ends in well under a second.
#[cfg(unix)]
fn replay_with_deadline(dir: &Path) -> Output {
    let child = command(&[os("replay"), dir.as_os_str()], &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the timelaw binary runs");
    let pid = child.id();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || send.send(child.wait_with_output()));
    match receive.recv_timeout(Duration::from_secs(300)) {
        Ok(output) => output.expect("the timelaw binary ends"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("timelaw replay {} hung on a symlink cycle", dir.display());
        }
    }
}

#[cfg(unix)]
#[test]
fn symlink_cycles_are_walked_once_and_never_hang() {
    use std::os::unix::fs::symlink;
    let one = temp_dir("one-cycle");
    std::fs::copy(good_fixture(), one.join("a.json")).expect("copy");
    symlink(&one, one.join("loop")).expect("symlink");
    let output = replay_with_deadline(&one);
    let out = text(&output.stdout);
    assert!(out.contains("1 passed, 0 failed, 0 errors, 1 fixtures"), "{out}\n{}", text(&output.stderr));
    assert_eq!(output.status.code(), Some(0));

    let two = temp_dir("two-cycles");
    std::fs::create_dir_all(two.join("x/y")).expect("mkdir");
    std::fs::copy(good_fixture(), two.join("x/y/b.json")).expect("copy");
    symlink(&two, two.join("x/y/up")).expect("symlink");
    symlink(two.join("x"), two.join("x/y/again")).expect("symlink");
    symlink(two.join("x/y"), two.join("side")).expect("symlink");
    let output = replay_with_deadline(&two);
    let out = text(&output.stdout);
    assert!(out.contains("1 passed, 0 failed, 0 errors, 1 fixtures"), "{out}\n{}", text(&output.stderr));
    assert_eq!(output.status.code(), Some(0));
}

/// Runs the binary with a stdout whose reading end is closed before it starts, so every write fails: the
/// writing end of a pipe whose only reader (`true`) has already exited.
#[cfg(unix)]
fn closed_stdout(words: &[&str]) -> Output {
    let mut reader = Command::new("true").stdin(Stdio::piped()).spawn().expect("`true` runs");
    let writer = reader.stdin.take().expect("a pipe to `true`");
    reader.wait().expect("`true` ends");
    command(&args(words), &[]).stdout(writer).stderr(Stdio::piped()).output().expect("the timelaw binary runs")
}

#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_quietly_with_the_sigpipe_status() {
    let good = good_fixture().to_string_lossy().into_owned();
    let commands: &[&[&str]] = &[
        &["laws"],
        &["laws", "--format", "json"],
        &["subjects"],
        &["check", "--cases", "200", "--law", "never_panics"],
        &["replay", &good],
        &["explain", &good],
        &["--help"],
        &["--version"],
    ];
    for words in commands {
        // A process another test thread forks at the wrong moment can hold the pipe's reading end open
        // until it execs; the write then succeeds and exit 0 is right. So: up to 5 tries, never a
        // message or panic, and the closed pipe must be seen (141) at least once.
        let codes: Vec<Option<i32>> = (0..5)
            .map(|_| {
                let output = closed_stdout(words);
                assert_eq!(text(&output.stderr), "", "{words:?}");
                output.status.code()
            })
            .take_while(|code| *code != Some(141))
            .collect();
        assert!(codes.len() < 5 && codes.iter().all(|code| *code == Some(0)), "{words:?}: {codes:?}");
    }
}

#[test]
fn threads_are_capped_with_a_clear_error() {
    let over = "to at most 1024";
    check(&args(&["check", "--threads", "5000", "--cases", "10"]), &[], 2, &[], &["invalid value '5000'", over]);
    let max = ["check", "--threads", "18446744073709551615", "--cases", "10"];
    check(&args(&max), &[], 2, &[], &[over]);
    check(&args(&["check", "--cases", "10"]), &[("TIMELAW_THREADS", os("5000"))], 2, &[], &["TIMELAW_THREADS"]);
    check(&args(&["check", "--threads", "1024", "--cases", "10", "--law", "never_panics"]), &[], 0, &["holds"], &[]);
}

// Part 7: configuration precedence and messages.

#[test]
fn flags_beat_environment_variables() {
    let json = [
        "check",
        "--cases",
        "300",
        "--seed",
        "7",
        "--threads",
        "1",
        "--collect",
        "1",
        "--format",
        "json",
        "--law",
        "never_panics",
    ];
    let garbage = [
        ("TIMELAW_CASES", os("lots")),
        ("TIMELAW_SEED", os("zz")),
        ("TIMELAW_THREADS", os("many")),
        ("TIMELAW_MAX_VIOLATIONS", os("-3")),
    ];
    check(&args(&json), &garbage, 0, &["\"cases\": 300", "\"seed\": 7,"], &[]);
    check(&args(&json), &[("TIMELAW_CASES", os("700")), ("TIMELAW_SEED", os("9"))], 0, &["\"cases\": 300"], &[]);
    let from_env = ["check", "--format", "json", "--law", "never_panics"];
    check(&args(&from_env), &[("TIMELAW_CASES", os("70")), ("TIMELAW_SEED", os("9"))], 0, &["\"cases\": 70"], &[]);
}

#[test]
fn a_bad_variable_fails_only_the_commands_that_read_it() {
    let good = good_fixture().to_string_lossy().into_owned();
    let cases = [("TIMELAW_CASES", os("lots"))];
    check(&args(&["laws"]), &cases, 0, &["attempts_within_max"], &[]);
    check(&args(&["subjects"]), &cases, 0, &["reference"], &[]);
    check(&args(&["replay", &good]), &cases, 0, &["1 passed"], &[]);
    check(&args(&["explain", &good]), &cases, 0, &["attempts_within_max"], &[]);
    check(&args(&["check"]), &cases, 2, &[], &["TIMELAW_CASES", "invalid value 'lots'"]);
    let events = [("TIMELAW_EVENTS_MAX", os("x"))];
    check(&args(&["laws"]), &events, 0, &[], &[]);
    check(&args(&["replay", &good]), &events, 2, &[], &["TIMELAW_EVENTS_MAX"]);
    check(&args(&["explain", &good]), &events, 2, &[], &["TIMELAW_EVENTS_MAX"]);
    let evals = [("TIMELAW_SHRINK_EVALS", os("x"))];
    check(&args(&["replay", &good]), &evals, 0, &["1 passed"], &[]);
}

#[test]
fn negative_numbers_are_invalid_values() {
    for flag in ["--cases", "--seed", "--threads", "--collect"] {
        check(&args(&["check", flag, "-1"]), &[], 2, &[], &[&format!("invalid value '-1' for '{flag}")]);
    }
    check(&args(&["check"]), &[("TIMELAW_CASES", os("-1"))], 2, &[], &["TIMELAW_CASES", "invalid value '-1'"]);
}

#[cfg(unix)]
#[test]
fn non_utf8_values_are_invalid_values() {
    let bad = not_utf8();
    for flag in ["--cases", "--seed", "--threads", "--collect", "--subject", "--law", "--shard"] {
        check(&[os("check"), os(flag), &bad], &[], 2, &[], &[&format!("invalid value '1\u{fffd}2' for '{flag}")]);
    }
    for name in ["TIMELAW_CASES", "TIMELAW_SEED", "TIMELAW_THREADS", "TIMELAW_MAX_VIOLATIONS"] {
        check(&args(&["check"]), &[(name, &bad)], 2, &[], &["invalid value '1\u{fffd}2'", name]);
    }
    let good = good_fixture().to_string_lossy().into_owned();
    check(&args(&["replay", &good]), &[("TIMELAW_EVENTS_MAX", &bad)], 2, &[], &["TIMELAW_EVENTS_MAX"]);
}

#[test]
fn collect_zero_is_rejected() {
    check(&args(&["check", "--collect", "0"]), &[], 2, &[], &["invalid value '0' for '--collect", "from 1"]);
    check(&args(&["check"]), &[("TIMELAW_MAX_VIOLATIONS", os("0"))], 2, &[], &["TIMELAW_MAX_VIOLATIONS"]);
}

#[test]
fn replay_errors_go_to_stderr() {
    let dir = temp_dir("replay-stderr");
    std::fs::copy(good_fixture(), dir.join("a.json")).expect("copy");
    std::fs::write(dir.join("b.json"), "{ not json").expect("write");
    let dir_text = dir.to_string_lossy().into_owned();
    let output =
        check(&args(&["replay", &dir_text]), &[], 2, &["ok ", "1 passed, 0 failed, 1 errors"], &["ERROR", "b.json"]);
    assert!(!text(&output.stdout).contains("ERROR"), "{}", text(&output.stdout));
}

/// Runs `words` under `script`, which gives the binary a terminal; `None` when `script` is not installed
/// and `TIMELAW_ALLOW_SKIP=script` allows the skip (the test fails otherwise).
fn on_terminal(words: &str, term: &str) -> Option<String> {
    let line = format!("{BIN} {words}");
    let mut script = Command::new("script");
    script.args(["-qec", &line, "/dev/null"]).env("TERM", term).env_remove("NO_COLOR").stdin(Stdio::null());
    let output = match script.output() {
        Ok(output) => output,
        Err(error) => {
            let why = format!("`script` (util-linux), which gives the terminal this test needs, is missing: {error}");
            common::skip::missing("colour on a terminal", "script", &why);
            return None;
        }
    };
    Some(text(&output.stdout))
}

/// Whether `text` holds an ANSI colour (SGR) sequence, like `ESC[32m`.
fn has_colour(text: &str) -> bool {
    text.split('\u{1b}').skip(1).any(|rest| {
        let body = rest.strip_prefix('[').unwrap_or("");
        let end = body.find(|c: char| !(c.is_ascii_digit() || c == ';'));
        end.is_some_and(|end| end > 0 && body[end..].starts_with('m'))
    })
}

#[test]
fn term_dumb_turns_colour_off() {
    let words = "check --cases 300 --law never_panics";
    let Some(xterm) = on_terminal(words, "xterm-256color") else { return };
    assert!(has_colour(&xterm), "a terminal gets colour:\n{xterm}");
    let Some(dumb) = on_terminal(words, "dumb") else { return };
    assert!(dumb.contains("holds"), "{dumb}");
    assert!(!has_colour(&dumb), "TERM=dumb still gets colour:\n{dumb:?}");
}

#[test]
fn progress_rates_are_whole_numbers() {
    let Some(screen) = on_terminal("check --cases 20000 --law never_panics", "xterm-256color") else { return };
    let rates: Vec<&str> = screen.split("/s").filter_map(|before| before.rsplit('(').next()).collect();
    let rates = &rates[..rates.len().saturating_sub(1)];
    assert!(!rates.is_empty(), "no progress frame:\n{screen:?}");
    for rate in rates {
        assert!(!rate.is_empty() && rate.chars().all(|c| c.is_ascii_digit() || c == ','), "rate {rate:?}:\n{screen:?}");
    }
}

/// Runs a shard and writes its JSON report (whatever the verdict) into `dir`.
fn shard_report(dir: &Path, name: &str, words: &[&str]) -> String {
    let output = command(&args(words), &[]).output().expect("the timelaw binary runs");
    assert!(matches!(output.status.code(), Some(0 | 1)), "{words:?}: {}", text(&output.stderr));
    let path = dir.join(name);
    std::fs::write(&path, &output.stdout).expect("write a shard report");
    path.to_string_lossy().into_owned()
}

#[test]
fn merge_refuses_shards_of_different_settings() {
    let dir = temp_dir("merge-settings");
    let run = |shard: &'static str, extra: &[&'static str]| {
        let mut words = vec!["check", "--cases", "200", "--format", "json", "--law", "never_panics", "--shard", shard];
        words.extend_from_slice(extra);
        words
    };
    let one = shard_report(&dir, "one.json", &run("1/2", &[]));
    let two = shard_report(&dir, "two.json", &run("2/2", &[]));
    check(&args(&["report", "merge", &one, &two]), &[], 0, &["\"cases\": 200"], &[]);
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        ("collect", vec!["--collect", "3"], "collect"),
        ("seed", vec!["--seed", "9"], "seed"),
        ("law", vec!["--law", "attempts_within_max"], "laws"),
        ("subject", vec!["--subject", "backon-exponential"], "subject"),
    ];
    for (name, extra, setting) in cases {
        let other = shard_report(&dir, &format!("{name}.json"), &run("2/2", &extra));
        check(&args(&["report", "merge", &one, &other]), &[], 2, &[], &[setting]);
    }
    let mut total = run("2/2", &[]);
    total[2] = "201";
    let other = shard_report(&dir, "total.json", &total);
    check(&args(&["report", "merge", &one, &other]), &[], 2, &[], &["settings.cases"]);
    let evals = command(&args(&run("2/2", &[])), &[("TIMELAW_SHRINK_EVALS", os("7"))]).output().expect("runs");
    std::fs::write(dir.join("evals.json"), &evals.stdout).expect("write");
    let other = dir.join("evals.json").to_string_lossy().into_owned();
    check(&args(&["report", "merge", &one, &other]), &[], 2, &[], &["settings.shrink_evals_max"]);
}

#[test]
fn skip_allowances_name_capabilities() {
    use common::skip::allows;
    assert!(allows("mount,script", "script"));
    assert!(allows(" mount , script ", "mount"));
    assert!(allows("all", "anything"));
    assert!(!allows("", "mount"));
    assert!(!allows("mounts", "mount"));
}

/// Overlapping calls are on by default (the report's swarm summary has its line); `--sequential` and
/// `TIMELAW_CONCURRENCY=0` turn them off; the old opt-in flag still parses; the two flags conflict.
#[test]
fn overlapping_calls_are_on_by_default_and_sequential_opts_out() {
    let base = ["check", "--cases", "640", "--threads", "1", "--format", "json"];
    let report = |extra: &[&str], env: &[(&str, &OsStr)]| {
        let words: Vec<&str> = base.iter().chain(extra).copied().collect();
        let output = check(&args(&words), env, 0, &[], &[]);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
        let swarm = json["swarm"].as_array().expect("the swarm summary").clone();
        swarm.iter().any(|line| line.as_str().is_some_and(|line| line.starts_with("concurrency: on in ")))
    };
    assert!(report(&[], &[]), "overlapping calls are drawn by default");
    assert!(report(&["--concurrency"], &[]), "the old opt-in flag is accepted");
    assert!(!report(&["--sequential"], &[]));
    assert!(!report(&[], &[("TIMELAW_CONCURRENCY", os("0"))]));
    check(&args(&["check", "--sequential", "--concurrency"]), &[], 2, &[], &["cannot be used with"]);
}

#[test]
fn swarm_on_forces_a_switch_in_every_batch_and_names_every_switch_when_wrong() {
    let base = ["check", "--cases", "640", "--threads", "1", "--sequential", "--format", "json"];
    let circuit_line = |extra: &[&str], env: &[(&str, &OsStr)]| {
        let words: Vec<&str> = base.iter().chain(extra).copied().collect();
        let output = check(&args(&words), env, 0, &[], &[]);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
        let swarm = json["swarm"].as_array().expect("the swarm summary").clone();
        let line = swarm.iter().filter_map(|line| line.as_str()).find(|line| line.starts_with("circuit: "));
        line.expect("a circuit line").to_owned()
    };
    assert_ne!(circuit_line(&[], &[]), "circuit: on in 100% of batches");
    assert_eq!(circuit_line(&["--swarm-on", "circuit"], &[]), "circuit: on in 100% of batches");
    assert_eq!(circuit_line(&[], &[("TIMELAW_SWARM_ON", os("jitter, circuit"))]), "circuit: on in 100% of batches");
    let expected = ["`clocks` is not a swarm switch; expected one of: jitter,", "clock_faults"];
    check(&args(&["check", "--swarm-on", "clocks"]), &[], 2, &[], &expected);
    check(&args(&["check"]), &[("TIMELAW_SWARM_ON", os("clocks"))], 2, &[], &["TIMELAW_SWARM_ON", expected[0]]);
}
