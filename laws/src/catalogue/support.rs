//! Small helpers shared by the laws of the catalogue: event classification and the call walk.

use timelaw_core::{CallResult, ErrorKind, Event, EventKind, Outcome, Trace, VInstant};

/// The result a call returned, for a `CallEnd` event.
pub fn end_of(event: &Event) -> Option<CallResult> {
    match event.kind {
        EventKind::CallEnd { result } => Some(result),
        _ => None,
    }
}

/// For an event that ends an attempt, the result the attempt stands for (`Err(Timeout)` for a timeout,
/// `Err(Cancelled)` for a cancellation); `None` for every other event.
pub fn attempt_result(kind: &EventKind) -> Option<CallResult> {
    match *kind {
        EventKind::AttemptEnd { outcome } => Some(CallResult::from_outcome(outcome)),
        EventKind::AttemptTimedOut { .. } => Some(CallResult::Err(ErrorKind::Timeout)),
        EventKind::AttemptCancelled => Some(CallResult::Err(ErrorKind::Cancelled)),
        _ => None,
    }
}

/// `true` for every event that ends an attempt: those with a result ([`attempt_result`]) and
/// `AttemptDropped`, an attempt dropped by something other than its own timeout or the caller's
/// cancellation (it stands for no result: what the call returns is up to whatever dropped it).
pub fn ends_attempt(kind: &EventKind) -> bool {
    attempt_result(kind).is_some() || matches!(kind, EventKind::AttemptDropped { .. })
}

/// The result of a call's last attempt while walking the call's events in order.
///
/// An `AttemptCancelled` at the very instant another attempt of the call ended with a result (other than
/// `Err(Cancelled)`), with no attempt started in between, is a hedge's loser: the other attempt decided
/// the call and the loser was cancelled for it, so it stands for no result of its own and the deciding
/// attempt stays the last. On a call that never runs two attempts at once nothing changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LastAttempt {
    /// The result of the last attempt that ended (`None`: none yet, or it was dropped, which stands for
    /// no result).
    pub result: Option<CallResult>,
    /// When an attempt last ended with a result that decides the call, while no attempt started since.
    decided_at: Option<VInstant>,
}

impl LastAttempt {
    /// Takes in `event` (a `CallStart` resets); `true` when it ended an attempt that counts (a hedge's
    /// loser does not).
    pub fn step(&mut self, event: &Event) -> bool {
        match event.kind {
            EventKind::CallStart { .. } => *self = LastAttempt::default(),
            EventKind::AttemptStart => self.decided_at = None,
            EventKind::AttemptCancelled if self.decided_at == Some(event.at) => {}
            ref kind if ends_attempt(kind) => {
                self.result = attempt_result(kind);
                let decides = self.result.is_some_and(|result| result != CallResult::Err(ErrorKind::Cancelled));
                self.decided_at = decides.then_some(event.at);
                return true;
            }
            _ => {}
        }
        false
    }
}

/// `true` for an event that ends an attempt without success.
pub fn is_failed_attempt(kind: &EventKind) -> bool {
    attempt_result(kind).is_some_and(|result| !result.is_ok())
}

/// `true` for `AttemptEnd` with exactly `outcome`'s variant.
pub fn ended_with(kind: &EventKind, wanted: fn(Outcome) -> bool) -> bool {
    matches!(*kind, EventKind::AttemptEnd { outcome } if wanted(outcome))
}

/// `true` for a call result caused by the caller or the clock rather than by the attempts.
pub fn is_interrupted(result: CallResult) -> bool {
    matches!(result, CallResult::Err(ErrorKind::Cancelled | ErrorKind::DeadlineExceeded))
}

/// The index of the last event of the trace.
pub fn last_index(trace: &Trace) -> Option<u32> {
    trace.events.last().map(|event| event.seq)
}

/// The events of call `call`, found from `cursor` on (calls appear in ascending order); advances the
/// cursor past them. Empty when the call never started.
pub fn take_call<'a>(events: &'a [Event], cursor: &mut usize, call: u32) -> &'a [Event] {
    let rest = events.get(*cursor..).unwrap_or_default();
    let start = *cursor + rest.iter().take_while(|event| event.call < call).count();
    let taken = events[start..].iter().take_while(|event| event.call == call).count();
    *cursor = start + taken;
    &events[start..*cursor]
}
