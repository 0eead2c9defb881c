//! A retry loop with coarse timers, as tokio has them: every timer (an attempt's timeout, the call's
//! deadline, the wake-up of a sleep) due at `t` fires on the first tick (a multiple of `tick`) at or after
//! `t`, plus `late_ticks` more ticks for the broken variant. Its contract states the granularity.

use serde::{Deserialize, Serialize};
use timelaw_core::{
    Abort, AttemptResult, CallResult, Contract, ErrorKind, Outcome, Subject, TieRule, VDuration, VInstant, World,
};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CoarseConfig {
    /// What it promises; `timing.timer_granularity` is the tick.
    pub contract: Contract,
    /// Timers fire this many ticks after the tick they are due on (0: a correct subject).
    pub late_ticks: u64,
}

/// See the module docs (subject name `coarse`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Coarse;

/// The instant a timer due at `due` fires.
fn fires(config: &CoarseConfig, due: VInstant) -> VInstant {
    let tick = config.contract.timing.timer_granularity.as_nanos().max(1);
    let ticks = due.as_nanos().div_ceil(tick).saturating_add(config.late_ticks);
    VInstant::from_nanos(ticks.saturating_mul(tick))
}

impl Subject for Coarse {
    type Config = CoarseConfig;
    fn name(&self) -> &str {
        "coarse"
    }
    fn contract(&self, config: &CoarseConfig) -> Contract {
        config.contract
    }
    fn run(&self, config: &CoarseConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, call| {
            let deadline_at = config.contract.timing.deadline.map(|d| fires(config, call.started.saturating_add(d)));
            serve(config, world, deadline_at)
        })
    }
}

fn serve(config: &CoarseConfig, world: &mut World<'_>, deadline_at: Option<VInstant>) -> Result<CallResult, Abort> {
    let timing = config.contract.timing;
    let max_attempts = config.contract.retry.max_attempts.unwrap_or(1);
    let delay = config.contract.delays.min.unwrap_or(VDuration::ZERO);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let timeout_at = timing.attempt_timeout.map(|t| fires(config, world.now().saturating_add(t)));
        let stop = match (timeout_at, deadline_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let by_deadline = deadline_at.is_some_and(|at| Some(at) == stop);
        let result = match stop {
            // The deadline's cut loses a tie to the attempt, as `tokio::time::timeout` polls it first.
            Some(at) => {
                let tie = if by_deadline { TieRule::InnerWins } else { timing.timeout_tie };
                world.dispatch_with_timeout(at.duration_since(world.now()), tie)?
            }
            None => world.dispatch()?,
        };
        let error = match result {
            AttemptResult::Completed(Outcome::Ok) => return Ok(CallResult::Ok),
            AttemptResult::Completed(outcome) => ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Transient),
            AttemptResult::TimedOut if by_deadline => return Ok(CallResult::Err(ErrorKind::DeadlineExceeded)),
            AttemptResult::TimedOut => ErrorKind::Timeout,
            AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
        };
        if matches!(error, ErrorKind::Fatal) || attempt >= max_attempts {
            return Ok(CallResult::Err(error));
        }
        world.begin_sleep(delay)?;
        let wake = fires(config, world.now().saturating_add(delay));
        if deadline_at.is_some_and(|at| at <= wake) {
            world.advance_to(deadline_at.unwrap_or(wake))?;
            return Ok(CallResult::Err(ErrorKind::DeadlineExceeded));
        }
        world.advance_to(wake)?;
    }
}
