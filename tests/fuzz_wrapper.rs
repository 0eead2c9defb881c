//! `fuzz/rustc-wrapper`, the rustc wrapper `fuzz/cargo-fuzz` builds with: the crates it names lose exactly
//! the SanitizerCoverage flags `cargo fuzz` adds, every other crate and every other flag is passed through.
//! The wrapper is run with `echo` in place of rustc, so the test sees the command line rustc would get.
#![cfg(unix)]

use std::process::Command;

/// The flags `cargo fuzz build` (cargo-fuzz 0.13, AddressSanitizer) adds to RUSTFLAGS.
const CARGO_FUZZ: &[&str] = &[
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=4",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "--cfg",
    "fuzzing",
    "-Cllvm-args=-simplifycfg-branch-fold-threshold=0",
    "-Zsanitizer=address",
    "-Cllvm-args=-sanitizer-coverage-stack-depth",
    "-Cdebug-assertions",
];

/// What rustc receives when the wrapper compiles `crate_name` with `cargo fuzz`'s flags
/// (`uninstrumented`: the TIMELAW_UNINSTRUMENTED setting, `None` for the default).
fn rustc_args(crate_name: &str, uninstrumented: Option<&str>) -> Vec<String> {
    let wrapper = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/rustc-wrapper");
    let mut command = Command::new(wrapper);
    command.args(["echo", "--crate-name", crate_name, "--edition=2021", "src/lib.rs"]).args(CARGO_FUZZ);
    match uninstrumented {
        Some(list) => command.env("TIMELAW_UNINSTRUMENTED", list),
        None => command.env_remove("TIMELAW_UNINSTRUMENTED"),
    };
    let output = command.output().expect("the wrapper runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8").split_whitespace().map(str::to_owned).collect()
}

fn is_coverage(arg: &str) -> bool {
    arg == "-Cpasses=sancov-module" || arg.starts_with("-Cllvm-args=-sanitizer-coverage")
}

/// Compiling `crate_name` through the wrapper gives rustc `cargo fuzz`'s flags, without the coverage ones
/// unless `expect_coverage`, and nothing else changed.
#[track_caller]
fn check(crate_name: &str, uninstrumented: Option<&str>, expect_coverage: bool) {
    let flags = CARGO_FUZZ.iter().copied().filter(|arg| expect_coverage || !is_coverage(arg));
    let expected: Vec<&str> =
        ["--crate-name", crate_name, "--edition=2021", "src/lib.rs"].into_iter().chain(flags).collect();
    assert_eq!(rustc_args(crate_name, uninstrumented), expected, "{crate_name} with {uninstrumented:?}");
}

#[test]
fn only_the_named_crates_lose_their_coverage_flags() {
    // The default: the judging (laws), the harness (the facade) and the reports.
    check("timelaw_laws", None, false);
    check("timelaw", None, false);
    check("timelaw_reports", None, false);
    // The subject, the decoder, the adapters and the fuzz target keep their coverage.
    check("timelaw_core", None, true);
    check("timelaw_generators", None, true);
    check("timelaw_adapters", None, true);
    check("reference", None, true);
    check("timelaw_laws_extra", None, true);
    // A list of one's own; an empty list instruments everything.
    check("timelaw_core", Some("timelaw_laws timelaw_core"), false);
    check("timelaw_laws", Some("timelaw_laws timelaw_core"), false);
    check("timelaw_laws", Some("timelaw_core"), true);
    check("timelaw_laws", Some(""), true);
}

#[test]
fn a_command_without_a_crate_name_passes_through() {
    let wrapper = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/rustc-wrapper");
    let output = Command::new(wrapper).args(["echo", "-", "-vV", "-Cpasses=sancov-module"]).output().expect("runs");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "- -vV -Cpasses=sancov-module");
}
