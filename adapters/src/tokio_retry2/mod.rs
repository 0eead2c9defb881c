//! tokio-retry2 0.9.1: its five strategies (each a subject driven by the documented retry loop) and its
//! `Retry` driver on the paused tokio runtime.
//!
//! | subject | name | config |
//! |---|---|---|
//! | [`TokioRetry2Exponential`] | `tokio-retry2-exponential` | [`ExponentialStrategy`] (`ExponentialBackoff`) |
//! | [`TokioRetry2ExponentialFactor`] | `tokio-retry2-exponential-factor` | [`ExponentialFactorStrategy`] (`ExponentialFactorBackoff`) |
//! | [`TokioRetry2Fibonacci`] | `tokio-retry2-fibonacci` | [`FibonacciStrategy`] (`FibonacciBackoff`) |
//! | [`TokioRetry2Fixed`] | `tokio-retry2-fixed` | [`FixedStrategy`] (`FixedInterval`) |
//! | [`TokioRetry2Linear`] | `tokio-retry2-linear` | [`LinearStrategy`] (`LinearBackoff`) |
//! | [`TokioRetry2Retry`] | `tokio-retry2-retry` | [`TokioRetry2RetryConfig`] (`Retry::spawn` / `spawn_notify`) |
//!
//! Every strategy config carries `take`: the strategies never end by themselves, and the docs limit
//! them with `.take(3); // limit to 3 retries`, so a call makes at most `take + 1` attempts.
//!
//! # Not covered, and covered on virtual std clocks
//! - Jitter (`jitter`, behind the `jitter` feature) draws from `rand`'s thread RNG. The
//!   `tokio-retry2-retry` subject draws `jitter` (each delay through `strategy::jitter`) and declares
//!   seeded std randomness ([`timelaw_core::std_random`]), so the thread RNG is seeded from the case's
//!   seed on the case's own thread. `jitter_with_bounds` and `jitter_range` are left out (the same RNG,
//!   other bounds).
//! - `MaxInterval::max_interval` / `max_duration` call `std::time::Instant::now()` themselves (not
//!   tokio's `Instant`, and no clock or start instant a caller could pass). The `tokio-retry2-retry`
//!   subject draws `max_duration` and declares virtual std clocks ([`timelaw_core::std_clocks`]), so
//!   the limit is read in virtual time; the strategy subjects, driven by the synchronous loop, leave it
//!   out (it is the same wrapper whatever the strategy).

mod retry;
mod strategies;

pub use retry::{TokioRetry2Retry, TokioRetry2RetryConfig};
pub use strategies::{
    ExponentialFactorStrategy, ExponentialStrategy, FibonacciStrategy, FixedStrategy, LinearStrategy, Strategy,
    TokioRetry2Exponential, TokioRetry2ExponentialFactor, TokioRetry2Fibonacci, TokioRetry2Fixed, TokioRetry2Linear,
};
