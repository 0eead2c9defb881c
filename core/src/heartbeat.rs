//! The heartbeat: how a watchdog outside a run sees that the subject still makes World calls.
//!
//! A [`World`](crate::World) given a heartbeat ([`World::with_heartbeat`](crate::World::with_heartbeat))
//! counts every event it records and every randomness or clock read on it (one relaxed atomic add). A
//! watchdog thread reads the count; a count that stays the same while a case runs means the subject
//! makes no World calls. Nothing here reads a clock: deciding how long "too long" is belongs to the
//! watchdog, never to the checking path.
//!
//! # Abandonment
//! A watchdog that gives up on a run calls [`Heartbeat::abandon`]. From then on the World parks its
//! thread forever at the subject's next World call, so a subject that was only slow never returns into
//! the code that gave up on it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A counter of World calls, shared with a watchdog. See the module docs.
#[derive(Debug, Default)]
pub struct Heartbeat {
    beats: AtomicU64,
    abandoned: AtomicBool,
}

impl Heartbeat {
    /// A heartbeat at zero, not abandoned.
    pub fn new() -> Heartbeat {
        Heartbeat::default()
    }

    /// Counts one World call; parks the thread forever when the run was abandoned.
    #[inline]
    pub fn beat(&self) {
        self.beats.fetch_add(1, Ordering::Relaxed);
        if self.abandoned.load(Ordering::Relaxed) {
            park_forever();
        }
    }

    /// The World calls counted so far.
    pub fn beats(&self) -> u64 {
        self.beats.load(Ordering::Relaxed)
    }

    /// Gives up on the run: its thread parks at its next World call.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }

    /// Whether [`Heartbeat::abandon`] was called.
    pub fn is_abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
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
    use super::Heartbeat;

    #[test]
    fn counts_beats_and_remembers_abandonment() {
        let heartbeat = Heartbeat::new();
        heartbeat.beat();
        heartbeat.beat();
        assert_eq!(heartbeat.beats(), 2);
        assert!(!heartbeat.is_abandoned());
        heartbeat.abandon();
        assert!(heartbeat.is_abandoned());
    }
}
