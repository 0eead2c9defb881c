//! The order on simplicity the shrinker minimises along.
//!
//! Cases compare lexicographically, most important first:
//! 1. fewer calls;
//! 2. fewer scripted dispatches (each step counted `repeat` times), then fewer step entries;
//! 3. simpler outcomes: the sum over dispatches of each outcome's rank (`ok` 0, `transient` 1, `fatal` 2,
//!    `rate_limited` 3, `hang` 4);
//! 4. a smaller config: a smaller rank ([`ConfigDomain::config_rank`], compared lexicographically). A
//!    described domain ranks a config by the answers its description draws it from, in the order it
//!    draws them, simplest answer first (the reference interpreter's:
//!    `timelaw_generators::reference_rank`): a total order in which each answer lowered, to its
//!    minimum or by one, gives a smaller config. A domain without a rank (`[]`, the default) ranks every
//!    config alike, and item 4 is then only the order its own shrink candidates imply;
//! 5. smaller schedule durations and features: fewer cancellations and non-idempotent calls, then the
//!    sum of every duration (gaps, cancellation delays, attempt durations, retry-afters), then the gaps
//!    compared call by call (earlier arrivals first), then fewer clock faults, then a smaller seed.
//!
//! Items 1 to 3 are the [`Shape`] of a case. The shrinker never accepts a candidate whose shape is
//! larger than the current case's, whatever else it simplifies, so a shorter schedule always beats a
//! simpler config: a config that needs the schedule padded (a smaller backoff factor that needs more
//! failures to pass a cap, a removed timeout whose cut attempts become scripted failures) is refused.
//! One exception, a translation rather than padding: when a config move removes the attempt timeout,
//! the attempts it cut are written out as the transient failures they were, and the candidate is
//! measured against the current case with those attempts written out the same way (so a removed
//! timeout may not buy a longer schedule either: a smaller factor that needs more of them is refused).
//! At an equal shape, a candidate whose config ranks higher than the current one is refused, so the
//! shrinker never climbs item 4 either ([`within`]): among the cases of one shape it keeps the config
//! of the smallest rank that fails, whichever start it came from.
//!
//! How the passes follow the order, one rule a sentence:
//! - the passes run in the order's own order: every pass that shrinks the shape (calls, steps,
//!   outcomes) before the config passes, so a simpler schedule is tried while the config that lets it
//!   fail is still there;
//! - every answer of a ranked config can be lowered alone, to its minimum or by one (a `retry_on` flag
//!   switched back on by itself, equal jitter made full, decorrelated backoff made linear), besides the
//!   numbers' binary searches;
//! - a wall jump is tried at 1 ns, then just past each limit of the case, before its binary search;
//! - a removed limit that cut attempts (the attempt timeout, the deadline) has its cut attempts written
//!   out as the transient failures they were, taking as long as they ran;
//! - a hang may become any simpler outcome lasting until whatever cut it: at once, the attempt
//!   timeout, or one nanosecond past its call's cancellation.
//!
//! Each pass moves along items 4 and 5 by construction (its candidates are smaller there), and the
//! visited set makes sure no case is accepted twice.

use timelaw_core::{Outcome, Schedule};
#[cfg(doc)]
use timelaw_generators::ConfigDomain;

/// Items 1 to 3 of the order: the size of a case's schedule, compared lexicographically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    /// Calls.
    pub calls: u64,
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

/// Whether a candidate of shape `shape` and config rank `rank()` may replace a case of shape at most
/// `shape_max` and config rank `rank_max`: items 1 to 4 of the order, compared lexicographically
/// (`rank` is only computed when the shapes are equal).
pub fn within(shape: Shape, rank: impl FnOnce() -> Vec<u64>, shape_max: Shape, rank_max: &[u64]) -> bool {
    match shape.cmp(&shape_max) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal => rank().as_slice() <= rank_max,
        std::cmp::Ordering::Greater => false,
    }
}

/// The shape of `schedule`.
pub fn shape(schedule: &Schedule) -> Shape {
    let mut shape = Shape { calls: schedule.calls.len() as u64, dispatches: 0, steps: 0, outcome_rank: 0 };
    for call in &schedule.calls {
        shape.steps += call.steps.len() as u64;
        for step in &call.steps {
            let count = u64::from(step.count());
            shape.dispatches += count;
            shape.outcome_rank = shape.outcome_rank.saturating_add(count.saturating_mul(outcome_rank(step.outcome)));
        }
    }
    shape
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, Step, VDuration};

    use super::*;

    fn calls(outcomes: &[&[Outcome]]) -> Schedule {
        Schedule::new(outcomes.iter().map(|outcomes| CallScript::outcomes(outcomes)).collect())
    }

    #[track_caller]
    fn check(smaller: Schedule, larger: Schedule) {
        assert!(shape(&smaller) < shape(&larger), "{:?} !< {:?}", shape(&smaller), shape(&larger));
    }

    #[track_caller]
    fn check_within(shape: Shape, rank: &[u64], expect: bool) {
        let max = Shape { calls: 1, dispatches: 2, steps: 2, outcome_rank: 2 };
        assert_eq!(within(shape, || rank.to_vec(), max, &[1, 5]), expect, "{shape:?} {rank:?}");
    }

    #[test]
    fn a_smaller_shape_wins_then_a_config_of_no_larger_rank() {
        let at = |dispatches, outcome_rank| Shape { calls: 1, dispatches, steps: dispatches, outcome_rank };
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
        assert_eq!(shape(&slow), shape(&calls(&[&[Ok]])), "durations are not part of the shape");
    }
}
