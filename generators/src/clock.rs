//! The clock-fault domain: wall-clock jumps and failed clock reads ([`describe_clock_faults`]), drawn at
//! the end of a schedule so that a case without clock faults reads the same answers as before they
//! existed.
//!
//! # Ranges
//! | what | range |
//! |---|---|
//! | clock faults at all | with [`Swarm::clock_faults`], one case in two |
//! | wall jumps | 0 to [`WALL_JUMPS_MAX`] |
//! | where | an instant (0 to 60 s, or the deadline), the n-th sleep or the n-th attempt (n in 1..=4) |
//! | size | 0 to [`WALL_JUMP_MAX`] (100 years) either way, or 1 ns more than the time elapsed at the jump |
//! | failed-read rules | 0 to [`READ_FAILURES_MAX`], each failing 1 to 3 reads of one clock, from an instant
//! (0 to 60 s) or after 0 to 4 reads |
//!
//! # Boundary values
//! With [`Swarm::boundary_percent`]: a jump exactly at the deadline, and a jump larger than the monotonic
//! time elapsed when it happens (backwards, it moves the wall clock before the run's start).

use timelaw_core::{ClockFaults, ClockKind, Contract, FailFrom, JumpAt, ReadFailure, VDuration, VInstant, WallJump};

use crate::choice::{list, scaled_duration, Choices};
use crate::schedule::biased;
use crate::swarm::Swarm;

/// At most this many wall jumps per case.
pub const WALL_JUMPS_MAX: u64 = 3;
/// At most this many failed-read rules per case.
pub const READ_FAILURES_MAX: u64 = 2;
/// The largest generated jump: 100 years.
pub const WALL_JUMP_MAX: VDuration = VDuration::from_secs(100 * 365 * 24 * 3600);

const SEC: VDuration = VDuration::from_secs(1);

/// The clock faults of one case (empty, with no answer drawn, when the swarm switches them off).
pub fn describe_clock_faults<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> ClockFaults {
    if !swarm.clock_faults || !c.maybe(1, 2) {
        return ClockFaults::default();
    }
    let wall_jumps = list(c, |c| c.between(0, WALL_JUMPS_MAX), |c, _| describe_jump(c, swarm, contract));
    let read_failures = list(c, |c| c.between(0, READ_FAILURES_MAX), |c, _| describe_read_failure(c));
    ClockFaults { wall_jumps, read_failures }
}

fn describe_jump<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> WallJump {
    let at = match c.weighted(&[2, 1, 1]) {
        0 => JumpAt::Instant(instant(c, swarm, contract)),
        1 => JumpAt::Sleep(c.between(1, 4) as u32),   // At most 4.
        _ => JumpAt::Attempt(c.between(1, 4) as u32), // At most 4.
    };
    let plain = scaled_duration(
        c,
        &[(1, VDuration::from_nanos(1)), (3, SEC), (2, VDuration::from_secs(3600)), (1, WALL_JUMP_MAX)],
    );
    let size = match at {
        // Larger than the time elapsed at the jump: the wall clock goes before the run's start.
        JumpAt::Instant(at) if biased(c, swarm) => at.since_epoch().saturating_add(VDuration::from_nanos(1)),
        _ => plain,
    };
    let magnitude = i64::try_from(size.as_nanos()).unwrap_or(i64::MAX);
    let by_ns = if c.maybe(1, 2) { -magnitude } else { magnitude };
    WallJump { at, by_ns }
}

fn instant<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> VInstant {
    let plain = scaled_duration(c, &[(1, VDuration::ZERO), (3, SEC), (2, VDuration::from_secs(60))]);
    let at = match contract.timing.deadline {
        Some(deadline) if biased(c, swarm) => deadline,
        _ => plain,
    };
    VInstant::from_nanos(at.as_nanos())
}

fn describe_read_failure<C: Choices + ?Sized>(c: &mut C) -> ReadFailure {
    let clock = [ClockKind::Monotonic, ClockKind::Wall][c.weighted(&[1, 1])];
    let from = match c.weighted(&[1, 1]) {
        0 => FailFrom::AfterReads(c.between(0, 4) as u32), // At most 4.
        _ => {
            let at = scaled_duration(c, &[(1, VDuration::ZERO), (3, SEC), (2, VDuration::from_secs(60))]);
            FailFrom::Instant(VInstant::from_nanos(at.as_nanos()))
        }
    };
    ReadFailure { clock, from, count: c.between(1, 3) as u32 } // At most 3.
}

#[cfg(test)]
mod tests {
    use arbitrary::Unstructured;
    use proptest::strategy::{Strategy, ValueTree};
    use proptest::test_runner::TestRunner;
    use timelaw_core::{Schedule, SplitMix64};

    use super::*;
    use crate::schedule::{arbitrary_schedule, sample_schedule, schedule_strategy};
    use timelaw_core::TimingContract;

    fn contract() -> Contract {
        Contract {
            timing: TimingContract { deadline: Some(VDuration::from_millis(50)), ..TimingContract::default() },
            ..Contract::default()
        }
    }

    /// What a sample of schedules shows of the clock-fault domain.
    #[derive(Debug, Default, PartialEq)]
    struct Seen {
        backwards: bool,
        forwards: bool,
        years: bool,
        kinds: [bool; 3],
        clocks: [bool; 2],
    }

    fn seen(schedules: impl Iterator<Item = Schedule>) -> Seen {
        let mut seen = Seen::default();
        for schedule in schedules {
            for jump in &schedule.clock.wall_jumps {
                seen.backwards |= jump.by_ns < 0;
                seen.forwards |= jump.by_ns > 0;
                seen.years |= jump.by_ns.unsigned_abs() > 365 * 24 * 3600 * 1_000_000_000;
                seen.kinds[match jump.at {
                    JumpAt::Instant(_) => 0,
                    JumpAt::Sleep(_) => 1,
                    JumpAt::Attempt(_) => 2,
                }] = true;
            }
            for failure in &schedule.clock.read_failures {
                seen.clocks[failure.clock as usize] = true;
            }
        }
        seen
    }

    const ALL: Seen = Seen { backwards: true, forwards: true, years: true, kinds: [true; 3], clocks: [true; 2] };

    #[test]
    fn every_front_end_generates_every_kind_of_clock_fault() {
        let contract = contract();
        let mut rng = SplitMix64::new(7);
        let native = (0..2000).map(|_| sample_schedule(&mut rng, &Swarm::everything(), &contract));
        assert_eq!(seen(native), ALL, "native");
        let mut runner = TestRunner::deterministic();
        let strategy = schedule_strategy(contract);
        let proptest = (0..2000).map(|_| strategy.new_tree(&mut runner).map(|tree| tree.current()).unwrap());
        assert_eq!(seen(proptest), ALL, "proptest");
        let mut bytes_rng = SplitMix64::new(9);
        let fuzz = (0..2000).map(|_| {
            let bytes: Vec<u8> = (0..512).map(|_| bytes_rng.next_u64() as u8).collect();
            arbitrary_schedule(&mut Unstructured::new(&bytes), &contract)
        });
        assert_eq!(seen(fuzz), ALL, "arbitrary");
    }

    #[test]
    fn the_swarm_switch_turns_clock_faults_off() {
        let swarm = Swarm { clock_faults: false, ..Swarm::everything() };
        let mut rng = SplitMix64::new(7);
        assert!((0..500).all(|_| sample_schedule(&mut rng, &swarm, &contract()).clock.is_empty()));
    }
}
