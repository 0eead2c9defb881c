//! Fuzzing a subject with cargo fuzz: decode the input with the generators' `arbitrary` front-end (every
//! byte string is a valid case), check the whole catalogue, panic on a violation so libFuzzer saves the
//! input as a crash artifact. `timelaw import-crash ARTIFACT --subject NAME` turns it into a shrunk fixture.
//!
//! A fuzz target for your own subject is five lines (`fuzz/fuzz_targets/my_subject.rs`):
//!
//! ```text
//! #![no_main]
//! use libfuzzer_sys::fuzz_target;
//! fuzz_target!(|data: &[u8]| {
//!     timelaw::fuzz::check_bytes(&my_crate::MySubject, data);
//! });
//! ```

use std::sync::OnceLock;

use timelaw_core::Limits;
use timelaw_generators::{arbitrary_case, ConfigDomain};
use timelaw_laws::{Catalogue, Verdict};

use crate::eval::evaluate;

fn standard() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(Catalogue::standard)
}

/// The first law (in catalogue order) the case decoded from `bytes` violates, with the verdict.
pub fn first_violation<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
) -> Option<(&'static str, Verdict)> {
    let case = arbitrary_case(subject, bytes);
    let evaluation = evaluate(subject, &case, Limits::default(), true);
    laws.iter().find_map(|law| {
        let verdict = evaluation.judge(law, &case);
        verdict.is_violated().then_some((law.id, verdict))
    })
}

/// Checks the case decoded from `bytes` against the whole catalogue.
///
/// # Panics
/// When a law is violated, with the law id, the verdict and the case as JSON: that is how libFuzzer
/// learns of a crash.
pub fn check_bytes<S: ConfigDomain + ?Sized>(subject: &S, bytes: &[u8]) {
    check_bytes_with(subject, standard(), bytes);
}

/// As [`check_bytes`], with your own catalogue (the standard laws plus yours, or a selection).
///
/// # Panics
/// When a law is violated.
pub fn check_bytes_with<S: ConfigDomain + ?Sized>(subject: &S, laws: &Catalogue, bytes: &[u8]) {
    if let Some((law, verdict)) = first_violation(subject, laws, bytes) {
        let case = serde_json::to_string(&arbitrary_case(subject, bytes)).unwrap_or_default();
        panic!(
            "timelaw: law `{law}` {verdict} on subject `{}`\ncase: {case}\nimport: timelaw import-crash ARTIFACT --subject {}",
            subject.name(),
            subject.name()
        );
    }
}
