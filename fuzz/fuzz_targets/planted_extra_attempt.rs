//! Fuzzes a deliberately broken subject (one attempt more than `max_attempts`): it must crash, quickly. Used to
//! measure the time to the first crash and for the libFuzzer -> `import-crash` round trip; never run by CI as an
//! ordinary target (it is supposed to fail).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/planted.rs"]
mod planted;
// `planted` describes its subjects like the reference without the contract's refinements.
#[path = "../../tests/common/unrefined.rs"]
mod unrefined;

use planted::{Bug, Planted};

fuzz_target!(|data: &[u8]| {
    timelaw::fuzz::check_bytes(&Planted(Bug::ExtraAttempt), data);
});
