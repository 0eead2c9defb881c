//! `step_to_gap`: a call's last step dropped with its time moved into the gap before the next call, so
//! the next call starts when it did. A step that only let time pass between two calls (a success that
//! took a while, then a call that needs the time gone by) is a gap: dropping the step alone, or making
//! it instant, loses the time, and the gap form has one dispatch fewer (item 4 of [`super::order`]).
//! Sequential cases only: a call with an arrival has no gap.

use timelaw_core::Case;
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::paired::one_dispatch_fewer;

/// `case` with one dispatch of call `call`'s last step dropped and its duration added to the next
/// call's gap; `None` for the last call, a call without steps, an instant last step, or a case whose
/// calls have arrivals.
pub(super) fn into_gap<C: Clone>(case: &Case<C>, call: usize) -> Option<Case<C>> {
    let calls = &case.schedule.calls;
    if calls.iter().any(|script| script.arrival.is_some()) {
        return None;
    }
    calls.get(call + 1)?;
    let last = calls.get(call)?.steps.len().checked_sub(1)?;
    let duration = calls[call].steps[last].duration;
    if duration.is_zero() {
        return None;
    }
    let mut next = one_dispatch_fewer(case, call, last)?;
    let following = &mut next.schedule.calls[call + 1];
    following.gap_before = following.gap_before.saturating_add(duration);
    Some(next)
}

/// The pass: each call's last step into the next call's gap, from the first call; whether it kept one.
pub(super) fn step_to_gap<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut call = 0;
    while call + 1 < shrinker.best.schedule.calls.len() && !shrinker.out_of_budget() {
        let kept = into_gap(&shrinker.best, call).is_some_and(|candidate| shrinker.attempt(candidate));
        if kept {
            progress = true;
        } else {
            call += 1;
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, Outcome, Schedule, Step, VDuration};

    use super::*;

    fn ns(nanos: u64) -> VDuration {
        VDuration::from_nanos(nanos)
    }

    #[test]
    fn the_last_step_becomes_the_next_calls_gap() {
        let first = CallScript::new(vec![Step::instant(Outcome::Transient), Step::new(ns(5), Outcome::Ok)]);
        let second = CallScript { gap_before: ns(2), ..CallScript::new(vec![]) };
        let case = Case::new((), Schedule::new(vec![first, second]), 0);
        let moved = into_gap(&case, 0).expect("a timed last step and a next call");
        assert_eq!(moved.schedule.calls[0].steps, vec![Step::instant(Outcome::Transient)]);
        assert_eq!(moved.schedule.calls[1].gap_before, ns(7));
        assert_eq!(into_gap(&case, 1), None, "the last call has no next call");
        assert_eq!(into_gap(&moved, 0), None, "an instant last step has no time to move");
        let mut repeated = case.clone();
        repeated.schedule.calls[0].steps[1] = Step::new(ns(5), Outcome::Ok).repeated(3);
        let moved = into_gap(&repeated, 0).unwrap();
        assert_eq!(moved.schedule.calls[0].steps[1], Step::new(ns(5), Outcome::Ok).repeated(2));
        let mut arriving = case;
        for script in &mut arriving.schedule.calls {
            script.gap_before = VDuration::ZERO;
            script.arrival = Some(VDuration::ZERO);
        }
        assert_eq!(into_gap(&arriving, 0), None, "a call with an arrival has no gap");
    }
}
