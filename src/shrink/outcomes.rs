//! Shrink moves over outcomes: `simplify_outcomes` (one step's outcome replaced by a simpler one; a hang
//! replaced either with a zero duration, or with a duration equal to the attempt timeout, the instant
//! the timeout cut the hang, so "cut by the timeout" survives as "took as long as the timeout", or with
//! a duration one nanosecond past its call's cancellation, so "cut by the cancellation" survives) and
//! `rewrite_pairs` (two adjacent steps of a call change their outcomes at once, to any pair whose sum of
//! ranks is smaller: `[rate_limited, transient]` may become `[transient, fatal]`, which no change of one
//! step reaches, since `[transient, transient]` or `[rate_limited, fatal]` may both lose the failure).

use timelaw_core::{Case, Outcome, Step, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::order::outcome_rank as rank;

/// The outcomes a step may take while shrinking, simplest first (a retry-after of zero).
const SIMPLER: [Outcome; 4] =
    [Outcome::Ok, Outcome::Transient, Outcome::Fatal, Outcome::RateLimited { retry_after: VDuration::ZERO }];

/// Every step simpler than `step` by its outcome, simplest outcome first: for a hang, each simpler
/// outcome at once, then, when there is an attempt timeout (`timeout`), each taking the timeout, then,
/// when its call is cancelled (`cancel_after`, from the call's start), each lasting one nanosecond past
/// the cancellation (so "cut by the cancellation" survives as "still running when it fell").
pub(super) fn simpler_steps(step: Step, timeout: Option<VDuration>, cancel_after: Option<VDuration>) -> Vec<Step> {
    let mut out = Vec::new();
    let past_cancel = cancel_after.map(|cancel| cancel.saturating_add(VDuration::from_nanos(1)));
    for outcome in SIMPLER.into_iter().filter(|o| rank(*o) < rank(step.outcome)) {
        if step.outcome != Outcome::Hang {
            out.push(Step { outcome, ..step });
            continue;
        }
        out.push(Step { outcome, duration: VDuration::ZERO, ..step });
        for cut in [timeout.filter(|timeout| !timeout.is_zero()), past_cancel].into_iter().flatten() {
            if !out.contains(&Step { outcome, duration: cut, ..step }) {
                out.push(Step { outcome, duration: cut, ..step });
            }
        }
    }
    out
}

/// Every case with steps `step` and `step + 1` of call `call` both given another outcome, whose ranks
/// sum to less than theirs did, smallest sum first (then the first step's outcome, simplest first).
/// Hangs and repeated steps are left to the other moves (a hang's duration means something else).
pub(super) fn rewritten_pairs<C: Clone>(case: &Case<C>, call: usize, step: usize) -> Vec<Case<C>> {
    let Some(steps) = case.schedule.calls.get(call).map(|script| &script.steps) else { return Vec::new() };
    let (Some(&first), Some(&second)) = (steps.get(step), steps.get(step + 1)) else { return Vec::new() };
    let plain = |s: Step| s.count() == 1 && s.outcome != Outcome::Hang;
    if !plain(first) || !plain(second) {
        return Vec::new();
    }
    let sum = rank(first.outcome) + rank(second.outcome);
    let mut pairs: Vec<(Outcome, Outcome)> = Vec::new();
    for a in SIMPLER.into_iter().filter(|a| !same_kind(*a, first.outcome)) {
        for b in SIMPLER.into_iter().filter(|b| !same_kind(*b, second.outcome)) {
            if rank(a) + rank(b) < sum {
                pairs.push((a, b));
            }
        }
    }
    pairs.sort_by_key(|&(a, b)| (rank(a) + rank(b), rank(a)));
    pairs
        .into_iter()
        .map(|(a, b)| {
            let mut next = case.clone();
            let script = &mut next.schedule.calls[call];
            script.steps[step].outcome = a;
            script.steps[step + 1].outcome = b;
            next
        })
        .collect()
}

/// Whether two outcomes are of one kind (rate limits with different retry-afters are).
fn same_kind(a: Outcome, b: Outcome) -> bool {
    rank(a) == rank(b)
}

/// `simplify_outcomes`: each step's outcome replaced by the simplest outcome that keeps the failure.
pub(super) fn simplify_outcomes<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        for index in 0..shrinker.best.schedule.calls[call].steps.len() {
            let timeout = shrinker.contract().timing.attempt_timeout;
            let script = &shrinker.best.schedule.calls[call];
            for step in simpler_steps(script.steps[index], timeout, script.cancel_after) {
                let mut candidate = shrinker.best.clone();
                candidate.schedule.calls[call].steps[index] = step;
                if shrinker.attempt(candidate) {
                    progress = true;
                    break;
                }
            }
            if shrinker.out_of_budget() {
                return progress;
            }
        }
    }
    progress
}

/// `rewrite_pairs`: each pair of adjacent steps given the simplest pair of outcomes that keeps the
/// failure, when no single step's outcome could be simplified alone.
pub(super) fn rewrite_pairs<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        let mut step = 0;
        while step + 1 < shrinker.best.schedule.calls[call].steps.len() && !shrinker.out_of_budget() {
            for candidate in rewritten_pairs(&shrinker.best, call, step) {
                if shrinker.attempt(candidate) {
                    progress = true;
                    break;
                }
            }
            step += 1;
        }
    }
    progress
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, Schedule};

    use super::*;

    fn case(outcomes: &[Outcome]) -> Case<u8> {
        Case::new(0, Schedule::new(vec![CallScript::outcomes(outcomes)]), 0)
    }

    fn outcomes(case: &Case<u8>) -> Vec<Outcome> {
        case.schedule.calls[0].steps.iter().map(|step| step.outcome).collect()
    }

    #[track_caller]
    fn check_pairs(from: &[Outcome], first: &[Outcome], count: usize) {
        let all = rewritten_pairs(&case(from), 0, 0);
        assert_eq!(all.len(), count, "{:?}", all.iter().map(outcomes).collect::<Vec<_>>());
        if let Some(next) = all.first() {
            assert_eq!(outcomes(next), first);
        }
        let sum = |o: &[Outcome]| o.iter().map(|o| rank(*o)).sum::<u64>();
        assert!(all.iter().all(|next| sum(&outcomes(next)) < sum(from)), "every pair is simpler");
    }

    #[test]
    fn two_steps_change_together_to_a_simpler_pair() {
        use Outcome::{Fatal, Hang, Ok, Transient};
        let limited = Outcome::RateLimited { retry_after: VDuration::from_nanos(3) };
        check_pairs(&[limited, Transient], &[Ok, Ok], 6);
        let all = rewritten_pairs(&case(&[limited, Transient]), 0, 0);
        assert!(
            all.iter().any(|next| outcomes(next) == [Transient, Fatal]),
            "[rate_limited, transient] -> [transient, fatal]"
        );
        check_pairs(&[Transient, Fatal], &[Ok, Ok], 3);
        check_pairs(&[Ok, Ok], &[], 0);
        check_pairs(&[Ok, Transient], &[], 0);
        check_pairs(&[Hang, Transient], &[], 0);
        check_pairs(&[Transient], &[], 0);
    }

    fn simpler_ns(step: Step, timeout_ns: Option<u64>, cancel_ns: Option<u64>) -> Vec<(Outcome, u64)> {
        simpler_steps(step, timeout_ns.map(VDuration::from_nanos), cancel_ns.map(VDuration::from_nanos))
            .into_iter()
            .map(|s| (s.outcome, s.duration.as_nanos()))
            .collect()
    }

    #[track_caller]
    fn check_simpler(step: Step, timeout_ns: Option<u64>, cancel_ns: Option<u64>, expect: &[(Outcome, u64)]) {
        assert_eq!(simpler_ns(step, timeout_ns, cancel_ns), expect);
    }

    /// The first `count` simpler steps.
    fn check_first(step: Step, timeout_ns: Option<u64>, cancel_ns: Option<u64>, count: usize) -> Vec<(Outcome, u64)> {
        simpler_ns(step, timeout_ns, cancel_ns).into_iter().take(count).collect()
    }

    #[test]
    fn a_hang_becomes_a_simpler_outcome_at_once_or_taking_the_timeout() {
        use Outcome::{Fatal, Hang, Ok, Transient};
        let hang = Step::new(VDuration::from_nanos(9), Hang);
        let limited = Outcome::RateLimited { retry_after: VDuration::ZERO };
        let cut =
            [(Ok, 0), (Ok, 2), (Transient, 0), (Transient, 2), (Fatal, 0), (Fatal, 2), (limited, 0), (limited, 2)];
        check_simpler(hang, Some(2), None, &cut);
        check_simpler(hang, None, None, &[(Ok, 0), (Transient, 0), (Fatal, 0), (limited, 0)]);
        check_simpler(hang, Some(0), None, &[(Ok, 0), (Transient, 0), (Fatal, 0), (limited, 0)]);
        check_simpler(Step::new(VDuration::from_nanos(9), Fatal), Some(2), None, &[(Ok, 9), (Transient, 9)]);
        check_simpler(Step::instant(Ok), Some(2), None, &[]);
    }

    #[test]
    fn a_hang_in_a_cancelled_call_becomes_a_simpler_outcome_lasting_past_the_cancellation() {
        use Outcome::{Fatal, Hang, Ok, Transient};
        let hang = Step::new(VDuration::from_nanos(9), Hang);
        let limited = Outcome::RateLimited { retry_after: VDuration::ZERO };
        let past =
            [(Ok, 0), (Ok, 3), (Transient, 0), (Transient, 3), (Fatal, 0), (Fatal, 3), (limited, 0), (limited, 3)];
        check_simpler(hang, None, Some(2), &past);
        let both = [(Ok, 0), (Ok, 5), (Ok, 3)];
        assert_eq!(check_first(hang, Some(5), Some(2), 3), both);
        assert_eq!(
            check_first(hang, Some(3), Some(2), 3),
            [(Ok, 0), (Ok, 3), (Transient, 0)],
            "cuts at one instant: one step"
        );
        check_simpler(Step::new(VDuration::from_nanos(9), Fatal), None, Some(2), &[(Ok, 9), (Transient, 9)]);
    }
}
