//! Shrink passes for cases whose calls overlap: `serialize` (every arrival dropped: the calls run one
//! after another, the simplest form), `shrink_interleave` (fewer and smaller interleaving choices, towards
//! first-come order) and `shrink_arrivals` (arrivals made equal, moved to start at zero, moved earlier
//! to the exact boundary by binary search). Items 2, 3 and 7 of [`super::order`].
//!
//! Every candidate keeps the domain's rules on arrivals (`timelaw_generators::membership`, rule 5): a
//! case with arrivals keeps one on every call, never decreasing, with no gap; a serialized case has none.

use timelaw_core::{Case, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// The serialized forms of a case with arrivals, simplest first: no arrival and no gap; the first
/// call waiting for its old arrival; each call waiting the old time between arrivals after the previous
/// one ended. The interleaving choices go too (a sequential case has no ties to order). Empty for a
/// sequential case.
pub(super) fn serialized<C: Clone>(case: &Case<C>) -> Vec<Case<C>> {
    let Some(offsets) = offsets(case) else { return Vec::new() };
    let gaps = |first_only: bool| -> Vec<VDuration> {
        let mut previous = VDuration::ZERO;
        let mut gaps = Vec::with_capacity(offsets.len());
        for (index, &at) in offsets.iter().enumerate() {
            gaps.push(if first_only && index > 0 { VDuration::ZERO } else { at.saturating_sub(previous) });
            previous = at;
        }
        gaps
    };
    let plans = [vec![VDuration::ZERO; offsets.len()], gaps(true), gaps(false)];
    let mut out: Vec<Case<C>> = Vec::with_capacity(plans.len());
    for plan in plans {
        let mut next = case.clone();
        next.schedule.interleave.clear();
        for (call, gap) in next.schedule.calls.iter_mut().zip(plan) {
            call.arrival = None;
            call.gap_before = gap;
        }
        if !out.iter().any(|form| form.schedule == next.schedule) {
            out.push(next);
        }
    }
    out
}

/// Every call's arrival, when every call has one (the domain's form); `None` otherwise.
fn offsets<C>(case: &Case<C>) -> Option<Vec<VDuration>> {
    case.schedule.calls.iter().map(|call| call.arrival).collect::<Option<Vec<_>>>().filter(|all| !all.is_empty())
}

/// `case` with call `from` and every later call arriving `by` earlier (never before the call before
/// `from`, nor before zero); `None` when nothing moves or the case has no arrivals.
pub(super) fn earlier_from<C: Clone>(case: &Case<C>, from: usize, by: VDuration) -> Option<Case<C>> {
    move_arrivals(case, from, case.schedule.calls.len(), by)
}

/// `case` with only call `call` arriving `by` earlier (never before the call before it).
pub(super) fn earlier_one<C: Clone>(case: &Case<C>, call: usize, by: VDuration) -> Option<Case<C>> {
    move_arrivals(case, call, call + 1, by)
}

fn move_arrivals<C: Clone>(case: &Case<C>, from: usize, to: usize, by: VDuration) -> Option<Case<C>> {
    let slack = slack(case, from)?;
    if by.is_zero() || by > slack {
        return None;
    }
    let mut next = case.clone();
    for call in next.schedule.calls.get_mut(from..to)? {
        call.arrival = call.arrival.map(|at| at.saturating_sub(by));
    }
    Some(next)
}

/// How much earlier call `call` may arrive: down to the previous call's arrival (zero for the first).
pub(super) fn slack<C>(case: &Case<C>, call: usize) -> Option<VDuration> {
    let offsets = offsets(case)?;
    let previous = if call == 0 { VDuration::ZERO } else { *offsets.get(call - 1)? };
    Some(offsets.get(call)?.saturating_sub(previous))
}

/// `case` with call `call` arriving as late as the next call (the two arrive together); `None` for
/// the last call or when they already arrive together.
pub(super) fn later_to_next<C: Clone>(case: &Case<C>, call: usize) -> Option<Case<C>> {
    let offsets = offsets(case)?;
    let next_at = *offsets.get(call + 1)?;
    if offsets[call] == next_at {
        return None;
    }
    let mut next = case.clone();
    next.schedule.calls[call].arrival = Some(next_at);
    Some(next)
}

/// Every case with a call moved before an earlier call arriving with it (the scripts between rotate:
/// two adjacent calls swap, nearest first) and one interleaving choice dropped, or all of them: a
/// choice that ran a later call first is often the same run as first-come order with that call
/// placed first.
pub(super) fn swapped<C: Clone>(case: &Case<C>) -> Vec<Case<C>> {
    let Some(offsets) = offsets(case) else { return Vec::new() };
    let choices = &case.schedule.interleave;
    let mut out = Vec::new();
    if choices.is_empty() {
        return out;
    }
    for call in 1..offsets.len() {
        for earlier in (0..call).rev().take_while(|&earlier| offsets[earlier] == offsets[call]) {
            let mut moved = case.clone();
            moved.schedule.calls[earlier..=call].rotate_right(1);
            out.push(with_choices(&moved, Vec::new()));
            for index in 0..choices.len() {
                let mut fewer = choices.clone();
                fewer.remove(index);
                if !fewer.is_empty() {
                    out.push(with_choices(&moved, fewer));
                }
            }
        }
    }
    out
}

/// `case` with interleaving choices `choices`.
pub(super) fn with_choices<C: Clone>(case: &Case<C>, choices: Vec<u32>) -> Case<C> {
    let mut next = case.clone();
    next.schedule.interleave = choices;
    next
}

/// The choices without their trailing zeros (a missing entry picks the first task, as 0 does).
pub(super) fn trimmed(choices: &[u32]) -> Vec<u32> {
    let kept = choices.iter().rposition(|&choice| choice != 0).map_or(0, |last| last + 1);
    choices[..kept].to_vec()
}

/// The smaller values worth trying for a choice, smallest first: 0, then up to [`CHOICE_TRIES`]
/// values above it (a choice picks `entry % ready`, and at most `CALLS_MAX` tasks are ready).
pub(super) fn smaller_choices(choice: u32) -> impl Iterator<Item = u32> {
    (0..choice.min(CHOICE_TRIES)).chain((choice > CHOICE_TRIES).then_some(choice / 2))
}

/// How many small values [`smaller_choices`] tries.
const CHOICE_TRIES: u32 = 8;

/// `serialize`: the case with every arrival dropped, simplest form first.
pub(super) fn serialize<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    for candidate in serialized(&shrinker.best) {
        if shrinker.attempt(candidate) {
            return true;
        }
    }
    false
}

/// `shrink_interleave`: no choices at all (first-come order), the trailing zeros trimmed, chunks of
/// choices dropped (delta debugging), a call moved before an earlier one arriving with it for a choice, then each
/// choice towards 0.
pub(super) fn shrink_interleave<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    if shrinker.best.schedule.interleave.is_empty() {
        return false;
    }
    if shrinker.attempt(with_choices(&shrinker.best, Vec::new())) {
        return true;
    }
    let trimmed = trimmed(&shrinker.best.schedule.interleave);
    let mut progress = shrinker.attempt(with_choices(&shrinker.best, trimmed));
    progress |= super::passes::ddmin(shrinker, |case| case.schedule.interleave.clone(), with_choices);
    let mut index = 0;
    while let Some(candidate) = swapped(&shrinker.best).into_iter().nth(index) {
        if shrinker.attempt(candidate) {
            progress = true;
            index = 0;
        } else {
            index += 1;
        }
        if shrinker.out_of_budget() {
            return progress;
        }
    }
    for index in 0..shrinker.best.schedule.interleave.len() {
        let current = shrinker.best.schedule.interleave[index];
        for value in smaller_choices(current) {
            let mut choices = shrinker.best.schedule.interleave.clone();
            choices[index] = value;
            if shrinker.attempt(with_choices(&shrinker.best, choices)) {
                progress = true;
                break;
            }
        }
        if shrinker.out_of_budget() {
            break;
        }
    }
    progress
}

/// `shrink_arrivals`: for each call from the last, the call arriving with the next one (later, and
/// together), with the previous one (it and every later call moved earlier by the whole slack), then
/// the calls from it on moved earlier by a binary search to the exact boundary, then it alone.
pub(super) fn shrink_arrivals<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let calls = shrinker.best.schedule.calls.len();
    for call in (0..calls).rev() {
        if shrinker.out_of_budget() {
            break;
        }
        if let Some(candidate) = later_to_next(&shrinker.best, call) {
            progress |= shrinker.attempt(candidate);
        }
        progress |= earliest(shrinker, call, earlier_from);
        progress |= earliest(shrinker, call, earlier_one);
    }
    progress
}

type Mover<C> = fn(&Case<C>, usize, VDuration) -> Option<Case<C>>;

/// Moves call `call` (and whatever `mover` moves with it) as early as still fails: the whole slack at
/// once, else a binary search between no move (fails) and the whole slack (does not).
fn earliest<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, call: usize, mover: Mover<S::Config>) -> bool {
    let Some(slack) = slack(&shrinker.best, call).filter(|slack| !slack.is_zero()) else { return false };
    if mover(&shrinker.best, call, slack).is_some_and(|candidate| shrinker.attempt(candidate)) {
        return true;
    }
    // Each kept move lowers the slack by what it moved: search in the offsets the original slack spans.
    let (mut keeps, mut loses) = (0_u64, slack.as_nanos());
    let mut progress = false;
    while loses - keeps > 1 && !shrinker.out_of_budget() {
        let middle = keeps + (loses - keeps) / 2;
        let by = VDuration::from_nanos(middle - keeps);
        if mover(&shrinker.best, call, by).is_some_and(|candidate| shrinker.attempt(candidate)) {
            keeps = middle;
            progress = true;
        } else {
            loses = middle;
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, Schedule};

    use super::*;

    fn case(offsets_ns: &[u64], interleave: &[u32]) -> Case<()> {
        let call = |&ns| CallScript::new(vec![]).arriving(VDuration::from_nanos(ns));
        Case::new((), Schedule::new(offsets_ns.iter().map(call).collect()).with_interleave(interleave.to_vec()), 0)
    }

    fn offsets_ns(case: &Case<()>) -> Vec<Option<u64>> {
        case.schedule.calls.iter().map(|call| call.arrival.map(VDuration::as_nanos)).collect()
    }

    #[track_caller]
    fn check(moved: Option<Case<()>>, expect: Option<&[u64]>) {
        let found = moved.map(|case| offsets_ns(&case));
        let expect = expect.map(|offsets| offsets.iter().map(|&ns| Some(ns)).collect::<Vec<_>>());
        assert_eq!(found, expect);
    }

    #[test]
    fn arrivals_move_earlier_down_to_the_previous_call() {
        let ns = VDuration::from_nanos;
        check(earlier_from(&case(&[2, 5, 9], &[]), 1, ns(3)), Some(&[2, 2, 6]));
        check(earlier_from(&case(&[2, 5, 9], &[]), 1, ns(4)), None);
        check(earlier_from(&case(&[2, 5, 9], &[]), 0, ns(2)), Some(&[0, 3, 7]));
        check(earlier_one(&case(&[2, 5, 9], &[]), 2, ns(4)), Some(&[2, 5, 5]));
        check(earlier_one(&case(&[2, 5, 9], &[]), 1, ns(1)), Some(&[2, 4, 9]));
        check(earlier_one(&case(&[2, 5, 9], &[]), 1, ns(0)), None);
        check(later_to_next(&case(&[2, 5, 9], &[]), 1), Some(&[2, 9, 9]));
        check(later_to_next(&case(&[2, 9, 9], &[]), 1), None);
        check(later_to_next(&case(&[2, 5, 9], &[]), 2), None);
        let sequential = Case::new((), Schedule::new(vec![CallScript::new(vec![])]), 0);
        check(earlier_from(&sequential, 0, ns(1)), None);
        assert_eq!(slack(&case(&[2, 5, 9], &[]), 2), Some(ns(4)));
    }

    #[test]
    fn serialized_cases_have_no_arrival_and_no_choice() {
        let gaps =
            |case: &Case<()>| -> Vec<u64> { case.schedule.calls.iter().map(|c| c.gap_before.as_nanos()).collect() };
        let forms = serialized(&case(&[2, 5, 9], &[1, 0]));
        assert_eq!(forms.iter().map(gaps).collect::<Vec<_>>(), [vec![0, 0, 0], vec![2, 0, 0], vec![2, 3, 4]]);
        for form in &forms {
            assert!(!form.schedule.has_arrivals() && form.schedule.interleave.is_empty(), "{form:?}");
        }
        assert_eq!(serialized(&case(&[0, 0], &[])).len(), 1);
        assert!(serialized(&Case::new((), Schedule::new(vec![CallScript::new(vec![])]), 0)).is_empty());
    }

    #[test]
    fn calls_arriving_together_swap_for_a_choice() {
        let mut start = case(&[0, 3, 3], &[0, 1]);
        start.schedule.calls[1].steps.push(timelaw_core::Step::instant(timelaw_core::Outcome::Fatal));
        let found = swapped(&start);
        let choices: Vec<Vec<u32>> = found.iter().map(|next| next.schedule.interleave.clone()).collect();
        assert_eq!(choices, [vec![], vec![1], vec![0]]);
        for next in &found {
            assert_eq!(next.schedule.calls[2], start.schedule.calls[1]);
            assert_eq!(next.schedule.calls[1], start.schedule.calls[2]);
        }
        assert!(swapped(&case(&[0, 3, 3], &[])).is_empty());
        // A call moved before two earlier ones arriving with it: the scripts rotate.
        let mut three = case(&[3, 3, 3], &[2]);
        for (call, took) in [(0, 1), (1, 2), (2, 3)] {
            three.schedule.calls[call]
                .steps
                .push(timelaw_core::Step::new(VDuration::from_nanos(took), timelaw_core::Outcome::Ok));
        }
        let order = |next: &Case<()>| -> Vec<u64> {
            next.schedule.calls.iter().map(|c| c.steps[0].duration.as_nanos()).collect()
        };
        assert_eq!(
            swapped(&three).iter().map(order).collect::<Vec<_>>(),
            [vec![2, 1, 3], vec![1, 3, 2], vec![3, 1, 2]]
        );
        assert!(swapped(&case(&[0, 3, 4], &[1])).is_empty());
    }

    /// Every candidate of every move keeps the domain's rules on arrivals, from random arrival patterns.
    #[test]
    fn no_move_leaves_the_domain() {
        let mut rng = timelaw_core::SplitMix64::new(11);
        for _ in 0..500 {
            let count = 1 + rng.next_u64() % 5;
            let mut at = 0;
            let offsets: Vec<u64> = (0..count)
                .map(|_| {
                    at += [0, 0, 1, 7][(rng.next_u64() % 4) as usize];
                    at
                })
                .collect();
            let start = case(&offsets, &[1, 0, 2]);
            let ns = VDuration::from_nanos;
            let mut all: Vec<Case<()>> = serialized(&start);
            all.extend(swapped(&start));
            for call in 0..offsets.len() {
                let slack = slack(&start, call).unwrap_or(VDuration::ZERO);
                for by in [slack, slack.div(2), ns(1), ns(2)] {
                    all.extend(earlier_from(&start, call, by));
                    all.extend(earlier_one(&start, call, by));
                }
                all.extend(later_to_next(&start, call));
            }
            for next in all {
                assert_eq!(next.schedule.arrivals_check(), Ok(()), "{offsets:?} to {:?}", offsets_ns(&next));
            }
        }
    }

    #[test]
    fn choices_lose_trailing_zeros_and_try_small_values_first() {
        assert_eq!(trimmed(&[1, 0, 2, 0, 0]), [1, 0, 2]);
        assert_eq!(trimmed(&[0, 0]), Vec::<u32>::new());
        assert_eq!(smaller_choices(3).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(smaller_choices(0).count(), 0);
        assert_eq!(smaller_choices(100).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5, 6, 7, 50]);
    }
}
