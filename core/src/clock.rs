//! The virtual wall clock: [`WallInstant`], which clock a read is of ([`ClockKind`]), the value of a failed
//! read ([`ReadFailed`]) and the read counts a trace keeps ([`ClockReads`]).
//!
//! # Two clocks
//! The World has a monotonic clock ([`VInstant`], nanoseconds since the start of the run, never backwards)
//! and a wall clock ([`WallInstant`], signed nanoseconds since the Unix epoch, like `SystemTime`). The wall
//! clock starts at [`WallInstant::START`] (2026-01-01T00:00:00Z) when the monotonic clock is at
//! [`VInstant::EPOCH`] and advances with it, except where the schedule makes it jump
//! ([`crate::clock_faults`]): forwards or backwards, by 1 ns up to years, before the Unix epoch too.
//!
//! # Range and overflow
//! A wall instant is an `i64` of nanoseconds: from about 1677-09-21 to 2262-04-11. Arithmetic saturates at
//! both ends ([`WallInstant::MIN`], [`WallInstant::MAX`]); nothing panics.
//!
//! # Converting for adapters
//! [`WallInstant::to_system_time`] and [`WallInstant::from_system_time`] convert to and from
//! `std::time::SystemTime` (saturating), for crates that take a `SystemTime` argument. Converting never
//! reads the real clock.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::time::{VDuration, VInstant};

const NANOS_PER_SEC: i128 = 1_000_000_000;

/// A virtual wall-clock instant: signed nanoseconds since the Unix epoch (1970-01-01T00:00:00Z), so it
/// can lie before the epoch. Serialized as a plain integer of nanoseconds.
///
/// ```
/// use timelaw_core::{VDuration, WallInstant};
/// let start = WallInstant::START;
/// assert_eq!(start.to_string(), "2026-01-01T00:00:00Z");
/// let later = start.saturating_add(VDuration::from_millis(5));
/// assert_eq!(later.duration_since(start), Ok(VDuration::from_millis(5)));
/// assert_eq!(start.duration_since(later), Err(VDuration::from_millis(5)));
/// assert_eq!(WallInstant::from_system_time(later.to_system_time()), later);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WallInstant(i64);

impl WallInstant {
    /// 1970-01-01T00:00:00Z.
    pub const UNIX_EPOCH: WallInstant = WallInstant(0);
    /// Where every run's wall clock starts: 2026-01-01T00:00:00Z (1,767,225,600 s after the Unix epoch).
    pub const START: WallInstant = WallInstant(1_767_225_600 * 1_000_000_000);
    /// The earliest representable instant (about 1677-09-21).
    pub const MIN: WallInstant = WallInstant(i64::MIN);
    /// The latest representable instant (about 2262-04-11).
    pub const MAX: WallInstant = WallInstant(i64::MAX);

    /// The instant `nanos` nanoseconds after (negative: before) the Unix epoch.
    pub const fn from_unix_nanos(nanos: i64) -> WallInstant {
        WallInstant(nanos)
    }
    /// Nanoseconds since the Unix epoch (negative before it).
    pub const fn as_unix_nanos(self) -> i64 {
        self.0
    }
    /// `self + nanos` (signed), saturating at [`WallInstant::MIN`] and [`WallInstant::MAX`].
    pub fn saturating_add_nanos(self, nanos: i128) -> WallInstant {
        let sum = i128::from(self.0).saturating_add(nanos);
        WallInstant(i64::try_from(sum).unwrap_or(if sum < 0 { i64::MIN } else { i64::MAX }))
    }
    /// `self + duration`, saturating.
    pub fn saturating_add(self, duration: VDuration) -> WallInstant {
        self.saturating_add_nanos(i128::from(duration.as_nanos()))
    }
    /// The wall instant of monotonic instant `at` when the jumps so far add up to `offset_nanos`.
    pub fn at(at: VInstant, offset_nanos: i128) -> WallInstant {
        WallInstant::START.saturating_add_nanos(i128::from(at.as_nanos()).saturating_add(offset_nanos))
    }
    /// Like `SystemTime::duration_since`: `Ok(self - earlier)`, or `Err(earlier - self)` when `earlier` is
    /// later (the wall clock went backwards). Saturates at [`VDuration::MAX`].
    pub fn duration_since(self, earlier: WallInstant) -> Result<VDuration, VDuration> {
        let difference = i128::from(self.0) - i128::from(earlier.0);
        let magnitude = VDuration::from_nanos(u64::try_from(difference.unsigned_abs()).unwrap_or(u64::MAX));
        if difference >= 0 {
            Ok(magnitude)
        } else {
            Err(magnitude)
        }
    }
    /// The `SystemTime` of this instant (no real clock is read).
    pub fn to_system_time(self) -> SystemTime {
        let magnitude = Duration::from_nanos(self.0.unsigned_abs());
        if self.0 >= 0 {
            UNIX_EPOCH + magnitude
        } else {
            UNIX_EPOCH - magnitude
        }
    }
    /// The wall instant of a `SystemTime`, saturating outside the representable range.
    pub fn from_system_time(time: SystemTime) -> WallInstant {
        let nanos = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i128::try_from(after.as_nanos()).unwrap_or(i128::MAX),
            Err(before) => -i128::try_from(before.duration().as_nanos()).unwrap_or(i128::MAX),
        };
        WallInstant::UNIX_EPOCH.saturating_add_nanos(nanos)
    }
}

impl fmt::Display for WallInstant {
    /// RFC 3339 in UTC, with the fraction only when it is not zero: `2026-01-01T00:00:00.005Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nanos = i128::from(self.0);
        let secs = nanos.div_euclid(NANOS_PER_SEC);
        let fraction = nanos.rem_euclid(NANOS_PER_SEC);
        let days = secs.div_euclid(86_400);
        let of_day = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        write!(f, "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}", of_day / 3600, of_day / 60 % 60, of_day % 60)?;
        if fraction != 0 {
            let digits = format!("{fraction:09}");
            write!(f, ".{}", digits.trim_end_matches('0'))?;
        }
        f.write_str("Z")
    }
}

impl fmt::Debug for WallInstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Year, month and day of the civil (proleptic Gregorian) date `days` after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i128) -> (i128, i128, i128) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i128::from(month <= 2);
    (year, month, day)
}

/// Which of the World's two clocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// The monotonic clock ([`crate::World::now`], [`crate::World::read_now`]): never jumps.
    #[default]
    Monotonic,
    /// The wall clock ([`crate::World::wall_now`]): jumps where the schedule says so.
    Wall,
}

impl ClockKind {
    /// `monotonic` or `wall`.
    pub const fn name(self) -> &'static str {
        match self {
            ClockKind::Monotonic => "monotonic",
            ClockKind::Wall => "wall",
        }
    }
}

/// A clock read that failed because the schedule said so (like `SystemTime::duration_since` erring, or an
/// unreadable clock source). The subject decides what it means; see [`crate::ClockContract`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("the {0:?} clock could not be read (a scheduled read failure)")]
pub struct ReadFailed(pub ClockKind);

/// How often each clock was read through the World (failed reads included; they are also events).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClockReads {
    /// Reads of the monotonic clock ([`crate::World::read_now`]).
    pub monotonic: u32,
    /// Reads of the wall clock ([`crate::World::wall_now`]).
    pub wall: u32,
}

impl ClockReads {
    /// The count for `clock`.
    pub const fn of(self, clock: ClockKind) -> u32 {
        match clock {
            ClockKind::Monotonic => self.monotonic,
            ClockKind::Wall => self.wall,
        }
    }
    pub(crate) fn bump(&mut self, clock: ClockKind) {
        let count = match clock {
            ClockKind::Monotonic => &mut self.monotonic,
            ClockKind::Wall => &mut self.wall,
        };
        *count = count.saturating_add(1);
    }
}

/// What a subject does when a clock read fails, per its docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailedRead {
    /// "An unreadable clock counts as an expired limit": no new attempt starts in that call, and the call
    /// returns the last attempt's real outcome (an error before any attempt).
    #[default]
    Expired,
    /// "The read is retried": the subject goes on; only the kept outcome is promised.
    RetryRead,
    /// "The call gives up with an error": no new attempt starts and the call returns an error.
    GiveUp,
}

/// Which clock each limit is measured on, and what a failed clock read means: the `clocks` group of a
/// [`crate::Contract`]. Each field encodes a doc sentence like "the deadline is measured on a monotonic
/// clock" or "max_elapsed_time is measured with `SystemTime`".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockContract {
    /// The clock the call's deadline is measured on.
    pub deadline: ClockKind,
    /// The clock an elapsed-time limit ("no retry starts later than X after the call started") is
    /// measured on.
    pub elapsed_limit: ClockKind,
    /// The clock the sleep budget is measured on.
    pub sleep_budget: ClockKind,
    /// The clock a circuit breaker's open period is measured on.
    pub circuit_open: ClockKind,
    /// The clock a retry budget's time window is measured on.
    pub budget_window: ClockKind,
    /// What a failed read of a clock some limit is measured on means.
    pub on_failed_read: OnFailedRead,
}

impl ClockContract {
    /// Every limit on the monotonic clock; a failed read counts as expired.
    pub const MONOTONIC: ClockContract = ClockContract {
        deadline: ClockKind::Monotonic,
        elapsed_limit: ClockKind::Monotonic,
        sleep_budget: ClockKind::Monotonic,
        circuit_open: ClockKind::Monotonic,
        budget_window: ClockKind::Monotonic,
        on_failed_read: OnFailedRead::Expired,
    };

    /// `true` when some limit is measured on `clock`.
    pub fn measures_on(self, clock: ClockKind) -> bool {
        [self.deadline, self.elapsed_limit, self.sleep_budget, self.circuit_open, self.budget_window].contains(&clock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(nanos: i64, text: &str) {
        assert_eq!(WallInstant::from_unix_nanos(nanos).to_string(), text);
    }

    #[test]
    fn display_is_rfc3339() {
        check(0, "1970-01-01T00:00:00Z");
        check(WallInstant::START.as_unix_nanos(), "2026-01-01T00:00:00Z");
        check(WallInstant::START.as_unix_nanos() + 5_000_000, "2026-01-01T00:00:00.005Z");
        check(-1, "1969-12-31T23:59:59.999999999Z");
        check(951_782_400 * 1_000_000_000, "2000-02-29T00:00:00Z");
        check(i64::MIN, "1677-09-21T00:12:43.145224192Z");
        check(i64::MAX, "2262-04-11T23:47:16.854775807Z");
    }

    #[test]
    fn arithmetic_saturates_and_goes_before_the_epoch() {
        assert_eq!(WallInstant::MAX.saturating_add(VDuration::MAX), WallInstant::MAX);
        assert_eq!(WallInstant::MIN.saturating_add_nanos(-1), WallInstant::MIN);
        let before = WallInstant::UNIX_EPOCH.saturating_add_nanos(-3);
        assert_eq!(before.duration_since(WallInstant::UNIX_EPOCH), Err(VDuration::from_nanos(3)));
        assert_eq!(WallInstant::MAX.duration_since(WallInstant::MIN), Ok(VDuration::MAX));
        assert_eq!(WallInstant::at(VInstant::from_nanos(7), -7), WallInstant::START);
    }

    #[test]
    fn system_time_round_trips_on_both_sides_of_the_epoch() {
        for nanos in [-1_000_000_007, -1, 0, 1, WallInstant::START.as_unix_nanos()] {
            let wall = WallInstant::from_unix_nanos(nanos);
            assert_eq!(WallInstant::from_system_time(wall.to_system_time()), wall);
        }
    }
}
