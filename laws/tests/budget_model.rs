//! The retry-budget model walked over hand-made events: what it counts at every step, with and without a
//! window, taking retries at attempts or at the sleeps before them.

use timelaw_core::{BudgetContract, Contract, Declared, Event, EventKind, VDuration, VInstant};
use timelaw_laws::catalogue::budget_model::BudgetModel;

/// A budget of one retry plus 150 % of the calls, over `window_ms` (the whole case when `None`).
/// (The one place that builds the contract.)
fn model(window_ms: Option<u64>) -> BudgetModel {
    let window = window_ms.map(VDuration::from_millis);
    let budget = BudgetContract { min_retries: 1, retry_percent: 150, window, admits: false };
    let contract = Contract { budget: Declared::Stated(budget), ..Contract::default() };
    BudgetModel::of(&contract).expect("the contract states a budget")
}

const CALL: EventKind = EventKind::CallStart { idempotent: true };
const ATTEMPT: EventKind = EventKind::AttemptStart;
const SLEEP: EventKind = EventKind::SleepRequested { duration: VDuration::from_millis(10) };
const CLAMPED: EventKind = EventKind::SleepClamped { to: VDuration::from_millis(5) };

/// Events from `(instant in ms, attempt number, kind)`.
fn events(list: &[(u64, u32, EventKind)]) -> Vec<Event> {
    let event = |(seq, &(at_ms, attempt, kind)): (usize, &(u64, u32, EventKind))| Event {
        seq: seq as u32,
        at: VInstant::EPOCH.saturating_add(VDuration::from_millis(at_ms)),
        call: 0,
        attempt,
        kind,
    };
    list.iter().enumerate().map(event).collect()
}

/// What [`check`] compares after a step with `calls` counted and `retries` taken, under [`model`]'s
/// budget (one retry plus 150 % of the calls).
fn step(calls: u32, retries: u64) -> (u32, u64, u64, bool) {
    let allowed = 1 + u64::from(calls) * 3 / 2;
    (calls, retries, allowed, retries < allowed)
}

/// Advances `model` to every index from 0 to one past the end and compares `(calls, retries, allowed,
/// has_room)` at each step with `expect`.
#[track_caller]
fn check(mut model: BudgetModel, events: &[Event], expect: &[(u32, u64, u64, bool)]) {
    let steps: Vec<_> = (0..=events.len() + 1)
        .map(|index| {
            model.advance(events, index);
            (model.calls(), model.retries(), model.allowed(), model.has_room())
        })
        .collect();
    assert_eq!(steps, expect);
}

/// One call: an attempt, a sleep, a retry, a retry with no sleep before it, a sleep the runtime clamped
/// and a retry after it; then a second call.
const RETRIES: &[(u64, u32, EventKind)] = &[
    (0, 0, CALL),
    (0, 1, ATTEMPT),
    (0, 1, SLEEP),
    (10, 2, ATTEMPT),
    (10, 3, ATTEMPT),
    (10, 3, SLEEP),
    (15, 3, CLAMPED),
    (15, 4, ATTEMPT),
    (20, 0, CALL),
];

#[test]
fn retries_are_taken_at_attempts() {
    let (one, two) = ((1, 2), (2, 4)); // (calls, retries allowed)
    let step = |(calls, allowed): (u32, u64), retries: u64| (calls, retries, allowed, retries < allowed);
    let expect = [
        (0, 0, 1, true),
        step(one, 0),
        step(one, 0),
        step(one, 0),
        step(one, 1),
        step(one, 2),
        step(one, 2),
        step(one, 2),
        step(one, 3),
        step(two, 3),
        step(two, 3),
    ];
    check(model(None), &events(RETRIES), &expect);
}

#[test]
fn retries_spent_at_sleep_count_once() {
    // The sleeps take the retries; the attempt right after a sleep (or a clamp) takes none, the one
    // without a sleep before it does.
    let expect = [
        step(0, 0),
        step(1, 0),
        step(1, 0),
        step(1, 1),
        step(1, 1),
        step(1, 2),
        step(1, 3),
        step(1, 3),
        step(1, 3),
        step(2, 3),
        step(2, 3),
    ];
    check(model(None).spent_at_sleep(), &events(RETRIES), &expect);
}

#[test]
fn a_window_forgets_what_is_a_whole_window_old() {
    let list = [
        (0, 0, CALL),
        (0, 1, ATTEMPT),
        (50, 2, ATTEMPT),
        (100, 0, CALL),
        (100, 1, ATTEMPT),
        (149, 2, ATTEMPT),
        (200, 0, CALL),
    ];
    // At 100 ms the call at 0 ms has left a 100 ms window (exactly a window old); the retry at 50 ms
    // leaves it at 150 ms, so at 149 ms it still counts.
    let expect =
        [step(0, 0), step(1, 0), step(1, 0), step(0, 1), step(1, 1), step(1, 1), step(0, 1), step(1, 1), step(1, 1)];
    check(model(Some(100)), &events(&list), &expect);
}

#[test]
fn a_window_forgets_each_event_once() {
    // Calls half a window apart: each step forgets the call a whole window old and only that one (a
    // counted event dropped twice would take the count below what the window holds).
    let list = [(0, 0, CALL), (50, 0, CALL), (100, 0, CALL), (150, 0, CALL)];
    check(model(Some(100)), &events(&list), &[step(0, 0), step(1, 0), step(1, 0), step(1, 0), step(2, 0), step(2, 0)]);
}

#[test]
fn a_window_of_zero_counts_nothing() {
    // Every event is a whole window old at its own instant: nothing is ever counted, not even the newest.
    check(model(Some(0)), &events(RETRIES), &[(0, 0, 1, true); 11]);
}

#[test]
fn no_budget_no_model() {
    assert!(BudgetModel::of(&Contract::default()).is_none());
}

/// Calls arriving together deposit when they first run: a call counts at its first event after its
/// `CallStart` (a wall-clock jump recorded under it is the case's doing, not the call's), wherever the
/// other calls' events fall in between.
#[test]
fn overlapping_calls_deposit_when_they_first_run() {
    let jump = EventKind::WallJump { by_ns: -1 };
    let list: &[(u64, u32, u32, EventKind)] = &[
        (0, 0, 0, CALL),
        (0, 1, 0, CALL),
        (0, 1, 1, ATTEMPT), // call 1 runs first: it deposits
        (0, 0, 0, jump),    // under call 0, no action of its own
        (0, 0, 1, ATTEMPT), // call 0's first action: it deposits
        (0, 2, 0, CALL),
        (0, 1, 1, SLEEP), // right after another call's start: no deposit of call 1's
        (10, 1, 2, ATTEMPT),
        (10, 2, 1, ATTEMPT), // call 2's first action, after others' events: it deposits
    ];
    let event = |(seq, &(at_ms, call, attempt, kind)): (usize, &(u64, u32, u32, EventKind))| Event {
        seq: seq as u32,
        at: VInstant::EPOCH.saturating_add(VDuration::from_millis(at_ms)),
        call,
        attempt,
        kind,
    };
    let events: Vec<Event> = list.iter().enumerate().map(event).collect();
    let expect = [
        step(0, 0),
        step(0, 0),
        step(0, 0),
        step(1, 0),
        step(1, 0),
        step(2, 0),
        step(2, 0),
        step(2, 0),
        step(2, 1),
        step(3, 1),
        step(3, 1),
    ];
    check(model(None).deposits_when_run(), &events, &expect);
}
