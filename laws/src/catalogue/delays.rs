//! Laws about the delays between attempts: bounds, the backoff sequence, jitter, the sleep budget and
//! retry-after.

use std::borrow::Cow;

use timelaw_core::{BackoffShape, Contract, Event, EventKind, JitterBounds, Outcome, Promised, VDuration, VInstant};

use crate::ids;
use crate::law::{Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

fn sleep_check(
    observation: &Observation<'_>,
    ok: impl Fn(VDuration) -> bool,
    message: impl Fn(VDuration) -> String,
) -> Verdict {
    monitor(&observation.trace.events, (), |(), event| match event.kind {
        EventKind::SleepRequested { duration } if ok(duration) => Check::Pass,
        EventKind::SleepRequested { duration } => Check::Fail(Cow::Owned(message(duration))),
        _ => Check::Skip,
    })
}

/// `delay_within_cap`: no sleep is longer than the cap `delays.max`, widened by the jitter the contract
/// documents as exceeding it ([`JitterBounds::around`] the cap, computed exactly) and by the contract's
/// tolerance ([`Contract::tolerance`]: `delays.tolerance` plus `delays.tolerance_ppb` of the bound).
///
/// - Needs: `delays.max` (reads `delays.jitter`, `delays.jitter_clipped_at_cap`: a clipped jitter never widens the cap,
///   `delays.tolerance`, `delays.tolerance_ppb`).
/// - Compares: each recorded sleep with the bound, exactly in whole nanoseconds (a bound past 584 years
///   admits every sleep).
/// - Violated at the first `SleepRequested` above the bound.
/// - Vacuous when nothing slept.
/// - Example violation: `delay_max = 1s` and an exponential backoff sleeps 1.6s.
pub const DELAY_WITHIN_CAP: Law = Law {
    id: ids::DELAY_WITHIN_CAP,
    title: "no delay exceeds the cap",
    kind: LawKind::Safety,
    needs: &["delays.max"],
    applies: |contract| contract.delays.max.is_some(),
    check: delay_within_cap,
};

fn delay_within_cap(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    let jittered = match contract.delays.jitter_clipped_at_cap {
        true => Promised::exactly(cap),
        false => contract.delays.jitter.unwrap_or_default().around(Promised::exactly(cap)),
    };
    let bound = Promised::between(0, jittered.high_nanos()).widen(contract.tolerance());
    let high = VDuration::from_nanos(u64::try_from(jittered.high_nanos()).unwrap_or(u64::MAX));
    let describe = move |duration| match contract.tolerance() == Default::default() {
        true => format!("slept {duration}, above the cap {high}"),
        false => format!("slept {duration}, above the cap {high} (with the tolerance: {bound})"),
    };
    sleep_check(observation, |duration| bound.admits(duration), describe)
}

/// `delay_at_least_min`: no sleep is shorter than `delays.min`, less the contract's tolerance
/// ([`Contract::tolerance`] around `delays.min`).
///
/// - Needs: `delays.min` (reads `delays.tolerance`, `delays.tolerance_ppb`).
/// - Compares: each recorded sleep with the bound, exactly in whole nanoseconds.
/// - Violated at the first `SleepRequested` below the bound.
/// - Vacuous when nothing slept.
/// - Example violation: `delay_min = 10ms` and a retry after a zero sleep.
pub const DELAY_AT_LEAST_MIN: Law = Law {
    id: ids::DELAY_AT_LEAST_MIN,
    title: "no delay is below the minimum",
    kind: LawKind::Safety,
    needs: &["delays.min"],
    applies: |contract| contract.delays.min.is_some(),
    check: delay_at_least_min,
};

fn delay_at_least_min(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let min = Promised::exactly(contract.delays.min.unwrap_or(VDuration::ZERO)).widen(contract.tolerance());
    let low = VDuration::from_nanos(u64::try_from(min.low_nanos()).unwrap_or(u64::MAX));
    sleep_check(
        observation,
        |duration| duration >= low,
        |duration| format!("slept {duration}, below the minimum {low}"),
    )
}

/// Per-call state of the delay laws: the sleeps so far, the last one, and the retry-after of the attempt
/// that just ended.
#[derive(Clone, Copy, Default)]
struct DelayState {
    sleeps: u32,
    previous: Option<VDuration>,
    retry_after: Option<VDuration>,
}

impl DelayState {
    /// Updates the state for any other event; returns the duration of a sleep.
    fn observe(&mut self, event: &Event) -> Option<VDuration> {
        match event.kind {
            EventKind::CallStart { .. } => *self = DelayState::default(),
            EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after } } => {
                self.retry_after = Some(retry_after)
            }
            // An attempt cancelled after the rate-limited one ended (a hedge's loser, cancelled because
            // that answer decided the try) leaves the retry-after in force; every other cancelled attempt
            // started after it, which cleared it already.
            EventKind::AttemptStart | EventKind::AttemptEnd { .. } | EventKind::AttemptTimedOut { .. } => {
                self.retry_after = None
            }
            EventKind::SleepRequested { duration } => return Some(duration),
            _ => {}
        }
        None
    }
}

/// The promised range of the `n`-th sleep of a call without jitter: `min(backoff.promised(n), cap)`,
/// then `max(that, retry_after)` right after a rate-limited attempt when the contract honours it.
fn expected_sleep(contract: &Contract, shape: BackoffShape, state: &DelayState) -> Promised {
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    let beyond = Promised::between(u128::MAX, u128::MAX);
    let expected = shape.promised(state.sleeps).unwrap_or(beyond).min(cap);
    match (contract.rate.honors_retry_after, state.retry_after) {
        (true, Some(retry_after)) => expected.max(retry_after),
        _ => expected,
    }
}

/// `backoff_shape_without_jitter`: with no jitter, the `n`-th sleep of a call (from 1) is
/// `min(backoff.promised(n), delay_max)`, or `max(that, retry_after)` right after a rate-limited attempt
/// when `rate.honors_retry_after`.
///
/// - Needs: `delays.backoff` with a jitter-free sequence (not decorrelated) and `jitter == Some(None)` (reads
///   `delays.max`, `rate.honors_retry_after`, `delays.tolerance`, `delays.tolerance_ppb`).
/// - Compares: each recorded sleep with the exact promised value (computed without rounding between
///   steps, see [`timelaw_core::promise`]): any whole-nanosecond rounding of it holds; the contract's
///   tolerance ([`Contract::tolerance`], absolute plus relative, zero for exact subjects) widens it. A
///   promise past 584 years is compared as above [`VDuration::MAX`].
/// - Violated at the first sleep off the sequence.
/// - Vacuous when nothing slept.
/// - Example violation: exponential from 5ms, and the second sleep is 5ms instead of 10ms.
pub const BACKOFF_SHAPE_WITHOUT_JITTER: Law = Law {
    id: ids::BACKOFF_SHAPE_WITHOUT_JITTER,
    title: "without jitter, delays follow the promised backoff sequence",
    kind: LawKind::Safety,
    needs: &["delays.backoff", "delays.jitter"],
    applies: |contract| {
        contract.delays.jitter == Some(JitterBounds::None)
            && contract.delays.backoff.is_some_and(|shape| shape.nth(1).is_some())
    },
    check: backoff_shape_without_jitter,
};

fn backoff_shape_without_jitter(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let Some(shape) = contract.delays.backoff else {
        return Verdict::NotApplicable;
    };
    let tolerance = contract.tolerance();
    monitor(&observation.trace.events, DelayState::default(), |state, event| {
        let Some(duration) = state.observe(event) else {
            return Check::Skip;
        };
        state.sleeps += 1;
        let expected = expected_sleep(contract, shape, state);
        if expected.widen(tolerance).admits(duration) {
            return Check::Pass;
        }
        Check::Fail(Cow::Owned(format!("sleep {} of the call was {duration}, expected {expected}", state.sleeps)))
    })
}

/// `jitter_within_bounds`: with jitter, the `n`-th sleep of a call lies in
/// `jitter.around(min(backoff.promised(n), delay_max))`; with decorrelated backoff it lies in
/// `min(cap, initial)..=min(cap, max(initial, factor * previous sleep))` (the usual
/// `min(cap, random(initial, previous * factor))`, the previous sleep starting at `initial`). Right after a
/// rate-limited attempt when `rate.honors_retry_after`, any `retry_after <= d <= max(high, retry_after)` is
/// accepted. With `delays.jitter_clipped_at_cap`, the range is clipped at `delays.max`; `JitterBounds::Range` is
/// an explicit range relative to the base.
///
/// - Needs: `delays.backoff`, and a `delays.jitter` other than `None` unless the backoff is decorrelated (reads
///   `delays.max`, `delays.jitter_clipped_at_cap`, `rate.honors_retry_after`, `delays.tolerance`,
///   `delays.tolerance_ppb`).
/// - Compares: each recorded sleep with bounds computed exactly from the exact promised value (see
///   [`timelaw_core::promise`]), widened by the contract's tolerance ([`Contract::tolerance`]).
/// - Violated at the first sleep out of its bounds.
/// - Vacuous when nothing slept.
/// - Example violation: equal jitter on a 100ms base, and a sleep of 30ms (below 50ms).
pub const JITTER_WITHIN_BOUNDS: Law = Law {
    id: ids::JITTER_WITHIN_BOUNDS,
    title: "jittered delays stay within their documented bounds",
    kind: LawKind::Safety,
    needs: &["delays.backoff", "delays.jitter"],
    applies: jitter_applies,
    check: jitter_within_bounds,
};

fn jitter_applies(contract: &Contract) -> bool {
    match contract.delays.backoff {
        Some(BackoffShape::Decorrelated { .. }) => true,
        Some(shape) => {
            shape.nth(1).is_some() && contract.delays.jitter.is_some_and(|jitter| jitter != JitterBounds::None)
        }
        None => false,
    }
}

/// The range the sleep before retry `n` may take by the backoff and jitter alone (no retry-after):
/// `jitter.around(min(backoff.promised(n), cap))`, the decorrelated bounds after `previous`, clipped at
/// the cap when the contract says so. Without a stated backoff, `delay_min..=cap`.
pub(super) fn backoff_bounds(contract: &Contract, n: u32, previous: Option<VDuration>) -> Promised {
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    let Some(shape) = contract.delays.backoff else {
        return Promised::between(
            u128::from(contract.delays.min.unwrap_or(VDuration::ZERO).as_nanos()),
            u128::from(cap.as_nanos()),
        );
    };
    let bounds = match shape.decorrelated_bounds(previous, cap) {
        Some(bounds) => bounds,
        None => {
            let beyond = Promised::between(u128::MAX, u128::MAX);
            let base = shape.promised(n).unwrap_or(beyond).min(cap);
            contract.delays.jitter.unwrap_or_default().around(base)
        }
    };
    if contract.delays.jitter_clipped_at_cap {
        return bounds.min(cap);
    }
    bounds
}

fn jitter_bounds(contract: &Contract, state: &DelayState) -> Promised {
    let bounds = backoff_bounds(contract, state.sleeps, state.previous);
    match (contract.rate.honors_retry_after, state.retry_after) {
        (true, Some(retry_after)) => {
            let floor = u128::from(retry_after.as_nanos());
            Promised::between(floor, bounds.high_nanos().max(floor))
        }
        _ => bounds,
    }
}

fn jitter_within_bounds(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let tolerance = contract.tolerance();
    monitor(&observation.trace.events, DelayState::default(), |state, event| {
        let Some(duration) = state.observe(event) else {
            return Check::Skip;
        };
        state.sleeps += 1;
        let bounds = jitter_bounds(contract, state);
        state.previous = Some(duration);
        if bounds.widen(tolerance).admits(duration) {
            return Check::Pass;
        }
        Check::Fail(Cow::Owned(format!("sleep {} of the call was {duration}, outside {bounds}", state.sleeps)))
    })
}

/// `total_sleep_within_budget`: the sleeps requested by one call add up to at most `delays.sleep_budget`.
///
/// - Needs: `delays.sleep_budget`.
/// - Compares: the sum of the recorded sleeps of the call with the budget, exactly (no tolerance).
/// - Violated at the sleep that crosses the budget.
/// - Vacuous when nothing slept.
/// - Example violation: `sleep_budget = 100ms` and sleeps of 50ms, 50ms and 50ms in one call.
pub const TOTAL_SLEEP_WITHIN_BUDGET: Law = Law {
    id: ids::TOTAL_SLEEP_WITHIN_BUDGET,
    title: "the delays of one call stay within the sleep budget",
    kind: LawKind::Safety,
    needs: &["delays.sleep_budget"],
    applies: |contract| contract.delays.sleep_budget.is_some(),
    check: total_sleep_within_budget,
};

fn total_sleep_within_budget(observation: &Observation<'_>) -> Verdict {
    let budget = observation.contract.delays.sleep_budget.unwrap_or(VDuration::MAX);
    monitor(&observation.trace.events, VDuration::ZERO, |slept, event| match event.kind {
        EventKind::CallStart { .. } => {
            *slept = VDuration::ZERO;
            Check::Skip
        }
        EventKind::SleepRequested { duration } => {
            *slept = slept.saturating_add(duration);
            Check::that(*slept <= budget, "the call's sleeps add up to more than the sleep budget")
        }
        _ => Check::Skip,
    })
}

/// `retry_after_honored`: after an attempt ends `RateLimited { retry_after }` at `t`, the call's next
/// attempt starts at `t + retry_after` or later.
///
/// - Needs: `honors_retry_after == true`.
/// - Compares: the retry's start instant with the rate-limited attempt's end plus the retry-after,
///   exactly (no tolerance). A sleep the runtime clamped (`SleepClamped`, tokio's 30-year maximum)
///   counts for what the subject asked: a retry after a clamped sleep that asked to wait past the
///   retry-after honours it.
/// - Violated at the early `AttemptStart`.
/// - Vacuous when no rate-limited attempt was followed by a retry.
/// - Example violation: a 429 asks for 2s and the retry comes 100ms later.
pub const RETRY_AFTER_HONORED: Law = Law {
    id: ids::RETRY_AFTER_HONORED,
    title: "a retry after a rate limit waits at least the retry-after",
    kind: LawKind::Safety,
    needs: &["rate.honors_retry_after"],
    applies: |contract| contract.rate.honors_retry_after,
    check: retry_after_honored,
};

fn retry_after_honored(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, RetryAfter::default(), |state, event| match event.kind {
        EventKind::CallStart { .. } => {
            *state = RetryAfter::default();
            Check::Skip
        }
        EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after } } => {
            *state = RetryAfter { not_before: Some(event.at.saturating_add(retry_after)), ..RetryAfter::default() };
            Check::Skip
        }
        EventKind::SleepRequested { duration } => {
            state.sleep_end = Some(event.at.saturating_add(duration));
            Check::Skip
        }
        EventKind::SleepClamped { .. } => {
            state.asked_until = state.asked_until.max(state.sleep_end);
            Check::Skip
        }
        EventKind::AttemptStart => {
            let asked = state.asked_until.take();
            match state.not_before.take() {
                Some(at) => Check::that(
                    event.at >= at || asked.is_some_and(|asked| asked >= at),
                    "the retry started before the retry-after had passed",
                ),
                None => Check::Skip,
            }
        }
        _ => Check::Skip,
    })
}

/// What `retry_after_honored` remembers within a call.
#[derive(Clone, Copy, Default)]
struct RetryAfter {
    /// The earliest instant the retry may start.
    not_before: Option<VInstant>,
    /// Where the last requested sleep would end.
    sleep_end: Option<VInstant>,
    /// The latest instant a sleep the runtime clamped asked to wait until: the subject asked for it,
    /// the runtime woke it early.
    asked_until: Option<VInstant>,
}

/// What the notifications since the last attempt, sleep or rejection announced.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Announced {
    Nothing,
    Delay(VDuration),
    Conflicting,
}

/// `notify_matches_sleep`: every sleep is announced and every announcement is kept. The notifications
/// since the previous attempt, sleep or rejection of a call all announce exactly the delay of the next
/// sleep; a notification is never left without its sleep when the next attempt starts or the call ends
/// (a rejection excuses it).
///
/// - Needs: `notifies == true`.
/// - Compares: each announced delay with the next recorded sleep, exactly (no tolerance).
/// - Violated at the unannounced or mismatched `SleepRequested`, or at the `AttemptStart` / `CallEnd`
///   that leaves a notification without its sleep.
/// - Vacuous when there was no sleep and no notification.
/// - Example violation: `Notify { delay: 100ms }` followed by `SleepRequested { duration: 200ms }`.
pub const NOTIFY_MATCHES_SLEEP: Law = Law {
    id: ids::NOTIFY_MATCHES_SLEEP,
    title: "every sleep is announced by a notification with the same delay",
    kind: LawKind::Safety,
    needs: &["delays.notifies"],
    applies: |contract| contract.delays.notifies,
    check: notify_matches_sleep,
};

fn notify_matches_sleep(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, Announced::Nothing, |announced, event| match event.kind {
        EventKind::CallStart { .. } | EventKind::Rejected { .. } => {
            *announced = Announced::Nothing;
            Check::Skip
        }
        EventKind::Notify { delay } => {
            *announced = match *announced {
                Announced::Nothing => Announced::Delay(delay),
                Announced::Delay(previous) if previous == delay => Announced::Delay(delay),
                _ => Announced::Conflicting,
            };
            Check::Pass
        }
        EventKind::SleepRequested { duration } => {
            let matched = *announced == Announced::Delay(duration);
            *announced = Announced::Nothing;
            Check::that(matched, "the sleep was not announced with its delay")
        }
        EventKind::AttemptStart | EventKind::CallEnd { .. } => {
            if *announced == Announced::Nothing {
                return Check::Skip;
            }
            Check::fail("a notification announced a sleep that never came")
        }
        _ => Check::Skip,
    })
}

/// `retry_after_as_declared`: a rate-limited answer is handled by the declared retry-after policy. The
/// sleep right after an attempt that ended `RateLimited { retry_after }`, with `b` the range the backoff
/// and jitter allow for that sleep ([`JitterBounds::around`], clipped when the contract says so):
/// - at or below the cap: `max(b, retry_after)` for `MaxWithBackoff`, exactly `rate.retry_after` for
///   `ReplacesBackoff`, `b` for `Ignored`;
/// - above the cap: no retry for `GiveUp`, exactly the cap for `Clamp`, exactly `rate.retry_after` for
///   `SleepAnyway` (and `b` for `Ignored`).
///
/// With `ReplacesBackoff` the backoff sequence does not advance: a delay replaced by a retry-after is not
/// one of the backoff's, so the first backoff delay after it (after an attempt that ended without a
/// retry-after) is the one that would have come had the replaced retries not happened: delay `n + 1`
/// after `n` backoff delays, within its jitter range (for decorrelated backoff, grown from the last backoff
/// delay, not the replaced one), widened by the tolerance. Which `n` a jitter range belongs to is only
/// told apart where the ranges of `n + 1` and `n + 2` differ.
///
/// - Needs: `rate.retry_after` (reads `delays.max`, `delays.backoff`, `delays.jitter`,
///   `delays.jitter_clipped_at_cap`, the tolerance).
/// - Compares: the recorded sleep with the range, exactly, widened by the contract's tolerance.
/// - Violated at the sleep off the policy, or at the retry (its sleep or its `AttemptStart`) after a
///   retry-after above the cap with `GiveUp`, or (with `ReplacesBackoff`) at the first backoff sleep after
///   a replaced one that is off the sequence as if it had not advanced.
/// - Vacuous when no rate-limited attempt was followed by a sleep or a retry.
/// - Example violation: `ReplacesBackoff` with an exponential backoff of 10ms, 20ms, 40ms: a 429
///   replaced the first delay, the next transient error sleeps 20ms (the backoff advanced) instead of 10ms.
/// - Example violation: `ReplacesBackoff`, a 429 asking for 2s, and a 3s sleep (the backoff's).
pub const RETRY_AFTER_AS_DECLARED: Law = Law {
    id: ids::RETRY_AFTER_AS_DECLARED,
    title: "a rate-limited answer is handled by the declared retry-after policy",
    kind: LawKind::Safety,
    needs: &["rate.retry_after"],
    applies: |contract| contract.rate.retry_after.is_some(),
    check: retry_after_as_declared,
};

/// The range the sleep after a rate-limited attempt may take, or `None` when no retry may follow.
fn retry_after_range(contract: &Contract, state: &DelayState, retry_after: VDuration) -> Option<Promised> {
    use timelaw_core::{AboveCap, RetryAfterCombine};
    let policy = contract.rate.retry_after.unwrap_or_default();
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    let backoff = backoff_bounds(contract, state.sleeps, state.previous);
    let exactly = |duration: VDuration| Promised::exactly(duration);
    let floor = u128::from(retry_after.as_nanos());
    Some(match (policy.combine, retry_after > cap, policy.above_cap) {
        (RetryAfterCombine::Ignored, _, _) => backoff,
        (_, true, AboveCap::GiveUp) => return None,
        (_, true, AboveCap::Clamp) => exactly(cap),
        (_, true, AboveCap::SleepAnyway) | (RetryAfterCombine::ReplacesBackoff, false, _) => exactly(retry_after),
        (RetryAfterCombine::MaxWithBackoff, false, _) => {
            Promised::between(backoff.low_nanos().max(floor), backoff.high_nanos().max(floor))
        }
    })
}

fn retry_after_as_declared(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let policy = contract.rate.retry_after.unwrap_or_default();
    let replaces = policy.combine == timelaw_core::RetryAfterCombine::ReplacesBackoff;
    let walk = RetryAfterWalk { replaces, ..RetryAfterWalk::default() };
    monitor(&observation.trace.events, walk, |walk, event| walk.step(contract, event))
}

/// The walk of [`RETRY_AFTER_AS_DECLARED`] over a trace, one event at a time.
#[derive(Default)]
struct RetryAfterWalk {
    /// The contract's retry-after replaces the backoff, which then does not advance.
    replaces: bool,
    /// The backoff's delay state; with `replaces`, a sleep replaced by a retry-after is not counted.
    state: DelayState,
    /// The retry-after still waiting for its sleep or retry.
    pending: Option<VDuration>,
    /// With `replaces`: a delay of this call was replaced since its last backoff sleep.
    replaced: bool,
    /// After a replaced delay, an attempt ended without a retry-after: the next delay is the backoff's.
    backoff_due: bool,
}

impl RetryAfterWalk {
    fn step(&mut self, contract: &Contract, event: &Event) -> Check {
        if let EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after } } = event.kind {
            self.state.observe(event);
            self.pending = Some(retry_after);
            self.backoff_due = false;
            return Check::Skip;
        }
        let sleep = self.state.observe(event);
        let due = sleep.is_some() || event.kind == EventKind::AttemptStart;
        match event.kind {
            EventKind::CallStart { .. } | EventKind::CallEnd { .. } => {
                (self.replaced, self.backoff_due) = (false, false)
            }
            EventKind::AttemptEnd { .. } | EventKind::AttemptTimedOut { .. } => self.backoff_due = self.replaced,
            _ => {}
        }
        if let Some(retry_after) = self.pending.take_if(|_| due) {
            return self.after_rate_limit(contract, retry_after, sleep);
        }
        if matches!(event.kind, EventKind::CallStart { .. } | EventKind::CallEnd { .. }) {
            self.pending = None;
        }
        if due && self.backoff_due {
            (self.replaced, self.backoff_due) = (false, false);
            return self.after_replaced(contract, sleep);
        }
        if let Some(duration) = sleep {
            self.state.sleeps += 1;
            self.state.previous = Some(duration);
        }
        Check::Skip
    }

    /// The sleep (or a retry without one) right after a rate-limited attempt: the declared policy.
    fn after_rate_limit(&mut self, contract: &Contract, retry_after: VDuration, sleep: Option<VDuration>) -> Check {
        self.replaced |= self.replaces;
        let Some(duration) = sleep else {
            // A retry with no sleep: allowed only when the range admits zero.
            let range = retry_after_range(contract, &self.state, retry_after);
            return Check::that(
                range.is_some_and(|range| range.widen(contract.tolerance()).admits(VDuration::ZERO)),
                "a retry followed a rate-limited answer against the declared retry-after policy",
            );
        };
        self.state.sleeps += 1;
        let range = retry_after_range(contract, &self.state, retry_after);
        if self.replaces {
            // The retry-after replaced this delay: the backoff sequence stays where it was.
            self.state.sleeps -= 1;
        } else {
            self.state.previous = Some(duration);
        }
        match range {
            None => Check::fail("a retry-after above the cap was retried, but the contract gives up"),
            Some(range) if range.widen(contract.tolerance()).admits(duration) => Check::Pass,
            Some(range) => Check::Fail(Cow::Owned(format!(
                "after a retry-after of {retry_after} the sleep was {duration}, the declared policy allows {range}"
            ))),
        }
    }

    /// The first backoff delay after a replaced one: the one due had the replaced delays not advanced the
    /// sequence (its jitter range, widened by the tolerance).
    fn after_replaced(&mut self, contract: &Contract, sleep: Option<VDuration>) -> Check {
        let n = self.state.sleeps.saturating_add(1);
        let range = backoff_bounds(contract, n, self.state.previous).widen(contract.tolerance());
        if let Some(duration) = sleep {
            self.state.sleeps = n;
            self.state.previous = Some(duration);
        }
        let duration = sleep.unwrap_or(VDuration::ZERO);
        if range.admits(duration) {
            return Check::Pass;
        }
        Check::Fail(Cow::Owned(format!(
            "after a delay replaced by a retry-after the backoff's delay was {duration}, but the sequence must \
             not advance: delay {n} allows {range}"
        )))
    }
}
