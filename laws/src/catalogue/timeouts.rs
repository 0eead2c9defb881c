//! Laws about time limits: attempt timeouts, the deadline, cancellation, and streams surviving timeouts.

use std::borrow::Cow;

use timelaw_core::{CallResult, ErrorKind, Event, EventKind, Outcome, TieRule, TimerRace, VDuration, VInstant};

use super::support::{attempt_result, ends_attempt};
use crate::ids;
use crate::law::{applies, Law, LawKind, Observation};
use crate::temporal::{monitor, per_call, Check};
use crate::verdict::{Verdict, Violation};

/// `timeout_translated_to_err`: a call whose last attempt timed out returns `Err` (of any kind). An
/// attempt timed out when its own timeout cut it (`AttemptTimedOut`); one dropped by an enclosing deadline
/// or a `select!` (`AttemptDropped`) or cancelled did not, and ends the call's timed-out state like any
/// other end of an attempt.
///
/// - Needs: `timing.attempt_timeout`.
/// - Compares: no instants: it reads which attempt ends were recorded as timeouts, so the timer
///   granularity does not enter.
/// - Violated at the call's `CallEnd`.
/// - Vacuous when no call ended after a timed-out attempt.
/// - Example violation: the only attempt is cut by its timeout and the call returns `Ok`.
pub const TIMEOUT_TRANSLATED_TO_ERR: Law = Law {
    id: ids::TIMEOUT_TRANSLATED_TO_ERR,
    title: "a timed-out last attempt makes the call return Err",
    kind: LawKind::Safety,
    needs: &["timing.attempt_timeout"],
    applies: applies!(contract => contract.timing.attempt_timeout.is_some()),
    check: timeout_translated_to_err,
};

fn timeout_translated_to_err(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, false, |timed_out, event| match event.kind {
        EventKind::CallStart { .. } => {
            *timed_out = false;
            Check::Skip
        }
        EventKind::AttemptTimedOut { .. } => {
            *timed_out = true;
            Check::Skip
        }
        EventKind::CallEnd { result } if *timed_out => {
            Check::that(!result.is_ok(), "the last attempt timed out but the call returned Ok")
        }
        ref kind => {
            *timed_out &= !ends_attempt(kind);
            Check::Skip
        }
    })
}

/// `timeout_does_not_fire_early`: an attempt is timed out (`AttemptTimedOut`) only once its timeout has
/// elapsed since it started, or its call's deadline has fallen, if that comes first (an attempt timeout
/// shortened to the time left before the deadline). A timer armed from the wrong instant (the call's
/// start rather than the attempt's, the first attempt's for every retry), in the wrong unit, or from a
/// shorter duration fires early, and the caller sees a timeout of an attempt that still had time.
///
/// - Needs: `timing.attempt_timeout` (reads `timing.deadline`); not applicable with a time limit of
///   unstated length (`timing.limit_unstated`: it may cut an attempt at any instant).
/// - Compares: the `AttemptTimedOut` instant with the attempt's `AttemptStart` plus the timeout (the
///   deadline, `CallStart` plus `timing.deadline`, when earlier), exactly: a coarse timer fires late,
///   never early.
/// - Violated at the early `AttemptTimedOut`.
/// - Holds on calls with a timed-out attempt; vacuous when no attempt timed out.
/// - Example violation: timeout 100ms armed when the call started, a first attempt failing after 60ms,
///   and the second attempt timed out 40ms after it started.
pub const TIMEOUT_DOES_NOT_FIRE_EARLY: Law = Law {
    id: ids::TIMEOUT_DOES_NOT_FIRE_EARLY,
    title: "an attempt is timed out no earlier than its timeout",
    kind: LawKind::Safety,
    needs: &["timing.attempt_timeout"],
    applies: applies!(contract => contract.timing.attempt_timeout.is_some() && !contract.timing.limit_unstated),
    check: timeout_does_not_fire_early,
};

fn timeout_does_not_fire_early(observation: &Observation<'_>) -> Verdict {
    let timing = &observation.contract.timing;
    let Some(timeout) = timing.attempt_timeout else { return Verdict::NotApplicable };
    crate::temporal::each_call(&observation.trace.events, |call| {
        let deadline_at = call.first().zip(timing.deadline).map(|(start, deadline)| start.at.saturating_add(deadline));
        let mut verdict = Verdict::Vacuous;
        for (index, event) in call.iter().enumerate() {
            if !matches!(event.kind, EventKind::AttemptTimedOut { .. }) {
                continue;
            }
            // Its start: the latest `AttemptStart` of the same attempt before it (hedges overlap).
            let start = call[..index]
                .iter()
                .rev()
                .find(|earlier| earlier.kind == EventKind::AttemptStart && earlier.attempt == event.attempt);
            let Some(start) = start else { continue };
            let due = start.at.saturating_add(timeout);
            let due = deadline_at.map_or(due, |deadline_at| due.min(deadline_at));
            if event.at < due {
                return Verdict::violated_at(event.seq, "an attempt was timed out before its timeout");
            }
            verdict = Verdict::Holds;
        }
        verdict
    })
}

/// `timeout_boundary_is_expired`: the tie rule is the promised one. An attempt's timer, due at
/// `start + attempt_timeout`, fires within the timer granularity ([`TimingContract::race`](timelaw_core::TimingContract::race)); the law
/// judges an attempt scripted to complete (not hang) exactly where only the tie rule decides: at the
/// instant the timer is due under [`TieRule::InnerWins`] (it must return its own result), at the last
/// instant the timer may fire under [`TieRule::Expired`] (it must time out), both `start +
/// attempt_timeout` for exact timers. Its end event must lie where the timer could have fired (no
/// deadline or cancellation cut it earlier). Attempts ended by a cancellation (`AttemptCancelled`) or
/// dropped by anything but their own timeout (`AttemptDropped`: an enclosing deadline firing at that
/// same instant, a `select!`) are not judged: the tie rule is about the attempt's own timer only.
///
/// - Needs: `timing.attempt_timeout` (reads `timing.timeout_tie`, `timing.timer_granularity`).
/// - Compares: the scripted completion instant with the timer's window `due..=due + timer_granularity`
///   ([`TimingContract::race`](timelaw_core::TimingContract::race)), exactly; a completion inside the window that the tie rule does not
///   decide (either may come first) is not judged.
/// - Violated at the attempt's end event.
/// - Vacuous when no attempt ran exactly into its timeout.
/// - Example violation: timeout 100ms, a step of exactly 100ms, and the attempt returns its own result
///   although the contract says equality counts as expired.
pub const TIMEOUT_BOUNDARY_IS_EXPIRED: Law = Law {
    id: ids::TIMEOUT_BOUNDARY_IS_EXPIRED,
    title: "an attempt taking exactly the timeout follows the tie rule",
    kind: LawKind::Safety,
    needs: &["timing.attempt_timeout", "timing.timeout_tie"],
    applies: applies!(contract => contract.timing.attempt_timeout.is_some()),
    check: timeout_boundary_is_expired,
};

fn timeout_boundary_is_expired(observation: &Observation<'_>) -> Verdict {
    let (timing, schedule) = (&observation.contract.timing, observation.schedule);
    let Some(timeout) = timing.attempt_timeout else {
        return Verdict::NotApplicable;
    };
    let tie = timing.timeout_tie;
    monitor(&observation.trace.events, VInstant::EPOCH, |started, event| {
        let timed_out = match event.kind {
            EventKind::AttemptStart => {
                *started = event.at;
                return Check::Skip;
            }
            EventKind::AttemptEnd { .. } => false,
            EventKind::AttemptTimedOut { .. } => true,
            _ => return Check::Skip,
        };
        let Some(script) = schedule.calls.get(event.call as usize) else {
            return Check::Skip;
        };
        let step = script.step(event.attempt);
        let (due, completes) = (started.saturating_add(timeout), started.saturating_add(step.duration));
        let decided_by_tie = match tie {
            TieRule::InnerWins => completes == due,
            TieRule::Expired => completes == timing.fires_by(due),
        };
        let in_window = (due..=timing.fires_by(due)).contains(&event.at);
        if step.outcome == Outcome::Hang || !decided_by_tie || !in_window {
            return Check::Skip;
        }
        match timing.race(completes, due, tie) {
            TimerRace::TimerFirst => Check::that(timed_out, "an attempt taking exactly the timeout was not timed out"),
            TimerRace::EventFirst => Check::that(!timed_out, "an attempt taking exactly the timeout lost to the timer"),
            TimerRace::Either => Check::Skip,
        }
    })
}

/// `deadline_respected`: every call returns by `start + deadline`, and no attempt starts at or after that
/// instant. A subject whose timers are coarse notices its deadline up to `timing.timer_granularity` late
/// ([`TimingContract::fires_by`](timelaw_core::TimingContract::fires_by)), so it returns by `start +
/// deadline + granularity`, and starts no attempt once the deadline's timer may have fired; under
/// `timing.deadline_tie` [`TieRule::InnerWins`] (a `tokio::time::timeout` around the loop polls the loop
/// first) an attempt may still start at the very instant the timer fires.
///
/// - Needs: `timing.deadline` (reads `timing.deadline_tie`, `timing.timer_granularity`).
/// - Compares: each `AttemptStart` with the deadline's timer window, `start + deadline` to that plus the
///   granularity, by [`TimingContract::race`](timelaw_core::TimingContract::race) under the deadline's tie
///   rule (late when the timer comes first whenever it fires); each `CallEnd` with the window's end,
///   exactly.
/// - Violated at the late `AttemptStart` or `CallEnd`.
/// - Vacuous when the deadline never mattered: no call returned `Err(DeadlineExceeded)` and no call lasted
///   (from `CallStart` to `CallEnd`) at least half its deadline.
/// - Example violation: deadline 1s, and an attempt starts 1.2s after the call did.
pub const DEADLINE_RESPECTED: Law = Law {
    id: ids::DEADLINE_RESPECTED,
    title: "a call returns by its deadline and starts no attempt after it",
    kind: LawKind::Safety,
    needs: &["timing.deadline"],
    applies: applies!(contract => contract.timing.deadline.is_some()),
    check: deadline_respected,
};

/// Per-call state of [`DEADLINE_RESPECTED`].
#[derive(Clone, Copy)]
struct DeadlineState {
    started: VInstant,
    /// When the deadline falls.
    due: VInstant,
}

fn deadline_respected(observation: &Observation<'_>) -> Verdict {
    let timing = &observation.contract.timing;
    let deadline = timing.deadline.unwrap_or(VDuration::MAX);
    let state = DeadlineState { started: VInstant::EPOCH, due: VInstant::END };
    monitor(&observation.trace.events, state, |state, event| match event.kind {
        EventKind::CallStart { .. } => {
            *state = DeadlineState { started: event.at, due: event.at.saturating_add(deadline) };
            Check::Skip
        }
        EventKind::AttemptStart if timing.race(event.at, state.due, timing.deadline_tie) == TimerRace::TimerFirst => {
            Check::fail("an attempt started at or after the deadline")
        }
        EventKind::CallEnd { .. } if event.at > timing.fires_by(state.due) => {
            Check::fail("the call returned after its deadline")
        }
        EventKind::CallEnd { result } => {
            let expired = result == CallResult::Err(ErrorKind::DeadlineExceeded);
            let long = event.at.duration_since(state.started) >= deadline.div(2);
            if expired || long {
                Check::Pass
            } else {
                Check::Skip
            }
        }
        _ => Check::Skip,
    })
}

/// `cancellation_stops_work`: once a call's cancellation instant `k = start + cancel_after` has come, the
/// call starts no attempt and requests no sleep, and it returns by `k`.
///
/// - Needs: `honors_cancellation == true` (reads the schedule's `cancel_after`).
/// - Compares: instants with `k`, exactly: the cancellation is the caller's act, not a timer of the
///   subject's, so the timer granularity does not enter.
/// - Violated at the first `AttemptStart` or `SleepRequested` at or after `k`, or at a `CallEnd` after
///   `k`.
/// - Vacuous when no call was still running at its cancellation instant (every call returned before it).
/// - Example violation: cancelled at 50ms, the subject keeps retrying at 80ms.
pub const CANCELLATION_STOPS_WORK: Law = Law {
    id: ids::CANCELLATION_STOPS_WORK,
    title: "a cancelled call stops working and returns",
    kind: LawKind::Safety,
    needs: &["timing.honors_cancellation"],
    applies: applies!(contract => contract.timing.honors_cancellation),
    check: cancellation_stops_work,
};

fn cancellation_stops_work(observation: &Observation<'_>) -> Verdict {
    let schedule = observation.schedule;
    monitor(&observation.trace.events, VInstant::END, |cancel_at, event| match event.kind {
        EventKind::CallStart { .. } => {
            let after = schedule.calls.get(event.call as usize).and_then(|script| script.cancel_after);
            *cancel_at = after.map_or(VInstant::END, |after| event.at.saturating_add(after));
            Check::Skip
        }
        _ if event.at < *cancel_at || *cancel_at == VInstant::END => Check::Skip,
        EventKind::AttemptStart => Check::fail("an attempt started after the call was cancelled"),
        EventKind::SleepRequested { .. } => Check::fail("the call slept after it was cancelled"),
        EventKind::CallEnd { .. } => Check::that(event.at == *cancel_at, "the call returned after it was cancelled"),
        _ => Check::Skip,
    })
}

/// `timeout_does_not_end_stream` (liveness): a call that timed out (its last attempt timed out, or it
/// returned `Err(Timeout)`) does not end the stream: when the schedule has a next call, it starts.
///
/// - Needs: `serves_stream == true`.
/// - Compares: no instants (which calls started), so the timer granularity does not enter.
/// - Violated, on a complete trace without the next call, at the timed-out call's `CallEnd` (its last
///   event if it never ended). Inconclusive on a truncated trace.
/// - Vacuous when no timed-out call had a next call in the schedule.
/// - Example violation: item 2 of 5 times out and the subject stops serving the stream.
pub const TIMEOUT_DOES_NOT_END_STREAM: Law = Law {
    id: ids::TIMEOUT_DOES_NOT_END_STREAM,
    title: "a timeout does not end the stream",
    kind: LawKind::Liveness,
    needs: &["timing.serves_stream"],
    applies: applies!(contract => contract.timing.serves_stream),
    check: timeout_does_not_end_stream,
};

fn timed_out(call: &[Event]) -> bool {
    let last_end = call.iter().rev().find(|event| ends_attempt(&event.kind));
    let last_attempt = last_end.and_then(|event| attempt_result(&event.kind));
    let result = call.iter().rev().find_map(super::support::end_of);
    let timeout = CallResult::Err(ErrorKind::Timeout);
    last_attempt == Some(timeout) || result == Some(timeout)
}

fn timeout_does_not_end_stream(observation: &Observation<'_>) -> Verdict {
    let calls = observation.schedule.calls.len();
    let mut verdict = Verdict::Vacuous;
    let mut chunks = per_call(&observation.trace.events).peekable();
    while let Some(call) = chunks.next() {
        let index = call[0].call as usize; // `per_call` never yields an empty chunk.
        if index + 1 >= calls || !timed_out(call) {
            continue;
        }
        let next_started = chunks.peek().is_some_and(|next| {
            next[0].call as usize == index + 1 && matches!(next[0].kind, EventKind::CallStart { .. })
        });
        verdict = verdict.merge(match (next_started, observation.trace.is_complete()) {
            (true, _) => Verdict::Holds,
            (false, true) => stream_ended(call),
            (false, false) => Verdict::Inconclusive(Cow::Borrowed("the trace was cut short after a timed-out call")),
        });
        if verdict.is_violated() {
            break;
        }
    }
    verdict
}

fn stream_ended(call: &[Event]) -> Verdict {
    let end = call.iter().find(|event| matches!(event.kind, EventKind::CallEnd { .. }));
    let event = end.or(call.last()).map(|event| event.seq);
    Verdict::Violated(Violation {
        check: crate::CheckSite::here(),
        event,
        message: Cow::Borrowed("the stream ended after a timed-out call"),
    })
}
