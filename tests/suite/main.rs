//! The facade's integration tests in one test binary: every file here is a module of its own (named
//! after the suite it holds), so the shared subjects of `tests/common`, the facade and the adapters are
//! compiled and linked once instead of once per file. Run one suite with a filter:
//! `cargo test --test suite planted_load::`. Tests that need a process of their own stay apart:
//! `tests/hangs.rs` (it asserts on its own process's files and starts itself as a child),
//! `tests/hang_limit.rs` (the threads it abandons spin until its process ends),
//! `tests/check_builder.rs` (it sets environment variables) and `tests/replay.rs` (its own harness).

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod cli_edges;
mod cli_lanes;
mod cli_listing;
mod cli_reliability;
mod cli_upgrade;
mod concurrent_check;
mod consistency;
mod corpus;
mod docs;
mod evasion;
mod extremes;
mod facade;
mod false_alarms;
mod fixture_v3;
mod fixture_versions;
mod fixtures;
mod fuzz_wrapper;
mod import_crash;
mod judged_laws;
mod known_violations;
mod long_run_cuts;
mod minimality;
mod nondeterministic;
mod planted_clocks;
mod planted_elapsed;
mod planted_hedge;
mod planted_load;
mod planted_refusal;
mod reference_load;
mod report_golden;
mod runner;
mod shrink_answers;
mod shrink_concurrent;
mod shrink_paired;
mod shrink_stops;
mod shrinker;
mod std_clocks;
mod std_random;
mod time_limit_cuts;
mod vacuity;
