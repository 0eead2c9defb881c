//! Laws about admission under load: the bulkhead (calls in flight, its queue and its order, its
//! rejections) and the rate limiter (dispatches per window, its refusals; a token bucket or fixed windows). Each walks the trace in time order
//! (calls overlap), with the definitions of [`timelaw_core::contract_load`]: a call is in flight from its
//! first `AttemptStart` to its `CallEnd`; a `Queued` call waits until its next event; a dispatch is an
//! `AttemptStart`.

use timelaw_core::{Contract, Event, EventKind, FixedWindow, LimiterContract, LimiterWindow, Rejection, VInstant};

use crate::ids;
use crate::law::{applies, Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

/// A set of call numbers: a bit word for the first 128 calls (no allocation), bit words beyond.
#[derive(Clone, Debug, Default)]
pub struct CallSet {
    low: u128,
    high: Vec<u64>,
}

impl CallSet {
    fn slot(&mut self, call: u32) -> (&mut u64, u64) {
        let beyond = (call - 128) as usize;
        let word = beyond / 64;
        if self.high.len() <= word {
            self.high.resize(word + 1, 0);
        }
        (&mut self.high[word], 1 << (beyond % 64))
    }

    /// `true` when `call` is in the set.
    pub fn contains(&self, call: u32) -> bool {
        if call < 128 {
            return self.low & (1 << call) != 0;
        }
        let beyond = (call - 128) as usize;
        self.high.get(beyond / 64).is_some_and(|word| word & (1 << (beyond % 64)) != 0)
    }

    /// Puts `call` in the set (`in_set`) or takes it out; returns whether that changed the set.
    pub fn set(&mut self, call: u32, in_set: bool) -> bool {
        if self.contains(call) == in_set {
            return false;
        }
        if call < 128 {
            self.low ^= 1 << call;
        } else {
            let (word, bit) = self.slot(call);
            *word ^= bit;
        }
        true
    }
}

/// The bulkhead's standing while walking a trace in time order.
#[derive(Clone, Debug, Default)]
pub struct BulkheadWalk {
    /// Calls in flight now.
    pub in_flight: u32,
    /// Calls waiting in the queue now.
    pub queued: u32,
    dispatched: CallSet,
    waiting: CallSet,
}

impl BulkheadWalk {
    /// `true` when `call` waits in the queue now.
    pub fn is_queued(&self, call: u32) -> bool {
        self.waiting.contains(call)
    }

    /// Takes in `event`: a `Queued` call joins the queue; its `CallEnd`, or any other event that shows it
    /// left the queue ([`leaves_queue`](super::breaker_model::leaves_queue), the rule every law reads:
    /// an action or a failed clock read, not a wall jump or a diagnostic), takes it out; a call's first
    /// `AttemptStart` puts it in flight, its `CallEnd` takes it out.
    pub fn step(&mut self, event: &Event) {
        let call = event.call;
        match event.kind {
            EventKind::Queued => {
                if self.waiting.set(call, true) {
                    self.queued += 1;
                }
                return;
            }
            // A wall jump or a diagnostic the World tags with a waiting call is not the call leaving.
            EventKind::CallEnd { .. } => {}
            ref kind if !super::breaker_model::leaves_queue(kind) => return,
            _ => {}
        }
        if self.waiting.set(call, false) {
            self.queued -= 1;
        }
        match event.kind {
            EventKind::AttemptStart if self.dispatched.set(call, true) => self.in_flight += 1,
            EventKind::CallEnd { .. } if self.dispatched.set(call, false) => self.in_flight -= 1,
            _ => {}
        }
    }
}

// Never inlined: one address wherever its laws are named (`crate::law::applies!`).
#[inline(never)]
fn has_bulkhead(contract: &Contract) -> bool {
    contract.bulkhead.is_stated()
}

const BULKHEAD_FULL: EventKind = EventKind::Rejected { reason: Rejection::BulkheadFull };

/// `bulkhead_in_flight_within_limit`: calls in flight never exceed `max_in_flight`, and calls waiting in
/// the queue never exceed `queue_max` (queued calls are not in flight).
///
/// - Needs: `bulkhead` (reads `max_in_flight`, `queue_max`).
/// - Violated at the `AttemptStart` that puts one call too many in flight, or the `Queued` that puts one
///   too many in the queue.
/// - Vacuous when no call was dispatched or queued.
/// - Example violation: `max_in_flight = 2`, and a third call dispatches while two are running.
pub const BULKHEAD_IN_FLIGHT_WITHIN_LIMIT: Law = Law {
    id: ids::BULKHEAD_IN_FLIGHT_WITHIN_LIMIT,
    title: "calls in flight stay within the bulkhead's limit",
    kind: LawKind::Safety,
    needs: &["bulkhead"],
    applies: has_bulkhead,
    check: bulkhead_in_flight_within_limit,
};

fn bulkhead_in_flight_within_limit(observation: &Observation<'_>) -> Verdict {
    let Some(bulkhead) = observation.contract.bulkhead.into_stated() else { return Verdict::NotApplicable };
    monitor(&observation.trace.events, BulkheadWalk::default(), |walk, event| {
        let before = (walk.in_flight, walk.queued);
        walk.step(event);
        if walk.queued > before.1 {
            return Check::that(walk.queued <= bulkhead.queue_max, "the bulkhead queued one call too many");
        }
        if walk.in_flight > before.0 {
            return Check::that(
                walk.in_flight <= bulkhead.max_in_flight,
                "more calls in flight than the bulkhead allows",
            );
        }
        Check::Skip
    })
}

/// `bulkhead_rejects_without_dispatch`: a call the bulkhead rejected dispatches nothing after the
/// rejection.
///
/// - Needs: `bulkhead` (present, stated or not).
/// - Violated at the first `AttemptStart` of a call after its `Rejected { BulkheadFull }`.
/// - Vacuous when the bulkhead rejected nothing.
/// - Example violation: the bulkhead reports the call rejected and runs it anyway.
pub const BULKHEAD_REJECTS_WITHOUT_DISPATCH: Law = Law {
    id: ids::BULKHEAD_REJECTS_WITHOUT_DISPATCH,
    title: "a call the bulkhead rejects is not dispatched",
    kind: LawKind::Safety,
    needs: &["bulkhead"],
    applies: applies!(contract => contract.bulkhead.is_present()),
    check: bulkhead_rejects_without_dispatch,
};

fn bulkhead_rejects_without_dispatch(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, CallSet::default(), |rejected, event| match event.kind {
        BULKHEAD_FULL => {
            rejected.set(event.call, true);
            Check::Pass
        }
        EventKind::AttemptStart if rejected.contains(event.call) => {
            Check::fail("a call the bulkhead rejected was dispatched")
        }
        _ => Check::Skip,
    })
}

/// `bulkhead_admits_below_limit`: the bulkhead rejects a call only when every slot is taken and its
/// queue is full: at a `Rejected { BulkheadFull }` of a call that was not queued, queued calls are at
/// `queue_max` and either calls in flight are at `max_in_flight` or a queued call is waiting for the
/// free slot (the queue is served first-come, so a newcomer cannot take a slot a queued call is owed; a
/// call rejected after waiting in the queue is not judged).
///
/// - Needs: `bulkhead` (reads `max_in_flight`, `queue_max`).
/// - Violated at a `Rejected { BulkheadFull }` with a slot or a queue place free.
/// - Vacuous when the bulkhead rejected nothing.
/// - Example violation: `max_in_flight = 3`, two calls running, and the third is rejected.
pub const BULKHEAD_ADMITS_BELOW_LIMIT: Law = Law {
    id: ids::BULKHEAD_ADMITS_BELOW_LIMIT,
    title: "the bulkhead admits calls while below its limit",
    kind: LawKind::Safety,
    needs: &["bulkhead"],
    applies: has_bulkhead,
    check: bulkhead_admits_below_limit,
};

fn bulkhead_admits_below_limit(observation: &Observation<'_>) -> Verdict {
    let Some(bulkhead) = observation.contract.bulkhead.into_stated() else { return Verdict::NotApplicable };
    monitor(&observation.trace.events, BulkheadWalk::default(), |walk, event| {
        let judged = event.kind == BULKHEAD_FULL && !walk.is_queued(event.call);
        walk.step(event);
        if !judged {
            return Check::Skip;
        }
        let slot_free = walk.in_flight < bulkhead.max_in_flight && walk.queued == 0;
        if slot_free || walk.queued < bulkhead.queue_max {
            return Check::failed(format!(
                "the bulkhead rejected a call with {} of {} calls in flight and {} of {} queued",
                walk.in_flight, bulkhead.max_in_flight, walk.queued, bulkhead.queue_max
            ));
        }
        Check::Pass
    })
}

/// `bulkhead_queue_first_come`: with a first-come queue (`bulkhead.first_come`), calls take their slots in
/// the order they came: a call that joined the queue before another, or was waiting in it when another
/// arrived, takes its slot first. A call *joins* at its `Queued` (a call never queued comes at its
/// `CallStart`); a queued call *takes its slot* at its next event that shows it left the queue
/// ([`leaves_queue`](super::breaker_model::leaves_queue), the breaker model's rule: an action or a failed
/// clock read, not a wall jump or a diagnostic), unless that is its `CallEnd` (it gave up waiting); a call
/// never queued takes its slot at its first `AttemptStart`.
///
/// - Needs: `bulkhead` and `bulkhead.first_come`.
/// - Compares: trace positions (events at one instant are ordered by the trace), exactly.
/// - Violated at the event where a call takes a slot while a call that came before it is still waiting
///   and takes its slot later.
/// - Cut, stated: a queued call that never takes a slot (it gave up, or the case ended) is not compared,
///   since a call that gave up cannot be told from one passed over; every order bug shows on a case where
///   the call passed over is served later.
/// - Vacuous when no queued call took a slot.
/// - Example violation: one slot, calls 1 and 2 queue in that order, and call 2 dispatches first when the
///   slot frees.
pub const BULKHEAD_QUEUE_FIRST_COME: Law = Law {
    id: ids::BULKHEAD_QUEUE_FIRST_COME,
    title: "the bulkhead serves its queue first come, first served",
    kind: LawKind::Safety,
    needs: &["bulkhead", "bulkhead.first_come"],
    applies: applies!(contract => contract.bulkhead.stated().is_some_and(|bulkhead| bulkhead.first_come)),
    check: bulkhead_queue_first_come,
};

/// When one call came and took its slot (trace positions), as [`BULKHEAD_QUEUE_FIRST_COME`] reads them.
#[derive(Clone, Copy, Debug, Default)]
struct Turn {
    /// Its `CallStart`, or its `Queued` once it joined the queue.
    came: Option<u32>,
    /// `true` once it joined the queue.
    queued: bool,
    /// `true` while it waits in the queue.
    waiting: bool,
    /// Where it took its slot.
    took: Option<u32>,
}

fn bulkhead_queue_first_come(observation: &Observation<'_>) -> Verdict {
    let events = &observation.trace.events;
    if !events.iter().any(|event| event.kind == EventKind::Queued) {
        return Verdict::Vacuous;
    }
    let calls = events.iter().map(|event| event.call as usize + 1).max().unwrap_or(0);
    let mut turns = vec![Turn::default(); calls];
    for event in events {
        let turn = &mut turns[event.call as usize];
        match event.kind {
            EventKind::CallStart { .. } => turn.came = Some(event.seq),
            EventKind::Queued => (turn.came, turn.queued, turn.waiting) = (Some(event.seq), true, true),
            EventKind::CallEnd { .. } if turn.waiting => turn.waiting = false,
            ref kind if turn.waiting && super::breaker_model::leaves_queue(kind) => {
                (turn.waiting, turn.took) = (false, Some(event.seq))
            }
            EventKind::AttemptStart if !turn.queued && turn.took.is_none() => turn.took = Some(event.seq),
            _ => {}
        }
    }
    first_come_violation(&turns)
}

/// The earliest slot taken ahead of a queued call that came before it and was served later.
fn first_come_violation(turns: &[Turn]) -> Verdict {
    let mut judged = false;
    let mut first: Option<(u32, usize, usize)> = None;
    for (passed_over, waiter) in turns.iter().enumerate() {
        let (Some(joined), true, Some(served)) = (waiter.came, waiter.queued, waiter.took) else { continue };
        judged = true;
        for (ahead, other) in turns.iter().enumerate() {
            let (Some(came), Some(took)) = (other.came, other.took) else { continue };
            let jumped = came > joined && joined < took && took < served;
            if jumped && first.is_none_or(|(at, ..)| took < at) {
                first = Some((took, ahead, passed_over));
            }
        }
    }
    match first {
        Some((at, ahead, passed_over)) => Verdict::violated_with(
            Some(at),
            format!(
                "call {ahead} took a bulkhead slot while call {passed_over}, queued before it came, was still \
                 waiting (first come, first served)"
            ),
        ),
        None if judged => Verdict::Holds,
        None => Verdict::Vacuous,
    }
}

// Never inlined: one address wherever its laws are named (`crate::law::applies!`).
#[inline(never)]
fn has_limiter(contract: &Contract) -> bool {
    contract.limiter.stated().is_some_and(|limiter| limiter.refill_every.as_nanos() > 0)
}

/// Nanoseconds since the case start.
fn nanos(at: VInstant) -> u128 {
    u128::from(at.duration_since(VInstant::EPOCH).as_nanos())
}

/// `limiter_within_rate`: dispatches in any window never exceed the burst plus the refills in it: for every
/// two dispatch instants `a <= b`, the dispatches in `[a, b]` are at most `burst` plus the whole multiples
/// of `refill_every` in `(a, b]` ([`LimiterContract`]). With fixed windows (`limiter.window = fixed`),
/// each window admits at most `burst` dispatches ([`FixedWindow`]).
///
/// - Needs: `limiter` (reads `burst`, `refill_every`, `window`; not applicable with a zero `refill_every`).
/// - Compares: counts of `AttemptStart` events, exactly; the window of a fixed-window limiter as
///   [`FixedWindow`] defines it.
/// - Violated at the dispatch that ends the first window over the bound.
/// - Vacuous when nothing was dispatched.
/// - Example violation: `burst = 2`, refill every 10ms, and three dispatches at 0ms.
pub const LIMITER_WITHIN_RATE: Law = Law {
    id: ids::LIMITER_WITHIN_RATE,
    title: "dispatches stay within the rate limiter's burst and refills",
    kind: LawKind::Safety,
    needs: &["limiter"],
    applies: has_limiter,
    check: limiter_within_rate,
};

fn limiter_within_rate(observation: &Observation<'_>) -> Verdict {
    let Some(limiter) = observation.contract.limiter.into_stated().filter(|_| has_limiter(observation.contract)) else {
        return Verdict::NotApplicable;
    };
    if limiter.window == LimiterWindow::Fixed {
        return fixed_window_within_rate(observation, limiter);
    }
    let every = u128::from(limiter.refill_every.as_nanos());
    // With `R(t)` the refills by `t` and dispatch `j` the `j`-th (from 1): the window from dispatch `i`
    // to `j` holds `j - i + 1` dispatches and `R(d_j) - R(d_i)` refills, so the bound is
    // `j - R(d_j) <= burst + min over i <= j of (i - 1 - R(d_i))`.
    let start = (0_i128, i128::MAX);
    monitor(&observation.trace.events, start, |(count, lowest), event| {
        if event.kind != EventKind::AttemptStart {
            return Check::Skip;
        }
        let refills = i128::try_from(nanos(event.at) / every).unwrap_or(i128::MAX);
        *lowest = (*lowest).min(*count - refills);
        *count += 1;
        let over = *count - refills - *lowest - i128::from(limiter.burst);
        Check::that(over <= 0, "more dispatches in a window than the limiter's burst plus its refills")
    })
}

/// `limiter_admits_with_tokens`: the rate limiter refuses only when its bucket is empty. A refusal is
/// judged against the most sparing bucket a contract allows (one refilling continuously from each
/// dispatch, GCRA): if even that bucket holds a token at the refusal, every token bucket with this
/// `burst` and `refill_every` does. With fixed windows (`limiter.window = fixed`), a refusal is right
/// only while the open window has admitted `burst` dispatches ([`FixedWindow`]).
///
/// - Needs: `limiter` (reads `burst`, `refill_every`, `window`).
/// - Compares: the theoretical arrival time after the dispatches so far (`tat = max(tat, d) + r`) with
///   the refusal instant `t`: a token is left when `tat <= t + (burst - 1) * r`; with fixed windows, the
///   dispatches of the window open at `t` with `burst`.
/// - Violated at a `Rejected { LimiterEmpty }` with a token left.
/// - Vacuous when the limiter refused nothing.
/// - Example violation: `burst = 3`, one dispatch, and the next call is refused at once.
pub const LIMITER_ADMITS_WITH_TOKENS: Law = Law {
    id: ids::LIMITER_ADMITS_WITH_TOKENS,
    title: "the rate limiter admits while it has tokens",
    kind: LawKind::Safety,
    needs: &["limiter"],
    applies: has_limiter,
    check: limiter_admits_with_tokens,
};

fn limiter_admits_with_tokens(observation: &Observation<'_>) -> Verdict {
    let Some(limiter) = observation.contract.limiter.into_stated().filter(|_| has_limiter(observation.contract)) else {
        return Verdict::NotApplicable;
    };
    if limiter.window == LimiterWindow::Fixed {
        return fixed_window_admits(observation, limiter);
    }
    let LimiterContract { burst, refill_every, .. } = limiter;
    let every = u128::from(refill_every.as_nanos());
    monitor(&observation.trace.events, 0_u128, |tat, event| match event.kind {
        EventKind::AttemptStart => {
            *tat = (*tat).max(nanos(event.at)) + every;
            Check::Skip
        }
        EventKind::Rejected { reason: Rejection::LimiterEmpty } => {
            let tolerance = u128::from(burst.saturating_sub(1)) * every;
            let token_left = burst > 0 && *tat <= nanos(event.at) + tolerance;
            Check::that(!token_left, "the rate limiter refused a dispatch with a token left")
        }
        _ => Check::Skip,
    })
}

/// [`LIMITER_WITHIN_RATE`] for fixed windows: each window admits at most `burst` dispatches.
fn fixed_window_within_rate(observation: &Observation<'_>, limiter: LimiterContract) -> Verdict {
    monitor(&observation.trace.events, FixedWindow::default(), |window, event| {
        if event.kind != EventKind::AttemptStart {
            return Check::Skip;
        }
        let count = window.dispatch(limiter, nanos(event.at));
        Check::that(count <= u64::from(limiter.burst), "more dispatches in a fixed window than the limiter's burst")
    })
}

/// [`LIMITER_ADMITS_WITH_TOKENS`] for fixed windows: a refusal only while the open window is full.
fn fixed_window_admits(observation: &Observation<'_>, limiter: LimiterContract) -> Verdict {
    monitor(&observation.trace.events, FixedWindow::default(), |window, event| match event.kind {
        EventKind::AttemptStart => {
            window.dispatch(limiter, nanos(event.at));
            Check::Skip
        }
        EventKind::Rejected { reason: Rejection::LimiterEmpty } => Check::that(
            !window.has_room(limiter, nanos(event.at)),
            "the rate limiter refused a dispatch with room left in its fixed window",
        ),
        _ => Check::Skip,
    })
}
