//! Fixture format version 3 (a case with overlapping calls): written only when the case has arrivals or
//! interleaving choices, so a sequential fixture is still version 2 byte for byte; the checked-in
//! version-3 fixture replays (`TIMELAW_BLESS=1` rewrites it).

use crate::common;

use std::path::Path;

use timelaw::core::reference::{Backoff, Policy, Reference};
use timelaw::core::{BulkheadContract, CallScript, Case, Outcome, Schedule, Step, VDuration};
use timelaw::fixture::{self, Provenance, Source};
use timelaw::laws::Catalogue;
use timelaw::replay::replay_file;
use timelaw::runner::build_fixture;
use timelaw::Config;

const DIR: &str = "tests/fixtures/reference";
const LAW: &str = "attempts_within_max";

/// Two calls arriving together at a bulkhead of one slot and a queue of one, the second polled first.
fn concurrent_case() -> Case<Policy> {
    let policy = Policy {
        bulkhead: Some(BulkheadContract::new(1, 1)),
        ..Policy::new(2, Backoff::Constant { delay: VDuration::from_millis(1) }, VDuration::from_millis(1))
    };
    let call =
        CallScript::new(vec![Step::new(VDuration::from_millis(3), Outcome::Transient)]).arriving(VDuration::ZERO);
    Case::new(policy, Schedule::new(vec![call.clone(), call]).with_interleave(vec![1]), 0)
}

fn fixture_of(case: &Case<Policy>) -> fixture::Fixture<Policy> {
    let law = *Catalogue::standard().get(LAW).unwrap();
    let provenance = Provenance {
        source: Source::Hand,
        run_seed: None,
        case_index: None,
        shrunk: true,
        shrink_evaluations: 0,
        timelaw_version: "0.1.0".to_owned(),
    };
    build_fixture(&Reference, &law, &Config::default(), case, provenance)
}

#[test]
fn a_fixture_is_written_as_the_lowest_version_that_holds_its_case() {
    assert_eq!(fixture_of(&concurrent_case()).version, 3);
    let mut sequential = concurrent_case();
    sequential.config.bulkhead = None;
    sequential.schedule.interleave.clear();
    for call in &mut sequential.schedule.calls {
        call.arrival = None;
    }
    let written = fixture_of(&sequential);
    assert_eq!(written.version, 2);
    let text = serde_json::to_string(&written).unwrap();
    assert!(!text.contains("arrival") && !text.contains("interleave") && !text.contains("bulkhead"), "{text}");
}

#[test]
fn the_checked_in_version_3_fixture_replays() {
    let written = fixture_of(&concurrent_case());
    let name = fixture::file_name(&written.law, &written.subject, &written.case);
    let path = Path::new(DIR).join(&name);
    if common::bless::bless() {
        fixture::place(Path::new(DIR), &written, true).unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (bless to write it)", path.display()));
    assert_eq!(fixture::parse_header(&path, &text).unwrap().version, 3);
    let read: fixture::Fixture<Policy> = fixture::parse(&path, &text).unwrap();
    assert_eq!(read, written, "{} is not the current fixture of its case (bless to rewrite it)", path.display());
    let registry = common::registry::planted_registry();
    let replayed = replay_file(&registry, &Catalogue::standard(), &path, &Config::default()).unwrap();
    assert!(replayed.passed, "{replayed:?}");
}
