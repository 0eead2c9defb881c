//! Shared code of the timelaw fuzz targets.
//!
//! The reference target checks the whole catalogue with `timelaw::fuzz::check_bytes`, exactly as a user's
//! target would. An adapter wraps a real retry crate, and some have upstream bugs already pinned by
//! checked-in `known_violation` fixtures; against the whole catalogue their targets would stop at the
//! first input that reaches a known bug, every run. [`check_bytes_except_known`] skips such inputs, so a
//! crash of an adapter target is always a new finding.
//!
//! The rule is the one `timelaw import-crash` applies: an input is judged by the first law (in catalogue
//! order) its case violates. An input is skipped when that law is a known violation of the subject, and
//! crashes otherwise; so every crash artifact imports as a fixture of the new law, never of a known one.
//! When upstream fixes a bug, its fixture becomes a `regression` and the law counts again.

use std::sync::OnceLock;

use timelaw::generators::ConfigDomain;
use timelaw::laws::Catalogue;

include!(concat!(env!("OUT_DIR"), "/known_violations.rs"));

fn standard() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(Catalogue::standard)
}

/// Whether `law` is a known violation of `subject` (it has a checked-in `known_violation` fixture).
pub fn is_known_violation(subject: &str, law: &str) -> bool {
    KNOWN_VIOLATIONS.iter().any(|&(known_subject, known_law)| known_subject == subject && known_law == law)
}

/// As `timelaw::fuzz::check_bytes`, except that an input whose first violated law is a known violation of
/// `subject` is skipped.
///
/// # Panics
/// When the first law the decoded case violates is not a known violation: libFuzzer saves the input as a
/// crash artifact, and the message names the law and the case.
pub fn check_bytes_except_known<S: ConfigDomain>(subject: &S, data: &[u8]) {
    let Some((law, verdict)) = timelaw::fuzz::first_violation(subject, standard(), data) else { return };
    if is_known_violation(subject.name(), law) {
        return;
    }
    timelaw::fuzz::check_bytes(subject, data);
    // The second evaluation found no violation: the subject is not deterministic, a finding of its own.
    panic!("timelaw: law `{law}` {verdict} on subject `{}` once, then held on the same input", subject.name());
}
