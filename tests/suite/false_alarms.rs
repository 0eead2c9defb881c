//! No false alarms: correct subjects that sit exactly on the boundaries where the laws' references used
//! to be wrong, and correct subjects for every policy the contract vocabulary states, checked against the
//! whole catalogue with zero violations and every case judged. CI runs `CASES_DEFAULT` cases per subject;
//! `TIMELAW_FALSE_ALARM_CASES=100000` runs the 100,000 of docs/findings.md ("False alarms").
//!
//! - `float-exponential`: an exponential backoff computed the way crates do it, in `f64` from a float
//!   factor (600.497, 3.032, factors below 1, 1e30), from starts of 1 ns up to starts past 584 years;
//! - `decorrelated-capped`: AWS decorrelated jitter `min(cap, random(base, previous * 3))` with the cap
//!   often below the base;
//! - `token-bucket`: a rate limiter's caller that polls for a token in short waits (up to 5,010 waits for
//!   5 calls, as in the issue);
//! - `reference-retry-after`: the reference under each retry-after policy (the longer of the backoff and
//!   the retry-after, or the retry-after replacing it; giving up, clamping or sleeping anyway above the
//!   cap), every config's rate limits read;
//! - `reference-circuit`: the reference with a breaker of each circuit policy (count window, consecutive
//!   failures, time window), with every open shape, cooldown tie and cancellation reading drawn;
//! - `coarse-timers`: a tokio-like loop whose every timer fires on a coarse tick (1 µs, 1 ms or 1 s) and
//!   whose contract states that granularity, with either timeout tie rule, a deadline around the loop and
//!   an elapsed-time limit;
//! - `reference-extremes`: the reference at the extremes of its domain (zero, 1 ns and `VDuration::MAX`
//!   for every duration, 1 and 100 attempts, factor 16, the widest breaker and budget);
//!
//! plus the cases of the issues, judged by the whole catalogue one by one.

use std::time::Duration;

use proptest::strategy::BoxedStrategy;
use serde::{Deserialize, Serialize};
use timelaw::core::{
    execute, Abort, AboveCap, AttemptResult, BackoffShape, CallResult, CircuitContract, CircuitPolicy, Contract,
    CooldownTie, DelayContract, ErrorKind, FloatFactor, HalfOpenEntry, JitterBounds, LateResults, LimitBound,
    OpenShape, Outcome, RetryAfterCombine, RetryAfterPolicy, RetryContract, RetryOn, Schedule, SplitMix64, Step,
    Subject, TieRule, TimingContract, VDuration, VInstant, Wake, World,
};
use timelaw::generators::{choice_strategy, Choices, ConfigDomain, Describe, Swarm};
use timelaw::laws::{Catalogue, Observation, Verdict};
use timelaw::reference::{Policy, Reference};

/// Cases per subject in CI (`TIMELAW_FALSE_ALARM_CASES` overrides it).
const CASES_DEFAULT: u64 = 10_000;

fn cases() -> u64 {
    match std::env::var("TIMELAW_FALSE_ALARM_CASES") {
        Ok(text) => text.parse().unwrap_or_else(|_| panic!("TIMELAW_FALSE_ALARM_CASES={text}: not a count")),
        Err(_) => CASES_DEFAULT,
    }
}

/// Retries transient errors only; nothing else is promised about outcomes.
const TRANSIENT_ONLY: RetryOn = RetryOn { transient: true, rate_limited: false, timeout: false };

/// One call of a plain retry loop: up to `max_attempts` attempts, `delay(n)` before retry `n`.
fn retry_call(
    world: &mut World<'_>,
    max_attempts: u32,
    mut delay: impl FnMut(&mut World<'_>, u32) -> Result<VDuration, Abort>,
) -> Result<CallResult, Abort> {
    let mut attempt = 1;
    loop {
        let outcome = match world.dispatch()? {
            AttemptResult::Completed(outcome) => outcome,
            AttemptResult::TimedOut => return Ok(CallResult::Err(ErrorKind::Timeout)),
            AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
        };
        if outcome != Outcome::Transient || attempt >= max_attempts {
            return Ok(CallResult::from_outcome(outcome));
        }
        let pause = delay(world, attempt)?;
        if world.sleep(pause)? == Wake::Cancelled {
            return Ok(CallResult::Err(ErrorKind::Cancelled));
        }
        attempt += 1;
    }
}

/// Settings of [`FloatExponential`]: the start as a `Duration` (it may lie past 584 years), the factor as
/// an `f64` (by its bits, so the config is `Eq`), the attempts and an optional cap.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct FloatConfig {
    initial: Duration,
    factor_bits: u64,
    max_attempts: u32,
    cap: Option<Duration>,
}

/// A crate-like exponential backoff: `initial * factor^(n-1)` computed in `f64` seconds, converted with
/// `Duration::try_from_secs_f64` (saturating at `Duration::MAX`), then capped.
struct FloatExponential;

impl FloatExponential {
    fn delay(config: &FloatConfig, retry: u32) -> Duration {
        let factor = f64::from_bits(config.factor_bits);
        let secs = config.initial.as_secs_f64() * factor.powi(retry.saturating_sub(1) as i32);
        let delay = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
        config.cap.map_or(delay, |cap| delay.min(cap))
    }
}

impl Subject for FloatExponential {
    type Config = FloatConfig;
    fn name(&self) -> &str {
        "float-exponential"
    }
    /// The exact promise from the float factor as the subject holds it; the tolerance is for `f64`
    /// arithmetic (a few roundings of 2^-53 per delay, far below 1 ppb) and the conversion to whole
    /// nanoseconds (1 ns).
    fn contract(&self, config: &FloatConfig) -> Contract {
        Contract {
            retry: RetryContract {
                max_attempts: Some(config.max_attempts),
                retry_on: Some(TRANSIENT_ONLY),
                reports_last_result: true,
                ..RetryContract::default()
            },
            delays: DelayContract {
                max: config.cap.map(VDuration::from_std),
                backoff: Some(BackoffShape::ExponentialFloat {
                    initial_nanos: config.initial.as_nanos(),
                    factor: FloatFactor(f64::from_bits(config.factor_bits)),
                }),
                jitter: Some(JitterBounds::None),
                tolerance: VDuration::from_nanos(1),
                tolerance_ppb: 1,
                ..DelayContract::default()
            },
            ..Contract::default()
        }
    }
    fn run(&self, config: &FloatConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            retry_call(world, config.max_attempts, |_, retry| Ok(VDuration::from_std(Self::delay(config, retry))))
        })
    }
}

const FACTORS: [f64; 14] =
    [600.497, 3.032, 0.5, 0.25, 0.999, 1.5, 2.0, 1.000_000_1, 10.0, 1e30, 0.1, 1.001, 1.0, 0.000_1];

fn describe_float<C: Choices + ?Sized>(c: &mut C) -> FloatConfig {
    let initial = match c.weighted(&[2, 3, 3, 2]) {
        0 => Duration::from_nanos(1),
        1 => Duration::from_nanos(c.between(0, 1_000_000_000)),
        2 => Duration::from_nanos(c.between(0, u64::MAX)), // Up to 584 years.
        _ => Duration::from_secs(c.between(0, u64::MAX)),  // Far past 584 years.
    };
    let factor = FACTORS[c.pick(FACTORS.len() as u64) as usize];
    let max_attempts = 1 + c.pick(12) as u32;
    let cap = match c.weighted(&[2, 1, 1]) {
        0 => None,
        1 => Some(Duration::from_nanos(c.between(0, 10_000_000_000))),
        _ => Some(Duration::from_nanos(c.between(0, u64::MAX))),
    };
    FloatConfig { initial, factor_bits: factor.to_bits(), max_attempts, cap }
}

/// Settings of [`DecorrelatedCapped`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct DecorrelatedConfig {
    base: VDuration,
    cap: VDuration,
    max_attempts: u32,
}

/// AWS decorrelated jitter as published: `sleep = min(cap, random_between(base, sleep * 3))`, the first
/// `sleep` being `base`. With the cap below the base every delay is the cap.
struct DecorrelatedCapped;

impl Subject for DecorrelatedCapped {
    type Config = DecorrelatedConfig;
    fn name(&self) -> &str {
        "decorrelated-capped"
    }
    fn contract(&self, config: &DecorrelatedConfig) -> Contract {
        Contract {
            retry: RetryContract {
                max_attempts: Some(config.max_attempts),
                retry_on: Some(TRANSIENT_ONLY),
                reports_last_result: true,
                ..RetryContract::default()
            },
            delays: DelayContract {
                max: Some(config.cap),
                backoff: Some(BackoffShape::decorrelated(config.base)),
                jitter: Some(JitterBounds::None),
                ..DelayContract::default()
            },
            ..Contract::default()
        }
    }
    fn run(&self, config: &DecorrelatedConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let (base, cap) = (config.base.as_nanos(), config.cap.as_nanos());
        world.for_each_call(|world, _| {
            let mut sleep = base;
            retry_call(world, config.max_attempts, |world, _| {
                let high = sleep.saturating_mul(3).max(base);
                sleep = cap.min(world.random_between(base, high)?);
                Ok(VDuration::from_nanos(sleep))
            })
        })
    }
}

fn describe_decorrelated<C: Choices + ?Sized>(c: &mut C) -> DecorrelatedConfig {
    let base = c.duration_between(VDuration::ZERO, VDuration::from_secs(1));
    let cap = match c.weighted(&[1, 1, 1]) {
        0 => c.duration_between(VDuration::ZERO, base), // At or below the base.
        1 => c.duration_between(base, base.saturating_mul(20)),
        _ => VDuration::MAX,
    };
    DecorrelatedConfig { base, cap, max_attempts: 1 + c.pick(12) as u32 }
}

/// Settings of [`TokenBucket`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct BucketConfig {
    refill: VDuration,
    poll: VDuration,
    burst: u32,
}

/// A rate limiter's caller: a token bucket of `burst` tokens (starting empty) refilled by one token
/// every `refill`; each call polls every `poll` until a token is there, then makes one attempt. With a
/// refill of 1,002 ms and a poll of 1 ms, five calls wait 5,010 times: long, but finite.
struct TokenBucket;

impl Subject for TokenBucket {
    type Config = BucketConfig;
    fn name(&self) -> &str {
        "token-bucket"
    }
    fn contract(&self, _: &BucketConfig) -> Contract {
        Contract {
            retry: RetryContract {
                max_attempts: Some(1),
                retry_on: Some(RetryOn { transient: false, rate_limited: false, timeout: false }),
                reports_last_result: true,
                ..RetryContract::default()
            },
            ..Contract::default()
        }
    }
    fn run(&self, config: &BucketConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let refill = config.refill.as_nanos().max(1);
        let (mut tokens, mut refilled_at) = (0_u64, world.now());
        world.for_each_call(|world, _| {
            loop {
                let periods = world.now().duration_since(refilled_at).as_nanos() / refill;
                refilled_at = refilled_at.saturating_add(VDuration::from_nanos(periods.saturating_mul(refill)));
                tokens = tokens.saturating_add(periods).min(u64::from(config.burst.max(1)));
                if tokens > 0 {
                    break;
                }
                if world.sleep(config.poll)? == Wake::Cancelled {
                    return Ok(CallResult::Err(ErrorKind::Cancelled));
                }
            }
            tokens -= 1;
            Ok(match world.dispatch()? {
                AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
                AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
                AttemptResult::Cancelled => CallResult::Err(ErrorKind::Cancelled),
            })
        })
    }
}

fn describe_bucket<C: Choices + ?Sized>(c: &mut C) -> BucketConfig {
    let poll = c.duration_between(VDuration::from_micros(1), VDuration::from_millis(10));
    // Waits per token: a few, or (rarely) a thousand like the issue's rate limiter.
    let waits = match c.weighted(&[60, 1]) {
        0 => c.between(1, 8),
        _ => c.between(900, 1002),
    };
    BucketConfig { refill: poll.saturating_mul(waits), poll, burst: 1 + c.pick(3) as u32 }
}

/// [`ConfigDomain`] for a subject from one description over [`Choices`].
macro_rules! domain {
    ($subject:ty, $describe:ident) => {
        impl ConfigDomain for $subject {
            fn sample_config(&self, rng: &mut SplitMix64, _: &Swarm) -> <$subject as Subject>::Config {
                $describe(rng)
            }
            fn config_strategy(&self) -> BoxedStrategy<<$subject as Subject>::Config> {
                choice_strategy(|tape| $describe(tape))
            }
            fn arbitrary_config(&self, bytes: &mut arbitrary::Unstructured<'_>) -> <$subject as Subject>::Config {
                $describe(bytes)
            }
            fn shrink_config(&self, _: &<$subject as Subject>::Config) -> Vec<<$subject as Subject>::Config> {
                Vec::new()
            }
        }
    };
}

domain!(FloatExponential, describe_float);
domain!(DecorrelatedCapped, describe_decorrelated);
domain!(TokenBucket, describe_bucket);

/// Checks `subject` against the whole catalogue; no law may be violated, and `applied` must have held
/// on some cases (the boundary was reached, not skipped).
#[track_caller]
fn check_catalogue<S: ConfigDomain>(subject: &S, applied: &[&str]) {
    let cases = cases();
    let output = timelaw::check(subject).cases(cases).env(false).run();
    assert!(output.judged(), "{}", output.failure_message());
    for law in &output.laws {
        assert_eq!(
            law.counts.violated,
            0,
            "{}: {:?}",
            law.law.id,
            law.counterexamples.first().map(|c| (&c.shrunk, &c.violation))
        );
    }
    for id in applied {
        let law = output.laws.iter().find(|law| law.law.id == *id).expect("a law of the catalogue");
        // One case in a hundred: the boundary is reached, with overlapping calls in half the batches.
        assert!(law.counts.holds > cases / 100, "{id} held on only {} cases", law.counts.holds);
    }
}

#[test]
fn float_exponential_has_no_false_alarm() {
    check_catalogue(&FloatExponential, &["backoff_shape_without_jitter", "delay_within_cap"]);
}

#[test]
fn decorrelated_capped_has_no_false_alarm() {
    check_catalogue(&DecorrelatedCapped, &["jitter_within_bounds", "delay_within_cap"]);
}

#[test]
fn token_bucket_has_no_false_alarm() {
    check_catalogue(&TokenBucket, &["terminates", "attempts_within_max"]);
}

/// Judges one case by every law of the catalogue and returns the violations.
fn violations<S: Subject>(subject: &S, config: &S::Config, schedule: &Schedule) -> Vec<(String, String)> {
    let trace = execute(subject, config, schedule, 0);
    let contract = subject.contract(config);
    let observation = Observation::single_run(schedule, 0, &contract, &trace);
    let catalogue = Catalogue::standard();
    let verdicts = catalogue.laws().iter().map(|law| (law.id.to_owned(), law.judge(&observation)));
    verdicts
        .filter_map(|(id, verdict)| match verdict {
            Verdict::Violated(violation) => Some((id, violation.message.to_string())),
            _ => None,
        })
        .collect()
}

#[track_caller]
fn check_case<S: Subject>(subject: &S, config: S::Config, schedule: Schedule, expect: &[(&str, &str)]) {
    let found = violations(subject, &config, &schedule);
    let found: Vec<(&str, &str)> = found.iter().map(|(id, message)| (id.as_str(), message.as_str())).collect();
    assert_eq!(found, expect, "{config:?}");
}

fn transient(count: usize) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); count])
}

fn float(initial: Duration, factor: f64, max_attempts: u32) -> FloatConfig {
    FloatConfig { initial, factor_bits: factor.to_bits(), max_attempts, cap: None }
}

#[test]
fn the_issues_cases_no_longer_fire() {
    let ns = Duration::from_nanos;
    // 1 ns by 600.497: the exact third delay is 360,596.6 ns (the old reference said 360,298 ns).
    check_case(&FloatExponential, float(ns(1), 600.497, 4), transient(4), &[]);
    // 1 ns by 3.032: the exact sixth delay is 256.2 ns (the old reference said 245 ns).
    check_case(&FloatExponential, float(ns(1), 3.032, 7), transient(7), &[]);
    // Decorrelated jitter clipped at a cap below the base sleeps the cap.
    let clipped =
        DecorrelatedConfig { base: VDuration::from_millis(100), cap: VDuration::from_millis(40), max_attempts: 4 };
    check_case(&DecorrelatedCapped, clipped, transient(4), &[]);
    // A start past 584 years with a factor below 1 comes back into range (2^70 ns / 4^4 = 2^62 ns).
    let huge = float(ns(1 << 40).saturating_mul(1 << 30), 0.25, 6);
    assert!(FloatExponential::delay(&huge, 4) > ns(u64::MAX) && FloatExponential::delay(&huge, 5) < ns(u64::MAX));
    let capped = FloatConfig { cap: Some(Duration::from_secs(1)), ..huge.clone() };
    check_case(&FloatExponential, capped, transient(6), &[]);
    // The World stops the uncapped run at its 100-year virtual time limit: inconclusive, not a violation.
    check_case(&FloatExponential, huge, transient(6), &[]);
    // The rate limiter: 5 calls need 5,010 waits of 1 ms.
    let bucket = BucketConfig { refill: VDuration::from_millis(1002), poll: VDuration::from_millis(1), burst: 5 };
    let calls = Schedule::new(vec![timelaw::core::CallScript::new(vec![Step::instant(Outcome::Ok)]); 5]);
    let trace = execute(&TokenBucket, &bucket, &calls, 0);
    let waits =
        trace.events.iter().filter(|event| matches!(event.kind, timelaw::core::EventKind::SleepRequested { .. }));
    assert_eq!(waits.count(), 5010);
    check_case(&TokenBucket, bucket, calls, &[]);
}

#[test]
fn a_drifting_reference_still_fires() {
    // The subject that drifts like the old reference (whole nanoseconds after every step) is caught.
    struct Drifting;
    impl Subject for Drifting {
        type Config = FloatConfig;
        fn name(&self) -> &str {
            "drifting"
        }
        fn contract(&self, config: &FloatConfig) -> Contract {
            FloatExponential.contract(config)
        }
        fn run(&self, config: &FloatConfig, world: &mut World<'_>) -> Result<(), Abort> {
            let factor = f64::from_bits(config.factor_bits);
            world.for_each_call(|world, _| {
                let mut nanos = config.initial.as_nanos() as f64;
                retry_call(world, config.max_attempts, |_, retry| {
                    if retry > 1 {
                        nanos = (nanos * factor).floor();
                    }
                    Ok(VDuration::from_nanos(nanos as u64))
                })
            })
        }
    }
    let message = "sleep 5 of the call was 81ns, expected 84ns..=85ns";
    check_case(
        &Drifting,
        float(Duration::from_nanos(1), 3.032, 7),
        transient(7),
        &[("backoff_shape_without_jitter", message)],
    );
}

/// The reference interpreter with every drawn policy edited by `edit` from four extra answers (drawn after
/// the policy, so the policy's own answers keep their meaning): one subject per policy of the vocabulary.
#[derive(Clone)]
struct Pinned {
    name: &'static str,
    edit: fn(&mut Policy, [u64; 4]),
}

impl Subject for Pinned {
    type Config = Policy;
    fn name(&self) -> &str {
        self.name
    }
    fn contract(&self, policy: &Policy) -> Contract {
        Reference.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        Reference.run(policy, world)
    }
}

impl Describe for Pinned {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Policy {
        let mut policy = timelaw::generators::describe_policy(c, swarm);
        let answers = [c.pick(8), c.pick(8), c.pick(8), c.pick(8)];
        (self.edit)(&mut policy, answers);
        debug_assert_eq!(policy.validate(), Ok(()));
        policy
    }
    fn outside(&self, policy: &Policy) -> Option<String> {
        policy.validate().err().map(|error| error.to_string())
    }
}

/// The reference honouring every rate limit by `combine` and `above_cap`.
fn retry_after(combine: RetryAfterCombine, above_cap: AboveCap) -> impl Fn(&mut Policy) {
    move |policy: &mut Policy| {
        policy.honor_retry_after = true;
        policy.retry_after_policy = Some(RetryAfterPolicy { combine, above_cap });
        policy.retry_on.rate_limited = true;
    }
}

macro_rules! pinned_retry_after {
    ($name:literal, $combine:ident, $above:ident) => {
        Pinned { name: $name, edit: |policy, _| retry_after(RetryAfterCombine::$combine, AboveCap::$above)(policy) }
    };
}

#[test]
fn every_retry_after_policy_has_no_false_alarm() {
    let subjects = [
        pinned_retry_after!("reference-retry-after-max-give-up", MaxWithBackoff, GiveUp),
        pinned_retry_after!("reference-retry-after-max-clamp", MaxWithBackoff, Clamp),
        pinned_retry_after!("reference-retry-after-max-anyway", MaxWithBackoff, SleepAnyway),
        pinned_retry_after!("reference-retry-after-replaces-give-up", ReplacesBackoff, GiveUp),
        pinned_retry_after!("reference-retry-after-replaces-clamp", ReplacesBackoff, Clamp),
        pinned_retry_after!("reference-retry-after-replaces-anyway", ReplacesBackoff, SleepAnyway),
        Pinned {
            name: "reference-retry-after-ignored",
            edit: |policy, _| {
                policy.honor_retry_after = false;
                policy.retry_after_policy = None;
            },
        },
    ];
    for subject in subjects {
        check_catalogue(&subject, &["retry_after_as_declared", "delay_within_cap", "notify_matches_sleep"]);
    }
}

/// A breaker with `policy`, the other refinements from `answers`, forced onto every drawn policy.
fn breaker(policy: &mut Policy, circuit_policy: CircuitPolicy, answers: [u64; 4]) {
    let ms = VDuration::from_millis;
    let drawn = policy.circuit.unwrap_or(CircuitContract {
        window: 4,
        min_calls: 2,
        failure_percent: 50,
        open_for: ms(20),
        half_open_probes: 2,
        ..CircuitContract::DEFAULT
    });
    let open_shape = match answers[0] % 2 {
        0 => OpenShape::Constant,
        _ => OpenShape::Exponential { factor_milli: 2000, max: drawn.open_for.saturating_mul(8) },
    };
    let cooldown_tie = if answers[1] % 2 == 1 { CooldownTie::AdmitsAfterEnd } else { CooldownTie::AdmitsAtEnd };
    policy.circuit = Some(CircuitContract {
        policy: circuit_policy,
        open_shape,
        cooldown_tie,
        counts_cancellation: answers[2] % 2 == 1,
        // One probe success closes it, apart from the probe budget, in one breaker of four.
        closes_after: (answers[0] / 2 % 2 == 1).then_some(1),
        // Late results recorded where they land in one breaker of two, half of those half-open on time.
        late_results: if answers[1] / 2 % 2 == 1 { LateResults::LandingState } else { LateResults::AdmittedState },
        half_open_entry: if answers[2] / 2 % 2 == 1 { HalfOpenEntry::OnTime } else { HalfOpenEntry::OnRequest },
        ..drawn
    });
}

/// An elapsed-time limit of 0 to 1 s (from `answers`), with `bound`, forced onto every drawn policy.
fn elapsed_limit(policy: &mut Policy, answers: [u64; 4], bound: LimitBound) {
    let limit = [0, 1, 10, 20, 100, 1000, 5, 50][answers[0] as usize % 8];
    policy.retry_elapsed_max = Some(VDuration::from_millis(limit));
    policy.retry_elapsed_bound = bound;
}

#[test]
fn both_elapsed_limit_bounds_have_no_false_alarm() {
    let subjects = [
        Pinned { name: "reference-elapsed-inclusive", edit: |p, a| elapsed_limit(p, a, LimitBound::Inclusive) },
        Pinned { name: "reference-elapsed-exclusive", edit: |p, a| elapsed_limit(p, a, LimitBound::Exclusive) },
    ];
    for subject in subjects {
        check_catalogue(&subject, &["no_retry_after_elapsed_limit"]);
    }
}

#[test]
fn every_circuit_policy_has_no_false_alarm() {
    let subjects = [
        Pinned { name: "reference-circuit-count-window", edit: |p, a| breaker(p, CircuitPolicy::CountWindow, a) },
        Pinned {
            name: "reference-circuit-consecutive",
            edit: |p, a| breaker(p, CircuitPolicy::ConsecutiveFailures { threshold: 1 + (a[3] % 4) as u32 }, a),
        },
        Pinned {
            name: "reference-circuit-time-window",
            edit: |p, a| {
                let window = VDuration::from_millis([0, 1, 10, 100, 1000, 5, 50, 500][a[3] as usize % 8]);
                breaker(p, CircuitPolicy::TimeWindow { window }, a)
            },
        },
    ];
    for subject in subjects {
        check_catalogue(&subject, &["circuit_closed_admits", "circuit_open_rejects_without_dispatch"]);
    }
}

/// Settings of [`CoarseTimers`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct CoarseConfig {
    /// Every timer fires on the first multiple of this at or after it is due.
    tick: VDuration,
    max_attempts: u32,
    attempt_timeout: Option<VDuration>,
    timeout_tie: TieRule,
    delay: VDuration,
    deadline: Option<VDuration>,
    retry_elapsed_max: Option<VDuration>,
}

/// A retry loop like a tokio one, with timers as tokio has them: every timer (an attempt's timeout, the
/// deadline around the loop, a sleep's wake-up) due at `t` fires on the first tick at or after `t`
/// ("`Sleep` operates at millisecond granularity"). A tie between an attempt and a timer firing goes by
/// `timeout_tie` for the attempt's timeout and to the attempt for the deadline (`tokio::time::timeout`
/// polls the inner future first). The elapsed-time limit is read from the clock, exactly: a retry is
/// taken when the delay would end by the limit. The contract states the tick as the timer granularity.
struct CoarseTimers;

impl CoarseTimers {
    /// The instant a timer due at `due` fires.
    fn fires(config: &CoarseConfig, due: VInstant) -> VInstant {
        let tick = config.tick.as_nanos().max(1);
        VInstant::from_nanos(due.as_nanos().div_ceil(tick).saturating_mul(tick))
    }

    /// One attempt: its outcome, `None` when the deadline dropped it (the call then ends), or an error
    /// for a cancellation.
    fn attempt(
        config: &CoarseConfig,
        world: &mut World<'_>,
        (call, deadline): (u32, Option<VInstant>),
    ) -> Result<Attempted, Abort> {
        let pending = world.begin_attempt()?;
        let now = world.now();
        let timer = config.attempt_timeout.map(|timeout| Self::fires(config, now.saturating_add(timeout)));
        let done = pending.completes_at.unwrap_or(VInstant::END);
        let timer_wins = timer.is_some_and(|at| match config.timeout_tie {
            TieRule::Expired => at <= done,
            TieRule::InnerWins => at < done,
        });
        let (mut at, mut attempted) = match timer {
            Some(at) if timer_wins => (at, Attempted::TimedOut),
            _ => (done, Attempted::Completed(pending.step.outcome)),
        };
        if let Some(deadline) = deadline.filter(|deadline| *deadline < at) {
            (at, attempted) = (deadline, Attempted::Dropped);
        }
        if let Some(cut) = world.cancel_at().map(|cut| cut.max(now)).filter(|cut| *cut < at) {
            (at, attempted) = (cut, Attempted::Cancelled);
        }
        if at == VInstant::END {
            return Err(Abort::Hung { call, attempt: pending.attempt });
        }
        world.advance_to(at)?;
        match attempted {
            Attempted::Completed(outcome) => {
                world.end_attempt(pending, AttemptResult::Completed(outcome), VDuration::MAX)?
            }
            Attempted::TimedOut => {
                world.end_attempt(pending, AttemptResult::TimedOut, config.attempt_timeout.unwrap_or_default())?
            }
            Attempted::Cancelled => world.end_attempt(pending, AttemptResult::Cancelled, VDuration::MAX)?,
            Attempted::Dropped => world.end_attempt_dropped(pending, at.duration_since(now))?,
        }
        Ok(attempted)
    }

    /// Sleeps `delay` on the tick; `false` when the deadline (the call ends) or a cancellation cut it.
    fn sleep(
        config: &CoarseConfig,
        world: &mut World<'_>,
        delay: VDuration,
        deadline: Option<VInstant>,
    ) -> Result<Woke, Abort> {
        world.notify(delay)?;
        world.begin_sleep(delay)?;
        let now = world.now();
        let wake = Self::fires(config, now.saturating_add(delay));
        // The deadline's timer and the sleep's fire on one tick: the loop inside the timeout runs first.
        if let Some(deadline) = deadline.filter(|deadline| *deadline < wake) {
            if world.cancel_at().is_none_or(|cut| cut.max(now) >= deadline) {
                world.advance_to(deadline)?;
                return Ok(Woke::Deadline);
            }
        }
        if let Some(cut) = world.cancel_at().map(|cut| cut.max(now)).filter(|cut| *cut < wake) {
            world.advance_to(cut)?;
            world.record_sleep_cancelled()?;
            return Ok(Woke::Cancelled);
        }
        world.advance_to(wake)?;
        Ok(Woke::Elapsed)
    }

    fn serve(config: &CoarseConfig, world: &mut World<'_>, call: timelaw::core::CallInfo) -> Result<CallResult, Abort> {
        let deadline = config.deadline.map(|deadline| Self::fires(config, call.started.saturating_add(deadline)));
        let limit = config.retry_elapsed_max.map(|limit| call.started.saturating_add(limit));
        let mut attempt = 1;
        loop {
            if world.is_cancelled() {
                return Ok(CallResult::Err(ErrorKind::Cancelled));
            }
            let error = match Self::attempt(config, world, (call.index, deadline))? {
                Attempted::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                Attempted::Completed(outcome) => CallResult::from_outcome(outcome),
                Attempted::TimedOut => CallResult::Err(ErrorKind::Timeout),
                Attempted::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
                Attempted::Dropped => return Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
            };
            if world.is_cancelled() {
                return Ok(CallResult::Err(ErrorKind::Cancelled));
            }
            let retryable = matches!(error, CallResult::Err(ErrorKind::Transient | ErrorKind::Timeout));
            let late = limit.is_some_and(|limit| world.now().saturating_add(config.delay) > limit);
            if !retryable || attempt >= config.max_attempts || !call.idempotent || late {
                return Ok(error);
            }
            match Self::sleep(config, world, config.delay, deadline)? {
                Woke::Elapsed => {}
                Woke::Deadline => return Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
                Woke::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
            }
            attempt += 1;
        }
    }
}

/// How an attempt of [`CoarseTimers`] ended.
#[derive(Clone, Copy)]
enum Attempted {
    Completed(Outcome),
    TimedOut,
    Cancelled,
    /// The deadline around the loop dropped it.
    Dropped,
}

/// How a sleep of [`CoarseTimers`] ended.
enum Woke {
    Elapsed,
    Deadline,
    Cancelled,
}

impl Subject for CoarseTimers {
    type Config = CoarseConfig;
    fn name(&self) -> &str {
        "coarse-timers"
    }
    /// Retries transient failures and timeouts (rate limits are failures it returns), sleeping a constant
    /// delay; cancellation is honoured, results are the last attempt's, a timed-out call does not end the
    /// stream.
    fn contract(&self, config: &CoarseConfig) -> Contract {
        Contract {
            retry: RetryContract {
                max_attempts: Some(config.max_attempts),
                retry_on: Some(RetryOn { transient: true, rate_limited: false, timeout: true }),
                reports_last_result: true,
                respects_idempotency: true,
            },
            delays: DelayContract {
                min: Some(config.delay),
                max: Some(config.delay),
                backoff: Some(BackoffShape::Constant { delay: config.delay }),
                jitter: Some(JitterBounds::None),
                notifies: true,
                ..DelayContract::default()
            },
            timing: TimingContract {
                attempt_timeout: config.attempt_timeout,
                timeout_tie: config.timeout_tie,
                deadline: config.deadline,
                retry_elapsed_max: config.retry_elapsed_max,
                honors_cancellation: true,
                timer_granularity: config.tick,
                serves_stream: true,
                ..TimingContract::default()
            },
            ..Contract::default()
        }
    }
    fn run(&self, config: &CoarseConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, call| Self::serve(config, world, call))
    }
}

fn describe_coarse<C: Choices + ?Sized>(c: &mut C) -> CoarseConfig {
    let tick = [VDuration::from_millis(1), VDuration::from_micros(1), VDuration::from_secs(1)][c.weighted(&[4, 1, 1])];
    let scaled = |c: &mut C| match c.weighted(&[1, 3, 2]) {
        0 => VDuration::ZERO,
        1 => c.duration_between(VDuration::ZERO, tick.saturating_mul(20)),
        _ => tick.saturating_mul(c.between(0, 20)), // On the tick.
    };
    let max_attempts = 1 + c.pick(6) as u32;
    let attempt_timeout = c.maybe(3, 4).then(|| scaled(c));
    let timeout_tie = if c.maybe(1, 2) { TieRule::InnerWins } else { TieRule::Expired };
    let delay = scaled(c);
    let deadline = c.maybe(1, 2).then(|| scaled(c).saturating_mul(3));
    let retry_elapsed_max = c.maybe(1, 3).then(|| scaled(c).saturating_mul(2));
    CoarseConfig { tick, max_attempts, attempt_timeout, timeout_tie, delay, deadline, retry_elapsed_max }
}

domain!(CoarseTimers, describe_coarse);

#[test]
fn coarse_timers_have_no_false_alarm() {
    check_catalogue(&CoarseTimers, &["deadline_respected", "cancellation_stops_work", "result_matches_last_attempt"]);
}

/// The reference at the extremes of its domain: every duration zero, 1 ns or `VDuration::MAX` (the cap at
/// least the initial delay), 1, 2 or 100 attempts, factor 16, the smallest and widest breaker and budget,
/// every retry-after policy and both interrupt ties.
#[derive(Clone)]
struct Extremes;

impl Subject for Extremes {
    type Config = Policy;
    fn name(&self) -> &str {
        "reference-extremes"
    }
    fn contract(&self, policy: &Policy) -> Contract {
        Reference.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        Reference.run(policy, world)
    }
}

fn extreme<C: Choices + ?Sized>(c: &mut C) -> VDuration {
    [VDuration::ZERO, VDuration::from_nanos(1), VDuration::MAX][c.pick(3) as usize]
}

fn maybe_extreme<C: Choices + ?Sized>(c: &mut C) -> Option<VDuration> {
    c.maybe(1, 2).then(|| extreme(c))
}

impl Describe for Extremes {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> Policy {
        use timelaw::reference::{Backoff, Jitter};
        let initial = extreme(c);
        let backoff = match c.pick(4) {
            0 => Backoff::Constant { delay: initial },
            1 => Backoff::Linear { initial, step: extreme(c) },
            2 => Backoff::Exponential { initial, factor: [1, 16][c.pick(2) as usize] },
            _ => Backoff::Decorrelated { initial },
        };
        let delay_max = if c.maybe(1, 2) { initial } else { VDuration::MAX };
        let jitter = match (backoff, c.pick(3)) {
            (Backoff::Decorrelated { .. }, _) | (_, 0) => Jitter::None,
            (_, 1) => Jitter::Full,
            _ => Jitter::Equal,
        };
        let circuit = c.maybe(1, 2).then(|| {
            let window = [1, 128][c.pick(2) as usize];
            let (min_calls, failure_percent) = ([1, window][c.pick(2) as usize], [1, 100][c.pick(2) as usize]);
            let half_open_probes = [1, 3][c.pick(2) as usize];
            CircuitContract {
                window,
                min_calls,
                failure_percent,
                open_for: extreme(c),
                half_open_probes,
                ..CircuitContract::DEFAULT
            }
        });
        let retry_budget = c.maybe(1, 2).then(|| timelaw::core::BudgetContract {
            min_retries: [0, 10][c.pick(2) as usize],
            retry_percent: [0, 1000][c.pick(2) as usize],
            ..timelaw::core::BudgetContract::default()
        });
        let mut policy = Policy {
            delay_max,
            jitter,
            honor_retry_after: c.maybe(1, 2),
            attempt_timeout: maybe_extreme(c),
            deadline: maybe_extreme(c),
            sleep_budget: maybe_extreme(c),
            retry_elapsed_max: maybe_extreme(c),
            circuit,
            retry_budget,
            ..Policy::new([1, 2, 100][c.pick(3) as usize], backoff, delay_max)
        };
        if policy.honor_retry_after && c.maybe(1, 2) {
            let combine = [RetryAfterCombine::MaxWithBackoff, RetryAfterCombine::ReplacesBackoff][c.pick(2) as usize];
            let above_cap = [AboveCap::GiveUp, AboveCap::Clamp, AboveCap::SleepAnyway][c.pick(3) as usize];
            policy.retry_after_policy = Some(RetryAfterPolicy { combine, above_cap });
        }
        if c.maybe(1, 2) {
            policy.interrupt_tie = timelaw::core::InterruptTie::CancellationFirst;
        }
        debug_assert_eq!(policy.validate(), Ok(()));
        policy
    }
    fn outside(&self, policy: &Policy) -> Option<String> {
        policy.validate().err().map(|error| error.to_string())
    }
}

#[test]
fn the_reference_at_its_extremes_has_no_false_alarm() {
    check_catalogue(&Extremes, &["attempts_within_max", "result_matches_last_attempt"]);
}

/// [`CoarseTimers`] claiming timers a thousand times finer than its tick: the contract understates its
/// granularity, and the laws that read it catch the late timers.
struct Understated;

impl Subject for Understated {
    type Config = CoarseConfig;
    fn name(&self) -> &str {
        "coarse-timers-understated"
    }
    fn contract(&self, config: &CoarseConfig) -> Contract {
        let mut contract = CoarseTimers.contract(config);
        contract.timing.timer_granularity = config.tick.div(1000);
        contract
    }
    fn run(&self, config: &CoarseConfig, world: &mut World<'_>) -> Result<(), Abort> {
        CoarseTimers.run(config, world)
    }
}

#[test]
fn issue_33s_cases_no_longer_fire_and_an_understated_granularity_does() {
    let ms = VDuration::from_millis;
    let rate_limited = |millis| Step::instant(Outcome::RateLimited { retry_after: ms(millis) });
    // The retry-after replacing the backoff (was "sleep 1 of the call was 5ms, expected 10ms").
    let exponential = timelaw::reference::Backoff::Exponential { initial: ms(10), factor: 2 };
    let replaces = Policy {
        honor_retry_after: true,
        retry_after_policy: Some(RetryAfterPolicy {
            combine: RetryAfterCombine::ReplacesBackoff,
            above_cap: AboveCap::GiveUp,
        }),
        ..Policy::new(4, exponential, ms(100))
    };
    let schedule = |steps: Vec<Step>| Schedule::single(steps);
    check_case(&Reference, replaces.clone(), schedule(vec![rate_limited(5), Step::instant(Outcome::Ok)]), &[]);
    // A retry-after above the cap slept anyway (was a cap, floor and jitter violation).
    let anyway = RetryAfterPolicy { combine: RetryAfterCombine::MaxWithBackoff, above_cap: AboveCap::SleepAnyway };
    let policy = Policy { retry_after_policy: Some(anyway), jitter: timelaw::reference::Jitter::Full, ..replaces };
    check_case(&Reference, policy, schedule(vec![rate_limited(500), Step::instant(Outcome::Ok)]), &[]);
    // A tokio-like loop: an attempt 1 ns over its 551ms timeout completes before the 552ms tick (was an
    // `eventually_succeeds` violation), and a 932ms deadline from 1 ns fires on the 933ms tick (was a
    // `deadline_respected` one).
    let coarse = |attempt_timeout, deadline| CoarseConfig {
        tick: ms(1),
        max_attempts: 2,
        attempt_timeout: Some(attempt_timeout),
        timeout_tie: TieRule::InnerWins,
        delay: VDuration::ZERO,
        deadline,
        retry_elapsed_max: None,
    };
    let off_grid = |steps: Vec<Step>| {
        Schedule::new(vec![timelaw::core::CallScript {
            gap_before: VDuration::from_nanos(1),
            ..timelaw::core::CallScript::new(steps)
        }])
    };
    let over = off_grid(vec![Step::new(ms(551).saturating_add(VDuration::from_nanos(1)), Outcome::Fatal)]);
    check_case(&CoarseTimers, coarse(ms(551), None), over, &[]);
    let late = || off_grid(vec![Step::new(ms(2000), Outcome::Ok)]);
    check_case(&CoarseTimers, coarse(ms(5000), Some(ms(932))), late(), &[]);
    let returned_late = [("deadline_respected", "the call returned after its deadline")];
    check_case(&Understated, coarse(ms(5000), Some(ms(932))), late(), &returned_late);
}
