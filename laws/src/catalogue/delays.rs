//! Laws about the delays between attempts: bounds, the backoff sequence, jitter, the sleep budget and
//! retry-after.

use timelaw_core::{
    BackoffShape, Contract, Event, EventKind, JitterBounds, Outcome, Promised, SleepRange, VDuration, VInstant,
};

use super::sleeps::{sleeps_of, SleepWalk, Slept};
use crate::ids;
use crate::law::{applies, Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

/// Judges every sleep of the trace against its range ([`Contract::sleep_range`], walked by
/// [`SleepWalk`]): `ok` says whether the sleep keeps the law's side of the range, `message` why not.
/// Within a catalogue's judging of a case the delay laws share one walk ([`super::case_memo`]).
fn each_sleep(
    observation: &Observation<'_>,
    ok: impl Fn(VDuration, &SleepRange) -> bool,
    message: impl Fn(VDuration, &SleepRange, u32) -> String,
) -> Verdict {
    let (contract, events) = (observation.contract, &observation.trace.events);
    let fill = |out: &mut Vec<Slept>| sleeps_of(contract, events, out);
    super::case_memo::with_sleeps(observation, fill, |sleeps| {
        let mut verdict = Verdict::Vacuous;
        for slept in sleeps {
            if !ok(slept.duration, &slept.range) {
                return Verdict::violated_with(Some(slept.seq), message(slept.duration, &slept.range, slept.nth));
            }
            verdict = Verdict::Holds;
        }
        verdict
    })
}

/// `delay_within_cap`: no sleep is longer than the cap `delays.max`, widened by the jitter the contract
/// documents as exceeding it and by the contract's tolerance, or than what the retry-after policy promises
/// for that sleep where it sleeps past the cap (`SleepAnyway`): the ceiling of [`Contract::sleep_range`].
///
/// - Needs: `delays.max` (reads `delays.jitter`, `delays.jitter_clipped_at_cap`: a clipped jitter never widens the cap,
///   `delays.tolerance`, `delays.tolerance_ppb`, `rate.retry_after`, `rate.honors_retry_after`).
/// - Compares: each recorded sleep with the ceiling of its range, exactly in whole nanoseconds (a bound
///   past 584 years admits every sleep). Sleeps are judged as requested: the timer granularity does not
///   enter.
/// - Violated at the first `SleepRequested` above the bound.
/// - Vacuous when nothing slept.
/// - Example violation: `delay_max = 1s` and an exponential backoff sleeps 1.6s.
pub const DELAY_WITHIN_CAP: Law = Law {
    id: ids::DELAY_WITHIN_CAP,
    title: "no delay exceeds the cap",
    kind: LawKind::Safety,
    needs: &["delays.max"],
    applies: applies!(contract => contract.delays.max.is_some()),
    check: delay_within_cap,
};

fn delay_within_cap(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    let cap = contract.cap_ceiling();
    let high = VDuration::from_nanos(u64::try_from(cap.high_nanos()).unwrap_or(u64::MAX));
    let describe = move |duration, range: &SleepRange, _| match contract.tolerance() == Default::default() {
        true => format!("slept {duration}, above the cap {high}"),
        false => format!(
            "slept {duration}, above the cap {high} (with the tolerance: {})",
            Promised::between(0, range.ceiling_nanos)
        ),
    };
    each_sleep(observation, |duration, range| range.below_ceiling(duration), describe)
}

/// `delay_at_least_min`: no sleep is shorter than `delays.min`, less the contract's tolerance, or than
/// what the retry-after policy promises for that sleep where it decides it alone (a retry-after that
/// replaces the backoff): the floor of [`Contract::sleep_range`].
///
/// - Needs: `delays.min` (reads `delays.tolerance`, `delays.tolerance_ppb`, `rate.retry_after`).
/// - Compares: each recorded sleep with the floor of its range, exactly in whole nanoseconds. Sleeps are
///   judged as requested: the timer granularity does not enter.
/// - Violated at the first `SleepRequested` below the bound.
/// - Vacuous when nothing slept.
/// - Example violation: `delay_min = 10ms` and a retry after a zero sleep.
pub const DELAY_AT_LEAST_MIN: Law = Law {
    id: ids::DELAY_AT_LEAST_MIN,
    title: "no delay is below the minimum",
    kind: LawKind::Safety,
    needs: &["delays.min"],
    applies: applies!(contract => contract.delays.min.is_some()),
    check: delay_at_least_min,
};

fn delay_at_least_min(observation: &Observation<'_>) -> Verdict {
    let describe = |duration, range: &SleepRange, _| {
        let low = VDuration::from_nanos(u64::try_from(range.floor_nanos).unwrap_or(u64::MAX));
        format!("slept {duration}, below the minimum {low}")
    };
    each_sleep(observation, |duration, range| range.above_floor(duration), describe)
}

/// `backoff_shape_without_jitter`: with no jitter, every sleep of a call lies in its range
/// ([`Contract::sleep_range`]): backoff delay `n` is `min(backoff.promised(n), delay_max)`, and right after
/// a rate-limited attempt the declared retry-after policy decides (`max(that, retry_after)`, the
/// retry-after itself, the cap, or no retry; a delay a retry-after replaced does not advance the
/// sequence).
///
/// - Needs: `delays.backoff` with a jitter-free sequence (not decorrelated) and `jitter == Some(None)` (reads
///   `delays.max`, `rate.retry_after`, `rate.honors_retry_after`, `delays.tolerance`, `delays.tolerance_ppb`).
/// - Compares: each recorded sleep with the exact promised value (computed without rounding between
///   steps, see [`timelaw_core::promise`]): any whole-nanosecond rounding of it holds; the contract's
///   tolerance ([`Contract::tolerance`], absolute plus relative, zero for exact subjects) widens it. A
///   promise past 584 years is compared as above [`VDuration::MAX`]. Sleeps are judged as requested:
///   the timer granularity does not enter.
/// - Violated at the first sleep off the sequence (a sleep after an answer the policy gives up on is
///   `retry_after_as_declared`'s).
/// - Vacuous when nothing slept.
/// - Example violation: exponential from 5ms, and the second sleep is 5ms instead of 10ms.
pub const BACKOFF_SHAPE_WITHOUT_JITTER: Law = Law {
    id: ids::BACKOFF_SHAPE_WITHOUT_JITTER,
    title: "without jitter, delays follow the promised backoff sequence",
    kind: LawKind::Safety,
    needs: &["delays.backoff", "delays.jitter"],
    applies: applies!(contract => contract.has_jitter_free_sequence()),
    check: backoff_shape_without_jitter,
};

fn backoff_shape_without_jitter(observation: &Observation<'_>) -> Verdict {
    let describe = |duration, range: &SleepRange, n| {
        let expected = range.expected.unwrap_or(Promised::between(0, 0));
        format!("sleep {n} of the call was {duration}, expected {expected}")
    };
    each_sleep(observation, |duration, range| range.gives_up() || range.admits(duration), describe)
}

/// `jitter_within_bounds`: with jitter, every sleep of a call lies in its range ([`Contract::sleep_range`]):
/// backoff delay `n` lies in `jitter.around(min(backoff.promised(n), delay_max))`; with decorrelated
/// backoff in `min(cap, initial)..=min(cap, max(initial, factor * previous))` (the usual
/// `min(cap, random(initial, previous * factor))`, the previous backoff sleep starting at `initial`).
/// Right after a rate-limited attempt the declared retry-after policy decides, as in
/// [`BACKOFF_SHAPE_WITHOUT_JITTER`]. With `delays.jitter_clipped_at_cap`, the range is clipped at
/// `delays.max`; `JitterBounds::Range` is an explicit range relative to the base.
///
/// - Needs: `delays.backoff`, and a `delays.jitter` other than `None` unless the backoff is decorrelated (reads
///   `delays.max`, `delays.jitter_clipped_at_cap`, `rate.retry_after`, `rate.honors_retry_after`,
///   `delays.tolerance`, `delays.tolerance_ppb`).
/// - Compares: each recorded sleep with bounds computed exactly from the exact promised value (see
///   [`timelaw_core::promise`]), widened by the contract's tolerance ([`Contract::tolerance`]). Sleeps
///   are judged as requested: the timer granularity does not enter.
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

// Never inlined: one address wherever its laws are named (`crate::law::applies!`).
#[inline(never)]
fn jitter_applies(contract: &Contract) -> bool {
    match contract.delays.backoff {
        Some(BackoffShape::Decorrelated { .. }) => true,
        Some(shape) => {
            shape.nth(1).is_some() && contract.delays.jitter.is_some_and(|jitter| jitter != JitterBounds::None)
        }
        None => false,
    }
}

fn jitter_within_bounds(observation: &Observation<'_>) -> Verdict {
    let describe = |duration, range: &SleepRange, n| {
        let bounds = range.expected.unwrap_or(Promised::between(0, 0));
        format!("sleep {n} of the call was {duration}, outside {bounds}")
    };
    each_sleep(observation, |duration, range| range.gives_up() || range.admits(duration), describe)
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
    applies: applies!(contract => contract.delays.sleep_budget.is_some()),
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
/// attempt starts at `t + retry_after` or later, wherever the retry-after policy waits for it
/// ([`Contract::retry_after_rule`]: not where the declared policy clamps it at a cap below it or ignores
/// it).
///
/// - Needs: `honors_retry_after == true` (reads `rate.retry_after`, `delays.max`).
/// - Compares: the retry's start instant with the rate-limited attempt's end plus the retry-after,
///   exactly (no tolerance). A sleep the runtime clamped (`SleepClamped`, tokio's 30-year maximum)
///   counts for what the subject asked: a retry after a clamped sleep that asked to wait past the
///   retry-after honours it. The timer granularity does not enter: a late timer only starts the retry later.
/// - Violated at the early `AttemptStart`.
/// - Vacuous when no rate-limited attempt was followed by a retry.
/// - Example violation: a 429 asks for 2s and the retry comes 100ms later.
pub const RETRY_AFTER_HONORED: Law = Law {
    id: ids::RETRY_AFTER_HONORED,
    title: "a retry after a rate limit waits at least the retry-after",
    kind: LawKind::Safety,
    needs: &["rate.honors_retry_after"],
    applies: applies!(contract => contract.rate.honors_retry_after),
    check: retry_after_honored,
};

fn retry_after_honored(observation: &Observation<'_>) -> Verdict {
    let contract = observation.contract;
    monitor(&observation.trace.events, RetryAfter::default(), |state, event| match event.kind {
        EventKind::CallStart { .. } => {
            *state = RetryAfter::default();
            Check::Skip
        }
        EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after } } => {
            let waits = contract.retry_after_rule(retry_after).waits_at_least(retry_after);
            let not_before = waits.then(|| event.at.saturating_add(retry_after));
            *state = RetryAfter { not_before, ..RetryAfter::default() };
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
    applies: applies!(contract => contract.delays.notifies),
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
/// told apart where the ranges of `n + 1` and `n + 2` differ. Every range is [`Contract::sleep_range`]'s,
/// the one the other delay laws judge by.
///
/// - Needs: `rate.retry_after` (reads `delays.max`, `delays.backoff`, `delays.jitter`,
///   `delays.jitter_clipped_at_cap`, the tolerance).
/// - Compares: the recorded sleep with the range, exactly, widened by the contract's tolerance. Sleeps
///   are judged as requested: the timer granularity does not enter.
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
    applies: applies!(contract => contract.rate.retry_after.is_some()),
    check: retry_after_as_declared,
};

fn retry_after_as_declared(observation: &Observation<'_>) -> Verdict {
    let (contract, events) = (observation.contract, &observation.trace.events);
    let fill = |out: &mut Vec<Slept>| sleeps_of(contract, events, out);
    // The sleeps' ranges are those the other delay laws read (one walk per case in a catalogue): this
    // walk's `SleepWalk` sees the same events in the same order, so its sleeps are those, one by one.
    super::case_memo::with_sleeps(observation, fill, |sleeps| {
        let mut sleeps = sleeps.iter();
        monitor(events, RetryAfterWalk::default(), |walk, event| walk.step(contract, event, &mut sleeps))
    })
}

/// The walk of [`RETRY_AFTER_AS_DECLARED`] over a trace, one event at a time.
#[derive(Default)]
struct RetryAfterWalk {
    /// The delay laws' walk: which backoff delay comes next (a delay a retry-after replaced is not one).
    sleeps: SleepWalk,
    /// The retry-after still waiting for its sleep or retry.
    pending: Option<VDuration>,
    /// A delay of this call was replaced by a retry-after since its last backoff sleep.
    replaced: bool,
    /// After a replaced delay, an attempt ended without a retry-after: the next delay is the backoff's.
    backoff_due: bool,
}

impl RetryAfterWalk {
    /// Steps over `event`; `sleeps` are the trace's sleeps ([`sleeps_of`]) not yet walked past.
    fn step<'a>(&mut self, contract: &Contract, event: &Event, sleeps: &mut impl Iterator<Item = &'a Slept>) -> Check {
        if let EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after } } = event.kind {
            self.sleeps.observe(contract, event);
            self.pending = Some(retry_after);
            self.backoff_due = false;
            return Check::Skip;
        }
        // The range a sleep requested now would have: the one a retry without a sleep is judged by
        // (computed only for such a retry: most events need no range).
        let next = self.sleeps.next();
        let now = || contract.sleep_range(next);
        let sleep = self.sleeps.observe_with(event, |at| {
            let slept = sleeps.next().expect("the walk's sleeps are the trace's sleeps");
            debug_assert_eq!(slept.seq, event.seq, "the walk's sleeps are the trace's sleeps, in order");
            debug_assert_eq!(slept.range, contract.sleep_range(at), "the walk's sleep stands where this one does");
            slept.range
        });
        let due = sleep.is_some() || event.kind == EventKind::AttemptStart;
        match event.kind {
            EventKind::CallStart { .. } | EventKind::CallEnd { .. } => {
                (self.replaced, self.backoff_due) = (false, false)
            }
            EventKind::AttemptEnd { .. } | EventKind::AttemptTimedOut { .. } => self.backoff_due = self.replaced,
            _ => {}
        }
        if let Some(retry_after) = self.pending.take_if(|_| due) {
            let (duration, range) = sleep.unwrap_or_else(|| (VDuration::ZERO, now()));
            self.replaced |= range.replaces_backoff;
            return after_rate_limit(retry_after, sleep.map(|_| duration), &range);
        }
        if matches!(event.kind, EventKind::CallStart { .. } | EventKind::CallEnd { .. }) {
            self.pending = None;
        }
        if due && self.backoff_due {
            (self.replaced, self.backoff_due) = (false, false);
            let (duration, range) = sleep.unwrap_or_else(|| (VDuration::ZERO, now()));
            return after_replaced(duration, &range, next.backoff_index);
        }
        Check::Skip
    }
}

/// The sleep (or a retry without one) right after a rate-limited attempt: the declared policy.
fn after_rate_limit(retry_after: VDuration, sleep: Option<VDuration>, range: &SleepRange) -> Check {
    let Some(duration) = sleep else {
        // A retry with no sleep: allowed only when the range admits zero.
        return Check::that(
            range.admits(VDuration::ZERO),
            "a retry followed a rate-limited answer against the declared retry-after policy",
        );
    };
    match range.expected {
        None => Check::fail("a retry-after above the cap was retried, but the contract gives up"),
        Some(_) if range.admits(duration) => Check::Pass,
        Some(expected) => Check::failed(format!(
            "after a retry-after of {retry_after} the sleep was {duration}, the declared policy allows {expected}"
        )),
    }
}

/// The first backoff delay after a replaced one: the one due had the replaced delays not advanced the
/// sequence (its range, widened by the tolerance).
fn after_replaced(duration: VDuration, range: &SleepRange, n: u32) -> Check {
    let Some(widened) = range.widened().filter(|_| !range.admits(duration)) else {
        return Check::Pass;
    };
    Check::failed(format!(
        "after a delay replaced by a retry-after the backoff's delay was {duration}, but the sequence must \
         not advance: delay {n} allows {widened}"
    ))
}
