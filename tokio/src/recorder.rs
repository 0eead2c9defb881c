//! The recorder: a `'static + Send` handle through which code that cannot hold the World (a backon
//! `Sleeper`, a tokio-retry2 `Notify`, a strategy iterator) records sleeps and notifications. Entries
//! carry tokio's instant and are moved into the World, in order, before the World records anything else.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use timelaw_core::VDuration;
use tokio::time::Instant;

/// What was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Logged {
    /// `SleepRequested`.
    Sleep(VDuration),
    /// `Notify`.
    Notify(VDuration),
    /// `SleepClamped`: tokio clamped the sleep just recorded to this.
    Clamped(VDuration),
}

/// The longest sleep tokio makes: `tokio::time::sleep` (and `Interval`) clamp every duration to 30
/// years of 365 days ("roughly 30 years from now", tokio's `safe_delay`), so a longer sleep wakes early.
pub const TOKIO_SLEEP_MAX: Duration = Duration::from_secs(86_400 * 365 * 30);

/// One recorded entry and tokio's instant when it was recorded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) at: Instant,
    pub(crate) kind: Logged,
}

/// Records sleeps and notifications for the World (see the module docs). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    entries: Arc<Mutex<Vec<Entry>>>,
}

impl Recorder {
    /// Records that the subject is about to sleep `duration` with `tokio::time::sleep`; a duration past
    /// [`TOKIO_SLEEP_MAX`] is recorded as asked and then as clamped (tokio sleeps at most that long).
    pub fn record_sleep(&self, duration: Duration) {
        self.push(Logged::Sleep(VDuration::from_std(duration)));
        if duration > TOKIO_SLEEP_MAX {
            self.push(Logged::Clamped(VDuration::from_std(TOKIO_SLEEP_MAX)));
        }
    }

    /// Records that the subject notified its user that it will retry after `delay`.
    pub fn notify(&self, delay: Duration) {
        self.push(Logged::Notify(VDuration::from_std(delay)));
    }

    /// Records the sleep and returns tokio's sleep for it (on the paused clock, nothing real waits).
    pub fn sleep(&self, duration: Duration) -> tokio::time::Sleep {
        self.record_sleep(duration);
        tokio::time::sleep(duration)
    }

    /// Takes every entry recorded so far, oldest first.
    pub(crate) fn drain(&self) -> Vec<Entry> {
        std::mem::take(&mut *self.lock())
    }

    fn push(&self, kind: Logged) {
        self.lock().push(Entry { at: Instant::now(), kind });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        // A panic while pushing leaves a complete Vec behind, so a poisoned lock is still usable.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
