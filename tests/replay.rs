//! Replays every fixture under tests/fixtures as its own test (harness = false, libtest-mimic).

mod common;

use common::extremes::{PlantedExtreme, EXTREMES};
use common::planted::Planted;

fn main() {
    let mut registry = timelaw::Registry::builtin();
    for planted in Planted::all() {
        registry.add(planted);
    }
    for planted in common::planted_clocks::ClockPlanted::all() {
        registry.add(planted);
    }
    for (bug, _) in EXTREMES {
        registry.add(PlantedExtreme(bug));
    }
    // A planted hang: its replay is bounded by the watchdog (TIMELAW_CASE_TIMEOUT_MS).
    registry.add(common::hangs::Spin { planted: true });
    timelaw::replay::main(registry, &["tests/fixtures"]);
}
