//! No false alarms: correct subjects that sit exactly on the boundaries where the laws' references used
//! to be wrong, checked against the whole catalogue at 100,000 cases each, with zero violations.
//!
//! - `float-exponential`: an exponential backoff computed the way crates do it, in `f64` from a float
//!   factor (600.497, 3.032, factors below 1, 1e30), from starts of 1 ns up to starts past 584 years;
//! - `decorrelated-capped`: AWS decorrelated jitter `min(cap, random(base, previous * 3))` with the cap
//!   often below the base;
//! - `token-bucket`: a rate limiter's caller that polls for a token in short waits (up to 5,010 waits for
//!   5 calls, as in the issue);
//!
//! plus the four cases of the issue, judged by the whole catalogue one by one.

use std::time::Duration;

use proptest::strategy::BoxedStrategy;
use serde::{Deserialize, Serialize};
use timelaw::core::{
    execute, Abort, AttemptResult, BackoffShape, CallResult, Contract, DelayContract, ErrorKind, FloatFactor,
    JitterBounds, Outcome, RetryContract, RetryOn, Schedule, SplitMix64, Step, Subject, VDuration, Wake, World,
};
use timelaw::generators::{choice_strategy, Choices, ConfigDomain, Swarm};
use timelaw::laws::{Catalogue, Observation, Verdict};

const CASES: u64 = 100_000;

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
    let output = timelaw::check(subject).cases(CASES).run();
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
        assert!(law.counts.holds > CASES / 10, "{id} held on only {} cases", law.counts.holds);
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
