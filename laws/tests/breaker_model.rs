//! The breaker model driven directly, as a user's law may drive it: calls may overlap (admitted before
//! earlier ones are recorded), so the half-open probe slots bind.

use timelaw_core::{
    CallResult, CircuitContract, CircuitPolicy, CooldownTie, ErrorKind, Event, EventKind, OpenShape, Rejection,
    VDuration, VInstant,
};
use timelaw_laws::catalogue::breaker_model::{Admission, BreakerModel, BreakerSpec, CallFacts, Phase};

/// A count window of 2 that opens on one failure, open for 100 ms, with two half-open probes.
fn model() -> BreakerModel {
    let params = CircuitContract {
        window: 2,
        min_calls: 1,
        failure_percent: 100,
        open_for: VDuration::from_millis(100),
        half_open_probes: 2,
        ..CircuitContract::DEFAULT
    };
    BreakerModel::new(BreakerSpec {
        params,
        policy: CircuitPolicy::CountWindow,
        open_shape: OpenShape::Constant,
        cooldown_tie: CooldownTie::AdmitsAtEnd,
        counts_cancellation: false,
    })
}

/// One step: a call starting at this instant (ms) and the model's decision, or a result recorded.
#[derive(Clone, Copy)]
enum Op {
    Admit(u64, Admission),
    Record(u64, CallResult),
}

fn at(millis: u64) -> VInstant {
    VInstant::EPOCH.saturating_add(VDuration::from_millis(millis))
}

#[track_caller]
fn check(ops: &[Op], phase: Phase) {
    let mut model = model();
    for (index, op) in ops.iter().enumerate() {
        match *op {
            Op::Admit(millis, expect) => assert_eq!(model.admit(at(millis)), expect, "step {index}"),
            Op::Record(millis, result) => model.record(result, at(millis)),
        }
    }
    assert_eq!(model.phase(), phase);
}

const PLAIN: Admission = Admission::Admit { after_cooldown: false, freed_slot: false };
const COOLED: Admission = Admission::Admit { after_cooldown: true, freed_slot: false };
const FREED: Admission = Admission::Admit { after_cooldown: false, freed_slot: true };
const FAILED: CallResult = CallResult::Err(ErrorKind::Transient);
const CANCELLED: CallResult = CallResult::Err(ErrorKind::Cancelled);

#[test]
fn overlapping_probes_take_the_slots() {
    use Op::{Admit, Record};
    let opened = [Admit(0, PLAIN), Record(0, FAILED), Admit(50, Admission::Open)];
    let half_open = |probes, admitted, successes| Phase::HalfOpen { probes, admitted, successes };
    check(&opened, Phase::Open { opened_at: at(0), until: at(100) });
    // Two probes hold both slots; a third overlapping call is refused.
    let both = [Admit(100, COOLED), Admit(100, PLAIN), Admit(100, Admission::ProbesTaken)];
    check(&[&opened[..], &both[..]].concat(), half_open(2, 2, 0));
    // A cancelled probe frees its slot for the next call, which is marked as taking a freed slot.
    let freed = [Record(101, CANCELLED), Admit(101, FREED), Admit(101, Admission::ProbesTaken)];
    check(&[&opened[..], &both[..], &freed[..]].concat(), half_open(2, 3, 0));
    // Two successes close it.
    let closed = [Record(102, CallResult::Ok), Record(102, CallResult::Ok)];
    check(&[&opened[..], &both[..], &freed[..], &closed[..]].concat(), Phase::Closed { after_probes: true });
}

/// A call of these events (instants 0, sequence numbers from 0).
fn call(kinds: &[EventKind]) -> Vec<Event> {
    let event = |(seq, &kind): (usize, &EventKind)| Event { seq: seq as u32, at: at(0), call: 0, attempt: 0, kind };
    kinds.iter().enumerate().map(event).collect()
}

#[track_caller]
fn check_refusal(kinds: &[EventKind], rejected: bool, blamed: Option<u32>) {
    let facts = CallFacts::of(&call(kinds));
    assert_eq!((facts.rejected(), facts.refusal_event()), (rejected, blamed));
}

#[test]
fn a_refusal_is_a_rejection_or_a_circuit_open_result_without_an_attempt() {
    let start = EventKind::CallStart { idempotent: true };
    let rejected = EventKind::Rejected { reason: Rejection::CircuitOpen };
    let end = |result| EventKind::CallEnd { result };
    let open = CallResult::Err(ErrorKind::CircuitOpen);
    let fatal = CallResult::Err(ErrorKind::Fatal);
    check_refusal(&[start, rejected, end(open)], true, Some(1));
    check_refusal(&[start, rejected, end(fatal)], true, Some(1));
    check_refusal(&[start, end(open)], true, Some(1));
    check_refusal(&[start, end(fatal)], false, Some(1));
    check_refusal(&[start, EventKind::AttemptStart, end(open)], false, Some(2));
}

#[test]
fn a_call_the_bulkhead_kept_out_never_reached_the_breaker() {
    let start = EventKind::CallStart { idempotent: true };
    let end = |kind| EventKind::CallEnd { result: CallResult::Err(kind) };
    let full = EventKind::Rejected { reason: Rejection::BulkheadFull };
    let never_reached = |kinds: &[EventKind]| CallFacts::of(&call(kinds)).never_reached_breaker();
    // Rejected as full, or gone from the queue with no attempt: kept out in front of the breaker.
    assert!(never_reached(&[start, full, end(ErrorKind::BulkheadFull)]));
    assert!(never_reached(&[start, EventKind::Queued, end(ErrorKind::DeadlineExceeded)]));
    // Admitted (an attempt), or refused by the breaker itself: it reached the breaker.
    assert!(!never_reached(&[start, EventKind::AttemptStart, end(ErrorKind::Transient)]));
    let open = EventKind::Rejected { reason: Rejection::CircuitOpen };
    assert!(!never_reached(&[start, EventKind::Queued, open, end(ErrorKind::CircuitOpen)]));
    // Refused behind the breaker (by the limiter), then queued again for its next try and gone from the
    // queue: it had passed the breaker once, so it reached it.
    let limited = EventKind::Rejected { reason: Rejection::LimiterEmpty };
    let queued = EventKind::Queued;
    assert!(!never_reached(&[start, queued, limited, queued, end(ErrorKind::DeadlineExceeded)]));
}

#[test]
fn a_result_from_an_earlier_state_reopens_only_as_a_failed_probe_at_the_close() {
    let mut model = model();
    let closed_epoch = model.epoch();
    assert_eq!((model.admit(at(0)), model.admit(at(0))), (PLAIN, PLAIN));
    model.record(FAILED, at(0));
    assert_eq!(model.admit(at(100)), COOLED);
    let probes_epoch = model.epoch();
    assert_eq!(model.admit(at(100)), PLAIN);
    model.record_admitted(CallResult::Ok, at(102), probes_epoch);
    model.record_admitted(CallResult::Ok, at(102), probes_epoch);
    let closed = model.clone();
    assert_eq!(closed.phase(), Phase::Closed { after_probes: true });
    let after = |result: CallResult, millis: u64, epoch: u32| {
        let mut model = closed.clone();
        model.record_admitted(result, at(millis), epoch);
        model.phase()
    };
    // A failed probe landing at the instant the successes closed the breaker reopens it.
    assert!(matches!(after(FAILED, 102, probes_epoch), Phase::Open { .. }));
    // Not a success of that probe period, nor a failure later, nor one of a call admitted while closed.
    assert_eq!(after(CallResult::Ok, 102, probes_epoch), Phase::Closed { after_probes: true });
    assert_eq!(after(FAILED, 103, probes_epoch), Phase::Closed { after_probes: true });
    assert_eq!(after(FAILED, 102, closed_epoch), Phase::Closed { after_probes: true });
}
