//! Laws about the circuit breaker, judged against a model of the contract's breaker replayed over the
//! calls (see the breaker model's docs in this module's source: the semantics of
//! `timelaw_core::reference`, section "Circuit breaker").

use std::cell::Cell;

use timelaw_core::{CallResult, CircuitState, Contract, ErrorKind, Event, EventKind, Rejection, Trace, VInstant};

use super::breaker_model::{leaves_queue, Admission, BreakerModel, BreakerSpec, CallFacts, Phase};
use super::load::CallSet;
use crate::ids;
use crate::law::{judged, Law, LawKind, Observation};
use crate::temporal::{calls_interleave, per_call, with_grouped_by_call};
use crate::verdict::Verdict;

// Never inlined: one address wherever its laws are named (`crate::law::applies!`).
#[inline(never)]
fn has_circuit(contract: &Contract) -> bool {
    contract.circuit.is_stated()
}

/// Replays the breaker model over the calls: `judge(facts, admission, model_before)` returns `None` when
/// the call says nothing, or the call's verdict. Merges the verdicts and stops at the first violation.
/// Calls that overlap are admitted at their first event and recorded at their end, in time order.
///
/// The replay does not depend on `judge`: within one [`crate::Catalogue::judge_each`], the circuit laws
/// share one replay of the case, each folding its own `judge` over its decisions.
pub fn replay_breaker(
    observation: &Observation<'_>,
    mut judge: impl FnMut(&CallFacts, Admission, Phase) -> Option<Verdict>,
) -> Verdict {
    let Some(spec) = BreakerSpec::of(observation.contract) else {
        return Verdict::NotApplicable;
    };
    let fill = |decisions: &mut Vec<Decision>| record_decisions(observation, spec, decisions);
    super::case_memo::with_breaker_decisions(observation, fill, |decisions| {
        let mut verdict = Verdict::Vacuous;
        for (facts, admission, before) in decisions {
            if let Some(call_verdict) = judge(facts, *admission, *before) {
                verdict = verdict.merge(call_verdict);
                if verdict.is_violated() {
                    return verdict;
                }
            }
        }
        verdict
    })
}

/// One admission the breaker replay decided, in the order the replay decided them: the call's facts, the
/// model's admission and the model's phase just before it.
pub(crate) type Decision = (CallFacts, Admission, Phase);

/// Replays the breaker model `spec` over the calls of `observation`'s trace, appending each admission to
/// `decisions`.
fn record_decisions(observation: &Observation<'_>, spec: BreakerSpec, decisions: &mut Vec<Decision>) {
    let mut model = BreakerModel::new(spec);
    if calls_interleave(&observation.trace.events) {
        return replay_interleaved(observation, model, decisions);
    }
    for call in per_call(&observation.trace.events) {
        let facts = CallFacts::of(call);
        if facts.never_reached_breaker() {
            continue;
        }
        let before = model.phase();
        let admission = model.admit(facts.started);
        decisions.push((facts, admission, before));
        facts.record(&mut model, admission);
    }
}

/// Where a call's admission was decided: its first event of its own after its start (an attempt, a
/// refusal, the open breaker turning half-open for it, a failed clock read: the call is past the
/// breaker's door in the poll that records it; a call that started while the breaker was closed may be
/// decided only after another call's result opened it, at the same instant), else its end (a call that
/// records nothing of its own ran to its end in one poll), else its start.
fn decided_at(call: &[Event]) -> (u32, VInstant) {
    let decision = call.iter().find(|event| shows_decision(&event.kind));
    let end = || call.iter().rev().find(|event| matches!(event.kind, EventKind::CallEnd { .. }));
    decision.or_else(end).map_or((call[0].seq, call[0].at), |event| (event.seq, event.at))
}

/// `true` for an event of a call's own after its start: the poll that records it has taken the call past
/// the breaker's decision ([`leaves_queue`], not the `CallStart` the executor records at its arrival).
fn shows_decision(kind: &EventKind) -> bool {
    leaves_queue(kind) && !matches!(kind, EventKind::CallStart { .. })
}

/// [`replay_breaker`] over overlapping calls: each call's facts from the trace regrouped by call, then
/// the starts and ends of all calls walked in trace order.
///
/// A call's admission is placed at its first event of its own ([`decided_at`]), the latest point it
/// could have been decided: a call that shows nothing of its own may have passed the breaker's door in
/// any poll since its start. So where the subject refuses a call the model would admit, the calls that
/// had started, had not yet shown their decision and that the subject admitted are admitted first, one
/// at a time in trace order, until the model refuses too or none is left: the subject may have decided
/// them first (a refusal beside such a call is judged in the order that explains it, if one does).
fn replay_interleaved(observation: &Observation<'_>, model: BreakerModel, decisions: &mut Vec<Decision>) {
    with_grouped_by_call(observation.trace, |grouped| {
        let mut buffers = REPLAY_BUFFERS.try_with(Cell::take).unwrap_or_default();
        replay_grouped(grouped, model, decisions, &mut buffers);
        buffers.clear();
        let _ = REPLAY_BUFFERS.try_with(|kept| kept.set(buffers));
    });
}

/// The buffers of one [`replay_interleaved`], kept emptied for the thread's next replay: judging a case
/// allocates nothing for them once they have grown.
#[derive(Default)]
struct ReplayBuffers {
    calls: Vec<InterleavedCall>,
    /// (seq, is the end, call index): the admissions and ends in trace order.
    moments: Vec<(u32, bool, usize)>,
    admitted: Vec<Option<(Admission, u32)>>,
    /// The order of admissions a refusal is judged in ([`admitted_first`]).
    order: Vec<usize>,
}

impl ReplayBuffers {
    fn clear(&mut self) {
        self.calls.clear();
        self.moments.clear();
        self.admitted.clear();
        self.order.clear();
    }
}

thread_local! {
    /// The buffers the last [`replay_interleaved`] on this thread used, emptied.
    static REPLAY_BUFFERS: Cell<ReplayBuffers> = Cell::new(ReplayBuffers::default());
}

/// [`replay_interleaved`] over the regrouped trace, in `buffers`.
fn replay_grouped(
    grouped: &Trace,
    mut model: BreakerModel,
    decisions: &mut Vec<Decision>,
    buffers: &mut ReplayBuffers,
) {
    let ReplayBuffers { calls, moments, admitted, order } = buffers;
    calls.extend(per_call(&grouped.events).map(|call| InterleavedCall {
        started: call[0].seq,
        decided: decided_at(call),
        facts: CallFacts::of(call),
    }));
    for (index, call) in calls.iter().enumerate() {
        if call.facts.never_reached_breaker() {
            continue;
        }
        moments.push((call.decided.0, false, index));
        if let Some((end, _, _)) = call.facts.end {
            moments.push((end, true, index));
        }
    }
    moments.sort_unstable();
    admitted.resize(calls.len(), None);
    for (position, &(_, is_end, index)) in moments.iter().enumerate() {
        let facts = &calls[index].facts;
        if is_end {
            if let (Some((Admission::Admit { .. }, epoch)), Some((at, result))) =
                (admitted[index], facts.breaker_result())
            {
                model.record_admitted(result, at, epoch);
            }
            continue;
        }
        if admitted[index].is_some() {
            continue; // Admitted earlier, before a refusal it explains.
        }
        order.clear();
        if facts.rejected() {
            admitted_first(calls, &moments[position..], admitted, &model, index, order);
        } else {
            order.push(index);
        }
        for &each in order.iter() {
            let before = model.phase();
            let admission = model.admit(calls[index].decided.1);
            admitted[each] = Some((admission, model.epoch()));
            decisions.push((calls[each].facts, admission, before));
        }
    }
}

/// One call of an interleaved trace as the breaker replay sees it.
struct InterleavedCall {
    /// The sequence number of its `CallStart`.
    started: u32,
    /// Where its admission was decided at the latest ([`decided_at`]).
    decided: (u32, VInstant),
    /// What it did.
    facts: CallFacts,
}

/// The order in which to admit the refused call `refused` and the calls that may have passed the breaker
/// before it: of the calls still to be admitted (`ahead`, the moments from the refusal on), those that
/// started before the refusal and that the subject admitted, taken in trace order while the model (a
/// copy, admitting them at the refusal's instant) would still admit `refused`; none when even all of
/// them leave the model admitting it. Ends with `refused`.
fn admitted_first(
    calls: &[InterleavedCall],
    ahead: &[(u32, bool, usize)],
    admitted: &[Option<(Admission, u32)>],
    model: &BreakerModel,
    refused: usize,
    order: &mut Vec<usize>,
) {
    let (decided, at) = calls[refused].decided;
    let mut trial = model.clone();
    for &(_, is_end, index) in ahead {
        if !trial.clone().admit(at).is_admitted() {
            break;
        }
        let call = &calls[index];
        if is_end || index == refused || admitted[index].is_some() || call.started > decided || call.facts.rejected() {
            continue;
        }
        trial.admit(at);
        order.push(index);
    }
    if trial.admit(at).is_admitted() {
        order.clear(); // No order explains the refusal: judged where it stands.
    }
    order.push(refused);
}

/// `circuit_open_rejects_without_dispatch`: while the breaker is open (before its cooldown ends), a call
/// dispatches nothing; and a call the subject rejects as circuit-open dispatches nothing either.
///
/// - Needs: `circuit` (the breaker model replays `window`, `min_calls`, `failure_percent`, `open_for`,
///   `half_open_probes`).
/// - Violated at the first `AttemptStart` of a call that starts while the model is open, or of a call
///   with a `Rejected { CircuitOpen }` event.
/// - Vacuous when no call started while the model was open and the subject rejected no call.
/// - Example violation: three failures open the breaker, and the next call is still dispatched.
pub const CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH: Law = Law {
    id: ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH,
    title: "an open circuit rejects calls without dispatching",
    kind: LawKind::Safety,
    needs: &["circuit"],
    applies: has_circuit,
    check: circuit_open_rejects_without_dispatch,
};

fn circuit_open_rejects_without_dispatch(observation: &Observation<'_>) -> Verdict {
    replay_breaker(observation, |facts, admission, _| {
        let open = admission == Admission::Open;
        match (facts.first_attempt, facts.rejected_open) {
            (Some(attempt), Some(_)) => {
                Some(Verdict::violated_at(attempt, "a call rejected as circuit-open still dispatched"))
            }
            (Some(attempt), None) if open => {
                Some(Verdict::violated_at(attempt, "a call was dispatched while the circuit was open"))
            }
            (None, Some(_)) => Some(Verdict::Holds),
            _ if open => Some(Verdict::Holds),
            _ => None,
        }
    })
}

/// `circuit_half_open_after_cooldown`: once `open_for` has passed since the breaker opened, the next call
/// is let through as a probe (half-open), not rejected.
///
/// - Needs: `circuit`.
/// - Violated at the `Rejected` event (or the `CallEnd` returning `Err(CircuitOpen)`) of a call the model
///   admits as the first call after the cooldown.
/// - Vacuous when no call started after a cooldown.
/// - Example violation: `open_for = 1s`, and a call 5s after opening is still rejected.
pub const CIRCUIT_HALF_OPEN_AFTER_COOLDOWN: Law = Law {
    id: ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN,
    title: "after the cooldown, the circuit lets a probe through",
    kind: LawKind::Safety,
    needs: &["circuit"],
    applies: has_circuit,
    check: circuit_half_open_after_cooldown,
};

fn circuit_half_open_after_cooldown(observation: &Observation<'_>) -> Verdict {
    replay_breaker(observation, |facts, admission, _| {
        if !matches!(admission, Admission::Admit { after_cooldown: true, .. }) {
            return None;
        }
        if !facts.rejected() {
            return Some(Verdict::Holds);
        }
        let event = facts.rejected_open.or(facts.end.map(|(seq, _, _)| seq));
        Some(Verdict::Violated(crate::verdict::Violation {
            check: crate::CheckSite::here(),
            event,
            message: "a call after the cooldown was rejected instead of probing".into(),
        }))
    })
}

/// `half_open_probe_limit`: while half-open, the breaker lets at most `half_open_probes` probes through
/// before it decides. A half-open period starts when the model turns half-open and ends at the subject's
/// own `CircuitTransition` out of half-open when the subject reports transitions, at the model's decision
/// otherwise. A probe is an admitted call that dispatched an attempt and did not end `Err(Cancelled)` (a
/// cancelled probe frees its slot).
///
/// - Needs: `circuit`.
/// - Violated at the first `AttemptStart` of the probe beyond the limit.
/// - Vacuous when the model never turned half-open.
/// - Example violation: `half_open_probes = 1`, the probe succeeds, the subject stays half-open and lets
///   a second probe through.
pub const HALF_OPEN_PROBE_LIMIT: Law = Law {
    id: ids::HALF_OPEN_PROBE_LIMIT,
    title: "half-open lets at most half_open_probes probes through",
    kind: LawKind::Safety,
    needs: &["circuit"],
    applies: has_circuit,
    check: half_open_probe_limit,
};

fn half_open_probe_limit(observation: &Observation<'_>) -> Verdict {
    let limit = observation.contract.circuit.into_stated().map_or(0, |circuit| circuit.half_open_probes);
    let reports =
        observation.trace.events.iter().any(|event| matches!(event.kind, EventKind::CircuitTransition { .. }));
    if reports && BreakerSpec::of(observation.contract).is_some() && calls_interleave(&observation.trace.events) {
        return probes_in_reported_periods(&observation.trace.events, limit);
    }
    // Probes used in the current half-open period; `None` outside one.
    let mut period: Option<u32> = None;
    replay_breaker(observation, |facts, admission, before| {
        if !reports && !matches!(before, Phase::HalfOpen { .. }) {
            period = None; // The model decided after the previous call.
        }
        if matches!(admission, Admission::Admit { after_cooldown: true, .. }) {
            period = Some(0);
        }
        let used = period.as_mut()?;
        let cancelled = facts.result() == Some(CallResult::Err(ErrorKind::Cancelled));
        let mut verdict = Verdict::Holds;
        if let (Some(attempt), false) = (facts.first_attempt, cancelled) {
            *used += 1;
            if *used > limit {
                verdict = Verdict::violated_at(attempt, "half-open let more probes through than half_open_probes");
            }
        }
        if reports && facts.leaves_half_open {
            period = None;
        }
        Some(verdict)
    })
}

/// [`HALF_OPEN_PROBE_LIMIT`] over overlapping calls of a subject that reports its transitions: in each
/// half-open period it reports (from a transition to half-open to the next transition out of it), the
/// calls whose first attempt starts in the period and that are not cancelled (a cancelled probe frees its
/// slot) number at most `limit`. A probe whose success later closes the breaker ends the period only
/// then, so a second probe started beside it counts.
fn probes_in_reported_periods(events: &[Event], limit: u32) -> Verdict {
    use timelaw_core::CircuitState;
    let mut cancelled = CallSet::default();
    for event in events {
        if event.kind == (EventKind::CallEnd { result: CallResult::Err(ErrorKind::Cancelled) }) {
            cancelled.set(event.call, true);
        }
    }
    let (mut started, mut used, mut verdict) = (CallSet::default(), None::<u32>, Verdict::Vacuous);
    for event in events {
        match event.kind {
            EventKind::CircuitTransition { to: CircuitState::HalfOpen, .. } => used = Some(0),
            EventKind::CircuitTransition { from: CircuitState::HalfOpen, .. } => used = None,
            EventKind::AttemptStart if started.set(event.call, true) && !cancelled.contains(event.call) => {
                let Some(count) = used.as_mut() else { continue };
                *count += 1;
                if *count > limit {
                    return Verdict::violated_at(event.seq, "half-open let more probes through than half_open_probes");
                }
                verdict = Verdict::Holds;
            }
            _ => {}
        }
    }
    verdict
}

/// A refusal law over the breaker model: calls for which `owed(admission, phase before)` says the model
/// admits them must not be refused (a circuit-open rejection or result with no attempt).
fn admitted_not_refused(
    observation: &Observation<'_>,
    owed: fn(Admission, Phase) -> bool,
    message: &'static str,
) -> Verdict {
    replay_breaker(observation, |facts, admission, before| {
        if !owed(admission, before) {
            return None;
        }
        if !facts.rejected() {
            return Some(Verdict::Holds);
        }
        Some(Verdict::Violated(crate::verdict::Violation {
            check: crate::CheckSite::here(),
            event: facts.refusal_event(),
            message: std::borrow::Cow::Borrowed(message),
        }))
    })
}

/// `circuit_closed_admits`: a closed breaker below its threshold admits every call. While the breaker
/// model has been closed since the start, the subject does not refuse a call as circuit-open.
///
/// - Needs: `circuit` (reads `circuit.policy`, `circuit.open_shape`, `circuit.cooldown_tie`,
///   `circuit.counts_cancellation`).
/// - Violated at the `Rejected { CircuitOpen }` (or the `CallEnd` returning `Err(CircuitOpen)`) of a call
///   the closed model admits.
/// - Vacuous when no call started while the model was closed from the start.
/// - Example violation: a breaker that rejects every call, even the first.
pub const CIRCUIT_CLOSED_ADMITS: Law = Law {
    id: ids::CIRCUIT_CLOSED_ADMITS,
    title: "a closed breaker below its threshold admits every call",
    kind: LawKind::Safety,
    needs: &["circuit"],
    applies: has_circuit,
    check: judged!(observation => {
        admitted_not_refused(
            observation,
            |admission, before| admission.is_admitted() && before == Phase::Closed { after_probes: false },
            "a closed breaker below its threshold refused a call",
        )
    }),
};

/// `circuit_closes_after_probes`: a breaker whose probes all succeed closes. Once the model closed
/// because `closes_after` probes succeeded (by default `half_open_probes`, the probe budget), the subject
/// does not refuse the calls that follow (until the model opens again).
///
/// - Needs: `circuit` (reads the same fields as [`CIRCUIT_CLOSED_ADMITS`]).
/// - Violated at the refusal of a call the model, closed after its probes, admits.
/// - Vacuous when the model never closed after probes.
/// - Example violation: `half_open_probes = 1`, the probe succeeds, and the next call is still rejected.
pub const CIRCUIT_CLOSES_AFTER_PROBES: Law = Law {
    id: ids::CIRCUIT_CLOSES_AFTER_PROBES,
    title: "a breaker whose probes all succeed closes",
    kind: LawKind::Safety,
    needs: &["circuit"],
    applies: has_circuit,
    check: judged!(observation => {
        admitted_not_refused(
            observation,
            |admission, before| admission.is_admitted() && before == Phase::Closed { after_probes: true },
            "the probes succeeded but the breaker did not close",
        )
    }),
};

/// `circuit_probe_slot_freed`: a probe that ends without a result (cancelled, when cancellation does not
/// count as a failure) frees its slot: the next call while half-open is admitted as a probe.
///
/// - Needs: `circuit` (reads `circuit.counts_cancellation`).
/// - Violated at the refusal of a call the model admits only because an earlier probe freed its slot.
/// - Vacuous when no probe slot was freed and reused.
/// - Example violation: `half_open_probes = 1`, the probe is cancelled, and every later call is rejected.
pub const CIRCUIT_PROBE_SLOT_FREED: Law = Law {
    id: ids::CIRCUIT_PROBE_SLOT_FREED,
    title: "a probe cancelled before its result frees its slot",
    kind: LawKind::Safety,
    needs: &["circuit"],
    applies: has_circuit,
    check: judged!(observation => {
        admitted_not_refused(
            observation,
            |admission, _| matches!(admission, Admission::Admit { freed_slot: true, .. }),
            "a probe slot freed by a cancelled probe was never given back",
        )
    }),
};

/// `circuit_open_period_as_declared`: every open period the subject reports lasts at least what the
/// contract declares. Between the subject's `CircuitTransition` to open and its next transition from open
/// to half-open, at least [`timelaw_core::OpenShape::period`] of the `n`-th opening since the subject last
/// reported closing passes (strictly more with `CooldownTie::AdmitsAfterEnd`). The other side, a probe
/// admitted once the period ends, is [`super::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN`].
///
/// - Needs: `circuit` (reads `circuit.open_shape`, `circuit.cooldown_tie`).
/// - Compares: instants, exactly.
/// - Violated at the early transition to half-open.
/// - Vacuous when the subject reported no transition from open to half-open.
/// - Example violation: an exponential open period from 100ms doubling, and the second period ends after
///   100ms.
pub const CIRCUIT_OPEN_PERIOD_AS_DECLARED: Law = Law {
    id: ids::CIRCUIT_OPEN_PERIOD_AS_DECLARED,
    title: "open periods last as long as the declared shape says",
    kind: LawKind::Safety,
    needs: &["circuit", "circuit.open_shape"],
    applies: has_circuit,
    check: circuit_open_period_as_declared,
};

fn circuit_open_period_as_declared(observation: &Observation<'_>) -> Verdict {
    use timelaw_core::CircuitState;
    let contract = observation.contract;
    let Some(params) = contract.circuit.into_stated() else {
        return Verdict::NotApplicable;
    };
    let strict = params.cooldown_tie == timelaw_core::CooldownTie::AdmitsAfterEnd;
    // (openings since the last close, when the current open period started)
    let start = (0_u32, None::<timelaw_core::VInstant>);
    crate::temporal::monitor(&observation.trace.events, start, |(openings, opened_at), event| match event.kind {
        EventKind::CircuitTransition { to: CircuitState::Closed, .. } => {
            *openings = 0;
            crate::temporal::Check::Skip
        }
        EventKind::CircuitTransition { to: CircuitState::Open, .. } => {
            *openings = openings.saturating_add(1);
            *opened_at = Some(event.at);
            crate::temporal::Check::Skip
        }
        EventKind::CircuitTransition { from: CircuitState::Open, to: CircuitState::HalfOpen } => {
            let Some(opened) = opened_at.take() else { return crate::temporal::Check::Skip };
            let end = opened.saturating_add(params.open_shape.period(params.open_for, *openings));
            let ok = if strict { event.at > end } else { event.at >= end };
            crate::temporal::Check::that(ok, "the breaker turned half-open before its declared open period ended")
        }
        _ => crate::temporal::Check::Skip,
    })
}

/// `circuit_probes_settle_as_declared`: once the probe results of an instant are in, the breaker's state
/// follows its contract: the state the subject last reported equals the breaker model's after those
/// results, replayed in time order over overlapping calls (a failed probe reopens the breaker even if a
/// concurrent success lands at the same instant; [`timelaw_core::ProbeSettle`] says how results at one
/// instant settle). Every close out of half-open the subject reports is judged the same way, probe
/// result or not: by default half-open closes only on its own probes' successes, so a late success of a
/// call admitted before the breaker opened, which the model does not count, cannot close it; with
/// `circuit.late_results = landing_state` the model records such a result in the state it lands in, and
/// the close it brings is due (with `circuit.half_open_entry = on_time`, a result landing once the open
/// period is over lands in half-open, as the breaker turned half-open when the period ended).
///
/// - Needs: `circuit` (reads `circuit.probe_settle`, `circuit.closes_after`, `circuit.late_results`,
///   `circuit.half_open_entry`), and a subject that reports its transitions.
/// - Violated at the `CallEnd` of the last probe of an instant, or at the subject's transition from
///   half-open to closed, after which the reported state differs from the model's.
/// - Vacuous when the subject reports no transition, and neither a probe returned nor the subject closed
///   out of half-open.
/// - Example violation: two probes at once, one fails and one succeeds, and the breaker closes; or a call
///   admitted while closed succeeds after the breaker opened and half-opened, and the breaker closes on
///   it before any probe succeeded.
pub const CIRCUIT_PROBES_SETTLE_AS_DECLARED: Law = Law {
    id: ids::CIRCUIT_PROBES_SETTLE_AS_DECLARED,
    title: "concurrent probe results settle the breaker as its contract says",
    kind: LawKind::Safety,
    needs: &["circuit", "circuit.probe_settle"],
    applies: has_circuit,
    check: circuit_probes_settle_as_declared,
};

/// A call's admission by the model: the decision, the model's epoch then, whether it is a probe.
type Entry = (Admission, u32, bool);

/// The admissions of the calls in flight: one inline (a sequential trace never has more), more beyond.
#[derive(Default)]
struct Admitted {
    one: Option<(u32, Entry)>,
    more: Vec<(u32, Entry)>,
}

impl Admitted {
    fn put(&mut self, call: u32, entry: Entry) {
        if self.one.is_none() {
            self.one = Some((call, entry));
        } else {
            self.more.push((call, entry));
        }
    }
    fn take(&mut self, call: u32) -> Option<Entry> {
        if self.one.is_some_and(|(held, _)| held == call) {
            return self.one.take().map(|(_, entry)| entry);
        }
        let index = self.more.iter().position(|(held, _)| *held == call)?;
        Some(self.more.swap_remove(index).1)
    }
}

fn state_of(phase: Phase) -> CircuitState {
    match phase {
        Phase::Closed { .. } => CircuitState::Closed,
        Phase::Open { .. } => CircuitState::Open,
        Phase::HalfOpen { .. } => CircuitState::HalfOpen,
    }
}

fn circuit_probes_settle_as_declared(observation: &Observation<'_>) -> Verdict {
    let Some(spec) = BreakerSpec::of(observation.contract) else { return Verdict::NotApplicable };
    let events = &observation.trace.events;
    if !events.iter().any(|event| matches!(event.kind, EventKind::CircuitTransition { .. })) {
        return Verdict::Vacuous;
    }
    let (mut model, mut admitted) = (BreakerModel::new(spec), Admitted::default());
    let (mut reported, mut pending, mut verdict) = (CircuitState::Closed, None, Verdict::Vacuous);
    // A call is admitted where it was decided: its first event of its own after its start (an attempt, a
    // refusal, a transition, a failed clock read), else its end (waiting in a queue decides nothing); a
    // call a bulkhead kept out (rejected as full, or ended in the queue) never reaches the breaker.
    let (mut decided, mut kept_out) = (CallSet::default(), CallSet::default());
    let mut admit = |model: &mut BreakerModel, admitted: &mut Admitted, event: &Event, reaches: bool| {
        if decided.set(event.call, true) && reaches {
            let admission = model.admit(event.at);
            let probe = admission.is_admitted() && matches!(model.phase(), Phase::HalfOpen { .. });
            admitted.put(event.call, (admission, model.epoch(), probe));
        }
    };
    for (index, event) in events.iter().enumerate() {
        if event.kind == EventKind::Queued {
            kept_out.set(event.call, true);
        } else if leaves_queue(&event.kind) {
            kept_out.set(event.call, false);
        }
        match event.kind {
            EventKind::Rejected { reason: Rejection::BulkheadFull } => admit(&mut model, &mut admitted, event, false),
            // Its request to pass or its result: either way the call reached the breaker.
            EventKind::CircuitTransition { from, to } => {
                admit(&mut model, &mut admitted, event, true);
                reported = to;
                // A close out of half-open is judged like a probe result, whatever ended the instant.
                if from == CircuitState::HalfOpen && to == CircuitState::Closed {
                    pending = pending.or(Some(event.seq));
                }
            }
            EventKind::CallEnd { result } => {
                let reaches = !kept_out.contains(event.call);
                admit(&mut model, &mut admitted, event, reaches);
                if let Some((Admission::Admit { .. }, epoch, probe)) = admitted.take(event.call) {
                    model.record_admitted(result, event.at, epoch);
                    // A probe cancelled before its result (when cancellation is no failure) settles nothing:
                    // it frees its slot, and it may never have reached the breaker (a subject that checks
                    // cancellation first keeps it out).
                    let settles = result != CallResult::Err(ErrorKind::Cancelled) || spec.counts_cancellation;
                    pending = if probe && settles { Some(event.seq) } else { pending };
                }
            }
            kind if shows_decision(&kind) => admit(&mut model, &mut admitted, event, true),
            _ => {}
        }
        let instant_over = events.get(index + 1).is_none_or(|next| next.at > event.at);
        let Some(seq) = pending.filter(|_| instant_over) else { continue };
        pending = None;
        let expected = state_of(model.phase());
        if expected != reported {
            let message =
                format!("after the probe results the breaker is {reported:?}; its contract says {expected:?}");
            return Verdict::violated_with(Some(seq), message);
        }
        verdict = Verdict::Holds;
    }
    verdict
}
