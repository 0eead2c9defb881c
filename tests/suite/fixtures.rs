//! Fixture files: the checked-in planted-bug fixtures are current (`TIMELAW_BLESS=1` rewrites them), and
//! bad fixture files fail with the path, line, column and what was expected.

use crate::common;

use std::path::{Path, PathBuf};

use common::planted::{Planted, BUGS};
use common::scratch::Scratch;
use timelaw::fixture::{self, FixtureError, Status};
use timelaw::laws::Catalogue;
use timelaw::reference::{Policy, Reference};
use timelaw::registry::Registry;
use timelaw::replay::replay_file;
use timelaw::runner::{build_fixture, run, Silent};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";

fn registry() -> Registry {
    let mut registry = Registry::builtin();
    for planted in Planted::all() {
        registry.add(planted);
    }
    registry
}

#[test]
fn checked_in_planted_fixtures_are_the_current_minima() {
    let bless = common::bless::bless();
    let scratch = std::env::temp_dir().join(format!("timelaw-bless-{}", std::process::id()));
    for (bug, law) in BUGS {
        let laws = Catalogue::standard().select(&[law]).unwrap();
        let config = Config { cases: 5_000, seed: 0, threads: 1, fixtures: Some(scratch.clone()), ..Config::default() };
        let output = run(&Planted(bug), &laws, &config, &Silent);
        let written = output.laws[0].counterexamples[0].fixture.clone().expect("a fixture is written");
        let text = std::fs::read_to_string(&written).unwrap();
        let mut fixture: fixture::Fixture<Policy> = serde_json::from_str(&text).unwrap();
        fixture.status = Status::KnownViolation;
        fixture.note =
            Some(format!("planted bug {bug:?}: this subject is broken on purpose, so the violation must reproduce"));
        let expected = format!("{}\n", serde_json::to_string_pretty(&fixture).unwrap());
        let target = Path::new(PLANTED_DIR).join(written.file_name().unwrap());
        if bless {
            std::fs::create_dir_all(PLANTED_DIR).unwrap();
            std::fs::write(&target, &expected).unwrap();
        }
        let found = std::fs::read_to_string(&target).unwrap_or_default();
        assert_eq!(found, expected, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
        check_reference_regression(bless, law, &fixture, &format!("{bug:?}"));
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

const REFERENCE_DIR: &str = "tests/fixtures/reference";

/// The planted bug's minimal case replayed against the reference interpreter, which must not have the bug.
fn check_reference_regression(bless: bool, law: &str, planted: &fixture::Fixture<Policy>, bug: &str) {
    let law = *Catalogue::standard().get(law).unwrap();
    let provenance = fixture::Provenance {
        source: fixture::Source::Hand,
        run_seed: None,
        case_index: None,
        ..planted.provenance.clone()
    };
    let mut regression = build_fixture(&Reference, &law, &Config::default(), &planted.case, provenance);
    regression.note =
        Some(format!("the minimal case of planted bug {bug}: the reference interpreter must not have it"));
    assert_eq!(regression.status, Status::Regression);
    assert!(
        !regression.verdict.is_violated(),
        "the reference interpreter violates {}: {:?}",
        law.id,
        regression.verdict
    );
    let expected = format!("{}\n", serde_json::to_string_pretty(&regression).unwrap());
    let target = Path::new(REFERENCE_DIR).join(fixture::file_name(law.id, "reference", &regression.case));
    if bless {
        std::fs::create_dir_all(REFERENCE_DIR).unwrap();
        std::fs::write(&target, &expected).unwrap();
    }
    let found = std::fs::read_to_string(&target).unwrap_or_default();
    assert_eq!(found, expected, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
}

/// `text` written to a file `name` in a scratch folder of its own (removed when the folder is dropped).
fn write_temp(name: &str, text: &str) -> (Scratch, PathBuf) {
    let dir = Scratch::new("fixtures", name);
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn planted_text() -> String {
    let files = fixture::list(Path::new(PLANTED_DIR)).unwrap();
    let path = files.iter().find(|p| p.to_string_lossy().contains("planted-retries-fatal")).unwrap();
    std::fs::read_to_string(path).unwrap()
}

#[track_caller]
fn check_error(name: &str, text: &str, expect: &str) {
    let (_path_dir, path) = write_temp(name, text);
    let result = replay_file(&registry(), &Catalogue::standard(), &path, &Config::default());
    let message = result.map(|r| format!("{r:?}")).unwrap_or_else(|error: FixtureError| error.to_string());
    let expect = expect.replace("PATH", &path.display().to_string());
    assert_eq!(message, expect);
}

#[test]
fn bad_fixtures_say_which_file_where_and_what_was_expected() {
    let good = planted_text();
    check_error("truncated.json", "{\n  \"format\": \"timelaw-fixture\",\n", "PATH:3:0: EOF while parsing a value");
    check_error(
        "wrong-format.json",
        r#"{"format": "something-else", "version": 1, "law": "x", "subject": "y"}"#,
        "PATH: not a timelaw fixture (field `format` is \"something-else\", expected \"timelaw-fixture\")",
    );
    check_error(
        "newer.json",
        &good.replace("\"version\": 2,", "\"version\": 9,"),
        "PATH: fixture format version 9 is newer than this timelaw supports (5); upgrade timelaw",
    );
    let unknown_subject = good.replace("\"subject\": \"planted-retries-fatal\"", "\"subject\": \"nobody\"");
    let known = registry().names().join(", ");
    check_error(
        "subject.json",
        &unknown_subject,
        &format!("PATH: unknown subject \"nobody\" (known subjects: {known})"),
    );
    check_error(
        "law.json",
        &good.replace("\"law\": \"fatal_not_retried\"", "\"law\": \"no_such_law\""),
        "PATH: unknown law \"no_such_law\" (run `timelaw laws` for the catalogue)",
    );
    let bad_attempts = good.replace("\"max_attempts\": 2", "\"max_attempts\": 0");
    // A policy is validated once it is read whole, so serde locates the error at the closing brace of
    // the config object that holds the bad field (the first line after the field indented as `"config"`).
    let lines: Vec<&str> = bad_attempts.lines().collect();
    let field = lines.iter().position(|l| l.contains("\"max_attempts\": 0")).unwrap();
    let config = lines[..field].iter().rposition(|l| l.trim_start().starts_with("\"config\": {")).unwrap();
    let indent = &lines[config][..lines[config].len() - lines[config].trim_start().len()];
    let closing = field + lines[field..].iter().position(|l| l.starts_with(&format!("{indent}}}"))).unwrap();
    let (line, column) = (closing + 1, indent.len() + 1);
    let (_path_dir, path) = write_temp("policy.json", &bad_attempts);
    let error = replay_file(&registry(), &Catalogue::standard(), &path, &Config::default()).unwrap_err().to_string();
    let expect = format!(
        "{}:{line}:{column}: field `case.config`: invalid policy: field `max_attempts` is 0, expected 1..=100 \
         (reading the config of subject `planted-retries-fatal`)",
        path.display()
    );
    assert_eq!(
        error, expect,
        "the path, the line and column of the config holding the bad field, and what was expected"
    );
}

#[test]
fn replay_checks_the_status() {
    let good = planted_text();
    let registry = registry();
    let laws = Catalogue::standard();
    let (_known_dir, known) = write_temp("known.json", &good);
    let result = replay_file(&registry, &laws, &known, &Config::default()).unwrap();
    assert!(result.passed, "{result:?}");
    let (_as_regression_dir, as_regression) =
        write_temp("regression.json", &good.replace("\"known_violation\"", "\"regression\""));
    let result = replay_file(&registry, &laws, &as_regression, &Config::default()).unwrap();
    assert!(!result.passed && result.explanation.starts_with("regression: violated"), "{result:?}");
    let on_reference =
        good.replace("\"planted-retries-fatal\"", "\"reference\"").replace("\"known_violation\"", "\"regression\"");
    let (_fixed_dir, fixed) = write_temp("fixed.json", &on_reference);
    let result = replay_file(&registry, &laws, &fixed, &Config::default()).unwrap();
    assert!(result.passed, "the reference interpreter does not retry fatal errors: {result:?}");
}
