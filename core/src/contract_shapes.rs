//! Contracts for the common retry policy shapes, in one call: a constant, linear, exponential or
//! Fibonacci backoff with a number of attempts and a cap, no jitter.
//!
//! Each constructor states the policy's promises only (attempts, delay bounds, the jitter-free delay
//! sequence, no jitter); what the loop around the policy promises (which outcomes it retries, the last
//! result returned, cancellation) is added by the loop, for instance with
//! [`sync_loop::contract_for`](crate::sync_loop::contract_for). A promise the policy does not make is
//! changed with struct update syntax, as for any contract.

use crate::contract::{BackoffShape, Contract, DelayContract, JitterBounds, RetryContract, TieRule, TimingContract};
use crate::time::VDuration;

impl Contract {
    /// At most `attempts_max` attempts per call, `delay` before every retry (so `delay_min` and
    /// `delay_max` are `delay`), no jitter. Nothing else is promised.
    pub fn constant(attempts_max: u32, delay: VDuration) -> Contract {
        let mut promise = Contract::shaped(attempts_max, BackoffShape::Constant { delay }, delay);
        promise.delays.min = Some(delay);
        promise
    }

    /// At most `attempts_max` attempts per call, delay `n` (from 1) `initial + step * (n - 1)` capped at
    /// `cap`, no jitter. Nothing else is promised.
    pub fn linear(attempts_max: u32, initial: VDuration, step: VDuration, cap: VDuration) -> Contract {
        Contract::shaped(attempts_max, BackoffShape::Linear { initial, step }, cap)
    }

    /// At most `attempts_max` attempts per call, delay `n` (from 1) `initial * (factor_milli / 1000)^(n - 1)`
    /// (computed exactly) capped at `cap`, no jitter. Nothing else is promised.
    ///
    /// # Examples
    /// ```
    /// use timelaw_core::{BackoffShape, Contract, JitterBounds, TieRule, VDuration};
    ///
    /// let ms = VDuration::from_millis;
    /// // 4 attempts, 10 ms doubling per retry, capped at 50 ms, each attempt cut after 1 s (tokio's tie rule).
    /// let contract = Contract::exponential(4, ms(10), 2000, ms(50)).with_attempt_timeout(ms(1000), TieRule::InnerWins);
    /// assert_eq!(contract.retry.max_attempts, Some(4));
    /// assert_eq!(contract.delays.max, Some(ms(50)));
    /// assert_eq!(contract.delays.backoff, Some(BackoffShape::Exponential { initial: ms(10), factor_milli: 2000 }));
    /// assert_eq!(contract.delays.jitter, Some(JitterBounds::None));
    /// assert_eq!(contract.timing.attempt_timeout, Some(ms(1000)));
    /// // Full jitter instead of none:
    /// let mut jittered = contract;
    /// jittered.delays.jitter = Some(JitterBounds::Full);
    /// assert_eq!(jittered.delays.backoff, contract.delays.backoff);
    /// ```
    pub fn exponential(attempts_max: u32, initial: VDuration, factor_milli: u64, cap: VDuration) -> Contract {
        Contract::shaped(attempts_max, BackoffShape::Exponential { initial, factor_milli }, cap)
    }

    /// At most `attempts_max` attempts per call, delay `n` (from 1) `initial * fib(n)` capped at `cap`,
    /// no jitter. Nothing else is promised.
    pub fn fibonacci(attempts_max: u32, initial: VDuration, cap: VDuration) -> Contract {
        Contract::shaped(attempts_max, BackoffShape::Fibonacci { initial }, cap)
    }

    /// This contract with each attempt cut after `timeout`, a tie at the timeout read by `tie`.
    pub fn with_attempt_timeout(self, timeout: VDuration, tie: TieRule) -> Contract {
        Contract { timing: TimingContract { attempt_timeout: Some(timeout), timeout_tie: tie, ..self.timing }, ..self }
    }

    /// The promises every shape shares.
    fn shaped(attempts_max: u32, backoff: BackoffShape, cap: VDuration) -> Contract {
        Contract {
            retry: RetryContract { max_attempts: Some(attempts_max), ..RetryContract::default() },
            delays: DelayContract {
                max: Some(cap),
                backoff: Some(backoff),
                jitter: Some(JitterBounds::None),
                ..DelayContract::default()
            },
            ..Contract::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(max_attempts, delay_min, delay_max, first three jitter-free delays before the cap)`.
    type Promises = (Option<u32>, Option<VDuration>, Option<VDuration>, [Option<VDuration>; 3]);

    #[track_caller]
    fn check(contract: Contract, expect: Promises) {
        let delays = contract.delays.backoff.map_or([None; 3], |shape| [1, 2, 3].map(|n| shape.nth(n)));
        assert_eq!((contract.retry.max_attempts, contract.delays.min, contract.delays.max, delays), expect);
        assert_eq!(contract.delays.jitter, Some(JitterBounds::None), "{contract:?}");
        let others = Contract {
            retry: RetryContract { max_attempts: None, ..contract.retry },
            delays: DelayContract { min: None, max: None, backoff: None, jitter: None, ..contract.delays },
            ..contract
        };
        assert_eq!(others, Contract::default(), "a shape promises nothing else");
    }

    #[test]
    fn shapes_promise_attempts_bounds_and_sequence_only() {
        let ms = |n: u64| Some(VDuration::from_millis(n));
        let d = VDuration::from_millis;
        check(Contract::constant(3, d(7)), (Some(3), ms(7), ms(7), [ms(7), ms(7), ms(7)]));
        check(Contract::linear(2, d(10), d(5), d(18)), (Some(2), None, ms(18), [ms(10), ms(15), ms(20)]));
        check(Contract::exponential(5, d(10), 2000, d(30)), (Some(5), None, ms(30), [ms(10), ms(20), ms(40)]));
        check(Contract::exponential(1, d(20), 1500, d(30)), (Some(1), None, ms(30), [ms(20), ms(30), ms(45)]));
        check(Contract::fibonacci(4, d(3), d(100)), (Some(4), None, ms(100), [ms(3), ms(3), ms(6)]));
        check(
            Contract::exponential(0, VDuration::ZERO, 0, VDuration::MAX),
            (Some(0), None, Some(VDuration::MAX), [Some(VDuration::ZERO); 3]),
        );
    }

    #[test]
    fn attempt_timeout_is_added_to_the_shape() {
        let ms = VDuration::from_millis;
        let contract = Contract::constant(2, ms(1)).with_attempt_timeout(ms(9), TieRule::InnerWins);
        assert_eq!((contract.timing.attempt_timeout, contract.timing.timeout_tie), (Some(ms(9)), TieRule::InnerWins));
        assert_eq!(
            Contract {
                timing: TimingContract { attempt_timeout: None, timeout_tie: TieRule::Expired, ..contract.timing },
                ..contract
            },
            Contract::constant(2, ms(1))
        );
    }
}
