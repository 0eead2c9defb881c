//! The trace: an append-only record of what a subject did, in virtual time.
//!
//! Every [`Event`] carries its instant and a sequence number equal to its index. Events that share an
//! instant happened in sequence-number order (the tie rule of [`crate::time`]). Events are `Copy` and hold
//! no heap data, and the event buffer is preallocated, so recording costs no allocation per event.

use std::cell::Cell;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use crate::clock::{ClockKind, ClockReads};
use crate::schedule::Outcome;
use crate::time::{VDuration, VInstant};

/// Events preallocated for every trace; traces longer than this grow the buffer once in a while.
pub const TRACE_CAPACITY: usize = 64;

/// The largest event buffer (in events) [`Trace::recycle`] keeps for the thread's next trace.
pub const RECYCLED_CAPACITY_MAX: usize = 4096;

thread_local! {
    /// The event buffer [`Trace::recycle`] handed back last on this thread (empty when there is none).
    static SPARE_EVENTS: Cell<Vec<Event>> = const { Cell::new(Vec::new()) };
}

/// Why a call ended in an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The last attempt failed transiently.
    Transient,
    /// The last attempt failed fatally.
    Fatal,
    /// The last attempt was rate limited.
    RateLimited,
    /// The last attempt timed out.
    Timeout,
    /// The circuit breaker refused the call.
    CircuitOpen,
    /// The caller cancelled the call.
    Cancelled,
    /// The call's overall deadline passed.
    DeadlineExceeded,
    /// The bulkhead refused the call: every slot and its queue were full. (Added after the other kinds, so
    /// their digests and fixture texts are unchanged.)
    BulkheadFull,
    /// The rate limiter refused the call: its bucket had no token left.
    LimiterEmpty,
}

impl ErrorKind {
    /// The error a call returns when its last attempt ended with `outcome` (`None` for `Ok`).
    pub const fn from_outcome(outcome: Outcome) -> Option<ErrorKind> {
        match outcome {
            Outcome::Ok => None,
            Outcome::Transient => Some(ErrorKind::Transient),
            Outcome::Fatal => Some(ErrorKind::Fatal),
            Outcome::RateLimited { .. } => Some(ErrorKind::RateLimited),
            Outcome::Hang => Some(ErrorKind::Timeout),
        }
    }
}

/// The result a call returned to its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallResult {
    /// `Ok(_)`.
    Ok,
    /// `Err(_)` of this kind.
    Err(ErrorKind),
}

impl CallResult {
    /// `true` for [`CallResult::Ok`].
    pub const fn is_ok(self) -> bool {
        matches!(self, CallResult::Ok)
    }
    /// The result a call returns when its last attempt ended with `outcome`.
    pub const fn from_outcome(outcome: Outcome) -> CallResult {
        match ErrorKind::from_outcome(outcome) {
            None => CallResult::Ok,
            Some(kind) => CallResult::Err(kind),
        }
    }
}

/// Why a subject refused to dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// The circuit breaker is open (or half-open with its probes used up).
    CircuitOpen,
    /// The retry budget has no retry left.
    BudgetExhausted,
    /// The bulkhead has every slot taken and its queue full (or no queue). (Added after the other reasons,
    /// so their digests and fixture texts are unchanged.)
    BulkheadFull,
    /// The rate limiter's bucket has no token left.
    LimiterEmpty,
}

/// The state of a circuit breaker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CircuitState {
    /// Calls flow.
    Closed,
    /// Calls are refused.
    Open,
    /// A limited number of probe calls are let through.
    HalfOpen,
}

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A call started (recorded by the World).
    CallStart {
        /// Whether the call is idempotent.
        idempotent: bool,
    },
    /// A call returned to its caller (recorded by the World).
    CallEnd {
        /// What it returned.
        result: CallResult,
    },
    /// An attempt was dispatched; `Event::attempt` numbers it from 1 within its call.
    AttemptStart,
    /// An attempt completed with its scripted outcome.
    AttemptEnd {
        /// The scripted outcome.
        outcome: Outcome,
    },
    /// An attempt was cut when its timeout expired.
    AttemptTimedOut {
        /// The timeout the attempt ran under.
        timeout: VDuration,
    },
    /// An attempt was cut by the caller's cancellation.
    AttemptCancelled,
    /// The subject asked to sleep.
    SleepRequested {
        /// How long.
        duration: VDuration,
    },
    /// A sleep was cut short by the caller's cancellation.
    SleepCancelled,
    /// The sleep requested just before was clamped by the runtime to `to` (tokio sleeps at most about
    /// 30 years): the subject asked for the recorded `SleepRequested` duration, the runtime woke it after
    /// `to`. Laws judge what the subject asked for.
    SleepClamped {
        /// How long the runtime really slept.
        to: VDuration,
    },
    /// The subject refused to dispatch.
    Rejected {
        /// Why.
        reason: Rejection,
    },
    /// A circuit breaker changed state.
    CircuitTransition {
        /// Old state.
        from: CircuitState,
        /// New state.
        to: CircuitState,
    },
    /// The subject notified its user that it will retry after `delay` (like backon's `notify`).
    Notify {
        /// The delay it announced.
        delay: VDuration,
    },
    /// The subject panicked (recorded by the runner).
    Panic,
    /// An attempt was dropped mid-flight by something other than its own timeout or the caller's
    /// cancellation: an enclosing deadline's timeout, a `select!` that chose another branch. It is neither
    /// a timeout of the attempt nor a result of it; what the call returns is up to whatever dropped it.
    /// (Added after the other kinds, so their digests and fixture texts are unchanged.)
    AttemptDropped {
        /// How long the attempt had run.
        ran: VDuration,
    },
    /// A read of `clock` failed because the schedule said so (recorded by the World).
    ClockReadFailed {
        /// The clock that could not be read.
        clock: ClockKind,
    },
    /// The wall clock jumped by `by_ns` nanoseconds (negative: backwards; recorded by the World).
    WallJump {
        /// The size of the jump.
        by_ns: i64,
    },
    /// Something the subject reports about itself (recorded with [`crate::World::diagnose`]).
    Diagnostic {
        /// What.
        diagnostic: Diagnostic,
    },
    /// The call waits in the bulkhead's queue for a slot, until its next event (its first attempt once
    /// admitted, a rejection or its end); a queued call is not in flight. (Added after the other kinds, so
    /// their digests and fixture texts are unchanged.)
    Queued,
}

impl EventKind {
    /// `true` for what a subject *does* (call starts and ends, attempts, sleeps, notifications,
    /// rejections, circuit transitions) and for a panic, as opposed to clock events and diagnostics: the
    /// events the metamorphic wall-jump laws compare ([`first_action_difference`]).
    pub const fn is_action(self) -> bool {
        !matches!(self, EventKind::ClockReadFailed { .. } | EventKind::WallJump { .. } | EventKind::Diagnostic { .. })
    }
}

/// A subject's report about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Diagnostic {
    /// A clock read failed, so this moment has no timing; the subject went on as its contract declares
    /// (see [`crate::ClockContract::on_failed_read`]) and kept the attempt's real outcome.
    TimingMissing {
        /// The clock that could not be read.
        clock: ClockKind,
    },
}

/// The sequence number, in `a`, of the first action ([`EventKind::is_action`]) where `a` and `b` differ
/// (instant, call, attempt or kind), or where one has fewer actions; `None` when their actions are equal.
/// Clock events and diagnostics are skipped, so two runs that differ only in wall jumps compare equal.
pub fn first_action_difference(a: &Trace, b: &Trace) -> Option<u32> {
    let same = |x: &Event, y: &Event| x.at == y.at && x.call == y.call && x.attempt == y.attempt && x.kind == y.kind;
    let mut left = a.events.iter().filter(|event| event.kind.is_action());
    let mut right = b.events.iter().filter(|event| event.kind.is_action());
    loop {
        match (left.next(), right.next()) {
            (None, None) => return None,
            (Some(x), Some(y)) if same(x, y) => {}
            (Some(x), _) => return Some(x.seq),
            (None, Some(_)) => return Some(u32::try_from(a.events.len()).unwrap_or(u32::MAX)),
        }
    }
}

/// One entry of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Event {
    /// When it happened.
    pub at: VInstant,
    /// Its position in the trace; orders events that share an instant.
    pub seq: u32,
    /// The call it belongs to, from 0.
    pub call: u32,
    /// The attempt it belongs to or follows (a sleep, a notification, a rejection after attempt `n`
    /// carries `n`), from 1; 0 before a call's first attempt and on call start and end.
    pub attempt: u32,
    /// What happened.
    pub kind: EventKind,
}

/// Why a trace ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceEnd {
    /// The subject ran every call to the end.
    Complete,
    /// The World stopped the subject (a step limit, a hang, exhausted randomness, a misuse).
    Aborted(crate::world::Abort),
    /// The subject panicked with this message.
    Panicked(String),
}

impl TraceEnd {
    /// `true` when the World cut the run at its virtual time limit (the time-limit cut): the events
    /// before the cut are a prefix of the run, on which safety laws are judged; liveness laws are
    /// inconclusive, and the cut by itself is no violation (long sleeps are not a loop).
    pub fn is_time_limit_cut(&self) -> bool {
        matches!(
            self,
            TraceEnd::Aborted(crate::world::Abort::StepLimit { kind: crate::world::LimitKind::VirtualTime, .. })
        )
    }
}

/// A documented cut: the World stopped a run that was making progress, at a limit that says nothing
/// about the subject. On a cut run, safety laws are judged on the prefix and liveness laws cannot be
/// (counted as cut, not as a failure to judge). Every other unfinished run is either a violation (a hang,
/// a misuse, a refused config) or a run that could not be judged, which fails a check.
///
/// ```
/// use timelaw_core::{Abort, Cut, LimitKind, TraceEnd};
/// let time = TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::VirtualTime, limit: 1 });
/// assert_eq!(time.cut(), Some(Cut::TimeLimit));
/// let sleeps = TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::Sleeps, limit: 1 });
/// assert_eq!(sleeps.cut(), None); // a step limit is no cut: a loop reaches it too
/// assert_eq!(TraceEnd::Complete.cut(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cut {
    /// The virtual time limit ([`TraceEnd::is_time_limit_cut`]): long sleeps are not a loop, and every
    /// sleep before the cut was judged by the delay laws.
    TimeLimit,
    /// A count limit inside a long scripted run ([`TraceEnd::is_long_run_cut`]): the subject was still
    /// consuming scripted dispatches, at most one sleep per attempt.
    LongRun,
}

impl Cut {
    /// A short name: `time limit`, `long scripted run`.
    pub const fn name(self) -> &'static str {
        match self {
            Cut::TimeLimit => "time limit",
            Cut::LongRun => "long scripted run",
        }
    }
}

impl TraceEnd {
    /// The documented cut that ended this run, if any (see [`Cut`]).
    pub fn cut(&self) -> Option<Cut> {
        if self.is_time_limit_cut() {
            Some(Cut::TimeLimit)
        } else if self.is_long_run_cut() {
            Some(Cut::LongRun)
        } else {
            None
        }
    }

    /// `true` when the World cut the run at a count limit inside a long scripted run
    /// ([`Abort::LongRunCut`](crate::world::Abort::LongRunCut)): like the time-limit cut, the events
    /// before it are a prefix of a run that was making progress.
    pub fn is_long_run_cut(&self) -> bool {
        matches!(self, TraceEnd::Aborted(crate::world::Abort::LongRunCut { .. }))
    }
}

/// The record of one run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Trace {
    /// The events, in sequence order.
    pub events: Vec<Event>,
    /// Why the trace ended.
    pub end: TraceEnd,
    /// How often each clock was read through the World. Successful reads are only counted (no event, so
    /// reading costs no trace space); failed reads are also `ClockReadFailed` events.
    #[serde(default)]
    pub clock_reads: ClockReads,
}

impl Default for Trace {
    fn default() -> Trace {
        Trace::new()
    }
}

impl Trace {
    /// An empty, complete trace with at least [`TRACE_CAPACITY`] events preallocated: the buffer the last
    /// [`Trace::recycle`] on this thread handed back, when there is one.
    pub fn new() -> Trace {
        let mut events = SPARE_EVENTS.try_with(Cell::take).unwrap_or_default();
        if events.capacity() < TRACE_CAPACITY {
            events = Vec::with_capacity(TRACE_CAPACITY);
        }
        debug_assert!(events.is_empty(), "a recycled buffer is handed back empty");
        Trace { events, end: TraceEnd::Complete, clock_reads: ClockReads::default() }
    }
    /// An empty, complete trace that allocates nothing (a placeholder that never records an event).
    pub fn unallocated() -> Trace {
        Trace { events: Vec::new(), end: TraceEnd::Complete, clock_reads: ClockReads::default() }
    }
    /// Hands the trace's event buffer back to this thread, emptied, for its next [`Trace::new`]: a loop
    /// that judges one trace after another (the runner) allocates a trace's buffer once, not per case.
    /// A buffer above [`RECYCLED_CAPACITY_MAX`] events is freed instead, so one long run does not keep
    /// its memory for the rest of the thread's life. What a trace records never depends on it.
    pub fn recycle(self) {
        let mut events = self.events;
        if events.capacity() < TRACE_CAPACITY || events.capacity() > RECYCLED_CAPACITY_MAX {
            return;
        }
        events.clear();
        // During the thread's own teardown the buffer is simply freed.
        let _ = SPARE_EVENTS.try_with(|spare| spare.set(events));
    }
    /// Appends an event; its sequence number is its index.
    pub fn push(&mut self, at: VInstant, call: u32, attempt: u32, kind: EventKind) {
        let seq = u32::try_from(self.events.len()).unwrap_or(u32::MAX);
        if let Some(last) = self.events.last() {
            debug_assert!(last.at <= at, "trace instants must never go backwards");
        }
        self.events.push(Event { at, seq, call, attempt, kind });
    }
    /// `true` when the subject ran to the end on its own (not aborted, not panicked).
    pub fn is_complete(&self) -> bool {
        matches!(self.end, TraceEnd::Complete)
    }
    /// The events of call `call`, in order.
    pub fn call_events(&self, call: u32) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(move |event| event.call == call)
    }
    /// A digest of the actions only ([`EventKind::is_action`]: instant, call, attempt and kind, not the
    /// sequence number), so two runs that differ only in clock events have the same action digest.
    pub fn action_digest(&self) -> u64 {
        let mut hasher = Fnv1a::default();
        for event in self.events.iter().filter(|event| event.kind.is_action()) {
            (event.at, event.call, event.attempt, event.kind).hash(&mut hasher);
        }
        hasher.finish()
    }
    /// A digest of the events and the end, with a fixed algorithm (FNV-1a over the `Hash` stream);
    /// two traces with the same digest are, for all practical purposes, equal.
    pub fn digest(&self) -> u64 {
        let mut hasher = Fnv1a::default();
        self.events.hash(&mut hasher);
        self.end.hash(&mut hasher);
        self.clock_reads.hash(&mut hasher);
        hasher.finish()
    }
}

/// FNV-1a 64: a fixed, dependency-free hasher for digests.
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Fnv1a {
        Fnv1a(0xCBF2_9CE4_8422_2325)
    }
}

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01B3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EventKind, Trace, RECYCLED_CAPACITY_MAX, TRACE_CAPACITY};
    use crate::time::VInstant;

    #[test]
    fn a_recycled_buffer_comes_back_empty_to_the_next_trace_on_the_thread() {
        let mut trace = Trace::new();
        for _ in 0..3 * TRACE_CAPACITY {
            trace.push(VInstant::EPOCH, 0, 1, EventKind::AttemptStart);
        }
        let (buffer, capacity) = (trace.events.as_ptr(), trace.events.capacity());
        trace.recycle();
        let next = Trace::new();
        assert!(next.events.is_empty() && next.is_complete());
        assert_eq!((next.events.as_ptr(), next.events.capacity()), (buffer, capacity));
        let other = Trace::new();
        assert_ne!(other.events.as_ptr(), buffer, "one buffer serves one trace at a time");
        assert!(other.events.capacity() >= TRACE_CAPACITY);
    }

    #[test]
    fn a_buffer_above_the_limit_is_freed_and_a_placeholder_allocates_nothing() {
        let mut huge = Trace::new();
        huge.events.reserve_exact(RECYCLED_CAPACITY_MAX + 1);
        huge.recycle();
        assert!(Trace::new().events.capacity() <= RECYCLED_CAPACITY_MAX, "the huge buffer was not kept");
        assert_eq!(Trace::unallocated().events.capacity(), 0);
    }
}
