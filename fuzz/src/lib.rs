//! Shared code of the timelaw fuzz targets.
//!
//! The reference target checks the whole catalogue with `timelaw::fuzz::check_bytes`, exactly as a user's
//! target would. An adapter wraps a real retry crate, and some have upstream bugs already pinned by
//! checked-in `known_violation` fixtures; against the whole catalogue their targets would stop at the
//! first input that reaches a known bug, every run. [`check_bytes_except_known`] skips such inputs, so a
//! crash of an adapter target is always a new finding.
//!
//! The rule is `timelaw::fuzz::unmasked`: an input is skipped only when every law its case violates is a
//! pinned finding of the subject: a verdict of the same message class as the fixture's (a panic's site
//! included), and a case that, shrunk, is the fixture's case (or one shrink move from it, or its minimum
//! today). An input that also violates another law, a known law in another way, or a known law through
//! another minimal case, crashes, and the message names that law. When upstream fixes a bug, its fixture
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

/// [`KNOWN_VIOLATIONS`]: the checked-in known violations of this build's profile (findings that only
/// overflow checks raise are pinned by fixtures that say `"profile": "debug"`), chosen here, in code the
/// fuzz build's `--debug-assertions` reaches, not in the build script, which cannot see it.
fn known_here() -> &'static [timelaw::fuzz::KnownViolation] {
    static HERE: OnceLock<Vec<timelaw::fuzz::KnownViolation>> = OnceLock::new();
    HERE.get_or_init(|| {
        let this_profile = if cfg!(debug_assertions) { "debug" } else { "release" };
        let ours = |profile: &Option<&str>| profile.is_none_or(|profile| profile == this_profile);
        KNOWN_VIOLATIONS.iter().filter(|(profile, _)| ours(profile)).map(|(_, known)| *known).collect()
    })
}
