//! Edges of the reference interpreter that no other suite pinned down (each case here kills a mutant
//! `bash .ci/mutants reference` found alive): its name, the contract it states, and calls that end before
//! or at a boundary.

use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{execute, CallResult, Contract, ErrorKind, EventKind, Outcome, Schedule, Step, Subject, VDuration};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// Four attempts of exponential backoff from 10 ms (doubling), capped at 1 s.
fn policy() -> Policy {
    Policy::new(4, Backoff::Exponential { initial: ms(10), factor: 2 }, ms(1000))
}

/// What a contract promises about the retries, in one tuple: max attempts, smallest and largest delay.
/// (One place reads the contract's fields, so a regrouped `Contract` changes one line here.)
fn promises(contract: &Contract) -> (Option<u32>, Option<VDuration>, Option<VDuration>) {
    (contract.max_attempts, contract.delay_min, contract.delay_max)
}

#[track_caller]
fn check_contract(jitter: Jitter, expect: (Option<u32>, Option<VDuration>, Option<VDuration>)) {
    let contract = Reference.contract(&Policy { jitter, ..policy() });
    assert_eq!(promises(&contract), expect, "{jitter:?}");
}

#[test]
fn the_contract_states_the_policy() {
    assert_eq!(Reference.name(), "reference");
    check_contract(Jitter::None, (Some(4), Some(ms(10)), Some(ms(1000))));
    check_contract(Jitter::Full, (Some(4), None, Some(ms(1000))));
    check_contract(Jitter::Equal, (Some(4), Some(ms(5)), Some(ms(1000))));
}

/// Runs `policy` on one call of `steps` and checks the attempts dispatched and the call's result.
#[track_caller]
fn check(policy: Policy, steps: Vec<Step>, attempts: usize, result: CallResult) {
    let trace = execute(&Reference, &policy, &Schedule::single(steps), 0);
    let started = trace.events.iter().filter(|event| event.kind == EventKind::AttemptStart).count();
    let ended = trace.events.iter().find_map(|event| match event.kind {
        EventKind::CallEnd { result } => Some(result),
        _ => None,
    });
    assert_eq!((started, ended), (attempts, Some(result)), "{policy:?}");
}

#[test]
fn calls_end_at_their_boundaries() {
    let transient = |millis| Step::new(ms(millis), Outcome::Transient);
    let deadline = |millis| Policy { deadline: Some(ms(millis)), ..policy() };
    // A deadline of zero has passed when the call starts: no attempt is dispatched.
    check(deadline(0), vec![transient(0)], 0, CallResult::Err(ErrorKind::DeadlineExceeded));
    check(deadline(1), vec![transient(0), transient(0)], 1, CallResult::Err(ErrorKind::DeadlineExceeded));
}
