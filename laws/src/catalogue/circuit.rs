//! Laws about the circuit breaker, judged against a model of the contract's breaker replayed over the
//! calls (see the breaker model's docs in this module's source: the semantics of
//! `timelaw_core::reference`, section "Circuit breaker").

use timelaw_core::{CallResult, Contract, ErrorKind, EventKind};

use super::breaker_model::{Admission, CallFacts, Model, Phase};
use crate::ids;
use crate::law::{Law, LawKind, Observation};
use crate::temporal::per_call;
use crate::verdict::Verdict;

fn has_circuit(contract: &Contract) -> bool {
    contract.circuit.is_some()
}

/// Replays the breaker model over the calls: `judge(facts, admission, model_before)` returns `None` when
/// the call says nothing, or the call's verdict. Merges the verdicts and stops at the first violation.
fn replay(
    observation: &Observation<'_>,
    mut judge: impl FnMut(&CallFacts, Admission, Phase) -> Option<Verdict>,
) -> Verdict {
    let Some(params) = observation.contract.circuit else {
        return Verdict::NotApplicable;
    };
    let mut model = Model::new(params);
    let mut verdict = Verdict::Vacuous;
    for call in per_call(&observation.trace.events) {
        let facts = CallFacts::of(call);
        let before = model.phase;
        let admission = model.admit(facts.started);
        if let Some(call_verdict) = judge(&facts, admission, before) {
            verdict = verdict.merge(call_verdict);
            if verdict.is_violated() {
                return verdict;
            }
        }
        facts.record(&mut model, admission);
    }
    verdict
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
    replay(observation, |facts, admission, _| {
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
    replay(observation, |facts, admission, _| {
        if admission != (Admission::Admit { after_cooldown: true }) {
            return None;
        }
        if !facts.rejected() {
            return Some(Verdict::Holds);
        }
        let event = facts.rejected_open.or(facts.end.map(|(seq, _, _)| seq));
        Some(Verdict::Violated(crate::verdict::Violation {
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
    let limit = observation.contract.circuit.map_or(0, |circuit| circuit.half_open_probes);
    let reports =
        observation.trace.events.iter().any(|event| matches!(event.kind, EventKind::CircuitTransition { .. }));
    // Probes used in the current half-open period; `None` outside one.
    let mut period: Option<u32> = None;
    replay(observation, |facts, admission, before| {
        if !reports && !matches!(before, Phase::HalfOpen { .. }) {
            period = None; // The model decided after the previous call.
        }
        if admission == (Admission::Admit { after_cooldown: true }) {
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
