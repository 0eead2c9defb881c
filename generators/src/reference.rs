//! The config domain of the reference interpreter: [`describe_policy`] and `impl Describe for
//! Reference` (so `Reference` is a [`ConfigDomain`](crate::ConfigDomain)).
//!
//! # Ranges
//! | field | range (simplest first) |
//! |---|---|
//! | `max_attempts` | 1..=10 (nine draws in ten), else 11..=100 |
//! | `backoff` | constant, linear, exponential (factor 1..=16, mostly 2), decorrelated |
//! | initial delay, linear step | 0, 0..=16 ns (the small-value class), up to 100 ms, up to 10 s |
//! | `delay_max` | the initial delay, or 0..=16 ns, up to 1 s, up to a minute or up to an hour above it |
//! | `jitter` | none, full, equal (none with decorrelated backoff) |
//! | `retry_on` | each flag on, off in one draw of eight |
//! | `attempt_timeout` | none, or 0..=60 s (0 in one draw of twelve, 0..=16 ns in one of six) |
//! | `deadline` | none, or 0..=10 min |
//! | `sleep_budget` | none, or 0..=1 h |
//! | `retry_elapsed_max` | none, or 0..=10 min, or a boundary value: 0, 1 ns, the attempt timeout, the attempt timeout plus the initial delay, the deadline (drawn last) |
//! | `circuit` | none, or window 1..=128 (mostly ≤ 10), min_calls 1..=window, failure_percent 1..=100, open_for 0..=10 min, 1..=3 probes |
//! | `retry_budget` | none, or 0..=10 retries plus 0..=1000 percent |
//! | `bulkhead`, `limiter` | only with concurrency: see [`bulkhead`] and [`limiter`] |
//! | `hedge` | only with concurrency: none, or a delay of 0, 0..=16 ns, up to 100 ms, up to 10 s or `VDuration::MAX` (never), and 0, 1, 2..=3 or 4..=16 hedges |
//! | `ordered_results` | only with concurrency: on in one draw of four |
//! | `retry_after_policy` | only with `honor_retry_after` and the `refinements` swarm option (drawn last): none, or max with the backoff / replacing it, and giving up / clamping / sleeping anyway above the cap |
//! | `retry_elapsed_bound` | only with an elapsed-time limit and the `refinements` swarm option (drawn last): inclusive, or exclusive in one draw of two |
//! | `interrupt_tie` | only with a deadline and the `refinements` swarm option (drawn last): the deadline first, or cancellation first in one draw of two |
//! | circuit refinements | only with a circuit and the `refinements` swarm option (drawn last): when it opens (count window, 1..=5 consecutive failures, a time window up to 1 min), the open shape (constant, or growing by 1.5, 2 or 3 up to an hour), the cooldown tie, cancellation counting, and (with concurrency) how probes settle |
//!
//! Every duration drawn through [`scaled_duration`] (limits, delays, the open duration, refills) includes
//! the small-value class: 0 to [`SMALL_NS_MAX`](crate::choice::SMALL_NS_MAX) ns, odd and even, where
//! halving, rounding and off-by-one bugs show. Counts are small already (attempts, windows, probes, bursts
//! and hedges are mostly 0..=16).
//!
//! Every policy drawn passes [`Policy::validate`]. Caps stay within about an hour so that even 8 calls of
//! 13 attempts stay days, not years, of virtual time.

use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{
    AboveCap, BudgetContract, BulkheadContract, CircuitContract, CircuitPolicy, CooldownTie, HalfOpenEntry,
    HedgeContract, InterruptTie, LateResults, LimitBound, LimiterContract, LimiterWindow, OpenShape, ProbeSettle,
    RetryAfterCombine, RetryAfterPolicy, RetryOn, VDuration,
};

use crate::choice::{optional, scaled_duration, Choices};
use crate::domain::{ConfigNumber, Describe};
use crate::schedule::biased;
use crate::swarm::Swarm;

const SEC: VDuration = VDuration::from_secs(1);
const HOUR: VDuration = VDuration::from_secs(3600);

/// The one description of the reference policy domain (see the module docs), written against
/// [`Choices`]; features the swarm switches off never appear.
pub fn describe_policy<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> Policy {
    let max_attempts = match c.weighted(&[9, 1]) {
        0 => c.between(1, 10),
        _ => c.between(11, 100),
    } as u32; // At most 100.
    let initial = delay(c);
    let backoff = match c.weighted(&[3, 2, 4, 2]) {
        0 => Backoff::Constant { delay: initial },
        1 => Backoff::Linear { initial, step: delay(c) },
        2 => Backoff::Exponential { initial, factor: factor(c) },
        _ => Backoff::Decorrelated { initial },
    };
    let delay_max = match c.weighted(&[2, 6]) {
        0 => initial,
        _ => initial.saturating_add(cap_headroom(c)),
    };
    let decorrelated = matches!(backoff, Backoff::Decorrelated { .. });
    // Drawn even for decorrelated backoff (then ignored), so that simplifying the backoff kind never
    // makes a description read more answers.
    let jitter = match swarm.jitter.then(|| c.weighted(&[2, 1, 1])) {
        Some(1) if !decorrelated => Jitter::Full,
        Some(2) if !decorrelated => Jitter::Equal,
        _ => Jitter::None,
    };
    let retry_on = RetryOn { transient: !c.maybe(1, 8), rate_limited: !c.maybe(1, 8), timeout: !c.maybe(1, 8) };
    let honor_retry_after = swarm.retry_after && c.maybe(1, 2);
    let attempt_timeout = optional(c, swarm.attempt_timeout, 1, 2, |c| limit(c, VDuration::from_secs(60)));
    let deadline = optional(c, swarm.deadline, 1, 2, |c| limit(c, VDuration::from_secs(600)));
    let sleep_budget = optional(c, swarm.sleep_budget, 1, 2, |c| limit(c, HOUR));
    let circuit = optional(c, swarm.circuit, 1, 2, |c| circuit(c, swarm));
    let retry_budget = optional(c, swarm.retry_budget, 1, 2, |c| budget(c));
    // Drawn last, so that every answer above keeps its meaning for the configs drawn before it existed.
    let aims = Aims { attempt_timeout, deadline, first_delay: initial };
    let retry_elapsed_max = optional(c, swarm.retry_elapsed_max, 1, 2, |c| elapsed_limit(c, swarm, aims));
    // Drawn after everything else and only with overlapping calls, so every other config reads the
    // answers it read before these existed.
    let bulkhead = optional(c, swarm.concurrency, 1, 2, |c| bulkhead(c));
    let limiter = optional(c, swarm.concurrency, 1, 2, |c| limiter(c, swarm));
    let hedge = optional(c, swarm.concurrency, 1, 2, |c| hedge(c));
    let ordered_results = swarm.concurrency && c.maybe(1, 4);
    // Drawn after everything else and only with the `refinements` option, so every config
    // drawn without it reads the answers it read before the option existed.
    let retry_after_policy = optional(c, swarm.refinements && honor_retry_after, 1, 2, retry_after_policy);
    let refined = optional(c, swarm.refinements && circuit.is_some(), 1, 2, |c| circuit_refinements(c, swarm));
    let circuit = circuit.map(|circuit| refined.map_or(circuit, |refine| refine(circuit)));
    let cancellation_first = swarm.refinements && deadline.is_some() && c.maybe(1, 2);
    let interrupt_tie = if cancellation_first { InterruptTie::CancellationFirst } else { InterruptTie::DeadlineFirst };
    let exclusive = swarm.refinements && retry_elapsed_max.is_some() && c.maybe(1, 2);
    let retry_elapsed_bound = if exclusive { LimitBound::Exclusive } else { LimitBound::Inclusive };
    let fixed_window = swarm.refinements && limiter.is_some() && c.maybe(1, 2);
    let limiter =
        limiter.map(
            |limiter| if fixed_window { LimiterContract { window: LimiterWindow::Fixed, ..limiter } } else { limiter },
        );
    let policy = Policy {
        max_attempts,
        backoff,
        delay_max,
        jitter,
        retry_on,
        honor_retry_after,
        attempt_timeout,
        deadline,
        sleep_budget,
        retry_elapsed_max,
        circuit,
        retry_budget,
        bulkhead,
        limiter,
        hedge,
        ordered_results,
        retry_after_policy,
        interrupt_tie,
        retry_elapsed_bound,
    };
    debug_assert_eq!(policy.validate(), Ok(()), "the description yields only valid policies");
    policy
}

/// A retry-after policy: the longer of the backoff and the retry-after (the simplest) or the retry-after
/// replacing the backoff; above the cap giving up (the simplest), clamping or sleeping anyway.
fn retry_after_policy<C: Choices + ?Sized>(c: &mut C) -> RetryAfterPolicy {
    let combine = match c.weighted(&[1, 1]) {
        0 => RetryAfterCombine::MaxWithBackoff,
        _ => RetryAfterCombine::ReplacesBackoff,
    };
    let above_cap = match c.weighted(&[1, 1, 1]) {
        0 => AboveCap::GiveUp,
        1 => AboveCap::Clamp,
        _ => AboveCap::SleepAnyway,
    };
    RetryAfterPolicy { combine, above_cap }
}

/// The refinements of a breaker (see [`CircuitContract`]), to apply to the one drawn before: when it
/// opens (the count window, the simplest; a run of 1 to 5 consecutive failures; a time window of up to a
/// minute), how its open period grows (constant; by 1.5, 2 or 3 up to an hour above the first), whether a
/// call at the end of it is admitted, whether a cancelled call is a failure, how probes settle, how many
/// probe successes close it (one draw in three: 1 up to the probe budget).
fn circuit_refinements<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> impl Fn(CircuitContract) -> CircuitContract {
    let policy = match c.weighted(&[2, 1, 1]) {
        0 => CircuitPolicy::CountWindow,
        1 => CircuitPolicy::ConsecutiveFailures { threshold: c.between(1, 5) as u32 }, // At most 5.
        _ => CircuitPolicy::TimeWindow { window: limit(c, VDuration::from_secs(60)) },
    };
    let growth = match c.weighted(&[2, 1]) {
        0 => None,
        _ => Some(([1500, 2000, 3000][c.pick(3) as usize], cap_headroom(c))),
    };
    let cooldown_tie = if c.maybe(1, 2) { CooldownTie::AdmitsAfterEnd } else { CooldownTie::AdmitsAtEnd };
    let counts_cancellation = c.maybe(1, 2);
    let probe_settle =
        if swarm.concurrency && c.maybe(1, 2) { ProbeSettle::ResultOrder } else { ProbeSettle::FailureReopens };
    // A close count apart from the probe budget, at most that budget (resolved against the drawn breaker).
    let closes_after = c.maybe(1, 3).then(|| c.pick(3) as u32);
    // Drawn last, so every refinement above keeps its answers; late results only land with overlapping calls.
    let late_results =
        if swarm.concurrency && c.maybe(1, 2) { LateResults::LandingState } else { LateResults::AdmittedState };
    // When it turns half-open shows only through late results that count: drawn only then, after them.
    let on_time = late_results == LateResults::LandingState && c.maybe(1, 2);
    let half_open_entry = if on_time { HalfOpenEntry::OnTime } else { HalfOpenEntry::OnRequest };
    move |circuit: CircuitContract| {
        let closes_after = closes_after.map(|answer| 1 + answer % circuit.half_open_probes.max(1));
        let open_shape = growth.map_or(OpenShape::Constant, |(factor_milli, headroom)| OpenShape::Exponential {
            factor_milli,
            max: circuit.open_for.saturating_add(headroom),
        });
        let refined =
            CircuitContract { policy, open_shape, cooldown_tie, counts_cancellation, probe_settle, ..circuit };
        CircuitContract { closes_after, late_results, half_open_entry, ..refined }
    }
}

/// An initial delay or a linear step: 0, 0..=16 ns, up to 100 ms, up to 10 s.
fn delay<C: Choices + ?Sized>(c: &mut C) -> VDuration {
    scaled_duration(c, &[(2, VDuration::ZERO), (5, VDuration::from_millis(100)), (2, VDuration::from_secs(10))])
}

/// How far the cap lies above the initial delay: 0..=16 ns, up to 1 s, 60 s or 1 h.
fn cap_headroom<C: Choices + ?Sized>(c: &mut C) -> VDuration {
    scaled_duration(c, &[(4, SEC), (3, VDuration::from_secs(60)), (1, HOUR)])
}

fn factor<C: Choices + ?Sized>(c: &mut C) -> u32 {
    match c.weighted(&[1, 6, 3, 1]) {
        0 => 1,
        1 => 2,
        2 => c.between(3, 4) as u32,
        _ => c.between(5, 16) as u32, // At most 16.
    }
}

/// A timeout, deadline, budget or open duration: zero in one draw of twelve, 0..=16 ns in one of six, else up
/// to 1 s or up to `max`.
fn limit<C: Choices + ?Sized>(c: &mut C, max: VDuration) -> VDuration {
    scaled_duration(c, &[(1, VDuration::ZERO), (6, SEC), (3, max)])
}

/// The instants of a call an elapsed-time limit may sit exactly on, known from the policy alone.
#[derive(Clone, Copy)]
struct Aims {
    attempt_timeout: Option<VDuration>,
    deadline: Option<VDuration>,
    first_delay: VDuration,
}

/// An elapsed-time limit: with the swarm's boundary bias a boundary value (0, 1 ns, the end of a first
/// attempt cut by the timeout, the first retry after it, the deadline), else a plain [`limit`] up to
/// 10 min. The schedule aims attempts at the limit too ([`crate::schedule`]).
fn elapsed_limit<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm, aims: Aims) -> VDuration {
    let plain = limit(c, VDuration::from_secs(600));
    if !biased(c, swarm) {
        return plain;
    }
    let timeout = aims.attempt_timeout;
    let boundaries = [
        Some(VDuration::ZERO),
        Some(VDuration::from_nanos(1)),
        timeout,
        timeout.map(|timeout| timeout.saturating_add(aims.first_delay)),
        aims.deadline,
    ];
    let available = boundaries.map(|boundary| u32::from(boundary.is_some()));
    boundaries[c.weighted(&available)].unwrap_or(plain)
}

fn circuit<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> CircuitContract {
    let window = match c.weighted(&[6, 1]) {
        0 => c.between(1, 10),
        _ => c.between(11, 128),
    } as u32; // At most 128.
    let min_calls = c.between(1, u64::from(window)) as u32; // At most the window.
    let plain_percent = c.between(1, 100) as u32; // At most 100.
    let failure_percent = if biased(c, swarm) { [1, 50, 100][c.pick(3) as usize] } else { plain_percent };
    let open_for = limit(c, VDuration::from_secs(600));
    let half_open_probes = match c.weighted(&[4, 1]) {
        0 => 1,
        _ => c.between(2, 3) as u32,
    };
    CircuitContract { window, min_calls, failure_percent, open_for, half_open_probes, ..CircuitContract::DEFAULT }
}

/// A bulkhead: 1 to 4 slots (up to 64 in one draw of eight), a queue of 0 (rejection at once, the
/// simplest) to 4 calls.
fn bulkhead<C: Choices + ?Sized>(c: &mut C) -> BulkheadContract {
    let max_in_flight = match c.weighted(&[7, 1]) {
        0 => c.between(1, 4),
        _ => c.between(5, 64),
    } as u32; // At most 64.
    let queue_max = c.between(0, 4) as u32; // At most 4.
    BulkheadContract::new(max_in_flight, queue_max)
}

/// A token bucket: a burst of 1 to 4 (0, always empty, in one draw of sixteen), refilled every 0 (no
/// limit) to 1 s, or at a boundary (1 ns).
fn limiter<C: Choices + ?Sized>(c: &mut C, swarm: &Swarm) -> LimiterContract {
    let burst = match c.weighted(&[15, 1]) {
        0 => c.between(1, 4),
        _ => 0,
    } as u32; // At most 4.
    let plain = scaled_duration(c, &[(1, VDuration::ZERO), (6, VDuration::from_millis(100)), (3, SEC)]);
    let refill_every = if biased(c, swarm) { VDuration::from_nanos(1) } else { plain };
    LimiterContract::token_bucket(burst, refill_every)
}

/// Hedging: a delay of 0 (a hedge at once), 0 to 16 ns, up to 100 ms, up to 10 s, or one too long ever to come
/// ([`VDuration::MAX`]); 0 hedges (the simplest), 1, 2 to 3, or 4 to 16.
fn hedge<C: Choices + ?Sized>(c: &mut C) -> HedgeContract {
    let delay = match c.weighted(&[2, 1, 6, 2, 1]) {
        0 => VDuration::ZERO,
        1 => VDuration::from_nanos(c.between(0, crate::choice::SMALL_NS_MAX)),
        2 => c.duration_between(VDuration::ZERO, VDuration::from_millis(100)),
        3 => c.duration_between(VDuration::ZERO, VDuration::from_secs(10)),
        _ => VDuration::MAX,
    };
    let max_hedges = match c.weighted(&[1, 4, 2, 1]) {
        0 => 0,
        1 => 1,
        2 => c.between(2, 3),
        _ => c.between(4, 16),
    } as u32; // At most 16.
    HedgeContract { delay, max_hedges }
}

fn budget<C: Choices + ?Sized>(c: &mut C) -> BudgetContract {
    let min_retries = c.between(0, 10) as u32;
    let retry_percent = match c.weighted(&[4, 1]) {
        0 => c.between(0, 100),
        _ => c.between(101, 1000),
    } as u32; // At most 1000.
    BudgetContract { min_retries, retry_percent, ..BudgetContract::default() }
}

impl Describe for Reference {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Policy {
        describe_policy(c, swarm)
    }

    /// A policy that fails [`Policy::validate`] (every drawn policy passes it).
    fn outside(&self, policy: &Policy) -> Option<String> {
        policy.validate().err().map(|error| error.to_string())
    }

    /// Every number of the policy that is there (a feature switched off has none), durations in
    /// nanoseconds, each with its smallest valid value: `min_calls` before `window`, the initial delay
    /// before the cap, so each can go as low as the other allows.
    fn numbers(&self, policy: &Policy) -> Vec<ConfigNumber> {
        NUMBERS
            .iter()
            .filter_map(|(name, min, get, _)| get(policy).map(|value| ConfigNumber { name, value, min: *min }))
            .collect()
    }

    /// The answers the description draws `policy` from ([`crate::reference_rank`]).
    fn rank(&self, policy: &Policy) -> Vec<u64> {
        crate::reference_rank::policy_rank(policy)
    }

    fn with_number(&self, policy: &Policy, index: usize, value: u64) -> Option<Policy> {
        let present: Vec<&PolicyNumber> = NUMBERS.iter().filter(|(_, _, get, _)| get(policy).is_some()).collect();
        let (_, _, _, set) = present.get(index)?;
        let mut changed = policy.clone();
        set(&mut changed, value);
        changed.validate().is_ok().then_some(changed)
    }

    /// Most aggressive first: the simplest policy of all, everything but attempts and backoff switched
    /// off, then one feature off at a time, then simpler answers (one `retry_on` flag back on, full
    /// jitter for equal, linear backoff for decorrelated), then simpler numbers (fewer attempts,
    /// constant backoff, a cap at the initial delay, halved and zero durations, a smaller circuit).
    /// Only valid policies that differ from `policy`, each once; each ranks below `policy`
    /// ([`crate::reference_rank`]).
    fn simpler(&self, policy: &Policy) -> Vec<Policy> {
        let mut out: Vec<Policy> = Vec::with_capacity(32);
        let mut offer = |candidate: Policy| {
            if candidate != *policy && candidate.validate().is_ok() && !out.contains(&candidate) {
                out.push(candidate);
            }
        };
        offer(Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO));
        offer(Policy::new(policy.max_attempts, policy.backoff, policy.delay_max));
        for switch_off in FEATURES_OFF {
            let mut candidate = policy.clone();
            switch_off(&mut candidate);
            offer(candidate);
        }
        for simplify in SIMPLER_NUMBERS {
            let mut candidate = policy.clone();
            simplify(&mut candidate);
            offer(candidate);
        }
        out
    }
}

/// One feature switched off.
const FEATURES_OFF: [fn(&mut Policy); 19] = [
    |p| p.limiter = p.limiter.map(|l| LimiterContract { window: LimiterWindow::TokenBucket, ..l }),
    |p| p.retry_elapsed_bound = LimitBound::Inclusive,
    |p| p.interrupt_tie = InterruptTie::DeadlineFirst,
    |p| p.circuit = p.circuit.map(plain_circuit),
    |p| p.retry_after_policy = None,
    |p| p.ordered_results = false,
    |p| p.hedge = None,
    |p| p.bulkhead = None,
    |p| p.limiter = None,
    |p| p.retry_elapsed_max = None,
    |p| p.circuit = None,
    |p| p.retry_budget = None,
    |p| p.sleep_budget = None,
    |p| p.deadline = None,
    |p| p.attempt_timeout = None,
    |p| {
        p.honor_retry_after = false;
        p.retry_after_policy = None;
    },
    |p| p.jitter = Jitter::None,
    |p| p.retry_on = RetryOn::ALL,
    |p| p.backoff = Backoff::Constant { delay: p.backoff.initial() },
];

/// One number made simpler (each keeps the policy valid or is dropped by `simpler`).
const SIMPLER_NUMBERS: [fn(&mut Policy); 30] = [
    // Each answer lowered by one where the domain's rank (`crate::reference_rank`) has small answers:
    // one `retry_on` flag switched back on, equal jitter made full, decorrelated backoff made the linear
    // backoff that reaches its cap on the first step (as fast as decorrelated growth may).
    |p| p.retry_on.transient = true,
    |p| p.retry_on.rate_limited = true,
    |p| p.retry_on.timeout = true,
    |p| {
        if p.jitter == Jitter::Equal {
            p.jitter = Jitter::Full;
        }
    },
    |p| {
        if let Backoff::Decorrelated { initial } = p.backoff {
            p.backoff = Backoff::Linear { initial, step: p.delay_max.saturating_sub(initial) };
        }
    },
    |p| p.max_attempts = 1,
    |p| p.max_attempts = p.max_attempts.div_ceil(2),
    |p| p.max_attempts = p.max_attempts.saturating_sub(1).max(1),
    |p| p.delay_max = p.backoff.initial(),
    |p| p.delay_max = p.delay_max.div(2).max(p.backoff.initial()),
    |p| p.backoff = with_initial(p.backoff, VDuration::ZERO),
    |p| p.backoff = with_initial(p.backoff, p.backoff.initial().div(2)),
    |p| {
        // The cap and the initial delay together: a cap may never fall below the initial delay.
        p.backoff = with_initial(p.backoff, p.backoff.initial().div(2));
        p.delay_max = p.delay_max.div(2).max(p.backoff.initial());
    },
    |p| p.backoff = simpler_growth(p.backoff),
    |p| p.backoff = linear_like(p.backoff),
    |p| {
        if let Backoff::Linear { initial, step } = p.backoff {
            p.backoff = Backoff::Linear { initial, step: step.div(2) };
        }
    },
    |p| p.attempt_timeout = p.attempt_timeout.map(|d| d.div(2)),
    |p| p.deadline = p.deadline.map(|d| d.div(2)),
    |p| p.sleep_budget = p.sleep_budget.map(|d| d.div(2)),
    |p| p.attempt_timeout = p.attempt_timeout.map(|_| VDuration::ZERO),
    |p| p.deadline = p.deadline.map(|_| VDuration::ZERO),
    |p| p.retry_elapsed_max = p.retry_elapsed_max.map(|d| d.div(2)),
    |p| p.retry_elapsed_max = p.retry_elapsed_max.map(|_| VDuration::ZERO),
    |p| with_tied_limits(p, |d| d.div(2)),
    |p| with_tied_limits(p, |_| VDuration::ZERO),
    // The first delay folded into the elapsed-time limit: a retry that woke on the limit after the
    // first delay now wakes on the lowered limit at once, so "the retry starts exactly on the limit"
    // survives while the delays go to zero.
    |p| p.retry_elapsed_max = first_delay_folded(p, p.retry_elapsed_max),
    // The same for the deadline: "the time so far plus the next delay reaches the deadline" holds at the
    // first retry with both lowered by the first delay.
    |p| p.deadline = first_delay_folded(p, p.deadline),
    |p| p.circuit = p.circuit.map(simpler_circuit),
    |p| p.circuit = p.circuit.map(|c| CircuitContract { open_for: VDuration::ZERO, ..c }),
    |p| {
        p.retry_budget = p.retry_budget.map(|b| BudgetContract {
            min_retries: 0,
            retry_percent: b.retry_percent / 2,
            ..BudgetContract::default()
        })
    },
];

/// `limit` lowered by the backoff's first delay, the delays made zero in `p` (nothing changes when there
/// is no limit): the first retry's "time so far plus the delay" against the limit compares as before.
fn first_delay_folded(p: &mut Policy, limit: Option<VDuration>) -> Option<VDuration> {
    let limit = limit?;
    let first = p.backoff.initial().min(p.delay_max);
    p.backoff = with_initial(p.backoff, VDuration::ZERO);
    p.delay_max = VDuration::ZERO;
    Some(limit.saturating_sub(first))
}

/// The elapsed-time limit moved together with the attempt timeout and the deadline where they equal it
/// (drawn so on purpose): a failure that needs "the limit ends where an attempt is cut" survives the
/// move, where lowering one of them alone would lose it. Nothing moves when no other limit equals it.
fn with_tied_limits(p: &mut Policy, lower: fn(VDuration) -> VDuration) {
    let Some(limit) = p.retry_elapsed_max else { return };
    let tied = |other: &mut Option<VDuration>| {
        if *other == Some(limit) {
            *other = Some(lower(limit));
            true
        } else {
            false
        }
    };
    let timeout_tied = tied(&mut p.attempt_timeout);
    if tied(&mut p.deadline) || timeout_tied {
        p.retry_elapsed_max = Some(lower(limit));
    }
}

fn with_initial(backoff: Backoff, initial: VDuration) -> Backoff {
    match backoff {
        Backoff::Constant { .. } => Backoff::Constant { delay: initial },
        Backoff::Linear { step, .. } => Backoff::Linear { initial, step },
        Backoff::Exponential { factor, .. } => Backoff::Exponential { initial, factor },
        Backoff::Decorrelated { .. } => Backoff::Decorrelated { initial },
    }
}

/// A linear step of zero, an exponential factor of 1 or 2.
fn simpler_growth(backoff: Backoff) -> Backoff {
    match backoff {
        Backoff::Linear { initial, .. } => Backoff::Linear { initial, step: VDuration::ZERO },
        Backoff::Exponential { initial, factor } => {
            Backoff::Exponential { initial, factor: if factor > 2 { 2 } else { 1 } }
        }
        other => other,
    }
}

/// Exponential growth as the linear sequence with the same first two delays (linear is the simpler shape).
fn linear_like(backoff: Backoff) -> Backoff {
    match backoff {
        Backoff::Exponential { initial, factor } => {
            Backoff::Linear { initial, step: initial.saturating_mul(u64::from(factor.saturating_sub(1))) }
        }
        other => other,
    }
}

/// The breaker with every refinement at its default (the plain count window).
fn plain_circuit(c: CircuitContract) -> CircuitContract {
    let plain = CircuitContract::DEFAULT;
    let (policy, open_shape, cooldown_tie) = (plain.policy, plain.open_shape, plain.cooldown_tie);
    let (counts_cancellation, probe_settle) = (plain.counts_cancellation, plain.probe_settle);
    let (late_results, half_open_entry) = (plain.late_results, plain.half_open_entry);
    CircuitContract {
        policy,
        open_shape,
        cooldown_tie,
        counts_cancellation,
        probe_settle,
        closes_after: None,
        late_results,
        half_open_entry,
        ..c
    }
}

/// A window of at most half, one minimum call, one probe.
fn simpler_circuit(c: CircuitContract) -> CircuitContract {
    let window = c.window.div_ceil(2);
    CircuitContract { window, min_calls: c.min_calls.min(window).div_ceil(2).max(1), half_open_probes: 1, ..c }
}

/// A number of a policy: name, smallest value, read (`None` when its feature is off), write.
type PolicyNumber = (&'static str, u64, fn(&Policy) -> Option<u64>, fn(&mut Policy, u64));

fn ns(value: u64) -> VDuration {
    VDuration::from_nanos(value)
}

fn small(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Every number of a policy, in the order the shrinker lowers them.
const NUMBERS: [PolicyNumber; 22] = [
    ("max_attempts", 1, |p| Some(u64::from(p.max_attempts)), |p, v| p.max_attempts = small(v)),
    ("backoff.initial", 0, |p| Some(p.backoff.initial().as_nanos()), |p, v| p.backoff = with_initial(p.backoff, ns(v))),
    (
        "backoff.step",
        0,
        |p| match p.backoff {
            Backoff::Linear { step, .. } => Some(step.as_nanos()),
            _ => None,
        },
        |p, v| {
            if let Backoff::Linear { initial, .. } = p.backoff {
                p.backoff = Backoff::Linear { initial, step: ns(v) };
            }
        },
    ),
    (
        "backoff.factor",
        1,
        |p| match p.backoff {
            Backoff::Exponential { factor, .. } => Some(u64::from(factor)),
            _ => None,
        },
        |p, v| {
            if let Backoff::Exponential { initial, .. } = p.backoff {
                p.backoff = Backoff::Exponential { initial, factor: small(v) };
            }
        },
    ),
    ("delay_max", 0, |p| Some(p.delay_max.as_nanos()), |p, v| p.delay_max = ns(v)),
    ("attempt_timeout", 0, |p| p.attempt_timeout.map(VDuration::as_nanos), |p, v| p.attempt_timeout = Some(ns(v))),
    ("deadline", 0, |p| p.deadline.map(VDuration::as_nanos), |p, v| p.deadline = Some(ns(v))),
    ("sleep_budget", 0, |p| p.sleep_budget.map(VDuration::as_nanos), |p, v| p.sleep_budget = Some(ns(v))),
    (
        "retry_elapsed_max",
        0,
        |p| p.retry_elapsed_max.map(VDuration::as_nanos),
        |p, v| p.retry_elapsed_max = Some(ns(v)),
    ),
    (
        "circuit.min_calls",
        1,
        |p| p.circuit.map(|c| u64::from(c.min_calls)),
        |p, v| p.circuit = p.circuit.map(|c| CircuitContract { min_calls: small(v), ..c }),
    ),
    (
        "circuit.window",
        1,
        |p| p.circuit.map(|c| u64::from(c.window)),
        |p, v| p.circuit = p.circuit.map(|c| CircuitContract { window: small(v), ..c }),
    ),
    (
        "circuit.failure_percent",
        1,
        |p| p.circuit.map(|c| u64::from(c.failure_percent)),
        |p, v| p.circuit = p.circuit.map(|c| CircuitContract { failure_percent: small(v), ..c }),
    ),
    (
        "circuit.open_for",
        0,
        |p| p.circuit.map(|c| c.open_for.as_nanos()),
        |p, v| p.circuit = p.circuit.map(|c| CircuitContract { open_for: ns(v), ..c }),
    ),
    (
        "circuit.half_open_probes",
        1,
        |p| p.circuit.map(|c| u64::from(c.half_open_probes)),
        |p, v| p.circuit = p.circuit.map(|c| CircuitContract { half_open_probes: small(v), ..c }),
    ),
    (
        "retry_budget.min_retries",
        0,
        |p| p.retry_budget.map(|b| u64::from(b.min_retries)),
        |p, v| p.retry_budget = p.retry_budget.map(|b| BudgetContract { min_retries: small(v), ..b }),
    ),
    (
        "retry_budget.retry_percent",
        0,
        |p| p.retry_budget.map(|b| u64::from(b.retry_percent)),
        |p, v| p.retry_budget = p.retry_budget.map(|b| BudgetContract { retry_percent: small(v), ..b }),
    ),
    (
        "bulkhead.max_in_flight",
        1,
        |p| p.bulkhead.map(|b| u64::from(b.max_in_flight)),
        |p, v| p.bulkhead = p.bulkhead.map(|b| BulkheadContract { max_in_flight: small(v), ..b }),
    ),
    (
        "bulkhead.queue_max",
        0,
        |p| p.bulkhead.map(|b| u64::from(b.queue_max)),
        |p, v| p.bulkhead = p.bulkhead.map(|b| BulkheadContract { queue_max: small(v), ..b }),
    ),
    (
        "limiter.burst",
        0,
        |p| p.limiter.map(|l| u64::from(l.burst)),
        |p, v| p.limiter = p.limiter.map(|l| LimiterContract { burst: small(v), ..l }),
    ),
    (
        "limiter.refill_every",
        0,
        |p| p.limiter.map(|l| l.refill_every.as_nanos()),
        |p, v| p.limiter = p.limiter.map(|l| LimiterContract { refill_every: ns(v), ..l }),
    ),
    (
        "hedge.max_hedges",
        0,
        |p| p.hedge.map(|h| u64::from(h.max_hedges)),
        |p, v| p.hedge = p.hedge.map(|h| HedgeContract { max_hedges: small(v), ..h }),
    ),
    (
        "hedge.delay",
        0,
        |p| p.hedge.map(|h| h.delay.as_nanos()),
        |p, v| p.hedge = p.hedge.map(|h| HedgeContract { delay: ns(v), ..h }),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ConfigDomain;

    #[test]
    fn every_number_reads_back_what_it_wrote() {
        let circuit = CircuitContract {
            window: 8,
            min_calls: 3,
            failure_percent: 57,
            open_for: VDuration::from_nanos(655_516_637),
            half_open_probes: 2,
            ..CircuitContract::DEFAULT
        };
        let policy = Policy {
            attempt_timeout: Some(VDuration::from_nanos(3)),
            deadline: Some(VDuration::from_secs(1)),
            sleep_budget: Some(VDuration::from_secs(2)),
            circuit: Some(circuit),
            retry_budget: Some(BudgetContract { min_retries: 4, retry_percent: 20, ..BudgetContract::default() }),
            retry_elapsed_max: Some(VDuration::from_millis(7)),
            bulkhead: Some(BulkheadContract::new(3, 2)),
            limiter: Some(LimiterContract::token_bucket(2, VDuration::from_millis(5))),
            ..Policy::new(5, Backoff::Exponential { initial: VDuration::from_millis(1), factor: 16 }, SEC)
        };
        let numbers = Reference.config_numbers(&policy);
        let names: Vec<&str> = numbers.iter().map(|number| number.name).collect();
        assert!(names.contains(&"circuit.failure_percent") && names.contains(&"circuit.open_for"), "{names:?}");
        assert!(!names.contains(&"backoff.step") && names.contains(&"retry_elapsed_max"), "{names:?}");
        assert!(names.contains(&"bulkhead.max_in_flight") && names.contains(&"limiter.refill_every"), "{names:?}");
        for (index, number) in numbers.iter().enumerate() {
            let lowered = Reference.with_config_number(&policy, index, number.value).expect("the same value is valid");
            assert_eq!(lowered, policy, "{}", number.name);
            if let Some(lower) = Reference.with_config_number(&policy, index, number.min) {
                assert_eq!(Reference.config_numbers(&lower)[index].value, number.min, "{}", number.name);
            }
        }
        let window = names.iter().position(|name| *name == "circuit.window").unwrap();
        assert_eq!(Reference.with_config_number(&policy, window, 2), None, "a window below min_calls is invalid");
    }

    /// Which kind of elapsed-time limit a drawn policy has.
    #[track_caller]
    fn check_drawn(kind: fn(&Policy) -> bool, what: &str) {
        let swarm = Swarm { boundary_percent: 60, ..Swarm::everything() };
        let mut rng = timelaw_core::SplitMix64::new(11);
        let policies: Vec<Policy> = (0..4000).map(|_| describe_policy(&mut rng, &swarm)).collect();
        assert!(policies.iter().all(|policy| policy.validate().is_ok()));
        assert!(policies.iter().any(kind), "no policy in 4000 has {what}");
    }

    /// Which hedging a policy drawn with concurrency has; none is drawn without it.
    #[track_caller]
    fn check_hedge_drawn(kind: impl Fn(&Policy) -> bool, what: &str) {
        let mut rng = timelaw_core::SplitMix64::new(5);
        let swarm = Swarm::everything().with_concurrency();
        let policies: Vec<Policy> = (0..4000).map(|_| describe_policy(&mut rng, &swarm)).collect();
        assert!(policies.iter().any(&kind), "no policy in 4000 has {what}");
        let mut rng = timelaw_core::SplitMix64::new(5);
        let sequential: Vec<Policy> = (0..4000).map(|_| describe_policy(&mut rng, &Swarm::everything())).collect();
        assert!(!sequential.iter().any(&kind), "a policy drawn without concurrency has {what}");
    }

    #[test]
    fn hedging_and_ordered_results_are_drawn_only_with_concurrency_at_their_boundaries() {
        fn hedge(p: &Policy, f: fn(HedgeContract) -> bool) -> bool {
            p.hedge.is_some_and(f)
        }
        check_hedge_drawn(|p| hedge(p, |h| h.delay == VDuration::ZERO), "a hedge delay of 0");
        check_hedge_drawn(|p| hedge(p, |h| h.delay == VDuration::MAX), "a hedge delay that never comes");
        check_hedge_drawn(|p| hedge(p, |h| h.delay > VDuration::from_millis(100)), "a hedge delay above 100 ms");
        check_hedge_drawn(|p| hedge(p, |h| h.max_hedges == 0), "no hedge allowed");
        check_hedge_drawn(|p| hedge(p, |h| h.max_hedges == 1), "one hedge");
        check_hedge_drawn(|p| hedge(p, |h| h.max_hedges >= 4), "many hedges");
        check_hedge_drawn(|p| p.ordered_results, "ordered results");
    }

    #[test]
    fn the_elapsed_limit_is_drawn_at_its_boundaries_and_between() {
        check_drawn(|p| p.retry_elapsed_max.is_none(), "no limit");
        check_drawn(|p| p.retry_elapsed_max == Some(VDuration::ZERO), "a limit of 0");
        check_drawn(|p| p.retry_elapsed_max == Some(ns(1)), "a limit of 1 ns");
        check_drawn(|p| p.attempt_timeout.is_some_and(|t| p.retry_elapsed_max == Some(t)), "the attempt timeout");
        check_drawn(
            |p| p.attempt_timeout.is_some_and(|t| p.retry_elapsed_max == Some(t.saturating_add(p.backoff.initial()))),
            "the attempt timeout plus the first delay",
        );
        check_drawn(|p| p.deadline.is_some() && p.retry_elapsed_max == p.deadline, "the deadline");
        check_drawn(|p| p.retry_elapsed_max.is_some_and(|d| d > SEC), "an ordinary limit above 1 s");
    }

    #[test]
    fn a_swarm_without_the_elapsed_limit_never_draws_it_and_keeps_older_answers() {
        let on = Swarm::everything();
        let off = Swarm { retry_elapsed_max: false, ..on };
        let mut with = timelaw_core::SplitMix64::new(5);
        for _ in 0..500 {
            let mut without = with.clone();
            let drawn = describe_policy(&mut with, &on);
            let plain = describe_policy(&mut without, &off);
            assert_eq!(plain.retry_elapsed_max, None);
            assert_eq!(Policy { retry_elapsed_max: None, ..drawn.clone() }, plain, "the limit is drawn last");
        }
    }

    #[test]
    fn every_refinement_is_drawn_and_a_swarm_without_them_keeps_older_answers() {
        use timelaw_core::{AboveCap::*, RetryAfterCombine::*};
        let mut rng = timelaw_core::SplitMix64::new(17);
        let refined = Swarm { refinements: true, ..Swarm::everything() };
        let policies: Vec<Policy> = (0..2000).map(|_| describe_policy(&mut rng, &refined)).collect();
        assert!(policies.iter().all(|policy| policy.validate().is_ok()));
        for combine in [MaxWithBackoff, ReplacesBackoff] {
            for above_cap in [GiveUp, Clamp, SleepAnyway] {
                let drawn = Some(RetryAfterPolicy { combine, above_cap });
                assert!(policies.iter().any(|p| p.retry_after_policy == drawn), "{drawn:?} never drawn");
            }
        }
        assert!(policies.iter().any(|p| p.honor_retry_after && p.retry_after_policy.is_none()));
        assert!(policies.iter().any(|p| p.interrupt_tie == InterruptTie::CancellationFirst));
        assert!(policies.iter().any(|p| p.retry_elapsed_bound == LimitBound::Exclusive));
        // The limiter only with overlapping calls: both its windows.
        let loaded = refined.with_concurrency();
        let limiters: Vec<LimiterContract> =
            (0..2000).filter_map(|_| describe_policy(&mut rng, &loaded).limiter).collect();
        for window in [LimiterWindow::TokenBucket, LimiterWindow::Fixed] {
            assert!(limiters.iter().any(|l| l.window == window), "{window:?} never drawn");
        }
        let circuits: Vec<CircuitContract> = policies.iter().filter_map(|p| p.circuit).collect();
        let drawn = |what: &str, kind: fn(&CircuitContract) -> bool| {
            assert!(circuits.iter().any(kind), "no breaker in {} has {what}", circuits.len());
        };
        drawn("consecutive failures", |c| matches!(c.policy, CircuitPolicy::ConsecutiveFailures { .. }));
        drawn("a time window", |c| matches!(c.policy, CircuitPolicy::TimeWindow { .. }));
        drawn("a growing open period", |c| matches!(c.open_shape, OpenShape::Exponential { .. }));
        drawn("a cooldown admitting after the end", |c| c.cooldown_tie == CooldownTie::AdmitsAfterEnd);
        drawn("cancellation counted", |c| c.counts_cancellation);
        drawn("the plain count window", CircuitContract::is_plain_count_window);
        drawn("a close count below the probe budget", |c| c.closes_after.is_some_and(|n| n < c.half_open_probes));
        let loaded: Vec<CircuitContract> =
            (0..2000).filter_map(|_| describe_policy(&mut rng, &refined.with_concurrency()).circuit).collect();
        assert!(loaded.iter().any(|c| c.late_results == LateResults::LandingState), "late results never land");
        assert!(loaded.iter().any(|c| c.half_open_entry == HalfOpenEntry::OnTime), "half-open never on time");
        let off = Swarm { refinements: false, ..Swarm::everything() };
        let mut with = timelaw_core::SplitMix64::new(5);
        for _ in 0..500 {
            let mut without = with.clone();
            let drawn = describe_policy(&mut with, &refined);
            let plain = describe_policy(&mut without, &off);
            assert_eq!(plain.retry_after_policy, None);
            assert!(plain.circuit.is_none_or(|circuit| circuit.is_plain_count_window()));
            let circuit = drawn.circuit.map(plain_circuit);
            let tie = InterruptTie::DeadlineFirst;
            let bound = LimitBound::Inclusive;
            let unrefined = Policy {
                retry_after_policy: None,
                circuit,
                interrupt_tie: tie,
                retry_elapsed_bound: bound,
                ..drawn.clone()
            };
            assert_eq!(unrefined, plain, "drawn last");
        }
    }

    #[test]
    fn simpler_policies_drop_halve_and_zero_the_elapsed_limit() {
        let limit = VDuration::from_millis(10);
        let policy = Policy { retry_elapsed_max: Some(limit), ..Policy::new(3, Backoff::Constant { delay: SEC }, SEC) };
        let limits: Vec<Option<VDuration>> = Reference.simpler(&policy).iter().map(|p| p.retry_elapsed_max).collect();
        for expected in [None, Some(limit.div(2)), Some(VDuration::ZERO)] {
            assert!(limits.contains(&expected), "{expected:?} missing from {limits:?}");
        }
    }

    /// `policy` offers a simpler policy with (attempt timeout, deadline, limit, initial delay) = `expected`.
    #[track_caller]
    fn check_coupled(policy: Policy, expected: [Option<VDuration>; 4]) {
        let offered: Vec<[Option<VDuration>; 4]> = Reference
            .simpler(&policy)
            .iter()
            .map(|p| [p.attempt_timeout, p.deadline, p.retry_elapsed_max, Some(p.backoff.initial())])
            .collect();
        assert!(offered.contains(&expected), "{expected:?} missing from {offered:?}");
    }

    #[test]
    fn the_elapsed_limit_moves_with_the_limits_it_equals_and_takes_in_the_first_delay() {
        let ms = |n| Some(VDuration::from_millis(n));
        let base = Policy::new(3, Backoff::Constant { delay: VDuration::from_millis(4) }, SEC);
        let tied = |timeout, deadline, limit| Policy {
            attempt_timeout: timeout,
            deadline,
            retry_elapsed_max: limit,
            ..base.clone()
        };
        check_coupled(tied(ms(8), None, ms(8)), [ms(4), None, ms(4), ms(4)]);
        check_coupled(tied(ms(8), None, ms(8)), [ms(0), None, ms(0), ms(4)]);
        check_coupled(tied(None, ms(8), ms(8)), [None, ms(4), ms(4), ms(4)]);
        check_coupled(tied(ms(8), ms(8), ms(8)), [ms(0), ms(0), ms(0), ms(4)]);
        check_coupled(tied(ms(9), None, ms(8)), [ms(9), None, ms(4), ms(0)]);
        check_coupled(tied(None, None, ms(3)), [None, None, ms(0), ms(0)]);
        // The deadline takes in the first delay as the elapsed-time limit does, each on its own.
        check_coupled(tied(None, ms(9), None), [None, ms(5), None, ms(0)]);
        check_coupled(tied(None, ms(3), None), [None, ms(0), None, ms(0)]);
        check_coupled(tied(None, ms(9), ms(8)), [None, ms(5), ms(8), ms(0)]);
        check_coupled(tied(None, ms(9), ms(8)), [None, ms(9), ms(4), ms(0)]);
    }
}
