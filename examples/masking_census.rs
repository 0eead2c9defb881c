//! How many fuzz inputs the masking skips, before and after it compared cases: for each bundled adapter
//! with pinned findings, random byte strings (SplitMix64, seed 1) are decoded as its fuzz target decodes
//! them and judged against the whole catalogue; an input that violates some law is counted as masked by
//! the message-class rule of before (every violation of a pinned law with the same message class, sites
//! left out) and by today's rule (`timelaw::fuzz::unmasked`: every violation a pinned finding, its case
//! shrunk to the fixture's).
//!
//! `cargo run --release --example masking_census [INPUTS]` (default 2,000 per subject). Run it in a
//! debug build (`cargo run --example masking_census`) to see the findings that only overflow checks raise.

use timelaw::core::SplitMix64;
use timelaw::fuzz::{unmasked, violations_decoded, Decoding, KnownViolation};
use timelaw::generators::ConfigDomain;
use timelaw::known::{message_class, pinned_in, Pinned};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::panic_site::without_site;
use timelaw_adapters::{backon, exponential_backoff, governor, recloser, tokio_retry2, tower};

/// Inputs with a violation, and how many of them each rule masks.
struct Census {
    violating: u64,
    masked_before: u64,
    masked_now: u64,
}

fn census<S: ConfigDomain>(subject: &S, decoding: Decoding, inputs: u64) -> Census {
    let laws = Catalogue::standard();
    let pinned = pinned_in(std::path::Path::new("tests/fixtures/adapters"), subject.name()).unwrap_or_default();
    let name: &'static str = Box::leak(subject.name().to_owned().into_boxed_str());
    let known: Vec<KnownViolation> = pinned.iter().map(|pinned| leak(name, pinned)).collect();
    let mut rng = SplitMix64::new(1);
    let mut census = Census { violating: 0, masked_before: 0, masked_now: 0 };
    for _ in 0..inputs {
        let length = rng.below(257);
        let bytes: Vec<u8> = (0..length).map(|_| rng.next_u64().to_le_bytes()[0]).collect();
        let found = violations_decoded(subject, &laws, &bytes, decoding);
        if found.is_empty() {
            continue;
        }
        census.violating += 1;
        let class_known = |(law, verdict): &(&str, Verdict)| {
            let message = verdict.violation().map(|violation| violation.message.to_string()).unwrap_or_default();
            let class = message_class(without_site(&message));
            pinned.iter().any(|known| known.law == *law && message_class(without_site(&known.message)) == class)
        };
        census.masked_before += u64::from(found.iter().all(class_known));
        let drawn = decoding.drawn(subject, &bytes);
        let first = unmasked(subject, &laws, &found, &known, &drawn);
        if std::env::var_os("TIMELAW_CENSUS_SHOW").is_some_and(|name| name == subject.name()) {
            if let Some((law, verdict)) = first {
                let budget = timelaw::shrink::ShrinkBudget { evals_max: 1_000, time_max: None };
                let law_ref = laws.get(law).expect("a catalogue law");
                let shrunk = timelaw::shrink::shrink(subject, law_ref, drawn.clone(), budget, Default::default());
                let shrunk = shrunk.map(|outcome| serde_json::to_string(&outcome.case).unwrap_or_default());
                eprintln!("unmasked {law}: {verdict}\n  shrunk: {shrunk:?}");
            }
        }
        census.masked_now += u64::from(first.is_none());
    }
    census
}

/// A pinned finding as the fuzz targets' table holds it (`'static` strings, as `fuzz/build.rs` writes).
fn leak(subject: &'static str, pinned: &Pinned) -> KnownViolation {
    let text = |value: String| -> &'static str { Box::leak(value.into_boxed_str()) };
    KnownViolation {
        subject,
        law: text(pinned.law.clone()),
        message: text(pinned.message.clone()),
        case: text(pinned.case.to_string()),
    }
}

fn row<S: ConfigDomain>(subject: &S, decoding: Decoding, inputs: u64) {
    let census = census(subject, decoding, inputs);
    println!(
        "| `{}` | {inputs} | {} | {} | {} |",
        subject.name(),
        census.violating,
        census.masked_before,
        census.masked_now
    );
}

fn main() {
    let inputs = std::env::args().nth(1).and_then(|text| text.parse().ok()).unwrap_or(2_000);
    println!("| subject | inputs | violating | masked before (class) | masked now (pinned case) |");
    println!("|---|---|---|---|---|");
    let sequential = Decoding::Sequential;
    row(&backon::BackonExponential, sequential, inputs);
    row(&backon::BackonFibonacci, sequential, inputs);
    row(&backon::BackonConstant, sequential, inputs);
    row(&backon::BackonRetry, sequential, inputs);
    row(&tower::TowerBackoff, sequential, inputs);
    row(&tower::TowerBudget, sequential, inputs);
    row(&exponential_backoff::ExponentialBackoffSubject, sequential, inputs);
    row(&tokio_retry2::TokioRetry2Retry, sequential, inputs);
    row(&tower::TowerConcurrencyLimit, Decoding::Concurrent, inputs);
    row(&tower::TowerRateLimit, Decoding::Concurrent, inputs);
    row(&tower::TowerHedge, Decoding::Concurrent, inputs);
    row(&governor::Governor, Decoding::Concurrent, inputs);
    row(&recloser::RecloserSubject, Decoding::Concurrent, inputs);
}
