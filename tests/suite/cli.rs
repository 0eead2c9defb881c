//! The real `timelaw` binary over every command, including each kind of bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn timelaw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timelaw"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("TIMELAW_CASES")
        .env_remove("TIMELAW_SEED")
        .output()
        .expect("the timelaw binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[track_caller]
fn check(args: &[&str], code: i32, stdout_has: &[&str], stderr_has: &[&str]) -> Output {
    let output = timelaw(args);
    let (out, err) = (stdout(&output), stderr(&output));
    assert_eq!(output.status.code(), Some(code), "{args:?}\nstdout:\n{out}\nstderr:\n{err}");
    for text in stdout_has {
        assert!(out.contains(text), "{args:?}: stdout lacks {text:?}:\n{out}");
    }
    for text in stderr_has {
        assert!(err.contains(text), "{args:?}: stderr lacks {text:?}:\n{err}");
    }
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{args:?}: {err}");
    output
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timelaw-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn first_fixture(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap()
}

#[test]
fn check_prints_a_table_json_and_junit_that_agree() {
    let table = check(&["check", "--cases", "500", "--seed", "7"], 0, &["attempts_within_max", "never_panics"], &[]);
    let json =
        check(&["check", "--cases", "500", "--seed", "7", "--format", "json"], 0, &["\"schema_version\": 2"], &[]);
    let junit = check(&["check", "--cases", "500", "--seed", "7", "--format", "junit"], 0, &["<testsuite"], &[]);
    assert_eq!(stderr(&table), "", "no progress bar when stderr is not a terminal");
    assert!(!stdout(&table).contains('\u{1b}'), "no colour with NO_COLOR or off a terminal");
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let laws = report["laws"].as_array().unwrap();
    assert_eq!(laws.len(), 58);
    for law in laws {
        let id = law["id"].as_str().unwrap();
        assert!(stdout(&table).contains(id), "table lacks {id}");
        assert!(stdout(&junit).contains(&format!("name=\"{id}\"")), "junit lacks {id}");
        assert_eq!(law["counts"]["cases"], 500);
    }
}

#[test]
fn laws_and_subjects_list_the_catalogue_and_the_builtin_subjects() {
    check(&["laws"], 0, &["attempts_within_max", "notify_matches_sleep", "liveness"], &[]);
    let json = check(&["laws", "--format", "json"], 0, &[], &[]);
    let laws: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(laws.as_array().map(Vec::len), Some(58));
    check(&["subjects"], 0, &["reference"], &[]);
}

#[test]
fn bad_input_is_one_clear_line_and_exit_2() {
    check(&["check", "--subject", "nope"], 2, &[], &["unknown subject \"nope\""]);
    check(&["check", "--law", "no_such_law", "--cases", "1"], 2, &[], &["no_such_law"]);
    check(
        &["check", "--shard", "5/4", "--cases", "1"],
        2,
        &[],
        &["invalid value '5/4' for '--shard", "K/N with 1 <= K <= N"],
    );
    check(&["check", "--seed", "banana"], 2, &[], &["banana"]);
    check(&["replay", "does/not/exist"], 2, &[], &["does/not/exist"]);
    let bad_env = Command::new(env!("CARGO_BIN_EXE_timelaw"))
        .args(["check", "--cases", "10"])
        .env("TIMELAW_ATTEMPTS_MAX", "lots")
        .output()
        .unwrap();
    assert_eq!(bad_env.status.code(), Some(2));
    assert!(
        stderr(&bad_env)
            .contains("invalid value 'lots' for environment variable TIMELAW_ATTEMPTS_MAX: expected a count"),
        "{}",
        stderr(&bad_env)
    );
    let dir = temp_dir("bad");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\n  \"format\": \"timelaw-fixture\",\n  \"version\": 1,\n  \"law\": 3\n}\n").unwrap();
    check(&["explain", bad.to_str().unwrap()], 2, &[], &["bad.json:4:"]);
    check(&["replay", bad.to_str().unwrap()], 2, &[], &["ERROR", "bad.json:4:"]);
    check(&["report", "merge", bad.to_str().unwrap()], 2, &[], &["bad.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shards_merge_into_the_single_machine_report() {
    let dir = temp_dir("shards");
    let whole = check(&["check", "--cases", "600", "--format", "json"], 0, &[], &[]);
    let mut files = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        let output = check(&["check", "--cases", "600", "--format", "json", "--shard", shard], 0, &[], &[]);
        let path = dir.join(format!("shard{}.json", &shard[..1]));
        std::fs::write(&path, &output.stdout).unwrap();
        files.push(path.to_string_lossy().into_owned());
    }
    let mut args = vec!["report", "merge", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let merged = check(&args, 0, &[], &[]);
    let strip = |bytes: &[u8]| {
        let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        value["threads"] = serde_json::Value::Null;
        value
    };
    assert_eq!(strip(&merged.stdout), strip(&whole.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The JSON report `bytes` with what may differ between a merge and one machine blanked: the thread count,
/// and each fixture's folder (the shards write to their own), its file name kept.
fn report_for_comparison(bytes: &[u8]) -> serde_json::Value {
    fn file_names_only(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map.iter_mut() {
                    if let (true, serde_json::Value::String(path)) = (key == "fixture", &*value) {
                        *value = Path::new(path).file_name().unwrap().to_string_lossy().into();
                    } else {
                        file_names_only(value);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(file_names_only),
            _ => {}
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    value["threads"] = serde_json::Value::Null;
    file_names_only(&mut value);
    value
}

/// The `.json` files of `dir` by name, with their bytes.
fn fixture_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let entries = std::fs::read_dir(dir).unwrap().flatten().map(|entry| entry.path());
    let fixtures = entries.filter(|path| path.extension().is_some_and(|ext| ext == "json"));
    fixtures
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap()))
        .collect()
}

/// `.ci/sharded-check all` (the local twin of the sharded GitHub Actions workflow) on a subject with
/// violations: the merged report and the fixtures it gathers are one machine's, byte for byte.
#[test]
fn the_sharded_check_script_merges_into_one_machines_report_and_fixtures() {
    let dir = temp_dir("sharded-script");
    let (out, whole_fixtures) = (dir.join("out"), dir.join("whole"));
    let script = Command::new("bash")
        .args([".ci/sharded-check", "all", "3", out.to_str().unwrap()])
        .env("TIMELAW_BIN", env!("CARGO_BIN_EXE_timelaw"))
        .env("TIMELAW_CASES", "3000")
        .env("TIMELAW_SHARD_ARGS", "--subject backon-exponential")
        .env("NO_COLOR", "1")
        .env_remove("TIMELAW_SEED")
        .output()
        .expect("bash runs");
    assert_eq!(script.status.code(), Some(1), "a violation fails the merge:\n{}", stderr(&script));
    let args = ["check", "--subject", "backon-exponential", "--cases", "3000", "--format", "json", "--fixtures"];
    let whole = check(&[&args[..], &[whole_fixtures.to_str().unwrap()]].concat(), 1, &[], &[]);
    let merged = std::fs::read(out.join("merged.json")).unwrap();
    assert_eq!(report_for_comparison(&merged), report_for_comparison(&whole.stdout));
    let (gathered, expected) = (fixture_files(&out.join("fixtures")), fixture_files(&whole_fixtures));
    assert!(!expected.is_empty(), "the subject has violations to pin");
    assert_eq!(gathered.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
    assert!(gathered == expected, "the gathered fixtures differ from one machine's in their bytes");
    // A folder the script did not make is refused, not emptied.
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let refused = Command::new("bash")
        .args([".ci/sharded-check", "all", "2", foreign.to_str().unwrap()])
        .env("TIMELAW_BIN", env!("CARGO_BIN_EXE_timelaw"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("is not a folder this script made"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "mine");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fixture_commands_replay_explain_shrink_and_import() {
    let dir = temp_dir("fixtures");
    let source = std::fs::read_dir("tests/fixtures/reference").unwrap().flatten().map(|e| e.path()).min().unwrap();
    std::fs::copy(&source, dir.join(source.file_name().unwrap())).unwrap();
    let file = first_fixture(&dir);
    let path = file.to_str().unwrap();
    check(&["replay", dir.to_str().unwrap()], 0, &["ok ", "1 passed, 0 failed"], &[]);
    check(&["explain", path], 0, &["seq", "call started", "verdict: holds"], &[]);
    check(&["shrink", path], 2, &[], &["nothing to shrink"]);
    // Break it on purpose: claim the reference has a known violation here.
    let text = std::fs::read_to_string(&file).unwrap().replace("\"regression\"", "\"known_violation\"");
    std::fs::write(&file, text).unwrap();
    check(&["replay", path], 1, &["FAILED", "no longer reproduces"], &[]);
    let artifact = dir.join("crash-artifact");
    std::fs::write(&artifact, [0_u8; 16]).unwrap();
    let args =
        ["import-crash", artifact.to_str().unwrap(), "--subject", "reference", "--fixtures", dir.to_str().unwrap()];
    check(&args, 2, &[], &["violates no law"]);
    let with_law = [&args[..], &["--law", "terminates"]].concat();
    check(&with_law, 2, &[], &["does not violate `terminates`"]);
    let unknown_law = [&args[..], &["--law", "no_such_law"]].concat();
    check(&unknown_law, 2, &[], &["--law: unknown law id(s): `no_such_law`"]);
    check(&["import-crash", "missing-artifact", "--subject", "nobody"], 2, &[], &["unknown subject \"nobody\""]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_known_violation_explains_shrinks_and_a_crash_imports() {
    let dir = temp_dir("adapters");
    let source = std::fs::read_dir("tests/fixtures/adapters")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("delay_within_cap--backon-exponential"))
        .unwrap();
    let copy = dir.join(source.file_name().unwrap());
    std::fs::copy(&source, &copy).unwrap();
    let path = copy.to_str().unwrap();
    check(&["replay", path], 0, &["still reproduces"], &[]);
    check(&["explain", path], 1, &["▶", "delay_within_cap", "above the cap", "verdict: violated at event"], &[]);
    let shrunk = check(&["shrink", path], 0, &[".json"], &[]);
    let written = PathBuf::from(stdout(&shrunk).trim());
    check(&["replay", written.to_str().unwrap()], 0, &["1 passed"], &[]);
    // Bytes a fuzzer could have saved: they decode to an exponential-backoff config that panics.
    let crash: [u8; 32] = [
        212, 233, 171, 48, 77, 72, 150, 249, 225, 127, 216, 240, 129, 100, 150, 218, 8, 122, 62, 190, 204, 103, 106,
        170, 44, 93, 140, 225, 179, 198, 172, 188,
    ];
    let artifact = dir.join("crash-0001");
    std::fs::write(&artifact, crash).unwrap();
    let out = dir.join("imported");
    let args = [
        "import-crash",
        artifact.to_str().unwrap(),
        "--subject",
        "exponential-backoff",
        "--fixtures",
        out.to_str().unwrap(),
    ];
    let imported = check(&args, 0, &["never_panics--exponential-backoff--"], &[]);
    let fixture = PathBuf::from(stdout(&imported).trim());
    let text = std::fs::read_to_string(&fixture).unwrap();
    assert!(text.contains("\"source\": \"fuzz\"") && text.contains("\"shrunk\": true"), "{text}");
    check(&["replay", fixture.to_str().unwrap()], 1, &["regression: violated"], &[]);
    check_known_or_new(&args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `import-crash --known DIR` on the exponential-backoff crash `args` imports: known against the checked-in
/// fixtures (it shrinks to the case a `known_violation` fixture pins); new against a folder without them;
/// new against copies of those fixtures at another case (the same law and message class: another
/// minimum, or another bug of the kind); new against copies whose stored panic says something else.
fn check_known_or_new(args: &[&str], dir: &Path) {
    let known = [args, &["--known", "tests/fixtures"]].concat();
    let pinned = "known: the case pinned by tests/fixtures/adapters/never_panics--exponential-backoff--";
    check(&known, 0, &[pinned], &[]);
    let empty = dir.join("nothing-pinned");
    std::fs::create_dir_all(&empty).unwrap();
    let new = [args, &["--known", empty.to_str().unwrap()]].concat();
    check(&new, 1, &["new: no known_violation fixture under", "pins never_panics against exponential-backoff"], &[]);
    let copies = |folder: &str, edit: &dyn Fn(String) -> String| {
        let to = dir.join(folder);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir("tests/fixtures/adapters").unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("never_panics--exponential-backoff--") {
                std::fs::write(to.join(name), edit(std::fs::read_to_string(entry.path()).unwrap())).unwrap();
            }
        }
        to
    };
    let elsewhere = copies("other-cases", &|text| text.replace("\"seed\": 0", "\"seed\": 7"));
    let elsewhere = [args, &["--known", elsewhere.to_str().unwrap()]].concat();
    check(&elsewhere, 1, &["new: another minimum of the class pinned by", "review it"], &[]);
    let reworded = copies("other-panics", &|text| {
        text.replace("\"message\": \"the subject panicked: ", "\"message\": \"the subject panicked: elsewhere: ")
    });
    let reworded = [args, &["--known", reworded.to_str().unwrap()]].concat();
    check(&reworded, 1, &["new: no known_violation fixture under"], &[]);
}

#[test]
fn the_health_check_warns_and_fails_only_when_required() {
    // In 200 cases no batch draws clock faults: the clock laws apply but are never judged non-vacuously.
    let warning = "warning: barely exercised (judged non-vacuously in under 0.1% of the cases it applied to): \
                   wall_jump_keeps_monotonic_limits (0 of 200 applicable cases)";
    check(&["check", "--cases", "200"], 0, &[warning, "status: holds (exit code 0)"], &[]);
    check(&["check", "--cases", "200", "--require-judged"], 4, &[warning], &[]);
}
