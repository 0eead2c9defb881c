//! The shrink pass over the config's numbers (`shrink_numbers`): each number the domain lists
//! ([`ConfigDomain::config_numbers`]: counts, percentages, durations in nanoseconds) is tried at its
//! minimum, then lowered by binary search to the smallest value that still fails (halving is its first
//! step, a decrement by one its last), so a duration reaches its exact boundary, to the nanosecond. A
//! value that loses the failure alone is tried again with the schedule's durations on the moved
//! contract boundaries moved along (`adapt`), as for a simpler config.

use timelaw_generators::ConfigDomain;

use super::adapt::adapt;
use super::engine::Shrinker;

/// Lowers every number of the best config in turn; whether any was kept.
pub(super) fn shrink_numbers<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let count = shrinker.subject.config_numbers(&shrinker.best.config).len();
    for index in 0..count {
        progress |= lower_number(shrinker, index);
        if shrinker.out_of_budget() {
            break;
        }
    }
    progress
}

fn lower_number<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, index: usize) -> bool {
    let Some(number) = shrinker.subject.config_numbers(&shrinker.best.config).get(index).copied() else {
        return false;
    };
    if number.value <= number.min {
        return false;
    }
    if try_value(shrinker, index, number.min) {
        return true;
    }
    // Binary search between the minimum (which lost the failure) and the current value (which fails).
    let (mut low, mut high, mut progress) = (number.min, number.value, false);
    while high - low > 1 && !shrinker.out_of_budget() {
        let middle = low + (high - low) / 2;
        if try_value(shrinker, index, middle) {
            high = middle;
            progress = true;
        } else {
            low = middle;
        }
    }
    progress
}

/// Tries the best case with number `index` set to `value`; `false` when that config is not valid.
fn try_value<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, index: usize, value: u64) -> bool {
    let Some(config) = shrinker.subject.with_config_number(&shrinker.best.config, index, value) else {
        return false;
    };
    let mut candidate = shrinker.best.clone();
    candidate.config = config;
    let old = shrinker.contract();
    let new = shrinker.subject.contract(&candidate.config);
    if shrinker.attempt(candidate.clone()) {
        return true;
    }
    // The coupled move, as for a simpler config: durations on a moved boundary move with it (no number
    // removes a timeout, so no run is needed for the trace).
    let at = shrinker.violated_at();
    match adapt(&candidate, &old, &new, || shrinker.best_trace(), at) {
        Some((adapted, allowance)) => shrinker.attempt_within(adapted, allowance),
        None => false,
    }
}
