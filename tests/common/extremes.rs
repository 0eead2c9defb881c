//! PlantedExtreme bugs at the extremes: an overflow at `Duration::MAX` and a counter that saturates at retry 40.
//! Test code only. Their config holds a `std::time::Duration` drawn from a domain that reaches
//! `Duration::MAX`, and retry counts far past 40, so a normal run reaches both bugs.
#![allow(dead_code)]

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw::core::{
    Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, RetryContract, Subject, VDuration, World,
};
use timelaw::generators::{Choices, Describe, Swarm};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extreme {
    /// Pads every delay by 1 ns with `+`, which panics ("overflow when adding durations") at
    /// `Duration::MAX`.
    OverflowAtMax,
    /// Counts attempts in a counter that saturates at 40, so with `max_attempts` above 40 it never stops
    /// while the failures go on.
    SaturatesAt40,
}

/// Every extreme bug with the law it breaks.
pub const EXTREMES: [(Extreme, &str); 2] =
    [(Extreme::OverflowAtMax, "never_panics"), (Extreme::SaturatesAt40, "attempts_within_max")];

/// A constant-delay retry with one planted defect.
#[derive(Clone, Copy, Debug)]
pub struct PlantedExtreme(pub Extreme);

/// The config: a retry count and a delay as users pass them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtremeConfig {
    /// Attempts allowed per call.
    pub max_attempts: u32,
    /// The delay between attempts.
    pub delay: Duration,
}

fn to_virtual(delay: Duration) -> VDuration {
    VDuration::from_nanos(u64::try_from(delay.as_nanos()).unwrap_or(u64::MAX))
}

impl Subject for PlantedExtreme {
    type Config = ExtremeConfig;

    fn name(&self) -> &str {
        match self.0 {
            Extreme::OverflowAtMax => "planted-overflow-at-max",
            Extreme::SaturatesAt40 => "planted-saturates-at-40",
        }
    }

    fn contract(&self, config: &ExtremeConfig) -> Contract {
        Contract {
            retry: RetryContract { max_attempts: Some(config.max_attempts), ..RetryContract::default() },
            ..Contract::default()
        }
    }

    fn run(&self, config: &ExtremeConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _call| self.call(config, world))
    }
}

impl PlantedExtreme {
    fn call(&self, config: &ExtremeConfig, world: &mut World<'_>) -> Result<CallResult, Abort> {
        let mut attempt: u32 = 0;
        loop {
            attempt = match self.0 {
                Extreme::SaturatesAt40 => (attempt + 1).min(40),
                Extreme::OverflowAtMax => attempt + 1,
            };
            let failure = match world.dispatch()? {
                AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                AttemptResult::Completed(Outcome::Transient) => ErrorKind::Transient,
                AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Fatal),
                AttemptResult::TimedOut => ErrorKind::Timeout,
                AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
            };
            if failure != ErrorKind::Transient || attempt >= config.max_attempts {
                return Ok(CallResult::Err(failure));
            }
            let delay = match self.0 {
                Extreme::OverflowAtMax => config.delay + Duration::from_nanos(1),
                Extreme::SaturatesAt40 => config.delay,
            };
            world.notify(to_virtual(delay))?;
            world.sleep(to_virtual(delay))?;
        }
    }
}

/// The delays a user may pass, `Duration::MAX` included.
const DELAY_BOUNDARIES: [Duration; 5] = [
    Duration::ZERO,
    Duration::from_nanos(1),
    Duration::from_nanos(u64::MAX),
    Duration::new(u64::MAX, 999_999_998),
    Duration::MAX,
];

impl Describe for PlantedExtreme {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> ExtremeConfig {
        let max_attempts = match c.weighted(&[4, 3, 1]) {
            0 => c.between(1, 5),
            1 => c.between(6, 64),
            _ => c.between(65, 100_000),
        };
        let delay = match c.weighted(&[6, 1]) {
            0 => Duration::from_millis(c.between(0, 5_000)),
            _ => DELAY_BOUNDARIES[c.between(0, DELAY_BOUNDARIES.len() as u64 - 1) as usize],
        };
        // At most 100,000, which fits a u32.
        ExtremeConfig { max_attempts: u32::try_from(max_attempts).unwrap_or(1), delay }
    }

    /// Fewer attempts (1, half, one less) and shorter delays (zero, half, 1 ns less), simplest first.
    fn simpler(&self, config: &ExtremeConfig) -> Vec<ExtremeConfig> {
        let max = config.max_attempts;
        let attempts = [1, max / 2, max.saturating_sub(1)].into_iter().filter(|&m| m >= 1 && m < max);
        let delay = config.delay;
        let delays = [Duration::ZERO, delay / 2, delay.saturating_sub(Duration::from_nanos(1))];
        let delays = delays.into_iter().filter(|&d| d < delay);
        let with_attempts = attempts.map(|max_attempts| ExtremeConfig { max_attempts, ..config.clone() });
        let with_delays = delays.map(|delay| ExtremeConfig { delay, ..config.clone() });
        let mut out: Vec<ExtremeConfig> = with_attempts.chain(with_delays).collect();
        out.dedup();
        out
    }
}
