//! Planted clock bugs: a small retry loop with an elapsed-time limit ("no retry starts `deadline` or later
//! after the call started", the policy's `deadline` read as that limit) and one deliberate clock defect.
//! Test code only: users never see these subjects.
#![allow(dead_code)]

use timelaw::core::reference::{next_delay, Policy, Reference};
use timelaw::core::{
    Abort, AttemptResult, CallInfo, CallResult, ClockContract, Contract, Declared, Diagnostic, ErrorKind, Outcome,
    Subject, TieRule, VDuration, VInstant, WallInstant, World,
};

/// The defect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockBug {
    /// Measures the elapsed-time limit on the wall clock (while the contract says monotonic).
    WallClockLimit,
    /// Logs the time since the call started with `duration_since(..).expect(..)` on the wall clock.
    PanicsOnBackwardsJump,
    /// Treats a failed read of the monotonic clock at the limit check as success.
    FailedReadAsOk,
}

/// Every planted clock bug with the law it breaks.
pub const CLOCK_BUGS: [(ClockBug, &str); 3] = [
    (ClockBug::WallClockLimit, "wall_jump_keeps_monotonic_limits"),
    (ClockBug::PanicsOnBackwardsJump, "wall_jump_back_no_panic"),
    (ClockBug::FailedReadAsOk, "failed_read_handled_as_declared"),
];

/// A retry loop with an elapsed-time limit and one planted clock defect; configs are reference Policies.
#[derive(Clone, Copy, Debug)]
pub struct ClockPlanted(pub ClockBug);

impl ClockPlanted {
    /// All planted clock subjects.
    pub fn all() -> Vec<ClockPlanted> {
        CLOCK_BUGS.iter().map(|(bug, _)| ClockPlanted(*bug)).collect()
    }
}

/// What the limit check learned.
enum Elapsed {
    Known(VDuration),
    /// The clock could not be read: the limit counts as expired.
    Expired,
    /// The defect: the call returns `Ok`.
    TreatedAsOk,
}

impl Subject for ClockPlanted {
    type Config = Policy;

    fn name(&self) -> &str {
        match self.0 {
            ClockBug::WallClockLimit => "planted-wall-clock-limit",
            ClockBug::PanicsOnBackwardsJump => "planted-panics-on-backwards-jump",
            ClockBug::FailedReadAsOk => "planted-failed-read-as-ok",
        }
    }

    /// The reference contract without what this loop does not implement, every limit on the monotonic
    /// clock and a failed read counting as expired.
    fn contract(&self, policy: &Policy) -> Contract {
        let mut promise = Reference.contract(policy);
        promise.retry.respects_idempotency = false;
        promise.delays.sleep_budget = None;
        promise.timing.deadline = None;
        promise.timing.honors_cancellation = false;
        promise.timing.clocks = Some(ClockContract::MONOTONIC);
        promise.rate.honors_retry_after = false;
        promise.circuit = Declared::Absent;
        promise.budget = Declared::Absent;
        promise
    }

    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, call| self.call(policy, world, call))
    }
}

impl ClockPlanted {
    fn call(&self, policy: &Policy, world: &mut World<'_>, call: CallInfo) -> Result<CallResult, Abort> {
        let started_wall = world.wall_now()?.ok(); // The call's "started at" stamp.
        let mut previous = None;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let result = match policy.attempt_timeout {
                Some(timeout) => world.dispatch_with_timeout(timeout, TieRule::Expired)?,
                None => world.dispatch()?,
            };
            let failure = match result {
                AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
                AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient),
                AttemptResult::TimedOut => ErrorKind::Timeout,
                AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
            };
            let retryable = match failure {
                ErrorKind::Transient => policy.retry_on.transient,
                ErrorKind::RateLimited => policy.retry_on.rate_limited,
                ErrorKind::Timeout => policy.retry_on.timeout,
                _ => false,
            };
            if attempt >= policy.max_attempts || !retryable {
                return Ok(CallResult::Err(failure));
            }
            self.log_time_since_start(world, started_wall)?;
            let delay = next_delay(policy, attempt, previous, world)?;
            if let Some(limit) = policy.deadline {
                let elapsed = match self.elapsed(world, call.started, started_wall)? {
                    Elapsed::Known(elapsed) => elapsed,
                    Elapsed::Expired => return Ok(CallResult::Err(failure)),
                    Elapsed::TreatedAsOk => return Ok(CallResult::Ok),
                };
                if elapsed.saturating_add(delay) >= limit {
                    return Ok(CallResult::Err(failure));
                }
            }
            world.notify(delay)?;
            world.sleep(delay)?;
            previous = Some(delay);
        }
    }

    /// The defect of `PanicsOnBackwardsJump`: a log line computed with `expect` on the wall clock.
    fn log_time_since_start(&self, world: &mut World<'_>, started_wall: Option<WallInstant>) -> Result<(), Abort> {
        if self.0 != ClockBug::PanicsOnBackwardsJump {
            return Ok(());
        }
        if let (Ok(now), Some(started_wall)) = (world.wall_now()?, started_wall) {
            let since_start = now.duration_since(started_wall).expect("the wall clock went backwards");
            std::hint::black_box(since_start);
        }
        Ok(())
    }

    fn elapsed(
        &self,
        world: &mut World<'_>,
        started: VInstant,
        started_wall: Option<WallInstant>,
    ) -> Result<Elapsed, Abort> {
        if self.0 == ClockBug::WallClockLimit {
            return Ok(match (world.wall_now()?, started_wall) {
                (Ok(now), Some(started_wall)) => {
                    Elapsed::Known(now.duration_since(started_wall).unwrap_or(VDuration::ZERO))
                }
                _ => Elapsed::Expired,
            });
        }
        match world.read_now()? {
            Ok(now) => Ok(Elapsed::Known(now.duration_since(started))),
            Err(_) if self.0 == ClockBug::FailedReadAsOk => Ok(Elapsed::TreatedAsOk),
            Err(failed) => {
                world.diagnose(Diagnostic::TimingMissing { clock: failed.0 })?;
                Ok(Elapsed::Expired)
            }
        }
    }
}

timelaw::describe_like!(ClockPlanted => super::unrefined::Unrefined);
