//! Replays every fixture under tests/fixtures as its own test (harness = false, libtest-mimic).

mod common;

fn main() {
    timelaw::replay::main(common::registry::planted_registry(), &["tests/fixtures"]);
}
