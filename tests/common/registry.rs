//! The registry every fixture under tests/fixtures replays against: the built-in subjects and every
//! planted subject of the test code.
#![allow(dead_code)] // Each test target uses a part of the shared code.

use timelaw::registry::Registry;

use super::extremes::{PlantedExtreme, EXTREMES};
use super::planted::Planted;
use super::planted_clocks::ClockPlanted;
use super::planted_elapsed::ElapsedPlanted;
use super::planted_hedge::HedgePlanted;
use super::planted_load::LoadPlanted;
use super::planted_refusal::RefusalPlanted;

/// The built-in subjects plus every planted one (one place, so a new planted family is never missed).
pub fn planted_registry() -> Registry {
    let mut registry = Registry::builtin();
    for planted in Planted::all() {
        registry.add(planted);
    }
    for planted in ClockPlanted::all() {
        registry.add(planted);
    }
    for planted in RefusalPlanted::all() {
        registry.add(planted);
    }
    for planted in ElapsedPlanted::all() {
        registry.add(planted);
    }
    for planted in HedgePlanted::all() {
        registry.add(planted);
    }
    for planted in LoadPlanted::all() {
        registry.add(planted);
    }
    for (bug, _) in EXTREMES {
        registry.add(PlantedExtreme(bug));
    }
    // A planted hang: its replay is bounded by the watchdog (TIMELAW_CASE_TIMEOUT_MS).
    registry.add(super::hangs::Spin { planted: true });
    registry
}
