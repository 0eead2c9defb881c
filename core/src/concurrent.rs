//! Serving calls concurrently: one future per call on the virtual-time executor, started at the call's
//! arrival, with the order of tasks ready at the same instant taken from the case.
//!
//! # How a concurrent subject plugs in
//! Its [`Subject::run`](crate::Subject::run) calls [`run_async_calls`] with a closure that receives an
//! [`AsyncWorld`] and the [`CallInfo`] of one call and returns that call's future, whose output is the
//! call's result. State shared by the calls (a bulkhead's permits, a breaker) lives in the closure,
//! behind `Rc<RefCell<_>>` or `Rc<Cell<_>>`: everything runs on one thread. The executor starts each
//! call (`CallStart`) at its arrival ([`crate::schedule`], "Arrivals") and ends it (`CallEnd`) with the
//! future's result; every event an operation records belongs to the call whose future made it.
//!
//! # When tasks run (the tie rule)
//! Time stands still while tasks run. At each instant the executor
//! 1. starts every call arriving at or before that instant, in index order;
//! 2. makes the tasks DUE: the calls just started and every task with a timer (sleep end, attempt end,
//!    timeout, cancellation) due at or before the instant;
//! 3. polls the due tasks one by one in an order chosen as below (a round). When a round made progress
//!    (an event was recorded or a task finished), another round polls EVERY unfinished task, since
//!    shared state may have changed for any of them; rounds repeat until one makes no progress;
//! 4. moves the clock to the earliest timer or arrival and repeats.
//!
//! # Controlled interleaving
//! The order of a round is a choice recorded in the case, [`Schedule::interleave`](crate::Schedule):
//! the tasks of a round are listed in first-come (call index) order, and while two or more are left,
//! the next entry `e` of the list picks the task at position `e % left` to run next (each such pick is
//! one choice point of the case, counted over the whole run). An empty list, and every entry past its
//! end, picks the first: first-come order, the simplest. A single task left is run without a choice.
//! Nothing else (no hash order, no thread) decides, so the same case gives the same trace on any thread
//! count.
//!
//! # Hangs and limits
//! A task pending with no timer left and no call left to arrive can never wake: [`Abort::Hung`] for the
//! first such call. Polls are bounded like [`run_async`](crate::exec::run_async)'s.
//!
//! ```
//! use std::cell::Cell;
//! use std::rc::Rc;
//! use timelaw_core::concurrent::run_async_calls;
//! use timelaw_core::{execute, Abort, AttemptResult, CallResult, CallScript, Contract, ErrorKind, EventKind,
//!     Outcome, Rejection, Schedule, Step, Subject, VDuration, World};
//!
//! /// A tiny bulkhead: at most `limit` calls in flight; a call over it is rejected at once.
//! struct Bulkhead;
//! impl Subject for Bulkhead {
//!     type Config = u32;
//!     fn name(&self) -> &str { "tiny-bulkhead" }
//!     fn contract(&self, _limit: &u32) -> Contract { Contract::default() }
//!     fn run(&self, limit: &u32, world: &mut World<'_>) -> Result<(), Abort> {
//!         let (limit, in_flight) = (*limit, Rc::new(Cell::new(0_u32)));
//!         run_async_calls(world, move |w, _call| {
//!             let in_flight = Rc::clone(&in_flight);
//!             async move {
//!                 if in_flight.get() >= limit {
//!                     w.with(|w| w.reject(Rejection::BulkheadFull))?;
//!                     return Ok(CallResult::Err(ErrorKind::BulkheadFull));
//!                 }
//!                 in_flight.set(in_flight.get() + 1);
//!                 let attempt = w.dispatch().await;
//!                 in_flight.set(in_flight.get() - 1);
//!                 match attempt? {
//!                     AttemptResult::Completed(outcome) => Ok(CallResult::from_outcome(outcome)),
//!                     _ => Ok(CallResult::Err(ErrorKind::Cancelled)),
//!                 }
//!             }
//!         })
//!     }
//! }
//!
//! // Three calls arrive together; each attempt takes 10 ms.
//! let call = CallScript::new(vec![Step::new(VDuration::from_millis(10), Outcome::Ok)]);
//! let schedule = Schedule::new(vec![call.arriving(VDuration::ZERO); 3]);
//! let trace = execute(&Bulkhead, &2, &schedule, 0);
//! let rejected: Vec<u32> = trace.events.iter()
//!     .filter(|e| matches!(e.kind, EventKind::Rejected { .. })).map(|e| e.call).collect();
//! assert_eq!(rejected, [2]); // first come, first served: the third call finds the bulkhead full
//! // The same case with the third call polled first: it gets in and call 1 is rejected.
//! let trace = execute(&Bulkhead, &2, &schedule.clone().with_interleave(vec![2]), 0);
//! let rejected: Vec<u32> = trace.events.iter()
//!     .filter(|e| matches!(e.kind, EventKind::Rejected { .. })).map(|e| e.call).collect();
//! assert_eq!(rejected, [1]);
//! assert_eq!(trace.events.last().unwrap().at.as_nanos(), 10_000_000); // they overlapped
//! ```

use std::cmp::Reverse;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use crate::exec::{with_async_world, AsyncWorld};
use crate::schedule::CallScript;
use crate::time::VInstant;
use crate::trace::CallResult;
use crate::world::{Abort, CallInfo, LimitKind, World};

type CallFuture<'s> = Pin<Box<dyn Future<Output = Result<CallResult, Abort>> + 's>>;

/// When call `index` (its `script`) starts, if that is known yet: at its arrival, never before the
/// previous call started (`opened_at`); without an arrival, `gap_before` after the previous call ended
/// (`previous_ended`, `None` while it runs), or after the start of the case for the first call. The rule
/// every driver of overlapping calls follows ([`run_async_calls`], the tokio driver).
///
/// ```
/// use timelaw_core::concurrent::arrival_instant;
/// use timelaw_core::{CallScript, VDuration, VInstant};
///
/// let at = |ms| VInstant::EPOCH.saturating_add(VDuration::from_millis(ms));
/// let arriving = CallScript::new(vec![]).arriving(VDuration::from_millis(5));
/// assert_eq!(arrival_instant(&arriving, 1, Some(at(8)), None), Some(at(8))); // not before call 0 started
/// let after_gap = CallScript { gap_before: VDuration::from_millis(2), ..CallScript::new(vec![]) };
/// assert_eq!(arrival_instant(&after_gap, 1, None, Some(at(3))), Some(at(5)));
/// assert_eq!(arrival_instant(&after_gap, 1, None, None), None); // call 0 still runs
/// ```
pub fn arrival_instant(
    script: &CallScript,
    index: usize,
    opened_at: Option<VInstant>,
    previous_ended: Option<VInstant>,
) -> Option<VInstant> {
    match script.arrival {
        Some(offset) => {
            let at = VInstant::EPOCH.saturating_add(offset);
            Some(opened_at.map_or(at, |opened| at.max(opened)))
        }
        None if index == 0 => Some(VInstant::EPOCH.saturating_add(script.gap_before)),
        None => previous_ended.map(|ended| ended.saturating_add(script.gap_before)),
    }
}

/// Serves every call of the World's schedule concurrently: `serve(world, call)` builds the future of one
/// call, started at the call's arrival; its output is the call's result. See the module docs.
///
/// # Errors
/// A call future's own abort (the run stops there); [`Abort::Hung`]; the poll and World limits.
pub fn run_async_calls<'s, F, Fut>(world: &mut World<'s>, serve: F) -> Result<(), Abort>
where
    F: FnMut(AsyncWorld<'s>, CallInfo) -> Fut,
    Fut: Future<Output = Result<CallResult, Abort>> + 's,
{
    with_async_world(world, |handle| {
        let mut driver = Driver { handle, tasks: Vec::new(), ended_at: Vec::new(), opened_at: None, choice: 0 };
        let result = driver.run(serve);
        driver.drop_tasks();
        result
    })
}

/// The state of one concurrent run.
struct Driver<'h, 's> {
    handle: &'h AsyncWorld<'s>,
    /// One slot per started call (by index); `None` once it finished.
    tasks: Vec<Option<CallFuture<'s>>>,
    /// When each started call ended.
    ended_at: Vec<Option<VInstant>>,
    /// When the last call started.
    opened_at: Option<VInstant>,
    /// The next entry of `Schedule::interleave`.
    choice: usize,
}

impl<'s> Driver<'_, 's> {
    fn run<F, Fut>(&mut self, mut serve: F) -> Result<(), Abort>
    where
        F: FnMut(AsyncWorld<'s>, CallInfo) -> Fut,
        Fut: Future<Output = Result<CallResult, Abort>> + 's,
    {
        let polls_max = 16 * u64::from(self.handle.with(|w| w.limits().events_max));
        let mut polls = 0_u64;
        // One buffer for every round's tasks, reused from one instant to the next.
        let mut due = Vec::new();
        loop {
            self.open_arrived(&mut serve, &mut due)?;
            self.due_timers(&mut due);
            due.sort_unstable();
            due.dedup();
            polls += self.rounds(&mut due)?;
            if polls > polls_max {
                let limit = Abort::StepLimit { kind: LimitKind::Events, limit: polls_max };
                return Err(self.handle.with(|w| w.issue(limit)));
            }
            let all_started = self.tasks.len() == self.handle.with(|w| w.schedule().calls.len());
            if all_started && self.tasks.iter().all(Option::is_none) {
                return self.handle.with(|w| w.finish_calls());
            }
            let next = self.next_instant().ok_or_else(|| self.hung())?;
            let now = self.handle.now();
            self.handle.with(|w| w.advance_to(next.max(now)))?;
        }
    }

    /// When the next call arrives, if that is known yet: its arrival (never before the previous call
    /// started), or `gap_before` after the previous call ended.
    fn next_arrival(&self) -> Option<VInstant> {
        let index = self.tasks.len();
        let previous_ended = index.checked_sub(1).and_then(|previous| self.ended_at[previous]);
        let opened_at = self.opened_at;
        self.handle.with(|w| {
            let script = w.schedule().calls.get(index)?;
            arrival_instant(script, index, opened_at, previous_ended)
        })
    }

    /// Starts every call arriving by now, adding their indices to `opened`.
    fn open_arrived<F, Fut>(&mut self, serve: &mut F, opened: &mut Vec<u32>) -> Result<(), Abort>
    where
        F: FnMut(AsyncWorld<'s>, CallInfo) -> Fut,
        Fut: Future<Output = Result<CallResult, Abort>> + 's,
    {
        while self.next_arrival().is_some_and(|at| at <= self.handle.now()) {
            let Some(info) = self.handle.with(|w| w.open_call())? else { break };
            self.opened_at = Some(info.started);
            self.tasks.push(Some(Box::pin(serve(self.handle.clone(), info))));
            self.ended_at.push(None);
            opened.push(info.index);
        }
        Ok(())
    }

    /// Adds to `due` the unfinished tasks with a timer due by now (their timers taken).
    fn due_timers(&self, due: &mut Vec<u32>) {
        let now = self.handle.now();
        let mut timers = self.handle.shared.timers.borrow_mut();
        while timers.peek().is_some_and(|Reverse((at, _))| *at <= now) {
            let Some(Reverse((_, task))) = timers.pop() else { break };
            if self.tasks.get(task as usize).is_some_and(Option::is_some) {
                due.push(task);
            }
        }
    }

    /// Polls `round` in the recorded order, then every unfinished task while a round makes progress;
    /// the number of polls. Leaves `round` empty.
    fn rounds(&mut self, round: &mut Vec<u32>) -> Result<u64, Abort> {
        let mut polls = 0_u64;
        while !round.is_empty() {
            let mut progress = false;
            while let Some(task) = self.pick(round) {
                polls += 1;
                progress |= self.poll_task(task)?;
            }
            if !progress {
                round.clear();
                break;
            }
            self.unfinished(round);
        }
        Ok(polls)
    }

    /// Takes the next task of a round: the first, or the one the next interleave entry picks.
    fn pick(&mut self, round: &mut Vec<u32>) -> Option<u32> {
        match round.len() {
            0 => None,
            1 => round.pop(),
            left => {
                let entry = self.handle.with(|w| w.schedule().interleave.get(self.choice).copied());
                self.choice += 1;
                Some(round.remove(entry.unwrap_or(0) as usize % left))
            }
        }
    }

    /// Puts the unfinished tasks in `round` (emptied first).
    fn unfinished(&self, round: &mut Vec<u32>) {
        round.clear();
        let unfinished = self.tasks.iter().enumerate().filter(|(_, task)| task.is_some());
        // Call indices fit in u32: they come from `CallInfo::index`.
        round.extend(unfinished.map(|(index, _)| u32::try_from(index).unwrap_or(u32::MAX)));
    }

    /// Polls call `task` in focus; `true` when it recorded an event or finished.
    fn poll_task(&mut self, task: u32) -> Result<bool, Abort> {
        let Some(future) = self.tasks.get_mut(task as usize).and_then(Option::as_mut) else { return Ok(false) };
        let handle = self.handle;
        let before = handle.with(|w| w.focus(task).map(|()| w.trace().events.len()))?;
        handle.shared.current.set(task);
        let polled = future.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        if let Some(abort) = handle.shared.deferred.borrow_mut().take() {
            return Err(abort);
        }
        let Poll::Ready(result) = polled else {
            return Ok(handle.with(|w| w.trace().events.len()) != before);
        };
        self.tasks[task as usize] = None;
        handle.with(|w| w.focus(task).and_then(|()| w.end_call(result?)))?;
        self.ended_at[task as usize] = Some(handle.now());
        Ok(true)
    }

    /// The earliest pending timer or known arrival.
    fn next_instant(&self) -> Option<VInstant> {
        let timer = self.handle.shared.timers.borrow().peek().map(|Reverse((at, _))| *at);
        [timer, self.next_arrival()].into_iter().flatten().min()
    }

    fn hung(&self) -> Abort {
        let call = self.tasks.iter().position(Option::is_some).unwrap_or(0);
        let call = u32::try_from(call).unwrap_or(u32::MAX);
        let attempt = self.handle.with(|w| w.trace().call_events(call).last().map_or(0, |event| event.attempt));
        self.handle.with(|w| w.issue(Abort::Hung { call, attempt }))
    }

    /// Drops the unfinished tasks (after an abort), each with its own call in focus, so an attempt a
    /// dropped future cuts is recorded for its own call.
    fn drop_tasks(&mut self) {
        for (index, task) in self.tasks.iter_mut().enumerate() {
            if task.is_some() {
                let index = u32::try_from(index).unwrap_or(u32::MAX);
                let _ = self.handle.with(|w| w.focus(index));
                self.handle.shared.current.set(index);
                *task = None;
            }
        }
    }
}
