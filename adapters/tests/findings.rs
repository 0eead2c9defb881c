//! Every finding of docs/findings.md as its minimal case: the law is violated there, and holds on the
//! neighbouring case where the crate keeps its documented promise.

mod support;

use std::time::Duration;

use timelaw_adapters::backon::{
    BackonBuilder, BackonConstant, BackonConstantConfig, BackonExponential, BackonExponentialConfig, BackonFibonacci,
    BackonFibonacciConfig, BackonRetry, BackonRetryConfig,
};
use timelaw_adapters::exponential_backoff::{ExponentialBackoffConfig, ExponentialBackoffSubject};
use timelaw_adapters::tokio_retry2::{
    FixedStrategy, LinearStrategy, Strategy, TokioRetry2Retry, TokioRetry2RetryConfig,
};
use timelaw_adapters::tokio_timeout_loop::{TokioTimeoutLoop, TokioTimeoutLoopConfig};
use timelaw_adapters::tower::{TowerBackoff, TowerBackoffConfig, TowerBudget, TowerBudgetConfig};
use timelaw_adapters::{F32, F64};
use timelaw_core::{execute, CallScript, Case, Outcome, Schedule, Step, Subject, VDuration};
use timelaw_laws::Verdict;

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

fn failures(count: usize) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); count])
}

/// What a law says on a case.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// The law holds (or is vacuous) where the crate keeps its promise.
    Holds,
    /// The law blames the event with this index, of this kind (its `EventKind` variant).
    ViolatedAt(u32, &'static str),
}

use Expect::{Holds, ViolatedAt};

/// `law` on the case `(config, schedule, seed 0)`: holds, or blames the event the finding names.
#[track_caller]
fn check<S: Subject>(subject: &S, config: S::Config, schedule: Schedule, law: &str, expect: Expect) {
    let name = subject.name();
    let case = Case::new(config, schedule, 0);
    let verdict = support::judge(subject, &case, law);
    match (expect, &verdict) {
        (Holds, Verdict::Holds | Verdict::Vacuous) => {}
        (ViolatedAt(index, kind), Verdict::Violated(violation)) => {
            assert_eq!(violation.event, Some(index), "{name} {law}: {verdict}");
            let trace = execute(subject, &case.config, &case.schedule, case.seed);
            let event = &trace.events[index as usize];
            assert!(format!("{:?}", event.kind).starts_with(kind), "{name} {law}: blames {event:?}, not a {kind}");
        }
        _ => panic!("{name} {law}: expected {expect:?}, got {verdict}"),
    }
}

fn backon_exponential(max_delay: VDuration) -> BackonExponentialConfig {
    BackonExponentialConfig { max_delay: Some(max_delay.to_std()), ..BackonExponentialConfig::default() }
}

#[test]
fn backon_first_delay_ignores_a_cap_below_min_delay() {
    // The default min_delay (1 s) is slept although max_delay is 500 ms.
    check(
        &BackonExponential,
        backon_exponential(ms(500)),
        failures(1),
        "delay_within_cap",
        ViolatedAt(3, "SleepRequested"),
    );
    check(&BackonExponential, backon_exponential(ms(2000)), failures(3), "delay_within_cap", Holds);
    let retry = |max| BackonRetryConfig { backoff: BackonBuilder::Exponential(backon_exponential(max)), notify: true };
    check(&BackonRetry, retry(ms(500)), failures(1), "delay_within_cap", ViolatedAt(4, "SleepRequested"));
    check(&BackonRetry, retry(ms(2000)), failures(3), "notify_matches_sleep", Holds);
}

#[test]
fn backon_fibonacci_overshoots_its_cap_once() {
    let fibonacci = |max: VDuration| BackonFibonacciConfig {
        jitter: false,
        min_delay: ms(1000).to_std(),
        max_delay: Some(max.to_std()),
        max_times: Some(3),
    };
    // 1 s, 1 s, then 1 s + 1 s = 2 s although max_delay is 1.5 s.
    check(&BackonFibonacci, fibonacci(ms(1500)), failures(3), "delay_within_cap", ViolatedAt(9, "SleepRequested"));
    check(&BackonFibonacci, fibonacci(ms(2000)), failures(3), "delay_within_cap", Holds);
}

#[test]
fn backon_exponential_stalls_at_a_few_nanoseconds() {
    let stall = |min_delay: Duration| BackonExponentialConfig {
        jitter: false,
        factor: F32(1.5),
        min_delay,
        max_delay: None,
        max_times: Some(12),
        total_delay: None,
    };
    // `Duration::mul_f32` cuts 1.5 ns back to 1 ns at every retry: the 12th delay is 1 ns, not 86.5 ns.
    let twelve = Schedule::single(vec![Step::instant(Outcome::Transient).repeated(12)]);
    check(
        &BackonExponential,
        stall(Duration::from_nanos(1)),
        twelve.clone(),
        "backoff_shape_without_jitter",
        ViolatedAt(36, "SleepRequested"),
    );
    // From 1 ms the nanoseconds cut are within the float tolerance.
    check(&BackonExponential, stall(Duration::from_millis(1)), twelve, "backoff_shape_without_jitter", Holds);
}

#[test]
fn backon_total_delay_overflows_without_a_cap() {
    let huge = |max_delay: Option<VDuration>| BackonExponentialConfig {
        factor: F32(1e30),
        max_delay: max_delay.map(VDuration::to_std),
        total_delay: Some(ms(5000).to_std()),
        ..BackonExponentialConfig::default()
    };
    // The second delay saturates to Duration::MAX and `cumulative + delay` panics.
    check(&BackonExponential, huge(None), failures(2), "never_panics", ViolatedAt(6, "Panic"));
    check(&BackonExponential, huge(Some(ms(60_000))), failures(2), "never_panics", Holds);
}

fn exponential(
    max_attempts: u32,
    min: VDuration,
    max: Option<VDuration>,
    jitter_milli: u32,
    factor: u32,
) -> ExponentialBackoffConfig {
    ExponentialBackoffConfig { max_attempts, min: min.to_std(), max: max.map(VDuration::to_std), jitter_milli, factor }
}

#[test]
fn exponential_backoff_panics_on_accepted_settings() {
    // min above max: `clamp` panics on the first `next()`, before any attempt.
    check(
        &ExponentialBackoffSubject,
        exponential(2, ms(2000), Some(ms(1000)), 0, 2),
        failures(0),
        "never_panics",
        ViolatedAt(1, "Panic"),
    );
    check(
        &ExponentialBackoffSubject,
        exponential(2, ms(1000), Some(ms(1000)), 0, 2),
        failures(0),
        "never_panics",
        Holds,
    );
    // A jitter below 1% (accepted by `set_jitter`) asks fastrand for a number in 0..0.
    check(
        &ExponentialBackoffSubject,
        exponential(2, ms(100), Some(ms(10_000)), 5, 2),
        failures(0),
        "never_panics",
        ViolatedAt(1, "Panic"),
    );
    check(
        &ExponentialBackoffSubject,
        exponential(2, ms(100), Some(ms(10_000)), 10, 2),
        failures(0),
        "never_panics",
        Holds,
    );
}

#[test]
fn exponential_backoff_stops_growing_at_u32_max() {
    // 1 ns, 100 us, then 10 s is due but `factor.saturating_pow(2)` stops at u32::MAX: 4.294967295 s.
    let tiny = VDuration::from_nanos(1);
    let law = "backoff_shape_without_jitter";
    check(
        &ExponentialBackoffSubject,
        exponential(4, tiny, None, 0, 100_000),
        failures(3),
        law,
        ViolatedAt(9, "SleepRequested"),
    );
    check(&ExponentialBackoffSubject, exponential(4, tiny, None, 0, 1000), failures(3), law, Holds);
}

fn tokio_retry2(interval: VDuration, notify: bool, retry_after: bool) -> TokioRetry2RetryConfig {
    TokioRetry2RetryConfig {
        strategy: Strategy::Fixed(FixedStrategy { interval: interval.to_std(), take: Some(3) }),
        notify,
        retry_after,
        max_duration: None,
        jitter: false,
    }
}

#[test]
fn tokio_retry2_sleeps_the_strategy_not_the_retry_after() {
    let limited = |retry_after| Schedule::single(vec![Step::instant(Outcome::RateLimited { retry_after })]);
    // `RetryError::retry_after(e, 1 s)`, yet the retry comes after the strategy's 10 ms.
    check(
        &TokioRetry2Retry,
        tokio_retry2(ms(10), false, true),
        limited(ms(1000)),
        "retry_after_honored",
        ViolatedAt(4, "AttemptStart"),
    );
    check(&TokioRetry2Retry, tokio_retry2(ms(10), false, true), limited(ms(5)), "retry_after_honored", Holds);
}

#[test]
fn tokio_retry2_notifies_the_previous_delay() {
    // notify(err, 0 ms), then a 10 ms sleep; only a strategy of zero delays matches its notifications.
    check(
        &TokioRetry2Retry,
        tokio_retry2(ms(10), true, false),
        failures(1),
        "notify_matches_sleep",
        ViolatedAt(4, "SleepRequested"),
    );
    check(&TokioRetry2Retry, tokio_retry2(VDuration::ZERO, true, false), failures(1), "notify_matches_sleep", Holds);
}

#[test]
fn tower_budget_rounds_the_ratio_up() {
    let budget =
        |ratio| TowerBudgetConfig { ttl: VDuration::from_secs(1).to_std(), min_per_sec: 0, retry_percent: F32(ratio) };
    let ok = CallScript::outcomes(&[Outcome::Ok]);
    let schedule = Schedule::new(vec![ok.clone(), ok, CallScript::outcomes(&[Outcome::Transient; 3])]);
    // 0.6 retries per deposit: two deposits allow 1.2 retries, tower grants one per deposit.
    check(&TowerBudget, budget(0.6), schedule.clone(), "retry_budget_respected", ViolatedAt(13, "AttemptStart"));
    check(&TowerBudget, budget(0.5), schedule, "retry_budget_respected", Holds);
}

fn timeout_loop(attempt_timeout: VDuration, delay: VDuration, deadline: Option<VDuration>) -> TokioTimeoutLoopConfig {
    TokioTimeoutLoopConfig { max_attempts: 2, attempt_timeout, delay, deadline }
}

/// The tokio loop promising exact timers and an exact deadline tie: the contract it stated before
/// `timing.timer_granularity` and `timing.deadline_tie` could say what tokio documents.
struct ExactTokioLoop;

impl Subject for ExactTokioLoop {
    type Config = TokioTimeoutLoopConfig;
    fn name(&self) -> &str {
        "tokio-timeout-loop-as-exact"
    }
    fn contract(&self, config: &TokioTimeoutLoopConfig) -> timelaw_core::Contract {
        let mut contract = TokioTimeoutLoop.contract(config);
        contract.timing.timer_granularity = VDuration::ZERO;
        contract.timing.deadline_tie = timelaw_core::TieRule::Expired;
        contract
    }
    fn run(
        &self,
        config: &TokioTimeoutLoopConfig,
        world: &mut timelaw_core::World<'_>,
    ) -> Result<(), timelaw_core::Abort> {
        TokioTimeoutLoop.run(config, world)
    }
}

/// Two of the former tokio findings were this mismatch: tokio documents a 1 ms timer granularity and a
/// timeout that polls its future first, and the contract now states both. Judged as exact, the old
/// violations come back; judged by its contract, tokio holds.
#[test]
fn tokio_starts_an_attempt_at_its_deadline_as_documented() {
    let schedule = Schedule::single(vec![Step::new(ms(10), Outcome::Transient)]);
    let law = "deadline_respected";
    let at_deadline = timeout_loop(ms(1000), VDuration::ZERO, Some(ms(10)));
    check(&ExactTokioLoop, at_deadline.clone(), schedule.clone(), law, ViolatedAt(4, "AttemptStart"));
    check(&TokioTimeoutLoop, at_deadline, schedule.clone(), law, Holds);
    check(&TokioTimeoutLoop, timeout_loop(ms(1000), ms(1), Some(ms(10))), schedule, law, Holds);
    // Off the millisecond grid: the 932ms deadline from 1 ns fires on the 933ms tick, 1 ms late.
    let mut off_grid = Schedule::single(vec![Step::new(ms(136), Outcome::Transient)]);
    off_grid.calls[0].gap_before = VDuration::from_nanos(1);
    let late = timeout_loop(ms(1560), ms(796), Some(ms(932)));
    check(&ExactTokioLoop, late.clone(), off_grid.clone(), law, ViolatedAt(4, "CallEnd"));
    check(&TokioTimeoutLoop, late, off_grid, law, Holds);
}

#[test]
fn tokio_timeout_cannot_tell_apart_two_instants_in_one_millisecond() {
    // Started 0.5 ms into the run, a 10 ms + 1 ns attempt and its 10 ms timeout fall due on the same
    // tick: the attempt's fatal result wins although it came 1 ns late. Within the stated granularity
    // either may come first, so the law does not judge the call.
    let mut schedule =
        Schedule::single(vec![Step::new(ms(10).saturating_add(VDuration::from_nanos(1)), Outcome::Fatal)]);
    schedule.calls[0].gap_before = VDuration::from_micros(500);
    let config = timeout_loop(ms(10), VDuration::ZERO, None);
    check(&ExactTokioLoop, config.clone(), schedule.clone(), "eventually_succeeds", ViolatedAt(3, "CallEnd"));
    check(&TokioTimeoutLoop, config.clone(), schedule.clone(), "eventually_succeeds", Holds);
    schedule.calls[0].gap_before = VDuration::ZERO;
    check(&TokioTimeoutLoop, config, schedule, "eventually_succeeds", Holds);
}

#[test]
fn tower_jitter_on_a_huge_min_overflows_duration_new() {
    // Seconds past 2^64 / jitter saturate at u64::MAX, and the jittered nanoseconds carry a second more.
    let huge = |jitter| TowerBackoffConfig {
        min: std::time::Duration::new(u64::MAX / 2, 999_999_999),
        max: Some(std::time::Duration::MAX),
        jitter: F64(jitter),
        max_retries: 3,
    };
    check(&TowerBackoff, huge(97.782), failures(1), "never_panics", ViolatedAt(3, "Panic"));
    check(&TowerBackoff, huge(0.5), failures(1), "never_panics", Holds);
}

#[test]
fn tokio_retry2_retry_panics_on_a_delay_past_the_instant_range() {
    let linear = |initial| TokioRetry2RetryConfig {
        strategy: Strategy::Linear(LinearStrategy { initial, increment: None, max_delay: None, take: Some(3) }),
        notify: false,
        retry_after: false,
        max_duration: None,
        jitter: false,
    };
    // `Instant::now() + duration` in `RetryIf::retry`: past i64::MAX seconds the monotonic clock overflows.
    let past = std::time::Duration::new(i64::MAX as u64, 500_000_000);
    check(&TokioRetry2Retry, linear(past), failures(1), "never_panics", ViolatedAt(3, "Panic"));
    check(&TokioRetry2Retry, linear(std::time::Duration::MAX), failures(1), "never_panics", ViolatedAt(3, "Panic"));
    check(&TokioRetry2Retry, linear(std::time::Duration::from_secs(1 << 40)), failures(1), "never_panics", Holds);
}

#[test]
fn backon_jitter_on_a_huge_delay_overflows() {
    // `delay + delay.mul_f32(rng)` and `next += ...`: plain additions past `Duration::MAX`.
    let huge = std::time::Duration::new(u64::MAX, 999_000_000);
    let fine = std::time::Duration::from_secs(1 << 62);
    let constant = |delay| BackonConstantConfig { delay, max_times: Some(3), jitter: true };
    check(&BackonConstant, constant(huge), failures(1), "never_panics", ViolatedAt(3, "Panic"));
    check(&BackonConstant, constant(fine), failures(1), "never_panics", Holds);
    let fibonacci = |min_delay| BackonFibonacciConfig {
        jitter: true,
        min_delay,
        max_delay: Some(std::time::Duration::from_millis(1)),
        max_times: Some(3),
    };
    check(&BackonFibonacci, fibonacci(huge), failures(1), "never_panics", ViolatedAt(3, "Panic"));
    check(&BackonFibonacci, fibonacci(fine), failures(1), "never_panics", Holds);
}

#[test]
fn tower_backoff_stops_doubling_after_32_backoffs() {
    let config =
        TowerBackoffConfig { min: std::time::Duration::from_millis(1), max: None, jitter: F64(0.0), max_retries: 40 };
    // Sleep 33 is 1 ms * (2^32 - 1): `2_u32.saturating_pow(32)` is `u32::MAX`.
    let law = "backoff_shape_without_jitter";
    check(&TowerBackoff, config.clone(), failures(33), law, ViolatedAt(99, "SleepRequested"));
    check(&TowerBackoff, config, failures(32), law, Holds);
}

fn rate_limited_once(retry_after: VDuration) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::RateLimited { retry_after }), Step::instant(Outcome::Ok)])
}

#[test]
fn tokio_retry2_retry_after_does_not_replace_the_strategy_delay() {
    // "else after the specified duration": the declared `ReplacesBackoff` wants 1 s; the strategy's 10 ms is slept.
    let config = tokio_retry2(ms(10), false, true);
    let law = "retry_after_as_declared";
    check(&TokioRetry2Retry, config.clone(), rate_limited_once(ms(1000)), law, ViolatedAt(3, "SleepRequested"));
    check(&TokioRetry2Retry, config, rate_limited_once(ms(10)), law, Holds);
}

#[test]
fn backon_retry_after_laws_meet_the_cap_below_min_delay() {
    let retry = |max: VDuration, total: Option<VDuration>| BackonRetryConfig {
        backoff: BackonBuilder::Exponential(BackonExponentialConfig {
            total_delay: total.map(VDuration::to_std),
            ..backon_exponential(max)
        }),
        notify: true,
    };
    // Without `adjust` the backoff's delay is slept; it should lie under the 500 ms cap, and is 1 s.
    let law = "retry_after_as_declared";
    check(&BackonRetry, retry(ms(500), None), rate_limited_once(ms(0)), law, ViolatedAt(4, "SleepRequested"));
    check(&BackonRetry, retry(ms(2000), None), rate_limited_once(ms(0)), law, Holds);
    // A 500 ms capped delay fits a total_delay of 800 ms, yet the 1 s first delay does not: backon gives up.
    let law = "rate_limited_retried_below_cap";
    check(&BackonRetry, retry(ms(500), Some(ms(800))), rate_limited_once(ms(0)), law, ViolatedAt(3, "CallEnd"));
    check(&BackonRetry, retry(ms(2000), Some(ms(1500))), rate_limited_once(ms(0)), law, Holds);
}
