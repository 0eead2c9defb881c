//! timelaw-adapters: real retry crates behind the [`Subject`](timelaw_core::Subject) seam, each with a
//! config domain for the generators and a contract that states what the crate's documentation
//! promises, plus a paused-time tokio driver for async code that uses `tokio::time`.
//!
//! ```
//! use timelaw_adapters::backon::{BackonFibonacci, BackonFibonacciConfig};
//! use timelaw_core::{execute, EventKind, Outcome, Schedule, Step, Subject, VDuration};
//!
//! let s = VDuration::from_millis;
//! // backon takes `std::time::Duration`, so the config does too (written as text, "1.5s", in fixtures).
//! let ms = std::time::Duration::from_millis;
//! let config = BackonFibonacciConfig { jitter: false, min_delay: ms(1000), max_delay: Some(ms(1500)), max_times: Some(3) };
//! let three_failures = Schedule::single(vec![Step::instant(Outcome::Transient); 3]);
//! let trace = execute(&BackonFibonacci, &config, &three_failures, 0);
//! let sleeps: Vec<VDuration> = trace.events.iter().filter_map(|event| match event.kind {
//!     EventKind::SleepRequested { duration } => Some(duration),
//!     _ => None,
//! }).collect();
//! // The third delay is 1 s + 1 s, past `max_delay` (docs/findings.md).
//! assert_eq!(sleeps, vec![s(1000), s(1000), s(2000)]);
//! assert_eq!(BackonFibonacci.contract(&config).delays.max, Some(s(1500)));
//! ```
//!
//! ## Subjects
//! Every subject is a unit struct implementing [`Subject`](timelaw_core::Subject) and
//! [`ConfigDomain`](timelaw_generators::ConfigDomain); its name is what the CLI uses.
//!
//! | crate (feature) | type | name | config |
//! |---|---|---|---|
//! | backon 1.6.0 (`backon`) | [`backon::BackonExponential`] | `backon-exponential` | [`backon::BackonExponentialConfig`] |
//! | | [`backon::BackonFibonacci`] | `backon-fibonacci` | [`backon::BackonFibonacciConfig`] |
//! | | [`backon::BackonConstant`] | `backon-constant` | [`backon::BackonConstantConfig`] |
//! | | [`backon::BackonRetry`] | `backon-retry` | [`backon::BackonRetryConfig`] |
//! | tower 0.5.3 (`tower`) | [`tower::TowerBackoff`] | `tower-backoff` | [`tower::TowerBackoffConfig`] |
//! | | [`tower::TowerBudget`] | `tower-budget` | [`tower::TowerBudgetConfig`] |
//! | tower 0.5.3 (`tower`), under load | [`tower::TowerConcurrencyLimit`] | `tower-concurrency-limit` | [`tower::TowerConcurrencyLimitConfig`] |
//! | | [`tower::TowerRateLimit`] | `tower-rate-limit` | [`tower::TowerRateLimitConfig`] |
//! | | [`tower::TowerHedge`] | `tower-hedge` | [`tower::TowerHedgeConfig`] |
//! | exponential-backoff 2.1.1 (`exponential-backoff`) | [`exponential_backoff::ExponentialBackoffSubject`] | `exponential-backoff` | [`exponential_backoff::ExponentialBackoffConfig`] |
//! | tokio-retry2 0.9.1 (`tokio-retry2`) | [`tokio_retry2::TokioRetry2Exponential`] | `tokio-retry2-exponential` | [`tokio_retry2::ExponentialStrategy`] |
//! | | [`tokio_retry2::TokioRetry2ExponentialFactor`] | `tokio-retry2-exponential-factor` | [`tokio_retry2::ExponentialFactorStrategy`] |
//! | | [`tokio_retry2::TokioRetry2Fibonacci`] | `tokio-retry2-fibonacci` | [`tokio_retry2::FibonacciStrategy`] |
//! | | [`tokio_retry2::TokioRetry2Fixed`] | `tokio-retry2-fixed` | [`tokio_retry2::FixedStrategy`] |
//! | | [`tokio_retry2::TokioRetry2Linear`] | `tokio-retry2-linear` | [`tokio_retry2::LinearStrategy`] |
//! | | [`tokio_retry2::TokioRetry2Retry`] | `tokio-retry2-retry` | [`tokio_retry2::TokioRetry2RetryConfig`] |
//! | tokio (always) | [`tokio_timeout_loop::TokioTimeoutLoop`] | `tokio-timeout-loop` | [`tokio_timeout_loop::TokioTimeoutLoopConfig`] |
//! | governor 0.10.4 (`governor`) | [`governor::Governor`] | `governor` | [`governor::GovernorConfig`] |
//! | recloser 1.4.0 (`recloser`) | [`recloser::RecloserSubject`] | `recloser` | [`recloser::RecloserConfig`] |
//!
//! Each crate is pinned to one exact version: a finding is about that version.
//!
//! ## How a crate is driven
//! - Backoff iterators (backon's builders, exponential-backoff, tokio-retry2's strategies) run behind
//!   the retry loop their documentation shows, synchronously through the World: the crate decides the
//!   delays, the loop dispatches and sleeps in virtual time.
//! - Retry drivers (backon's `Retry`, tokio-retry2's `Retry`, tower's `Retry` middleware) run for real
//!   on the paused tokio runtime of [`tokio_driver`]; sleeps and notifications are recorded through
//!   the driver's [`Recorder`](tokio_driver::Recorder).
//! - tower's `TpsBudget` runs under the core's async executor with a frozen tokio clock.
//! - tower's `ConcurrencyLimit`, `RateLimit` and `Hedge` serve overlapping calls (`--concurrency`) on
//!   the driver's [`serve_calls_concurrently`](tokio_driver::serve_calls_concurrently): one middleware
//!   instance per case, each request the next scripted attempt of the call that sends it.
//! - governor's rate limiter serves overlapping calls through the synchronous seam
//!   ([`timelaw_core::concurrent_sync`]) on a `Clock` reading the World's instant.
//! - recloser's `AsyncRecloser` wraps one attempt future per call on the core's concurrent executor
//!   ([`timelaw_core::concurrent::run_async_calls`]); it reads the process's clock, so only open
//!   periods longer than any run are drawn.
//!
//! ## Contracts
//! A contract states what the crate's documentation promises and only that; where the docs are silent
//! the doc comment of the config's `contract` says which sentence the chosen reading rests on. Jitter
//! that the docs allow past the cap is stated as such (`JitterBounds::Additive` / `Symmetric`), and
//! crates that compute in floating point get a `delay_tolerance`.
//!
//! ## Config domains
//! Each config spans the crate's own settings, extreme but accepted values included, written once
//! against `Choices` for the three generator front-ends ([`domain`], [`draw`]). No legal setting is
//! filtered out: a run that sleeps past the World's virtual time limit is cut there (safety laws judged
//! on the prefix, liveness laws inconclusive, the cut counted in the report).
//!
//! ## Determinism
//! No wall clock and no OS randomness on the checking path. backon's jitter is seeded with
//! `with_jitter_seed`, tower's with an `Rng` over the World ([`tower::WorldRng`]), exponential-backoff's
//! through `fastrand::seed` on the current thread; tokio-retry2's jitter (`rand`'s thread RNG) on
//! seeded std randomness ([`timelaw_core::std_random`]). recloser and tokio-retry2's `max_duration` read `std::time::Instant::now()`
//! themselves: their subjects declare virtual std clocks ([`timelaw_core::std_clocks`]), so that clock
//! is the World's.
//!
//! ## Speed
//! `cargo bench -p timelaw-adapters --bench throughput` runs and judges sampled cases of every subject:
//! the synchronous adapters take about a microsecond per case, the tokio-driven ones about five (one
//! paused runtime per case).
#![deny(missing_docs)]

pub mod domain;
pub mod tokio_timeout_loop;

/// The draw helpers (now in `timelaw-generators`, kept here under their old path).
pub use timelaw_generators::draw;
/// The paused-time tokio driver (the `timelaw-tokio` crate, kept here under its old path).
pub use timelaw_tokio as tokio_driver;

#[cfg(feature = "backon")]
pub mod backon;
#[cfg(feature = "exponential-backoff")]
pub mod exponential_backoff;
#[cfg(feature = "governor")]
pub mod governor;
#[cfg(feature = "recloser")]
pub mod recloser;
#[cfg(feature = "tokio-retry2")]
pub mod tokio_retry2;
#[cfg(feature = "tower")]
pub mod tower;

pub use timelaw_core::float::{F32, F64};
pub use timelaw_core::sync_loop::LOOP_LAWS;
