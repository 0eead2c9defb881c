//! The fixture store under stress, through the real `timelaw` binary: existing fixtures are never changed
//! or removed without `--bless`, counterexamples are on disk as soon as they are found (a kill loop shows a
//! kill loses at most the case being evaluated), write errors are loud, and fixtures are read strictly.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const REFERENCE_FIXTURE: &str = "tests/fixtures/reference/fatal_not_retried--reference--925a5b655c5df803.json";
const BACKON_FIXTURE: &str = "tests/fixtures/adapters/delay_within_cap--backon-exponential--ced5f7ec12e3ebae.json";

fn command() -> Command {
    command_of(env!("CARGO_BIN_EXE_timelaw"))
}

/// `program` with no `TIMELAW_*` variable of the test's environment and no colour.
fn command_of(program: &str) -> Command {
    let mut command = Command::new(program);
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

/// A test that needs `capability` (like `unshare` or `mount`), which this machine lacks (`why`): fails,
/// unless `TIMELAW_ALLOW_SKIP` lists it; then the skip is printed ([`common::skip::missing`]).
#[track_caller]
fn lacking(capability: &str, why: &str) {
    common::skip::missing(&format!("a test needing {capability}"), capability, why);
}

/// A fresh folder, distinct for every call (tests run in parallel), removed when dropped.
fn temp_dir(name: &str) -> common::scratch::Scratch {
    common::scratch::Scratch::new("reliability", name)
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
fn every_reader_is_strict_on_unknown_fields_anywhere() {
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
    check_reading(r, typo("\"delay\": \"0\"", "\"delay\": \"0\", \"dealy\": 0"), 2, &["unknown field `dealy`"]);
    let retry_on = "field `case.config.retry_on.fatal`";
    check_reading(r, typo("\"timeout\": true", "\"timeout\": true, \"fatal\": true"), 2, &[retry_on]);
    let b = BACKON_FIXTURE;
    let adapter = "field `case.config.max_time`: unknown field `max_time`";
    check_reading(b, typo("\"max_times\"", "\"max_time\": 3, \"max_times\""), 2, &[adapter]);
}

#[test]
fn every_reader_is_strict_on_versions_bom_nan_and_configs() {
    let r = REFERENCE_FIXTURE;
    let version = |v: &'static str| move |text: &str| text.replacen("\"version\": 2,", v, 1);
    check_reading(r, version("\"version\": 0,"), 2, &["fixture format version 0 does not exist"]);
    check_reading(r, version("\"version\": 6,"), 2, &["fixture format version 6 is newer than this timelaw"]);
    check_reading(r, version("\"version\": 5,"), 0, &["1 passed"]);
    check_reading(r, version("\"version\": 4,"), 0, &["1 passed"]);
    check_reading(r, version("\"version\": 3,"), 0, &["1 passed"]);
    check_reading(r, version("\"version\": 1,"), 0, &["1 passed"]);
    let gap = "field `case.schedule.calls[0].gap_before`: `5 ms` is not a VDuration: ` ms` is not a unit; expected a duration";
    check_reading(r, |text| text.replacen("\"gap_before\": \"0\"", "\"gap_before\": \"5 ms\"", 1), 2, &[gap]);
    check_reading(r, |text| text.replacen("\"gap_before\": \"0\"", "\"gap_before\": 0", 1), 0, &["1 passed"]);
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

// ---------------------------------------------------------------------------------------------------------
// Existing fixtures are never changed or removed.

/// Every file under `dir` (recursively, hidden ones included) with its bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Every file of `before` is still there with the same bytes.
#[track_caller]
fn assert_kept(before: &std::collections::BTreeMap<PathBuf, Vec<u8>>, dir: &Path) {
    let after = snapshot(dir);
    for (path, bytes) in before {
        let now = after.get(path).unwrap_or_else(|| panic!("{} was removed", path.display()));
        assert!(now == bytes, "{} was changed:\n{}", path.display(), String::from_utf8_lossy(now));
    }
}

fn copy_dir(from: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

const BACKON: &[&str] = &["check", "--subject", "backon-exponential", "--cases", "3000", "--threads", "2"];

fn check_args<'a>(dir: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = BACKON.to_vec();
    args.extend(["--fixtures", dir.to_str().unwrap()]);
    args.extend(extra);
    args
}

#[test]
fn existing_fixtures_are_kept_by_check() {
    let scratch = temp_dir("known");
    let fx = scratch.join("fx");
    copy_dir("tests/fixtures/adapters", &fx);
    let before = snapshot(&fx);
    let (_, err) = run(&check_args(&fx, &[]), &[], 1);
    assert_kept(&before, &fx);
    assert!(err.contains("already pinned by"), "{err}");
    assert!(!fx.join(".timelaw").exists(), "the scratch area is removed after a clean run");
    let (out, _) = run(&["replay", fx.to_str().unwrap()], &[], 0);
    assert!(out.contains("0 failed, 0 errors"), "{out}");
}

#[test]
fn existing_fixtures_are_kept_when_curated_at_a_raw_name() {
    let dir = temp_dir("curated");
    run(&check_args(&dir, &[]), &[("TIMELAW_SHRINK_EVALS", "0")], 1);
    let files = json_files(&dir);
    assert!(files.len() >= 2, "{files:?}");
    for file in &files {
        let text = read(file).replacen("\"regression\"", "\"known_violation\"", 1);
        std::fs::write(file, text.replacen("\"note\": null", "\"note\": \"curated by hand\"", 1)).unwrap();
    }
    let before = snapshot(&dir);
    run(&check_args(&dir, &[]), &[], 1);
    assert_kept(&before, &dir);
    run(&check_args(&dir, &[]), &[("TIMELAW_SHRINK_EVALS", "0")], 1);
    assert_kept(&before, &dir);
}

#[test]
fn a_taken_name_moves_the_finding_on() {
    let dir = temp_dir("collision");
    let name = Path::new(BACKON_FIXTURE).file_name().unwrap();
    let edited = read(BACKON_FIXTURE).replacen("\"seed\": 0", "\"seed\": 7", 1);
    std::fs::write(dir.join(name), &edited).unwrap();
    let before = snapshot(&dir);
    run(&check_args(&dir, &["--law", "delay_within_cap"]), &[], 1);
    assert_kept(&before, &dir);
    let moved = dir.join(name.to_str().unwrap().replace(".json", "-2.json"));
    assert!(read(&moved).contains("\"seed\": 0"), "{}", moved.display());
    let (_, err) = run(&check_args(&dir, &["--law", "delay_within_cap"]), &[], 1);
    assert!(err.contains(&format!("already pinned by {}", moved.display())), "{err}");
    run(&check_args(&dir, &["--law", "delay_within_cap", "--bless"]), &[], 1);
    assert!(read(dir.join(name)).contains("\"seed\": 0"), "--bless replaces the file of the finding's name");
}

#[test]
fn existing_fixtures_are_kept_by_shrink() {
    let (raw_dir, probe_dir) = (temp_dir("shrink-raw"), temp_dir("shrink-probe"));
    run(&check_args(&raw_dir, &["--law", "delay_within_cap"]), &[("TIMELAW_SHRINK_EVALS", "0")], 1);
    let raw = json_files(&raw_dir).remove(0);
    std::fs::copy(&raw, probe_dir.join(raw.file_name().unwrap())).unwrap();
    let (out, _) = run(&["shrink", probe_dir.join(raw.file_name().unwrap()).to_str().unwrap()], &[], 0);
    let shrunk_name = Path::new(out.trim()).file_name().unwrap().to_owned();
    assert_ne!(shrunk_name, raw.file_name().unwrap(), "the raw case shrinks to another name");
    let curated = read(out.trim()).replacen("\"regression\"", "\"known_violation\"", 1);
    let curated = curated.replacen("\"note\": null", "\"note\": \"curated by hand\"", 1);
    std::fs::write(raw_dir.join(&shrunk_name), &curated).unwrap();
    let before = snapshot(&raw_dir);
    let (out, _) = run(&["shrink", raw.to_str().unwrap()], &[], 0);
    assert_eq!(out.trim(), format!("already pinned by {}", raw_dir.join(&shrunk_name).display()));
    assert_kept(&before, &raw_dir);
    let (out, _) = run(&["shrink", raw.to_str().unwrap(), "--bless"], &[], 0);
    assert_eq!(out.trim(), raw_dir.join(&shrunk_name).display().to_string());
    assert!(!read(raw_dir.join(&shrunk_name)).contains("curated by hand"), "--bless replaces it");
    assert!(!raw.exists(), "the shrunk fixture replaces the one the user asked to shrink");
}

// ---------------------------------------------------------------------------------------------------------
// Write errors are loud: exit 2, one line naming the path and the OS error, no temporary file left.

#[track_caller]
fn assert_loud(err: &str, path: &Path, os_error: &str) {
    let lines: Vec<&str> = err.lines().filter(|line| line.starts_with("timelaw: error:")).collect();
    assert_eq!(lines.len(), 1, "one error line:\n{err}");
    assert!(lines[0].contains(&path.display().to_string()), "the error names {}:\n{err}", path.display());
    assert!(lines[0].contains(os_error), "the error says {os_error:?}:\n{err}");
}

fn temporaries(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir).into_keys().filter(|path| path.extension().is_some_and(|ext| ext == "tmp")).collect()
}

/// A fuzz artifact whose case violates a law of `backon-exponential` (`delay_within_cap`: `min_delay` above
/// `max_delay`).
const VIOLATING_ARTIFACT: &str = concat!(
    "d939c0b36e535daeb0189930aa047c38bad93b45cfc967016b700c69d43d9079a2f854990fe488ab82e731e7d01e080c",
    "db7ae9341a50f3a0f0c25a296f4dd03a0f32d0760397a0760bff73b3b5a789695c7343b017904910365a3c531d053187",
    "683919adb97d4b04c6ba8fffb7cabc915b54ae2e0928d98eb8dbeca059f52916bb042ec0e0785449dcb313dc491dce4c",
    "1306babf643690752d243ecde071b9851d5f15b71bda3293487586f54fd7f1ba14b07f99a082caa47ac0a16d27c1480c",
);

fn from_hex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap()).collect()
}

#[test]
fn write_errors_are_loud_when_the_folder_cannot_be_created() {
    // Tests may run as root, whom file modes do not stop: a path under a regular file fails for everyone.
    let dir = temp_dir("under-file");
    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let target = file.join("sub");
    let (out, err) = run(&check_args(&target, &[]), &[], 2);
    assert_loud(&err, &target, "Not a directory");
    assert!(!out.contains("none written"), "{out}");
    let artifact = dir.join("artifact");
    std::fs::write(&artifact, from_hex(VIOLATING_ARTIFACT)).unwrap();
    let fine = dir.join("fine");
    run(
        &[
            "import-crash",
            artifact.to_str().unwrap(),
            "--subject",
            "backon-exponential",
            "--fixtures",
            fine.to_str().unwrap(),
        ],
        &[],
        0,
    );
    let (_, err) = run(
        &[
            "import-crash",
            artifact.to_str().unwrap(),
            "--subject",
            "backon-exponential",
            "--fixtures",
            target.to_str().unwrap(),
        ],
        &[],
        2,
    );
    assert!(err.contains(&target.display().to_string()) && err.contains("Not a directory"), "{err}");
}

/// A folder mounted by this test, unmounted when dropped.
struct Mount(PathBuf);

impl Mount {
    /// Mounts with `mount ARGS DIR`, or says why it cannot.
    fn new(dir: &Path, args: &[&str]) -> Result<Mount, String> {
        let output = Command::new("mount").args(args).arg(dir).output().map_err(|e| format!("no mount: {e}"))?;
        match output.status.success() {
            true => Ok(Mount(dir.to_owned())),
            false => Err(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn write_errors_are_loud_on_a_read_only_folder() {
    let dir = temp_dir("read-only");
    let mount = Mount::new(&dir, &["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs"]);
    let _mount = match mount {
        Ok(mount) => mount,
        Err(why) => return lacking("mount", &format!("cannot mount a read-only tmpfs here ({why})")),
    };
    let (out, err) = run(&check_args(&dir, &[]), &[], 2);
    assert_loud(&err, &dir, "Read-only file system");
    assert!(!out.contains("none written"), "{out}");
}

#[test]
fn write_errors_are_loud_on_a_full_disk_and_leave_no_temporary_file() {
    let dir = temp_dir("full");
    let mount = Mount::new(&dir, &["-t", "tmpfs", "-o", "size=8k", "tmpfs"]);
    let _mount = match mount {
        Ok(mount) => mount,
        Err(why) => return lacking("mount", &format!("cannot mount a small tmpfs here ({why})")),
    };
    let (out, err) = run(&check_args(&dir, &["--collect", "40"]), &[], 2);
    assert_loud(&err, &dir, "No space left on device");
    assert!(!out.contains("none written"), "{out}");
    assert_eq!(temporaries(&dir), Vec::<PathBuf>::new());
}

// ---------------------------------------------------------------------------------------------------------
// Persist as you find: the kill loop.

/// One SplitMix64 step: the test's own seeded source of kill points.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The raw counterexamples in the scratch area of `dir`.
fn pending_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(runs) = std::fs::read_dir(dir.join(".timelaw/pending")) else { return Vec::new() };
    let runs = runs.flatten().filter_map(|run| std::fs::read_dir(run.path()).ok());
    runs.flat_map(|files| files.flatten().map(|file| file.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect()
}

/// Law, subject and case of a fixture file, which must be complete JSON.
fn identity(path: &Path) -> String {
    let value: serde_json::Value = serde_json::from_str(&read(path))
        .unwrap_or_else(|error| panic!("a kill left an incomplete file {}: {error}", path.display()));
    serde_json::to_string(&(&value["law"], &value["subject"], &value["case"])).unwrap()
}

fn top_level(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    json_files(dir).into_iter().map(|path| (path.clone(), std::fs::read(&path).unwrap())).collect()
}

/// Spawns a check and kills it at a seeded point: once `files` raw counterexamples are pending, after
/// `polls` more looks at the child (no sleeping: the points are counts of progress).
fn kill_at(dir: &Path, cases: &str, files: usize, polls: u64) {
    let args = ["check", "--subject", "backon-exponential", "--collect", "8", "--cases", cases];
    let mut child = command()
        .args(args)
        .args(["--fixtures", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut polls_left = polls;
    while child.try_wait().unwrap().is_none() {
        if pending_files(dir).len() >= files {
            if polls_left == 0 {
                break;
            }
            polls_left -= 1;
        }
        std::thread::yield_now();
    }
    child.kill().unwrap(); // SIGKILL on Unix; a child that already ended is reaped below.
    child.wait().unwrap();
}

#[test]
fn raw_counterexamples_are_on_disk_at_once_so_a_kill_loses_none() {
    let dir = temp_dir("kill");
    let mut state = 0x6b11_100b_5eed_0011_u64;
    let mut found = std::collections::BTreeSet::new();
    let mut kept = top_level(&dir);
    for _ in 0..10 {
        let point = next(&mut state);
        let cases = if point.is_multiple_of(3) { "2000" } else { "30000" };
        kill_at(&dir, cases, 1 + (point >> 8) as usize % 24, (point >> 16) % 500);
        for file in json_files(&dir) {
            identity(&file);
        }
        let pending = pending_files(&dir);
        eprintln!("kill: {} pending, {} fixtures", pending.len(), json_files(&dir).len());
        found.extend(pending.iter().map(|file| identity(file)));
        if !pending.is_empty() && !json_files(&dir).is_empty() {
            let output = timelaw(&["replay", dir.to_str().unwrap()], &[]);
            let both =
                format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
            assert!(!both.contains(".timelaw"), "the scratch area is never replayed:\n{both}");
        }
        assert_kept(&kept, &dir);
        kept = top_level(&dir);
    }
    assert!(!found.is_empty(), "no kill came while counterexamples were pending");
    let (_, err) = run(
        &["check", "--subject", "backon-exponential", "--cases", "500", "--fixtures", dir.to_str().unwrap()],
        &[],
        1,
    );
    assert!(err.contains("recovered a killed run's") || err.contains("already pinned by"), "{err}");
    assert!(!dir.join(".timelaw").exists(), "the scratch area is empty after recovery");
    assert_eq!(temporaries(&dir), Vec::<PathBuf>::new());
    assert_kept(&kept, &dir);
    let pinned: std::collections::BTreeSet<String> = json_files(&dir).iter().map(|file| identity(file)).collect();
    let lost: Vec<&String> = found.difference(&pinned).collect();
    assert!(lost.is_empty(), "counterexamples on disk at a kill are lost: {lost:?}");
}

#[test]
fn existing_fixtures_are_kept_by_import_crash() {
    let dir = temp_dir("import");
    let artifact = dir.join("artifact");
    std::fs::write(&artifact, from_hex(VIOLATING_ARTIFACT)).unwrap();
    let fx = dir.join("fx");
    let import = ["import-crash", artifact.to_str().unwrap(), "--subject", "backon-exponential"];
    let import: Vec<&str> = import.into_iter().chain(["--fixtures", fx.to_str().unwrap()]).collect();
    let (out, _) = run(&import, &[], 0);
    let first = PathBuf::from(out.trim());
    // Curate every law the artifact violates as a known violation: each import takes the first violated
    // law not yet pinned, so the imports walk through them, and none may touch a curated file.
    let mut written = first.clone();
    for _ in 0..40 {
        let curated = read(&written).replacen("\"regression\"", "\"known_violation\"", 1);
        std::fs::write(&written, &curated).unwrap();
        let before = snapshot(&fx);
        let (out, _) = run(&import, &[], 0);
        assert_kept(&before, &fx);
        if let Some(pinned) = out.trim().strip_prefix("already pinned by ") {
            // Every violation is pinned: the first violated law's file pins it.
            assert_eq!(pinned, first.display().to_string());
            let blessed: Vec<&str> = import.iter().copied().chain(["--bless"]).collect();
            run(&blessed, &[], 0);
            assert!(read(&first).contains("\"regression\""), "--bless replaces it");
            return;
        }
        written = PathBuf::from(out.trim());
        assert!(!before.contains_key(&written), "a new law's fixture gets a new file: {}", written.display());
    }
    panic!("the imports never reported the finding as already pinned");
}

// ---------------------------------------------------------------------------------------------------------
// Recovery: what killed runs left, and only that.

/// Kills the process that `unshare` runs as PID 1 of its namespaces (its only child), and waits until
/// `unshare` has reaped it: the run is dead, its lock released.
fn kill_pid_1(unshare: &mut std::process::Child) {
    let pid = unshare.id();
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    for child in children.split_whitespace() {
        let _ = Command::new("kill").args(["-9", child]).status();
    }
    unshare.wait().unwrap();
}

/// `unshare` runs a process as PID 1 of a new PID namespace here, or the reason why not.
fn unshare_works() -> Result<(), String> {
    let output = Command::new("unshare").args(["-pf", "--mount-proc", "true"]).output();
    match output {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => Err(String::from_utf8_lossy(&output.stderr).trim().to_owned()),
        Err(error) => Err(format!("no unshare: {error}")),
    }
}

#[test]
fn killed_runs_are_recovered_even_as_pid_1_of_a_container() {
    if let Err(why) = unshare_works() {
        return lacking("unshare", &format!("`unshare -pf --mount-proc` fails here ({why})"));
    }
    let dir = temp_dir("container");
    let in_container = |args: &[&str]| {
        let mut command = command_of("unshare");
        command.args(["-pf", "--mount-proc", env!("CARGO_BIN_EXE_timelaw")]).args(args);
        command.args(["--subject", "backon-exponential", "--fixtures", dir.to_str().unwrap()]);
        command
    };
    let mut first = in_container(&["check", "--collect", "8", "--cases", "30000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while pending_files(&dir).is_empty() && first.try_wait().unwrap().is_none() {
        std::thread::yield_now();
    }
    kill_pid_1(&mut first);
    let found: Vec<String> = pending_files(&dir).iter().map(|file| identity(file)).collect();
    assert!(!found.is_empty(), "the run ended before it saved a counterexample");
    let output = in_container(&["check", "--cases", "500"]).output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("recovered a killed run's"), "{err}");
    assert!(!dir.join(".timelaw").exists(), "the killed run's folder is recovered whole:\n{err}");
    let pinned: std::collections::BTreeSet<String> = json_files(&dir).iter().map(|file| identity(file)).collect();
    let lost: Vec<&String> = found.iter().filter(|found| !pinned.contains(*found)).collect();
    assert!(lost.is_empty(), "a run killed as PID 1 lost counterexamples: {lost:?}");
}

#[test]
fn recovery_touches_only_what_a_run_marked() {
    let dir = temp_dir("marked");
    let name = Path::new(BACKON_FIXTURE).file_name().unwrap().to_str().unwrap();
    let dead = dir.join(".timelaw/pending/run-00000000000000ab");
    let unmarked = dir.join(".timelaw/pending/4294967295-0");
    std::fs::create_dir_all(dead.join("a-subfolder")).unwrap();
    std::fs::create_dir_all(&unmarked).unwrap();
    std::fs::write(dead.join("lock"), "timelaw run 00000000000000ab\n").unwrap();
    let strays = [(".DS_Store", ""), ("empty.json", ""), ("broken.json", "{ half"), ("notes.txt", "mine")];
    for (stray, text) in strays {
        std::fs::write(dead.join(stray), text).unwrap();
    }
    std::fs::write(unmarked.join(name), read(BACKON_FIXTURE)).unwrap();
    std::fs::write(dir.join(".notes.json.4294967295-0.tmp"), "a user's notes").unwrap();
    std::fs::write(unmarked.join(".x.json.4294967295-1.tmp"), "a user's notes").unwrap();
    let before = snapshot(&dir);
    std::fs::write(dead.join(name), read(BACKON_FIXTURE)).unwrap();
    let (_, err) = run(&check_args(&dir, &["--law", "delay_within_cap"]), &[], 1);
    assert_kept(&before, &dir);
    assert_eq!(read(dir.join(name)), read(BACKON_FIXTURE), "the dead run's raw counterexample is promoted");
    assert!(err.contains(&format!("recovered a killed run's unshrunk counterexample as {}", dir.join(name).display())));
    for left in [".DS_Store", "a-subfolder", "empty.json", "broken.json", "notes.txt"] {
        assert!(err.contains(&format!("left alone {}:", dead.join(left).display())), "{left}:\n{err}");
    }
    assert!(err.contains(&format!("left alone {}: not a timelaw run's folder", unmarked.display())), "{err}");
    assert_eq!(json_files(&dir), vec![dir.join(name)], "nothing unreadable is promoted");
    run(&check_args(&dir, &["--law", "delay_within_cap"]), &[], 1);
    let (out, _) = run(&["replay", dir.to_str().unwrap()], &[], 0);
    assert!(out.contains("1 passed, 0 failed, 0 errors"), "{out}");
}

// ---------------------------------------------------------------------------------------------------------
// Every reader is strict, every float exact, every printed value escaped.

#[test]
fn every_reader_is_strict_in_upgrade_explain_shrink_import_and_merge() {
    let dir = temp_dir("strict-readers");
    let path = dir.join("current-but-broken.json");
    let text = read(REFERENCE_FIXTURE).replacen("\"shrunk\"", "\"shrank\": true, \"shrunk\"", 1);
    std::fs::write(&path, &text).unwrap();
    let path = path.to_str().unwrap();
    for args in [&["replay", path][..], &["fixtures", "upgrade", path], &["explain", path], &["shrink", path]] {
        let (_, err) = run(args, &[], 2);
        assert!(err.contains("unknown field `shrank`"), "{args:?}: {err}");
    }
    assert_eq!(read(path), text, "a file no reader accepts is left as it is");
    let artifact = dir.join("artifact");
    std::fs::write(&artifact, from_hex(VIOLATING_ARTIFACT)).unwrap();
    let import = ["import-crash", artifact.to_str().unwrap(), "--subject", "backon-exponential", "--fixtures"];
    let (_, err) = run(&[&import[..], &[dir.to_str().unwrap()]].concat(), &[], 2);
    assert!(err.contains("unknown field `shrank`"), "import-crash reads the fixtures folder strictly: {err}");
    let report = String::from_utf8(timelaw(&["check", "--cases", "50", "--format", "json"], &[]).stdout).unwrap();
    let edits = [
        ("\"seed\":", "\"sede\": 1, \"seed\":", "unknown field `sede`"),
        ("\"cases\": 50,", "\"cases\": 49,", "cases is 49 but case_range [0, 50) holds 50"),
    ];
    for (from, to, expected) in edits {
        let file = dir.join("report.json");
        std::fs::write(&file, report.replacen(from, to, 1)).unwrap();
        let (_, err) = run(&["report", "merge", file.to_str().unwrap()], &[], 2);
        assert!(err.contains(expected), "{err}");
    }
}

/// A fixture whose config is one float, written as timelaw writes fixtures.
fn float_fixture<C: serde::Serialize>(config: C) -> String {
    let fixture = timelaw::fixture::Fixture {
        about: timelaw::fixture::ABOUT.to_owned(),
        format: timelaw::fixture::FORMAT.to_owned(),
        version: 2,
        law: "delay_within_cap".to_owned(),
        subject: "floats".to_owned(),
        status: timelaw::fixture::Status::Regression,
        note: None,
        profile: None,
        std_clocks: timelaw::StdClocks::Real,
        std_random: timelaw::StdRandom::Os,
        case: timelaw::core::Case::new(config, timelaw::core::Schedule::default(), 0),
        verdict: timelaw::laws::Verdict::Holds,
        provenance: timelaw::fixture::Provenance {
            source: timelaw::fixture::Source::Hand,
            run_seed: None,
            case_index: None,
            shrunk: true,
            shrink_evaluations: 0,
            timelaw_version: "0.1.0".to_owned(),
        },
        trace: Vec::new(),
    };
    serde_json::to_string_pretty(&fixture).unwrap()
}

/// Floats from the test's seeded source: random bit patterns (every exponent), random subnormals and
/// the extremes. JSON has no NaN or infinity (no reader accepts them: `every_reader_is_strict_on_...`),
/// so only finite values are stored.
fn floats() -> Vec<f64> {
    let mut state = 0xf10a_7000_5eed_0001_u64;
    let mut floats = vec![f64::MAX, f64::MIN, f64::MIN_POSITIVE, f64::EPSILON, -0.0, 0.0, 1e23];
    floats.extend([f64::from_bits(1), f64::from_bits(0x000f_ffff_ffff_ffff), 3.4028234663852886e38]);
    for _ in 0..1000 {
        let bits = next(&mut state);
        floats.extend([f64::from_bits(bits), f64::from_bits(bits & 0x800f_ffff_ffff_ffff)]);
    }
    floats.retain(|float| float.is_finite());
    floats
}

#[test]
fn floats_round_trip_exactly() {
    use timelaw::fixture::{parse, Fixture};
    let path = Path::new("floats.json");
    let report_of = |float: f64| {
        let mut report = timelaw::reports::Report::new("floats", 1);
        let mut row = timelaw::reports::LawRow::new("l", "L", timelaw::laws::LawKind::Safety);
        (row.counts.cases, row.counts.violated) = (1, 1);
        let violation = timelaw::laws::Violation::new(None, "m");
        let case = serde_json::json!({ "config": float, "schedule": { "calls": [] }, "seed": 0 });
        row.violation = Some(timelaw::reports::ViolationSummary::new(0, &violation, case, 0, 1));
        report.laws.push(row);
        (report.cases, report.case_range) = (1, Some((0, 1)));
        report
    };
    for float in floats() {
        let text = float_fixture(timelaw::F64(float));
        let read: Fixture<timelaw::F64> = parse(path, &text).unwrap();
        assert_eq!(
            read.case.config.0.to_bits(),
            float.to_bits(),
            "fixture: {float:e} read as {:e}",
            read.case.config.0
        );
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let read: Fixture<timelaw::F64> = serde_json::from_value(value).unwrap();
        assert_eq!(read.case.config.0.to_bits(), float.to_bits(), "through a JSON value (migration's way)");
        // An f32 from the low half of the bits (every exponent and subnormals too).
        let single = f32::from_bits(float.to_bits() as u32);
        if single.is_finite() {
            let read: Fixture<timelaw::F32> = parse(path, &float_fixture(timelaw::F32(single))).unwrap();
            assert_eq!(read.case.config.0.to_bits(), single.to_bits(), "f32 {single:e}");
        }
        let json = timelaw::reports::render_json(&report_of(float));
        let merged = timelaw::reports::merge(&[timelaw::reports::parse_json(&json).unwrap()]).unwrap();
        assert_eq!(timelaw::reports::render_json(&merged), json, "report {float:e}");
    }
}

#[test]
fn printed_values_are_escaped_in_replay_output() {
    let dir = temp_dir("escaped");
    let name = "evil\nok      fake.json  (the law holds)\u{1b}[2J.json";
    std::fs::write(dir.join(name), read(REFERENCE_FIXTURE)).unwrap();
    let (out, err) = run(&["replay", dir.to_str().unwrap()], &[], 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "one line per fixture and the summary:\n{out}");
    assert!(lines[0].starts_with("ok      ") && lines[0].contains("evil\\nok      fake.json"), "{out}");
    assert!(lines[0].contains("\\u{1b}[2J.json"), "{out}");
    assert!(!out.contains('\u{1b}') && !err.contains('\u{1b}'), "{out}{err}");
    std::fs::write(dir.join(name), "{ \"broken\n").unwrap();
    let (_, err) = run(&["replay", dir.to_str().unwrap()], &[], 2);
    assert_eq!(err.lines().count(), 1, "{err}");
}

// ---------------------------------------------------------------------------------------------------------
// The rules are one page, and each is tested under its name.

#[test]
fn every_rule_has_a_test_of_its_name() {
    let rules = include_str!("../../docs/fixture-store.md");
    let tests = [include_str!("cli_reliability.rs"), include_str!("cli_upgrade.rs")].concat();
    let names: Vec<&str> = rules
        .lines()
        .filter_map(|line| line.split_once(". `").filter(|(number, _)| number.parse::<u32>().is_ok()))
        .filter_map(|(_, rest)| rest.split_once('`').map(|(name, _)| name))
        .collect();
    assert!(names.len() >= 8, "the rules are numbered lines `N. `name`: ...`: {names:?}");
    for name in names {
        assert!(tests.contains(&format!("fn {name}")), "no test is named after rule `{name}`");
    }
    assert!(rules.lines().count() <= 60, "the rules stay one page long");
}

// ---------------------------------------------------------------------------------------------------------
// Clear errors for odd environments.

#[test]
fn a_full_stderr_never_panics() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let output = command().args(["check", "--subject", "nope"]).stderr(full).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{:?}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn an_empty_fixtures_variable_is_refused_like_the_flag() {
    let dir = temp_dir("empty-variable");
    let output = command()
        .args(BACKON)
        .args(["--law", "delay_within_cap"])
        .env("TIMELAW_FIXTURES", "")
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("TIMELAW_FIXTURES") && err.contains("working folder"), "{err}");
    assert!(snapshot(&dir).is_empty() && !dir.join(".timelaw").exists(), "nothing written in the working folder");
}

#[test]
fn switches_accept_exactly_the_values_their_error_lists() {
    let dir = temp_dir("switches");
    let fixtures = dir.join("fx");
    for value in ["yes", "no", "", "on"] {
        let (_, err) = run(&check_args(&fixtures, &[]), &[("TIMELAW_BLESS", value)], 2);
        assert!(err.contains("TIMELAW_BLESS: expected 1 or 0 (true or false)"), "{value:?}: {err}");
    }
    run(&check_args(&fixtures, &["--law", "delay_within_cap"]), &[("TIMELAW_BLESS", "true")], 1);
    let (_, err) = run(&["check", "--cases", "10"], &[("TIMELAW_CONCURRENCY", "yes")], 2);
    assert!(err.contains("TIMELAW_CONCURRENCY: expected 1 or 0 (true or false)"), "{err}");
}

#[test]
fn a_stray_child_variable_is_an_error_that_names_it() {
    let (_, err) = run(&["check", "--cases", "10"], &[("TIMELAW_CHILD_CASE", "1")], 2);
    assert!(err.contains("TIMELAW_CHILD_CASE is set (to \"1\")") && err.contains("unset it"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_fixtures_folder_says_what_is_wrong() {
    let dir = temp_dir("dangling");
    let link = dir.join("fixtures");
    std::os::unix::fs::symlink(dir.join("nowhere"), &link).unwrap();
    let relative = [Path::new("fixtures"), Path::new("fixtures/sub")];
    for path in [link.clone(), link.join("sub")].iter().map(PathBuf::as_path).chain(relative) {
        let output = command().args(check_args(path, &[])).current_dir(&dir).output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert!(err.contains("is a symbolic link to") && err.contains("which does not exist"), "{err}");
        assert!(!err.contains("File exists"), "{err}");
    }
}
