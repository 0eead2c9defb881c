//! A model of the contract's circuit breaker, replayed over the calls of a trace, for the circuit laws.
//!
//! The semantics are those of the reference interpreter (see `timelaw_core::reference`, section "Circuit
//! breaker"): closed, it keeps the results of the last `window` admitted calls and opens when at least
//! `min_calls` results are there and `failures * 100 >= failure_percent * results` (every error but
//! `Cancelled` is a failure; a call rejected with `CircuitOpen` is not a result). Open, it rejects until
//! `open_for` has passed since the `CallEnd` of the call that opened it; the first call at or after that
//! instant turns it half-open. Half-open, it admits at most `half_open_probes` probes: one failure
//! reopens it, that many successes close it with an empty window; a probe that is not a result frees its
//! slot.
//!
//! The model is driven by the observed results of the calls it admits; it ignores the results of calls
//! it would have rejected.

use std::collections::VecDeque;

use timelaw_core::{CallResult, CircuitContract, ErrorKind, Event, EventKind, Rejection, VInstant};

/// The results in the closed state's window: a bit ring (no allocation) up to 128 results, a queue beyond.
#[derive(Clone, Debug)]
enum Window {
    Bits { bits: u128, len: u32 },
    Queue(VecDeque<bool>),
}

impl Window {
    fn new(size: u32) -> Window {
        if size <= 128 {
            Window::Bits { bits: 0, len: 0 }
        } else {
            Window::Queue(VecDeque::new())
        }
    }
    /// Pushes a result (`true` for a failure); returns `(results, failures)`.
    fn push(&mut self, size: u32, failed: bool) -> (u32, u32) {
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
                let failures = queue.iter().filter(|&&failed| failed).count();
                (queue.len() as u32, failures as u32) // Both at most `size`, a u32.
            }
        }
    }
    fn clear(&mut self) {
        match self {
            Window::Bits { bits, len } => (*bits, *len) = (0, 0),
            Window::Queue(queue) => queue.clear(),
        }
    }
}

/// The model's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Closed,
    Open { opened_at: VInstant },
    HalfOpen { probes: u32, successes: u32 },
}

/// What the model decides for a call starting now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Admitted; `after_cooldown` when this call turned an open breaker half-open.
    Admit { after_cooldown: bool },
    /// Rejected: open, before the cooldown ended.
    Open,
    /// Rejected: half-open with every probe slot taken.
    ProbesTaken,
}

/// The breaker model. See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    params: CircuitContract,
    pub(crate) phase: Phase,
    window: Window,
}

impl Model {
    pub(crate) fn new(params: CircuitContract) -> Model {
        Model { params, phase: Phase::Closed, window: Window::new(params.window) }
    }

    pub(crate) fn admit(&mut self, now: VInstant) -> Admission {
        let mut after_cooldown = false;
        if let Phase::Open { opened_at } = self.phase {
            if now < opened_at.saturating_add(self.params.open_for) {
                return Admission::Open;
            }
            self.phase = Phase::HalfOpen { probes: 0, successes: 0 };
            after_cooldown = true;
        }
        if let Phase::HalfOpen { probes, .. } = &mut self.phase {
            if *probes >= self.params.half_open_probes {
                return Admission::ProbesTaken;
            }
            *probes += 1;
        }
        Admission::Admit { after_cooldown }
    }

    /// Records the result of an admitted call that returned at `at`.
    pub(crate) fn record(&mut self, result: CallResult, at: VInstant) {
        let failed = match result {
            CallResult::Ok => false,
            CallResult::Err(ErrorKind::Cancelled | ErrorKind::CircuitOpen) => {
                if let Phase::HalfOpen { probes, .. } = &mut self.phase {
                    *probes = probes.saturating_sub(1);
                }
                return;
            }
            CallResult::Err(_) => true,
        };
        match &mut self.phase {
            Phase::Closed => {
                let (results, failures) = self.window.push(self.params.window, failed);
                let over = u64::from(failures) * 100 >= u64::from(self.params.failure_percent) * u64::from(results);
                if results >= self.params.min_calls && over {
                    self.open(at);
                }
            }
            Phase::HalfOpen { .. } if failed => self.open(at),
            Phase::HalfOpen { successes, .. } => {
                *successes += 1;
                if *successes >= self.params.half_open_probes {
                    self.window.clear();
                    self.phase = Phase::Closed;
                }
            }
            Phase::Open { .. } => {}
        }
    }

    fn open(&mut self, at: VInstant) {
        self.window.clear();
        self.phase = Phase::Open { opened_at: at };
    }
}

/// What one call did, as the circuit laws see it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallFacts {
    pub(crate) started: VInstant,
    pub(crate) first_attempt: Option<u32>,
    pub(crate) rejected_open: Option<u32>,
    pub(crate) end: Option<(u32, VInstant, CallResult)>,
    pub(crate) leaves_half_open: bool,
}

impl CallFacts {
    /// Facts of one call's events (never empty).
    pub(crate) fn of(call: &[Event]) -> CallFacts {
        let mut facts = CallFacts {
            started: call.first().map_or(VInstant::EPOCH, |event| event.at),
            first_attempt: None,
            rejected_open: None,
            end: None,
            leaves_half_open: false,
        };
        for event in call {
            match event.kind {
                EventKind::AttemptStart => facts.first_attempt = facts.first_attempt.or(Some(event.seq)),
                EventKind::Rejected { reason: Rejection::CircuitOpen } => {
                    facts.rejected_open = facts.rejected_open.or(Some(event.seq))
                }
                EventKind::CallEnd { result } => facts.end = Some((event.seq, event.at, result)),
                EventKind::CircuitTransition { from: timelaw_core::CircuitState::HalfOpen, .. } => {
                    facts.leaves_half_open = true
                }
                _ => {}
            }
        }
        facts
    }
    /// The call returned this.
    pub(crate) fn result(&self) -> Option<CallResult> {
        self.end.map(|(_, _, result)| result)
    }
    /// The subject refused the call: a circuit-open rejection (or result) and no attempt.
    pub(crate) fn rejected(&self) -> bool {
        let open_result = self.result() == Some(CallResult::Err(ErrorKind::CircuitOpen));
        self.first_attempt.is_none() && (self.rejected_open.is_some() || open_result)
    }
    /// Feeds the call's result to `model` when the model admitted it.
    pub(crate) fn record(&self, model: &mut Model, admission: Admission) {
        if let (Admission::Admit { .. }, Some((_, at, result))) = (admission, self.end) {
            model.record(result, at);
        }
    }
}
