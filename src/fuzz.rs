//! Fuzzing a subject with cargo fuzz: decode the input with the generators' `arbitrary` front-end (every
//! byte string is a valid case), check the whole catalogue, panic on a violation so libFuzzer saves the
//! input as a crash artifact. `timelaw import-crash ARTIFACT --subject NAME` turns it into a shrunk fixture.
//!
//! A subject with known, pinned violations (an upstream bug with a `known_violation` fixture) is fuzzed
//! with [`check_bytes_except`]: an input is skipped only when every law it violates is one of those known
//! violations with a message of the same class ([`unmasked`]); `fuzz/build.rs` shows how the bundled
//! targets collect them from the checked-in fixtures.
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
use crate::known::same_class;

fn standard() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(Catalogue::standard)
}

/// A known violation of a subject, as a checked-in `known_violation` fixture pins it: its law and the
/// message of its stored verdict (compared by message class, see [`crate::known`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownViolation {
    /// The subject's name.
    pub subject: &'static str,
    /// The law's id.
    pub law: &'static str,
    /// The stored verdict's message.
    pub message: &'static str,
}

/// The first law (in catalogue order) the case decoded from `bytes` violates, with the verdict.
pub fn first_violation<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
) -> Option<(&'static str, Verdict)> {
    violations(subject, laws, bytes).into_iter().next()
}

/// Every law (in catalogue order) the case decoded from `bytes` violates, with its verdict.
pub fn violations<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
) -> Vec<(&'static str, Verdict)> {
    let case = arbitrary_case(subject, bytes);
    let evaluation = evaluate(subject, &case, Limits::default(), true);
    let judged = laws.iter().map(|law| (law.id, evaluation.judge(law, &case)));
    judged.filter(|(_, verdict)| verdict.is_violated()).collect()
}

/// The first of `found` (violations of `subject`) that `known` does not mask, or `None` when every one
/// is masked. A violation is masked only by a known violation of the same subject and law whose stored
/// message has the same class ([`crate::known::message_class`]); the event index is not compared, as a
/// fuzz input is another case than the fixture's. So an input that also violates another law, or the
/// same law in another way, is not skipped.
pub fn unmasked<'v>(
    subject: &str,
    found: &'v [(&'static str, Verdict)],
    known: &[KnownViolation],
) -> Option<&'v (&'static str, Verdict)> {
    found.iter().find(|(law, verdict)| {
        let masked = |pinned: &KnownViolation| {
            pinned.subject == subject
                && pinned.law == *law
                && verdict.violation().is_some_and(|violation| same_class(pinned.message, violation))
        };
        !known.iter().any(masked)
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
    check_bytes_except(subject, laws, &[], bytes);
}

/// As [`check_bytes_with`], except that an input is skipped when every law it violates is a `known`
/// violation of the subject with a matching verdict ([`unmasked`]): a crash is always a new finding.
///
/// # Panics
/// On the first violation `known` does not mask.
pub fn check_bytes_except<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    known: &[KnownViolation],
    bytes: &[u8],
) {
    let found = violations(subject, laws, bytes);
    if let Some((law, verdict)) = unmasked(subject.name(), &found, known) {
        let case = serde_json::to_string(&arbitrary_case(subject, bytes)).unwrap_or_default();
        panic!(
            "timelaw: law `{law}` {verdict} on subject `{}`\ncase: {case}\nimport: timelaw import-crash ARTIFACT --subject {}",
            subject.name(),
            subject.name()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[KnownViolation] = &[
        KnownViolation { subject: "crate-a", law: "delay_within_cap", message: "slept 3s, above the cap 1s" },
        KnownViolation { subject: "crate-a", law: "never_panics", message: "the subject panicked: overflow" },
    ];

    fn at(law: &'static str, message: &'static str) -> (&'static str, Verdict) {
        (law, Verdict::violated_at(4, message))
    }

    /// The law of the first unmasked violation of `subject` among `found`.
    #[track_caller]
    fn check(subject: &str, found: &[(&'static str, Verdict)], expect: Option<&str>) {
        assert_eq!(unmasked(subject, found, KNOWN).map(|(law, _)| *law), expect);
    }

    #[test]
    fn skips_only_when_every_violation_is_known_with_its_verdict() {
        let cap = at("delay_within_cap", "slept 90ms, above the cap 50ms");
        let panic = at("never_panics", "the subject panicked: overflow");
        check("crate-a", &[], None);
        check("crate-a", std::slice::from_ref(&cap), None);
        check("crate-a", &[cap.clone(), panic.clone()], None);
        // A known first violation no longer hides the others.
        check("crate-a", &[cap.clone(), at("attempts_within_max", "attempt 4")], Some("attempts_within_max"));
        // The same law violated another way is a second bug.
        check("crate-a", &[at("delay_within_cap", "slept 90ms, below the minimum 100ms")], Some("delay_within_cap"));
        check("crate-a", &[at("never_panics", "the subject panicked: index 3")], Some("never_panics"));
        // Known for one subject only.
        check("crate-b", std::slice::from_ref(&cap), Some("delay_within_cap"));
        let no_message = ("delay_within_cap", Verdict::Holds);
        check("crate-a", &[no_message], Some("delay_within_cap"));
    }
}
