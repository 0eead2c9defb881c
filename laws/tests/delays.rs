//! Delay laws: delay_within_cap, delay_at_least_min, backoff_shape_without_jitter, jitter_within_bounds,
//! total_sleep_within_budget, retry_after_honored, notify_matches_sleep.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Jitter, Policy};
use timelaw_core::{
    BackoffShape, CallResult, Contract, DelayContract, ErrorKind, Event, EventKind, JitterBounds, Rejection, VDuration,
    VInstant,
};
use timelaw_laws::ids;

#[track_caller]
fn check(id: &str, run: Run, expect: Expect) {
    assert_verdict(id, &run, expect);
}

fn constant(max_attempts: u32) -> Policy {
    Policy::new(max_attempts, Backoff::Constant { delay: ms(10) }, ms(1000))
}

/// Exponential from 5ms, doubling, capped at 20ms.
fn exponential(jitter: Jitter) -> Policy {
    Policy { jitter, ..Policy::new(6, Backoff::Exponential { initial: ms(5), factor: 2 }, ms(20)) }
}

fn decorrelated() -> Policy {
    Policy::new(8, Backoff::Decorrelated { initial: ms(5) }, ms(100))
}

fn honoring(policy: Policy) -> Policy {
    Policy { honor_retry_after: true, ..policy }
}

/// What the naive loop promises: exponential from 5ms, doubling, capped at `cap`, with `jitter`.
fn exp_promise(cap: VDuration, jitter: JitterBounds) -> Contract {
    let mut promise = promise(6, ms(5));
    promise.delays.max = Some(cap);
    promise.delays.backoff = Some(BackoffShape::Exponential { initial: ms(5), factor_milli: 2000 });
    promise.delays.jitter = Some(jitter);
    promise
}

#[test]
fn delay_within_cap() {
    let id = ids::DELAY_WITHIN_CAP;
    check(id, reference(exponential(Jitter::None), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Full), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(900), OK])), Expect::Holds);
    check(id, reference(exponential(Jitter::None), single(&[OK])), Expect::Vacuous);
    check(
        id,
        naive(
            {
                let mut promise = promise(3, ms(10));
                promise.delays.max = None;
                promise
            },
            Bug::None,
            single(&[T]),
        ),
        Expect::NotApplicable,
    );
    check(id, naive(exp_promise(ms(20), JitterBounds::None), Bug::DoublesDelay, single(&[T, T, T])), Expect::At(12));
    // Constant 12ms doubled is 24ms: above a 20ms cap, but within additive jitter of 50%.
    let additive = {
        let mut promise = exp_promise(ms(20), JitterBounds::Additive { ratio_milli: 500 });
        promise.delays.backoff = Some(BackoffShape::Constant { delay: ms(12) });
        promise
    };
    check(id, naive(additive, Bug::DoublesDelay, single(&[T, T])), Expect::Holds);
    let plain = Contract { delays: DelayContract { jitter: Some(JitterBounds::None), ..additive.delays }, ..additive };
    check(id, naive(plain, Bug::DoublesDelay, single(&[T, T])), Expect::At(4));
    let tolerant = Contract { delays: DelayContract { tolerance: ms(4), ..plain.delays }, ..plain };
    check(id, naive(tolerant, Bug::DoublesDelay, single(&[T, T])), Expect::Holds);
}

#[test]
fn delay_within_cap_says_the_tolerance_when_there_is_one() {
    #[track_caller]
    fn says(tolerance_ms: u64, words: &str, with_tolerance: bool) {
        let mut contract = exp_promise(ms(20), JitterBounds::None);
        contract.delays.backoff = Some(BackoffShape::Constant { delay: ms(12) });
        contract.delays.tolerance = ms(tolerance_ms);
        match naive(contract, Bug::DoublesDelay, single(&[T, T])).judge(ids::DELAY_WITHIN_CAP) {
            timelaw_laws::Verdict::Violated(violation) => {
                assert!(violation.message.contains(words), "{}", violation.message);
                assert_eq!(violation.message.contains("with the tolerance"), with_tolerance, "{}", violation.message);
            }
            verdict => panic!("expected a violation, got {verdict:?}"),
        }
    }
    // 24ms slept under a 20ms cap.
    says(0, "slept 24ms, above the cap 20ms", false);
    says(1, "slept 24ms, above the cap 20ms (with the tolerance", true);
}

#[test]
fn delay_at_least_min() {
    let id = ids::DELAY_AT_LEAST_MIN;
    check(id, reference(constant(3), single(&[T, T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Equal), single(&[T, T, T])), Expect::Holds);
    check(id, reference(decorrelated(), single(&[T, T, T])), Expect::Holds);
    check(id, reference(constant(3), single(&[OK])), Expect::Vacuous);
    check(id, reference(exponential(Jitter::Full), single(&[T])), Expect::NotApplicable);
    check(id, naive(promise(3, ms(10)), Bug::ZeroSecondDelay, single(&[T, T, T])), Expect::At(8));
    let tolerant = {
        let mut promise = promise(3, ms(10));
        promise.delays.tolerance = ms(10);
        promise
    };
    check(id, naive(tolerant, Bug::ZeroSecondDelay, single(&[T, T, T])), Expect::Holds);
}

#[test]
fn backoff_shape_without_jitter() {
    let id = ids::BACKOFF_SHAPE_WITHOUT_JITTER;
    check(id, reference(exponential(Jitter::None), single(&[T, T, T, T, T])), Expect::Holds);
    let linear = Policy::new(4, Backoff::Linear { initial: ms(5), step: ms(7) }, ms(15));
    check(id, reference(linear, single(&[T, T, T])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(50), T])), Expect::Holds);
    check(id, reference(exponential(Jitter::None), single(&[OK])), Expect::Vacuous);
    check(id, reference(exponential(Jitter::Full), single(&[T])), Expect::NotApplicable);
    check(id, reference(decorrelated(), single(&[T])), Expect::NotApplicable);
    check(id, naive(exp_promise(ms(20), JitterBounds::None), Bug::DoublesDelay, single(&[T])), Expect::At(4));
    let honors = {
        let mut promise = promise(3, ms(10));
        promise.rate.honors_retry_after = true;
        promise
    };
    check(id, naive(honors, Bug::None, single(&[rate_limited(50), OK])), Expect::Holds);
    check(id, naive(honors, Bug::IgnoresRetryAfter, single(&[rate_limited(50), OK])), Expect::At(4));
}

#[test]
fn jitter_within_bounds() {
    let id = ids::JITTER_WITHIN_BOUNDS;
    check(id, reference(exponential(Jitter::Full), single(&[T, T, T, T, T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Equal), single(&[T, T, T, T, T])), Expect::Holds);
    check(id, reference(decorrelated(), single(&[T, T, T, T, T, T, T])), Expect::Holds);
    check(id, reference(honoring(exponential(Jitter::Full)), single(&[rate_limited(15), T])), Expect::Holds);
    check(id, reference(exponential(Jitter::Full), single(&[OK])), Expect::Vacuous);
    check(id, reference(decorrelated(), single(&[])), Expect::Vacuous);
    check(id, reference(exponential(Jitter::None), single(&[T])), Expect::NotApplicable);
    check(id, naive(exp_promise(ms(1000), JitterBounds::Equal), Bug::DoublesDelay, single(&[T])), Expect::At(4));
    check(id, naive(exp_promise(ms(1000), JitterBounds::Equal), Bug::ZeroSecondDelay, single(&[T, T])), Expect::At(8));
    let decorrelated_promise = {
        let mut promise = promise(3, ms(5));
        promise.delays.backoff = Some(BackoffShape::decorrelated(ms(5)));
        promise
    };
    check(id, naive(decorrelated_promise, Bug::None, single(&[T])), Expect::At(4));
}

#[test]
fn total_sleep_within_budget() {
    let id = ids::TOTAL_SLEEP_WITHIN_BUDGET;
    let budgeted = Policy { sleep_budget: Some(ms(25)), ..constant(5) };
    check(id, reference(budgeted.clone(), single(&[T, T, T, T])), Expect::Holds);
    check(id, reference(budgeted.clone(), calls(&[&[T, T], &[T, T]])), Expect::Holds);
    check(id, reference(budgeted, single(&[OK])), Expect::Vacuous);
    check(id, reference(constant(5), single(&[T])), Expect::NotApplicable);
    let claims = {
        let mut promise = promise(5, ms(10));
        promise.delays.sleep_budget = Some(ms(25));
        promise
    };
    check(id, naive(claims, Bug::None, single(&[T, T, T])), Expect::Holds);
    check(id, naive(claims, Bug::IgnoresSleepBudget, single(&[T, T, T])), Expect::At(12));
}

#[test]
fn retry_after_honored() {
    let id = ids::RETRY_AFTER_HONORED;
    check(id, reference(honoring(constant(3)), single(&[rate_limited(50), OK])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(5), OK])), Expect::Holds);
    check(id, reference(honoring(constant(3)), single(&[T, OK])), Expect::Vacuous);
    check(id, reference(honoring(constant(3)), single(&[rate_limited(2000)])), Expect::Vacuous);
    check(id, reference(constant(3), single(&[rate_limited(50), OK])), Expect::NotApplicable);
    let honors = {
        let mut promise = promise(3, ms(10));
        promise.rate.honors_retry_after = true;
        promise
    };
    check(id, naive(honors, Bug::IgnoresRetryAfter, single(&[rate_limited(50), OK])), Expect::At(5));
    check(id, naive(honors, Bug::IgnoresRetryAfter, single(&[T, rate_limited(50), OK])), Expect::At(9));
}

/// `run` with its first sleep clamped by the runtime to `to_ms`: a `SleepClamped` after the
/// `SleepRequested`, and everything after it earlier by what the clamp cut.
fn clamped(mut run: Run, to_ms: u64) -> Run {
    let events = &mut run.trace.events;
    let sleep = events.iter().position(|event| matches!(event.kind, EventKind::SleepRequested { .. }));
    let sleep = sleep.expect("the run sleeps");
    let EventKind::SleepRequested { duration } = events[sleep].kind else { unreachable!("found above") };
    let cut = duration.saturating_sub(ms(to_ms));
    let mut clamp = events[sleep];
    clamp.kind = EventKind::SleepClamped { to: ms(to_ms) };
    events.insert(sleep + 1, clamp);
    for event in &mut events[sleep + 2..] {
        event.at = VInstant::EPOCH.saturating_add(event.at.duration_since(VInstant::EPOCH).saturating_sub(cut));
    }
    renumbered(run)
}

#[test]
fn retry_after_honored_through_a_clamped_sleep() {
    let id = ids::RETRY_AFTER_HONORED;
    // The sleep asked for the 50ms retry-after; the runtime clamped it to 5ms: the subject honoured it.
    check(id, clamped(reference(honoring(constant(3)), single(&[rate_limited(50), OK])), 5), Expect::Holds);
    // Asking for 10ms only, clamped to 5ms: the retry is early all the same.
    let short = naive(
        {
            let mut promise = promise(3, ms(10));
            promise.rate.honors_retry_after = true;
            promise
        },
        Bug::IgnoresRetryAfter,
        single(&[rate_limited(50), OK]),
    );
    check(id, clamped(short, 5), Expect::At(6));
}

/// `run` with a notification of `delay_ms` inserted before its first one (the rest renumbered).
fn notified_twice(mut run: Run, delay_ms: u64) -> Run {
    let events = &mut run.trace.events;
    let first = events.iter().position(|event| matches!(event.kind, EventKind::Notify { .. }));
    let first = first.expect("the run notifies");
    let extra = Event { kind: EventKind::Notify { delay: ms(delay_ms) }, ..events[first] };
    events.insert(first, extra);
    renumbered(run)
}

/// `run` cut after its first notification, the call then rejected by its retry budget (the rest dropped).
fn rejected_after_notifying(mut run: Run) -> Run {
    let events = &mut run.trace.events;
    let first = events.iter().position(|event| matches!(event.kind, EventKind::Notify { .. }));
    let first = first.expect("the run notifies");
    events.truncate(first + 1);
    let rejected = Event { kind: EventKind::Rejected { reason: Rejection::BudgetExhausted }, ..events[first] };
    let end = Event { kind: EventKind::CallEnd { result: CallResult::Err(ErrorKind::Transient) }, ..events[first] };
    events.extend([rejected, end]);
    renumbered(run)
}

fn renumbered(mut run: Run) -> Run {
    for (index, event) in run.trace.events.iter_mut().enumerate() {
        event.seq = index as u32;
    }
    run
}

#[test]
fn notify_matches_sleep_edges() {
    let id = ids::NOTIFY_MATCHES_SLEEP;
    let notifies = {
        let mut promise = promise(3, ms(10));
        promise.delays.notifies = true;
        promise
    };
    let run = || naive(notifies, Bug::None, single(&[T, OK]));
    // The same 10ms announced twice, then slept: kept.
    check(id, notified_twice(run(), 10), Expect::Holds);
    // 11ms then 10ms announced, 10ms slept: the announcements conflict.
    check(id, notified_twice(run(), 11), Expect::At(5));
    // A rejection excuses the announced sleep.
    check(id, rejected_after_notifying(run()), Expect::Holds);
}

#[test]
fn notify_matches_sleep() {
    let id = ids::NOTIFY_MATCHES_SLEEP;
    check(id, reference(constant(3), single(&[T, OK])), Expect::Holds);
    check(id, reference(exponential(Jitter::Full), single(&[T, T, T])), Expect::Holds);
    check(id, reference(constant(3), single(&[OK])), Expect::Vacuous);
    check(id, naive(promise(3, ms(10)), Bug::None, single(&[T, OK])), Expect::NotApplicable);
    let notifies = {
        let mut promise = promise(3, ms(10));
        promise.delays.notifies = true;
        promise
    };
    check(id, naive(notifies, Bug::None, single(&[T, T])), Expect::Holds);
    check(id, naive(notifies, Bug::MisannouncesDelay, single(&[T, OK])), Expect::At(4));
    check(id, naive(notifies, Bug::ForgetsToSleep, single(&[T, OK])), Expect::At(4));
}

/// A subject that sleeps a scripted list of delays in one call (one failed attempt before each), under
/// the contract it is given: the delays a correct crate computes, written down by hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct SleepsConfig {
    contract: Contract,
    delays_ns: Vec<u64>,
}

struct Sleeper;

impl timelaw_core::Subject for Sleeper {
    type Config = SleepsConfig;
    fn name(&self) -> &str {
        "sleeper"
    }
    fn contract(&self, config: &SleepsConfig) -> Contract {
        config.contract
    }
    fn run(&self, config: &SleepsConfig, world: &mut timelaw_core::World<'_>) -> Result<(), timelaw_core::Abort> {
        while world.start_call()?.is_some() {
            for &delay in &config.delays_ns {
                world.dispatch()?;
                // Recorded without moving the clock, so sleeps past 584 years do not end time.
                world.begin_sleep(VDuration::from_nanos(delay))?;
            }
            world.dispatch()?;
            world.end_call(timelaw_core::CallResult::Err(timelaw_core::ErrorKind::Transient))?;
        }
        Ok(())
    }
}

/// Runs [`Sleeper`] sleeping `delays_ns` under `contract` (the n-th sleep is event `3n`).
fn sleeps(contract: Contract, delays_ns: &[u64]) -> Run {
    let schedule = single(&vec![T; delays_ns.len() + 1]);
    let run = run(&Sleeper, &SleepsConfig { contract, delays_ns: delays_ns.to_vec() }, schedule);
    assert_eq!(run.trace.end, timelaw_core::TraceEnd::Complete, "{}", Listing(&run.trace));
    run
}

fn shaped(backoff: BackoffShape, jitter: JitterBounds, cap: VDuration) -> Contract {
    Contract {
        delays: DelayContract {
            backoff: Some(backoff),
            jitter: Some(jitter),
            max: Some(cap),
            ..DelayContract::default()
        },
        ..Contract::default()
    }
}

fn float_exp(initial_nanos: u128, factor: f64) -> BackoffShape {
    BackoffShape::ExponentialFloat { initial_nanos, factor: timelaw_core::FloatFactor(factor) }
}

#[test]
fn backoff_shape_is_exact() {
    let id = ids::BACKOFF_SHAPE_WITHOUT_JITTER;
    let none = JitterBounds::None;
    let issue_first = shaped(BackoffShape::Exponential { initial: ns(1), factor_milli: 600_497 }, none, VDuration::MAX);
    check(id, sleeps(issue_first, &[1, 600, 360_597]), Expect::Holds);
    check(id, sleeps(issue_first, &[1, 601, 360_596]), Expect::Holds);
    check(id, sleeps(issue_first, &[1, 600, 360_298]), Expect::At(9)); // Rounded down after every step.
    let issue_second = shaped(BackoffShape::Exponential { initial: ns(1), factor_milli: 3032 }, none, VDuration::MAX);
    check(id, sleeps(issue_second, &[1, 3, 9, 27, 84, 256]), Expect::Holds);
    check(id, sleeps(issue_second, &[1, 3, 9, 27, 81, 245]), Expect::At(15));
    let as_f32 = shaped(float_exp(1, f64::from(600.497_f32)), none, VDuration::MAX);
    check(id, sleeps(as_f32, &[1, 600, 360_597]), Expect::Holds);
    check(id, sleeps(as_f32, &[1, 600, 360_599]), Expect::At(9));
    // A start past 584 years with factor 1/4 comes back into range at the fifth delay (2^62 ns).
    let huge = shaped(float_exp(1 << 70, 0.25), none, VDuration::MAX);
    let max = u64::MAX;
    check(id, sleeps(huge, &[max, max, max, max, 1 << 62]), Expect::Holds);
    check(id, sleeps(huge, &[max, max, max, max, max >> 8]), Expect::At(15)); // A start saturated at 584 years.
    check(id, sleeps(huge, &[max - 1]), Expect::At(3)); // Above the maximum is never equal to it minus 1.
    let capped = shaped(float_exp(1 << 70, 0.25), none, VDuration::from_secs(1));
    check(id, sleeps(capped, &[1_000_000_000, 1_000_000_000]), Expect::Holds);
}

#[test]
fn tolerance_is_absolute_plus_relative() {
    let id = ids::BACKOFF_SHAPE_WITHOUT_JITTER;
    let exact =
        shaped(BackoffShape::Exponential { initial: ms(1000), factor_milli: 2000 }, JitterBounds::None, VDuration::MAX);
    check(id, sleeps(exact, &[1_000_000_900, 2_000_001_900]), Expect::At(3));
    let relative = Contract { delays: DelayContract { tolerance_ppb: 1000, ..exact.delays }, ..exact };
    check(id, sleeps(relative, &[1_000_000_900, 2_000_001_900]), Expect::Holds);
    check(id, sleeps(relative, &[1_000_000_900, 2_000_002_100]), Expect::At(6));
    let both = Contract { delays: DelayContract { tolerance: ns(200), ..relative.delays }, ..relative };
    check(id, sleeps(both, &[1_000_000_900, 2_000_002_100]), Expect::Holds);
}

#[test]
fn jitter_bounds_compose_with_the_cap() {
    let id = ids::JITTER_WITHIN_BOUNDS;
    // Decorrelated from 100ns under a 40ns cap: min(cap, random(100ns, 3 * previous)) is the cap.
    let decorrelated = shaped(BackoffShape::decorrelated(ns(100)), JitterBounds::None, ns(40));
    check(id, sleeps(decorrelated, &[40, 40, 40]), Expect::Holds);
    check(id, sleeps(decorrelated, &[40, 100]), Expect::At(6));
    check(id, sleeps(decorrelated, &[39]), Expect::At(3));
    let clipped = shaped(BackoffShape::decorrelated(ns(10)), JitterBounds::None, ns(50));
    check(id, sleeps(clipped, &[30, 50, 50, 10]), Expect::Holds);
    check(id, sleeps(clipped, &[31]), Expect::At(3));
    let factor_two =
        shaped(BackoffShape::Decorrelated { initial: ns(10), factor_milli: 2000 }, JitterBounds::None, ns(50));
    check(id, sleeps(factor_two, &[20, 40]), Expect::Holds);
    check(id, sleeps(factor_two, &[20, 41]), Expect::At(6));
    // The cap below the base for each jitter: the jitter is around the capped base.
    let base = BackoffShape::Constant { delay: ns(100) };
    check(id, sleeps(shaped(base, JitterBounds::Full, ns(40)), &[0, 40]), Expect::Holds);
    check(id, sleeps(shaped(base, JitterBounds::Full, ns(40)), &[41]), Expect::At(3));
    check(id, sleeps(shaped(base, JitterBounds::Equal, ns(41)), &[20, 41]), Expect::Holds);
    check(id, sleeps(shaped(base, JitterBounds::Equal, ns(41)), &[19]), Expect::At(3));
    let additive = JitterBounds::Additive { ratio_milli: 500 };
    check(id, sleeps(shaped(base, additive, ns(40)), &[40, 60]), Expect::Holds);
    check(id, sleeps(shaped(base, additive, ns(40)), &[61]), Expect::At(3));
    let symmetric = JitterBounds::Symmetric { ratio_milli: 250 };
    check(id, sleeps(shaped(base, symmetric, ns(40)), &[30, 50]), Expect::Holds);
    check(id, sleeps(shaped(base, symmetric, ns(40)), &[29]), Expect::At(3));
    // Exact bases: equal jitter on 360596.6ns accepts half of either rounding.
    let issue = shaped(
        BackoffShape::Exponential { initial: ns(1), factor_milli: 600_497 },
        JitterBounds::Equal,
        VDuration::MAX,
    );
    check(id, sleeps(issue, &[1, 300, 180_298]), Expect::Holds);
    check(id, sleeps(issue, &[1, 300, 180_297]), Expect::At(9));
}

#[test]
fn cap_and_minimum_with_exact_bounds() {
    let cap =
        Contract { delays: DelayContract { max: Some(ns(40)), ..DelayContract::default() }, ..Contract::default() };
    check(ids::DELAY_WITHIN_CAP, sleeps(cap, &[40]), Expect::Holds);
    check(ids::DELAY_WITHIN_CAP, sleeps(cap, &[41]), Expect::At(3));
    let symmetric = Contract {
        delays: DelayContract { jitter: Some(JitterBounds::Symmetric { ratio_milli: 250 }), ..cap.delays },
        ..cap
    };
    check(ids::DELAY_WITHIN_CAP, sleeps(symmetric, &[50]), Expect::Holds);
    check(ids::DELAY_WITHIN_CAP, sleeps(symmetric, &[51]), Expect::At(3));
    let beyond = Contract { delays: DelayContract { max: Some(VDuration::MAX), ..cap.delays }, ..cap };
    check(ids::DELAY_WITHIN_CAP, sleeps(beyond, &[u64::MAX]), Expect::Holds);
    let min = Contract {
        delays: DelayContract { min: Some(ms(1000)), tolerance_ppb: 1000, ..DelayContract::default() },
        ..Contract::default()
    };
    check(ids::DELAY_AT_LEAST_MIN, sleeps(min, &[999_999_000]), Expect::Holds);
    check(ids::DELAY_AT_LEAST_MIN, sleeps(min, &[999_998_999]), Expect::At(3));
}

fn ns(nanos: u64) -> VDuration {
    VDuration::from_nanos(nanos)
}
