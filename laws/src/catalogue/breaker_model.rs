//! A model of the contract's circuit breaker, replayed over the calls of a trace: what the circuit laws
//! judge against, public so a user's own law can use it too.
//!
//! The semantics are those of the reference interpreter (see `timelaw_core::reference`, section "Circuit
//! breaker"), widened by what a contract can state about its breaker ([`BreakerSpec`]):
//! - Closed, it opens by its [`CircuitPolicy`]: the count window (the results of the last `window`
//!   admitted calls, at least `min_calls` of them, `failures * 100 >= failure_percent * results`), a run
//!   of consecutive failures, or the results of the calls that ended within a time window. Every error
//!   but `Cancelled` is a failure; `Cancelled` is one too when the contract says cancellation counts; a
//!   call ending `Err(CircuitOpen)` is never a result.
//! - Open, it rejects until its open period has passed since the `CallEnd` of the call that opened it:
//!   period `n` since it last closed lasts [`OpenShape::period`]; a call exactly at the end is admitted
//!   or not by the [`CooldownTie`]. The first call it admits turns it half-open.
//! - Half-open, it admits at most `half_open_probes` probes: one failure reopens it, `closes_after`
//!   successes (by default `half_open_probes`) close it with an empty window; a probe that is not a result (a cancelled one, unless cancellation
//!   counts) frees its slot.
//!
//! The model is driven by the observed results of the calls it admits; it ignores the results of calls
//! it would have rejected.
//!
//! Calls that overlap are admitted at their start and recorded at their end, in time order
//! ([`BreakerModel::record_admitted`]): a result counts only in the state that admitted its call (a call
//! admitted closed that ends after the breaker opened is no probe), except that, by the default
//! [`ProbeSettle::FailureReopens`], a failed probe that lands at the very instant concurrent successes
//! closed the breaker reopens it.
//!
//! ```
//! use timelaw_core::{CallResult, CircuitContract, Contract, Declared, ErrorKind, VDuration, VInstant};
//! use timelaw_laws::catalogue::breaker_model::{Admission, BreakerModel, BreakerSpec};
//!
//! let circuit = CircuitContract {
//!     window: 2, min_calls: 2, failure_percent: 100, open_for: VDuration::from_millis(10), half_open_probes: 1,
//!     ..CircuitContract::DEFAULT
//! };
//! let contract = Contract { circuit: Declared::Stated(circuit), ..Contract::default() };
//! let mut model = BreakerModel::new(BreakerSpec::of(&contract).unwrap());
//! let at = VInstant::from_nanos;
//! for _ in 0..2 {
//!     assert!(model.admit(at(0)).is_admitted());
//!     model.record(CallResult::Err(ErrorKind::Transient), at(0));
//! }
//! assert_eq!(model.admit(at(5_000_000)), Admission::Open);
//! assert!(model.admit(at(10_000_000)).is_admitted(), "the cooldown ended: a probe");
//! ```

use std::collections::VecDeque;

use timelaw_core::{
    CallResult, CircuitContract, CircuitPolicy, Contract, CooldownTie, ErrorKind, Event, EventKind, HalfOpenEntry,
    LateResults, OpenShape, ProbeSettle, Rejection, VDuration, VInstant,
};

/// What a contract states about its breaker: the parameters and how they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerSpec {
    /// Window, minimum calls, failure rate, first open period, probes.
    pub params: CircuitContract,
    /// When it opens.
    pub policy: CircuitPolicy,
    /// How long each open period lasts.
    pub open_shape: OpenShape,
    /// Whether a call exactly at the end of an open period is admitted.
    pub cooldown_tie: CooldownTie,
    /// Whether a cancelled call is a failure.
    pub counts_cancellation: bool,
}

impl BreakerSpec {
    /// The breaker `contract` states; `None` when it states none (no `circuit`, or an unstated one).
    pub fn of(contract: &Contract) -> Option<BreakerSpec> {
        let params = contract.circuit.into_stated()?;
        Some(BreakerSpec {
            params,
            policy: params.policy,
            open_shape: params.open_shape,
            cooldown_tie: params.cooldown_tie,
            counts_cancellation: params.counts_cancellation,
        })
    }
}

/// The results the closed state remembers (`true` is a failure): a bit ring (no allocation) up to 128
/// results, a queue beyond; for a time window, the results with the instants they ended.
#[derive(Clone, Debug)]
enum Window {
    Bits { bits: u128, len: u32 },
    Queue(VecDeque<bool>),
    Timed(VecDeque<(VInstant, bool)>),
}

impl Window {
    fn new(spec: &BreakerSpec) -> Window {
        match spec.policy {
            CircuitPolicy::TimeWindow { .. } => Window::Timed(VecDeque::new()),
            _ if spec.params.window <= 128 => Window::Bits { bits: 0, len: 0 },
            _ => Window::Queue(VecDeque::new()),
        }
    }
    /// Pushes a result that ended at `at`; returns `(results, failures)` in the window.
    fn push(&mut self, spec: &BreakerSpec, failed: bool, at: VInstant) -> (u32, u32) {
        let size = spec.params.window;
        match self {
            Window::Bits { bits, len } => {
                *bits = (*bits << 1) | u128::from(failed);
                if size < 128 {
                    *bits &= (1_u128 << size) - 1;
                }
                *len = (*len + 1).min(size);
                (*len, bits.count_ones())
            }
            Window::Queue(queue) => {
                if queue.len() >= size as usize {
                    queue.pop_front();
                }
                queue.push_back(failed);
                count(queue.iter().copied())
            }
            Window::Timed(queue) => {
                let span = match spec.policy {
                    CircuitPolicy::TimeWindow { window } => window,
                    _ => VDuration::MAX,
                };
                while queue.front().is_some_and(|&(ended, _)| ended.saturating_add(span) <= at) {
                    queue.pop_front();
                }
                queue.push_back((at, failed));
                count(queue.iter().map(|&(_, failed)| failed))
            }
        }
    }
    fn clear(&mut self) {
        match self {
            Window::Bits { bits, len } => (*bits, *len) = (0, 0),
            Window::Queue(queue) => queue.clear(),
            Window::Timed(queue) => queue.clear(),
        }
    }
}

/// `(results, failures)`, each saturated into a `u32`.
fn count(results: impl Iterator<Item = bool>) -> (u32, u32) {
    let (total, failures) =
        results.fold((0_u64, 0_u64), |(total, failures), failed| (total + 1, failures + u64::from(failed)));
    (u32::try_from(total).unwrap_or(u32::MAX), u32::try_from(failures).unwrap_or(u32::MAX))
}

/// The model's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Calls flow; `after_probes` when it closed because its probes succeeded (not since the start).
    Closed {
        /// It closed from half-open.
        after_probes: bool,
    },
    /// Calls are rejected until `until` (admitted at `until` or only after it, by the cooldown tie).
    Open {
        /// When it opened.
        opened_at: VInstant,
        /// When the open period ends.
        until: VInstant,
    },
    /// Probes are let through.
    HalfOpen {
        /// Probes holding a slot now.
        probes: u32,
        /// Probes admitted in this half-open period, freed slots included.
        admitted: u32,
        /// Probes that succeeded.
        successes: u32,
    },
}

/// What the model decides for a call starting now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Admitted. `after_cooldown` when this call turned an open breaker half-open; `freed_slot` when it is
    /// a probe admitted only because an earlier probe freed its slot.
    Admit {
        /// This call ended the open period.
        after_cooldown: bool,
        /// This probe took a slot an earlier probe freed.
        freed_slot: bool,
    },
    /// Rejected: open, before the cooldown ended.
    Open,
    /// Rejected: half-open with every probe slot taken.
    ProbesTaken,
}

impl Admission {
    /// `true` for [`Admission::Admit`].
    pub fn is_admitted(self) -> bool {
        matches!(self, Admission::Admit { .. })
    }
}

/// The breaker model. See the module docs.
#[derive(Clone, Debug)]
pub struct BreakerModel {
    spec: BreakerSpec,
    phase: Phase,
    window: Window,
    consecutive_failures: u32,
    /// Open periods since the breaker last closed.
    openings: u32,
    /// Counts state changes: a result counts only in the state that admitted its call.
    epoch: u32,
    /// When probes last closed the breaker: the instant, the half-open state's epoch, the openings before.
    closed_by_probes: Option<(VInstant, u32, u32)>,
}

impl BreakerModel {
    /// A closed breaker.
    pub fn new(spec: BreakerSpec) -> BreakerModel {
        BreakerModel {
            spec,
            phase: Phase::Closed { after_probes: false },
            window: Window::new(&spec),
            consecutive_failures: 0,
            openings: 0,
            epoch: 0,
            closed_by_probes: None,
        }
    }

    /// The state's epoch: it changes whenever the state does. Keep it with a call's admission and hand it
    /// back to [`BreakerModel::record_admitted`] when the call ends.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Records the result of a call admitted in state `epoch` that returned at `at`, for calls that
    /// overlap: a result from an earlier state is ignored (with [`LateResults::LandingState`], recorded in
    /// the state it lands in, a cancellation not counted as a failure freeing no probe slot), except a
    /// failed probe landing at the instant concurrent successes closed the breaker, which reopens it by
    /// [`ProbeSettle::FailureReopens`].
    pub fn record_admitted(&mut self, result: CallResult, at: VInstant, epoch: u32) {
        if epoch == self.epoch {
            return self.record(result, at);
        }
        let settles = self.spec.params.probe_settle == ProbeSettle::FailureReopens;
        if let Some((closed_at, probes_epoch, openings)) = self.closed_by_probes {
            let closed_just_now = self.phase == Phase::Closed { after_probes: true } && closed_at == at;
            if settles && closed_just_now && probes_epoch == epoch && self.is_failure(result) {
                self.openings = openings;
                return self.open(at);
            }
        }
        let uncounted = result == CallResult::Err(ErrorKind::Cancelled) && !self.spec.counts_cancellation;
        if self.spec.params.late_results == LateResults::LandingState && !uncounted {
            if self.spec.params.half_open_entry == HalfOpenEntry::OnTime && self.period_over(at) {
                self.half_open();
            }
            self.record(result, at);
        }
    }

    /// `true` when the breaker is open and its period is over at `now`, by the cooldown tie.
    fn period_over(&self, now: VInstant) -> bool {
        let Phase::Open { until, .. } = self.phase else { return false };
        match self.spec.cooldown_tie {
            CooldownTie::AdmitsAtEnd => now >= until,
            CooldownTie::AdmitsAfterEnd => now > until,
        }
    }

    /// Turns the breaker half-open, with no probe admitted yet.
    fn half_open(&mut self) {
        self.phase = Phase::HalfOpen { probes: 0, admitted: 0, successes: 0 };
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// `true` for a result that counts as a failure.
    fn is_failure(&self, result: CallResult) -> bool {
        match result {
            CallResult::Ok | CallResult::Err(ErrorKind::CircuitOpen) => false,
            CallResult::Err(ErrorKind::Cancelled) => self.spec.counts_cancellation,
            CallResult::Err(_) => true,
        }
    }

    /// The current state.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Decides for a call starting at `now` (an open breaker whose period ended turns half-open).
    pub fn admit(&mut self, now: VInstant) -> Admission {
        let mut after_cooldown = false;
        if let Phase::Open { .. } = self.phase {
            if !self.period_over(now) {
                return Admission::Open;
            }
            self.half_open();
            after_cooldown = true;
        }
        let mut freed_slot = false;
        if let Phase::HalfOpen { probes, admitted, .. } = &mut self.phase {
            if *probes >= self.spec.params.half_open_probes {
                return Admission::ProbesTaken;
            }
            freed_slot = *admitted >= self.spec.params.half_open_probes;
            *probes += 1;
            *admitted = admitted.saturating_add(1);
        }
        Admission::Admit { after_cooldown, freed_slot }
    }

    /// Records the result of an admitted call that returned at `at`.
    pub fn record(&mut self, result: CallResult, at: VInstant) {
        let failed = match result {
            CallResult::Ok => false,
            CallResult::Err(ErrorKind::Cancelled) if self.spec.counts_cancellation => true,
            CallResult::Err(ErrorKind::Cancelled | ErrorKind::CircuitOpen) => {
                if let Phase::HalfOpen { probes, .. } = &mut self.phase {
                    *probes = probes.saturating_sub(1);
                }
                return;
            }
            CallResult::Err(_) => true,
        };
        match &mut self.phase {
            Phase::Closed { .. } => {
                if self.trips(failed, at) {
                    self.open(at);
                }
            }
            Phase::HalfOpen { .. } if failed => self.open(at),
            Phase::HalfOpen { successes, .. } => {
                *successes += 1;
                if *successes >= self.spec.params.successes_to_close() {
                    self.window.clear();
                    self.consecutive_failures = 0;
                    self.closed_by_probes = Some((at, self.epoch, self.openings));
                    self.openings = 0;
                    self.phase = Phase::Closed { after_probes: true };
                    self.epoch = self.epoch.wrapping_add(1);
                }
            }
            Phase::Open { .. } => {}
        }
    }

    /// Records a closed-state result; `true` when it opens the breaker.
    fn trips(&mut self, failed: bool, at: VInstant) -> bool {
        let params = self.spec.params;
        self.consecutive_failures = if failed { self.consecutive_failures.saturating_add(1) } else { 0 };
        if let CircuitPolicy::ConsecutiveFailures { threshold } = self.spec.policy {
            return failed && self.consecutive_failures >= threshold;
        }
        let (results, failures) = self.window.push(&self.spec, failed, at);
        let over = u64::from(failures) * 100 >= u64::from(params.failure_percent) * u64::from(results);
        results >= params.min_calls && over
    }

    fn open(&mut self, at: VInstant) {
        self.window.clear();
        self.consecutive_failures = 0;
        self.openings = self.openings.saturating_add(1);
        let period = self.spec.open_shape.period(self.spec.params.open_for, self.openings);
        self.phase = Phase::Open { opened_at: at, until: at.saturating_add(period) };
        self.epoch = self.epoch.wrapping_add(1);
    }
}

/// What one call did, as the circuit laws see it.
#[derive(Clone, Copy, Debug)]
pub struct CallFacts {
    /// When the call started.
    pub started: VInstant,
    /// The index of its first `AttemptStart`.
    pub first_attempt: Option<u32>,
    /// The index of its first `Rejected { CircuitOpen }`.
    pub rejected_open: Option<u32>,
    /// Its `CallEnd`: index, instant, result.
    pub end: Option<(u32, VInstant, CallResult)>,
    /// The subject reported a transition out of half-open during the call.
    pub leaves_half_open: bool,
    /// A bulkhead kept the call out: it was rejected as full, or it waited in the queue (`Queued`) and
    /// ended there (no event of its own between `Queued` and its end) with no attempt and no other refusal.
    pub kept_out: bool,
}

/// `true` when a queued call's event `kind` shows it left the queue with a slot: a queued call waits until
/// its next event of its own (a failed clock read, a transition, an attempt), not counting its end, a
/// wall-clock jump (the case's, not the call's doing) or a diagnostic.
pub fn leaves_queue(kind: &EventKind) -> bool {
    !matches!(
        kind,
        EventKind::Queued | EventKind::CallEnd { .. } | EventKind::WallJump { .. } | EventKind::Diagnostic { .. }
    )
}

impl CallFacts {
    /// Facts of one call's events (see [`crate::temporal::per_call`]).
    pub fn of(call: &[Event]) -> CallFacts {
        let mut facts = CallFacts {
            started: call.first().map_or(VInstant::EPOCH, |event| event.at),
            first_attempt: None,
            rejected_open: None,
            end: None,
            leaves_half_open: false,
            kept_out: false,
        };
        // A call that waited in the queue and ended with no attempt and no other refusal left the queue.
        let (mut queued, mut decided) = (false, false);
        for event in call {
            match event.kind {
                EventKind::AttemptStart => facts.first_attempt = facts.first_attempt.or(Some(event.seq)),
                EventKind::Rejected { reason: Rejection::CircuitOpen } => {
                    facts.rejected_open = facts.rejected_open.or(Some(event.seq))
                }
                EventKind::CallEnd { result } => facts.end = Some((event.seq, event.at, result)),
                EventKind::Rejected { reason: Rejection::BulkheadFull } => facts.kept_out = true,
                EventKind::Queued => queued = true,
                EventKind::Rejected { .. } => decided = true,
                EventKind::CircuitTransition { from: timelaw_core::CircuitState::HalfOpen, .. } => {
                    facts.leaves_half_open = true
                }
                _ => {}
            }
            queued &= !leaves_queue(&event.kind);
        }
        facts.kept_out |= queued && !decided && facts.first_attempt.is_none();
        facts
    }
    /// A bulkhead kept the call out before it reached the breaker: it was rejected as full, or it left
    /// the queue with no attempt, and the breaker never refused it. A bulkhead stands in front of the
    /// breaker, so such a call took no probe slot and is no result: the breaker models skip it.
    pub fn never_reached_breaker(&self) -> bool {
        self.kept_out && self.first_attempt.is_none() && self.rejected_open.is_none()
    }
    /// The call returned this.
    pub fn result(&self) -> Option<CallResult> {
        self.end.map(|(_, _, result)| result)
    }
    /// The subject refused the call: a circuit-open rejection (or result) and no attempt.
    pub fn rejected(&self) -> bool {
        let open_result = self.result() == Some(CallResult::Err(ErrorKind::CircuitOpen));
        self.first_attempt.is_none() && (self.rejected_open.is_some() || open_result)
    }
    /// The event to blame for a refusal: the rejection, else the `CallEnd`.
    pub fn refusal_event(&self) -> Option<u32> {
        self.rejected_open.or(self.end.map(|(seq, _, _)| seq))
    }
    /// What the breaker counts of the call: when it ended and its result, except that a call a bulkhead
    /// kept out and that never dispatched is no result (`Err(CircuitOpen)`: its probe slot, if any, is
    /// given back), like a call the breaker refused itself.
    pub fn breaker_result(&self) -> Option<(VInstant, CallResult)> {
        let (_, at, result) = self.end?;
        let refused_elsewhere = self.kept_out && self.first_attempt.is_none();
        Some((at, if refused_elsewhere { CallResult::Err(ErrorKind::CircuitOpen) } else { result }))
    }
    /// Feeds the call's result ([`CallFacts::breaker_result`]) to `model` when the model admitted it.
    pub fn record(&self, model: &mut BreakerModel, admission: Admission) {
        if let (Admission::Admit { .. }, Some((at, result))) = (admission, self.breaker_result()) {
            model.record(result, at);
        }
    }
}
