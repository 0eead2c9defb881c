//! `fuzz/rustc-wrapper`, the rustc wrapper `fuzz/cargo-fuzz` builds with: the crates its lists name lose
//! exactly the flags of their list (SanitizerCoverage, its compare hooks, the sanitizer) that `cargo fuzz`
//! adds; compare hooks that are kept are gated (unless the switch says not to); every other crate and
//! every other flag is passed through.
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

/// The wrapper's three lists and its switch, all unset (the defaults).
const LISTS: &[&str] =
    &["TIMELAW_UNINSTRUMENTED", "TIMELAW_WITHOUT_COMPARES", "TIMELAW_UNSANITIZED", "TIMELAW_GATED_COMPARES"];

/// The flag that gates the compare hooks on `__sancov_should_track`.
const GATED: &str = "-Cllvm-args=-sanitizer-coverage-gated-trace-callbacks";

/// What rustc receives when the wrapper compiles `crate_name` with `cargo fuzz`'s flags, with the lists
/// set as in `env` (the others unset: their defaults).
fn rustc_args(crate_name: &str, env: &[(&str, &str)]) -> Vec<String> {
    let wrapper = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/rustc-wrapper");
    let mut command = Command::new(wrapper);
    command.args(["echo", "--crate-name", crate_name, "--edition=2021", "src/lib.rs"]).args(CARGO_FUZZ);
    for list in LISTS {
        command.env_remove(list);
    }
    command.envs(env.iter().copied());
    let output = command.output().expect("the wrapper runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8").split_whitespace().map(str::to_owned).collect()
}

/// Which of `kept` ("coverage", "compares", "sanitizer") an argument of `cargo fuzz` belongs to.
fn kind(arg: &str) -> Option<&'static str> {
    if arg == "-Cllvm-args=-sanitizer-coverage-trace-compares" {
        Some("compares")
    } else if arg == "-Cpasses=sancov-module" || arg.starts_with("-Cllvm-args=-sanitizer-coverage") {
        Some("coverage")
    } else if arg.starts_with("-Zsanitizer=") {
        Some("sanitizer")
    } else {
        None
    }
}

/// Compiling `crate_name` through the wrapper gives rustc `cargo fuzz`'s flags with only the kinds named
/// in `kept` (space-separated: "coverage", "compares", "sanitizer") of the instrumentation, and nothing
/// else changed but the gate of kept compare hooks (unless `TIMELAW_GATED_COMPARES` is 0 in `env`).
/// Compare hooks need coverage: "compares" is kept only with it.
#[track_caller]
fn check(crate_name: &str, env: &[(&str, &str)], kept: &str) {
    let kept: Vec<&str> = kept.split_whitespace().collect();
    let gated = !env.contains(&("TIMELAW_GATED_COMPARES", "0"));
    let flags = CARGO_FUZZ.iter().copied().filter(|arg| match kind(arg) {
        None => true,
        Some("compares") => kept.contains(&"coverage") && kept.contains(&"compares"),
        Some(kind) => kept.contains(&kind),
    });
    let flags = flags.flat_map(|arg| {
        let gate = (gated && kind(arg) == Some("compares")).then_some(GATED);
        gate.into_iter().chain([arg])
    });
    let expected: Vec<&str> =
        ["--crate-name", crate_name, "--edition=2021", "src/lib.rs"].into_iter().chain(flags).collect();
    assert_eq!(rustc_args(crate_name, env), expected, "{crate_name} with {env:?}");
}

const ALL: &str = "coverage compares sanitizer";

#[test]
fn only_the_named_crates_lose_their_instrumentation() {
    // The default: the judging (laws), the harness (the facade) and the reports lose coverage and the
    // sanitizer; libfuzzer-sys's glue loses coverage only (it has unsafe code); the decoder keeps its
    // edges, without compare hooks or the sanitizer.
    check("timelaw_laws", &[], "");
    check("timelaw", &[], "");
    check("timelaw_reports", &[], "");
    check("libfuzzer_sys", &[], "sanitizer");
    check("timelaw_generators", &[], "coverage");
    check("arbitrary", &[], "coverage");
    // The core (the World, the reference interpreter) keeps its edges and compare hooks, without the
    // sanitizer; the adapters, the tokio driver and the fuzz target keep everything.
    check("timelaw_core", &[], "coverage compares");
    check("timelaw_tokio", &[], ALL);
    check("timelaw_adapters", &[], ALL);
    check("reference", &[], ALL);
    check("timelaw_laws_extra", &[], ALL);
}

#[test]
fn each_list_can_be_replaced_or_emptied() {
    let uninstrumented = |list| [("TIMELAW_UNINSTRUMENTED", list)];
    check("timelaw_core", &uninstrumented("timelaw_laws timelaw_core"), "");
    check("timelaw_adapters", &uninstrumented("timelaw_adapters"), "sanitizer");
    check("timelaw_laws", &uninstrumented("timelaw_laws timelaw_core"), "");
    check("timelaw_laws", &uninstrumented("timelaw_core"), "coverage compares");
    check("timelaw_laws", &uninstrumented(""), "coverage compares");
    check("libfuzzer_sys", &uninstrumented(""), ALL);
    check("libfuzzer_sys", &uninstrumented("timelaw_laws"), ALL);
    let without_compares = |list| [("TIMELAW_WITHOUT_COMPARES", list)];
    check("timelaw_adapters", &without_compares("timelaw_adapters"), "coverage sanitizer");
    check("timelaw_generators", &without_compares(""), "coverage compares");
    let unsanitized = |list| [("TIMELAW_UNSANITIZED", list)];
    check("timelaw_adapters", &unsanitized("timelaw_adapters"), "coverage compares");
    check("timelaw_core", &unsanitized(""), ALL);
    check("timelaw_laws", &unsanitized(""), "sanitizer");
    check("timelaw_generators", &unsanitized(""), "coverage sanitizer");
    // Every list empty and the gate off: `cargo fuzz` exactly.
    let none = [
        ("TIMELAW_UNINSTRUMENTED", ""),
        ("TIMELAW_WITHOUT_COMPARES", ""),
        ("TIMELAW_UNSANITIZED", ""),
        ("TIMELAW_GATED_COMPARES", "0"),
    ];
    for crate_name in ["timelaw_laws", "timelaw", "timelaw_generators", "arbitrary", "timelaw_core", "libfuzzer_sys"] {
        check(crate_name, &none, ALL);
    }
}

#[test]
fn kept_compare_hooks_are_gated_unless_the_switch_is_off() {
    let gated = rustc_args("timelaw_core", &[]);
    let at = gated.iter().position(|arg| arg == GATED).expect("the gate flag");
    assert_eq!(gated[at + 1], "-Cllvm-args=-sanitizer-coverage-trace-compares");
    assert!(!rustc_args("timelaw_generators", &[]).iter().any(|arg| arg == GATED), "no hooks, no gate");
    assert!(!rustc_args("timelaw_laws", &[]).iter().any(|arg| arg == GATED), "no coverage, no gate");
    let off = [("TIMELAW_GATED_COMPARES", "0")];
    for crate_name in ["timelaw_core", "reference", "timelaw_adapters"] {
        check(crate_name, &off, if crate_name == "timelaw_core" { "coverage compares" } else { ALL });
    }
    let wrapper = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/rustc-wrapper");
    let output = Command::new(wrapper)
        .args(["echo", "--crate-name", "reference"])
        .env("TIMELAW_GATED_COMPARES", "yes")
        .output()
        .expect("the wrapper runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("TIMELAW_GATED_COMPARES must be 0 or 1, got 'yes'"), "{stderr}");
}

#[test]
fn only_address_sanitizer_is_dropped() {
    // MemorySanitizer needs every crate instrumented: a listed crate keeps it.
    let wrapper = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/rustc-wrapper");
    for sanitizer in ["-Zsanitizer=memory", "-Csanitizer=thread"] {
        let output = Command::new(wrapper)
            .args(["echo", "--crate-name", "timelaw_laws", sanitizer, "-Zsanitizer-memory-track-origins"])
            .env_remove("TIMELAW_UNSANITIZED")
            .output()
            .expect("the wrapper runs");
        let expected = format!("--crate-name timelaw_laws {sanitizer} -Zsanitizer-memory-track-origins");
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), expected);
    }
}

#[test]
fn a_command_without_a_crate_name_passes_through() {
    let wrapper = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/rustc-wrapper");
    let output = Command::new(wrapper).args(["echo", "-", "-vV", "-Cpasses=sancov-module"]).output().expect("runs");
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "- -vV -Cpasses=sancov-module");
}
