//! [`serve_calls`]: [`run_tokio`] and [`TokioWorld::for_each_call`] in one call, for a subject whose
//! `run` serves each call with one async function (the async twin of `sync_loop::serve_calls`), and
//! [`retryable_by_default`], the classifier a retry loop around [`TokioWorld::attempt_within`] needs.

use std::future::Future;

use timelaw_core::{Abort, CallInfo, CallResult, World};

use crate::{run_tokio, TokioWorld};

/// `true` when an attempt's result as [`TokioWorld::attempt_within`] gives it is worth retrying: a
/// result that is [`CallResult::retryable_by_default`] (transient, rate-limited, timed out); never an
/// abort (the run is over).
///
/// ```
/// use timelaw_core::{Abort, CallResult, ErrorKind};
/// use timelaw_tokio::retryable_by_default;
///
/// assert!(retryable_by_default(&Ok(CallResult::Err(ErrorKind::Timeout))));
/// assert!(!retryable_by_default(&Ok(CallResult::Err(ErrorKind::Fatal))));
/// assert!(!retryable_by_default(&Ok(CallResult::Ok)));
/// assert!(!retryable_by_default(&Err(Abort::Hung { call: 0, attempt: 1 })));
/// ```
pub fn retryable_by_default(result: &Result<CallResult, Abort>) -> bool {
    result.as_ref().is_ok_and(|result| result.retryable_by_default())
}

/// Runs every call of the World's schedule on the paused runtime: `call(w, info)` serves one call and
/// gives its result. `w` is a handle of the run's [`TokioWorld`] (a cheap clone), so the future may own
/// it (`|w, _call| async move { .. }`).
///
/// # Errors
/// As [`run_tokio`]: the World's abort, `call`'s, or a hang's.
///
/// # Panics
/// As [`run_tokio`], which re-raises a panic of `call` after restoring the World.
///
/// # Examples
/// ```
/// use std::time::Duration;
/// use timelaw_core::{execute, Abort, CallResult, Contract, EventKind, Outcome, Schedule, Step, Subject};
/// use timelaw_core::{VDuration, World};
///
/// /// Two attempts per call, 5 ms apart, each under a 50 ms timeout.
/// struct Twice;
/// impl Subject for Twice {
///     type Config = ();
///     fn name(&self) -> &str { "twice" }
///     fn contract(&self, _: &()) -> Contract { Contract::default() }
///     fn run(&self, _: &(), world: &mut World<'_>) -> Result<(), Abort> {
///         timelaw_tokio::serve_calls(world, |w, _call| async move {
///             let first = w.attempt_within(Duration::from_millis(50)).await?;
///             if first.is_ok() {
///                 return Ok(first);
///             }
///             w.sleep(Duration::from_millis(5)).await;
///             w.attempt_within(Duration::from_millis(50)).await
///         })
///     }
/// }
/// let steps = vec![Step::instant(Outcome::Transient), Step::new(VDuration::from_millis(3), Outcome::Ok)];
/// let trace = execute(&Twice, &(), &Schedule::single(steps), 0);
/// let end = trace.events.last().unwrap();
/// assert_eq!((end.kind, end.at.as_nanos()), (EventKind::CallEnd { result: CallResult::Ok }, 8_000_000));
/// ```
pub fn serve_calls<'s, F, Fut>(world: &mut World<'s>, mut call: F) -> Result<(), Abort>
where
    F: FnMut(TokioWorld<'s>, CallInfo) -> Fut,
    Fut: Future<Output = Result<CallResult, Abort>>,
{
    run_tokio(world, |w| async move { w.for_each_call(|info| call(w.clone(), info)).await })
}
