//! The shrink pass `drop_jitter_lowered`: a jitter removed together with the backoff's first delay
//! lowered to a value the jitter could have drawn for it. A jitter draws each delay at or below (or
//! around) its jitter-free base, so a bug that needs a delay shorter than the base (a first delay under
//! the cap, say) keeps failing with the jitter only while the draws fall there; the jitter-free config
//! alone sleeps the base and loses the failure. Lowering the first delay at once to the jitter's
//! lowest draw, or else to one below the base (the nearest draw that differs), keeps it. A bug that
//! needs the first delay low and the second at its base (a cap compared with the previous delay: a
//! first delay under the cap lets the second pass it uncapped) gets one more form: the first delay at
//! the lowest draw with the second delay's base kept ([`unjittered_second_kept`]).
//!
//! Only configs the domain itself offers as simpler (`ConfigDomain::shrink_config`) whose contract
//! differs from the case's in the jitter alone are paired, and the first delay goes through
//! [`super::paired::first_delay_set`] (nothing else of the contract may change), so a case without a
//! jitter, or whose first delay is already the lowest draw, pays nothing; at most [`PAIRS_MAX`]
//! candidates a round. The plain removal was tried by `shrink_config` before this pass runs.

use timelaw_core::{Case, Contract, DelayContract, JitterBounds, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;
use super::paired::first_delay_set;

/// Candidates the pass tries at most in one round.
const PAIRS_MAX: usize = 4;

/// Whether `contract` promises a jitter (any bounds other than none).
fn jittered(contract: &Contract) -> bool {
    !matches!(contract.delays.jitter, None | Some(JitterBounds::None))
}

/// Whether `free` is `old` with its jitter removed and nothing else changed but the smallest delay
/// promised (without a jitter it is the first delay).
fn only_jitter_removed(old: &Contract, free: &Contract) -> bool {
    if jittered(free) {
        return false;
    }
    let delays = DelayContract {
        jitter: free.delays.jitter,
        min: free.delays.min,
        jitter_clipped_at_cap: free.delays.jitter_clipped_at_cap,
        ..old.delays
    };
    *free == Contract { delays, ..*old }
}

/// The first delays to pair with the jitter's removal: the jitter's lowest draw for the capped first
/// delay, then one below it, each below the first delay (lowest first, no repeats).
fn lowered_first_delays(contract: &Contract) -> Vec<VDuration> {
    let (Some(jitter), Some(first)) = (contract.delays.jitter, contract.delays.backoff.and_then(|b| b.nth(1))) else {
        return Vec::new();
    };
    let capped = contract.delays.max.map_or(first, |cap| first.min(cap));
    let lowest = jitter.range(capped).0;
    let below = VDuration::from_nanos(first.as_nanos().saturating_sub(1));
    let mut out: Vec<VDuration> = [lowest, below].into_iter().filter(|&value| value < first).collect();
    out.dedup();
    out
}

/// Every case with the jitter removed (a simpler config of the domain differing in the jitter alone)
/// and the backoff's first delay lowered to a value of [`lowered_first_delays`], at most [`PAIRS_MAX`];
/// empty for a case without a jitter.
pub(super) fn unjittered_lowered<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
) -> Vec<Case<S::Config>> {
    let old = subject.contract(&case.config);
    if !jittered(&old) {
        return Vec::new();
    }
    let values = lowered_first_delays(&old);
    let mut out = Vec::new();
    for free in subject.shrink_config(&case.config) {
        if !only_jitter_removed(&old, &subject.contract(&free)) {
            continue;
        }
        for &value in &values {
            let accept = |backoff: timelaw_core::BackoffShape| backoff.nth(1) == Some(value);
            if let Some(config) = first_delay_set(subject, &free, value, accept) {
                out.push(Case { config, ..case.clone() });
                if out.len() == PAIRS_MAX {
                    return out;
                }
            }
        }
    }
    out
}

/// `case` with the jitter removed and the backoff's first delay at the jitter's lowest draw for it while
/// the second delay keeps its base: one number carrying the first delay lowered to that draw and another
/// raised by as much (a linear backoff's step, say), nothing else of the contract changed but the delay
/// sequence and the smallest delay. A jitter that drew the first delay low and the second high is then
/// written without it; the plain lowering moves the second delay down with the first. `None` for a case
/// without a jitter, whose first delay is already the lowest draw, or whose domain cannot write it.
pub(super) fn unjittered_second_kept<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
) -> Option<Case<S::Config>> {
    let old = subject.contract(&case.config);
    if !jittered(&old) {
        return None;
    }
    let shape = old.delays.backoff?;
    let (first, second) = (shape.nth(1)?, shape.nth(2)?);
    let lowest = *lowered_first_delays(&old).first()?;
    let lowered_by = first.as_nanos() - lowest.as_nanos();
    let free = subject
        .shrink_config(&case.config)
        .into_iter()
        .find(|free| only_jitter_removed(&old, &subject.contract(free)))?;
    let lowered = first_delay_set(subject, &free, lowest, |_| true)?;
    let numbers = subject.config_numbers(&lowered);
    let base = subject.contract(&lowered);
    (0..numbers.len()).find_map(|index| {
        let raised = numbers[index].value.checked_add(lowered_by)?;
        let config = subject.with_config_number(&lowered, index, raised)?;
        let new = subject.contract(&config);
        let backoff = new.delays.backoff?;
        let delays = DelayContract { backoff: Some(backoff), min: new.delays.min, ..base.delays };
        let kept = backoff.nth(1) == Some(lowest) && backoff.nth(2) == Some(second);
        (kept && new == Contract { delays, ..base }).then(|| Case { config, ..case.clone() })
    })
}

/// `drop_jitter_lowered`: the first case of [`unjittered_lowered`], then of [`unjittered_second_kept`],
/// that keeps the failure.
pub(super) fn drop_jitter_lowered<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut candidates = unjittered_lowered(shrinker.subject, &shrinker.best);
    candidates.extend(unjittered_second_kept(shrinker.subject, &shrinker.best));
    for candidate in candidates {
        if shrinker.out_of_budget() {
            return false;
        }
        if shrinker.attempt(candidate) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use timelaw_core::BackoffShape;

    #[track_caller]
    fn check(jitter: JitterBounds, initial_ns: u64, cap_ns: Option<u64>, expect_ns: &[u64]) {
        let mut contract = Contract::default();
        contract.delays.jitter = Some(jitter);
        contract.delays.max = cap_ns.map(VDuration::from_nanos);
        let (initial, step) = (VDuration::from_nanos(initial_ns), VDuration::from_nanos(3));
        contract.delays.backoff = Some(BackoffShape::Linear { initial, step });
        let got: Vec<u64> = lowered_first_delays(&contract).iter().map(|d| d.as_nanos()).collect();
        assert_eq!(got, expect_ns);
    }

    #[test]
    fn the_first_delay_goes_to_the_lowest_draw_then_one_below() {
        check(JitterBounds::Full, 3, None, &[0, 2]);
        check(JitterBounds::Full, 1, None, &[0]);
        check(JitterBounds::Full, 0, None, &[]);
        check(JitterBounds::Equal, 8, None, &[4, 7]);
        check(JitterBounds::Equal, 8, Some(4), &[2, 7]);
        check(JitterBounds::None, 3, None, &[2]);
    }

    #[test]
    fn the_second_delay_keeps_its_base_where_another_number_can_carry_it() {
        use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
        use timelaw_core::Schedule;
        let ns = VDuration::from_nanos;
        let case = |backoff: Backoff, cap_ns: u64, jitter: Jitter| {
            let policy = Policy { jitter, ..Policy::new(3, backoff, ns(cap_ns)) };
            Case::new(policy, Schedule::single(vec![]), 7)
        };
        let kept = |from: Case<Policy>| unjittered_second_kept(&Reference, &from).map(|case| case.config);
        let linear = |initial, step| Backoff::Linear { initial: ns(initial), step: ns(step) };
        // Full jitter on linear 1 + 1 ns under a 1 ns cap: 0 then 2 ns, as linear 0 + 2 ns without it.
        let expect = case(linear(0, 2), 1, Jitter::None).config;
        assert_eq!(kept(case(linear(1, 1), 1, Jitter::Full)), Some(expect));
        // The first delay already at its lowest draw, no jitter, or no number to carry the second delay.
        assert_eq!(kept(case(linear(0, 1), 1, Jitter::Full)), None);
        assert_eq!(kept(case(linear(1, 1), 1, Jitter::None)), None);
        assert_eq!(kept(case(Backoff::Constant { delay: ns(3) }, 3, Jitter::Full)), None);
        let exponential = Backoff::Exponential { initial: ns(2), factor: 2 };
        assert_eq!(kept(case(exponential, 10, Jitter::Full)), None);
    }

    #[test]
    fn only_a_removed_jitter_pairs() {
        let mut old = Contract::default();
        old.delays.jitter = Some(JitterBounds::Full);
        let mut free = old;
        free.delays.jitter = Some(JitterBounds::None);
        free.delays.min = Some(VDuration::from_nanos(3));
        assert!(only_jitter_removed(&old, &free));
        free.delays.max = Some(VDuration::from_nanos(3));
        assert!(!only_jitter_removed(&old, &free));
        assert!(!only_jitter_removed(&old, &old));
    }
}
