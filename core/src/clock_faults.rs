//! Clock faults as schedule data: wall-clock jumps and failed clock reads ([`ClockFaults`], the
//! `clock` field of a [`crate::Schedule`]), and the state the World keeps to play them.
//!
//! # Wall jumps
//! A [`WallJump`] moves the wall clock by `by_ns` nanoseconds (negative: backwards) at a point of the
//! run ([`JumpAt`]): a monotonic instant, the midpoint of the n-th sleep, or the midpoint of the n-th
//! attempt (the start of a hanging attempt). The monotonic clock never jumps. A jump whose point is never
//! reached (a run with fewer sleeps) never happens. Jumps due at the same instant apply in schedule order,
//! each recorded as a `WallJump` event.
//!
//! # Failed reads
//! A [`ReadFailure`] makes the next `count` reads of one clock fail, starting at a monotonic instant or
//! after a number of reads of that clock ([`FailFrom`]). Every failed read is a `ClockReadFailed` event.
//!
//! # Fixtures
//! Both lists default to empty and are left out of JSON when empty, so schedules without clock faults
//! read and write exactly as before:
//! `"clock": {"wall_jumps": [{"at": {"sleep": 1}, "by_ns": -3600000000000}],
//! "read_failures": [{"clock": "monotonic", "from": {"after_reads": 2}, "count": 1}]}`.

use serde::{Deserialize, Serialize};

use crate::clock::{ClockKind, ClockReads, WallInstant};
use crate::duration_text;
use crate::time::{VDuration, VInstant};

/// Where in a run a wall jump happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum JumpAt {
    /// At this monotonic instant (or at the first clock event after it when nothing happens then).
    Instant(VInstant),
    /// Halfway through the n-th sleep of the run, from 1.
    Sleep(u32),
    /// Halfway through the n-th attempt of the run, from 1 (at the start of a hanging attempt).
    Attempt(u32),
}

/// One jump of the wall clock. Written `{"at": ..., "by": "-1.5s"}` (signed duration text,
/// [`duration_text::signed`]); the older `"by_ns": -1500000000` is read too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WallJump {
    /// When.
    pub at: JumpAt,
    /// By how much, in nanoseconds; negative moves the wall clock backwards.
    #[serde(rename = "by", alias = "by_ns", deserialize_with = "duration_text::signed::deserialize")]
    pub by_ns: i64,
}

impl Serialize for WallJump {
    /// `by` as text; in the integer form of [`duration_text::with_integer_nanos`] the older `by_ns`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("WallJump", 2)?;
        out.serialize_field("at", &self.at)?;
        if duration_text::integer_nanos() {
            out.serialize_field("by_ns", &self.by_ns)?;
        } else {
            out.serialize_field("by", &duration_text::signed::to_text(self.by_ns))?;
        }
        out.end()
    }
}

/// Where a run of failed reads starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum FailFrom {
    /// With the first read at or after this monotonic instant.
    Instant(VInstant),
    /// After this many reads of the clock (`0`: the very first read fails).
    AfterReads(u32),
}

/// "The next `count` reads of `clock` fail", from a point of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadFailure {
    /// The clock whose reads fail.
    pub clock: ClockKind,
    /// Where the failures start.
    pub from: FailFrom,
    /// How many consecutive reads of that clock fail.
    pub count: u32,
}

/// The clock faults of a case. See the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockFaults {
    /// Wall-clock jumps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wall_jumps: Vec<WallJump>,
    /// Failed reads.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_failures: Vec<ReadFailure>,
}

impl ClockFaults {
    /// `true` when there is no fault at all (the schedule's `clock` field is then left out of JSON).
    pub fn is_empty(&self) -> bool {
        self.wall_jumps.is_empty() && self.read_failures.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JumpState {
    Unresolved,
    Due(VInstant),
    Applied,
}

/// What the World keeps to play the clock faults of one run. Allocates only when the schedule has faults.
#[derive(Clone, Debug, Default)]
pub(crate) struct ClockState {
    offset_ns: i128,
    jumps: Vec<JumpState>,
    failure_hits: Vec<u32>,
    reads: ClockReads,
}

impl ClockState {
    pub(crate) fn new(faults: &ClockFaults) -> ClockState {
        let jumps = faults
            .wall_jumps
            .iter()
            .map(|jump| match jump.at {
                JumpAt::Instant(at) => JumpState::Due(at),
                _ => JumpState::Unresolved,
            })
            .collect();
        ClockState {
            offset_ns: 0,
            jumps,
            failure_hits: vec![0; faults.read_failures.len()],
            reads: ClockReads::default(),
        }
    }

    /// Resolves the jumps "during attempt `n`", which runs from `start` for `took` (`None`: hangs).
    pub(crate) fn on_attempt(&mut self, faults: &ClockFaults, n: u32, start: VInstant, took: Option<VDuration>) {
        let at = start.saturating_add(took.unwrap_or(VDuration::ZERO).div(2));
        self.resolve(faults, |jump| jump == JumpAt::Attempt(n), at);
    }

    /// Resolves the jumps "during sleep `n`", which runs from `start` for `duration`.
    pub(crate) fn on_sleep(&mut self, faults: &ClockFaults, n: u32, start: VInstant, duration: VDuration) {
        self.resolve(faults, |jump| jump == JumpAt::Sleep(n), start.saturating_add(duration.div(2)));
    }

    fn resolve(&mut self, faults: &ClockFaults, matches: impl Fn(JumpAt) -> bool, at: VInstant) {
        for (state, jump) in self.jumps.iter_mut().zip(&faults.wall_jumps) {
            if *state == JumpState::Unresolved && matches(jump.at) {
                *state = JumpState::Due(at);
            }
        }
    }

    /// The earliest jump due at or before `upto` (schedule order among equals): its index and instant.
    pub(crate) fn next_due(&self, upto: VInstant) -> Option<(usize, VInstant)> {
        let mut best: Option<(usize, VInstant)> = None;
        for (index, state) in self.jumps.iter().enumerate() {
            if let JumpState::Due(at) = *state {
                if at <= upto && best.is_none_or(|(_, best_at)| at < best_at) {
                    best = Some((index, at));
                }
            }
        }
        best
    }

    /// Applies jump `index`; returns its size.
    pub(crate) fn apply(&mut self, faults: &ClockFaults, index: usize) -> i64 {
        let by_ns = faults.wall_jumps.get(index).map_or(0, |jump| jump.by_ns);
        if let Some(state) = self.jumps.get_mut(index) {
            *state = JumpState::Applied;
        }
        self.offset_ns = self.offset_ns.saturating_add(i128::from(by_ns));
        by_ns
    }

    /// The wall instant at monotonic instant `now` with the jumps applied so far.
    pub(crate) fn wall(&self, now: VInstant) -> WallInstant {
        WallInstant::at(now, self.offset_ns)
    }

    /// Counts a read of `clock` at `now`; `true` when the schedule makes it fail.
    #[inline]
    pub(crate) fn read(&mut self, faults: &ClockFaults, clock: ClockKind, now: VInstant) -> bool {
        let before = self.reads.of(clock);
        self.reads.bump(clock);
        if faults.read_failures.is_empty() {
            return false; // The common path.
        }
        let mut failed = false;
        for (hits, rule) in self.failure_hits.iter_mut().zip(&faults.read_failures) {
            let started = match rule.from {
                FailFrom::Instant(at) => now >= at,
                FailFrom::AfterReads(reads) => before >= reads,
            };
            if rule.clock == clock && started && *hits < rule.count {
                *hits += 1;
                failed = true;
            }
        }
        failed
    }

    pub(crate) fn reads(&self) -> ClockReads {
        self.reads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(clock: ClockKind, from: FailFrom, count: u32) -> ClockFaults {
        ClockFaults { wall_jumps: vec![], read_failures: vec![ReadFailure { clock, from, count }] }
    }

    #[track_caller]
    fn check(faults: ClockFaults, reads: &[(ClockKind, u64)], expected: &[bool]) {
        let mut state = ClockState::new(&faults);
        let failed: Vec<bool> =
            reads.iter().map(|&(clock, at)| state.read(&faults, clock, VInstant::from_nanos(at))).collect();
        assert_eq!(failed, expected);
    }

    #[test]
    fn read_failures_follow_their_rule() {
        use ClockKind::{Monotonic as M, Wall as W};
        check(failing(M, FailFrom::AfterReads(0), 1), &[(M, 0), (M, 0)], &[true, false]);
        check(
            failing(M, FailFrom::AfterReads(1), 2),
            &[(M, 0), (W, 0), (M, 0), (M, 0), (M, 0)],
            &[false, false, true, true, false],
        );
        check(
            failing(W, FailFrom::Instant(VInstant::from_nanos(5)), 1),
            &[(W, 4), (M, 5), (W, 5), (W, 6)],
            &[false, false, true, false],
        );
        check(failing(W, FailFrom::AfterReads(0), 0), &[(W, 0)], &[false]);
    }

    #[test]
    fn jumps_resolve_and_apply_in_order() {
        let jump = |at, by_ns| WallJump { at, by_ns };
        let faults = ClockFaults {
            wall_jumps: vec![
                jump(JumpAt::Sleep(1), -10),
                jump(JumpAt::Instant(VInstant::from_nanos(3)), 5),
                jump(JumpAt::Attempt(2), 1),
            ],
            read_failures: vec![],
        };
        let mut state = ClockState::new(&faults);
        assert_eq!(state.next_due(VInstant::from_nanos(2)), None);
        assert_eq!(state.next_due(VInstant::from_nanos(3)), Some((1, VInstant::from_nanos(3))));
        state.on_sleep(&faults, 1, VInstant::EPOCH, VDuration::from_nanos(4));
        assert_eq!(state.next_due(VInstant::from_nanos(9)), Some((0, VInstant::from_nanos(2))));
        assert_eq!(state.apply(&faults, 0), -10);
        assert_eq!(state.apply(&faults, 1), 5);
        state.on_attempt(&faults, 2, VInstant::from_nanos(9), None);
        assert_eq!(state.next_due(VInstant::from_nanos(9)), Some((2, VInstant::from_nanos(9))));
        assert_eq!(state.wall(VInstant::from_nanos(10)), WallInstant::START.saturating_add_nanos(5));
    }

    #[test]
    fn empty_faults_stay_out_of_json() {
        assert!(ClockFaults::default().is_empty());
        let faults = failing(ClockKind::Wall, FailFrom::AfterReads(2), 1);
        let json = serde_json::to_string(&faults).unwrap();
        assert_eq!(json, r#"{"read_failures":[{"clock":"wall","from":{"after_reads":2},"count":1}]}"#);
        assert_eq!(serde_json::from_str::<ClockFaults>(&json).unwrap(), faults);
    }
}
