//! The order on simplicity the shrinker minimises along.
//!
//! Cases compare lexicographically, most important first:
//! 1. fewer calls;
//! 2. fewer scripted dispatches (each step counted `repeat` times), then fewer step entries;
//! 3. simpler outcomes: the sum over dispatches of each outcome's rank (`ok` 0, `transient` 1, `fatal` 2,
//!    `rate_limited` 3, `hang` 4);
//! 4. a smaller config: the domain's own order, in which every shrink candidate it offers (and every
//!    number it lowers) is smaller than the config it came from;
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
//! Each pass moves along items 4 and 5 by construction (its candidates are smaller there), and the
//! visited set makes sure no case is accepted twice.

use timelaw_core::{Outcome, Schedule};

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
