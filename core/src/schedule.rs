//! Failure schedules and cases: data that scripts every dispatch a subject makes.
//!
//! A [`Schedule`] holds one [`CallScript`] per call (a stream of items). Step `i` of a call scripts the
//! `i`-th dispatch of that call: how long it takes and how it ends.
//!
//! # Repeated steps
//! A [`Step`] with `repeat: n` scripts `n` consecutive dispatches alike, so a call can fail 40, 1,000 or
//! 100,000 times without a 100,000-element script. The World expands it lazily ([`CallScript::step`]
//! walks the steps, summing their counts); the field is left out of JSON when it is 1, so schedules
//! without repeats read and write as before.
//!
//! # Arrivals: when calls start
//! A call starts in one of two ways. Without an arrival (`arrival: None`, the sequential form and the
//! simplest), it starts `gap_before` after the previous call ENDED (the first call: `gap_before` after
//! the start of the case), so calls never overlap. With an arrival (`arrival: Some(offset)`), it arrives
//! at `offset` after the start of the case, whether or not earlier calls have ended, so calls overlap:
//! - a concurrent driver ([`crate::concurrent::run_async_calls`]) starts it at that instant, but never before
//!   the previous call started (calls start in index order; at the same instant, by index);
//! - a sequential subject (one call at a time, [`World::start_call`](crate::World::start_call)) starts it
//!   at its arrival or, when the previous call is still running then, as soon as that call ends: the
//!   call waited in the caller's queue.
//!
//! `gap_before` is not used for a call with an arrival. The domain ([`Schedule::arrivals_check`], and the
//! generators' membership rules) gives every call an arrival or none, arrivals never decreasing, and no
//! `gap_before` on a call with an arrival; a schedule breaking these still runs with the meaning above.
//! `arrival` is left out of JSON when `None`, so sequential schedules read and write as before.
//!
//! # Interleaving
//! [`Schedule::interleave`] records the order in which tasks ready at the same virtual instant run (see
//! [`crate::concurrent::run_async_calls`]); empty (the default, left out of JSON) is first-come order.
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
    /// How many consecutive dispatches this step scripts (default 1, left out of JSON when 1; 0 counts
    /// as 1).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub repeat: u32,
}

fn one() -> u32 {
    1
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_one(repeat: &u32) -> bool {
    *repeat == 1
}

impl Step {
    /// What a dispatch past the end of its call's script returns: `Ok` after zero time.
    pub const PAST_END: Step = Step { duration: VDuration::ZERO, outcome: Outcome::Ok, repeat: 1 };

    /// A step ending with `outcome` after `duration`.
    pub const fn new(duration: VDuration, outcome: Outcome) -> Step {
        Step { duration, outcome, repeat: 1 }
    }
    /// An instant step ending with `outcome`.
    pub const fn instant(outcome: Outcome) -> Step {
        Step { duration: VDuration::ZERO, outcome, repeat: 1 }
    }
    /// This step scripting `repeat` consecutive dispatches.
    pub const fn repeated(self, repeat: u32) -> Step {
        Step { repeat, ..self }
    }
    /// The number of dispatches this step scripts (`repeat`, with 0 read as 1).
    pub const fn count(self) -> u32 {
        if self.repeat == 0 {
            1
        } else {
            self.repeat
        }
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
    /// When the call arrives, as an offset from the start of the case; `None` (left out of JSON): after
    /// the previous call ended and `gap_before` (see the module docs, "Arrivals").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival: Option<VDuration>,
}

fn default_idempotent() -> bool {
    true
}

impl CallScript {
    /// An idempotent call with no gap and no cancellation.
    pub fn new(steps: Vec<Step>) -> CallScript {
        CallScript { gap_before: VDuration::ZERO, steps, cancel_after: None, idempotent: true, arrival: None }
    }
    /// The same call arriving `offset` after the start of the case.
    pub fn arriving(mut self, offset: VDuration) -> CallScript {
        self.arrival = Some(offset);
        self
    }
    /// Instant steps with the given outcomes.
    pub fn outcomes(outcomes: &[Outcome]) -> CallScript {
        CallScript::new(outcomes.iter().map(|&outcome| Step::instant(outcome)).collect())
    }
    /// The step that dispatch number `attempt` (from 1) of this call gets, as one dispatch (`repeat` 1):
    /// repeated steps are expanded lazily, without building the expanded list.
    pub fn step(&self, attempt: u32) -> Step {
        let mut before = u64::from(attempt.saturating_sub(1));
        for step in &self.steps {
            let count = u64::from(step.count());
            if before < count {
                return step.repeated(1);
            }
            before -= count;
        }
        Step::PAST_END
    }
    /// The number of dispatches the steps script (repeats counted).
    pub fn dispatches_scripted(&self) -> u64 {
        self.steps.iter().map(|step| u64::from(step.count())).sum()
    }
    /// Scripts dispatch number `attempt` (from 1) as `step` (one dispatch), splitting a repeated step
    /// around it and padding with [`Step::PAST_END`] past the end; the other dispatches keep their steps.
    pub fn set_step(&mut self, attempt: u32, step: Step) {
        let target = u64::from(attempt.saturating_sub(1));
        let mut start = 0_u64;
        for index in 0..self.steps.len() {
            let old = self.steps[index];
            let count = u64::from(old.count());
            if target < start + count {
                let (head, tail) = (target - start, start + count - target - 1);
                // Both parts are below `count`, itself a u32.
                let part = |n: u64| old.repeated(u32::try_from(n).unwrap_or(u32::MAX));
                let parts = [(head, part(head)), (1, step.repeated(1)), (tail, part(tail))];
                let kept = parts.into_iter().filter(|(n, _)| *n > 0).map(|(_, step)| step);
                self.steps.splice(index..=index, kept);
                return;
            }
            start += count;
        }
        let gap = target - start;
        if gap > 0 {
            self.steps.push(Step::PAST_END.repeated(u32::try_from(gap).unwrap_or(u32::MAX)));
        }
        self.steps.push(step.repeated(1));
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
    /// The order of tasks ready at the same instant, as choices: entry `i` picks among the ready tasks at
    /// the `i`-th point where two or more are ready (see [`crate::concurrent::run_async_calls`]). Empty (the
    /// default, left out of JSON) and missing entries pick the first: first-come order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interleave: Vec<u32>,
}

/// Why a schedule's arrivals lie outside the domain (see the module docs, "Arrivals"). Each names the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalError {
    /// Some calls have an arrival and this one has none.
    #[error("call {call} has no arrival while call {with} has one (give every call an arrival or none)")]
    Mixed {
        /// The first call without an arrival.
        call: u32,
        /// The first call with one.
        with: u32,
    },
    /// This call arrives before the previous one.
    #[error("call {call} arrives at {arrival}, before call {} at {previous} (arrivals never decrease)", call - 1)]
    Decreasing {
        /// The call (from 1).
        call: u32,
        /// Its arrival.
        arrival: VDuration,
        /// The previous call's arrival.
        previous: VDuration,
    },
    /// This call has an arrival and a `gap_before`, which an arrival leaves unused.
    #[error("call {call} has an arrival and a gap_before of {gap} (a call with an arrival has no gap)")]
    GapWithArrival {
        /// The call (from 0).
        call: u32,
        /// Its gap.
        gap: VDuration,
    },
}

impl Schedule {
    /// A schedule of the given calls.
    pub fn new(calls: Vec<CallScript>) -> Schedule {
        Schedule { calls, clock: ClockFaults::default(), interleave: Vec::new() }
    }
    /// A single call with the given steps.
    pub fn single(steps: Vec<Step>) -> Schedule {
        Schedule::new(vec![CallScript::new(steps)])
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
    /// The same schedule with `interleave` as its choices of order at ties.
    pub fn with_interleave(mut self, interleave: Vec<u32>) -> Schedule {
        self.interleave = interleave;
        self
    }
    /// `true` when some call has an arrival (the case's calls may overlap).
    pub fn has_arrivals(&self) -> bool {
        self.calls.iter().any(|call| call.arrival.is_some())
    }
    /// Checks the domain's rules on arrivals (module docs, "Arrivals"): every call has one or none,
    /// they never decrease, a call with one has no `gap_before`.
    ///
    /// # Errors
    /// The first [`ArrivalError`], naming its call.
    pub fn arrivals_check(&self) -> Result<(), ArrivalError> {
        let Some(with) = self.calls.iter().position(|call| call.arrival.is_some()) else { return Ok(()) };
        let mut previous = VDuration::ZERO;
        for (index, call) in self.calls.iter().enumerate() {
            // `CALLS_MAX`-bounded in the domain; a longer schedule saturates the index it names.
            let named = u32::try_from(index).unwrap_or(u32::MAX);
            let Some(arrival) = call.arrival else {
                return Err(ArrivalError::Mixed { call: named, with: u32::try_from(with).unwrap_or(u32::MAX) });
            };
            if arrival < previous {
                return Err(ArrivalError::Decreasing { call: named, arrival, previous });
            }
            if call.gap_before != VDuration::ZERO {
                return Err(ArrivalError::GapWithArrival { call: named, gap: call.gap_before });
            }
            previous = arrival;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    const T: Step = Step::instant(Outcome::Transient);
    const F: Step = Step::instant(Outcome::Fatal);

    #[track_caller]
    fn check_step(steps: &[Step], attempt: u32, expected: Step) {
        assert_eq!(CallScript::new(steps.to_vec()).step(attempt), expected, "attempt {attempt} of {steps:?}");
    }

    #[test]
    fn repeated_steps_expand_lazily() {
        check_step(&[T.repeated(40), F], 1, T);
        check_step(&[T.repeated(40), F], 40, T);
        check_step(&[T.repeated(40), F], 41, F);
        check_step(&[T.repeated(40), F], 42, Step::PAST_END);
        check_step(&[T.repeated(100_000)], 100_000, T);
        check_step(&[T.repeated(100_000)], 100_001, Step::PAST_END);
        check_step(&[T.repeated(0), F], 2, F);
        check_step(&[T.repeated(u32::MAX), F], u32::MAX, T);
    }

    #[track_caller]
    fn check_set(steps: &[Step], attempt: u32, expected: &[Step]) {
        let mut script = CallScript::new(steps.to_vec());
        script.set_step(attempt, F);
        assert_eq!(script.steps, expected, "set attempt {attempt} of {steps:?}");
    }

    #[test]
    fn set_step_splits_a_repeated_step() {
        check_set(&[T.repeated(5)], 1, &[F, T.repeated(4)]);
        check_set(&[T.repeated(5)], 3, &[T.repeated(2), F, T.repeated(2)]);
        check_set(&[T.repeated(5)], 5, &[T.repeated(4), F]);
        check_set(&[T], 1, &[F]);
        check_set(&[T], 4, &[T, Step::PAST_END.repeated(2), F]);
        check_set(&[], 1, &[F]);
    }

    #[test]
    fn repeat_is_left_out_of_json_when_one() {
        let plain = serde_json::to_string(&T).unwrap();
        assert_eq!(plain, r#"{"duration":"0ns","outcome":"transient"}"#.replace("\"0ns\"", &duration_json()));
        assert!(!plain.contains("repeat"), "{plain}");
        let long = serde_json::to_string(&T.repeated(40)).unwrap();
        assert!(long.ends_with(r#""repeat":40}"#), "{long}");
        assert_eq!(serde_json::from_str::<Step>(&long).unwrap(), T.repeated(40));
        assert_eq!(serde_json::from_str::<Step>(&plain).unwrap(), T);
    }

    fn duration_json() -> String {
        serde_json::to_string(&VDuration::ZERO).unwrap()
    }

    #[track_caller]
    fn check_arrivals(calls: &[(u64, Option<u64>)], expect: Result<(), &str>) {
        let ms = VDuration::from_millis;
        let calls = calls.iter().map(|&(gap, arrival)| CallScript {
            gap_before: ms(gap),
            arrival: arrival.map(ms),
            ..CallScript::new(vec![])
        });
        let found = Schedule::new(calls.collect()).arrivals_check().map_err(|error| error.to_string());
        assert_eq!(found.as_ref().map(|_| ()).map_err(String::as_str), expect, "{found:?}");
    }

    #[test]
    fn arrivals_are_all_or_none_never_decreasing_without_gaps() {
        check_arrivals(&[(0, None), (5, None)], Ok(()));
        check_arrivals(&[(0, Some(0)), (0, Some(0)), (0, Some(7))], Ok(()));
        check_arrivals(&[(0, Some(u64::MAX / 1_000_000))], Ok(()));
        check_arrivals(
            &[(0, Some(0)), (0, None)],
            Err("call 1 has no arrival while call 0 has one (give every call an arrival or none)"),
        );
        check_arrivals(
            &[(0, None), (0, Some(3))],
            Err("call 0 has no arrival while call 1 has one (give every call an arrival or none)"),
        );
        check_arrivals(
            &[(0, Some(5)), (0, Some(4))],
            Err("call 1 arrives at 4ms, before call 0 at 5ms (arrivals never decrease)"),
        );
        check_arrivals(
            &[(0, Some(5)), (2, Some(6))],
            Err("call 1 has an arrival and a gap_before of 2ms (a call with an arrival has no gap)"),
        );
    }

    #[test]
    fn arrival_and_interleave_are_left_out_of_json_when_absent() {
        let plain = Schedule::single(vec![T]);
        let json = serde_json::to_string(&plain).unwrap();
        assert!(!json.contains("arrival") && !json.contains("interleave"), "{json}");
        let concurrent = Schedule::new(vec![CallScript::new(vec![T]).arriving(VDuration::from_millis(3))])
            .with_interleave(vec![1, 0]);
        let json = serde_json::to_string(&concurrent).unwrap();
        assert!(json.contains(r#""arrival":"3ms""#) && json.ends_with(r#""interleave":[1,0]}"#), "{json}");
        assert_eq!(serde_json::from_str::<Schedule>(&json).unwrap(), concurrent);
        assert!(concurrent.has_arrivals() && !plain.has_arrivals());
    }

    #[test]
    fn dispatches_scripted_counts_repeats() {
        assert_eq!(CallScript::new(vec![T.repeated(100_000), F]).dispatches_scripted(), 100_001);
        assert_eq!(CallScript::new(vec![]).dispatches_scripted(), 0);
    }
}
