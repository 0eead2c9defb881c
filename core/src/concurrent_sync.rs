//! Serving overlapping calls with synchronous code: the subject is an event-driven state machine that
//! reacts to what happens to each call and answers with what that call does next. No async code to
//! write; it runs on the virtual executor of [`run_async_calls`], so the tie rule and the recorded
//! interleaving ([`crate::concurrent`]) apply unchanged.
//!
//! # The `SyncServer` state machine
//! Each call does one thing at a time. [`serve_sync_calls`] tells the server (its one shared state: a
//! limiter, a breaker, a bulkhead's permits) what happened to a call, as a [`SyncEvent`], and the server
//! answers with the call's next [`SyncAction`]:
//!
//! | event | when |
//! |---|---|
//! | [`SyncEvent::Arrived`] | the call started (at its arrival); first event of every call |
//! | [`SyncEvent::AttemptEnded`] | the attempt the call dispatched ended (completed, timed out, cancelled) |
//! | [`SyncEvent::Woke`] | the call's sleep (its timer) ended, or the call's cancellation cut it |
//! | [`SyncEvent::Nudged`] | while the call waits ([`SyncAction::Wait`]): another call did something, or the call was cancelled |
//!
//! | action | what the call does |
//! |---|---|
//! | [`SyncAction::Dispatch`] | sends its next scripted attempt (with an optional timeout and its tie rule) |
//! | [`SyncAction::Sleep`] | sleeps (a retry delay, a limiter's wait) |
//! | [`SyncAction::Wait`] | waits, with no timer, until nudged (a queue for a slot another call frees) |
//! | [`SyncAction::End`] | returns its result: the call ends (`CallEnd`) |
//!
//! Invariants: the first event of a call is `Arrived`; after `End` the call gets no more events; every
//! other action is answered by exactly one event of the matching kind. The server also gets the
//! [`World`] with each event, in focus on that call, for what happens at once: a rejection
//! ([`World::reject`]), a notification, a circuit transition, randomness, reading the clock.
//!
//! # When events arrive
//! Exactly when the executor polls the call's task ([`crate::concurrent`], "When tasks run"): calls
//! arriving at the same instant get `Arrived` in the recorded interleaving order, an attempt's end and a
//! sleep's end at their instant, and a waiting call is nudged in every round after one that made
//! progress (an event was recorded or a call ended), since shared state may have changed. A nudge that
//! finds nothing changed can answer `Wait` again; a round in which every answer recorded nothing ends
//! the instant. Every call waiting with no timer left and no call left to arrive is [`Abort::Hung`].
//!
//! # Example: a synchronous bulkhead
//! ```
//! use timelaw_core::concurrent_sync::{serve_sync_calls, SyncAction, SyncEvent, SyncServer};
//! use timelaw_core::{execute, Abort, AttemptResult, CallInfo, CallResult, CallScript, Contract, ErrorKind,
//!     EventKind, Outcome, Rejection, Schedule, Step, Subject, VDuration, World};
//!
//! /// At most `limit` calls in flight; a call over it is rejected at once.
//! struct Permits { limit: u32, in_flight: u32 }
//! impl SyncServer for Permits {
//!     fn on_event(&mut self, world: &mut World<'_>, _call: CallInfo, event: SyncEvent)
//!         -> Result<SyncAction, Abort> {
//!         Ok(match event {
//!             SyncEvent::Arrived if self.in_flight >= self.limit => {
//!                 world.reject(Rejection::BulkheadFull)?;
//!                 SyncAction::End(CallResult::Err(ErrorKind::BulkheadFull))
//!             }
//!             SyncEvent::Arrived => { self.in_flight += 1; SyncAction::dispatch() }
//!             SyncEvent::AttemptEnded(attempt) => {
//!                 self.in_flight -= 1;
//!                 SyncAction::End(match attempt {
//!                     AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
//!                     _ => CallResult::Err(ErrorKind::Cancelled),
//!                 })
//!             }
//!             SyncEvent::Woke(_) | SyncEvent::Nudged { .. } => SyncAction::Wait,
//!         })
//!     }
//! }
//!
//! struct SyncBulkhead;
//! impl Subject for SyncBulkhead {
//!     type Config = u32;
//!     fn name(&self) -> &str { "sync-bulkhead" }
//!     fn contract(&self, _limit: &u32) -> Contract { Contract::default() }
//!     fn run(&self, limit: &u32, world: &mut World<'_>) -> Result<(), Abort> {
//!         serve_sync_calls(world, Permits { limit: *limit, in_flight: 0 })
//!     }
//! }
//!
//! // Three calls arrive together; each attempt takes 10 ms.
//! let call = CallScript::new(vec![Step::new(VDuration::from_millis(10), Outcome::Ok)]);
//! let schedule = Schedule::new(vec![call.arriving(VDuration::ZERO); 3]);
//! let rejected = |schedule: &Schedule| -> Vec<u32> {
//!     let trace = execute(&SyncBulkhead, &2, schedule, 0);
//!     trace.events.iter().filter(|e| matches!(e.kind, EventKind::Rejected { .. })).map(|e| e.call).collect()
//! };
//! assert_eq!(rejected(&schedule), [2]); // first come, first served
//! assert_eq!(rejected(&schedule.clone().with_interleave(vec![2])), [1]); // call 2 polled first
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::concurrent::run_async_calls;
use crate::contract::TieRule;
use crate::exec::AsyncWorld;
use crate::time::VDuration;
use crate::trace::CallResult;
use crate::world::{Abort, AttemptResult, CallInfo, Wake, World};

/// What happened to a call (see the module docs for when each arrives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncEvent {
    /// The call started; its first event.
    Arrived,
    /// The attempt it dispatched ended.
    AttemptEnded(AttemptResult),
    /// Its sleep ended (`Elapsed`) or was cut by the call's cancellation (`Cancelled`).
    Woke(Wake),
    /// While it waited: another call may have changed the shared state, or the call was cancelled.
    Nudged {
        /// `true` once the call is cancelled (its cancellation instant has passed).
        cancelled: bool,
    },
}

/// What a call does next (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncAction {
    /// Send the next scripted attempt, under `timeout` (with its tie rule) if given.
    Dispatch {
        /// The attempt's timeout and how a completion exactly at the deadline counts.
        timeout: Option<(VDuration, TieRule)>,
    },
    /// Sleep this long (cut by the call's cancellation).
    Sleep(VDuration),
    /// Wait, with no timer, until nudged.
    Wait,
    /// Return this result: the call ends.
    End(CallResult),
}

impl SyncAction {
    /// [`SyncAction::Dispatch`] with no timeout.
    pub fn dispatch() -> SyncAction {
        SyncAction::Dispatch { timeout: None }
    }
}

/// A synchronous subject serving overlapping calls: one state for all calls, told what happened to a
/// call and answering with that call's next action. See the module docs for the state machine.
pub trait SyncServer {
    /// Reacts to `event` of `call`: records what happens at once through `world` (in focus on `call`)
    /// and returns what the call does next.
    ///
    /// # Errors
    /// The World's abort, unchanged (the run stops there).
    fn on_event(&mut self, world: &mut World<'_>, call: CallInfo, event: SyncEvent) -> Result<SyncAction, Abort>;
}

/// Serves every call of the World's schedule concurrently through `server`, one call per task of
/// [`run_async_calls`] (arrivals, tie rule and recorded interleaving as there).
///
/// # Errors
/// The server's abort; [`Abort::Hung`] when every call left waits with nothing to nudge it; the World's
/// and the executor's limits.
pub fn serve_sync_calls<'s, S: SyncServer + 's>(world: &mut World<'s>, server: S) -> Result<(), Abort> {
    let server = Rc::new(RefCell::new(server));
    run_async_calls(world, move |w, call| serve_one(w, call, Rc::clone(&server)))
}

/// The task of one call: asks the server, performs the action, reports its end, until `End`.
async fn serve_one<'s, S: SyncServer>(
    w: AsyncWorld<'s>,
    call: CallInfo,
    server: Rc<RefCell<S>>,
) -> Result<CallResult, Abort> {
    let mut event = SyncEvent::Arrived;
    loop {
        let action = w.with(|world| server.borrow_mut().on_event(world, call, event))?;
        event = match action {
            SyncAction::Dispatch { timeout: None } => SyncEvent::AttemptEnded(w.dispatch().await?),
            SyncAction::Dispatch { timeout: Some((limit, tie)) } => {
                SyncEvent::AttemptEnded(w.dispatch_with_timeout(limit, tie).await?)
            }
            SyncAction::Sleep(duration) => SyncEvent::Woke(w.sleep(duration).await?),
            SyncAction::Wait => WaitOnce { world: w.clone(), waited: false }.await,
            SyncAction::End(result) => return Ok(result),
        };
    }
}

/// Pending once (due again at the call's cancellation, if that is still ahead), then ready with a nudge:
/// never ready at once, so a server answering `Wait` to every nudge cannot spin within one poll.
struct WaitOnce<'s> {
    world: AsyncWorld<'s>,
    waited: bool,
}

impl Future for WaitOnce<'_> {
    type Output = SyncEvent;
    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<SyncEvent> {
        let (now, cancel_at, cancelled) = self.world.with(|w| (w.now(), w.cancel_at(), w.is_cancelled()));
        if self.waited {
            return Poll::Ready(SyncEvent::Nudged { cancelled });
        }
        if let Some(at) = cancel_at.filter(|&at| at > now) {
            self.world.wake_at(at);
        }
        self.waited = true;
        Poll::Pending
    }
}
