//! The shrink pass `break_ties_by_time`: interleaving choices dropped, with one call's first dispatch
//! taking one nanosecond longer. A choice that runs a later call first at a tie is often the same race
//! as first-come order with the earlier call one nanosecond slower; by item 3 of [`super::order`]
//! (fewer interleaving choices before fewer dispatches and steps), the case without the choice is
//! smaller even when the slower dispatch needs a step of its own: `[c0 [], c1 []]` with the choice
//! `[1]` becomes `[c0 [ok 1ns], c1 []]` with none.
//!
//! Tried only when dropping the choices alone loses the failure (`shrink_interleave` runs first), at
//! most [`TIES_MAX`] candidates a round.

use timelaw_core::{Case, Outcome, Step, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// Candidates the pass tries at most in one round.
pub(super) const TIES_MAX: usize = 16;

/// `case` with call `call`'s first dispatch taking one nanosecond longer: its first step, or a first
/// step `ok` taking 1 ns when it has none (a dispatch past the end of a script is `ok` at once); a
/// repeated first step gives its first dispatch a step of its own. `None` past the end of time.
pub(super) fn first_dispatch_later<C: Clone>(case: &Case<C>, call: usize) -> Option<Case<C>> {
    let one = VDuration::from_nanos(1);
    let mut next = case.clone();
    let steps = &mut next.schedule.calls.get_mut(call)?.steps;
    match steps.first().copied() {
        None => steps.push(Step::new(one, Outcome::Ok)),
        Some(first) => {
            let later = Step::new(first.duration.checked_add(one)?, first.outcome);
            if first.count() > 1 {
                steps[0] = first.repeated(first.count() - 1);
                steps.insert(0, later);
            } else {
                steps[0] = later;
            }
        }
    }
    Some(next)
}

/// Every case with the interleaving choices dropped (all, then each one alone when there are several)
/// and one call's first dispatch one nanosecond later, first call first; at most [`TIES_MAX`], none
/// without choices.
pub(super) fn ties_broken_by_time<C: Clone>(case: &Case<C>) -> Vec<Case<C>> {
    let choices = &case.schedule.interleave;
    if choices.is_empty() {
        return Vec::new();
    }
    let mut plans = vec![Vec::new()];
    if choices.len() > 1 {
        plans.extend((0..choices.len()).map(|index| {
            let mut fewer = choices.clone();
            fewer.remove(index);
            fewer
        }));
    }
    let mut out = Vec::new();
    for plan in plans {
        for call in 0..case.schedule.calls.len() {
            let Some(mut next) = first_dispatch_later(case, call) else { continue };
            next.schedule.interleave = plan.clone();
            out.push(next);
            if out.len() == TIES_MAX {
                return out;
            }
        }
    }
    out
}

/// `break_ties_by_time`: the first case of [`ties_broken_by_time`] that keeps the failure, again from
/// it until none does.
pub(super) fn break_ties_by_time<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    shrinker.keep_first_repeatedly(|s| ties_broken_by_time(&s.best))
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, Schedule};

    use super::*;

    fn case(scripts: Vec<Vec<Step>>, interleave: &[u32]) -> Case<()> {
        let calls = scripts.into_iter().map(|steps| CallScript::new(steps).arriving(VDuration::ZERO)).collect();
        Case::new((), Schedule::new(calls).with_interleave(interleave.to_vec()), 0)
    }

    #[track_caller]
    fn check(start: Case<()>, expect: Vec<Case<()>>) {
        assert_eq!(ties_broken_by_time(&start), expect);
    }

    #[test]
    fn a_choice_becomes_a_nanosecond_on_a_first_dispatch() {
        let ns = VDuration::from_nanos;
        let ok_1ns = Step::new(ns(1), Outcome::Ok);
        let fail = |took| Step::new(ns(took), Outcome::Transient);
        check(case(vec![vec![], vec![]], &[]), vec![]);
        check(
            case(vec![vec![], vec![]], &[1]),
            vec![case(vec![vec![ok_1ns], vec![]], &[]), case(vec![vec![], vec![ok_1ns]], &[])],
        );
        check(
            case(vec![vec![fail(2)], vec![fail(0).repeated(3)]], &[1, 0]),
            vec![
                case(vec![vec![fail(3)], vec![fail(0).repeated(3)]], &[]),
                case(vec![vec![fail(2)], vec![fail(1), fail(0).repeated(2)]], &[]),
                case(vec![vec![fail(3)], vec![fail(0).repeated(3)]], &[0]),
                case(vec![vec![fail(2)], vec![fail(1), fail(0).repeated(2)]], &[0]),
                case(vec![vec![fail(3)], vec![fail(0).repeated(3)]], &[1]),
                case(vec![vec![fail(2)], vec![fail(1), fail(0).repeated(2)]], &[1]),
            ],
        );
        let end = case(vec![vec![Step::new(VDuration::MAX, Outcome::Ok)]], &[1]);
        assert_eq!(first_dispatch_later(&end, 0), None);
    }
}
