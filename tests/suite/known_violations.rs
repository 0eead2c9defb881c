//! Replay of a `known_violation` fixture compares the stored verdict (law, event, message class): each
//! outcome of replay, from a checked-in planted fixture with its stored fields edited.

use crate::common;

use common::planted::Planted;
use serde_json::{json, Value};
use timelaw::known::KnownMatch;
use timelaw::laws::Catalogue;
use timelaw::registry::Registry;
use timelaw::replay::replay_file;
use timelaw::{Config, ReplayOutcome};

/// Stored verdict: violated at event 8, "slept 1ns, above the cap 0ms".
const PLANTED: &str = "tests/fixtures/planted/delay_within_cap--planted-uncapped-delay--b312b7cc864e8cd8.json";

fn registry() -> Registry {
    let mut registry = Registry::builtin();
    for planted in Planted::all() {
        registry.add(planted);
    }
    registry
}

/// Replays the planted fixture after `edit`, from a scratch file.
#[track_caller]
fn check(name: &str, edit: impl FnOnce(&mut Value), expect: ReplayOutcome) {
    let mut fixture: Value = serde_json::from_str(&std::fs::read_to_string(PLANTED).unwrap()).unwrap();
    edit(&mut fixture);
    let dir = crate::common::scratch::Scratch::new("known", name);
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&fixture).unwrap()).unwrap();
    let result = replay_file(&registry(), &Catalogue::standard(), &path, &Config::default()).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(result.outcome, expect, "{}", result.explanation);
    assert_eq!(result.passed, expect.passed(), "{}", result.explanation);
}

fn verdict(fixture: &mut Value, stored: Value) {
    fixture["verdict"] = stored;
}

#[test]
fn replay_outcomes() {
    let still = |matched| ReplayOutcome::StillViolated(matched);
    let differently =
        |what: &str| ReplayOutcome::ViolatedDifferently(KnownMatch::Differently { what: what.to_owned() });
    check("same", |_| {}, still(KnownMatch::Same));
    // Other numbers in the same sentence: the same message class.
    let other_numbers = json!({ "violated": { "event": 8, "message": "slept 5ms, above the cap 2ms" } });
    check("numbers", |f| verdict(f, other_numbers), still(KnownMatch::Same));
    let other_event = json!({ "violated": { "event": 7, "message": "slept 1ns, above the cap 0ms" } });
    check("event", |f| verdict(f, other_event), differently("blamed event 7, now event 8"));
    let other_message = json!({ "violated": { "event": 8, "message": "slept 1ns, below the minimum 0ms" } });
    let changed = "the message was \"slept 1ns, below the minimum 0ms\", now \"slept 1ns, above the cap 0ms\"";
    check("message", |f| verdict(f, other_message), differently(changed));
    // Older or hand-written files: compared as far as the stored verdict allows, and said so.
    let no_event = json!({ "violated": { "message": "slept 1ns, above the cap 0ms" } });
    let loose = KnownMatch::Loosely { compared: "the law and the message class (no stored event)" };
    check("no-event", |f| verdict(f, no_event), still(loose));
    let alone = KnownMatch::Loosely { compared: "the law alone" };
    check("holds", |f| verdict(f, json!("holds")), still(alone));
    // The same case on the reference interpreter, which has no such bug.
    check("fixed", |f| f["subject"] = json!("reference"), ReplayOutcome::NoLongerViolated);
    check("regressed", |f| f["status"] = json!("regression"), ReplayOutcome::Regressed);
    let fixed_regression = |f: &mut Value| {
        f["status"] = json!("regression");
        f["subject"] = json!("reference");
    };
    check("holds-now", fixed_regression, ReplayOutcome::Holds);
}

#[test]
fn a_regression_fixture_that_no_longer_exercises_its_law_fails() {
    let regression = |f: &mut Value| {
        f["status"] = json!("regression");
        f["subject"] = json!("reference");
    };
    // The first attempt hangs with no timeout: the run ends there, and "holds" on no sleep proves nothing.
    let hung = |f: &mut Value| {
        regression(f);
        f["case"]["schedule"]["calls"][0]["steps"][0] = json!({ "duration": "0", "outcome": "hang" });
    };
    let why = "the run ended early: call 0 attempt 1 hangs with no timeout and no cancellation".to_owned();
    check("hung", hung, ReplayOutcome::NotExercised { why });
    // Every attempt succeeds: no sleep, so the cap law is vacuous.
    let vacuous = |f: &mut Value| {
        regression(f);
        f["case"]["schedule"]["calls"][0]["steps"][0]["outcome"] = json!("ok");
    };
    check("vacuous", vacuous, ReplayOutcome::NotExercised { why: "vacuous".to_owned() });
}

#[test]
fn findings_list_every_known_violation_fixture() {
    let findings = std::fs::read_to_string("docs/findings.md").unwrap();
    let mut known = 0;
    for dir in ["tests/fixtures/adapters", "tests/fixtures/planted", "tests/fixtures/reference"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            if fixture["status"] != "known_violation" {
                continue;
            }
            known += 1;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let row = findings.lines().find(|line| line.starts_with("| ") && line.contains(&name));
            assert!(row.is_some(), "docs/findings.md has no row for {name}");
        }
    }
    assert!(known >= 25, "only {known} known violations found");
}

#[test]
fn import_crash_skips_only_the_pinned_findings() {
    use timelaw::core::Case;
    use timelaw::known::{pinned_finding, pinned_in};
    use timelaw::laws::Verdict;
    use timelaw_adapters::exponential_backoff::{ExponentialBackoffConfig, ExponentialBackoffSubject};
    let dir = std::path::Path::new("tests/fixtures/adapters");
    let mut pinned = pinned_in(dir, "exponential-backoff").unwrap();
    pinned.sort_by(|a, b| (&a.law, &a.message).cmp(&(&b.law, &b.message)));
    let laws: Vec<&str> = pinned.iter().map(|known| known.law.as_str()).collect();
    assert_eq!(laws, ["backoff_shape_without_jitter", "jitter_within_bounds", "never_panics", "never_panics"]);
    let catalogue = Catalogue::standard();
    let never_panics = catalogue.get("never_panics").unwrap();
    let clamp = pinned.iter().find(|known| known.message.contains("min <= max")).unwrap();
    let case: Case<ExponentialBackoffConfig> = serde_json::from_value(clamp.case.clone()).unwrap();
    let case = case.into();
    let panicked = |message: &str| Verdict::violated_with(Some(1), format!("the subject panicked: {message}"));
    let verdict = panicked("assertion failed: min <= max [at library/core/src/cmp.rs]");
    let subject = ExponentialBackoffSubject;
    assert_eq!(pinned_finding(&subject, &pinned, never_panics, &verdict, &case), Some(clamp));
    // The same message at the caller's site is that finding: whether the standard library reports
    // `clamp`'s assertion at its own file or at its caller's line depends on the Rust release.
    let caller = panicked("assertion failed: min <= max [at exponential-backoff-2.1.1/src/lib.rs:10:5]");
    assert_eq!(pinned_finding(&subject, &pinned, never_panics, &caller, &case), Some(clamp));
    // The same case with another message is not that finding; nor is another law.
    let other = panicked("attempt to add with overflow [at library/core/src/cmp.rs]");
    assert_eq!(pinned_finding(&subject, &pinned, never_panics, &other, &case), None);
    let terminates = catalogue.get("terminates").unwrap();
    assert_eq!(pinned_finding(&subject, &pinned, terminates, &verdict, &case), None);
    assert!(pinned_in(std::path::Path::new("tests/fixtures/no-such-folder"), "reference").unwrap().is_empty());
}

#[test]
fn a_fixture_of_another_build_profile_is_skipped_visibly() {
    use timelaw::fixture::Profile;
    let other = if Profile::current() == Profile::Debug { Profile::Release } else { Profile::Debug };
    let stated = |profile: Profile| {
        move |f: &mut Value| {
            f["version"] = json!(4);
            f["profile"] = json!(profile.name());
        }
    };
    check("other-profile", stated(other), ReplayOutcome::OtherProfile { profile: other });
    check("this-profile", stated(Profile::current()), ReplayOutcome::StillViolated(KnownMatch::Same));
    assert!(ReplayOutcome::OtherProfile { profile: other }.is_skip());
}

/// The crash the emulated ClusterFuzzLite run found on exponential-backoff's target (the input
/// `0b 3f 0b 3f`, seed 1) is the pinned `min <= max` finding: the crash and the pinned case shrink to
/// one minimum. It did not while the adapter's simpler configs went round a cycle (1 ms offered back
/// from 500 us, factor 2 from 0 and then halved again): each shrink then stopped at another member of
/// it, depending on its start.
#[test]
fn the_fuzzed_clamp_crash_is_the_pinned_finding() {
    let subject = timelaw_adapters::exponential_backoff::ExponentialBackoffSubject;
    assert_masked(&subject, "exponential-backoff", &[0x0b, 0x3f, 0x0b, 0x3f], timelaw::fuzz::Decoding::Sequential);
}

/// The crash the emulated ClusterFuzzLite run found on governor's target (the input `8b 8b`, seed 1,
/// overlapping calls) is the pinned "Duration is longer than 584 years" finding: its period shrinks to
/// exactly `2^64` ns, the first duration past `u64` nanoseconds, as the pinned case's. It stopped at
/// 34,359,738,367.999 s (a halving of `Duration::MAX`) while a simpler duration was only zero, 1 ms or
/// a halving: the boundary values below a duration are the only way to that minimum.
#[test]
fn the_fuzzed_period_overflow_is_the_pinned_finding() {
    let subject = timelaw_adapters::governor::Governor;
    assert_masked(&subject, "governor", &[0x8b, 0x8b], timelaw::fuzz::Decoding::Concurrent);
}

/// The next crashes of that run at later commits (the inputs `8b 22 ff ff` and `8b 75 70 33 00 22`) are
/// governor's `tau` overflow at bursts of 4,296 and 307,445,736: points on the curve the overflow holds
/// along. Both shrink to the pinned minimum (burst 3, period 2^63 ns) within the masking's budget, through
/// governor's coupled move (a smaller burst at a period raised to a boundary value), the power of two
/// below a duration, and a count that closes in on its threshold (lowering the burst by one took 3,933
/// runs, past the masking's 1,000).
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the overflow panics only under overflow checks (its fixture says \"profile\": \"debug\")"
)]
fn the_fuzzed_burst_overflows_are_the_pinned_finding() {
    let subject = timelaw_adapters::governor::Governor;
    for bytes in [&[0x8b, 0x22, 0xff, 0xff][..], &[0x8b, 0x75, 0x70, 0x33, 0x00, 0x22]] {
        assert_masked(&subject, "governor", bytes, timelaw::fuzz::Decoding::Concurrent);
    }
}

/// The fuzz input `bytes` violates exactly `never_panics` on `subject`, and the pinned fixtures of
/// `name` in tests/fixtures/adapters mask it (its case shrinks to a pinned case).
#[track_caller]
fn assert_masked<S: timelaw::ConfigDomain>(
    subject: &S,
    name: &'static str,
    bytes: &[u8],
    decoding: timelaw::fuzz::Decoding,
) {
    use timelaw::fuzz::{unmasked, violations_decoded, KnownViolation};
    let laws = Catalogue::standard();
    let found = violations_decoded(subject, &laws, bytes, decoding);
    let ids: Vec<&str> = found.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, ["never_panics"], "{found:?}");
    let dir = std::path::Path::new("tests/fixtures/adapters");
    let pinned = timelaw::known::pinned_in(dir, name).unwrap();
    let known: Vec<KnownViolation> = pinned
        .iter()
        .map(|p| KnownViolation {
            subject: name,
            law: Box::leak(p.law.clone().into_boxed_str()),
            message: Box::leak(p.message.clone().into_boxed_str()),
            case: Box::leak(p.case.to_string().into_boxed_str()),
        })
        .collect();
    let drawn = decoding.drawn(subject, bytes);
    assert_eq!(unmasked(subject, &laws, &found, &known, &drawn), None);
}

/// Where a finding's shrink stopped before a move existed, with the pinned fixture it reaches now:
/// `(subject name, law, start case as JSON, pinned fixture)`. Each start was a minimum a default
/// `timelaw check` of the adapter wrote as a new fixture, although the finding was pinned.
const OTHER_STARTS: [(&str, &str, &str, &str); 11] = [
    // A fibonacci strategy: the fixed interval at its first delay (a simpler kind) is the only way.
    (
        "tokio-retry2-retry",
        "jitter_within_bounds",
        r#"{"config":{"strategy":{"fibonacci":{"millis":10,"factor":1,"max_delay":null,"take":3}},"notify":false,"retry_after":true,"jitter":true},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":{"rate_limited":{"retry_after":"0"}}}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "jitter_within_bounds--tokio-retry2-retry--992ef4470eb38131.json",
    ),
    // A fibonacci builder: the exponential one of factor 2 with its delays (a simpler kind).
    (
        "backon-retry",
        "jitter_within_bounds",
        r#"{"config":{"backoff":{"fibonacci":{"jitter":true,"min_delay":"64ns","max_delay":"0","max_times":3}},"notify":false},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient"}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "jitter_within_bounds--backon-retry--e1bbbef238ca3412.json",
    ),
    // A jitter of 18 and one of 12 thousandths: below 10 the crate panics instead (another finding), so
    // halving lost it; a count closing in on its floor reaches 10 from both.
    (
        "exponential-backoff",
        "jitter_within_bounds",
        r#"{"config":{"max_attempts":4,"min":"1ns","max":null,"jitter_milli":18,"factor":131071},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient","repeat":3}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "jitter_within_bounds--exponential-backoff--b8d8abe18552b479.json",
    ),
    (
        "exponential-backoff",
        "jitter_within_bounds",
        r#"{"config":{"max_attempts":4,"min":"1ns","max":null,"jitter_milli":12,"factor":131071},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient","repeat":3}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "jitter_within_bounds--exponential-backoff--b8d8abe18552b479.json",
    ), // 12 attempts at factor 10: fewer attempts under a factor raised to keep the growth (a coupled move),
    // then the factor bisected to the smallest that still fails.
    (
        "exponential-backoff",
        "backoff_shape_without_jitter",
        r#"{"config":{"max_attempts":12,"min":"1ns","max":null,"jitter_milli":0,"factor":10},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient","repeat":11}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "backoff_shape_without_jitter--exponential-backoff--b3dd91840c6d0133.json",
    ),
    // A 95 ms elapsed-time limit (max_duration shrinks) and a 134 ms interval, bisected to the first
    // interval past tokio's 1 ms timer tick; 1.048576 ms was where the power of two below left it.
    (
        "tokio-retry2-retry",
        "no_retry_after_elapsed_limit",
        r#"{"config":{"strategy":{"fixed":{"interval":"134ms","take":3}},"notify":false,"retry_after":false,"max_duration":"95ms"},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient"}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "no_retry_after_elapsed_limit--tokio-retry2-retry--4b71526791b83651.json",
    ),
    (
        "tokio-retry2-retry",
        "no_retry_after_elapsed_limit",
        r#"{"config":{"strategy":{"fixed":{"interval":"1.048576ms","take":3}},"notify":false,"retry_after":false,"max_duration":"0"},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient"}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "no_retry_after_elapsed_limit--tokio-retry2-retry--4b71526791b83651.json",
    ),
    // A jitter of 0.485: the default jitter, the simplest one on.
    (
        "tower-backoff",
        "jitter_within_bounds",
        r#"{"config":{"min":"1ns","max":null,"jitter":0.485,"max_retries":34},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient","repeat":34}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "jitter_within_bounds--tower-backoff--429092833f1bb96c.json",
    ),
    // A period at `u64::MAX` s, past the `Instant` range by far: bisected over the grid to the first grid
    // value past the overflow, which the machine's uptime (the `Instant` base) does not move.
    (
        "tower-rate-limit",
        "never_panics",
        r#"{"config":{"num":1,"per":"18446744073709551615s"},"schedule":{"calls":[{"gap_before":"0","steps":[],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "never_panics--tower-rate-limit--28bbd066345a0acb.json",
    ),
    // tower-backoff's `Duration::new` overflow along a curve of `min` and jitter: the emulated
    // ClusterFuzzLite run's crash at jitter 82.919 and the earlier pin at 97.782 both reach the
    // smallest `min` at the largest jitter (a coupled move, then the bisection of `min`).
    (
        "tower-backoff",
        "never_panics",
        r#"{"config":{"min":"340974339824930221.715s","max":"618970019642690137.449s","jitter":82.919,"max_retries":3},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient"}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "never_panics--tower-backoff--c385094f0c47e970.json",
    ),
    (
        "tower-backoff",
        "never_panics",
        r#"{"config":{"min":"289144301640099610.025s","max":"309485009821345068.724s","jitter":97.782,"max_retries":3},"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"transient"}],"cancel_after":null,"idempotent":true}]},"seed":0}"#,
        "never_panics--tower-backoff--c385094f0c47e970.json",
    ),
];

/// Each of [`OTHER_STARTS`] shrinks to its pinned case, the fixture's own case shrinks to itself, and
/// the start violates the law (so the test can fail).
#[test]
fn other_starts_of_a_pinned_finding_shrink_to_its_case() {
    use timelaw::shrink::{shrink, ShrinkBudget};
    fn reaches<S: timelaw::ConfigDomain>(subject: &S, law: &str, start: &str, pinned: &str) {
        let law = *Catalogue::standard().get(law).unwrap();
        let start: timelaw::core::Case<S::Config> = serde_json::from_str(start).unwrap();
        let path = std::path::Path::new("tests/fixtures/adapters").join(pinned);
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let pinned_case: timelaw::core::Case<S::Config> = serde_json::from_value(fixture["case"].clone()).unwrap();
        assert_ne!(start, pinned_case);
        for from in [start, pinned_case.clone()] {
            let shrunk = shrink(subject, &law, from, ShrinkBudget::default(), Default::default()).unwrap();
            assert_eq!(shrunk.case, pinned_case, "{pinned}");
        }
    }
    for (subject, law, start, pinned) in OTHER_STARTS {
        match subject {
            "tokio-retry2-retry" => reaches(&timelaw_adapters::tokio_retry2::TokioRetry2Retry, law, start, pinned),
            "backon-retry" => reaches(&timelaw_adapters::backon::BackonRetry, law, start, pinned),
            "exponential-backoff" => {
                reaches(&timelaw_adapters::exponential_backoff::ExponentialBackoffSubject, law, start, pinned)
            }
            "tower-backoff" => reaches(&timelaw_adapters::tower::TowerBackoff, law, start, pinned),
            "tower-rate-limit" => reaches(&timelaw_adapters::tower::TowerRateLimit, law, start, pinned),
            other => panic!("no subject {other}"),
        }
    }
}
