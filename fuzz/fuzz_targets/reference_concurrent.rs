//! Fuzzes the reference interpreter under load: every input decodes to a case of overlapping calls
//! (arrivals, recorded interleaving choices, the bulkhead and the rate limiter) and is checked against the
//! whole catalogue. Import a crash with `timelaw import-crash ARTIFACT --subject reference --concurrency`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    timelaw::fuzz::check_bytes_concurrent(&timelaw::reference::Reference, data);
});
