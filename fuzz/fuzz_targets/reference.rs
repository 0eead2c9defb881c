//! Fuzzes the reference interpreter: every input decodes (through the generators' `arbitrary` front-end) to a
//! case, which is checked against the whole catalogue; a violated law panics with the law id and the case, and
//! libFuzzer saves the input as a crash artifact for `timelaw import-crash`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    timelaw::fuzz::check_bytes(&timelaw::reference::Reference, data);
});
