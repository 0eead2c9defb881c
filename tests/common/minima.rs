//! The canonical minimum of each planted bug, stated by hand (not taken from a shrinker run): the
//! shrinker's table tests and the shrink-quality benchmark both compare against these.
#![allow(dead_code)]

use timelaw::core::reference::{Backoff, Policy};
use timelaw::core::{Case, Outcome, Schedule, Step, VDuration};

use super::planted::Bug;

fn transients(count: usize) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); count])
}

/// The canonical minimum of `bug`, in words:
pub fn stated_minimum(bug: Bug) -> Case<Policy> {
    let simplest = Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO);
    match bug {
        // One attempt allowed, one transient failure: the defect makes a second attempt.
        Bug::ExtraAttempt => Case::new(simplest, transients(1), 0),
        // Delays 0 ns then 1 ns against a 0 ns cap (two transient failures: one step repeated twice, the
        // normal form of equal adjacent steps).
        Bug::UncappedDelay => Case::new(
            Policy::new(
                3,
                Backoff::Linear { initial: VDuration::ZERO, step: VDuration::from_nanos(1) },
                VDuration::ZERO,
            ),
            Schedule::single(vec![Step::instant(Outcome::Transient).repeated(2)]),
            0,
        ),
        // A retry allowed, a fatal failure: the defect retries it.
        Bug::RetriesFatal => {
            Case::new(Policy { max_attempts: 2, ..simplest }, Schedule::single(vec![Step::instant(Outcome::Fatal)]), 0)
        }
        // A 0 ns timeout cuts the (implicit) instant success; the defect returns Ok.
        Bug::TimeoutAsOk => {
            Case::new(Policy { attempt_timeout: Some(VDuration::ZERO), ..simplest }, Schedule::single(vec![]), 0)
        }
        // One attempt, one transient failure: the defect sleeps before returning the error.
        Bug::SleepsAfterLast => Case::new(simplest, transients(1), 0),
        // A 0 ns timeout and an instant success: a tie, which must count as expired.
        Bug::TieNotExpired => {
            Case::new(Policy { attempt_timeout: Some(VDuration::ZERO), ..simplest }, Schedule::single(vec![]), 0)
        }
    }
}
