//! The temporal combinators on small hand-written traces.

mod support;

use support::{ms, Expect};
use timelaw_core::{CallResult, Event, EventKind, Outcome, Trace, VInstant};
use timelaw_laws::temporal::{always, before, between, each_call, eventually, monitor, never, per_call, Check};
use timelaw_laws::Verdict;

#[track_caller]
fn check(verdict: Verdict, expect: Expect) {
    assert!(expect.matches(&verdict), "expected {expect:?}, got {verdict}");
}

const START: EventKind = EventKind::CallStart { idempotent: true };
const ATTEMPT: EventKind = EventKind::AttemptStart;
const FAILED: EventKind = EventKind::AttemptEnd { outcome: Outcome::Transient };
const SUCCEEDED: EventKind = EventKind::AttemptEnd { outcome: Outcome::Ok };
const END: EventKind = EventKind::CallEnd { result: CallResult::Ok };

fn sleep(millis: u64) -> EventKind {
    EventKind::SleepRequested { duration: ms(millis) }
}

/// A trace of `(call, kind)` events, one millisecond apart.
fn trace(events: &[(u32, EventKind)]) -> Trace {
    let mut trace = Trace::new();
    for (index, &(call, kind)) in events.iter().enumerate() {
        trace.push(VInstant::EPOCH.saturating_add(ms(index as u64)), call, 0, kind);
    }
    trace
}

fn is(kind: EventKind) -> impl Fn(&Event) -> bool {
    move |event| event.kind == kind
}

fn is_sleep(event: &Event) -> bool {
    matches!(event.kind, EventKind::SleepRequested { .. })
}

fn short_sleep(event: &Event) -> bool {
    matches!(event.kind, EventKind::SleepRequested { duration } if duration <= ms(10))
}

#[test]
fn always_and_never() {
    let t = trace(&[(0, START), (0, sleep(5)), (0, sleep(50)), (0, END)]);
    check(always(&t.events, |_| true), Expect::Holds);
    check(always(t.events.iter().filter(|e| is_sleep(e)), short_sleep), Expect::At(2));
    check(always(t.events.iter().filter(|e| is_sleep(e)).take(1), short_sleep), Expect::Holds);
    check(always(t.events.iter().filter(|e| e.kind == ATTEMPT), |_| false), Expect::Vacuous);
    check(never(&t.events, is(END)), Expect::At(3));
    check(never(&t.events, is(ATTEMPT)), Expect::Holds);
    check(never(&t.events[..0], is(END)), Expect::Vacuous);
    let named = never(&t.events, is(END)).because("the call ended");
    assert_eq!(named.violation().map(|v| v.message.as_ref()), Some("the call ended"));
}

#[test]
fn eventually_is_three_valued() {
    let t = trace(&[(0, START), (0, ATTEMPT), (0, FAILED), (0, END)]);
    check(eventually(&t.events, is(FAILED), true), Expect::Holds);
    check(eventually(&t.events, is(SUCCEEDED), true), Expect::At(3));
    check(eventually(&t.events, is(SUCCEEDED), false), Expect::Inconclusive);
    check(eventually(&t.events[..0], is(SUCCEEDED), true), Expect::Nowhere);
    check(eventually(&t.events[..0], is(SUCCEEDED), false), Expect::Inconclusive);
}

#[test]
fn before_is_precedence() {
    let ok = trace(&[(0, START), (0, ATTEMPT), (0, FAILED), (0, ATTEMPT), (0, FAILED)]);
    check(before(&ok.events, is(ATTEMPT), is(FAILED)), Expect::Holds);
    check(before(&ok.events, is(FAILED), is(ATTEMPT)), Expect::At(1));
    check(before(&ok.events, is(START), is(END)), Expect::Vacuous);
    // An event that is both `a` and `b` is not preceded by itself.
    check(before(&ok.events, is(START), is(START)), Expect::At(0));
}

#[test]
fn between_is_windowed() {
    let t = trace(&[(0, START), (0, ATTEMPT), (0, SUCCEEDED), (0, sleep(5)), (0, END), (1, START), (1, ATTEMPT)]);
    let not_sleep = |event: &Event| !is_sleep(event);
    check(between(&t.events, is(SUCCEEDED), is(END), not_sleep), Expect::At(3));
    check(between(&t.events, is(SUCCEEDED), is(sleep(5)), |_| false), Expect::Holds);
    check(between(&t.events, is(FAILED), is(END), |_| false), Expect::Vacuous);
    // A window never closed runs to the end.
    check(between(&t.events, is(END), is(FAILED), |event| event.kind != ATTEMPT), Expect::At(6));
    // The closing event is outside the window.
    check(between(&t.events, is(SUCCEEDED), is(sleep(5)), not_sleep), Expect::Holds);
}

#[test]
fn monitor_folds_state() {
    let t = trace(&[(0, START), (0, ATTEMPT), (0, FAILED), (0, ATTEMPT), (0, FAILED), (0, ATTEMPT)]);
    let at_most = |limit: u32| {
        move |count: &mut u32, event: &Event| match event.kind {
            EventKind::AttemptStart => {
                *count += 1;
                Check::that(*count <= limit, "too many attempts")
            }
            _ => Check::Skip,
        }
    };
    check(monitor(&t.events, 0, at_most(3)), Expect::Holds);
    check(monitor(&t.events, 0, at_most(2)), Expect::At(5));
    check(monitor(&t.events[..1], 0, at_most(2)), Expect::Vacuous);
    let mut seen = 0_u32;
    check(
        monitor(&t.events, &mut seen, |seen, _| {
            **seen += 1;
            Check::Skip
        }),
        Expect::Vacuous,
    );
    assert_eq!(seen, 6);
}

#[test]
fn calls_are_split_and_merged() {
    let t = trace(&[(0, START), (0, ATTEMPT), (0, END), (1, START), (1, END), (2, START), (2, ATTEMPT)]);
    let lengths: Vec<usize> = per_call(&t.events).map(<[Event]>::len).collect();
    assert_eq!(lengths, [3, 2, 2]);
    check(each_call(&t.events, |call| eventually(call, is(ATTEMPT), false)), Expect::Inconclusive);
    check(each_call(&t.events, |call| always(call, |e| e.kind != ATTEMPT || e.call == 0)), Expect::At(6));
    check(each_call(&t.events, |call| never(call.iter().filter(|e| e.call == 1), is(ATTEMPT))), Expect::Holds);
    check(each_call(&[], |_| Verdict::Holds), Expect::Vacuous);
}

#[test]
fn merge_prefers_the_decisive_verdict() {
    let violated = Verdict::violated_at(1, "first");
    let cases = [
        (Verdict::NotApplicable, Verdict::Vacuous, Verdict::Vacuous),
        (Verdict::Vacuous, Verdict::Holds, Verdict::Holds),
        (Verdict::Holds, Verdict::Inconclusive("cut".into()), Verdict::Inconclusive("cut".into())),
        (Verdict::Inconclusive("cut".into()), violated.clone(), violated.clone()),
    ];
    for (a, b, merged) in cases {
        assert_eq!(a.clone().merge(b.clone()), merged, "{a} merged with {b}");
        assert_eq!(b.merge(a), merged);
    }
    // Between two violations, the first (the earlier one, in a left-to-right walk) wins.
    assert_eq!(violated.clone().merge(Verdict::violated_at(2, "second")), violated);
}
