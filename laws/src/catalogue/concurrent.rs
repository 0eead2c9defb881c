//! Laws about the work a call runs at once: hedged attempts (how many, how soon, none left running),
//! attempts left running after a cancellation, and the order in which overlapping calls return.
//!
//! The hedging and cancellation laws judge one call at a time (an interleaved trace reaches them regrouped
//! by call, [`super::judged_per_call`]); the order law walks the trace in time order.

use timelaw_core::{Event, EventKind, VInstant};

use super::support::ends_attempt;
use crate::ids;
use crate::law::{applies, Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

/// One call's attempts while walking it: running now, hedges started, the latest attempt start.
#[derive(Clone, Copy, Debug, Default)]
struct Attempts {
    running: u32,
    hedges: u32,
    latest_start: Option<VInstant>,
}

impl Attempts {
    /// Takes in `kind` at `at` (a `CallStart` resets); returns `true` when it starts a hedge (an attempt
    /// started while another of the same call runs).
    fn step(&mut self, kind: &EventKind) -> bool {
        match kind {
            EventKind::CallStart { .. } => *self = Attempts::default(),
            EventKind::AttemptStart => {
                let hedge = self.running > 0;
                self.running += 1;
                self.hedges += u32::from(hedge);
                return hedge;
            }
            kind if ends_attempt(kind) => self.running = self.running.saturating_sub(1),
            _ => {}
        }
        false
    }
}

/// `hedges_within_limit_and_delay`: a call starts at most `max_hedges` hedges (attempts started while
/// another attempt of the call runs), each no earlier than `delay` after the latest attempt start of the
/// call before it.
///
/// - Needs: `hedge` (reads `delay`, `max_hedges`).
/// - Compares: instants exactly.
/// - Violated at the `AttemptStart` of a hedge one too many or too early.
/// - Vacuous when no call hedged.
/// - Example violation: `delay = 50ms`, and the hedge starts 10ms after the first attempt.
pub const HEDGES_WITHIN_LIMIT_AND_DELAY: Law = Law {
    id: ids::HEDGES_WITHIN_LIMIT_AND_DELAY,
    title: "hedges stay within their limit and never start before the hedge delay",
    kind: LawKind::Safety,
    needs: &["hedge"],
    applies: applies!(contract => contract.hedge.is_stated()),
    check: hedges_within_limit_and_delay,
};

fn hedges_within_limit_and_delay(observation: &Observation<'_>) -> Verdict {
    let Some(hedge) = observation.contract.hedge.into_stated() else { return Verdict::NotApplicable };
    monitor(&observation.trace.events, Attempts::default(), |attempts, event| {
        let previous = attempts.latest_start;
        let hedged = attempts.step(&event.kind);
        if event.kind == EventKind::AttemptStart {
            attempts.latest_start = Some(event.at);
        }
        if !hedged {
            return Check::Skip;
        }
        if attempts.hedges > hedge.max_hedges {
            return Check::fail("a call started more hedges than the hedge limit");
        }
        let due = previous.map_or(VInstant::EPOCH, |start| start.saturating_add(hedge.delay));
        Check::that(event.at >= due, "a hedge started before the hedge delay")
    })
}

/// `hedged_call_leaves_no_attempt_running`: once a call returns, none of its attempts is still running:
/// every attempt it started ended (completed, timed out, cancelled or dropped) before its `CallEnd`.
///
/// - Needs: `hedge` (present, stated or not).
/// - Violated at the `CallEnd` of a call with an attempt still running.
/// - Vacuous when no call returned.
/// - Example violation: the first hedge wins and the loser is never cancelled.
pub const HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING: Law = Law {
    id: ids::HEDGED_CALL_LEAVES_NO_ATTEMPT_RUNNING,
    title: "a hedged call leaves no attempt running once it returns",
    kind: LawKind::Safety,
    needs: &["hedge"],
    applies: applies!(contract => contract.hedge.is_present()),
    check: hedged_call_leaves_no_attempt_running,
};

fn hedged_call_leaves_no_attempt_running(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, Attempts::default(), |attempts, event| {
        attempts.step(&event.kind);
        match event.kind {
            EventKind::CallEnd { .. } => {
                Check::that(attempts.running == 0, "the call returned with an attempt still running")
            }
            _ => Check::Skip,
        }
    })
}

/// `cancellation_leaves_nothing_running`: a cancelled call leaves no attempt running after its
/// cancellation instant `k = start + cancel_after`: every attempt running at `k` (hedges included) ends by
/// `k`, and no attempt or sleep of the call is cut after `k`.
///
/// - Needs: `honors_cancellation == true` (reads the schedule's `cancel_after`).
/// - Violated at the first attempt end or `SleepCancelled` after `k`, or at a `CallEnd` at or after `k`
///   with an attempt still running.
/// - Vacuous when no call was still running at its cancellation instant.
/// - Example violation: cancelled at 50ms, the call returns `Err(Cancelled)` but its attempt ends at 80ms.
pub const CANCELLATION_LEAVES_NOTHING_RUNNING: Law = Law {
    id: ids::CANCELLATION_LEAVES_NOTHING_RUNNING,
    title: "a cancelled call leaves no attempt running",
    kind: LawKind::Safety,
    needs: &["timing.honors_cancellation"],
    applies: applies!(contract => contract.timing.honors_cancellation),
    check: cancellation_leaves_nothing_running,
};

fn cancellation_leaves_nothing_running(observation: &Observation<'_>) -> Verdict {
    let schedule = observation.schedule;
    let start = (VInstant::END, Attempts::default());
    monitor(&observation.trace.events, start, |(cancel_at, attempts), event| {
        attempts.step(&event.kind);
        if let EventKind::CallStart { .. } = event.kind {
            let after = schedule.calls.get(event.call as usize).and_then(|script| script.cancel_after);
            *cancel_at = after.map_or(VInstant::END, |after| event.at.saturating_add(after));
            return Check::Skip;
        }
        if *cancel_at == VInstant::END || event.at < *cancel_at {
            return Check::Skip;
        }
        match event.kind {
            kind if ends_attempt(&kind) || kind == EventKind::SleepCancelled => {
                Check::that(event.at == *cancel_at, "an attempt or sleep of a cancelled call ran past the cancellation")
            }
            EventKind::CallEnd { .. } => {
                Check::that(attempts.running == 0, "a cancelled call returned with an attempt still running")
            }
            _ => Check::Skip,
        }
    })
}

/// `ordered_results_in_input_order`: a stream that promises ordered results returns them in input order:
/// no call returns before a call that started before it (call numbers are the input order). A call that
/// returns at or after its cancellation instant (`start + cancel_after`) is not judged and does not count
/// as returned: its caller stopped waiting for it, so it leaves the stream (it may return at once, as
/// `cancellation_stops_work` asks).
///
/// - Needs: `timing.ordered_results == true`.
/// - Violated at the `CallEnd` of a call returning after a later call already returned.
/// - Vacuous when no call returned.
/// - Example violation: items 0 and 1 run at once, item 1 finishes first and is returned first.
pub const ORDERED_RESULTS_IN_INPUT_ORDER: Law = Law {
    id: ids::ORDERED_RESULTS_IN_INPUT_ORDER,
    title: "ordered results come back in input order",
    kind: LawKind::Safety,
    needs: &["timing.ordered_results"],
    applies: applies!(contract => contract.timing.ordered_results),
    check: ordered_results_in_input_order,
};

fn ordered_results_in_input_order(observation: &Observation<'_>) -> Verdict {
    let events = &observation.trace.events;
    monitor(events, None, |latest: &mut Option<u32>, event| match event.kind {
        EventKind::CallEnd { .. } if cancelled_by(observation, events, event) => Check::Skip,
        EventKind::CallEnd { .. } => {
            let in_order = latest.is_none_or(|latest| event.call > latest);
            *latest = Some(latest.map_or(event.call, |latest| latest.max(event.call)));
            Check::that(in_order, "a result came back before the result of an earlier input")
        }
        _ => Check::Skip,
    })
}

/// `true` when `end` (a `CallEnd` of `events`) comes at or after its call's cancellation instant.
fn cancelled_by(observation: &Observation<'_>, events: &[Event], end: &Event) -> bool {
    let script = observation.schedule.calls.get(end.call as usize);
    let Some(after) = script.and_then(|script| script.cancel_after) else { return false };
    // A call starts once: its `CallStart` is the one with its number.
    let start = events.iter().find(|event| event.call == end.call && matches!(event.kind, EventKind::CallStart { .. }));
    start.is_some_and(|start| end.at >= start.at.saturating_add(after))
}
