//! No silent skips: a test that cannot run its check for lack of a capability (a program, root for a
//! mount, a fuzz artifact) fails, unless `TIMELAW_ALLOW_SKIP` names the capability.
//!
//! `TIMELAW_ALLOW_SKIP` is a comma-separated list of capability names (`mount,script`) or `all`. An
//! allowed skip is written to stderr past the test harness's capture, so it shows in every run, and, when
//! `TIMELAW_SKIP_LOG` names a file, appended to it as one line (`.ci/run` prints that file at the end).
#![allow(dead_code)] // Each test target uses a part of the shared code.

use std::io::Write as _;

/// The variable that allows skips.
pub const ALLOW_SKIP: &str = "TIMELAW_ALLOW_SKIP";
/// The variable naming the file allowed skips are appended to.
pub const SKIP_LOG: &str = "TIMELAW_SKIP_LOG";

/// Whether `TIMELAW_ALLOW_SKIP` (as `allowed`) names `capability`.
pub fn allows(allowed: &str, capability: &str) -> bool {
    allowed.split(',').map(str::trim).any(|name| name == capability || name == "all")
}

/// The check `test` needs `capability`, which is missing (`why`). Returns (the caller then skips its
/// check) only when `TIMELAW_ALLOW_SKIP` allows it, after saying so.
///
/// # Panics
/// When the skip is not allowed: the test fails, naming the capability and the variable.
#[track_caller]
pub fn missing(test: &str, capability: &str, why: &str) {
    let allowed = std::env::var(ALLOW_SKIP).unwrap_or_default();
    if !allows(&allowed, capability) {
        panic!(
            "{test}: cannot run its check: {why}. Provide it, or set {ALLOW_SKIP}={capability} to allow this \
             skip (it is then printed)"
        );
    }
    let line = format!("SKIPPED {test}: {why} (allowed by {ALLOW_SKIP}={capability})\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(log) = std::env::var_os(SKIP_LOG) {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(log);
        let _ = file.and_then(|mut file| file.write_all(line.as_bytes()));
    }
}
