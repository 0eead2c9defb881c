//! Temporal combinators: the building blocks of every law, public so users write their own laws in a few
//! lines.
//!
//! Each combinator takes events (a `&[Event]`, or any iterator of `&Event`, typically filtered) and
//! closures, walks the events once, allocates nothing, and returns a [`Verdict`] whose violation names the
//! violating event by its sequence number ([`Event::seq`], equal to its index in the trace).
//!
//! | combinator | holds when | vacuous when |
//! |---|---|---|
//! | [`always`] | every event satisfies the predicate | there is no event |
//! | [`never()`] | no event satisfies the predicate | there is no event |
//! | [`eventually`] | some event satisfies the predicate | never (inconclusive on a truncated trace) |
//! | [`before`] | every `b` event has an `a` event before it | there is no `b` event |
//! | [`between`] | every event inside a `start`..`end` window satisfies `p` | no window opens |
//! | [`monitor`] | no step fails, and some step passes | no step passes |
//!
//! The messages of combinator violations are generic; name the broken rule with [`Verdict::because`].
//! Each violation records which check found it ([`crate::CheckSite`]): the law's call of the
//! combinator, or, in a [`monitor`], the place the step built its [`Check::Fail`] (through
//! [`Check::that`], [`Check::fail`] or [`Check::failed`]); the shrinker keeps a finding on its check.
//! Time is compared as [`VDuration`](timelaw_core::VDuration) and [`VInstant`](timelaw_core::VInstant),
//! never as strings or floats.
//!
//! # Calls
//! The events of one call are contiguous in a sequential trace (the World runs calls one after another);
//! [`per_call`] splits such a trace into them and [`each_call`] judges every call and merges the verdicts.
//! Once calls overlap their events interleave ([`calls_interleave`]); [`grouped_by_call`] regroups them,
//! call by call, each call's events in their order, every event keeping its sequence number. The standard
//! laws that judge one call at a time are handed that regrouped trace ([`crate::Law::judge`]); the laws
//! that look across calls (the breaker, the budget, the load laws) walk the trace in time order.

use std::borrow::Cow;

use timelaw_core::{Event, Trace};

use crate::verdict::{CheckSite, Verdict};

/// What one step of a [`monitor`] found about one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The event is nothing the law speaks about.
    Skip,
    /// The event is something the law speaks about, and it is fine.
    Pass,
    /// The law is broken at this event, for this reason, found by the check at this site (the
    /// constructors below record their caller's).
    Fail(Cow<'static, str>, CheckSite),
}

impl Check {
    /// [`Check::Pass`] when `ok`, otherwise [`Check::Fail`] with `message`, found here (the caller).
    #[track_caller]
    pub fn that(ok: bool, message: &'static str) -> Check {
        if ok {
            Check::Pass
        } else {
            Check::Fail(Cow::Borrowed(message), CheckSite::here())
        }
    }
    /// [`Check::Fail`] with a fixed message, found here (the caller).
    #[track_caller]
    pub fn fail(message: &'static str) -> Check {
        Check::Fail(Cow::Borrowed(message), CheckSite::here())
    }
    /// [`Check::Fail`] with a formatted message, found here (the caller).
    #[track_caller]
    pub fn failed(message: String) -> Check {
        Check::Fail(Cow::Owned(message), CheckSite::here())
    }
}

fn violation(event: &Event, message: Cow<'static, str>, check: CheckSite) -> Verdict {
    Verdict::Violated(crate::verdict::Violation { event: Some(event.seq), message, check })
}

/// Every event satisfies `holds`. Violated at the first event that does not; vacuous without events.
///
/// ```
/// use timelaw_core::{EventKind, Trace, VDuration, VInstant};
/// use timelaw_laws::temporal::always;
/// use timelaw_laws::Verdict;
///
/// let mut trace = Trace::new();
/// trace.push(VInstant::EPOCH, 0, 0, EventKind::SleepRequested { duration: VDuration::from_millis(5) });
/// trace.push(VInstant::EPOCH, 0, 0, EventKind::SleepRequested { duration: VDuration::from_secs(9) });
/// let cap = VDuration::from_secs(1);
/// let sleeps = trace.events.iter().filter(|e| matches!(e.kind, EventKind::SleepRequested { .. }));
/// let verdict = always(sleeps, |e| matches!(e.kind, EventKind::SleepRequested { duration } if duration <= cap));
/// assert_eq!(verdict.violation().and_then(|v| v.event), Some(1));
/// ```
#[track_caller]
pub fn always<'a, I, P>(events: I, mut holds: P) -> Verdict
where
    I: IntoIterator<Item = &'a Event>,
    P: FnMut(&'a Event) -> bool,
{
    let mut seen = false;
    for event in events {
        if !holds(event) {
            return violation(
                event,
                Cow::Borrowed("an event broke a condition that must always hold"),
                CheckSite::here(),
            );
        }
        seen = true;
    }
    if seen {
        Verdict::Holds
    } else {
        Verdict::Vacuous
    }
}

/// No event satisfies `bad`. Violated at the first event that does; vacuous without events.
#[track_caller]
pub fn never<'a, I, P>(events: I, mut bad: P) -> Verdict
where
    I: IntoIterator<Item = &'a Event>,
    P: FnMut(&'a Event) -> bool,
{
    always(events, |event| !bad(event)).because("an event matched a condition that must never hold")
}

/// Some event satisfies `good`. When none does: violated at the last event if the trace is `complete`
/// (no event index when there are no events), inconclusive otherwise: a truncated trace never lets a
/// liveness law pass or fail.
#[track_caller]
pub fn eventually<'a, I, P>(events: I, mut good: P, complete: bool) -> Verdict
where
    I: IntoIterator<Item = &'a Event>,
    P: FnMut(&'a Event) -> bool,
{
    let mut last = None;
    for event in events {
        if good(event) {
            return Verdict::Holds;
        }
        last = Some(event.seq);
    }
    if !complete {
        return Verdict::Inconclusive(Cow::Borrowed("the trace was cut short before the awaited event"));
    }
    Verdict::Violated(crate::verdict::Violation::new(last, "an awaited event never happened"))
}

/// Every event satisfying `b` has an event satisfying `a` strictly before it (precedence). Violated at
/// the first `b` with no `a` before it; vacuous when no event satisfies `b`.
#[track_caller]
pub fn before<'a, I, A, B>(events: I, mut a: A, mut b: B) -> Verdict
where
    I: IntoIterator<Item = &'a Event>,
    A: FnMut(&'a Event) -> bool,
    B: FnMut(&'a Event) -> bool,
{
    let (mut seen_a, mut seen_b) = (false, false);
    for event in events {
        if b(event) {
            if !seen_a {
                let message = Cow::Borrowed("an event happened before the event that must precede it");
                return violation(event, message, CheckSite::here());
            }
            seen_b = true;
        }
        seen_a = seen_a || a(event);
    }
    if seen_b {
        Verdict::Holds
    } else {
        Verdict::Vacuous
    }
}

/// Inside every window, every event satisfies `p`. A window opens just after an event satisfying `start`
/// and closes at the next event satisfying `end` (which is outside the window); a window never closed runs
/// to the last event. Violated at the first event inside a window that fails `p`; vacuous when no window
/// opens.
#[track_caller]
pub fn between<'a, I, S, E, P>(events: I, mut start: S, mut end: E, mut p: P) -> Verdict
where
    I: IntoIterator<Item = &'a Event>,
    S: FnMut(&'a Event) -> bool,
    E: FnMut(&'a Event) -> bool,
    P: FnMut(&'a Event) -> bool,
{
    let (mut open, mut opened) = (false, false);
    for event in events {
        if open {
            if end(event) {
                open = false;
            } else if !p(event) {
                let message = Cow::Borrowed("an event inside a window broke the window's condition");
                return violation(event, message, CheckSite::here());
            }
        }
        if !open && start(event) {
            open = true;
            opened = true;
        }
    }
    if opened {
        Verdict::Holds
    } else {
        Verdict::Vacuous
    }
}

/// Folds events through a small state machine: `step` updates `state` and checks each event. Violated at
/// the first [`Check::Fail`] (with its message); holds when some step passed; vacuous otherwise.
///
/// To inspect the state afterwards (for a check at the end of the trace), pass `&mut state`.
///
/// ```
/// use timelaw_core::{EventKind, Trace, VInstant};
/// use timelaw_laws::temporal::{monitor, Check};
/// use timelaw_laws::Verdict;
///
/// let mut trace = Trace::new();
/// for _ in 0..3 {
///     trace.push(VInstant::EPOCH, 0, 1, EventKind::AttemptStart);
/// }
/// // At most two attempts.
/// let verdict = monitor(&trace.events, 0_u32, |count, event| match event.kind {
///     EventKind::AttemptStart => {
///         *count += 1;
///         Check::that(*count <= 2, "a third attempt")
///     }
///     _ => Check::Skip,
/// });
/// assert_eq!(verdict, Verdict::violated_at(2, "a third attempt"));
/// ```
pub fn monitor<'a, I, S, F>(events: I, initial: S, mut step: F) -> Verdict
where
    I: IntoIterator<Item = &'a Event>,
    F: FnMut(&mut S, &'a Event) -> Check,
{
    let mut state = initial;
    let mut passed = false;
    for event in events {
        match step(&mut state, event) {
            Check::Skip => {}
            Check::Pass => passed = true,
            Check::Fail(message, check) => return violation(event, message, check),
        }
    }
    if passed {
        Verdict::Holds
    } else {
        Verdict::Vacuous
    }
}

/// `true` when the events of some call are not contiguous or calls do not appear in ascending order:
/// calls overlap, and [`per_call`] would cut a call in pieces. `false` for every sequential trace.
pub fn calls_interleave(events: &[Event]) -> bool {
    let mut chunks = events.chunk_by(|a, b| a.call == b.call).map(|chunk| chunk[0].call);
    let Some(mut last) = chunks.next() else { return false };
    chunks.any(|call| {
        let out_of_order = call <= last;
        last = call;
        out_of_order
    })
}

/// The trace with its events regrouped call by call (ascending call number), each call's events in their
/// order, every event keeping its [`Event::seq`]: what [`per_call`] splits correctly. Allocates; laws call it
/// only when [`calls_interleave`].
pub fn grouped_by_call(trace: &Trace) -> Trace {
    let mut grouped = trace.clone();
    grouped.events.sort_by_key(|event| (event.call, event.seq));
    grouped
}

/// The most event buffers [`with_grouped_by_call`] keeps per thread for the next regrouping (one per
/// regrouping in progress at once: the catalogue's, and a law's own inside it).
const GROUPED_BUFFERS_KEPT: usize = 4;

thread_local! {
    /// Event buffers [`with_grouped_by_call`] reuses, emptied.
    static GROUPED_BUFFERS: std::cell::RefCell<Vec<Vec<Event>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `judge` on [`grouped_by_call`]`(trace)`, the regrouped events written into a buffer this thread
/// reuses from one call to the next: judging a case allocates no trace (unless its run ended in a
/// panic, whose message the regrouped trace copies).
///
/// ```
/// use timelaw_core::{EventKind, Trace, VInstant};
/// use timelaw_laws::temporal::{calls_interleave, with_grouped_by_call};
/// let mut trace = Trace::new();
/// for call in [0, 1, 0] {
///     trace.push(VInstant::EPOCH, call, 1, EventKind::AttemptStart);
/// }
/// let seqs = with_grouped_by_call(&trace, |grouped| grouped.events.iter().map(|event| event.seq).collect::<Vec<_>>());
/// assert_eq!(seqs, [0, 2, 1]);
/// assert!(calls_interleave(&trace.events));
/// ```
pub fn with_grouped_by_call<T>(trace: &Trace, judge: impl FnOnce(&Trace) -> T) -> T {
    let buffer = GROUPED_BUFFERS.try_with(|kept| kept.borrow_mut().pop()).ok().flatten();
    let mut events = buffer.unwrap_or_default();
    events.extend_from_slice(&trace.events);
    // Sequence numbers are unique, so the unstable sort (which needs no scratch buffer) orders as the
    // stable one does.
    events.sort_unstable_by_key(|event| (event.call, event.seq));
    let grouped = Trace { events, end: trace.end.clone(), clock_reads: trace.clock_reads };
    let judged = judge(&grouped);
    let mut events = grouped.events;
    events.clear();
    let _ = GROUPED_BUFFERS.try_with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.len() < GROUPED_BUFFERS_KEPT && events.capacity() <= timelaw_core::RECYCLED_CAPACITY_MAX {
            kept.push(events);
        }
    });
    judged
}

/// The events of each call, in order: maximal runs of events with the same [`Event::call`] (on an
/// interleaved trace, split [`grouped_by_call`] instead).
pub fn per_call(events: &[Event]) -> impl Iterator<Item = &[Event]> {
    events.chunk_by(|a, b| a.call == b.call)
}

/// Judges every call with `judge` and merges the verdicts ([`Verdict::merge`]); stops at the first
/// violation. Vacuous without events.
pub fn each_call<F>(events: &[Event], mut judge: F) -> Verdict
where
    F: FnMut(&[Event]) -> Verdict,
{
    let mut verdict = Verdict::Vacuous;
    for call in per_call(events) {
        verdict = verdict.merge(judge(call));
        if verdict.is_violated() {
            break;
        }
    }
    verdict
}
