//! The heartbeat: how a watchdog outside a run sees that the subject still makes progress.
//!
//! A [`World`](crate::World) given a heartbeat ([`World::with_heartbeat`](crate::World::with_heartbeat))
//! counts every step of progress on it: every event it records and every move of its clock (one relaxed
//! atomic add). Clock reads and randomness draws are World calls but no progress: a loop of reads
//! records nothing and never moves the clock (the World stops it at
//! [`Limits::idle_calls_max`](crate::Limits::idle_calls_max); a watchdog sees it as stalled). A watchdog
//! thread reads the count; a count that stays the same while a case runs means the subject makes no
//! progress. Nothing here reads a clock: deciding how long "too long" is belongs to the watchdog, never
//! to the checking path.
//!
//! # Abandonment
//! A watchdog that gives up on a run calls [`Heartbeat::abandon`]. From then on the World parks its
//! thread forever at the subject's next World call, so a subject that was only slow never returns into
//! the code that gave up on it. Until it parks, the thread counts in [`spinning_threads`]: the abandoned
//! threads of this process that still run the subject's code (a loop in pure code never parks).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Abandoned threads of this process that have not parked yet (see [`spinning_threads`]).
static SPINNING: AtomicU64 = AtomicU64::new(0);

/// How many threads of this process were abandoned by a watchdog and have not parked yet: they still
/// run a subject's code (a loop in pure code, or a slow computation that will park at its next World
/// call). Parked threads cost no CPU and are not counted.
pub fn spinning_threads() -> u64 {
    SPINNING.load(Ordering::Acquire)
}

/// A counter of progress (events recorded, clock moves), shared with a watchdog. See the module docs.
#[derive(Debug, Default)]
pub struct Heartbeat {
    beats: AtomicU64,
    abandoned: AtomicBool,
    parked: AtomicBool,
}

impl Heartbeat {
    /// A heartbeat at zero, not abandoned.
    pub fn new() -> Heartbeat {
        Heartbeat::default()
    }

    /// Counts one step of progress (an event recorded or a clock move); parks the thread forever when
    /// the run was abandoned.
    #[inline]
    pub fn beat(&self) {
        self.beats.fetch_add(1, Ordering::Relaxed);
        self.call();
    }

    /// A World call that may make no progress (a clock read, a randomness draw): counts nothing, but
    /// parks the thread forever when the run was abandoned.
    #[inline]
    pub fn call(&self) {
        if self.abandoned.load(Ordering::Acquire) {
            self.park();
        }
    }

    /// The steps of progress counted so far.
    pub fn beats(&self) -> u64 {
        self.beats.load(Ordering::Relaxed)
    }

    /// Gives up on the run: its thread parks at its next World call (until then it counts in
    /// [`spinning_threads`]). A second call changes nothing.
    pub fn abandon(&self) {
        // Counted before the flag is published, so the thread that sees the flag (and parks) always
        // finds its own count to take back.
        SPINNING.fetch_add(1, Ordering::AcqRel);
        if self.abandoned.swap(true, Ordering::AcqRel) {
            SPINNING.fetch_sub(1, Ordering::AcqRel); // Abandoned already: counted once.
        }
    }

    /// Whether [`Heartbeat::abandon`] was called.
    pub fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Acquire)
    }

    /// Parks the calling thread of an abandoned run for good (it no longer counts in
    /// [`spinning_threads`]). For the run's own thread only, once the watchdog abandoned it.
    ///
    /// # Panics
    /// Never returns; asserts that the run was abandoned (a run that was not must never park).
    #[cold]
    pub fn park(&self) -> ! {
        assert!(self.is_abandoned(), "only an abandoned run parks");
        if !self.parked.swap(true, Ordering::AcqRel) {
            SPINNING.fetch_sub(1, Ordering::AcqRel);
        }
        park_forever()
    }
}

/// Parks the calling thread for good: an abandoned run never comes back.
#[cold]
pub fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

#[cfg(test)]
mod tests {
    use super::{spinning_threads, Heartbeat};

    /// One test: the count of spinning threads is shared by the whole process.
    #[test]
    fn counts_beats_and_counts_an_abandoned_run_as_spinning_once() {
        let heartbeat = Heartbeat::new();
        heartbeat.beat();
        heartbeat.call();
        heartbeat.beat();
        assert_eq!(heartbeat.beats(), 2, "a call that makes no progress is not a beat");
        assert!(!heartbeat.is_abandoned());
        let before = spinning_threads();
        heartbeat.abandon();
        heartbeat.abandon();
        assert!(heartbeat.is_abandoned());
        assert_eq!(spinning_threads(), before + 1, "until its thread parks at its next World call");
    }
}
