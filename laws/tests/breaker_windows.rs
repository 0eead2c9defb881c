//! The breaker model's windows at every size a contract may state: the bit ring up to 128 results
//! (its widest at exactly 128), the queue beyond.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{CallScript, CircuitContract, Declared, Outcome, Schedule};
use timelaw_laws::ids;

/// A breaker of `window` results opening at 2 results with half of them failed, open for 100 ms.
fn breaker(window: u32) -> CircuitContract {
    CircuitContract { window, min_calls: 2, failure_percent: 50, open_for: ms(100), ..CircuitContract::DEFAULT }
}

/// The reference with a breaker of `actual_window` (at most 128, its limit), one attempt per call,
/// promising a breaker of `claimed_window`, on one single-step call per outcome.
fn windowed(actual_window: u32, claimed_window: u32, outcomes: &[Outcome]) -> Run {
    let policy = Policy {
        circuit: Some(breaker(actual_window)),
        ..Policy::new(1, Backoff::Constant { delay: ms(10) }, ms(1000))
    };
    let schedule = Schedule::new(outcomes.iter().map(|&outcome| CallScript::outcomes(&[outcome])).collect());
    claiming(policy, |contract| contract.circuit = Declared::Stated(breaker(claimed_window)), schedule)
}

#[track_caller]
fn check(run: Run, open_rejects: Expect, closed_admits: Expect) {
    assert_verdict(ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH, &run, open_rejects);
    assert_verdict(ids::CIRCUIT_CLOSED_ADMITS, &run, closed_admits);
}

#[test]
fn every_window_size_opens_as_stated() {
    // Two failures open every one of these breakers; the third call is rejected.
    for window in [2, 127, 128, 129, 200] {
        check(windowed(window.min(128), window, &[T, T, OK]), Expect::Holds, Expect::Holds);
    }
    // One failure in four results: a window of two has forgotten the older successes and opens (the last
    // call is rejected), wider ones do not.
    let one_in_four = [OK, OK, OK, T, OK];
    check(windowed(2, 2, &one_in_four), Expect::Holds, Expect::Holds);
    for window in [128, 200] {
        check(windowed(window.min(128), window, &one_in_four), Expect::Vacuous, Expect::Holds);
    }
}
