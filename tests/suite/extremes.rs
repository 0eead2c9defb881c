//! Planted bugs at the extremes, each found and shrunk in a normal run of 100,000 cases, the minimum
//! pinned exactly and checked in as a `known_violation` fixture under tests/fixtures/planted/
//! (`TIMELAW_BLESS=1` rewrites them): an overflow at `Duration::MAX` and a counter that saturates at
//! retry 40 (reachable only with a repeated schedule step).

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::extremes::{Extreme, ExtremeConfig, PlantedExtreme, EXTREMES};
use timelaw::core::{Case, Outcome, Schedule, Step};
use timelaw::fixture::{self, Status};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::Config;

const PLANTED_DIR: &str = "tests/fixtures/planted";

/// The canonical minimum of each bug.
fn expected(bug: Extreme) -> Case<ExtremeConfig> {
    match bug {
        // One retry is enough: padding the delay of Duration::MAX by 1 ns overflows.
        Extreme::OverflowAtMax => Case::new(
            ExtremeConfig { max_attempts: 2, delay: Duration::MAX },
            Schedule::single(vec![Step::instant(Outcome::Transient)]),
            0,
        ),
        // 41 attempts allowed, 41 failures: the counter stuck at 40 makes a 42nd attempt.
        Extreme::SaturatesAt40 => Case::new(
            ExtremeConfig { max_attempts: 41, delay: Duration::ZERO },
            Schedule::single(vec![Step::instant(Outcome::Transient).repeated(41)]),
            0,
        ),
    }
}

#[track_caller]
fn check(bug: Extreme, law: &str) {
    let bless = common::bless::bless();
    let scratch = std::env::temp_dir().join(format!("timelaw-extremes-{}-{bug:?}", std::process::id()));
    let laws = Catalogue::standard().select(&[law]).unwrap();
    let config = Config { cases: 100_000, seed: 0, fixtures: Some(scratch.clone()), ..Config::default() };
    let output = run(&PlantedExtreme(bug), &laws, &config, &Silent);
    let found = output.laws[0].counterexamples.first().unwrap_or_else(|| panic!("{bug:?} not found in 100,000 cases"));
    assert_eq!(found.shrunk, expected(bug), "{bug:?}");
    let written = found.fixture.clone().expect("a fixture is written");
    let mut fixture: fixture::Fixture<ExtremeConfig> =
        serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    fixture.status = Status::KnownViolation;
    fixture.note =
        Some(format!("planted bug {bug:?}: this subject is broken on purpose, so the violation must reproduce"));
    let expected_text = format!("{}\n", serde_json::to_string_pretty(&fixture).unwrap());
    let target = Path::new(PLANTED_DIR).join(written.file_name().unwrap());
    if bless {
        std::fs::write(&target, &expected_text).unwrap();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let checked_in = std::fs::read_to_string(&target).unwrap_or_default();
    assert_eq!(checked_in, expected_text, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
}

#[test]
fn overflow_at_duration_max_is_found_and_pinned() {
    check(EXTREMES[0].0, EXTREMES[0].1);
}

#[test]
fn saturation_at_retry_40_is_found_and_pinned() {
    check(EXTREMES[1].0, EXTREMES[1].1);
}
