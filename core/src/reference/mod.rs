//! The reference resilience interpreter: a complete, readable retry / timeout / circuit-breaker
//! implementation behind the [`Subject`](crate::Subject) seam, configured by a [`Policy`].
//!
//! Every call of the schedule is served in order. State that spans calls (the circuit breaker, the retry
//! budget) lives for one case.
//!
//! # Max attempts
//! A call makes at most `max_attempts` attempts, the first included. After the last one fails, the call
//! returns the error of that attempt without sleeping.
//!
//! # Backoff and cap
//! The delay before retry `n` (from 1) is `min(delay_max, base(n))` with `base` constant (`delay`), linear
//! (`initial + step*(n-1)`), exponential (`initial * factor^(n-1)`, saturating) or decorrelated (drawn from
//! `initial..=min(delay_max, 3*previous)`, previous starting at `initial`). `delay_max >= initial` is
//! required.
//!
//! # Jitter
//! With jitter `none` the delay is the capped base `b`; `full` draws it uniformly from `0..=b`; `equal`
//! is `b/2` plus a uniform draw from `0..=b - b/2`. Draws come from the World's randomness, so a case's
//! seed fixes them.
//!
//! # Retryable outcomes
//! `retry_on` says whether transient errors, rate limits and timeouts are retried. Fatal errors never
//! are: a fatal attempt ends the call with `Err(Fatal)` at once.
//!
//! # Retry-after
//! With `honor_retry_after`, a retry after a rate-limited attempt follows `retry_after_policy` (every
//! [`RetryAfterPolicy`](crate::RetryAfterPolicy) but `Ignored`), by default `max(delay, retry_after)`
//! giving up above the cap:
//! - at or below `delay_max`: `MaxWithBackoff` waits `max(delay, retry_after)`; `ReplacesBackoff` waits
//!   exactly the retry-after, and that sleep is not one of the backoff's: the backoff does not advance
//!   (the next backoff delay is the one that would have come without it, decorrelated backoff grows from
//!   the last backoff delay) and draws no jitter for it;
//! - above `delay_max`: `GiveUp` ends the call with `Err(RateLimited)` rather than break the cap, `Clamp`
//!   waits exactly `delay_max`, `SleepAnyway` waits the retry-after (with `ReplacesBackoff` neither
//!   advances the backoff).
//!
//! Without `honor_retry_after`, rate limits are retried on the ordinary schedule (`Ignored`). The
//! contract states the policy (`rate.retry_after`), so the laws judge each sleep by the range
//! [`Contract::sleep_range`](crate::Contract::sleep_range) computes from it.
//!
//! # Attempt timeout
//! Each attempt runs under `attempt_timeout` (further shortened to the time left before the deadline).
//! An attempt that needs exactly the timeout is timed out: equality counts as expired
//! ([`TieRule::Expired`](crate::TieRule::Expired)). A timed-out attempt's error is `Timeout`.
//!
//! # Deadline
//! A call returns `Err(DeadlineExceeded)` no later than `started + deadline`: no attempt starts at or after
//! it, an attempt running into it is cut there, and a retry whose delay would wake at or after it is not
//! taken (the call gives up at once instead of sleeping in vain).
//!
//! # Cancellation
//! Before each attempt, after each failed or cut attempt and after each cut sleep, the deadline and
//! cancellation are checked in the order of `interrupt_tie`: by default the deadline first, so a call
//! whose deadline and cancellation fall on the same instant returns `DeadlineExceeded`; with
//! `CancellationFirst` it returns `Cancelled` (an attempt the deadline cuts at that instant too). The
//! contract declares the order (`interrupt_tie`). A cancelled call returns `Err(Cancelled)` and dispatches
//! nothing more.
//!
//! # Clocks
//! Every limit is measured on the monotonic clock (the contract says so: `clocks` is
//! [`ClockContract::MONOTONIC`](crate::ClockContract::MONOTONIC)). Each deadline check is a read of the
//! monotonic clock ([`World::read_now`](crate::World::read_now)); each call's start is stamped with a
//! read of the wall clock ([`World::wall_now`](crate::World::wall_now)), which never decides anything,
//! so a wall jump changes no attempt, sleep or result. A failed read records a `TimingMissing`
//! diagnostic; a failed deadline check counts as expired (no new attempt starts) and the call keeps its
//! real outcome: the last attempt's error, or `DeadlineExceeded` before any attempt. A failed wall read
//! only leaves the call without its timestamp.
//!
//! # Idempotency
//! A non-idempotent call is attempted once; its first failure is its result.
//!
//! # Sleep budget
//! The delays of one call add up to at most `sleep_budget`; a retry that would exceed it is not taken
//! and the call returns its last error.
//!
//! # Elapsed-time limit
//! With `retry_elapsed_max`, no retry starts later than that after its call started: a retry whose delay
//! would wake after `started + retry_elapsed_max` is not taken and the call returns its last error; one
//! waking exactly then is taken, unless `retry_elapsed_bound` is `Exclusive` ("stops once the elapsed time
//! reaches it"), which takes only retries waking before it.
//!
//! # Circuit breaker
//! A breaker around whole calls. Closed, it opens by its `policy`: the count window (the default: it keeps
//! the results of the last `window` calls and opens when at least `min_calls` results are there and
//! `failures * 100 >= failure_percent * results`), `ConsecutiveFailures` (a run of `threshold` failures; a
//! success resets it) or `TimeWindow` (the count window's rule over the results that ended less than
//! `window` ago). Every error but `Cancelled` is a failure; `Cancelled` is one too with
//! `counts_cancellation`. Open, it rejects calls with `Err(CircuitOpen)` and no dispatch until its open
//! period has passed since it opened: period `n` since it last closed lasts `open_shape.period(open_for,
//! n)`; a call at exactly the end is admitted (`cooldown_tie` `AdmitsAtEnd`), or only one strictly after
//! it (`AdmitsAfterEnd`). The first call admitted turns it half-open. Half-open, it admits at most
//! `half_open_probes` probe calls: one failure reopens it, `closes_after` successes (by default
//! `half_open_probes`) close it (with an empty window and the open shape restarted); a cancelled probe
//! that is not a failure frees its slot.
//!
//! # Retry budget
//! Over the calls of a case, retries never exceed `min_retries + calls_started * retry_percent / 100`. A
//! retry the budget refuses is recorded as a rejection and the call returns its last error.
//!
//! # Overlapping calls
//! A schedule whose calls have arrivals ([`crate::schedule`], "Arrivals"), or a policy with a bulkhead,
//! a rate limiter, hedging or ordered results, is served on the concurrent path: one task per call on
//! the virtual-time executor ([`crate::concurrent::run_async_calls`]), each call running the retry loop above. Shared state (the
//! breaker, the budget, the bulkhead, the bucket) is shared by the calls. A sequential case without
//! those mechanisms takes the sequential path, and a sequential case with them runs alike on both
//! (tested). Half-open, the breaker admits up to `half_open_probes` probes at once; a call's result
//! counts in the state it was admitted in (a result landing after the breaker moved on is dropped). A
//! probe holds its slot until its result, so a probe can still be running when its period closes only
//! when `closes_after` is below `half_open_probes`; such a probe's failure landing at the very instant
//! of the close reopens the breaker (`probe_settle` `FailureReopens`, the default), or changes nothing
//! (`ResultOrder`).
//!
//! # Bulkhead
//! With `bulkhead`, at most `max_in_flight` calls hold a slot (from their admission to their end). A call
//! arriving when every slot is taken, or when others already wait, waits in a first-come queue
//! (`Queued`) while fewer than `queue_max` wait, and is rejected (`BulkheadFull`, no dispatch) otherwise.
//! A waiting call leaves the queue at its deadline (`DeadlineExceeded`) or its cancellation
//! (`Cancelled`), in the order of `interrupt_tie`. Its contract states the first-come order
//! (`BulkheadContract::first_come`) whatever the config says.
//!
//! # Rate limiter
//! With `limiter`, a token bucket of `burst` tokens, full at the start of the case, gains one token at
//! every whole multiple of `refill_every` while below `burst` (zero `refill_every`: no limit). Every
//! dispatch, retries included, takes a token first; with none left the call is rejected
//! (`LimiterEmpty`) and returns `Err(LimiterEmpty)`. With `window` [`LimiterWindow::Fixed`](crate::LimiterWindow),
//! fixed windows instead: a window of `refill_every` opens at the first dispatch after the previous one
//! closed and admits `burst` dispatches ([`FixedWindow`](crate::FixedWindow)).
//!
//! # Hedged requests
//! With `hedge`, a try of the retry loop (an attempt) that has no answer `delay` after it started gets a
//! hedge: a further attempt beside it, then another `delay` after the latest start, up to `max_hedges`
//! hedges per call (over all its tries). The first attempt of the try to answer decides it, whatever
//! the answer (tower's `Hedge` returns the first response too): every other attempt still running is
//! cancelled at that instant (`AttemptCancelled`), and the answer is read as the answer of a lone attempt
//! (a success ends the call; a failure is retried, or not, as usual). When several attempts answer at
//! the same instant, the earliest started decides; an attempt answering exactly at the hedge instant
//! is not hedged. A hedge is an attempt: it counts towards `max_attempts` (the backoff counts tries, not
//! attempts), takes a limiter token, and is a retry to the retry budget and to `retry_elapsed_max`; when
//! one of them has no room, or the call is not idempotent, cancelled or past its deadline, the try goes
//! on without hedges and nothing is recorded (a hedge is an option, not a call to refuse). A hedge runs
//! under its own attempt timeout, shortened to the deadline like any attempt. The bulkhead and the
//! breaker see the call, not its attempts. A hedge delay past the run's time limit never comes.
//!
//! # Ordered results
//! With `ordered_results`, calls return in input (index) order, like a buffered stream: a call done
//! before an earlier call returned holds its result until every earlier call has returned (the breaker
//! counts the result when the call returns). A call that dispatched holds its bulkhead slot while it
//! waits (it is in flight until it returns); one that did not frees it first, one that gave up waiting in
//! the bulkhead's queue keeps its place in the queue's room until it returns (the trace shows a queued
//! call as queued until its next event), and with a bulkhead, calls
//! enter it in input order, so a waiting call never keeps an earlier one out. A caller that cancels a
//! waiting call stops waiting for it: the call returns its result at the cancellation instant, out of
//! order (the stream goes on without it; `ordered_results_in_input_order` does not judge such a call).
//! A deadline needs no such exception: an earlier call started no later and has the same deadline.
//!
//! # Notifications
//! Before every sleep the interpreter notifies with the exact delay it is about to sleep.
//!
//! # Bad input
//! [`Policy::validate`] rejects a policy that cannot be honoured and names the field; running an invalid
//! policy aborts the run with [`Abort::InvalidConfig`](crate::Abort::InvalidConfig) before any call.

mod backoff;
mod budget;
mod circuit;
mod hedge;
mod interpreter;
mod load;
mod ordered;
mod policy;

pub use backoff::{capped_base, next_delay};
pub use budget::RetryBudget;
pub use circuit::{Breaker, Ticket};
pub use interpreter::Reference;
pub use policy::{Backoff, Jitter, Policy, PolicyError, PolicyFields, MAX_ATTEMPTS, MAX_FACTOR, MAX_WINDOW};
