//! A planted hang in pure code: a retry loop that paces its delay with a busy loop whose step is zero
//! for delays of 1 to 7 ns, so it never calls the World again. Test code only; `tests/hangs.rs` finds it
//! with the watchdog and pins its fixture, `tests/replay.rs` replays that fixture (bounded by the
//! watchdog too).
#![allow(dead_code)]

use serde::{Deserialize, Serialize};
use timelaw::core::{
    Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, RetryContract, Subject, VDuration, World,
};
use timelaw::generators::{Choices, Describe, Swarm};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpinConfig {
    /// Attempts per call.
    pub max_attempts: u32,
    /// The delay between attempts.
    pub delay: VDuration,
}

/// A retry loop that paces its delay in eighths with a busy loop in pure code; with `planted`, a delay
/// of 1 to 7 ns makes the step zero and the loop never ends. Without it the step is at least 1 ns.
#[derive(Clone, Copy)]
pub struct Spin {
    /// Whether the defect is planted.
    pub planted: bool,
}

impl Spin {
    fn pace(&self, delay: VDuration) -> u64 {
        let (total, mut waited) = (delay.as_nanos(), 0_u64);
        let step = if self.planted { total / 8 } else { (total / 8).max(1) };
        let mut rounds = 0_u64;
        while waited < total {
            waited = waited.saturating_add(step);
            rounds = std::hint::black_box(rounds.wrapping_add(1));
        }
        rounds
    }
}

impl Subject for Spin {
    type Config = SpinConfig;
    fn name(&self) -> &str {
        if self.planted {
            "planted-spins-forever"
        } else {
            "spin"
        }
    }
    fn contract(&self, config: &SpinConfig) -> Contract {
        Contract {
            retry: RetryContract { max_attempts: Some(config.max_attempts), ..RetryContract::default() },
            ..Contract::default()
        }
    }
    fn run(&self, config: &SpinConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            for attempt in 1..=config.max_attempts {
                match world.dispatch()? {
                    AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                    AttemptResult::Completed(Outcome::Transient) if attempt < config.max_attempts => {}
                    _ => return Ok(CallResult::Err(ErrorKind::Transient)),
                }
                // Pacing at most 8 rounds per delay (more for the huge ones is still bounded: delays
                // are drawn below 1 s).
                self.pace(config.delay);
                world.sleep(config.delay)?;
            }
            Ok(CallResult::Err(ErrorKind::Transient))
        })
    }
}

impl Describe for Spin {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> SpinConfig {
        let max_attempts = u32::try_from(c.between(1, 5)).unwrap_or(1); // At most 5.
        let delay = match c.weighted(&[2_000, 1]) {
            0 => VDuration::from_millis(c.between(0, 1_000)),
            _ => VDuration::from_nanos(c.between(0, 15)),
        };
        SpinConfig { max_attempts, delay }
    }

    /// Fewer attempts (1, one less) and shorter delays (zero, 1 ns, half, 1 ns less), simplest first.
    fn simpler(&self, config: &SpinConfig) -> Vec<SpinConfig> {
        let max = config.max_attempts;
        let attempts = [1, max.saturating_sub(1)].into_iter().filter(|&m| m >= 1 && m < max);
        let delay = config.delay.as_nanos();
        let delays = [0, 1, delay / 2, delay.saturating_sub(1)].into_iter().filter(|&d| d < delay);
        let with_attempts = attempts.map(|max_attempts| SpinConfig { max_attempts, ..config.clone() });
        let with_delays = delays.map(|nanos| SpinConfig { delay: VDuration::from_nanos(nanos), ..config.clone() });
        let mut out: Vec<SpinConfig> = with_attempts.chain(with_delays).collect();
        out.dedup();
        out
    }
}

/// How a [`Waits`] subject waits out its delay before a retry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// `while world.read_now()? < until {}`: the clock never moves, so the loop never ends (the World
    /// stops it at `Limits::idle_calls_max`).
    BusyWait,
    /// The same busy-wait on the paused tokio runtime.
    BusyWaitTokio,
    /// On the paused tokio runtime, a fatal answer makes it await a future that never completes: a
    /// deadlock (no timer, no task ready).
    DeadlockTokio,
}

/// A retry loop with one of the defects of [`Waiting`] (same config as [`Spin`]). Each is a
/// `terminates` violation that stops deterministically, with no wall clock.
#[derive(Clone, Copy)]
pub struct Waits(pub Waiting);

impl Waits {
    /// The sync loop: the busy-wait after a transient failure.
    fn run_sync(config: &SpinConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            for attempt in 1..=config.max_attempts {
                match world.dispatch()? {
                    AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                    AttemptResult::Completed(Outcome::Transient) if attempt < config.max_attempts => {}
                    _ => return Ok(CallResult::Err(ErrorKind::Transient)),
                }
                let until = world.now().saturating_add(config.delay);
                while world.read_now()?.unwrap_or(until) < until {}
            }
            Ok(CallResult::Err(ErrorKind::Transient))
        })
    }

    /// The tokio loop: the busy-wait, or the deadlock after a fatal answer.
    fn run_tokio(self, config: &SpinConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let (max_attempts, delay) = (config.max_attempts, config.delay);
        timelaw::tokio::serve_calls(world, move |w, _call| async move {
            for attempt in 1..=max_attempts {
                match w.attempt().await? {
                    Outcome::Ok => return Ok(CallResult::Ok),
                    Outcome::Fatal if self.0 == Waiting::DeadlockTokio => std::future::pending::<()>().await,
                    Outcome::Transient if attempt < max_attempts => {}
                    _ => return Ok(CallResult::Err(ErrorKind::Transient)),
                }
                let until = w.now().saturating_add(delay);
                while w.with(|world| world.read_now())?.unwrap_or(until) < until {
                    if self.0 == Waiting::DeadlockTokio {
                        w.sleep(delay.to_std()).await; // This twin sleeps as it should.
                    }
                }
            }
            Ok(CallResult::Err(ErrorKind::Transient))
        })
    }
}

impl Subject for Waits {
    type Config = SpinConfig;
    fn name(&self) -> &str {
        match self.0 {
            Waiting::BusyWait => "busy-waits",
            Waiting::BusyWaitTokio => "busy-waits-tokio",
            Waiting::DeadlockTokio => "deadlocks-tokio",
        }
    }
    fn contract(&self, config: &SpinConfig) -> Contract {
        Spin { planted: true }.contract(config)
    }
    fn run(&self, config: &SpinConfig, world: &mut World<'_>) -> Result<(), Abort> {
        match self.0 {
            Waiting::BusyWait => Waits::run_sync(config, world),
            Waiting::BusyWaitTokio | Waiting::DeadlockTokio => self.run_tokio(config, world),
        }
    }
}

impl Describe for Waits {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> SpinConfig {
        Spin { planted: true }.describe(c, swarm)
    }
    fn simpler(&self, config: &SpinConfig) -> Vec<SpinConfig> {
        Spin { planted: true }.simpler(config)
    }
}

/// Hangs on about one case in eight (a randomness draw decides), in a way an abandoned thread leaves:
/// sync, a busy-wait on the clock of at most 2^24 reads (under `Limits::idle_calls_max` raised to
/// `u32::MAX`, so only the watchdog stops it; the thread parks at its next read); with `tokio`, a loop
/// of `yield_now` (the driver parks the thread between two polls). Otherwise one attempt per call.
#[derive(Clone, Copy)]
pub struct Parks {
    /// Hang on the paused tokio runtime instead.
    pub tokio: bool,
}

/// The most clock reads of a [`Parks`] busy-wait: it gives up after that (seconds in a debug build),
/// so a watchdog that counted reads as progress would see no hang at all.
pub const PARKS_READS_MAX: u64 = 1 << 24;

impl Subject for Parks {
    type Config = ();
    fn name(&self) -> &str {
        if self.tokio {
            "parks-tokio"
        } else {
            "parks"
        }
    }
    fn contract(&self, _config: &()) -> Contract {
        Contract::default()
    }
    fn run(&self, _config: &(), world: &mut World<'_>) -> Result<(), Abort> {
        let hangs = world.random_between(0, 7)? == 0;
        if !self.tokio {
            return world.for_each_call(|world, _| {
                if hangs {
                    let until = world.now().saturating_add(VDuration::from_millis(1));
                    for _ in 0..PARKS_READS_MAX {
                        if world.read_now()?.unwrap_or(until) >= until {
                            break;
                        }
                    }
                }
                Ok(CallResult::from_outcome(match world.dispatch()? {
                    AttemptResult::Completed(outcome) => outcome,
                    _ => Outcome::Transient,
                }))
            });
        }
        timelaw::tokio::serve_calls(world, move |w, _call| async move {
            if hangs {
                loop {
                    timelaw::tokio::tokio::task::yield_now().await;
                }
            }
            Ok(CallResult::from_outcome(w.attempt().await?))
        })
    }
}

impl Describe for Parks {
    fn describe<C: Choices + ?Sized>(&self, _c: &mut C, _swarm: &Swarm) {}
}

/// A retry loop that makes one attempt more than `max_attempts` (`attempts_within_max`), pacing each
/// delay with a busy loop in pure code that never ends for a delay below 8 ns (its step is zero). Its
/// search draws delays of 1 to 1,000 ms, which never hang; only shrinking meets the hanging delays.
#[derive(Clone, Copy)]
pub struct OneTooMany;

impl Subject for OneTooMany {
    type Config = SpinConfig;
    fn name(&self) -> &str {
        "one-too-many"
    }
    fn contract(&self, config: &SpinConfig) -> Contract {
        Spin { planted: true }.contract(config)
    }
    fn run(&self, config: &SpinConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            for attempt in 1..=config.max_attempts.saturating_add(1) {
                if world.dispatch()? == AttemptResult::Completed(Outcome::Ok) {
                    return Ok(CallResult::Ok);
                }
                if attempt <= config.max_attempts {
                    let (total, mut waited) = (config.delay.as_nanos(), 0_u64);
                    while waited <= total {
                        waited = std::hint::black_box(waited.saturating_add(total / 8));
                    }
                    world.sleep(config.delay)?;
                }
            }
            Ok(CallResult::Err(ErrorKind::Transient))
        })
    }
}

impl Describe for OneTooMany {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> SpinConfig {
        let max_attempts = u32::try_from(c.between(1, 5)).unwrap_or(1); // At most 5.
        SpinConfig { max_attempts, delay: VDuration::from_millis(c.between(1, 1_000)) }
    }
    fn simpler(&self, config: &SpinConfig) -> Vec<SpinConfig> {
        Spin { planted: true }.simpler(config)
    }
}
