//! Failure schedules and cases: data that scripts every dispatch a subject makes.
//!
//! A [`Schedule`] holds one [`CallScript`] per call (a stream of items). Step `i` of a call scripts the
//! `i`-th dispatch of that call: how long it takes and how it ends.
//!
//! # Past the end of a script
//! A dispatch beyond the last step of its call returns [`Step::PAST_END`]: `Ok` after zero time. A subject
//! that keeps retrying therefore always meets success eventually, and a short script means "then it works".

use serde::{Deserialize, Serialize};

use crate::clock_faults::ClockFaults;
use crate::time::VDuration;

/// How one scripted dispatch ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Success.
    Ok,
    /// A failure worth retrying (a connection reset, a 503).
    Transient,
    /// A failure not worth retrying (a 400, a parse error).
    Fatal,
    /// The server asks to wait at least `retry_after` before trying again (a 429).
    RateLimited {
        /// The wait the server asks for.
        retry_after: VDuration,
    },
    /// Never completes by itself: it ends only when a timeout or a cancellation cuts it. The step's
    /// duration is ignored.
    Hang,
}

impl Outcome {
    /// `true` for [`Outcome::Ok`].
    pub const fn is_ok(self) -> bool {
        matches!(self, Outcome::Ok)
    }
    /// A short lowercase name (`ok`, `transient`, `fatal`, `rate_limited`, `hang`).
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Transient => "transient",
            Outcome::Fatal => "fatal",
            Outcome::RateLimited { .. } => "rate_limited",
            Outcome::Hang => "hang",
        }
    }
}

/// One scripted dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Virtual time the dispatch takes before it ends with `outcome`.
    pub duration: VDuration,
    /// How it ends.
    pub outcome: Outcome,
}

impl Step {
    /// What a dispatch past the end of its call's script returns: `Ok` after zero time.
    pub const PAST_END: Step = Step { duration: VDuration::ZERO, outcome: Outcome::Ok };

    /// A step ending with `outcome` after `duration`.
    pub const fn new(duration: VDuration, outcome: Outcome) -> Step {
        Step { duration, outcome }
    }
    /// An instant step ending with `outcome`.
    pub const fn instant(outcome: Outcome) -> Step {
        Step { duration: VDuration::ZERO, outcome }
    }
}

/// The script of one call (one item of a stream).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallScript {
    /// Virtual time that passes before this call starts (after the previous call ended).
    #[serde(default)]
    pub gap_before: VDuration,
    /// The scripted dispatches, in order; see the module docs for what follows the last one.
    pub steps: Vec<Step>,
    /// The caller cancels the call this long after it starts; `None` never.
    #[serde(default)]
    pub cancel_after: Option<VDuration>,
    /// Whether the operation may safely run more than once.
    #[serde(default = "default_idempotent")]
    pub idempotent: bool,
}

fn default_idempotent() -> bool {
    true
}

impl CallScript {
    /// An idempotent call with no gap and no cancellation.
    pub fn new(steps: Vec<Step>) -> CallScript {
        CallScript { gap_before: VDuration::ZERO, steps, cancel_after: None, idempotent: true }
    }
    /// Instant steps with the given outcomes.
    pub fn outcomes(outcomes: &[Outcome]) -> CallScript {
        CallScript::new(outcomes.iter().map(|&outcome| Step::instant(outcome)).collect())
    }
    /// The step that dispatch number `attempt` (from 1) of this call gets.
    pub fn step(&self, attempt: u32) -> Step {
        let index = attempt.saturating_sub(1) as usize;
        self.steps.get(index).copied().unwrap_or(Step::PAST_END)
    }
}

/// The scripts of every call of a case, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schedule {
    /// One script per call.
    pub calls: Vec<CallScript>,
    /// Wall-clock jumps and failed clock reads ([`crate::clock_faults`]); left out of JSON when empty, so
    /// schedules written before clock faults existed read unchanged.
    #[serde(default, skip_serializing_if = "ClockFaults::is_empty")]
    pub clock: ClockFaults,
}

impl Schedule {
    /// A schedule of the given calls.
    pub fn new(calls: Vec<CallScript>) -> Schedule {
        Schedule { calls, clock: ClockFaults::default() }
    }
    /// A single call with the given steps.
    pub fn single(steps: Vec<Step>) -> Schedule {
        Schedule { calls: vec![CallScript::new(steps)], clock: ClockFaults::default() }
    }
    /// The same schedule with `clock` as its clock faults.
    pub fn with_clock(mut self, clock: ClockFaults) -> Schedule {
        self.clock = clock;
        self
    }
    /// The same schedule without its wall jumps (the "without wall jumps" run of the metamorphic law).
    pub fn without_wall_jumps(&self) -> Schedule {
        let mut schedule = self.clone();
        schedule.clock.wall_jumps.clear();
        schedule
    }
    /// The total number of scripted steps over all calls.
    pub fn step_count(&self) -> usize {
        self.calls.iter().map(|call| call.steps.len()).sum()
    }
}

/// Everything one run depends on: the subject's config, the schedule and the randomness seed.
///
/// ```
/// use timelaw_core::{Case, Outcome, Schedule, Step};
/// let case = Case::new(3_u32, Schedule::single(vec![Step::instant(Outcome::Transient)]), 42);
/// let json = serde_json::to_string(&case).unwrap();
/// let back: Case<u32> = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, case);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case<C> {
    /// The subject's configuration.
    pub config: C,
    /// The failure schedule.
    pub schedule: Schedule,
    /// Seed of the World's randomness.
    pub seed: u64,
}

impl<C> Case<C> {
    /// A case from its parts.
    pub fn new(config: C, schedule: Schedule, seed: u64) -> Case<C> {
        Case { config, schedule, seed }
    }
}
