//! The per-case watchdog: the one place timelaw reads the wall clock on the checking path, and it decides
//! only one thing: that a subject made no progress for [`Config::case_timeout_ms`](crate::Config)
//! milliseconds ("no progress for N ms", a `terminates` violation). A case that finishes is judged on
//! its trace alone, however long it took.
//!
//! # How a hang is seen
//! The case runs on a worker thread with a [`Heartbeat`]: the World counts every step of progress on it
//! (an event recorded, a clock move; clock reads and random draws are no progress). The watching thread
//! polls the count every quarter of the timeout; a count (and case) that stays the same for the whole
//! timeout is a hang. A busy-wait on the World's clock is stopped before that, deterministically, at
//! [`Limits::idle_calls_max`](timelaw_core::Limits::idle_calls_max).
//!
//! # How a hung thread is contained
//! A thread cannot be killed in-process. The watchdog abandons it ([`Heartbeat::abandon`]): it gets no
//! more work, its results are never read, and it parks for good at its next World call or when its
//! subject returns ([`crate::eval::evaluate_with`]); the tokio driver parks it between two polls of the
//! subject's future too. Only a loop in pure code keeps spinning until the process ends
//! ([`timelaw_core::heartbeat::spinning_threads`] counts those of the process). The search hands the
//! rest of the hung worker's cases to a new worker, as long as fewer than
//! [`ABANDONED_MAX`](crate::runner::ABANDONED_MAX) abandoned threads of the process still spin; past
//! that, the cases left are not judged and are reported as such (inconclusive for every law, naming
//! them). A hang is never re-run in-process: its raw counterexample is written as found, and shrunk
//! in child processes ([`crate::runner::Launcher`]). Every other shrink evaluates its candidates here,
//! on one watched worker ([`Bounded`]): a candidate that hangs is cut and rejected.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use timelaw_core::{Abort, Case, Heartbeat, Limits, Subject, Trace, TraceEnd};

use crate::eval::{evaluate, evaluate_with, Evaluation};

/// How often the watchdog looks, as a fraction of the timeout.
pub(crate) const POLLS_PER_TIMEOUT: u32 = 4;

/// How long the watchdog waits between two looks at the heartbeats (a quarter of the timeout, at
/// least 1 ms).
pub fn poll_interval(timeout: Duration) -> Duration {
    (timeout / POLLS_PER_TIMEOUT).max(Duration::from_millis(1))
}

/// Spawns `work` on a thread that the caller may abandon while it still runs.
///
/// # Errors
/// The OS refused a thread.
pub(crate) fn spawn_abandonable<'a, F>(name: String, work: F) -> std::io::Result<std::thread::JoinHandle<()>>
where
    F: FnOnce() + Send + 'a,
{
    // SAFETY: `work` may borrow data that lives for 'a only, and the thread may outlive 'a when the
    // watchdog abandons it. Every closure passed here runs subject cases through
    // `eval::evaluate_with` with a heartbeat, and touches borrowed runner data (laws, config, the
    // fixture store, the channel's peers are owned) only between cases, after checking that its
    // heartbeat was not abandoned; an abandoned run parks forever at its next World call or when
    // the subject returns, before any of that. What an abandoned thread can still reach is the
    // subject's own code, with the case it owns (cloned into it) and the subject value; the
    // subjects timelaw runs (the registry of the CLI, unit-struct test subjects) live until the
    // process ends. Documented on `Config::case_timeout_ms` and in ARCHITECTURE.md.
    unsafe { std::thread::Builder::new().name(name).spawn_unchecked(work) }
}

/// Tracks one watched thread: the last heartbeat and case it showed, and how long it has shown them.
///
/// Stall time is summed over the watchdog's own looks, each look counting at most two poll intervals:
/// when the machine is so loaded that the watchdog itself did not run for a while, the worker probably
/// did not either, and that time is not blamed on the subject.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Watch {
    beats: u64,
    case: u64,
    stalled: Duration,
    looked: Instant,
    look_max: Duration,
}

impl Watch {
    /// A watch starting now, for a watchdog that looks every `poll`.
    pub(crate) fn new(beats: u64, case: u64, poll: Duration) -> Watch {
        Watch { beats, case, stalled: Duration::ZERO, looked: Instant::now(), look_max: poll.saturating_mul(2) }
    }

    /// How long the thread has shown `beats` on `case` (zero when either changed: progress).
    pub(crate) fn stalled_for(&mut self, beats: u64, case: u64) -> Duration {
        let now = Instant::now();
        let look = now.saturating_duration_since(self.looked).min(self.look_max);
        self.looked = now;
        if beats != self.beats || case != self.case {
            (self.beats, self.case, self.stalled) = (beats, case, Duration::ZERO);
        } else {
            self.stalled = self.stalled.saturating_add(look);
        }
        self.stalled
    }
}

/// The evaluation of a case the watchdog gave up on: no events (they stayed with the abandoned thread),
/// the trace ended by [`Abort::NoProgress`], which `terminates` reports as "no progress for N ms".
pub fn hung<S: Subject + ?Sized>(subject: &S, case: &Case<S::Config>, timeout_ms: u64) -> Evaluation {
    let mut trace = Trace::new();
    trace.end = TraceEnd::Aborted(Abort::NoProgress { timeout_ms });
    Evaluation { contract: subject.contract(&case.config), trace, replay: None, without_wall_jumps: None }
}

/// [`evaluate`] under the watchdog: the case runs on its own thread, and when its subject makes no
/// progress for `timeout_ms` the thread is abandoned and the evaluation is [`hung`]. `timeout_ms == 0`
/// evaluates in place, unwatched. For the single-case paths (replay, import, the re-run of a finding);
/// the search watches its own workers ([`crate::runner`]), and a shrink evaluates many cases on one
/// [`Bounded`] worker.
pub fn evaluate_bounded<S: Subject + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    limits: Limits,
    replay: bool,
    timeout_ms: u64,
) -> Evaluation {
    Bounded::new(subject, limits, timeout_ms).evaluate(case, replay)
}

/// Evaluates cases one after another on a worker thread under the watchdog: each case whose subject makes
/// no progress for `timeout_ms` is [`hung`], its thread abandoned (see the module docs), and the next
/// case gets a new worker. `timeout_ms == 0` evaluates in place, unwatched. Dropping it ends and joins
/// the worker (an abandoned one is left where it parked).
pub struct Bounded<'a, S: Subject + ?Sized> {
    subject: &'a S,
    limits: Limits,
    timeout_ms: u64,
    worker: Mutex<Option<Worker<S::Config>>>,
}

/// A watched worker thread and its channels.
struct Worker<C> {
    requests: Sender<(Case<C>, bool)>,
    answers: Receiver<Evaluation>,
    heartbeat: Arc<Heartbeat>,
    handle: JoinHandle<()>,
    /// Cases sent so far (the watch's case number: a new case is progress).
    asked: u64,
}

/// What became of one case sent to a worker.
enum Answer {
    Done(Box<Evaluation>),
    Hung,
    /// The worker ended without an answer: the runner's own bug (subject panics are caught).
    Gone,
}

impl<'a, S: Subject + ?Sized> Bounded<'a, S> {
    /// An evaluator of `subject`'s cases under `limits`, watched with `timeout_ms` (0: unwatched).
    pub fn new(subject: &'a S, limits: Limits, timeout_ms: u64) -> Bounded<'a, S> {
        Bounded { subject, limits, timeout_ms, worker: Mutex::new(None) }
    }

    /// Evaluates `case` (twice when `replay`) on the worker; [`hung`] when it made no progress for the
    /// timeout. In place, unwatched, when the timeout is 0 or the OS refuses a thread.
    ///
    /// # Panics
    /// Re-raises a panic of timelaw's own code on the worker (a subject's panic is caught there).
    pub fn evaluate(&self, case: &Case<S::Config>, replay: bool) -> Evaluation {
        if self.timeout_ms == 0 {
            return evaluate(self.subject, case, self.limits, replay);
        }
        let mut slot = self.worker.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = self.start();
        }
        let Some(worker) = slot.as_mut() else { return evaluate(self.subject, case, self.limits, replay) };
        worker.asked += 1;
        let answer = match worker.requests.send((case.clone(), replay)) {
            Ok(()) => self.answer(worker),
            Err(_) => Answer::Gone,
        };
        match answer {
            Answer::Done(evaluation) => *evaluation,
            Answer::Hung => {
                worker.heartbeat.abandon();
                *slot = None; // Left where it parks (or spins); its answer is never read.
                hung(self.subject, case, self.timeout_ms)
            }
            Answer::Gone => match slot.take().map(|worker| worker.handle.join()) {
                Some(Err(payload)) => std::panic::resume_unwind(payload),
                _ => evaluate(self.subject, case, self.limits, replay),
            },
        }
    }

    /// Starts a worker; `None` when the OS refused a thread.
    fn start(&self) -> Option<Worker<S::Config>> {
        let (requests, inbox) = mpsc::channel::<(Case<S::Config>, bool)>();
        let (outbox, answers) = mpsc::channel();
        let heartbeat = Arc::new(Heartbeat::new());
        let (subject, limits, beat) = (self.subject, self.limits, Arc::clone(&heartbeat));
        let handle = spawn_abandonable("timelaw-case".to_owned(), move || {
            while let Ok((case, replay)) = inbox.recv() {
                let evaluation = evaluate_with(subject, &case, limits, replay, Some(&beat));
                if outbox.send(evaluation).is_err() {
                    return;
                }
            }
        })
        .ok()?;
        Some(Worker { requests, answers, heartbeat, handle, asked: 0 })
    }

    /// Waits for the worker's answer to its latest case, watching its heartbeat.
    fn answer(&self, worker: &Worker<S::Config>) -> Answer {
        let timeout = Duration::from_millis(self.timeout_ms);
        let poll = poll_interval(timeout);
        let mut watch = Watch::new(worker.heartbeat.beats(), worker.asked, poll);
        loop {
            match worker.answers.recv_timeout(poll) {
                Ok(evaluation) => return Answer::Done(Box::new(evaluation)),
                Err(RecvTimeoutError::Timeout)
                    if watch.stalled_for(worker.heartbeat.beats(), worker.asked) >= timeout =>
                {
                    return Answer::Hung;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Answer::Gone,
            }
        }
    }
}

impl<S: Subject + ?Sized> Drop for Bounded<'_, S> {
    fn drop(&mut self) {
        let worker = self.worker.get_mut().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(Worker { requests, handle, .. }) = worker {
            drop(requests); // Its loop ends at the next receive.
            let _ = handle.join(); // It borrows the subject: it must end before the borrow does.
        }
    }
}
