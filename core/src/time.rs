//! Virtual time: [`VDuration`] and [`VInstant`], nanoseconds on `u64`.
//!
//! Virtual time never comes from the wall clock. An instant is the number of nanoseconds since the start of
//! one run (the epoch, `VInstant::EPOCH`); only the [`World`](crate::World) moves its clock, and only forward.
//!
//! # Overflow
//! All arithmetic saturates. `u64::MAX` nanoseconds (about 584 years) is "the end of time": a duration of
//! `VDuration::MAX` means "forever", an instant of `VInstant::END` is never reached by a finite run, and
//! adding anything to it stays there. Converting a `std::time::Duration` longer than `VDuration::MAX`
//! (including `std::time::Duration::MAX`) gives `VDuration::MAX`; it never panics.
//!
//! # Tie rule
//! Two events may share an instant. They are then ordered by their sequence number in the trace: the event
//! recorded first happened first. Nothing else breaks ties.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::duration_text;

const NANOS_PER_MICRO: u64 = 1_000;
const NANOS_PER_MILLI: u64 = 1_000_000;
const NANOS_PER_SEC: u64 = 1_000_000_000;

/// A span of virtual time in nanoseconds. Serialized as exact text (`"15ms"`, `"max"`,
/// [`duration_text`]); an integer of nanoseconds (the older form) is read too.
///
/// ```
/// use timelaw_core::VDuration;
/// let d = VDuration::from_millis(5).saturating_mul(3);
/// assert_eq!(d, VDuration::from_millis(15));
/// assert_eq!(VDuration::MAX.saturating_add(d), VDuration::MAX);
/// assert_eq!(d.to_string(), "15ms");
/// assert_eq!(serde_json::to_string(&VDuration::from_micros(1500)).unwrap(), "\"1.5ms\"");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VDuration(u64);

impl VDuration {
    /// No time at all.
    pub const ZERO: VDuration = VDuration(0);
    /// The longest duration: "forever".
    pub const MAX: VDuration = VDuration(u64::MAX);

    /// A duration of `nanos` nanoseconds.
    pub const fn from_nanos(nanos: u64) -> VDuration {
        VDuration(nanos)
    }
    /// A duration of `micros` microseconds, saturating.
    pub const fn from_micros(micros: u64) -> VDuration {
        VDuration(micros.saturating_mul(NANOS_PER_MICRO))
    }
    /// A duration of `millis` milliseconds, saturating.
    pub const fn from_millis(millis: u64) -> VDuration {
        VDuration(millis.saturating_mul(NANOS_PER_MILLI))
    }
    /// A duration of `secs` seconds, saturating.
    pub const fn from_secs(secs: u64) -> VDuration {
        VDuration(secs.saturating_mul(NANOS_PER_SEC))
    }
    /// Whole nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Whole milliseconds, rounded down.
    pub const fn as_millis(self) -> u64 {
        self.0 / NANOS_PER_MILLI
    }
    /// `true` for [`VDuration::ZERO`].
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// `self + other`, saturating at [`VDuration::MAX`].
    pub const fn saturating_add(self, other: VDuration) -> VDuration {
        VDuration(self.0.saturating_add(other.0))
    }
    /// `self - other`, saturating at zero.
    pub const fn saturating_sub(self, other: VDuration) -> VDuration {
        VDuration(self.0.saturating_sub(other.0))
    }
    /// `self + other`, or `None` on overflow.
    pub const fn checked_add(self, other: VDuration) -> Option<VDuration> {
        match self.0.checked_add(other.0) {
            Some(nanos) => Some(VDuration(nanos)),
            None => None,
        }
    }
    /// `self * factor`, saturating at [`VDuration::MAX`].
    pub const fn saturating_mul(self, factor: u64) -> VDuration {
        VDuration(self.0.saturating_mul(factor))
    }
    /// `self / divisor`, rounded down; dividing by zero gives [`VDuration::MAX`] ("forever").
    pub const fn div(self, divisor: u64) -> VDuration {
        match self.0.checked_div(divisor) {
            Some(nanos) => VDuration(nanos),
            None => VDuration::MAX,
        }
    }
    /// The smaller of the two.
    pub fn min(self, other: VDuration) -> VDuration {
        Ord::min(self, other)
    }
    /// The larger of the two.
    pub fn max(self, other: VDuration) -> VDuration {
        Ord::max(self, other)
    }
    /// Converts to a `std::time::Duration` (always exact).
    pub const fn to_std(self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.0)
    }
    /// Converts from a `std::time::Duration`, saturating at [`VDuration::MAX`].
    pub fn from_std(duration: std::time::Duration) -> VDuration {
        VDuration(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX))
    }
}

impl From<std::time::Duration> for VDuration {
    fn from(duration: std::time::Duration) -> VDuration {
        VDuration::from_std(duration)
    }
}

impl From<VDuration> for std::time::Duration {
    fn from(duration: VDuration) -> std::time::Duration {
        duration.to_std()
    }
}

impl fmt::Display for VDuration {
    /// The largest unit (`s`, `ms`, `us`, `ns`) that represents the value exactly; `forever` for `MAX`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nanos = self.0;
        if nanos == u64::MAX {
            return f.write_str("forever");
        }
        if nanos == 0 {
            return f.write_str("0ms");
        }
        for (unit, name) in [(NANOS_PER_SEC, "s"), (NANOS_PER_MILLI, "ms"), (NANOS_PER_MICRO, "us")] {
            if nanos.is_multiple_of(unit) {
                return write!(f, "{}{name}", nanos / unit);
            }
        }
        write!(f, "{nanos}ns")
    }
}

impl fmt::Debug for VDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A point in virtual time: nanoseconds since the start of the run. Serialized as the exact text of the
/// time since the epoch (`"1.5s"`, `"max"` for [`VInstant::END`], [`duration_text`]); an integer of
/// nanoseconds is read too.
///
/// ```
/// use timelaw_core::{VDuration, VInstant};
/// let t = VInstant::EPOCH.saturating_add(VDuration::from_millis(300));
/// assert_eq!(t.duration_since(VInstant::EPOCH), VDuration::from_millis(300));
/// assert_eq!(VInstant::END.saturating_add(VDuration::from_secs(1)), VInstant::END);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VInstant(u64);

impl VInstant {
    /// The start of every run.
    pub const EPOCH: VInstant = VInstant(0);
    /// The end of time; saturated arithmetic stops here.
    pub const END: VInstant = VInstant(u64::MAX);

    /// The instant `nanos` nanoseconds after the epoch.
    pub const fn from_nanos(nanos: u64) -> VInstant {
        VInstant(nanos)
    }
    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// The time since the epoch as a duration.
    pub const fn since_epoch(self) -> VDuration {
        VDuration(self.0)
    }
    /// `self + duration`, saturating at [`VInstant::END`].
    pub const fn saturating_add(self, duration: VDuration) -> VInstant {
        VInstant(self.0.saturating_add(duration.0))
    }
    /// `self + duration`, or `None` past the end of time.
    pub const fn checked_add(self, duration: VDuration) -> Option<VInstant> {
        match self.0.checked_add(duration.0) {
            Some(nanos) => Some(VInstant(nanos)),
            None => None,
        }
    }
    /// Time elapsed from `earlier` to `self`; zero when `earlier` is later.
    pub const fn duration_since(self, earlier: VInstant) -> VDuration {
        VDuration(self.0.saturating_sub(earlier.0))
    }
}

impl fmt::Display for VInstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == u64::MAX {
            return f.write_str("t=end");
        }
        write!(f, "t={}", VDuration(self.0))
    }
}

impl fmt::Debug for VInstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for VDuration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        duration_text::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for VDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<VDuration, D::Error> {
        duration_text::deserialize(deserializer)
    }
}

impl Serialize for VInstant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        duration_text::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for VInstant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<VInstant, D::Error> {
        duration_text::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_duration_max_saturates() {
        assert_eq!(VDuration::from_std(std::time::Duration::MAX), VDuration::MAX);
        assert_eq!(VDuration::from(std::time::Duration::from_millis(7)), VDuration::from_millis(7));
        assert_eq!(VDuration::from_millis(7).to_std(), std::time::Duration::from_millis(7));
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(VDuration::MAX.saturating_mul(2), VDuration::MAX);
        assert_eq!(VDuration::ZERO.saturating_sub(VDuration::from_nanos(1)), VDuration::ZERO);
        assert_eq!(VDuration::MAX.checked_add(VDuration::from_nanos(1)), None);
        assert_eq!(VDuration::from_secs(u64::MAX), VDuration::MAX);
        assert_eq!(VDuration::from_millis(10).div(0), VDuration::MAX);
        assert_eq!(VInstant::END.checked_add(VDuration::from_nanos(1)), None);
        assert_eq!(VInstant::EPOCH.duration_since(VInstant::END), VDuration::ZERO);
    }

    #[test]
    fn display_picks_exact_unit() {
        let cases = [
            (VDuration::ZERO, "0ms"),
            (VDuration::from_secs(2), "2s"),
            (VDuration::from_millis(1500), "1500ms"),
            (VDuration::from_micros(3), "3us"),
            (VDuration::from_nanos(7), "7ns"),
            (VDuration::MAX, "forever"),
        ];
        for (duration, text) in cases {
            assert_eq!(duration.to_string(), text);
        }
    }
}
