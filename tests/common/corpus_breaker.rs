//! A copy of the reference circuit breaker (`timelaw::core::reference::Breaker`, whose state is private)
//! with the breaker slips of the planted-bug corpus. Test code only.
#![allow(dead_code)]

use std::collections::VecDeque;

use timelaw::core::{Abort, CallResult, CircuitContract, CircuitState, ErrorKind, VInstant, World};

/// A slip in the breaker; `None` is the reference's behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerSlip {
    /// The reference breaker.
    None,
    /// Opens only when the failure ratio is strictly above the threshold (`>` where `>=` belongs).
    StrictRatio,
    /// Stays open at the instant the cooldown ends (`<=` where `<` belongs).
    CooldownStrict,
    /// Stamps the opening with the start of the call that opened it, not its end.
    OpenedAtCallStart,
}

/// The reference breaker, copied, with one slip.
#[derive(Clone, Debug)]
pub struct SlipBreaker {
    params: CircuitContract,
    slip: BreakerSlip,
    state: CircuitState,
    /// Results of the last admitted calls while closed; `true` is a failure.
    window: VecDeque<bool>,
    opened_at: VInstant,
    probes_admitted: u32,
    probe_successes: u32,
}

impl SlipBreaker {
    /// A closed breaker.
    pub fn new(params: CircuitContract, slip: BreakerSlip) -> SlipBreaker {
        SlipBreaker {
            params,
            slip,
            state: CircuitState::Closed,
            window: VecDeque::with_capacity(params.window as usize),
            opened_at: VInstant::EPOCH,
            probes_admitted: 0,
            probe_successes: 0,
        }
    }

    /// Whether the call starting now may dispatch (see `Breaker::admit`).
    pub fn admit(&mut self, world: &mut World<'_>) -> Result<bool, Abort> {
        if self.state == CircuitState::Open {
            let reopen_at = self.opened_at.saturating_add(self.params.open_for);
            let still_open = match self.slip {
                BreakerSlip::CooldownStrict => world.now() <= reopen_at,
                _ => world.now() < reopen_at,
            };
            if still_open {
                return Ok(false);
            }
            self.probes_admitted = 0;
            self.probe_successes = 0;
            self.transition(world, CircuitState::HalfOpen)?;
        }
        if self.state == CircuitState::HalfOpen {
            if self.probes_admitted >= self.params.half_open_probes {
                return Ok(false);
            }
            self.probes_admitted += 1;
        }
        Ok(true)
    }

    /// Records the result of an admitted call that started at `started`.
    pub fn record(&mut self, world: &mut World<'_>, result: CallResult, started: VInstant) -> Result<(), Abort> {
        let failed = match result {
            CallResult::Ok => false,
            CallResult::Err(ErrorKind::Cancelled) => {
                if self.state == CircuitState::HalfOpen {
                    self.probes_admitted = self.probes_admitted.saturating_sub(1);
                }
                return Ok(());
            }
            CallResult::Err(_) => true,
        };
        match self.state {
            CircuitState::Closed => self.record_closed(world, failed, started),
            CircuitState::HalfOpen if failed => self.open(world, started),
            CircuitState::HalfOpen => {
                self.probe_successes += 1;
                if self.probe_successes >= self.params.half_open_probes {
                    self.window.clear();
                    self.transition(world, CircuitState::Closed)?;
                }
                Ok(())
            }
            CircuitState::Open => Ok(()),
        }
    }

    fn record_closed(&mut self, world: &mut World<'_>, failed: bool, started: VInstant) -> Result<(), Abort> {
        if self.window.len() >= self.params.window as usize {
            self.window.pop_front();
        }
        self.window.push_back(failed);
        let results = self.window.len() as u64;
        let failures = self.window.iter().filter(|&&failed| failed).count() as u64;
        let threshold = u64::from(self.params.failure_percent) * results;
        let over = match self.slip {
            BreakerSlip::StrictRatio => failures * 100 > threshold,
            _ => failures * 100 >= threshold,
        };
        if results >= u64::from(self.params.min_calls) && over {
            return self.open(world, started);
        }
        Ok(())
    }

    fn open(&mut self, world: &mut World<'_>, started: VInstant) -> Result<(), Abort> {
        self.opened_at = match self.slip {
            BreakerSlip::OpenedAtCallStart => started,
            _ => world.now(),
        };
        self.window.clear();
        self.transition(world, CircuitState::Open)
    }

    fn transition(&mut self, world: &mut World<'_>, to: CircuitState) -> Result<(), Abort> {
        let from = self.state;
        self.state = to;
        world.circuit_transition(from, to)
    }
}
