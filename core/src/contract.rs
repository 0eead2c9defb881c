//! The contract: what a subject promises for one config. Laws read it; a law whose fields are absent is
//! "not applicable" to that subject.
//!
//! Every field is optional or has a neutral default ([`Contract::default`] promises nothing), so an adapter
//! states exactly what its crate's documentation promises and nothing more.

use serde::{Deserialize, Serialize};

use crate::clock::ClockContract;
pub use crate::contract_declared::Declared;
pub use crate::contract_load::{BulkheadContract, FixedWindow, HedgeContract, LimiterContract, LimiterWindow};
use crate::mechanisms::{
    CircuitPolicy, CooldownTie, HalfOpenEntry, InterruptTie, LateResults, LimitBound, OpenShape, ProbeSettle,
    RetryAfterPolicy,
};
use crate::promise::{self, FloatFactor, Promised, Tolerance};
use crate::time::VDuration;
use crate::wide::Round;

/// What happens when an attempt completes at exactly the instant its timeout expires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    /// Equality counts as expired: an attempt that needs exactly the timeout is timed out (the reference
    /// interpreter's rule).
    #[default]
    Expired,
    /// The inner result wins a tie: tokio polls the inner future before the timer, so an attempt completing
    /// exactly at the deadline returns its own result.
    InnerWins,
}

/// The delay sequence a subject promises when it adds no jitter, before the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum BackoffShape {
    /// Every delay is `delay`.
    Constant {
        /// The delay.
        delay: VDuration,
    },
    /// Delay `n` (from 1) is `initial + step * (n - 1)`.
    Linear {
        /// First delay.
        initial: VDuration,
        /// Added per retry.
        step: VDuration,
    },
    /// Delay `n` is `initial * factor^(n - 1)` with `factor = factor_milli / 1000`, computed exactly.
    Exponential {
        /// First delay.
        initial: VDuration,
        /// The growth factor in thousandths (2.0 is 2000).
        factor_milli: u64,
    },
    /// Delay `n` is `initial_nanos * factor^(n - 1)` for a factor stated as a float (an `f32` converts
    /// exactly), computed exactly from the float's value; `initial_nanos` may lie past what
    /// [`VDuration`] holds (a `std::time::Duration` start above 584 years).
    ExponentialFloat {
        /// First delay in nanoseconds.
        initial_nanos: u128,
        /// The growth factor exactly as the subject holds it.
        factor: FloatFactor,
    },
    /// Delay `n` is `initial * fib(n)` with fib(1) = fib(2) = 1.
    Fibonacci {
        /// First delay.
        initial: VDuration,
    },
    /// AWS "decorrelated jitter": each delay is `min(cap, random(initial, previous * factor))` with
    /// `factor = factor_milli / 1000` (3 in AWS's definition) and `previous` starting at `initial`; there
    /// is no jitter-free sequence, only bounds.
    Decorrelated {
        /// The lower bound and first upper bound.
        initial: VDuration,
        /// The growth factor of the upper bound in thousandths (3.0 is 3000).
        #[serde(default = "decorrelated_factor_milli")]
        factor_milli: u64,
    },
}

/// AWS's factor 3 for decorrelated jitter.
fn decorrelated_factor_milli() -> u64 {
    3000
}

impl BackoffShape {
    /// Decorrelated jitter with AWS's factor 3.
    pub const fn decorrelated(initial: VDuration) -> BackoffShape {
        BackoffShape::Decorrelated { initial, factor_milli: 3000 }
    }

    /// The exact jitter-free delay before retry `n` (from 1), before any cap, as the range of whole
    /// nanoseconds that round it (see [`crate::promise`]); past [`VDuration::MAX`] it stays above.
    /// `None` for [`BackoffShape::Decorrelated`], which has no jitter-free sequence.
    pub fn promised(self, n: u32) -> Option<Promised> {
        let steps = u64::from(n.saturating_sub(1));
        let nanos = |duration: VDuration| u128::from(duration.as_nanos());
        Some(match self {
            BackoffShape::Constant { delay } => Promised::exactly(delay),
            BackoffShape::Linear { initial, step } => {
                let value = nanos(initial) + nanos(step) * u128::from(steps); // < 2^97: no overflow.
                Promised::between(value, value)
            }
            BackoffShape::Exponential { initial, factor_milli } if factor_milli % 1000 == 0 => {
                promise::integer_power(nanos(initial), u128::from(factor_milli / 1000), steps)
            }
            BackoffShape::Exponential { initial, factor_milli } => {
                promise::scaled_power(nanos(initial), promise::milli_factor(factor_milli), steps)
            }
            BackoffShape::ExponentialFloat { initial_nanos, factor } => match promise::integer_factor(factor) {
                Some(integer) => promise::integer_power(initial_nanos, integer, steps),
                None => promise::scaled_power(initial_nanos, promise::float_factor(factor), steps),
            },
            BackoffShape::Fibonacci { initial } => {
                let value = nanos(initial).saturating_mul(fibonacci(n));
                Promised::between(value, value)
            }
            BackoffShape::Decorrelated { .. } => return None,
        })
    }

    /// The jitter-free delay before retry `n` (from 1), before any cap, saturated into a [`VDuration`]: a
    /// cheap prediction (for the generators' boundaries and the adapters' domains), exact for integer
    /// factors and within a few `f64` ulps for the others. Laws judge with [`BackoffShape::promised`].
    /// `None` for [`BackoffShape::Decorrelated`].
    pub fn nth(self, n: u32) -> Option<VDuration> {
        let steps = n.saturating_sub(1).min(i32::MAX as u32) as i32;
        // `as` saturates and maps NaN to 0.
        let predict = |initial: f64, factor: f64| Some(VDuration::from_nanos((initial * factor.powi(steps)) as u64));
        match self {
            BackoffShape::Exponential { initial, factor_milli } if factor_milli % 1000 != 0 => {
                predict(initial.as_nanos() as f64, factor_milli as f64 / 1000.0)
            }
            BackoffShape::ExponentialFloat { initial_nanos, factor } if promise::integer_factor(factor).is_none() => {
                predict(initial_nanos as f64, factor.0)
            }
            other => other.promised(n).map(Promised::low_saturated),
        }
    }

    /// The bounds of decorrelated delay `n` after a `previous` sleep (`None` for the first), with the cap:
    /// `min(cap, initial)..=min(cap, max(initial, previous * factor))`. `None` for the other shapes.
    pub fn decorrelated_bounds(self, previous: Option<VDuration>, cap: VDuration) -> Option<Promised> {
        let BackoffShape::Decorrelated { initial, factor_milli } = self else {
            return None;
        };
        let previous = u128::from(previous.unwrap_or(initial).as_nanos());
        let grown = promise::scale_milli(previous, factor_milli, Round::Up).max(u128::from(initial.as_nanos()));
        Some(Promised::between(u128::from(initial.as_nanos()), grown).min(cap))
    }
}

/// fib(n) on `u128`, saturating (a saturated value is still above every delay).
fn fibonacci(n: u32) -> u128 {
    let (mut a, mut b) = (0_u128, 1_u128);
    for _ in 0..n.min(200) {
        (a, b) = (b, a.saturating_add(b));
    }
    if n > 200 {
        return u128::MAX;
    }
    a
}

/// How much randomness a subject promises to add to the jitter-free delay `b` (already capped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum JitterBounds {
    /// The delay is exactly `b`.
    #[default]
    None,
    /// The delay lies in `0..=b`.
    Full,
    /// The delay lies in `b/2..=b`.
    Equal,
    /// The delay lies in `b..=b + b * ratio_milli / 1000` (jitter that may exceed the cap).
    Additive {
        /// The largest added share in thousandths.
        ratio_milli: u64,
    },
    /// The delay lies in `b - b*r..=b + b*r` with `r = ratio_milli / 1000` (symmetric randomisation).
    Symmetric {
        /// The randomisation factor in thousandths.
        ratio_milli: u64,
    },
    /// The delay lies in `b * low_milli / 1000..=b * high_milli / 1000`: an explicit range relative to the
    /// base. Full jitter is `0..=1000`, equal `500..=1000`, bounded around a floor (`b/2 + random(0..=b/2)`)
    /// `500..=1000`, additive `1000..=1000 + r`, symmetric `1000 - r..=1000 + r`.
    Range {
        /// The lowest share of the base in thousandths.
        low_milli: u64,
        /// The highest share of the base in thousandths.
        high_milli: u64,
    },
}

impl JitterBounds {
    /// The inclusive range a delay with jitter-free value `base` may take.
    pub fn range(self, base: VDuration) -> (VDuration, VDuration) {
        let range = self.around(Promised::exactly(base));
        let saturate = |nanos: u128| VDuration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
        (saturate(range.low_nanos()), saturate(range.high_nanos()))
    }

    /// The range a delay may take around an exact promised `base` (already capped): full `0..=b`, equal
    /// `floor(b/2)..=b`, additive `b..=b + ceil(b*r)`, symmetric `floor(b - b*r)..=ceil(b + b*r)`, each end
    /// computed exactly from the matching end of `base`.
    pub fn around(self, base: Promised) -> Promised {
        let (low, high) = (base.low_nanos(), base.high_nanos());
        match self {
            JitterBounds::None => base,
            JitterBounds::Full => Promised::between(0, high),
            JitterBounds::Equal => Promised::between(low / 2, high),
            JitterBounds::Additive { ratio_milli } => {
                let extra = promise::scale_milli(high, ratio_milli, Round::Up);
                Promised::between(low, high.saturating_add(extra))
            }
            JitterBounds::Symmetric { ratio_milli } => {
                let kept = promise::scale_milli(low, 1000_u64.saturating_sub(ratio_milli), Round::Down);
                let extra = promise::scale_milli(high, ratio_milli, Round::Up);
                Promised::between(kept, high.saturating_add(extra))
            }
            JitterBounds::Range { low_milli, high_milli } => Promised::between(
                promise::scale_milli(low, low_milli, Round::Down),
                promise::scale_milli(high, high_milli, Round::Up),
            ),
        }
    }
}

/// Which attempt outcomes the subject retries. Fatal errors are never retryable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryOn {
    /// Retry transient errors.
    pub transient: bool,
    /// Retry rate-limited answers.
    pub rate_limited: bool,
    /// Retry attempts that timed out.
    pub timeout: bool,
}

impl RetryOn {
    /// Retries transient errors, rate limits and timeouts.
    pub const ALL: RetryOn = RetryOn { transient: true, rate_limited: true, timeout: true };
}

impl Default for RetryOn {
    fn default() -> RetryOn {
        RetryOn::ALL
    }
}

/// `true` for a value equal to its type's default (serde skips such refinements, so a config or contract
/// that does not use them writes what it wrote before they existed).
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// A circuit breaker over whole calls: its count window (or the window of its [`CircuitPolicy`]), when it
/// opens, how long it stays open and how it probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircuitContract {
    /// The breaker looks at the results of the last `window` admitted calls in the closed state.
    pub window: u32,
    /// It never opens with fewer than `min_calls` results in the window.
    pub min_calls: u32,
    /// It opens when `failures * 100 >= failure_percent * results`.
    pub failure_percent: u32,
    /// It stays open this long, then lets probes through (half-open).
    pub open_for: VDuration,
    /// Half-open admits at most this many probes; that many successes close it (unless
    /// [`CircuitContract::closes_after`] says fewer), one failure reopens it.
    pub half_open_probes: u32,
    /// "Opens after N consecutive failures" / "... failure rate in the last N calls" / "... in the last
    /// T": when the breaker opens (the count window by default).
    #[serde(default, skip_serializing_if = "is_default")]
    pub policy: CircuitPolicy,
    /// "Stays open for `open_for`" or "the open period grows exponentially up to a cap".
    #[serde(default, skip_serializing_if = "is_default")]
    pub open_shape: OpenShape,
    /// "After `open_for` the next call is let through" (at the end) or "rejects until the open period is
    /// over" (strictly after it).
    #[serde(default, skip_serializing_if = "is_default")]
    pub cooldown_tie: CooldownTie,
    /// "A cancelled call counts as a failure": the breaker records a cancelled call as a failure (by
    /// default a cancelled call is not a result, and a cancelled probe frees its slot).
    #[serde(default, skip_serializing_if = "is_default")]
    pub counts_cancellation: bool,
    /// "A failed probe reopens the breaker" (whatever lands beside it) or "probe results settle in the
    /// order they land": how the results of concurrent half-open probes decide the next state.
    #[serde(default, skip_serializing_if = "is_default")]
    pub probe_settle: ProbeSettle,
    /// "Closes after N successful probes", where the docs state it apart from how many probes half-open
    /// admits: that many probe successes close the breaker; `None`: `half_open_probes` of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closes_after: Option<u32>,
    /// "A result counts in the state that admitted its call" (the default) or "in the state the breaker is
    /// in when it lands": what a result landing after the breaker moved on does.
    #[serde(default, skip_serializing_if = "is_default")]
    pub late_results: LateResults,
    /// "The next call after the open period is a probe" (the default: half-open entered when a call asks)
    /// or "after `open_for` it is half-open" (entered when the period ends): where a late result landing
    /// after the period counts, with `late_results = landing_state`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub half_open_entry: HalfOpenEntry,
}

impl CircuitContract {
    /// The smallest count-window breaker (a window of one call that opens on one failure, for no time,
    /// one probe) with every refinement at its default: a base for struct update syntax
    /// (`CircuitContract { window: 8, ..CircuitContract::DEFAULT }`).
    pub const DEFAULT: CircuitContract = CircuitContract {
        window: 1,
        min_calls: 1,
        failure_percent: 100,
        open_for: VDuration::ZERO,
        half_open_probes: 1,
        policy: CircuitPolicy::CountWindow,
        open_shape: OpenShape::Constant,
        cooldown_tie: CooldownTie::AdmitsAtEnd,
        counts_cancellation: false,
        probe_settle: ProbeSettle::FailureReopens,
        closes_after: None,
        late_results: LateResults::AdmittedState,
        half_open_entry: HalfOpenEntry::OnRequest,
    };

    /// How many probe successes close the breaker: [`CircuitContract::closes_after`], else
    /// `half_open_probes`.
    pub const fn successes_to_close(&self) -> u32 {
        match self.closes_after {
            Some(successes) => successes,
            None => self.half_open_probes,
        }
    }

    /// `true` when every refinement (policy, open shape, cooldown tie, cancellation counting) is at its
    /// default: the plain count-window breaker.
    pub fn is_plain_count_window(&self) -> bool {
        let refinements = (self.policy, self.open_shape, self.cooldown_tie, self.counts_cancellation);
        let plain = CircuitContract::DEFAULT;
        refinements == (plain.policy, plain.open_shape, plain.cooldown_tie, plain.counts_cancellation)
    }
}

impl Default for CircuitContract {
    /// [`CircuitContract::DEFAULT`].
    fn default() -> CircuitContract {
        CircuitContract::DEFAULT
    }
}

/// A retry budget over the calls of one case: retries made so far never exceed
/// `min_retries + calls_started * retry_percent / 100`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetContract {
    /// Retries allowed whatever the traffic.
    pub min_retries: u32,
    /// Extra retries earned per started call, in percent.
    pub retry_percent: u32,
    /// "Deposits expire after `ttl`": the retry budget counts only the calls and retries of the last
    /// `window` (tower's `TpsBudget` ttl); `None`: over the whole case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<VDuration>,
    /// "A retry is refused only when the budget is spent": the stated budget is exact, not only an upper
    /// bound, so a retry with room in it is admitted.
    #[serde(default, skip_serializing_if = "is_default")]
    pub admits: bool,
}

impl BudgetContract {
    /// The retries allowed once `calls_started` calls have started.
    pub fn allowed(self, calls_started: u32) -> u64 {
        u64::from(self.min_retries) + u64::from(calls_started) * u64::from(self.retry_percent) / 100
    }
}

/// The retry mechanism: how many attempts, which outcomes are retried, what a call returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryContract {
    /// At most this many attempts per call (the first attempt included).
    pub max_attempts: Option<u32>,
    /// Which outcomes are retried; `None` when the subject makes no promise.
    pub retry_on: Option<RetryOn>,
    /// The subject returns the outcome of its last attempt as the call's result.
    pub reports_last_result: bool,
    /// Non-idempotent calls are attempted at most once.
    pub respects_idempotency: bool,
}

/// The delays between attempts: bounds, the jitter-free sequence, jitter, tolerance, budget, notifications.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DelayContract {
    /// No delay is shorter than this.
    pub min: Option<VDuration>,
    /// No delay is longer than this (the cap), before jitter that the docs allow to exceed it.
    pub max: Option<VDuration>,
    /// The jitter-free delay sequence.
    pub backoff: Option<BackoffShape>,
    /// The jitter around the capped jitter-free delay.
    pub jitter: Option<JitterBounds>,
    /// "The jittered delay never exceeds the cap": the jitter range is clipped at [`DelayContract::max`].
    pub jitter_clipped_at_cap: bool,
    /// Delays may differ from the exact promised value by this much (float arithmetic in a crate); zero
    /// for a subject whose arithmetic is exact.
    pub tolerance: VDuration,
    /// Delays may also differ from the exact promised value by this many parts per billion of it (float
    /// arithmetic drifts relative to the delay: an `f32` step rounds by up to 60 ppb).
    pub tolerance_ppb: u64,
    /// The delays of one call add up to at most this.
    pub sleep_budget: Option<VDuration>,
    /// Every sleep is announced by a notification with the same delay.
    pub notifies: bool,
}

impl DelayContract {
    /// The tolerance for delays: [`DelayContract::tolerance`] plus [`DelayContract::tolerance_ppb`].
    pub fn tolerance(&self) -> Tolerance {
        Tolerance { absolute: self.tolerance, relative_ppb: self.tolerance_ppb }
    }
}

/// Time limits and interruptions: attempt timeouts, deadlines, elapsed-time limits, cancellation, the
/// clocks they are measured on, and their tie rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimingContract {
    /// Each attempt is cut after this long.
    pub attempt_timeout: Option<VDuration>,
    /// What a tie at the attempt timeout means.
    pub timeout_tie: TieRule,
    /// A call returns by this long after it started.
    pub deadline: Option<VDuration>,
    /// What a tie at the deadline means: [`TieRule::Expired`] (the default, the reference's rule): no
    /// attempt starts at the instant the deadline falls; [`TieRule::InnerWins`] ("the future is polled
    /// before the timeout is checked", a `tokio::time::timeout` around the loop): the loop may still start
    /// an attempt at that very instant, which the deadline then cuts.
    #[serde(skip_serializing_if = "is_default")]
    pub deadline_tie: TieRule,
    /// "No retry starts later than X after the call started": an elapsed-time limit on *starting*
    /// retries, distinct from [`TimingContract::deadline`] (when the call returns) and
    /// [`DelayContract::sleep_budget`] (which ignores attempt time). A retry may start at exactly X unless
    /// [`TimingContract::retry_elapsed_bound`] says otherwise.
    pub retry_elapsed_max: Option<VDuration>,
    /// Whether a retry may start at exactly `retry_elapsed_max` ([`LimitBound::Inclusive`], the default)
    /// or only before it ([`LimitBound::Exclusive`]: "stops retrying once the elapsed time reaches X").
    #[serde(skip_serializing_if = "is_default")]
    pub retry_elapsed_bound: LimitBound,
    /// "It stops retrying after some time" (an elapsed-time limit or deadline of unstated length): the
    /// subject has a time limit whose length its docs do not state.
    pub limit_unstated: bool,
    /// Work stops once the caller cancels.
    pub honors_cancellation: bool,
    /// "The deadline is checked before cancellation" (or the reverse): what a call returns when its
    /// deadline and the caller's cancellation fall on the same instant; `None`: the docs do not say.
    pub interrupt_tie: Option<InterruptTie>,
    /// "Timers have millisecond resolution" (tokio): the subject's timers may fire up to this late, so of
    /// two interruptions at most this far apart (but not at the same instant) either may be noticed first.
    /// Zero for exact timers.
    pub timer_granularity: VDuration,
    /// A failed call (a timeout included) does not end a stream: later calls still run.
    pub serves_stream: bool,
    /// "Results come back in input order" (a stream served with a concurrency limit, like `buffered`
    /// rather than `buffer_unordered`): calls return in the order they started.
    #[serde(skip_serializing_if = "is_default")]
    pub ordered_results: bool,
    /// Which clock each limit is measured on and what a failed clock read means; `None`: the subject's
    /// docs do not say (the clock laws are then not applicable).
    pub clocks: Option<ClockContract>,
}

/// Rate-limited answers and their retry-after.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateContract {
    /// A retry after a rate-limited answer waits at least the retry-after.
    pub honors_retry_after: bool,
    /// "Waits the longer of the backoff and the retry-after, gives up above the cap" (or the other
    /// documented policies); `None`: the docs do not say how a retry-after combines with the backoff.
    pub retry_after: Option<RetryAfterPolicy>,
}

/// What a subject promises for one config, one part per mechanism. See the module docs.
///
/// Its JSON form is grouped the same way; the flat form contracts had before they were grouped (one
/// object of thirty-odd fields) still reads ([`crate::contract_flat`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "crate::contract_flat::ContractForm")]
pub struct Contract {
    /// Attempts, which outcomes are retried, what a call returns.
    pub retry: RetryContract,
    /// The delays between attempts.
    pub delays: DelayContract,
    /// Timeouts, deadlines, elapsed-time limits, cancellation, clocks.
    pub timing: TimingContract,
    /// Rate-limited answers and their retry-after.
    pub rate: RateContract,
    /// The circuit breaker: absent, present with unstated parameters, or stated.
    pub circuit: Declared<CircuitContract>,
    /// The retry budget: absent, present with unstated parameters, or stated.
    pub budget: Declared<BudgetContract>,
    /// The bulkhead (a limit on calls in flight): absent (left out of the JSON form), unstated, or stated.
    #[serde(skip_serializing_if = "Declared::is_absent")]
    pub bulkhead: Declared<BulkheadContract>,
    /// The token-bucket rate limiter on dispatches: absent (left out of the JSON form), unstated, or stated.
    #[serde(skip_serializing_if = "Declared::is_absent")]
    pub limiter: Declared<LimiterContract>,
    /// Hedged requests: absent (left out of the JSON form), unstated, or stated.
    #[serde(skip_serializing_if = "Declared::is_absent")]
    pub hedge: Declared<HedgeContract>,
}

impl Contract {
    /// The tolerance for delays ([`DelayContract::tolerance`]).
    pub fn tolerance(&self) -> Tolerance {
        self.delays.tolerance()
    }

    /// `true` when the subject has a circuit breaker, stated or not.
    pub fn has_circuit(&self) -> bool {
        self.circuit.is_present()
    }

    /// `true` when the subject has a retry budget, stated or not.
    pub fn has_retry_budget(&self) -> bool {
        self.budget.is_present()
    }

    /// `true` when the subject may stop a call or its retries for time: a deadline, a sleep budget, an
    /// elapsed-time limit, stated or not.
    pub fn has_time_limit(&self) -> bool {
        self.timing.deadline.is_some()
            || self.delays.sleep_budget.is_some()
            || self.timing.retry_elapsed_max.is_some()
            || self.timing.limit_unstated
    }

    /// `true` when some mechanism is present without stated parameters (a breaker, a budget, a time limit,
    /// a bulkhead, a rate limiter, hedging).
    pub fn has_unstated(&self) -> bool {
        self.circuit.is_unstated()
            || self.budget.is_unstated()
            || self.timing.limit_unstated
            || self.bulkhead.is_unstated()
            || self.limiter.is_unstated()
            || self.hedge.is_unstated()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_give_the_documented_sequences() {
        let ms = VDuration::from_millis;
        let exp = BackoffShape::Exponential { initial: ms(5), factor_milli: 2000 };
        assert_eq!([1, 2, 3].map(|n| exp.nth(n)), [Some(ms(5)), Some(ms(10)), Some(ms(20))]);
        let fib = BackoffShape::Fibonacci { initial: ms(1) };
        assert_eq!([1, 2, 3, 4, 5].map(|n| fib.nth(n).unwrap()), [1, 1, 2, 3, 5].map(ms));
        let lin = BackoffShape::Linear { initial: ms(10), step: ms(5) };
        assert_eq!(lin.nth(3), Some(ms(20)));
        assert_eq!(exp.nth(200), Some(VDuration::MAX));
        assert_eq!(BackoffShape::decorrelated(ms(1)).nth(1), None);
    }

    #[test]
    fn jitter_ranges() {
        let base = VDuration::from_millis(100);
        assert_eq!(JitterBounds::Equal.range(base), (VDuration::from_millis(50), base));
        assert_eq!(
            JitterBounds::Symmetric { ratio_milli: 500 }.range(base),
            (VDuration::from_millis(50), VDuration::from_millis(150))
        );
        assert_eq!(JitterBounds::Full.range(VDuration::MAX).1, VDuration::MAX);
        // The explicit range covers the named ones.
        let range = |low_milli, high_milli| JitterBounds::Range { low_milli, high_milli }.range(base);
        assert_eq!(range(0, 1000), JitterBounds::Full.range(base));
        assert_eq!(range(500, 1000), JitterBounds::Equal.range(base));
        assert_eq!(range(1000, 1250), JitterBounds::Additive { ratio_milli: 250 }.range(base));
        assert_eq!(range(500, 1500), JitterBounds::Symmetric { ratio_milli: 500 }.range(base));
        let odd = JitterBounds::Range { low_milli: 333, high_milli: 667 }.range(VDuration::from_nanos(10));
        assert_eq!(odd, (VDuration::from_nanos(3), VDuration::from_nanos(7)), "rounded outwards");
    }
}
