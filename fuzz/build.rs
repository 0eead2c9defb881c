//! Collects the known violations, the checked-in fixtures under `tests/fixtures` whose status is
//! `known_violation`, into the table `KNOWN_VIOLATIONS` (subject, law, stored message, case) that the
//! adapter targets mask: an upstream bug that is already pinned by a fixture must not stop every fuzzing
//! run at its first input. Which inputs are masked is decided by `timelaw::fuzz::unmasked` (every violated
//! law a pinned finding: the same message class, and the input's case, shrunk, the fixture's). A fixture
//! that states a build profile pins only in builds of that profile: the table keeps each fixture's
//! profile, and the targets choose by `cfg!(debug_assertions)` in their own code (`src/lib.rs`), which
//! the fuzz build's flags reach. (A build script cannot tell: cargo does not set
//! `CARGO_CFG_DEBUG_ASSERTIONS` for `cargo fuzz build --debug-assertions`, so a `"debug"` fixture, a
//! panic only overflow checks raise, used to pin nothing in any fuzz build.) An unreadable fixture fails
//! the build with its path: nothing is dropped silently.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    println!("cargo:rerun-if-changed={}", fixtures.display());
    let mut files = Vec::new();
    json_files(&fixtures, &mut files);
    files.sort();
    let mut known = BTreeSet::new();
    for file in &files {
        if let Some(pair) = known_violation(file) {
            known.insert(pair);
        }
    }
    let mut table = String::from(
        "/// The checked-in `known_violation` fixtures: the build profile each states (`None`: every\n\
         /// profile), and subject, law, stored message and case.\n",
    );
    table.push_str("pub const KNOWN_VIOLATIONS: &[(Option<&str>, timelaw::fuzz::KnownViolation)] = &[\n");
    for (profile, subject, law, message, case) in &known {
        writeln!(
            table,
            "    ({profile:?}, timelaw::fuzz::KnownViolation {{ subject: {subject:?}, law: {law:?}, message: {message:?}, case: {case:?} }}),"
        )
        .expect("writing to a String cannot fail");
    }
    table.push_str("];\n");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    std::fs::write(out.join("known_violations.rs"), table).expect("OUT_DIR is writable");
}

/// Every `*.json` file under `dir`, recursively.
fn json_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|error| panic!("{}: {error}", dir.display())).path();
        if path.is_dir() {
            json_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "json") {
            files.push(path);
        }
    }
}

/// The fixture's (profile it states, subject, law, stored message, case as JSON text) when its status is
/// `known_violation`. A stored verdict that is not a violation with a message masks
/// nothing (its message is left empty, a class no violation of a catalogue law has).
fn known_violation(file: &Path) -> Option<(Option<String>, String, String, String, String)> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let fixture: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let field = |name: &str| {
        fixture[name].as_str().unwrap_or_else(|| panic!("{}: no string field `{name}`", file.display())).to_owned()
    };
    let message = fixture["verdict"]["violated"]["message"].as_str().unwrap_or_default().to_owned();
    let profile = fixture["profile"].as_str().map(str::to_owned);
    let case = fixture["case"].to_string();
    (field("status") == "known_violation").then(|| (profile, field("subject"), field("law"), message, case))
}
