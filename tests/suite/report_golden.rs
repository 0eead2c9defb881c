//! The main job's report over 100,000 cases, stored: every verdict count of every law, the coverage
//! classes and the cuts. A change meant to move nothing a user sees (a speed change, a refactoring) must
//! leave it byte for byte; a change meant to move it (a new law, a new draw) re-blesses it with
//! `TIMELAW_BLESS=1 cargo test --test suite report_golden::` and says why in its commit.

use std::path::Path;

use timelaw::laws::Catalogue;
use timelaw::reference::Reference;
use timelaw::report::to_report;
use timelaw::runner::{run, Silent};
use timelaw::Config;

use crate::common::bless::bless;

const GOLDEN: &str = "tests/suite/golden/report-reference-100000.json";

#[test]
fn the_main_jobs_report_over_100000_cases_is_the_stored_one() {
    // Two threads: the cases, verdicts and report are the same on any thread count but for `threads`.
    let config = Config { cases: 100_000, threads: 2, ..Config::default() };
    let output = run(&Reference, &Catalogue::standard(), &config, &Silent);
    let mut report = to_report(&output);
    report.threads = 0; // The one field that depends on how the run was made, not on what it judged.
    let text = format!("{}\n", serde_json::to_string_pretty(&report).unwrap());
    if bless() {
        std::fs::write(GOLDEN, &text).unwrap();
    }
    let stored = std::fs::read_to_string(Path::new(GOLDEN)).unwrap_or_default();
    assert!(
        stored == text,
        "{GOLDEN} differs from this run's report; if the change is meant, rerun with TIMELAW_BLESS=1"
    );
}
