//! Shared code of the timelaw fuzz targets.
//!
//! The reference target checks the whole catalogue with `timelaw::fuzz::check_bytes`, exactly as a user's
//! target would. An adapter wraps a real retry crate, and some have upstream bugs already pinned by
//! checked-in `known_violation` fixtures; against the whole catalogue their targets would stop at the
//! first input that reaches a known bug, every run. [`check_bytes_except_known`] skips such inputs, so a
//! crash of an adapter target is always a new finding.
//!
//! The rule is `timelaw::fuzz::unmasked`: an input is skipped only when every law its case violates is a
//! known violation of the subject with a verdict of the same message class as the fixture's (the event
//! index is not compared: the input is another case). An input that also violates another law, or a known
//! law in another way, crashes, and the message names that law. When upstream fixes a bug, its fixture
//! becomes a `regression` and the law counts again.

use std::sync::OnceLock;

use timelaw::generators::ConfigDomain;
use timelaw::laws::Catalogue;

include!(concat!(env!("OUT_DIR"), "/known_violations.rs"));

fn standard() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(Catalogue::standard)
}

/// As `timelaw::fuzz::check_bytes`, except that an input is skipped when every law it violates is a
/// known violation of `subject` with a matching verdict (see the crate docs).
///
/// # Panics
/// On the first violation that is not masked: libFuzzer saves the input as a crash artifact, and the
/// message names the law and the case.
pub fn check_bytes_except_known<S: ConfigDomain>(subject: &S, data: &[u8]) {
    timelaw::fuzz::check_bytes_except(subject, standard(), known_here(), data);
}

/// As [`check_bytes_except_known`], with the bytes decoded to overlapping calls
/// (`timelaw::fuzz::Decoding::Concurrent`): the targets of the adapters that serve calls concurrently
/// (a bulkhead, a rate limiter, hedging, a breaker under load). Import their crashes with
/// `timelaw import-crash ARTIFACT --subject NAME --concurrency`.
///
/// # Panics
/// As [`check_bytes_except_known`].
pub fn check_bytes_concurrent_except_known<S: ConfigDomain>(subject: &S, data: &[u8]) {
    timelaw::fuzz::check_bytes_decoded(subject, standard(), known_here(), data, timelaw::fuzz::Decoding::Concurrent);
}

/// Findings that panic only where overflow checks are on (fuzz builds, `cargo test`) and a release replay
/// does not reproduce, so no fixture pins them (docs/findings.md says so): masked for the fuzz targets
/// like the checked-in known violations.
const DEBUG_ONLY: &[timelaw::fuzz::KnownViolation] = &[
    timelaw::fuzz::KnownViolation {
        subject: "governor",
        law: "never_panics",
        message: "the subject panicked: attempt to multiply with overflow",
    },
    timelaw::fuzz::KnownViolation {
        subject: "governor",
        law: "never_panics",
        message: "the subject panicked: attempt to add with overflow",
    },
];

/// [`KNOWN_VIOLATIONS`] and [`DEBUG_ONLY`].
fn known_here() -> &'static [timelaw::fuzz::KnownViolation] {
    static KNOWN: OnceLock<Vec<timelaw::fuzz::KnownViolation>> = OnceLock::new();
    KNOWN.get_or_init(|| KNOWN_VIOLATIONS.iter().chain(DEBUG_ONLY).copied().collect())
}
