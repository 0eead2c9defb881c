//! The schedule domain: one description ([`describe_schedule`]) and its three front-ends
//! ([`sample_schedule`], [`schedule_strategy`], [`arbitrary_schedule`]).
//!
//! # Ranges
//! | what | range |
//! |---|---|
//! | calls | 1, or with [`Swarm::multi_call`] up to [`CALLS_MAX`] |
//! | gap before a call (not the first) | 0 to [`GAP_MAX`] (2 h) |
//! | steps per call | 0 to [`STEPS_PER_CALL_MAX`] |
//! | repeats of one step (with [`Swarm::long_runs`], one step per schedule) | 13 to [`LONG_RUN_MAX`] |
//! | attempt duration | 0 to 30 s; near `u64::MAX` ns only where something cuts the attempt |
//! | outcome | by [`Swarm::outcomes`]; `hang` only where something cuts the attempt |
//! | retry-after | 0 to 60 s, or a boundary value (the cap, the cap + 1 ns, near `u64::MAX` ns) |
//! | cancellation delay | 0 to 60 s, or the attempt timeout, or the deadline |
//! | clock faults | with [`Swarm::clock_faults`]: see [`crate::clock`] |
//!
//! "Something cuts the attempt" means the contract has an attempt timeout or the call has a cancellation
//! delay, so the reference interpreter never legitimately violates `terminates`: no hang without an end,
//! and virtual time stays within days.
//!
//! # Boundary values
//! With [`Swarm::boundary_percent`], that share of durations and counts is taken from the boundary values
//! the laws care about (see [`crate::coverage::BoundaryClass`]): attempts at, 1 ns under and 1 ns over
//! the attempt timeout; attempts and sleeps that end exactly on the deadline (predicted from the
//! jitter-free delays); attempts whose next retry would start exactly on, or 1 ns after, the
//! elapsed-time limit (`retry_elapsed_max`); up to `max_attempts + 1` steps; gaps at, 1 ns
//! around, half and twice the circuit's open duration; retry-afters at and over the cap.

use std::sync::Arc;

use arbitrary::Unstructured;
use proptest::strategy::BoxedStrategy;
use timelaw_core::{BackoffShape, CallScript, Contract, Outcome, Schedule, SplitMix64, Step, VDuration};

use crate::choice::{list, optional, scaled_duration, Choices};
use crate::strategy::{choice_strategy, Describe};
use crate::swarm::Swarm;

/// The most calls a schedule holds.
pub const CALLS_MAX: u64 = 8;
/// The most scripted steps a call holds.
pub const STEPS_PER_CALL_MAX: u64 = 12;
/// The most dispatches one repeated step scripts in a generated schedule: far past the retry counts
/// where counters saturate or wrap (32, 40, 64, thousands) and past the World's default attempt and
/// sleep limits (16,384). A subject still consuming such a run when a count limit is reached is cut
/// there ([`timelaw_core::Abort::LongRunCut`]: safety laws judged on the prefix, liveness laws
/// inconclusive), never blamed for not terminating; the count is independent of the contract.
pub const LONG_RUN_MAX: u64 = 100_000;
/// The longest gap between two calls.
pub const GAP_MAX: VDuration = VDuration::from_secs(2 * 3600);
/// A duration at least `VDuration::MAX - NEAR_MAX_SPAN` is "near the end of time".
pub const NEAR_MAX_SPAN: VDuration = VDuration::from_secs(1);

const NS: VDuration = VDuration::from_nanos(1);
const MS: VDuration = VDuration::from_millis(1);
const SEC: VDuration = VDuration::from_secs(1);

/// A schedule for `contract`, drawn natively (the runner's hot loop).
///
/// ```
/// use timelaw_core::{Contract, SplitMix64, VDuration};
/// use timelaw_generators::{sample_schedule, Swarm, STEPS_PER_CALL_MAX};
///
/// let mut contract = Contract::default();
/// contract.retry.max_attempts = Some(3);
/// contract.timing.attempt_timeout = Some(VDuration::from_millis(50));
/// let schedule = sample_schedule(&mut SplitMix64::new(1), &Swarm::everything(), &contract);
/// assert!(schedule.calls.iter().all(|call| call.steps.len() as u64 <= STEPS_PER_CALL_MAX));
/// ```
pub fn sample_schedule(rng: &mut SplitMix64, swarm: &Swarm, contract: &Contract) -> Schedule {
    describe_schedule(rng, swarm, contract)
}

/// The schedule domain for `contract` as a proptest strategy, with every swarm feature on; shrinks
/// towards fewer calls, fewer steps, `Ok` outcomes and zero durations (see [`crate::strategy`]).
pub fn schedule_strategy(contract: Contract) -> BoxedStrategy<Schedule> {
    choice_strategy(move |tape| describe_schedule(tape, &Swarm::everything(), &contract))
}

/// [`schedule_strategy`] under `swarm` (for example [`Swarm::everything`] with
/// [`Swarm::with_concurrency`], for overlapping calls).
pub fn schedule_strategy_with(contract: Contract, swarm: Swarm) -> BoxedStrategy<Schedule> {
    choice_strategy(move |tape| describe_schedule(tape, &swarm, &contract))
}

/// [`arbitrary_schedule`] under `swarm` (for example with [`Swarm::with_concurrency`]).
pub fn arbitrary_schedule_with(u: &mut Unstructured<'_>, contract: &Contract, swarm: &Swarm) -> Schedule {
    describe_schedule(u, swarm, contract)
}

/// The description behind [`schedule_strategy`], for the case strategy's own value tree.
pub(crate) fn schedule_description(contract: Contract, swarm: Swarm) -> Arc<Describe<Schedule>> {
    Arc::new(move |tape| describe_schedule(tape, &swarm, &contract))
}

/// The schedule domain for `contract` decoded from fuzz bytes, with every swarm feature on. Total: every
/// byte string gives a schedule; running out of bytes gives the simplest choices (one call, no steps).
pub fn arbitrary_schedule(u: &mut Unstructured<'_>, contract: &Contract) -> Schedule {
    describe_schedule(u, &Swarm::everything(), contract)
}

/// The one description of the schedule domain (see the module docs), written against [`Choices`].
pub fn describe_schedule<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> Schedule {
    let call_count = |c: &mut C| {
        if !swarm.multi_call {
            return 1;
        }
        // One linear answer for the count (after a size class), so shrinking can drop one call.
        let most = [1, 4, CALLS_MAX][c.weighted(&[3, 4, 1])];
        c.between(1, most)
    };
    let mut schedule = Schedule::new(list(c, call_count, |c, index| describe_call(c, swarm, contract, index == 0)));
    if swarm.long_runs {
        long_run(c, &mut schedule);
    }
    // Drawn last, so a case without clock faults reads the answers it read before they existed.
    let clock = crate::clock::describe_clock_faults(c, swarm, contract);
    let mut schedule = schedule.with_clock(clock);
    if swarm.concurrency {
        // Drawn after everything else, so a schedule without overlapping calls reads the answers it read
        // before they existed.
        arrivals(c, swarm, contract, &mut schedule);
    }
    schedule
}

/// With [`Swarm::concurrency`]: an arrival for every call (and no gaps), each the previous arrival plus
/// a step: 0 (the same instant, the most common), a plain duration, or with the boundary bias the
/// breaker's open duration (1 ns around it too), a multiple of the rate limiter's refill period (1 ns
/// around it too), or near the end of time. Then the interleaving choices: none (first-come order, the
/// simplest) or up to [`INTERLEAVE_MAX`] entries.
fn arrivals<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract, schedule: &mut Schedule) {
    let mut at = VDuration::ZERO;
    for (index, call) in schedule.calls.iter_mut().enumerate() {
        let step = arrival_step(c, swarm, contract);
        if index > 0 {
            at = at.saturating_add(step);
        }
        call.gap_before = VDuration::ZERO;
        call.arrival = Some(at);
    }
    let count = |c: &mut C| if c.maybe(1, 2) { c.between(1, INTERLEAVE_MAX) } else { 0 };
    // Each entry below CALLS_MAX, a u32.
    schedule.interleave = list(c, count, |c, _| c.between(0, CALLS_MAX - 1) as u32);
}

/// The most interleaving choices a generated schedule records.
pub const INTERLEAVE_MAX: u64 = 16;

/// The time between two arrivals (see [`arrivals`]); drawn for the first call too (and ignored), so that
/// deleting a call while shrinking leaves the others' answers as they were.
fn arrival_step<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> VDuration {
    let plain = match c.weighted(&[4, 3]) {
        0 => VDuration::ZERO,
        _ => scaled_duration(c, &[(4, MS.saturating_mul(10)), (3, SEC), (1, VDuration::from_secs(600))]),
    };
    if !biased(c, swarm) {
        return plain;
    }
    let open_for = contract.circuit.into_stated().map(|circuit| circuit.open_for);
    let refill = contract.limiter.into_stated().map(|limiter| limiter.refill_every);
    let options = [open_for, refill, Some(VDuration::MAX)];
    let Some(kind) = pick_available(c, &options.map(|option| option.is_some())) else { return plain };
    let Some(base) = options[kind] else { return plain };
    let base = if kind == 1 { base.saturating_mul(c.between(1, 3)) } else { base };
    match c.weighted(&[2, 1, 1]) {
        0 => base,
        1 => base.saturating_sub(NS),
        _ => base.saturating_add(NS),
    }
}

/// With [`Swarm::long_runs`], one step of the schedule (a quarter of the time) repeats 13 to
/// [`LONG_RUN_MAX`] times, whatever the contract's `max_attempts` (a limit cuts a run, never an
/// input). Drawn after the calls, so a schedule without a long run reads the same answers as before the
/// option existed.
fn long_run<C: Choices + ?Sized>(c: &mut C, schedule: &mut Schedule) {
    if !c.maybe(1, 4) {
        return;
    }
    let Some(last_call) = schedule.calls.len().checked_sub(1) else { return };
    let call = &mut schedule.calls[c.between(0, last_call as u64) as usize];
    let Some(last_step) = call.steps.len().checked_sub(1) else { return };
    let step = c.between(0, last_step as u64) as usize;
    let count = match c.weighted(&[3, 2, 1]) {
        0 => c.between(13, 64),
        1 => c.between(65, 1_000),
        _ => c.between(1_001, LONG_RUN_MAX),
    };
    // At most LONG_RUN_MAX, which fits a u32.
    let count = u32::try_from(count).unwrap_or(1);
    call.steps[step] = call.steps[step].repeated(count);
}

/// `true` in `boundary_percent` of draws.
pub(crate) fn biased<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> bool {
    swarm.boundary_percent > 0 && c.maybe(u64::from(swarm.boundary_percent), 100)
}

/// Picks one of the available boundary options (`available[i]` says whether option `i` applies);
/// `None` when none does.
fn pick_available<C: Choices + ?Sized>(c: &mut C, available: &[bool]) -> Option<usize> {
    if !available.contains(&true) {
        return None;
    }
    let mut weights = [0_u32; 8];
    for (weight, &on) in weights.iter_mut().zip(available) {
        *weight = u32::from(on);
    }
    Some(c.weighted(&weights[..available.len()]))
}

fn describe_call<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract, first: bool) -> CallScript {
    // Drawn for the first call too (and ignored), so that every call reads the same answers and
    // deleting the first call while shrinking leaves the others as they were.
    let gap = gap(c, swarm, contract);
    let gap_before = if first { VDuration::ZERO } else { gap };
    let idempotent = !(swarm.non_idempotent && c.maybe(1, 4));
    let cancel_after = optional(c, swarm.cancellation, 1, 4, |c| cancel_delay(c, swarm, contract));
    let cut = crate::membership::can_cut(contract, cancel_after);
    let mut elapsed = VDuration::ZERO;
    let steps = list(
        c,
        |c| step_count(c, swarm, contract),
        |c, index| {
            let retry = index as u32 + 1; // At most STEPS_PER_CALL_MAX.
            let step = describe_step(c, swarm, contract, cut, elapsed, retry);
            if contract.timing.deadline.is_some() {
                // Only the deadline boundary needs the timeline.
                elapsed = predict(contract, elapsed, step, retry).sleep_end;
            }
            step
        },
    );
    CallScript { gap_before, steps, cancel_after, idempotent, arrival: None }
}

// Boundary values are drawn *after* a plain value and replace it: the plain path then reads fewer
// answers than the boundary path, so shrinking prefers plain values (see `crate::strategy`).

fn gap<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> VDuration {
    let plain = scaled_duration(c, &[(3, VDuration::ZERO), (4, SEC), (2, VDuration::from_secs(600)), (1, GAP_MAX)]);
    match contract.circuit.into_stated() {
        Some(circuit) if biased(c, swarm) => {
            let open = circuit.open_for;
            let options = [open.saturating_sub(NS), open, open.saturating_add(NS), open.div(2), open.saturating_mul(2)];
            options[c.weighted(&[1; 5])].min(GAP_MAX)
        }
        _ => plain,
    }
}

fn cancel_delay<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> VDuration {
    let plain = scaled_duration(c, &[(1, VDuration::ZERO), (4, SEC), (2, VDuration::from_secs(60))]);
    if !biased(c, swarm) {
        return plain;
    }
    let options = [Some(VDuration::ZERO), contract.timing.attempt_timeout, contract.timing.deadline];
    match pick_available(c, &options.map(|option| option.is_some())) {
        Some(index) => options[index].unwrap_or(plain),
        None => plain,
    }
}

fn step_count<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> u64 {
    // The last answer is the count itself, linear (what `list` needs to drop one step), and both paths
    // read as many answers, so the flag decides which is simpler.
    let most = [4, STEPS_PER_CALL_MAX][c.weighted(&[5, 2])];
    match contract.retry.max_attempts {
        // Up to one more step than attempts: `max_attempts - 1`, `max_attempts` and `+ 1` are three of
        // at most `max_attempts + 2` equally likely counts (a linear answer can still shrink to 0).
        Some(max_attempts) if biased(c, swarm) => c.between(0, (u64::from(max_attempts) + 1).min(STEPS_PER_CALL_MAX)),
        _ => c.between(0, most),
    }
}

fn describe_step<C: Choices + ?Sized>(
    c: &mut C,
    swarm: &Swarm,
    contract: &Contract,
    cut: bool,
    elapsed: VDuration,
    retry: u32,
) -> Step {
    let mut weights = swarm.outcomes.weights();
    if !cut {
        weights[4] = 0; // No hang where nothing could end it.
    }
    let outcome = match c.weighted(&weights) {
        0 => Outcome::Ok,
        1 => Outcome::Transient,
        2 => Outcome::Fatal,
        3 => Outcome::RateLimited { retry_after: retry_after(c, swarm, contract) },
        _ => return Step::new(VDuration::ZERO, Outcome::Hang),
    };
    Step::new(step_duration(c, swarm, contract, cut, elapsed, retry), outcome)
}

fn step_duration<C: Choices + ?Sized>(
    c: &mut C,
    swarm: &Swarm,
    contract: &Contract,
    cut: bool,
    elapsed: VDuration,
    retry: u32,
) -> VDuration {
    let plain = scaled_duration(c, &[(3, VDuration::ZERO), (1, MS), (6, SEC), (2, VDuration::from_secs(30))]);
    if !biased(c, swarm) {
        return plain;
    }
    let timeout = contract.timing.attempt_timeout;
    let deadline = contract.timing.deadline;
    let elapsed_limit = contract.timing.retry_elapsed_max;
    // Options for the elapsed-time limit come last, so cases without one read the same answers as before.
    let available = [
        timeout.is_some(),
        timeout.is_some(),
        timeout.is_some(),
        deadline.is_some(),
        deadline.is_some(),
        cut,
        elapsed_limit.is_some(),
        elapsed_limit.is_some(),
    ];
    let timeout = timeout.unwrap_or_default();
    let left = deadline.unwrap_or_default().saturating_sub(elapsed);
    let delay = predicted_delay(contract, retry);
    let retry_left = elapsed_limit.unwrap_or_default().saturating_sub(elapsed).saturating_sub(delay);
    let aimed = match pick_available(c, &available) {
        Some(0) => timeout,
        Some(1) => timeout.saturating_sub(NS),
        Some(2) => timeout.saturating_add(NS),
        Some(3) => left,                       // The attempt ends on the deadline.
        Some(4) => left.saturating_sub(delay), // Its sleep does.
        Some(5) => near_max(c),
        Some(6) => retry_left, // The next retry would start exactly on the elapsed-time limit.
        Some(_) => retry_left.saturating_add(NS), // 1 ns after it.
        None => plain,
    };
    // A boundary near the end of time only where something cuts the attempt (membership rule 4): a
    // deadline or an elapsed-time limit near `VDuration::MAX` cuts none.
    match cut || aimed < crate::membership::cuts_below() {
        true => aimed,
        false => plain,
    }
}

fn retry_after<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, contract: &Contract) -> VDuration {
    let plain = scaled_duration(c, &[(1, VDuration::ZERO), (4, SEC), (2, VDuration::from_secs(60))]);
    if !biased(c, swarm) {
        return plain;
    }
    let cap = contract.delays.max;
    match pick_available(c, &[cap.is_some(), cap.is_some(), true]) {
        Some(0) => cap.unwrap_or(plain),
        Some(1) => cap.map_or(plain, |cap| cap.saturating_add(NS)),
        _ => near_max(c),
    }
}

/// `VDuration::MAX` (the simplest answer) or up to [`NEAR_MAX_SPAN`] below it.
fn near_max<C: Choices + ?Sized>(c: &mut C) -> VDuration {
    VDuration::MAX.saturating_sub(c.duration_between(VDuration::ZERO, NEAR_MAX_SPAN))
}

/// The jitter-free delay before retry `retry` (from 1) that `contract` promises, capped; for a
/// contract without a delay sequence (decorrelated backoff, none at all) its smallest delay.
pub(crate) fn predicted_delay(contract: &Contract, retry: u32) -> VDuration {
    let cap = contract.delays.max.unwrap_or(VDuration::MAX);
    match contract.delays.backoff.and_then(|shape| jitter_free(shape, retry)) {
        Some(base) => base.min(cap),
        None => contract.delays.min.unwrap_or(VDuration::ZERO),
    }
}

/// [`BackoffShape::nth`], with integer exponential factors computed by `checked_pow` instead of a
/// u128 division per retry (the same values, saturating alike; this runs once per step in the hot loop).
pub(crate) fn jitter_free(shape: BackoffShape, retry: u32) -> Option<VDuration> {
    match shape {
        BackoffShape::Exponential { initial, factor_milli } if factor_milli % 1000 == 0 => {
            let factor = factor_milli / 1000;
            Some(match factor.checked_pow(retry.saturating_sub(1)) {
                Some(multiplier) => initial.saturating_mul(multiplier),
                None if initial.is_zero() => VDuration::ZERO,
                None => VDuration::MAX,
            })
        }
        other => other.nth(retry),
    }
}

/// When attempt `retry` of a call and the sleep after it end, measured from the call's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Predicted {
    /// The attempt ends (completes or is cut by the timeout).
    pub attempt_end: VDuration,
    /// The sleep after it ends, if the call retries.
    pub sleep_end: VDuration,
}

/// The jitter-free timeline prediction shared by the generator (to aim at the deadline) and the
/// classifier (to recognise a hit): the attempt starts at `elapsed` and takes its scripted duration
/// (cut by the attempt timeout; a hang takes the whole timeout), then the call sleeps the predicted delay
/// (at least the retry-after where the contract honours it).
pub(crate) fn predict(contract: &Contract, elapsed: VDuration, step: Step, retry: u32) -> Predicted {
    let timeout = contract.timing.attempt_timeout.unwrap_or(VDuration::MAX);
    let took = match step.outcome {
        Outcome::Hang => timeout,
        _ => step.duration.min(timeout),
    };
    let mut delay = predicted_delay(contract, retry);
    if let (Outcome::RateLimited { retry_after }, true) = (step.outcome, contract.rate.honors_retry_after) {
        delay = delay.max(retry_after);
    }
    let attempt_end = elapsed.saturating_add(took);
    Predicted { attempt_end, sleep_end: attempt_end.saturating_add(delay) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_free_matches_the_contract_shapes() {
        let ms = VDuration::from_millis;
        let shapes = [
            BackoffShape::Exponential { initial: ms(3), factor_milli: 2000 },
            BackoffShape::Exponential { initial: ms(1), factor_milli: 16_000 },
            BackoffShape::Exponential { initial: VDuration::ZERO, factor_milli: 16_000 },
            BackoffShape::Exponential { initial: ms(1), factor_milli: 0 },
            BackoffShape::Exponential { initial: ms(7), factor_milli: 1500 },
            BackoffShape::Linear { initial: ms(1), step: ms(2) },
        ];
        for shape in shapes {
            for retry in 0..=40 {
                assert_eq!(jitter_free(shape, retry), shape.nth(retry), "{shape:?} retry {retry}");
            }
        }
    }
}
