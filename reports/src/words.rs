//! Events in words: the one sentence per event the timeline, fixture trace lines and reports share. No
//! table here, so every build has it (the tables are behind the `table` feature).

use timelaw_core::{CallResult, CircuitState, Diagnostic, ErrorKind, Event, EventKind, Outcome, Rejection, VDuration};

/// What `event` means, in a few words: "call started", "attempt 2 started", "attempt ended: transient",
/// "timed out after 50ms", "slept 100ms", "call returned Err(timeout)", "rejected: circuit open",
/// "circuit closed → open", ...
///
/// ```
/// use timelaw_core::{Event, EventKind, VDuration, VInstant};
/// let event = Event { at: VInstant::EPOCH, seq: 0, call: 0, attempt: 2, kind: EventKind::AttemptStart };
/// assert_eq!(timelaw_reports::describe_event(&event), "attempt 2 started");
/// ```
pub fn describe_event(event: &Event) -> String {
    match event.kind {
        EventKind::CallStart { idempotent: true } => "call started".to_owned(),
        EventKind::CallStart { idempotent: false } => "call started (not idempotent)".to_owned(),
        EventKind::CallEnd { result: CallResult::Ok } => "call returned Ok".to_owned(),
        EventKind::CallEnd { result: CallResult::Err(kind) } => format!("call returned Err({})", error_name(kind)),
        EventKind::AttemptStart => format!("attempt {} started", event.attempt),
        EventKind::AttemptEnd { outcome } => format!("attempt ended: {}", outcome_words(outcome)),
        EventKind::AttemptTimedOut { timeout } => format!("timed out after {timeout}"),
        EventKind::AttemptCancelled => "attempt cancelled".to_owned(),
        EventKind::SleepRequested { duration } => format!("slept {duration}"),
        EventKind::SleepCancelled => "sleep cancelled".to_owned(),
        EventKind::SleepClamped { to } => format!("sleep clamped to {to} by the runtime"),
        EventKind::Rejected { reason: Rejection::CircuitOpen } => "rejected: circuit open".to_owned(),
        EventKind::Rejected { reason: Rejection::BudgetExhausted } => "rejected: retry budget exhausted".to_owned(),
        EventKind::Rejected { reason: Rejection::BulkheadFull } => "rejected: bulkhead full".to_owned(),
        EventKind::Rejected { reason: Rejection::LimiterEmpty } => "rejected: rate limiter empty".to_owned(),
        EventKind::Queued => "queued for a bulkhead slot".to_owned(),
        EventKind::CircuitTransition { from, to } => format!("circuit {} → {}", state_name(from), state_name(to)),
        EventKind::Notify { delay } => format!("notified: retry in {delay}"),
        EventKind::Panic => "panicked".to_owned(),
        EventKind::AttemptDropped { ran } => format!("attempt dropped after {ran} (not by its own timeout)"),
        EventKind::ClockReadFailed { clock } => format!("{} clock read failed", clock.name()),
        EventKind::WallJump { by_ns } => jump_words(by_ns),
        EventKind::Diagnostic { diagnostic: Diagnostic::TimingMissing { clock } } => {
            format!("timing missing ({} clock unreadable)", clock.name())
        }
    }
}

fn jump_words(by_ns: i64) -> String {
    let size = VDuration::from_nanos(by_ns.unsigned_abs());
    let direction = if by_ns < 0 { "back" } else { "forward" };
    format!("wall clock jumped {direction} {size}")
}

fn outcome_words(outcome: Outcome) -> String {
    match outcome {
        Outcome::RateLimited { retry_after } => format!("rate limited (retry after {retry_after})"),
        other => other.name().to_owned(),
    }
}

fn error_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Transient => "transient",
        ErrorKind::Fatal => "fatal",
        ErrorKind::RateLimited => "rate_limited",
        ErrorKind::Timeout => "timeout",
        ErrorKind::CircuitOpen => "circuit_open",
        ErrorKind::Cancelled => "cancelled",
        ErrorKind::DeadlineExceeded => "deadline_exceeded",
        ErrorKind::BulkheadFull => "bulkhead_full",
        ErrorKind::LimiterEmpty => "limiter_empty",
    }
}

fn state_name(state: CircuitState) -> &'static str {
    match state {
        CircuitState::Closed => "closed",
        CircuitState::Open => "open",
        CircuitState::HalfOpen => "half-open",
    }
}
