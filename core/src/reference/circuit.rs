//! The reference circuit breaker over whole calls: every [`CircuitPolicy`] (a count window, consecutive
//! failures, a time window), open shape, cooldown tie and cancellation reading its contract can state.

use std::collections::VecDeque;

use crate::contract::CircuitContract;
use crate::mechanisms::{CircuitPolicy, CooldownTie, HalfOpenEntry, LateResults, ProbeSettle};
use crate::time::VInstant;
use crate::trace::{CallResult, CircuitState, ErrorKind};
use crate::world::{Abort, World};

/// Breaker state that spans the calls of one case.
#[derive(Clone, Debug)]
pub struct Breaker {
    params: CircuitContract,
    state: CircuitState,
    /// Results of the last admitted calls while closed, with the instants they ended; `true` is a
    /// failure (the last `window` of them, or those of the last `TimeWindow`).
    window: VecDeque<(VInstant, bool)>,
    /// Failures in a row while closed.
    consecutive_failures: u32,
    /// Open periods since the breaker last closed (the open shape's `n`).
    openings: u32,
    /// When the current open period ends.
    open_until: VInstant,
    /// When probes last closed the breaker: the instant, the half-open state's epoch, the openings before.
    closed_by_probes: Option<(VInstant, u64, u32)>,
    probes_admitted: u32,
    probe_successes: u32,
    /// Counts transitions: a call's result counts only in the state it was admitted in.
    epoch: u64,
}

/// What [`Breaker::admit_ticket`] gives an admitted call, for [`Breaker::record_ticket`]: the state it
/// was admitted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    epoch: u64,
}

impl Breaker {
    /// A closed breaker.
    pub fn new(params: CircuitContract) -> Breaker {
        Breaker {
            params,
            state: CircuitState::Closed,
            window: VecDeque::with_capacity(params.window as usize),
            consecutive_failures: 0,
            openings: 0,
            open_until: VInstant::EPOCH,
            closed_by_probes: None,
            probes_admitted: 0,
            probe_successes: 0,
            epoch: 0,
        }
    }

    /// The current state.
    pub fn state(&self) -> CircuitState {
        self.state
    }

    /// Decides whether the call starting now may dispatch; moves open to half-open once the open period
    /// has passed since opening (a call at exactly its end is admitted, or with `AdmitsAfterEnd` only one
    /// strictly after it).
    ///
    /// # Errors
    /// The World's abort while recording a transition.
    pub fn admit(&mut self, world: &mut World<'_>) -> Result<bool, Abort> {
        if self.state == CircuitState::Open {
            if !self.period_over(world.now()) {
                return Ok(false);
            }
            self.half_open(world)?;
        }
        if self.state == CircuitState::HalfOpen {
            if self.probes_admitted >= self.params.half_open_probes {
                return Ok(false);
            }
            self.probes_admitted += 1;
        }
        Ok(true)
    }

    /// `true` once the open period is over at `now`, by the cooldown tie.
    fn period_over(&self, now: VInstant) -> bool {
        match self.params.cooldown_tie {
            CooldownTie::AdmitsAtEnd => now >= self.open_until,
            CooldownTie::AdmitsAfterEnd => now > self.open_until,
        }
    }

    /// Turns the open breaker half-open, with no probe admitted yet.
    fn half_open(&mut self, world: &mut World<'_>) -> Result<(), Abort> {
        self.probes_admitted = 0;
        self.probe_successes = 0;
        self.transition(world, CircuitState::HalfOpen)
    }

    /// [`Breaker::admit`] for calls that overlap: the ticket of an admitted call, `None` for a refused one.
    ///
    /// # Errors
    /// As [`Breaker::admit`].
    pub fn admit_ticket(&mut self, world: &mut World<'_>) -> Result<Option<Ticket>, Abort> {
        Ok(self.admit(world)?.then_some(Ticket { epoch: self.epoch }))
    }

    /// [`Breaker::record`] for calls that overlap. A result counts in the state its call was admitted in;
    /// once the breaker moved on (opened, half-opened, closed) it is dropped (or, with
    /// [`LateResults::LandingState`], recorded in the state it lands in), except a failed probe landing
    /// at the very instant its half-open period closed, which reopens the breaker by the contract's
    /// `probe_settle` `FailureReopens` (only possible when `closes_after` is below `half_open_probes`: a
    /// probe holds its slot until its result, so otherwise no probe is left to land).
    ///
    /// # Errors
    /// The World's abort while recording a transition.
    pub fn record_ticket(&mut self, world: &mut World<'_>, ticket: Ticket, result: CallResult) -> Result<(), Abort> {
        if ticket.epoch == self.epoch {
            return self.record(world, result);
        }
        let settles = self.params.probe_settle == ProbeSettle::FailureReopens;
        if let Some((closed_at, probes_epoch, openings)) = self.closed_by_probes {
            let closed_just_now = self.state == CircuitState::Closed && closed_at == world.now();
            if settles && closed_just_now && probes_epoch == ticket.epoch && self.is_failure(result) {
                self.openings = openings;
                return self.open(world);
            }
        }
        self.record_late(world, result)
    }

    /// A result landing after the state that admitted its call is over: dropped, or with
    /// [`LateResults::LandingState`] recorded in the state it lands in (a cancellation not counted as a
    /// failure frees no probe slot: the call was no probe of this state). With [`HalfOpenEntry::OnTime`]
    /// an open breaker whose period is over turns half-open first.
    fn record_late(&mut self, world: &mut World<'_>, result: CallResult) -> Result<(), Abort> {
        let uncounted = result == CallResult::Err(ErrorKind::Cancelled) && !self.params.counts_cancellation;
        if self.params.late_results == LateResults::AdmittedState || uncounted {
            return Ok(());
        }
        let on_time = self.params.half_open_entry == HalfOpenEntry::OnTime;
        if on_time && self.state == CircuitState::Open && self.period_over(world.now()) {
            self.half_open(world)?;
        }
        self.record(world, result)
    }

    /// `true` for a result that counts as a failure.
    fn is_failure(&self, result: CallResult) -> bool {
        match result {
            CallResult::Ok | CallResult::Err(ErrorKind::CircuitOpen) => false,
            CallResult::Err(ErrorKind::Cancelled) => self.params.counts_cancellation,
            CallResult::Err(_) => true,
        }
    }

    /// Records the result of an admitted call.
    ///
    /// # Errors
    /// The World's abort while recording a transition.
    pub fn record(&mut self, world: &mut World<'_>, result: CallResult) -> Result<(), Abort> {
        let failed = match result {
            CallResult::Ok => false,
            CallResult::Err(ErrorKind::Cancelled) if self.params.counts_cancellation => true,
            CallResult::Err(ErrorKind::Cancelled) => return self.release_probe(),
            CallResult::Err(_) => true,
        };
        match self.state {
            CircuitState::Closed => self.record_closed(world, failed),
            CircuitState::HalfOpen if failed => self.open(world),
            CircuitState::HalfOpen => {
                self.probe_successes += 1;
                if self.probe_successes >= self.params.successes_to_close() {
                    self.window.clear();
                    self.consecutive_failures = 0;
                    self.closed_by_probes = Some((world.now(), self.epoch, self.openings));
                    self.openings = 0;
                    self.transition(world, CircuitState::Closed)?;
                }
                Ok(())
            }
            // A sequential breaker never records while open (an open breaker admits no call); overlapping
            // calls go through `record_ticket`, which drops results of an earlier state or (landing-state
            // late results) records them here, where an open breaker ignores them.
            CircuitState::Open => Ok(()),
        }
    }

    fn record_closed(&mut self, world: &mut World<'_>, failed: bool) -> Result<(), Abort> {
        if self.trips(world.now(), failed) {
            return self.open(world);
        }
        Ok(())
    }

    /// Records a closed-state result that ended at `now`; `true` when the breaker's policy opens it.
    fn trips(&mut self, now: VInstant, failed: bool) -> bool {
        self.consecutive_failures = if failed { self.consecutive_failures.saturating_add(1) } else { 0 };
        let span = match self.params.policy {
            CircuitPolicy::ConsecutiveFailures { threshold } => {
                return failed && self.consecutive_failures >= threshold;
            }
            CircuitPolicy::CountWindow => {
                if self.window.len() >= self.params.window as usize {
                    self.window.pop_front();
                }
                None
            }
            CircuitPolicy::TimeWindow { window } => Some(window),
        };
        // A time window forgets the results that ended `window` or longer ago.
        while let (Some(span), Some(&(ended, _))) = (span, self.window.front()) {
            if ended.saturating_add(span) > now {
                break;
            }
            self.window.pop_front();
        }
        self.window.push_back((now, failed));
        let results = self.window.len() as u64;
        let failures = self.window.iter().filter(|&&(_, failed)| failed).count() as u64;
        let over = failures * 100 >= u64::from(self.params.failure_percent) * results;
        results >= u64::from(self.params.min_calls) && over
    }

    fn release_probe(&mut self) -> Result<(), Abort> {
        if self.state == CircuitState::HalfOpen {
            self.probes_admitted = self.probes_admitted.saturating_sub(1);
        }
        Ok(())
    }

    /// Opens the breaker for the next open period of its shape.
    fn open(&mut self, world: &mut World<'_>) -> Result<(), Abort> {
        self.openings = self.openings.saturating_add(1);
        let period = self.params.open_shape.period(self.params.open_for, self.openings);
        self.open_until = world.now().saturating_add(period);
        self.window.clear();
        self.consecutive_failures = 0;
        self.transition(world, CircuitState::Open)
    }

    fn transition(&mut self, world: &mut World<'_>, to: CircuitState) -> Result<(), Abort> {
        let from = self.state;
        self.state = to;
        self.epoch += 1;
        world.circuit_transition(from, to)
    }
}
