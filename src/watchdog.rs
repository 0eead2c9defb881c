//! The per-case watchdog: the one place timelaw reads the wall clock on the checking path, and it decides
//! only one thing: that a subject made no World call for [`Config::case_timeout_ms`](crate::Config)
//! milliseconds ("no progress for N ms", a `terminates` violation). A case that finishes is judged on
//! its trace alone, however long it took.
//!
//! # How a hang is seen
//! The case runs on a worker thread with a [`Heartbeat`]: the World counts every call on it. The
//! watching thread polls the count every quarter of the timeout; a count (and case) that stays the same
//! for the whole timeout is a hang.
//!
//! # How a hung thread is contained
//! A thread cannot be killed in-process. The watchdog abandons it ([`Heartbeat::abandon`]): it gets no
//! more work, its results are never read, and it parks for good at its next World call or when its
//! subject returns ([`crate::eval::evaluate_with`]). The search hands the rest of the hung worker's
//! cases to a new worker; the abandoned thread spins in the subject's code until the process ends (the
//! report says how many were abandoned). Shrinking a hang would hang again, so a hang is never
//! re-run in-process: its raw counterexample is written as found.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use timelaw_core::{Abort, Case, Heartbeat, Limits, Subject, Trace, TraceEnd};

use crate::eval::{evaluate, evaluate_with, Evaluation};

/// How often the watchdog looks, as a fraction of the timeout.
const POLLS_PER_TIMEOUT: u32 = 4;

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

/// [`evaluate`] under the watchdog: the case runs on its own thread, and when its subject makes no World
/// call for `timeout_ms` the thread is abandoned and the evaluation is [`hung`]. `timeout_ms == 0`
/// evaluates in place, unwatched. For the single-case paths (replay, import, the re-run of a finding);
/// the search watches its own workers ([`crate::runner`]).
pub fn evaluate_bounded<S: Subject + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    limits: Limits,
    replay: bool,
    timeout_ms: u64,
) -> Evaluation {
    if timeout_ms == 0 {
        return evaluate(subject, case, limits, replay);
    }
    let heartbeat = Arc::new(Heartbeat::new());
    let (sender, receiver) = mpsc::channel();
    let owned = case.clone(); // The thread owns its case: it may outlive the caller's.
    let beat = Arc::clone(&heartbeat);
    let spawned = spawn_abandonable("timelaw-case".to_owned(), move || {
        let evaluation = evaluate_with(subject, &owned, limits, replay, Some(&beat));
        let _ = sender.send(evaluation); // The caller stopped listening only after abandoning us.
    });
    let Ok(handle) = spawned else { return evaluate(subject, case, limits, replay) };
    let timeout = Duration::from_millis(timeout_ms);
    let mut watch = Watch::new(heartbeat.beats(), 0, poll_interval(timeout));
    loop {
        match receiver.recv_timeout(poll_interval(timeout)) {
            Ok(evaluation) => {
                let _ = handle.join(); // It sent its result and returns at once.
                return evaluation;
            }
            Err(RecvTimeoutError::Timeout) if watch.stalled_for(heartbeat.beats(), 0) >= timeout => {
                heartbeat.abandon();
                return hung(subject, case, timeout_ms);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => match handle.join() {
                // Panics are caught inside evaluate; anything else is the runner's own bug: pass it on.
                Err(payload) => std::panic::resume_unwind(payload),
                Ok(()) => return evaluate(subject, case, limits, replay),
            },
        }
    }
}
