//! `timelaw fixtures upgrade DIR`: version-1 fixtures rewritten as version 2 in place, each named on
//! stdout; a file it cannot read named with its error on stderr and left byte for byte; exit code 2 then.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Version-1 copies of built-in subjects' fixtures, and the folder of their version-2 twins.
const V1_COPIES: [&str; 3] = [
    "never_panics--exponential-backoff--75d520bcacdd4ff7.json",
    "deadline_respected--tokio-timeout-loop--2197dab3f71ba8ec.json",
    "retry_after_honored--tokio-retry2-retry--f6a439c2111befae.json",
];
const TWINS: &str = "tests/fixtures/adapters";

fn upgrade(paths: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timelaw"))
        .arg("fixtures")
        .arg("upgrade")
        .args(paths)
        .env("NO_COLOR", "1")
        .output()
        .expect("the timelaw binary runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timelaw-upgrade-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref()).unwrap_or_else(|error| panic!("{}: {error}", path.as_ref().display()))
}

/// A folder with the version-1 copies; returns it.
fn folder_of_v1_copies(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    for file in V1_COPIES {
        std::fs::copy(Path::new("tests/fixtures/v1").join(file), dir.join(file)).unwrap();
    }
    dir
}

#[track_caller]
fn check(output: &Output, code: i32, stdout_lines: &[String], stderr_has: &[&str]) {
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(code), "stdout:\n{out}\nstderr:\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, stdout_lines.iter().map(String::as_str).collect::<Vec<_>>(), "stderr:\n{err}");
    for text in stderr_has {
        assert!(err.contains(text), "stderr lacks {text:?}:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn upgrade_rewrites_files_in_place_into_their_twins_and_then_leaves_them() {
    let dir = folder_of_v1_copies("good");
    let mut expect: Vec<String> = V1_COPIES.iter().map(|f| format!("upgraded {}", dir.join(f).display())).collect();
    expect.sort();
    expect.push(
        "3 upgraded to version 2, 0 already current (version 2, 3 with overlapping calls, 4 with a build profile, 5 with virtual std clocks), 0 errors, 3 fixtures"
            .to_owned(),
    );
    check(&upgrade(&[&dir]), 0, &expect, &[]);
    for file in V1_COPIES {
        assert_eq!(read(dir.join(file)), read(Path::new(TWINS).join(file)), "{file}");
    }
    let again =
        ["0 upgraded to version 2, 3 already current (version 2, 3 with overlapping calls, 4 with a build profile, 5 with virtual std clocks), 0 errors, 3 fixtures"
            .to_owned()];
    check(&upgrade(&[&dir]), 0, &again, &[]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_it_cannot_read_are_named_and_left_as_they_are() {
    let dir = folder_of_v1_copies("bad");
    let base = read(dir.join(V1_COPIES[0]));
    let broken = [
        ("a-truncated.json", base[..base.len() / 2].to_owned(), "a-truncated.json:"),
        ("b-unknown-subject.json", base.replace("\"exponential-backoff\"", "\"nobody\""), "unknown subject \"nobody\""),
        ("c-bad-duration.json", base.replace("\"min\": 1,", "\"min\": \"1.7 s\","), "`1.7 s` is not a"),
        ("d-newer.json", base.replace("\"version\": 1,", "\"version\": 7,"), "fixture format version 7 is newer"),
        (
            "e-current-but-unknown-field.json",
            read(Path::new(TWINS).join(V1_COPIES[0])).replace("\"shrunk\"", "\"shrank\": true, \"shrunk\""),
            "unknown field `shrank`",
        ),
        ("f-unknown-law.json", base.replace("\"law\": \"never_panics\"", "\"law\": \"no_such_law\""), "unknown law"),
    ];
    for (name, text, _) in &broken {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let output = upgrade(&[&dir]);
    let mut expect: Vec<String> = V1_COPIES.iter().map(|f| format!("upgraded {}", dir.join(f).display())).collect();
    expect.sort();
    expect.push(
        "3 upgraded to version 2, 0 already current (version 2, 3 with overlapping calls, 4 with a build profile, 5 with virtual std clocks), 6 errors, 9 fixtures"
            .to_owned(),
    );
    let named: Vec<&str> = broken.iter().map(|(_, _, error)| *error).collect();
    check(&output, 2, &expect, &named);
    assert!(String::from_utf8_lossy(&output.stderr).contains("field `case.config.min`"));
    for (name, text, _) in &broken {
        assert_eq!(&read(dir.join(name)), text, "{name} was changed");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_without_fixtures_is_an_error() {
    let dir = temp_dir("empty");
    let output = upgrade(&[&dir]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no fixture files (*.json) under it"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn upgrade_rewrites_files_in_place_keeping_modes_links_and_each_file_once() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = folder_of_v1_copies("modes");
    let [private, read_only, linked] = V1_COPIES.map(|file| dir.join(file));
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
    let elsewhere_dir = crate::common::scratch::Scratch::new("upgrade", "modes-elsewhere");
    let elsewhere = elsewhere_dir.join("the-same-file.json");
    std::fs::hard_link(&linked, &elsewhere).unwrap();
    let mut expect: Vec<String> = V1_COPIES.iter().map(|f| format!("upgraded {}", dir.join(f).display())).collect();
    expect.sort();
    expect.push(
        "3 upgraded to version 2, 0 already current (version 2, 3 with overlapping calls, 4 with a build profile, 5 with virtual std clocks), 0 errors, 3 fixtures"
            .to_owned(),
    );
    check(&upgrade(&[&dir, &private, &dir.join(".").join(V1_COPIES[0])]), 0, &expect, &[]);
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&private), mode(&read_only)), (0o600, 0o444), "modes are kept");
    assert_eq!(std::fs::metadata(&linked).unwrap().ino(), std::fs::metadata(&elsewhere).unwrap().ino());
    assert_eq!(read(&elsewhere), read(Path::new(TWINS).join(V1_COPIES[2])), "every name of the file is upgraded");
    let _ = std::fs::remove_dir_all(&dir);
}
