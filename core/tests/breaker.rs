//! The reference circuit breaker's opening rule and probe slots, call by call: the cases a mutation run
//! of `core/src/reference/circuit.rs` (`bash .ci/mutants reference --file core/src/reference/circuit.rs`)
//! showed no other test pinned.

use timelaw_core::reference::{Backoff, Policy, Reference};
use timelaw_core::{
    execute, CallResult, CallScript, CircuitContract, ErrorKind, EventKind, Outcome, Schedule, VDuration,
};

const OK: CallResult = CallResult::Ok;
const TRANSIENT: CallResult = CallResult::Err(ErrorKind::Transient);
const CANCELLED: CallResult = CallResult::Err(ErrorKind::Cancelled);
const REJECTED: CallResult = CallResult::Err(ErrorKind::CircuitOpen);

/// A breaker of `window` results, opening at `min_calls` results and `failure_percent`, open for 1 s
/// (or `open_for`), one probe.
fn circuit(window: u32, min_calls: u32, failure_percent: u32, open_for: VDuration) -> CircuitContract {
    CircuitContract { window, min_calls, failure_percent, open_for, half_open_probes: 1, ..CircuitContract::DEFAULT }
}

/// A call whose one attempt has `outcome`, at once after the previous call.
fn call(outcome: Outcome) -> CallScript {
    CallScript::outcomes(&[outcome])
}

/// A call cancelled the instant it starts.
fn cancelled() -> CallScript {
    CallScript { cancel_after: Some(VDuration::ZERO), ..CallScript::outcomes(&[]) }
}

#[track_caller]
fn check(circuit: CircuitContract, calls: Vec<CallScript>, expect: &[CallResult]) {
    let policy = Policy {
        circuit: Some(circuit),
        ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
    };
    let trace = execute(&Reference, &policy, &Schedule::new(calls), 0);
    let results: Vec<CallResult> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            EventKind::CallEnd { result } => Some(result),
            _ => None,
        })
        .collect();
    assert_eq!(results, expect);
}

#[test]
fn opening_rule_and_probe_slots() {
    let second = VDuration::from_secs(1);
    let (ok, t) = (Outcome::Ok, Outcome::Transient);
    // Successes alone never open it, even where `failure_percent * results` is exactly 100.
    check(circuit(2, 2, 50, second), vec![call(ok), call(ok), call(ok)], &[OK, OK, OK]);
    // One failure in two results is 50%, below 100%: it stays closed.
    check(circuit(2, 2, 100, second), vec![call(t), call(ok), call(ok)], &[TRANSIENT, OK, OK]);
    // ... and at 50% it opens.
    check(circuit(2, 2, 50, second), vec![call(t), call(ok), call(ok)], &[TRANSIENT, OK, REJECTED]);
    // A cancelled probe frees its slot: the next call probes (and closes it) instead of being rejected.
    let calls = vec![call(t), cancelled(), call(ok), call(ok)];
    check(circuit(1, 1, 100, VDuration::ZERO), calls, &[TRANSIENT, CANCELLED, OK, OK]);
}

/// A call whose one attempt has `outcome`, `gap_ms` after the previous call.
fn after(gap_ms: u64, outcome: Outcome) -> CallScript {
    CallScript { gap_before: VDuration::from_millis(gap_ms), ..call(outcome) }
}

#[test]
fn every_refinement_its_contract_states() {
    use timelaw_core::{CircuitPolicy, CooldownTie, OpenShape};
    let ms = VDuration::from_millis;
    let (ok, t) = (Outcome::Ok, Outcome::Transient);
    let plain = circuit(4, 1, 50, ms(10));
    // Two failures in a row open it; a success in between resets the run.
    let consecutive = CircuitContract { policy: CircuitPolicy::ConsecutiveFailures { threshold: 2 }, ..plain };
    check(consecutive, vec![call(t), call(ok), call(t), call(ok)], &[TRANSIENT, OK, TRANSIENT, OK]);
    check(consecutive, vec![call(t), call(t), call(ok)], &[TRANSIENT, TRANSIENT, REJECTED]);
    // Two results in 5ms, half of them failed: it opens; a failure 5ms old is forgotten.
    let timed = CircuitContract { policy: CircuitPolicy::TimeWindow { window: ms(5) }, min_calls: 2, ..plain };
    check(timed, vec![call(t), after(4, ok), call(ok)], &[TRANSIENT, OK, REJECTED]);
    check(timed, vec![call(t), after(5, ok), call(ok)], &[TRANSIENT, OK, OK]);
    // A call at exactly the end of the 10ms open period: admitted, or only strictly after it.
    let opens = CircuitContract { min_calls: 1, ..plain };
    check(opens, vec![call(t), after(10, ok)], &[TRANSIENT, OK]);
    let after_end = CircuitContract { cooldown_tie: CooldownTie::AdmitsAfterEnd, ..opens };
    check(after_end, vec![call(t), after(10, ok), after(1, ok)], &[TRANSIENT, REJECTED, OK]);
    // The second open period (after a failed probe) doubles to 20ms.
    let doubling = CircuitContract { open_shape: OpenShape::Exponential { factor_milli: 2000, max: ms(50) }, ..opens };
    let probes = vec![call(t), after(10, t), after(19, ok), after(1, ok)];
    check(doubling, probes.clone(), &[TRANSIENT, TRANSIENT, REJECTED, OK]);
    check(opens, probes, &[TRANSIENT, TRANSIENT, OK, OK]);
    // A cancelled call is a failure that opens it, when the contract says so.
    let counts = CircuitContract { counts_cancellation: true, ..opens };
    check(counts, vec![cancelled(), call(ok)], &[CANCELLED, REJECTED]);
    check(opens, vec![cancelled(), call(ok)], &[CANCELLED, OK]);
}

#[test]
fn a_close_count_apart_from_the_probe_budget() {
    use timelaw_core::CircuitState;
    let ms = VDuration::from_millis;
    let (ok, t) = (Outcome::Ok, Outcome::Transient);
    // Two probes allowed: by default both must succeed; with `closes_after: 1` the first closes it.
    let two = CircuitContract { half_open_probes: 2, ..circuit(4, 1, 50, ms(10)) };
    let transitions = |circuit: CircuitContract| {
        let policy = Policy {
            circuit: Some(circuit),
            ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
        };
        let schedule = Schedule::new(vec![call(t), after(10, ok), call(ok)]);
        let trace = execute(&Reference, &policy, &schedule, 0);
        let closed_after = |event: &timelaw_core::Event| {
            matches!(event.kind, EventKind::CircuitTransition { to: CircuitState::Closed, .. }).then_some(event.call)
        };
        trace.events.iter().filter_map(closed_after).collect::<Vec<u32>>()
    };
    assert_eq!(transitions(two), vec![2], "closed by the second probe");
    assert_eq!(transitions(CircuitContract { closes_after: Some(1), ..two }), vec![1], "closed by the first");
    let invalid = Policy {
        circuit: Some(CircuitContract { closes_after: Some(3), ..two }),
        ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO)
    };
    assert_eq!(invalid.validate().map_err(|error| error.field), Err("circuit.closes_after"));
}
