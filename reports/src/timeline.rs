//! The timeline of one counterexample: its trace as a table, the violating event marked.

use timelaw_core::{Event, EventKind, Trace, TraceEnd, WallInstant};
use timelaw_laws::Violation;

use crate::lanes::{self, LaneCells};
use crate::style::{self, paint, Tone};
use crate::words::describe_event;

/// The mark in the first column of the violating event's row.
pub const MARK: &str = "▶";

const COLUMNS: [&str; 7] = ["", "seq", "at", "call", "attempt", "delay", "what"];
/// The columns holding numbers and durations, right-aligned.
const NUMERIC_COLUMNS: [&str; 5] = ["seq", "at", "call", "attempt", "delay"];

/// Renders `trace` as a table with one row per event: a mark ([`MARK`]) on the violating event, the
/// sequence number, the instant (time since the start of the run, like `300ms`), the call (from 0), the
/// attempt (from 1; empty outside attempts), the delay of a sleep or notification, and what happened in
/// words ([`describe_event`]). Then how the trace ended, and the law id with the violation's sentence.
///
/// When calls overlap (a call starts while another is in flight) and there are at most
/// [`LANES_MAX`](crate::lanes::LANES_MAX) of them, the `call` and `what` columns give way to one lane per
/// call (`call 0`, `call 1`, ...): each event's words stand in its own call's lane, and the lanes of the
/// other calls in flight show `⋮` ([`crate::lanes`]). A sequential trace is shown as before.
///
/// When the trace has clock events (a wall jump, a failed clock read), both clocks are shown: a `wall`
/// column after `at` holds each event's wall-clock instant (RFC 3339, the jumps so far applied), and the
/// last line counts the clock reads.
///
/// The violating event is `violation.event`; with no violation, or one not blamed on a single event, no
/// row is marked. With `color`, the marked row and the sentence are red (ANSI codes); without it the text
/// holds no escape codes. The text ends with a newline.
///
/// # Examples
/// ```
/// use timelaw_core::{EventKind, Trace, VDuration, VInstant};
/// use timelaw_laws::Verdict;
/// use timelaw_reports::render_timeline;
///
/// let mut trace = Trace::new();
/// trace.push(VInstant::EPOCH, 0, 0, EventKind::CallStart { idempotent: true });
/// trace.push(VInstant::EPOCH, 0, 0, EventKind::SleepRequested { duration: VDuration::from_millis(300) });
/// let verdict = Verdict::violated_at(1, "slept 300ms, more than delay_max 100ms");
/// let text = render_timeline(&trace, verdict.violation(), "delay_within_cap", false);
/// assert!(text.contains("▶"));
/// assert!(text.contains("slept 300ms"));
/// assert!(text.ends_with("delay_within_cap: slept 300ms, more than delay_max 100ms\n"));
/// ```
pub fn render_timeline(trace: &Trace, violation: Option<&Violation>, law_id: &str, color: bool) -> String {
    let marked = violation.and_then(|violation| violation.event);
    let both_clocks = trace.events.iter().any(|event| is_clock_event(event.kind));
    let lanes = lanes::lanes(trace);
    let mut table = style::table(color);
    let header = header(both_clocks, lanes.as_deref());
    table.set_header(header.clone());
    let mut wall_offset_ns = 0_i128;
    let mut lane_cells = LaneCells::default();
    for event in &trace.events {
        let is_marked = marked == Some(event.seq);
        let tone = if is_marked { Tone::Bad } else { Tone::Plain };
        let mut cells = vec![
            if is_marked { MARK.to_owned() } else { String::new() },
            event.seq.to_string(),
            event.at.since_epoch().to_string(),
        ];
        if both_clocks {
            if let EventKind::WallJump { by_ns } = event.kind {
                wall_offset_ns += i128::from(by_ns);
            }
            cells.push(WallInstant::at(event.at, wall_offset_ns).to_string());
        }
        if lanes.is_none() {
            cells.push(event.call.to_string());
        }
        cells.push(if event.attempt == 0 { String::new() } else { event.attempt.to_string() });
        cells.push(delay(event));
        match &lanes {
            Some(lanes) => cells.extend(lane_cells.next(lanes, event.call, event.kind, describe_event(event))),
            None => cells.push(describe_event(event)),
        }
        table.add_row(cells.into_iter().map(|text| style::cell(text, tone)));
    }
    for (index, name) in header.iter().enumerate() {
        if NUMERIC_COLUMNS.contains(&name.as_str()) {
            if let Some(column) = table.column_mut(index) {
                column.set_cell_alignment(comfy_table::CellAlignment::Right);
            }
        }
    }
    let mut lines = vec![table.to_string()];
    if lanes.is_some() {
        lines.push(format!("lanes: one column per call; {} marks a call in flight", lanes::IN_FLIGHT));
    }
    lines.push(format!("end: {}", describe_end(&trace.end)));
    if both_clocks {
        let reads = trace.clock_reads;
        lines.push(format!("clock reads: monotonic {}, wall {}", reads.monotonic, reads.wall));
    }
    lines.push(verdict_line(trace, violation, law_id, color));
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// The column names: the flat layout's ([`COLUMNS`]), or with lanes `call N` columns in place of
/// `call` and `what`; `wall` after `at` when both clocks are shown.
fn header(both_clocks: bool, lanes: Option<&[u32]>) -> Vec<String> {
    let mut header: Vec<String> = COLUMNS.iter().map(|name| (*name).to_owned()).collect();
    if both_clocks {
        header.insert(3, "wall".to_owned());
    }
    if let Some(lanes) = lanes {
        header.retain(|name| name != "call" && name != "what");
        header.extend(lanes.iter().map(|call| format!("call {call}")));
    }
    header
}

/// The last line: the violating event and the law's sentence, or "no violation".
fn verdict_line(trace: &Trace, violation: Option<&Violation>, law_id: &str, color: bool) -> String {
    match violation {
        None => format!("{law_id}: no violation"),
        Some(violation) => {
            let location = match violation.event {
                Some(event) if usize::try_from(event).is_ok_and(|index| index < trace.events.len()) => {
                    format!("{MARK} event {event} violates ")
                }
                Some(event) => format!("event {event} (not in this trace) violates "),
                None => String::new(),
            };
            paint(&format!("{location}{law_id}: {}", violation.message), Tone::Bad, color)
        }
    }
}

fn delay(event: &Event) -> String {
    match event.kind {
        EventKind::SleepRequested { duration } => duration.to_string(),
        EventKind::Notify { delay } => delay.to_string(),
        _ => String::new(),
    }
}

fn is_clock_event(kind: EventKind) -> bool {
    matches!(kind, EventKind::WallJump { .. } | EventKind::ClockReadFailed { .. })
}

/// How a trace ended, in words.
fn describe_end(end: &TraceEnd) -> String {
    match end {
        TraceEnd::Complete => "complete".to_owned(),
        TraceEnd::Aborted(abort) => format!("aborted: {abort}"),
        TraceEnd::Panicked(message) => format!("panicked: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use timelaw_core::{ClockKind, VInstant};

    use timelaw_core::{CallResult, CircuitState, Diagnostic, ErrorKind, Outcome, Rejection, VDuration};

    use super::*;

    #[track_caller]
    fn check(attempt: u32, kind: EventKind, expected: &str) {
        let event = Event { at: VInstant::EPOCH, seq: 0, call: 0, attempt, kind };
        assert_eq!(describe_event(&event), expected);
    }

    #[test]
    fn events_in_words() {
        let ms = VDuration::from_millis;
        check(0, EventKind::CallStart { idempotent: true }, "call started");
        check(0, EventKind::CallStart { idempotent: false }, "call started (not idempotent)");
        check(0, EventKind::CallEnd { result: CallResult::Ok }, "call returned Ok");
        check(0, EventKind::CallEnd { result: CallResult::Err(ErrorKind::Timeout) }, "call returned Err(timeout)");
        let deadline = EventKind::CallEnd { result: CallResult::Err(ErrorKind::DeadlineExceeded) };
        check(0, deadline, "call returned Err(deadline_exceeded)");
        check(2, EventKind::AttemptStart, "attempt 2 started");
        check(2, EventKind::AttemptEnd { outcome: Outcome::Transient }, "attempt ended: transient");
        let limited = EventKind::AttemptEnd { outcome: Outcome::RateLimited { retry_after: ms(200) } };
        check(2, limited, "attempt ended: rate limited (retry after 200ms)");
        check(1, EventKind::AttemptTimedOut { timeout: ms(50) }, "timed out after 50ms");
        check(1, EventKind::AttemptCancelled, "attempt cancelled");
        check(1, EventKind::AttemptDropped { ran: ms(59) }, "attempt dropped after 59ms (not by its own timeout)");
        check(1, EventKind::SleepRequested { duration: ms(100) }, "slept 100ms");
        check(1, EventKind::SleepCancelled, "sleep cancelled");
        check(1, EventKind::SleepClamped { to: VDuration::from_secs(1) }, "sleep clamped to 1s by the runtime");
        check(0, EventKind::Rejected { reason: Rejection::CircuitOpen }, "rejected: circuit open");
        check(0, EventKind::Rejected { reason: Rejection::BudgetExhausted }, "rejected: retry budget exhausted");
        let opened = EventKind::CircuitTransition { from: CircuitState::Closed, to: CircuitState::Open };
        check(0, opened, "circuit closed → open");
        let probing = EventKind::CircuitTransition { from: CircuitState::Open, to: CircuitState::HalfOpen };
        check(0, probing, "circuit open → half-open");
        check(1, EventKind::Notify { delay: VDuration::from_secs(1) }, "notified: retry in 1s");
        check(0, EventKind::Panic, "panicked");
        check(1, EventKind::ClockReadFailed { clock: ClockKind::Wall }, "wall clock read failed");
        check(1, EventKind::WallJump { by_ns: -3_600_000_000_000 }, "wall clock jumped back 3600s");
        check(1, EventKind::WallJump { by_ns: 1 }, "wall clock jumped forward 1ns");
        let missing = EventKind::Diagnostic { diagnostic: Diagnostic::TimingMissing { clock: ClockKind::Monotonic } };
        check(1, missing, "timing missing (monotonic clock unreadable)");
    }

    #[test]
    fn both_clocks_are_shown_when_the_wall_clock_jumps() {
        let mut trace = Trace::new();
        trace.push(VInstant::EPOCH, 0, 0, EventKind::CallStart { idempotent: true });
        trace.push(VInstant::from_nanos(5_000_000), 0, 1, EventKind::WallJump { by_ns: -3_600_000_000_000 });
        trace.push(VInstant::from_nanos(5_000_000), 0, 1, EventKind::CallEnd { result: CallResult::Ok });
        let text = render_timeline(&trace, None, "wall_jump_keeps_monotonic_limits", false);
        assert!(text.contains("wall"), "{text}");
        assert!(text.contains("2026-01-01T00:00:00Z"), "{text}");
        assert!(text.contains("2025-12-31T23:00:00.005Z"), "{text}");
        assert!(text.contains("wall clock jumped back 3600s"), "{text}");
        assert!(text.contains("clock reads: monotonic 0, wall 0"), "{text}");
        let mut plain = Trace::new();
        plain.push(VInstant::EPOCH, 0, 0, EventKind::CallStart { idempotent: true });
        assert!(!render_timeline(&plain, None, "x", false).contains("wall"));
    }
}
