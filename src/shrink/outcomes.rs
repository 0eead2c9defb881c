//! Shrink moves over outcomes: `simplify_outcomes` (one step's outcome replaced by a simpler one) and
//! `rewrite_pairs` (two adjacent steps of a call change their outcomes at once, to any pair whose sum of
//! ranks is smaller: `[rate_limited, transient]` may become `[transient, fatal]`, which no change of one
//! step reaches, since `[transient, transient]` or `[rate_limited, fatal]` may both lose the failure).
//!
//! A step the caller never sees end (a hang, or a dispatch the attempt timeout cuts, which the order
//! ranks as a hang: see [`super::order`]) may become any outcome, either at once, or lasting until just
//! before the timeout would cut it (so "running when the timeout fell" survives as "ended just before
//! it", the outcome now seen), or lasting one nanosecond past its call's cancellation (so "cut by the
//! cancellation" survives). A cut dispatch that is not a hang may also be uncut by the attempt timeout
//! raised just past it (`uncut_by_timeout`): the config grows, the outcome the caller sees gets simpler.

use timelaw_core::{Case, Outcome, Step, TieRule, TimingContract, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::order::{is_cut, outcome_rank as rank};

/// The outcomes a step may take while shrinking, simplest first (a retry-after of zero).
const SIMPLER: [Outcome; 4] =
    [Outcome::Ok, Outcome::Transient, Outcome::Fatal, Outcome::RateLimited { retry_after: VDuration::ZERO }];

/// The rank of `step` in the order (item 5): a dispatch `timing`'s attempt timeout cuts ranks as a hang.
pub(super) fn seen_rank(step: Step, timing: &TimingContract) -> u64 {
    if is_cut(&step, timing) {
        rank(Outcome::Hang)
    } else {
        rank(step.outcome)
    }
}

/// Whether the caller never sees `step`'s outcome: a hang, or a dispatch the attempt timeout cuts.
fn unseen(step: Step, timing: &TimingContract) -> bool {
    step.outcome == Outcome::Hang || is_cut(&step, timing)
}

/// The longest a dispatch may take and still end before `timing`'s attempt timeout cuts it (`None`
/// without a timeout, or when even an instant dispatch is cut).
fn longest_uncut(timing: &TimingContract) -> Option<VDuration> {
    let timeout = timing.attempt_timeout?;
    match timing.timeout_tie {
        TieRule::InnerWins => Some(timeout),
        TieRule::Expired => timeout.as_nanos().checked_sub(1).map(VDuration::from_nanos),
    }
}

/// Every step simpler than `step` by its outcome as the caller sees it, simplest outcome first: for a
/// step the caller never sees end (a hang, a cut dispatch), each outcome at once, then, under an
/// attempt timeout, each lasting as long as the timeout lets it end, then, when its call is cancelled
/// (`cancel_after`, from the call's start), each lasting one nanosecond past the cancellation (so "cut
/// by the cancellation" survives as "still running when it fell"); for any other step, each simpler
/// outcome taking as long.
pub(super) fn simpler_steps(step: Step, timing: &TimingContract, cancel_after: Option<VDuration>) -> Vec<Step> {
    let mut out = Vec::new();
    let seen = seen_rank(step, timing);
    let past_cancel = cancel_after.map(|cancel| cancel.saturating_add(VDuration::from_nanos(1)));
    for outcome in SIMPLER.into_iter().filter(|o| rank(*o) < seen) {
        if !unseen(step, timing) {
            out.push(Step { outcome, ..step });
            continue;
        }
        let uncut = longest_uncut(timing).filter(|longest| !longest.is_zero());
        for duration in [Some(VDuration::ZERO), uncut, past_cancel].into_iter().flatten() {
            let next = Step { outcome, duration, ..step };
            if !out.contains(&next) && seen_rank(next, timing) < seen {
                out.push(next);
            }
        }
    }
    out
}

/// Every case with steps `step` and `step + 1` of call `call` both given another outcome, whose ranks
/// (as the caller sees them under `timing`) sum to less than theirs did, smallest sum first (then the
/// first step's outcome, simplest first). A step the caller never saw end (a hang, a cut dispatch)
/// takes no time in its new outcome; repeated steps are left to the other moves.
pub(super) fn rewritten_pairs<C: Clone>(
    case: &Case<C>,
    call: usize,
    step: usize,
    timing: &TimingContract,
) -> Vec<Case<C>> {
    let Some(steps) = case.schedule.calls.get(call).map(|script| &script.steps) else { return Vec::new() };
    let (Some(&first), Some(&second)) = (steps.get(step), steps.get(step + 1)) else { return Vec::new() };
    if first.count() != 1 || second.count() != 1 {
        return Vec::new();
    }
    let (first_rank, second_rank) = (seen_rank(first, timing), seen_rank(second, timing));
    let sum = first_rank + second_rank;
    let mut pairs: Vec<(Outcome, Outcome)> = Vec::new();
    for a in SIMPLER.into_iter().filter(|a| rank(*a) != first_rank) {
        for b in SIMPLER.into_iter().filter(|b| rank(*b) != second_rank) {
            if rank(a) + rank(b) < sum {
                pairs.push((a, b));
            }
        }
    }
    pairs.sort_by_key(|&(a, b)| (rank(a) + rank(b), rank(a)));
    let rewritten = |old: Step, outcome: Outcome| {
        let duration = if unseen(old, timing) { VDuration::ZERO } else { old.duration };
        Step { outcome, duration, ..old }
    };
    pairs
        .into_iter()
        .map(|(a, b)| {
            let mut next = case.clone();
            let script = &mut next.schedule.calls[call];
            script.steps[step] = rewritten(first, a);
            script.steps[step + 1] = rewritten(second, b);
            next
        })
        .filter(|next| {
            let script = &next.schedule.calls[call];
            seen_rank(script.steps[step], timing) + seen_rank(script.steps[step + 1], timing) < sum
        })
        .collect()
}

/// `simplify_outcomes`: each step's outcome replaced by the simplest outcome that keeps the failure; a
/// cut dispatch none of them replaces is tried uncut by the attempt timeout raised just past it.
pub(super) fn simplify_outcomes<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        for index in 0..shrinker.best.schedule.calls[call].steps.len() {
            let timing = shrinker.contract().timing;
            let script = &shrinker.best.schedule.calls[call];
            let step = script.steps[index];
            let mut kept = false;
            for simpler in simpler_steps(step, &timing, script.cancel_after) {
                let mut candidate = shrinker.best.clone();
                candidate.schedule.calls[call].steps[index] = simpler;
                if shrinker.attempt(candidate) {
                    kept = true;
                    break;
                }
            }
            if !kept && step.outcome != Outcome::Hang && is_cut(&step, &timing) {
                kept = uncut_by_timeout(shrinker, step.duration);
            }
            progress |= kept;
            if shrinker.out_of_budget() {
                return progress;
            }
        }
    }
    progress
}

/// The best case with its attempt timeout raised just past a cut dispatch of `duration` ([`uncut_config`]).
/// Whether kept.
fn uncut_by_timeout<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, duration: VDuration) -> bool {
    match uncut_config(shrinker.subject, &shrinker.best.config, duration) {
        Some(config) => shrinker.attempt(Case { config, ..shrinker.best.clone() }),
        None => false,
    }
}

/// `config` with its attempt timeout raised to the shortest that lets a dispatch of `duration` end (one
/// nanosecond longer; as long where the inner result wins a tie): the config number that sets the
/// timeout (the one whose new value becomes the contract's attempt timeout) raised. `None` without a
/// timeout, when the dispatch is not cut, or when no number of the domain sets the timeout.
pub(super) fn uncut_config<S: ConfigDomain + ?Sized>(
    subject: &S,
    config: &S::Config,
    duration: VDuration,
) -> Option<S::Config> {
    let timing = subject.contract(config).timing;
    let timeout = timing.attempt_timeout?;
    let raised = match timing.timeout_tie {
        TieRule::InnerWins => duration,
        TieRule::Expired => duration.checked_add(VDuration::from_nanos(1))?,
    };
    if raised <= timeout {
        return None;
    }
    let numbers = subject.config_numbers(config);
    let setting = numbers.iter().enumerate().filter(|(_, number)| number.value == timeout.as_nanos());
    setting
        .filter_map(|(index, _)| subject.with_config_number(config, index, raised.as_nanos()))
        .find(|next| subject.contract(next).timing.attempt_timeout == Some(raised))
}

/// `rewrite_pairs`: each pair of adjacent steps given the simplest pair of outcomes that keeps the
/// failure, when no single step's outcome could be simplified alone.
pub(super) fn rewrite_pairs<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        let mut step = 0;
        while step + 1 < shrinker.best.schedule.calls[call].steps.len() && !shrinker.out_of_budget() {
            let timing = shrinker.contract().timing;
            for candidate in rewritten_pairs(&shrinker.best, call, step, &timing) {
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

    /// A contract's time limits with an attempt timeout of `timeout_ns` (none for `None`), ties expired.
    fn timing(timeout_ns: Option<u64>) -> TimingContract {
        TimingContract { attempt_timeout: timeout_ns.map(VDuration::from_nanos), ..TimingContract::default() }
    }

    #[track_caller]
    fn check_pairs(from: &[Outcome], first: &[Outcome], count: usize) {
        let untimed = timing(None);
        let all = rewritten_pairs(&case(from), 0, 0, &untimed);
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
        let all = rewritten_pairs(&case(&[limited, Transient]), 0, 0, &timing(None));
        assert!(
            all.iter().any(|next| outcomes(next) == [Transient, Fatal]),
            "[rate_limited, transient] -> [transient, fatal]"
        );
        check_pairs(&[Transient, Fatal], &[Ok, Ok], 3);
        check_pairs(&[Ok, Ok], &[], 0);
        check_pairs(&[Ok, Transient], &[], 0);
        check_pairs(&[Hang, Transient], &[Ok, Ok], 9);
        check_pairs(&[Transient], &[], 0);
    }

    #[test]
    fn a_cut_dispatch_is_rewritten_in_a_pair_as_the_hang_it_ranks_as() {
        use Outcome::{Fatal, Ok, Transient};
        let mut cut = case(&[Ok, Transient]);
        cut.schedule.calls[0].steps[0].duration = VDuration::from_nanos(1);
        let all = rewritten_pairs(&cut, 0, 0, &timing(Some(1)));
        let found = all
            .iter()
            .find(|next| outcomes(next) == [Transient, Fatal])
            .expect("[cut, transient] -> [transient, fatal]");
        assert_eq!(found.schedule.calls[0].steps[0].duration, VDuration::ZERO, "the cut dispatch now ends at once");
        assert!(rewritten_pairs(&cut, 0, 0, &timing(None)).is_empty(), "uncut, [ok, transient] has no simpler pair");
    }

    fn simpler_ns(step: Step, timeout_ns: Option<u64>, cancel_ns: Option<u64>) -> Vec<(Outcome, u64)> {
        simpler_steps(step, &timing(timeout_ns), cancel_ns.map(VDuration::from_nanos))
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
    fn a_hang_becomes_a_simpler_outcome_at_once_or_just_before_the_timeout() {
        use Outcome::{Fatal, Hang, Ok, Transient};
        let hang = Step::new(VDuration::from_nanos(9), Hang);
        let limited = Outcome::RateLimited { retry_after: VDuration::ZERO };
        let cut =
            [(Ok, 0), (Ok, 2), (Transient, 0), (Transient, 2), (Fatal, 0), (Fatal, 2), (limited, 0), (limited, 2)];
        check_simpler(hang, Some(3), None, &cut);
        check_simpler(hang, None, None, &[(Ok, 0), (Transient, 0), (Fatal, 0), (limited, 0)]);
        check_simpler(hang, Some(0), None, &[]);
        check_simpler(hang, Some(1), None, &[(Ok, 0), (Transient, 0), (Fatal, 0), (limited, 0)]);
        check_simpler(Step::new(VDuration::from_nanos(9), Fatal), None, None, &[(Ok, 9), (Transient, 9)]);
        check_simpler(Step::new(VDuration::from_nanos(2), Fatal), Some(3), None, &[(Ok, 2), (Transient, 2)]);
        check_simpler(Step::instant(Ok), Some(2), None, &[]);
    }

    #[test]
    fn a_cut_dispatch_becomes_any_outcome_the_caller_sees() {
        use Outcome::{Fatal, Ok, Transient};
        let limited = Outcome::RateLimited { retry_after: VDuration::ZERO };
        let cut = Step::new(VDuration::from_nanos(9), Fatal);
        let seen =
            [(Ok, 0), (Ok, 2), (Transient, 0), (Transient, 2), (Fatal, 0), (Fatal, 2), (limited, 0), (limited, 2)];
        check_simpler(cut, Some(3), None, &seen);
        let inner_wins = TimingContract { timeout_tie: TieRule::InnerWins, ..timing(Some(3)) };
        let at_timeout = simpler_steps(Step::new(VDuration::from_nanos(3), Ok), &inner_wins, None);
        assert!(at_timeout.is_empty(), "a tie the inner result wins is not cut: ok is already the simplest");
    }

    #[test]
    fn a_cut_dispatch_is_uncut_by_the_timeout_raised_just_past_it() {
        use timelaw_core::reference::{Backoff, Policy, Reference};
        let ns = VDuration::from_nanos;
        let policy =
            Policy { attempt_timeout: Some(ns(2)), ..Policy::new(1, Backoff::Constant { delay: ns(0) }, ns(0)) };
        let raised = uncut_config(&Reference, &policy, ns(2)).expect("a 2 ns dispatch is cut by a 2 ns timeout");
        assert_eq!(raised, Policy { attempt_timeout: Some(ns(3)), ..policy }, "ties expire: one nanosecond past it");
        assert_eq!(uncut_config(&Reference, &policy, ns(1)), None, "a 1 ns dispatch is not cut");
        assert_eq!(uncut_config(&Reference, &Policy { attempt_timeout: None, ..policy }, ns(5)), None, "no timeout");
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
        assert_eq!(check_first(hang, Some(6), Some(2), 3), both);
        assert_eq!(
            check_first(hang, Some(4), Some(2), 3),
            [(Ok, 0), (Ok, 3), (Transient, 0)],
            "ends at one instant: one step"
        );
        check_simpler(Step::new(VDuration::from_nanos(9), Fatal), None, Some(2), &[(Ok, 9), (Transient, 9)]);
    }
}
