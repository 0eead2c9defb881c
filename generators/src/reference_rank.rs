//! The rank of a reference policy: its place in the total order on configs the shrinker minimises
//! along ([`Describe::rank`](crate::Describe::rank)).
//!
//! The rank is the sequence of answers [`describe_policy`](crate::describe_policy) gives the policy
//! from, field by field in the order it draws them, each answer simplest first (`0` the simplest):
//! attempts, the initial delay, the backoff kind (constant, linear, exponential, decorrelated) and its
//! step or factor, the cap's headroom above the initial delay, the jitter (none, full, equal), each
//! `retry_on` flag (on is `0`), `honor_retry_after`, then each optional limit as `0` when absent or
//! `1` followed by its value (the attempt timeout, the deadline, the sleep budget, the circuit, the
//! retry budget, the elapsed-time limit, then, drawn only for overlapping calls, the bulkhead's
//! slots and queue, the rate limiter's burst and refill period, hedging, then ordered results (off
//! is `0`), then the retry-after policy, the breaker's refinements, the interrupt tie, the elapsed limit's bound and the rate limiter's window (a token bucket is `0`). Ranks compare lexicographically:
//! an earlier answer outweighs every later one, as in the description, so fewer attempts beat any feature switched off, and a
//! feature switched off beats any smaller value inside it. Two policies have the same rank only when
//! they are equal (the fields the description never draws, such as a circuit's cooldown tie, are
//! ranked after the drawn ones, default first).

use timelaw_core::reference::{Backoff, Jitter, Policy};
use timelaw_core::{
    AboveCap, BudgetContract, CircuitContract, CircuitPolicy, CooldownTie, HalfOpenEntry, InterruptTie, LateResults,
    LimitBound, LimiterWindow, OpenShape, ProbeSettle, RetryAfterCombine, RetryAfterPolicy,
};

/// The rank of `policy` (see the module docs).
pub fn policy_rank(policy: &Policy) -> Vec<u64> {
    let mut rank = Vec::with_capacity(32);
    rank.push(u64::from(policy.max_attempts));
    let initial = policy.backoff.initial();
    rank.push(initial.as_nanos());
    let (kind, growth) = match policy.backoff {
        Backoff::Constant { .. } => (0, 0),
        Backoff::Linear { step, .. } => (1, step.as_nanos()),
        Backoff::Exponential { factor, .. } => (2, u64::from(factor)),
        Backoff::Decorrelated { .. } => (3, 0),
    };
    rank.extend([kind, growth]);
    // A cap equal to the initial delay is the simplest answer; any other is its headroom above it.
    rank.push(policy.delay_max.as_nanos().abs_diff(initial.as_nanos()));
    rank.push(match policy.jitter {
        Jitter::None => 0,
        Jitter::Full => 1,
        Jitter::Equal => 2,
    });
    let flags = policy.retry_on;
    rank.extend([!flags.transient, !flags.rate_limited, !flags.timeout].map(u64::from));
    rank.push(u64::from(policy.honor_retry_after));
    for limit in [policy.attempt_timeout, policy.deadline, policy.sleep_budget] {
        optional(&mut rank, limit.map(|limit| vec![limit.as_nanos()]));
    }
    optional(&mut rank, policy.circuit.map(circuit_rank));
    optional(&mut rank, policy.retry_budget.map(budget_rank));
    optional(&mut rank, policy.retry_elapsed_max.map(|limit| vec![limit.as_nanos()]));
    // Drawn last, and only for overlapping calls: the bulkhead, then the rate limiter.
    optional(&mut rank, policy.bulkhead.map(|b| vec![u64::from(b.max_in_flight), u64::from(b.queue_max)]));
    optional(&mut rank, policy.limiter.map(|l| vec![u64::from(l.burst), l.refill_every.as_nanos()]));
    optional(&mut rank, policy.hedge.map(|hedge| vec![u64::from(hedge.max_hedges), hedge.delay.as_nanos()]));
    rank.push(u64::from(policy.ordered_results));
    // Drawn last, and only with the `refinements` swarm option.
    optional(&mut rank, policy.retry_after_policy.map(retry_after_rank));
    let refined = policy.circuit.filter(|circuit| refinements_rank(*circuit).iter().any(|answer| *answer != 0));
    optional(&mut rank, refined.map(refinements_rank));
    rank.push(u64::from(policy.interrupt_tie == InterruptTie::CancellationFirst));
    rank.push(u64::from(policy.retry_elapsed_bound == LimitBound::Exclusive));
    rank.push(u64::from(policy.limiter.is_some_and(|limiter| limiter.window == LimiterWindow::Fixed)));
    rank
}

/// A breaker's refinements, each default first: when it opens (and its threshold or time window), the
/// open shape (and its factor and cap), the cooldown tie, cancellation counting, how probes settle, the
/// close count, late results, when it turns half-open.
fn refinements_rank(circuit: CircuitContract) -> Vec<u64> {
    let (policy, parameter) = match circuit.policy {
        CircuitPolicy::CountWindow => (0, 0),
        CircuitPolicy::ConsecutiveFailures { threshold } => (1, u64::from(threshold)),
        CircuitPolicy::TimeWindow { window } => (2, window.as_nanos()),
    };
    let (shape, factor_milli, max) = match circuit.open_shape {
        OpenShape::Constant => (0, 0, 0),
        OpenShape::Exponential { factor_milli, max } => (1, factor_milli, max.as_nanos()),
    };
    let tie = u64::from(circuit.cooldown_tie == CooldownTie::AdmitsAfterEnd);
    let settle = u64::from(circuit.probe_settle == ProbeSettle::ResultOrder);
    let closes_after = circuit.closes_after.map_or(0, |successes| u64::from(successes).saturating_add(1));
    let late = u64::from(circuit.late_results == LateResults::LandingState);
    let on_time = u64::from(circuit.half_open_entry == HalfOpenEntry::OnTime);
    let cancellation = u64::from(circuit.counts_cancellation);
    vec![policy, parameter, shape, factor_milli, max, tie, cancellation, settle, closes_after, late, on_time]
}

fn retry_after_rank(policy: RetryAfterPolicy) -> Vec<u64> {
    let combine = match policy.combine {
        RetryAfterCombine::MaxWithBackoff => 0,
        RetryAfterCombine::ReplacesBackoff => 1,
        RetryAfterCombine::Ignored => 2,
    };
    let above_cap = match policy.above_cap {
        AboveCap::GiveUp => 0,
        AboveCap::Clamp => 1,
        AboveCap::SleepAnyway => 2,
    };
    vec![combine, above_cap]
}

/// `0` for an absent value, else `1` followed by its own rank.
fn optional(rank: &mut Vec<u64>, value: Option<Vec<u64>>) {
    match value {
        None => rank.push(0),
        Some(inner) => {
            rank.push(1);
            rank.extend(inner);
        }
    }
}

fn circuit_rank(circuit: CircuitContract) -> Vec<u64> {
    let default = CircuitContract::DEFAULT;
    vec![
        u64::from(circuit.window),
        u64::from(circuit.min_calls),
        u64::from(circuit.failure_percent),
        circuit.open_for.as_nanos(),
        u64::from(circuit.half_open_probes),
        u64::from(circuit.policy != default.policy),
        u64::from(circuit.open_shape != default.open_shape),
        u64::from(circuit.cooldown_tie != default.cooldown_tie),
    ]
}

fn budget_rank(budget: BudgetContract) -> Vec<u64> {
    let default = BudgetContract::default();
    let window = budget.window.map_or(0, |window| window.as_nanos().saturating_add(1));
    vec![
        u64::from(budget.min_retries),
        u64::from(budget.retry_percent),
        window,
        u64::from(budget.admits != default.admits),
    ]
}

/// The duration of `nanos` nanoseconds (for the tests).
#[cfg(test)]
fn ns(nanos: u64) -> timelaw_core::VDuration {
    timelaw_core::VDuration::from_nanos(nanos)
}

#[cfg(test)]
mod tests {
    use timelaw_core::RetryOn;

    use super::*;

    fn constant(max_attempts: u32, delay_ns: u64) -> Policy {
        Policy::new(max_attempts, Backoff::Constant { delay: ns(delay_ns) }, ns(delay_ns))
    }

    #[track_caller]
    fn check(simpler: Policy, other: Policy) {
        assert!(policy_rank(&simpler) < policy_rank(&other), "{simpler:?}\n!<\n{other:?}");
    }

    #[test]
    fn earlier_answers_outweigh_later_ones() {
        let linear =
            |initial, step, cap| Policy::new(3, Backoff::Linear { initial: ns(initial), step: ns(step) }, ns(cap));
        let decorrelated = Policy::new(3, Backoff::Decorrelated { initial: ns(0) }, ns(1));
        check(constant(1, 0), constant(2, 0));
        check(Policy { attempt_timeout: Some(ns(0)), ..constant(1, 0) }, constant(2, 0));
        check(constant(2, 5), Policy { deadline: Some(ns(1)), ..constant(2, 6) });
        check(linear(0, 1, 1), decorrelated);
        check(linear(0, 1, 1), linear(0, 2, 1));
        check(linear(0, 2, 0), linear(0, 2, 1));
        check(
            Policy { attempt_timeout: None, ..constant(2, 0) },
            Policy { attempt_timeout: Some(ns(0)), ..constant(2, 0) },
        );
        let flags = |transient, rate_limited, timeout| Policy {
            retry_on: RetryOn { transient, rate_limited, timeout },
            ..constant(2, 0)
        };
        check(flags(true, true, true), flags(true, false, true));
        check(flags(true, false, true), flags(true, false, false));
        check(flags(true, true, false), flags(true, false, true));
        check(Policy { jitter: Jitter::Full, ..constant(2, 0) }, Policy { jitter: Jitter::Equal, ..constant(2, 0) });
    }

    /// Every simpler policy the domain offers and every number it lowers ranks below the policy, so the
    /// shrinker's refusal of a higher rank never refuses the domain's own moves.
    #[test]
    fn every_simpler_policy_and_every_lowered_number_ranks_lower() {
        use crate::domain::{ConfigDomain, Describe};
        use crate::swarm::Swarm;
        use timelaw_core::reference::Reference;
        let mut rng = timelaw_core::SplitMix64::new(3);
        for index in 0..2_000 {
            // One policy in two with the mechanisms drawn only for overlapping calls.
            let swarm = if index % 2 == 0 { Swarm::everything() } else { Swarm::everything().with_concurrency() };
            let policy = crate::describe_policy(&mut rng, &swarm);
            let rank = policy_rank(&policy);
            for simpler in Reference.simpler(&policy) {
                assert!(policy_rank(&simpler) < rank, "{simpler:?}\n!<\n{policy:?}");
            }
            for (index, number) in Reference.config_numbers(&policy).iter().enumerate() {
                for value in [number.min, number.value / 2, number.value.saturating_sub(1)] {
                    let lowered = Reference.with_config_number(&policy, index, value).filter(|_| value < number.value);
                    if let Some(lowered) = lowered {
                        assert!(policy_rank(&lowered) < rank, "{} = {value}: {policy:?}", number.name);
                    }
                }
            }
        }
    }

    #[test]
    fn a_feature_switched_off_beats_any_value_inside_it() {
        let circuit = CircuitContract { window: 1, min_calls: 1, failure_percent: 1, ..CircuitContract::DEFAULT };
        let with_circuit = Policy { circuit: Some(circuit), ..constant(2, 0) };
        check(Policy { retry_elapsed_max: Some(ns(99)), ..constant(2, 0) }, with_circuit.clone());
        let bigger = CircuitContract { failure_percent: 2, ..circuit };
        check(with_circuit, Policy { circuit: Some(bigger), ..constant(2, 0) });
    }
}
