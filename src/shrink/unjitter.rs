//! The shrink pass `drop_jitter_lowered`: a jitter removed together with the backoff's first delay
//! lowered to a value the jitter could have drawn for it. A jitter draws each delay at or below (or
//! around) its jitter-free base, so a bug that needs a delay shorter than the base (a first delay under
//! the cap, say) keeps failing with the jitter only while the draws fall there; the jitter-free config
//! alone sleeps the base and loses the failure. Lowering the first delay at once to the jitter's
//! lowest draw, or else to one below the base (the nearest draw that differs), keeps it.
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

/// `drop_jitter_lowered`: the first case of [`unjittered_lowered`] that keeps the failure.
pub(super) fn drop_jitter_lowered<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    for candidate in unjittered_lowered(shrinker.subject, &shrinker.best) {
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
