//! Durations as users pass them: a crate that does what it is asked at `Duration::MAX` (a delay past
//! everything the World holds, recorded saturated and clamped) violates no delay law.

mod support;

use std::time::Duration;

use timelaw_adapters::backon::{BackonConstant, BackonConstantConfig, BackonExponential, BackonExponentialConfig};
use timelaw_adapters::tokio_retry2::{FixedStrategy, TokioRetry2Fixed};
use timelaw_adapters::tower::{TowerBackoff, TowerBackoffConfig};
use timelaw_adapters::{F32, F64};
use timelaw_core::{execute, Case, EventKind, Outcome, Schedule, Step, Subject, VDuration};
use timelaw_laws::Verdict;

const DELAY_LAWS: [&str; 4] =
    ["backoff_shape_without_jitter", "delay_within_cap", "delay_at_least_min", "never_panics"];

/// Every law of [`DELAY_LAWS`] on `config` after one failure: not violated; and the first sleep is
/// recorded as `sleep` (saturated at `VDuration::MAX`), with a clamp record when `clamped`.
#[track_caller]
fn check<S: Subject>(subject: &S, config: S::Config, sleep: VDuration, clamped: bool) {
    let case = Case::new(config, Schedule::single(vec![Step::instant(Outcome::Transient)]), 0);
    let name = subject.name();
    for law in DELAY_LAWS {
        let verdict = support::judge(subject, &case, law);
        assert!(!matches!(verdict, Verdict::Violated(_)), "{name} {law}: {verdict}");
    }
    let trace = execute(subject, &case.config, &case.schedule, case.seed);
    let kinds: Vec<EventKind> = trace.events.iter().map(|event| event.kind).collect();
    assert!(kinds.contains(&EventKind::SleepRequested { duration: sleep }), "{name}: {kinds:?}");
    let clamp = kinds.iter().any(|kind| matches!(kind, EventKind::SleepClamped { .. }));
    assert_eq!(clamp, clamped, "{name}: {kinds:?}");
}

#[test]
fn sleeping_duration_max_as_asked_violates_nothing() {
    let (max, forever) = (Duration::MAX, VDuration::MAX);
    check(&BackonConstant, BackonConstantConfig { delay: max, max_times: Some(3), jitter: false }, forever, true);
    let exponential = BackonExponentialConfig {
        jitter: false,
        factor: F32(2.0),
        min_delay: max,
        max_delay: Some(max),
        max_times: Some(3),
        total_delay: None,
    };
    check(&BackonExponential, exponential, forever, true);
    check(&TokioRetry2Fixed, FixedStrategy { interval: max, take: Some(3) }, forever, true);
    let fits = Duration::from_nanos(u64::MAX);
    check(&TokioRetry2Fixed, FixedStrategy { interval: fits, take: Some(3) }, forever, false);
    let tower = |min, max| TowerBackoffConfig { min, max: Some(max), jitter: F64(0.0), max_retries: 3 };
    check(&TowerBackoff, tower(max, max), forever, true);
}

/// tokio sleeps at most 30 years, and tower's `Sleep` tells only its clamped deadline: the adapter
/// mirrors tower's arithmetic to record what tower asked for.
#[test]
fn tower_sleeps_past_tokio_s_clamp_are_recorded_as_asked() {
    let years_136 = Duration::from_secs(1 << 32);
    let config = |jitter| TowerBackoffConfig { min: years_136, max: None, jitter: F64(jitter), max_retries: 3 };
    check(&TowerBackoff, config(0.0), VDuration::from_std(years_136), true);
    let jittered = config(0.99);
    let case = Case::new(jittered.clone(), Schedule::single(vec![Step::instant(Outcome::Transient)]), 0);
    for law in ["delay_at_least_min", "jitter_within_bounds", "never_panics"] {
        let verdict = support::judge(&TowerBackoff, &case, law);
        assert!(!matches!(verdict, Verdict::Violated(_)), "{law}: {verdict}");
    }
}
