//! Which call results a retry loop retries: [`RetryOn::retries`] for a contract's promise, and the
//! default (transient errors, rate limits and timeouts, as [`RetryOn::ALL`]) for loops that take no
//! classifier: [`ErrorKind::retryable_by_default`], [`CallResult::retryable_by_default`].

use crate::contract::RetryOn;
use crate::trace::{CallResult, ErrorKind};

impl RetryOn {
    /// `true` when a loop keeping this promise retries an attempt that failed with `kind`. Fatal errors,
    /// and the errors that end a call rather than an attempt (an open circuit, cancellation, a passed
    /// deadline), are never retried.
    ///
    /// ```
    /// use timelaw_core::{ErrorKind, RetryOn};
    ///
    /// let transient_only = RetryOn { transient: true, rate_limited: false, timeout: false };
    /// assert!(transient_only.retries(ErrorKind::Transient));
    /// assert!(!transient_only.retries(ErrorKind::Timeout));
    /// ```
    pub const fn retries(self, kind: ErrorKind) -> bool {
        match kind {
            ErrorKind::Transient => self.transient,
            ErrorKind::RateLimited => self.rate_limited,
            ErrorKind::Timeout => self.timeout,
            ErrorKind::Fatal
            | ErrorKind::CircuitOpen
            | ErrorKind::Cancelled
            | ErrorKind::DeadlineExceeded
            | ErrorKind::BulkheadFull
            | ErrorKind::LimiterEmpty => false,
        }
    }
}

impl ErrorKind {
    /// `true` for the errors a retry loop retries unless told otherwise: transient errors, rate limits
    /// and timeouts ([`RetryOn::ALL`], the default of [`RetryOn`]).
    pub const fn retryable_by_default(self) -> bool {
        RetryOn::ALL.retries(self)
    }
}

impl CallResult {
    /// `true` for an `Err` whose kind is [`ErrorKind::retryable_by_default`]; `Ok` is never retried.
    ///
    /// ```
    /// use timelaw_core::{CallResult, ErrorKind};
    ///
    /// assert!(CallResult::Err(ErrorKind::Timeout).retryable_by_default());
    /// assert!(!CallResult::Err(ErrorKind::Fatal).retryable_by_default());
    /// assert!(!CallResult::Ok.retryable_by_default());
    /// ```
    pub const fn retryable_by_default(self) -> bool {
        match self {
            CallResult::Ok => false,
            CallResult::Err(kind) => kind.retryable_by_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorKind::*;

    const EVERY_KIND: [ErrorKind; 7] =
        [Transient, Fatal, RateLimited, Timeout, CircuitOpen, Cancelled, DeadlineExceeded];

    /// The kinds `retry_on` retries, in [`EVERY_KIND`]'s order.
    #[track_caller]
    fn check(retry_on: RetryOn, expect: [bool; 7]) {
        assert_eq!(EVERY_KIND.map(|kind| retry_on.retries(kind)), expect, "{retry_on:?}");
    }

    #[test]
    fn retry_on_names_exactly_the_kinds_it_retries() {
        let only = |transient, rate_limited, timeout| RetryOn { transient, rate_limited, timeout };
        check(RetryOn::ALL, [true, false, true, true, false, false, false]);
        check(only(true, false, false), [true, false, false, false, false, false, false]);
        check(only(false, true, false), [false, false, true, false, false, false, false]);
        check(only(false, false, true), [false, false, false, true, false, false, false]);
        check(only(false, false, false), [false; 7]);
    }

    #[test]
    fn the_default_is_retry_on_all() {
        for kind in EVERY_KIND {
            assert_eq!(kind.retryable_by_default(), RetryOn::default().retries(kind), "{kind:?}");
            assert_eq!(CallResult::Err(kind).retryable_by_default(), kind.retryable_by_default(), "{kind:?}");
        }
        assert!(!CallResult::Ok.retryable_by_default());
    }
}
