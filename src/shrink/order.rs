//! The order on simplicity the shrinker minimises along.
//!
//! Cases compare lexicographically, most important first:
//! 1. fewer calls;
//! 2. sequential before concurrent: a case whose calls have no arrival (they run one after another,
//!    the simplest form, written as fixture format version 2) before one whose calls arrive at set
//!    instants and may overlap;
//! 3. fewer interleaving choices (entries of `Schedule::interleave`; an empty list is first-come
//!    order), then a smaller sum of the choices (each entry towards 0, the first ready task);
//! 4. fewer scripted dispatches (each step counted `repeat` times), then fewer step entries;
//! 5. simpler outcomes: the sum over dispatches of each outcome's rank (`ok` 0, `transient` 1, `fatal` 2,
//!    `rate_limited` 3, `hang` 4), a dispatch the attempt timeout cuts ranking as a `hang` whatever its
//!    scripted outcome: the caller saw the cut, never the outcome (so a cut attempt is written as the
//!    hang it stands for, and a case is not made "simpler" by an outcome nobody sees);
//! 6. a smaller config: a smaller rank ([`ConfigDomain::config_rank`], compared lexicographically). A
//!    described domain ranks a config by the answers its description draws it from, in the order it
//!    draws them, simplest answer first (the reference interpreter's:
//!    `timelaw_generators::reference_rank`): a total order in which each answer lowered, to its
//!    minimum or by one, gives a smaller config. A domain without a rank (`[]`, the default: the short
//!    `subject(..)` form, the adapters) ranks every config alike; where the shrinker knows the answers
//!    such a config was drawn from (the runner, `import-crash` and `timelaw shrink` give them), it goes
//!    down the order of those answers, compared lexicographically (a total order on the configs of one
//!    description): every move on answers lowers the first answer it changes, and a config met again
//!    under smaller answers is taken again (`Shrinker::accepted_key`). The domain's own candidates
//!    (`Describe::simpler`) are taken as the domain offers them;
//! 7. simpler arrivals ([`Arrivals`]): fewer distinct arrival instants (calls arriving together are
//!    simpler than calls arriving apart), then a smaller sum of the arrival offsets (earlier arrivals);
//! 8. smaller schedule durations and features: fewer cancellations and non-idempotent calls, then the
//!    sum of every duration (gaps, cancellation delays, attempt durations, retry-afters), then the gaps
//!    compared call by call (earlier arrivals first), then fewer clock faults, then a smaller seed.
//!
//! Items 1 to 5 are the [`Shape`] of a case. The shrinker never accepts a candidate whose shape is
//! larger than the current case's, whatever else it simplifies, so a shorter schedule always beats a
//! simpler config: a config that needs the schedule padded (a smaller backoff factor that needs more
//! failures to pass a cap, a removed timeout whose cut attempts become scripted failures) is refused.
//! One exception, a translation rather than padding: when a config move removes the attempt timeout,
//! the attempts it cut are written out as the transient failures they were, and the candidate is
//! measured against the current case with those attempts written out the same way (so a removed
//! timeout may not buy a longer schedule either: a smaller factor that needs more of them is refused).
//! At an equal shape, a candidate whose config ranks higher than the current one is refused, and at an
//! equal shape and rank one whose arrivals are not simpler or equal (item 7), so the shrinker never
//! climbs items 6 and 7 either ([`within`]): among the cases of one shape it keeps the config of the
//! smallest rank that fails, whichever start it came from.
//!
//! How the passes follow the order, one rule a sentence:
//! - the passes run in the order's own order: fewer calls, then serialized calls (every arrival
//!   dropped), then fewer and smaller interleaving choices, then every pass that shrinks the rest of the
//!   shape (steps, outcomes) before the config passes, so a simpler schedule is tried while the config
//!   that lets it fail is still there; arrivals move after the config (`shrink_arrivals`: equal to a
//!   neighbour's, the whole pattern moved to start at zero, a call and every later one moved earlier
//!   together by a binary search to the exact boundary, a single call moved earlier);
//! - a move on arrivals never leaves the domain (`timelaw_generators::membership`, rule 5): every call
//!   keeps an arrival, none arrives before the previous one, no call with an arrival gets a gap;
//! - an answer of a config drawn through a description may be lowered by one with a later answer (two
//!   to four places after it) at its largest, a bounded coupled search: fewer retries under a larger
//!   factor, where each number alone loses the failure (`couple_answers`, tried only after a round that kept nothing); the config is smaller at the
//!   first answer that differs, so the move goes down the order;
//! - a config field of a domain without numbers of its own (an integer or a duration of its serialized
//!   form) moves towards the nearest simpler value its domain offers for it, by bisection over a grid of
//!   20 leading bits (`bisect_config`): every value tried lies between the field's value and the one the
//!   domain calls simpler;
//! - an answer of a config described without numbers of its own is lowered to `0` with the one or two
//!   answers after it deleted, or to `0`, one lower or `1` with the next answer at its largest, or one
//!   lower with an answer at its largest inserted after it (a choice lowered to an option that reads a
//!   value where the current one reads none), each keeping the answers of the later draws where they
//!   were read (`shrink_answers`);
//! - every answer of a ranked config can be lowered alone, to its minimum or by one (a `retry_on` flag
//!   switched back on by itself, equal jitter made full, decorrelated backoff made linear), besides the
//!   numbers' binary searches;
//! - a wall jump is tried at 1 ns, then just past each limit of the case (each step's duration among
//!   them), before its binary search;
//! - a simpler config kept that halved one number is followed by that number at its minimum and one
//!   above it (a walk of halvings toward a boundary just above the minimum is cut short), after the
//!   1st, 2nd, 4th, 8th, ... halving of one walk;
//! - a config change of the same numbers as the last one kept tries first the form (plain, or with the
//!   schedule's durations coupled to it) that was kept then;
//! - before the steps are made instant, each clock fault's point is made the simplest
//!   (`clock_points_first`: a wall jump at the first attempt, a failed-read rule from the first read),
//!   so a jump no longer needs the time (or the retries) that reached its instant or sleep;
//! - before the config passes, every step is made instant at once (`zero_step_durations`, one
//!   candidate, and where that loses the failure a second with every backward wall jump turned
//!   forward by as much), so a limit that only the steps' durations hold up is searched once, to its
//!   own boundary;
//! - equal adjacent steps (the same duration and outcome) are merged into one repeated step, the normal
//!   form of repeats (the same dispatches, fewer step entries: item 4), so every minimum writes a run of
//!   equal steps as one repeated step;
//! - a failing dispatch that cannot be dropped alone is dropped with the config change that keeps the
//!   rest of its call as it was: the call's first dispatch with the backoff advanced by one retry (the
//!   later delays unchanged), its last with that retry's delay taken out of the deadline and the
//!   elapsed-time limit; and a first dispatch's rate limit made a transient failure with the backoff's
//!   first delay raised to its retry-after (`drop_paired`);
//! - a removed limit that cut attempts (the attempt timeout, the deadline) has its cut attempts written
//!   out as the transient failures they were, taking as long as they ran;
//! - a step the caller never saw end (a hang, a dispatch the attempt timeout cut) may become any
//!   outcome the caller sees: at once, lasting until just before the timeout would cut it, or one
//!   nanosecond past its call's cancellation; a cut dispatch that is not a hang may instead be uncut by
//!   the attempt timeout raised just past it (a larger config for a simpler shape);
//! - two adjacent steps may change their outcomes together to any pair of a smaller sum of ranks, a
//!   step the caller never saw end then taking no time (`rewrite_pairs`);
//! - a removed deadline writes out each call it ended before its first attempt (a deadline of 0) as
//!   one instant transient failure, the failure it stood in for, measured like a cut attempt;
//! - a call's last step that only let time pass before the next call may be dropped with its time
//!   moved into the next call's gap, so the next call starts when it did (`step_to_gap`: the gap form
//!   has one dispatch fewer);
//! - a call's first step, an attempt its timeout cut, may become an instant transient failure with its
//!   time (the timeout) moved into the backoff's first delay, so the first retry starts when it did
//!   (`step_to_gap`; a larger config for a simpler outcome);
//! - a call's gap and one config number may be lowered by one amount, so what the call meets when it
//!   arrives stays as it was (`lower_gap_with_number`);
//! - a call may be dropped with the wall jumps that count attempts or sleeps of the run re-indexed, so
//!   each stays on the attempt (sleep) it was on (tried where some jump would move, after one run);
//! - a step may be made instant with every backward wall jump turned forward by as much at once (the
//!   two clocks then disagree the other way round, with no duration left);
//! - a lowered config number that moves no stated contract boundary moves the schedule's durations
//!   equal to it (or 1 ns off it) with it, and those near it down by as much (to zero, for one that
//!   was smaller than that), as a moved contract boundary does, for limits a subject keeps without
//!   stating them;
//! - a call may be dropped together with a config number that could count calls (above its minimum,
//!   below the number of calls) lowered by one: a limit the calls exceed needs one call fewer when it
//!   is one lower (`drop_counted_calls`, after the numbers' own passes);
//! - where that alone loses the failure, the call is dropped with the count lowered by one and every
//!   share of it (a number named a percent) raised so the same number of calls reaches it,
//!   `ceil(percent * count / (count - 1))`, at most 100 (`drop_counted_shares`);
//! - two adjacent calls of one dispatch each may be joined into one dispatch lasting both (the gap
//!   between them included) that ends with the less simple outcome, with every number that could count
//!   calls lowered by one: two results counted as one (`join_counted_calls`);
//! - a call that used every attempt may drop its last attempt with the attempts allowed lowered by one
//!   and that attempt's time and the delay slept before it added to the attempt before, so the call
//!   ends when it ended (`drop_paired`, where the drop alone loses the failure); under a backoff that
//!   does not grow, likewise its first attempt, its time and the delay after it added to the attempt
//!   after it, in any call of two dispatches or more (attempts left unscripted stay as many);
//! - the backoff's first delay may be folded into the deadline or the elapsed-time limit: the limit
//!   lowered by the first delay and every delay made zero, so the first retry's "time so far plus the
//!   delay" compares with the limit as before;
//! - a call may move before an earlier call arriving with it (not only its neighbour) together with
//!   an interleaving choice dropped: the choice that ran it first becomes first-come order;
//! - interleaving choices may be dropped together with one call's first dispatch taking one
//!   nanosecond longer: a tie ordered by a choice becomes one ordered by time (`break_ties_by_time`);
//! - where calls overlap, a failed step may become `ok` lasting until its call ended, the retries it
//!   caused folded into one attempt that keeps the call busy as long (`fold_retries`);
//! - a jitter may be removed together with the backoff's first delay lowered to the jitter's lowest
//!   draw for it, or to one below it: the jitter-free delay nearest a draw below the base
//!   (`drop_jitter_lowered`, after the numbers' own passes); or with the first delay at the lowest draw
//!   and the second delay's base kept (another number, a linear step, raised by as much): a jitter that
//!   drew the first delay low and the second high, written without it; a call's first dispatch dropped
//!   with the backoff advanced one retry is tried in that form too (`drop_paired`), since under a
//!   jitter the advanced case fails only at its seed's draws.
//!
//! Each pass moves along items 6 to 8 by construction (its candidates are smaller there), and the
//! visited set makes sure no case is accepted twice.

use timelaw_core::{Case, Outcome, Schedule, Step, TieRule, TimingContract};
use timelaw_generators::ConfigDomain;

/// Items 1 to 5 of the order: the size of a case's schedule, compared lexicographically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    /// Calls.
    pub calls: u64,
    /// 1 when some call has an arrival (calls may overlap), 0 for a sequential case.
    pub concurrent: u64,
    /// Entries of the interleaving choices.
    pub choices: u64,
    /// The sum of the interleaving choices.
    pub choice_sum: u64,
    /// Scripted dispatches (repeats counted).
    pub dispatches: u64,
    /// Step entries.
    pub steps: u64,
    /// The sum of the outcome ranks of every scripted dispatch.
    pub outcome_rank: u64,
}

/// An outcome's rank in the order: simpler outcomes rank lower.
pub fn outcome_rank(outcome: Outcome) -> u64 {
    match outcome {
        Outcome::Ok => 0,
        Outcome::Transient => 1,
        Outcome::Fatal => 2,
        Outcome::RateLimited { .. } => 3,
        Outcome::Hang => 4,
    }
}

/// Item 7 of the order: how simple a case's arrivals are, compared lexicographically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Arrivals {
    /// Distinct arrival instants (0 for a sequential case).
    pub distinct: u64,
    /// The sum of the arrival offsets, in nanoseconds.
    pub sum_ns: u128,
}

/// The arrivals of `schedule` measured for item 7 of the order.
pub fn arrivals(schedule: &Schedule) -> Arrivals {
    let mut offsets: Vec<u64> = schedule.calls.iter().filter_map(|call| call.arrival.map(|at| at.as_nanos())).collect();
    let sum_ns = offsets.iter().map(|&at| u128::from(at)).sum();
    offsets.sort_unstable();
    offsets.dedup();
    Arrivals { distinct: offsets.len() as u64, sum_ns }
}

/// What a candidate must not exceed: the shape, config rank and arrivals of the case it would replace.
#[derive(Clone, Copy, Debug)]
pub struct Bound<'a> {
    /// Items 1 to 5 (may be larger than the current case's for a translated timeout; see the module docs).
    pub shape: Shape,
    /// Item 6.
    pub rank: &'a [u64],
    /// Item 7.
    pub arrivals: Arrivals,
}

/// Whether a candidate of shape `shape`, config rank `rank()` and arrivals `arrivals()` may replace a
/// case bounded by `bound`: items 1 to 7 of the order, compared lexicographically (`rank` is only
/// computed when the shapes are equal, `arrivals` only when the ranks are equal too).
pub fn within(
    shape: Shape,
    rank: impl FnOnce() -> Vec<u64>,
    arrivals: impl FnOnce() -> Arrivals,
    bound: &Bound<'_>,
) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match shape.cmp(&bound.shape) {
        Less => true,
        Greater => false,
        Equal => match rank().as_slice().cmp(bound.rank) {
            Less => true,
            Greater => false,
            Equal => arrivals() <= bound.arrivals,
        },
    }
}

/// The shape of `schedule` under `timing`, the contract's time limits: a dispatch its attempt timeout
/// cuts (its duration past the timeout, or equal to it where a tie counts as expired) ranks as a `hang`
/// whatever its scripted outcome, since the caller never sees that outcome, only the cut (item 5).
pub fn shape(schedule: &Schedule, timing: &TimingContract) -> Shape {
    let mut shape = Shape {
        calls: schedule.calls.len() as u64,
        concurrent: u64::from(schedule.has_arrivals()),
        choices: schedule.interleave.len() as u64,
        choice_sum: schedule.interleave.iter().map(|&choice| u64::from(choice)).sum(),
        dispatches: 0,
        steps: 0,
        outcome_rank: 0,
    };
    for call in &schedule.calls {
        shape.steps += call.steps.len() as u64;
        for step in &call.steps {
            let count = u64::from(step.count());
            let outcome = if is_cut(step, timing) { Outcome::Hang } else { step.outcome };
            shape.dispatches += count;
            shape.outcome_rank = shape.outcome_rank.saturating_add(count.saturating_mul(outcome_rank(outcome)));
        }
    }
    shape
}

/// The shape of `case` under its own contract (`subject`'s for its config): [`shape`].
pub fn case_shape<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>) -> Shape {
    shape(&case.schedule, &subject.contract(&case.config).timing)
}

/// Whether the attempt timeout of `timing` cuts `step` before its outcome: its duration passes the
/// timeout, or equals it where a tie counts as expired ([`TieRule::Expired`]).
pub fn is_cut(step: &Step, timing: &TimingContract) -> bool {
    match timing.attempt_timeout {
        None => false,
        Some(timeout) => {
            step.duration > timeout || (step.duration == timeout && timing.timeout_tie == TieRule::Expired)
        }
    }
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, VDuration};

    use super::*;

    /// The shape under a contract without an attempt timeout.
    fn untimed(schedule: &Schedule) -> Shape {
        shape(schedule, &TimingContract::default())
    }

    #[test]
    fn a_dispatch_the_timeout_cuts_ranks_as_a_hang() {
        let ns = VDuration::from_nanos;
        let timing =
            |tie| TimingContract { attempt_timeout: Some(ns(2)), timeout_tie: tie, ..TimingContract::default() };
        let single = |took: u64, outcome| Schedule::single(vec![Step::new(ns(took), outcome)]);
        let rank = |schedule: &Schedule, tie| shape(schedule, &timing(tie)).outcome_rank;
        assert_eq!(rank(&single(1, Outcome::Ok), TieRule::Expired), 0, "shorter than the timeout: its own outcome");
        assert_eq!(rank(&single(2, Outcome::Ok), TieRule::Expired), 4, "a tie that counts as expired is cut");
        assert_eq!(rank(&single(2, Outcome::Ok), TieRule::InnerWins), 0, "a tie the inner result wins is not");
        assert_eq!(rank(&single(3, Outcome::Transient), TieRule::InnerWins), 4, "past the timeout: cut");
        assert_eq!(untimed(&single(3, Outcome::Transient)).outcome_rank, 1, "no timeout cuts nothing");
    }

    fn calls(outcomes: &[&[Outcome]]) -> Schedule {
        Schedule::new(outcomes.iter().map(|outcomes| CallScript::outcomes(outcomes)).collect())
    }

    #[track_caller]
    fn check(smaller: Schedule, larger: Schedule) {
        assert!(untimed(&smaller) < untimed(&larger), "{:?} !< {:?}", untimed(&smaller), untimed(&larger));
    }

    const SEQUENTIAL: Shape =
        Shape { calls: 1, concurrent: 0, choices: 0, choice_sum: 0, dispatches: 0, steps: 0, outcome_rank: 0 };

    #[track_caller]
    fn check_within(shape: Shape, rank: &[u64], expect: bool) {
        check_arrivals_within(shape, rank, Arrivals { distinct: 0, sum_ns: 0 }, expect);
    }

    #[track_caller]
    fn check_arrivals_within(shape: Shape, rank: &[u64], arrivals: Arrivals, expect: bool) {
        let max = Shape { dispatches: 2, steps: 2, outcome_rank: 2, ..SEQUENTIAL };
        let bound = Bound { shape: max, rank: &[1, 5], arrivals: Arrivals { distinct: 2, sum_ns: 10 } };
        assert_eq!(within(shape, || rank.to_vec(), || arrivals, &bound), expect, "{shape:?} {rank:?} {arrivals:?}");
    }

    #[test]
    fn a_smaller_shape_wins_then_a_config_of_no_larger_rank() {
        let at = |dispatches, outcome_rank| Shape { dispatches, steps: dispatches, outcome_rank, ..SEQUENTIAL };
        check_within(at(1, 9), &[9], true);
        check_within(at(2, 2), &[1, 5], true);
        check_within(at(2, 2), &[1, 4, 9], true);
        check_within(at(2, 2), &[], true);
        check_within(at(2, 2), &[1, 5, 0], false);
        check_within(at(2, 2), &[2], false);
        check_within(at(2, 3), &[0], false);
        check_within(at(3, 0), &[0], false);
    }

    #[test]
    fn at_an_equal_shape_and_rank_arrivals_may_not_grow() {
        let at = Shape { dispatches: 2, steps: 2, outcome_rank: 2, ..SEQUENTIAL };
        let arrivals = |distinct, sum_ns| Arrivals { distinct, sum_ns };
        check_arrivals_within(at, &[1, 5], arrivals(2, 10), true);
        check_arrivals_within(at, &[1, 5], arrivals(1, 99), true);
        check_arrivals_within(at, &[1, 5], arrivals(2, 9), true);
        check_arrivals_within(at, &[1, 5], arrivals(2, 11), false);
        check_arrivals_within(at, &[1, 5], arrivals(3, 0), false);
        check_arrivals_within(at, &[1, 4], arrivals(3, 0), true);
        check_arrivals_within(Shape { outcome_rank: 1, ..at }, &[1, 5], arrivals(8, 80), true);
    }

    fn arriving(offsets_ms: &[u64]) -> Schedule {
        let call = |&ms| CallScript::new(vec![Step::instant(Outcome::Ok)]).arriving(VDuration::from_millis(ms));
        Schedule::new(offsets_ms.iter().map(call).collect())
    }

    #[test]
    fn sequential_before_concurrent_then_fewer_and_smaller_choices() {
        let sequential = calls(&[&[Outcome::Ok], &[Outcome::Ok]]);
        check(sequential.clone(), arriving(&[0, 0]));
        check(calls(&[&[Outcome::Ok]]), arriving(&[0, 0]));
        check(sequential.clone(), sequential.clone().with_interleave(vec![0]));
        check(arriving(&[0, 0]), arriving(&[0, 0]).with_interleave(vec![0]));
        check(arriving(&[0, 0]).with_interleave(vec![1, 0]), arriving(&[0, 0]).with_interleave(vec![0, 0, 0]));
        check(arriving(&[0, 0]).with_interleave(vec![0, 1]), arriving(&[0, 0]).with_interleave(vec![2, 0]));
        let fewer_steps = Schedule::new(vec![CallScript::new(vec![]).arriving(VDuration::ZERO); 2]);
        check(fewer_steps.with_interleave(vec![0]), arriving(&[0, 0]).with_interleave(vec![1]));
        assert_eq!(
            untimed(&arriving(&[0, 7])),
            untimed(&arriving(&[0, 0])),
            "arrival offsets are not part of the shape"
        );
    }

    #[test]
    fn arrivals_together_then_earlier_are_simpler() {
        let measured = |offsets: &[u64]| arrivals(&arriving(offsets));
        assert!(measured(&[0, 0]) < measured(&[0, 1]));
        assert!(measured(&[5, 5, 5]) < measured(&[0, 0, 1]));
        assert!(measured(&[0, 0, 1]) < measured(&[0, 1, 1]));
        assert!(measured(&[0, 2]) < measured(&[1, 2]));
        assert_eq!(measured(&[0, 0]), measured(&[0]));
        assert_eq!(arrivals(&calls(&[&[], &[]])), Arrivals { distinct: 0, sum_ns: 0 });
        let ends = arriving(&[u64::MAX / 1_000_000, u64::MAX / 1_000_000]);
        assert_eq!(arrivals(&ends).sum_ns, 2 * u128::from(u64::MAX / 1_000_000 * 1_000_000));
    }

    #[test]
    fn fewer_calls_then_dispatches_then_steps_then_simpler_outcomes() {
        use Outcome::{Fatal, Hang, Ok, Transient};
        check(calls(&[&[Fatal, Fatal, Fatal]]), calls(&[&[], &[]]));
        check(calls(&[&[Fatal], &[Transient]]), calls(&[&[Transient, Transient], &[Transient]]));
        check(calls(&[&[Hang]]), calls(&[&[Ok, Ok]]));
        check(calls(&[&[Ok]]), calls(&[&[Transient]]));
        check(calls(&[&[Transient]]), calls(&[&[Hang]]));
        let merged = Schedule::single(vec![Step::instant(Transient).repeated(3)]);
        let split = Schedule::single(vec![Step::instant(Transient).repeated(2), Step::instant(Transient)]);
        check(merged.clone(), split);
        check(Schedule::single(vec![Step::instant(Transient).repeated(2)]), merged);
        let slow = Schedule::single(vec![Step::new(VDuration::from_secs(9), Ok)]);
        assert_eq!(untimed(&slow), untimed(&calls(&[&[Ok]])), "durations are not part of the shape");
    }
}
