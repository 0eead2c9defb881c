//! Fixture format versions: the version-1 copies in `tests/fixtures/v1/` replay through migration with the
//! same verdict as their version-2 twins, upgrade to exactly those twins, keep their names, and every
//! other checked-in fixture is of the current version (`TIMELAW_BLESS=1` upgrades them in place).

use crate::common;

use std::path::{Path, PathBuf};

use timelaw::fixture::{self, migrate};
use timelaw::laws::Catalogue;
use timelaw::reference::Policy;
use timelaw::registry::Registry;
use timelaw::replay::replay_file;
use timelaw::Config;

const V1_DIR: &str = "tests/fixtures/v1";
const CURRENT_DIRS: [&str; 3] = ["tests/fixtures/planted", "tests/fixtures/reference", "tests/fixtures/adapters"];

fn registry() -> Registry {
    common::registry::planted_registry()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Each version-1 copy with its version-2 twin (same file name in a folder of current fixtures).
fn pairs() -> Vec<(PathBuf, PathBuf)> {
    let copies = fixture::list(Path::new(V1_DIR)).unwrap();
    assert!(copies.len() >= 6, "the version-1 copies are missing: {copies:?}");
    let twin = |copy: &PathBuf| {
        let name = copy.file_name().unwrap();
        let found = CURRENT_DIRS.iter().map(|dir| Path::new(dir).join(name)).find(|path| path.exists());
        found.unwrap_or_else(|| panic!("{} has no version-2 twin", copy.display()))
    };
    copies.iter().map(|copy| (copy.clone(), twin(copy))).collect()
}

fn version(path: &Path) -> u32 {
    fixture::parse_header(path, &read(path)).unwrap().version
}

#[test]
fn version_1_copies_replay_with_the_verdicts_of_their_twins() {
    let (registry, laws) = (registry(), Catalogue::standard());
    for (copy, twin) in pairs() {
        assert_eq!((version(&copy), version(&twin)), (1, fixture::SEQUENTIAL_VERSION), "{}", copy.display());
        let old = replay_file(&registry, &laws, &copy, &Config::default()).unwrap();
        let new = replay_file(&registry, &laws, &twin, &Config::default()).unwrap();
        assert!(old.passed, "{}: {old:?}", copy.display());
        assert_eq!(old, new, "{} and its twin replay differently", copy.display());
    }
}

/// `text` with the run's provenance numbers zeroed (the case index, the shrinker's evaluation count): the
/// twins are re-blessed whenever the generators or the shrinker change, and those numbers are theirs, not
/// the format's; every other byte must match.
fn without_run_numbers(text: &str) -> String {
    ["\"case_index\": ", "\"shrink_evaluations\": "].iter().fold(text.to_owned(), |text, key| {
        let Some(start) = text.find(key).map(|at| at + key.len()) else { return text };
        let end = start + text[start..].find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
        if end == start {
            return text; // `null`: nothing to zero.
        }
        format!("{}0{}", &text[..start], &text[end..])
    })
}

#[test]
fn version_1_copies_upgrade_to_exactly_their_twins_under_the_same_name() {
    let registry = registry();
    for (copy, twin) in pairs() {
        let text = read(&copy);
        let header = fixture::parse_header(&copy, &text).unwrap();
        let subject = registry.for_fixture(&copy, &header.subject).unwrap();
        let upgraded = subject.upgrade(&copy, &text).unwrap().expect("a version-1 file is upgraded");
        let (upgraded_text, twin_text) = (without_run_numbers(&upgraded), without_run_numbers(&read(&twin)));
        assert_eq!(upgraded_text, twin_text, "{} does not upgrade to its twin", copy.display());
        assert_eq!(subject.upgrade(&twin, &upgraded).unwrap(), None, "a current file is left alone");
    }
}

#[test]
fn the_value_migration_of_a_reference_fixture_is_its_twin() {
    for (copy, twin) in pairs().into_iter().filter(|(copy, _)| copy.to_string_lossy().contains("--reference--")) {
        let old: serde_json::Value = serde_json::from_str(&without_run_numbers(&read(&copy))).unwrap();
        let new: serde_json::Value = serde_json::from_str(&without_run_numbers(&read(&twin))).unwrap();
        assert_eq!(migrate::v1_to_v2::<Policy>(old).unwrap(), new);
        let parsed: fixture::Fixture<Policy> = fixture::parse(&twin, &read(&twin)).unwrap();
        let name = fixture::file_name(&parsed.law, &parsed.subject, &parsed.case);
        assert_eq!(name, twin.file_name().unwrap().to_string_lossy(), "the name hashes the version-1 form");
    }
}

#[track_caller]
fn check_migration_error(value: serde_json::Value, expect: &str) {
    assert_eq!(migrate::v1_to_v2::<Policy>(value).map_err(|error| error.to_string()), Err(expect.to_owned()));
}

#[test]
fn value_migration_names_what_is_wrong() {
    let copy =
        fixture::list(Path::new(V1_DIR)).unwrap().into_iter().find(|p| p.to_string_lossy().contains("--reference--"));
    let good: serde_json::Value = serde_json::from_str(&read(&copy.unwrap())).unwrap();
    let mut newer = good.clone();
    newer["version"] = 2.into();
    check_migration_error(newer, "field `version` is 2, expected 1");
    let mut bad_gap = good.clone();
    bad_gap["case"]["schedule"]["calls"][0]["gap_before"] = "5 ms".into();
    check_migration_error(
        bad_gap,
        &format!(
            "field `case.schedule.calls[0].gap_before`: `5 ms` is not a VDuration: ` ms` is not a unit; expected {}",
            timelaw::duration_text::EXPECTED
        ),
    );
}

#[test]
fn checked_in_fixtures_are_the_current_version() {
    let registry = registry();
    let mut stale = Vec::new();
    for dir in CURRENT_DIRS {
        for file in fixture::list(Path::new(dir)).unwrap() {
            let text = read(&file);
            let header = fixture::parse_header(&file, &text).unwrap();
            if header.version >= fixture::SEQUENTIAL_VERSION {
                continue;
            }
            if common::bless::bless() {
                let subject = registry.for_fixture(&file, &header.subject).unwrap();
                std::fs::write(&file, subject.upgrade(&file, &text).unwrap().unwrap()).unwrap();
            } else {
                stale.push(file);
            }
        }
    }
    assert!(stale.is_empty(), "older fixtures (rerun with TIMELAW_BLESS=1 to upgrade them): {stale:?}");
}
