//! The delay before each retry: backoff, cap and jitter.

use super::policy::{Backoff, Jitter, Policy};
use crate::time::VDuration;
use crate::world::{Abort, World};

/// The delay before retry `n` (from 1), drawing jitter from the World. `previous` is the delay before
/// retry `n - 1` (used by decorrelated backoff).
///
/// # Errors
/// [`Abort::Randomness`] when scripted randomness fails.
pub fn next_delay(
    policy: &Policy,
    n: u32,
    previous: Option<VDuration>,
    world: &mut World<'_>,
) -> Result<VDuration, Abort> {
    let cap = policy.delay_max;
    if let Backoff::Decorrelated { initial } = policy.backoff {
        // min(cap, random(initial, previous * 3)): a cap below `initial` is slept as the cap (validation
        // rejects such a policy; the final `min` keeps the definition if it is ever allowed).
        let high = previous.unwrap_or(initial).saturating_mul(3).min(cap).max(initial);
        let nanos = world.random_between(initial.as_nanos(), high.as_nanos())?;
        return Ok(VDuration::from_nanos(nanos).min(cap));
    }
    let base = capped_base(policy, n);
    let delay = match policy.jitter {
        Jitter::None => base,
        Jitter::Full => VDuration::from_nanos(world.random_between(0, base.as_nanos())?),
        Jitter::Equal => {
            let half = base.div(2);
            let extra = world.random_between(0, base.saturating_sub(half).as_nanos())?;
            half.saturating_add(VDuration::from_nanos(extra))
        }
    };
    debug_assert!(delay <= cap, "a delay never exceeds the cap");
    Ok(delay)
}

/// The jitter-free delay before retry `n`, capped.
pub fn capped_base(policy: &Policy, n: u32) -> VDuration {
    let uncapped = policy.backoff.shape().nth(n).unwrap_or(policy.delay_max);
    uncapped.min(policy.delay_max)
}
