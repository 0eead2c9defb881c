//! Fuzzes the `tower-rate-limit` adapter (tower, under load) on overlapping calls against the whole catalogue, skipping inputs whose every
//! violated law is one of its known violations (checked-in `known_violation` fixtures) with a matching
//! verdict: a crash is a new finding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    timelaw_fuzz::check_bytes_concurrent_except_known(&timelaw_adapters::tower::TowerRateLimit, data);
});
