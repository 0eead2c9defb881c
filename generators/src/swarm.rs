//! Swarm options: which features a batch of cases exercises.
//!
//! Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012; TigerBeetle's VOPR) switches whole features
//! off for a batch of cases instead of mixing everything into every case: a bug that needs "no circuit,
//! many rate limits" is found far sooner in a batch where the circuit never appears and rate limits are
//! common. Every option of a batch comes from one seed, and [`Swarm`]'s `Display` prints them all.
//!
//! A switch that is on means the feature *may* appear (each description decides how often); off means it
//! never does. The native front-end honours the swarm it is given; the proptest and `arbitrary`
//! front-ends use [`Swarm::everything`] and let their own answers switch features off.

use std::fmt;

use serde::{Deserialize, Serialize};
use timelaw_core::{mix, SplitMix64};

/// How many consecutive cases of a run share one swarm ([`swarm_for`]).
pub const SWARM_BATCH_CASES: u64 = 64;

/// Salt that keeps swarm seeds apart from case seeds derived from the same run seed.
const SWARM_SALT: u64 = 0x5357_4152_4D5F_5345; // "SWARM_SE"

/// The swarm of case `case_index` of a run started from `run_seed`: cases `0..64` share one swarm,
/// `64..128` the next, and so on, whatever the thread count or the order cases run in.
///
/// ```
/// use timelaw_generators::{swarm_for, SWARM_BATCH_CASES};
/// assert_eq!(swarm_for(7, 0), swarm_for(7, SWARM_BATCH_CASES - 1));
/// assert_eq!(swarm_for(7, 3), swarm_for(7, 3));
/// ```
pub fn swarm_for(run_seed: u64, case_index: u64) -> Swarm {
    Swarm::from_seed(mix(run_seed ^ SWARM_SALT, case_index / SWARM_BATCH_CASES))
}

/// The swarm of case `case_index` of a run: [`swarm_for`], with overlapping calls
/// ([`Swarm::concurrency`]) on for one batch in two (drawn from a salt of its own, so every other option
/// stays what [`swarm_for`] says) when `concurrency` is asked for, and never otherwise.
///
/// ```
/// use timelaw_generators::{swarm_for, swarm_for_run};
/// assert_eq!(swarm_for_run(7, 3, false), swarm_for(7, 3));
/// let batches = (0..64).map(|batch| swarm_for_run(7, batch * 64, true)).filter(|s| s.concurrency).count();
/// assert!((16..=48).contains(&batches), "{batches}");
/// ```
pub fn swarm_for_run(run_seed: u64, case_index: u64, concurrency: bool) -> Swarm {
    let swarm = swarm_for(run_seed, case_index);
    let coin = mix(run_seed ^ CONCURRENCY_SALT, case_index / SWARM_BATCH_CASES) & 1 == 1;
    if concurrency && coin {
        return swarm.with_concurrency();
    }
    swarm
}

/// [`swarm_for_run`] with the switches in `forced_on` on in every batch (every other option as drawn):
/// how a run checks one feature at full strength (`Config::swarm_on`, `timelaw check --swarm-on NAME`).
///
/// ```
/// use timelaw_generators::{swarm_for_run, swarm_for_run_forced, SwarmSwitch};
/// let forced = swarm_for_run_forced(7, 3, false, &[SwarmSwitch::Circuit, SwarmSwitch::Concurrency]);
/// assert!(forced.circuit && forced.concurrency);
/// assert_eq!(forced.jitter, swarm_for_run(7, 3, false).jitter);
/// assert_eq!(swarm_for_run_forced(7, 3, true, &[]), swarm_for_run(7, 3, true));
/// ```
pub fn swarm_for_run_forced(run_seed: u64, case_index: u64, concurrency: bool, forced_on: &[SwarmSwitch]) -> Swarm {
    forced_on.iter().fold(swarm_for_run(run_seed, case_index, concurrency), |swarm, &switch| switch.force_on(swarm))
}

/// One on/off option of a [`Swarm`], by the name its `Display` and the reports use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SwarmSwitch {
    /// [`Swarm::jitter`].
    Jitter,
    /// [`Swarm::attempt_timeout`].
    AttemptTimeout,
    /// [`Swarm::deadline`].
    Deadline,
    /// [`Swarm::sleep_budget`].
    SleepBudget,
    /// [`Swarm::circuit`].
    Circuit,
    /// [`Swarm::retry_budget`].
    RetryBudget,
    /// [`Swarm::retry_after`].
    RetryAfter,
    /// [`Swarm::cancellation`].
    Cancellation,
    /// [`Swarm::multi_call`].
    MultiCall,
    /// [`Swarm::non_idempotent`].
    NonIdempotent,
    /// [`Swarm::clock_faults`].
    ClockFaults,
    /// [`Swarm::long_runs`].
    LongRuns,
    /// [`Swarm::retry_elapsed_max`].
    RetryElapsedMax,
    /// [`Swarm::concurrency`].
    Concurrency,
    /// [`Swarm::refinements`].
    Refinements,
}

impl SwarmSwitch {
    /// Every switch, in the order of [`Swarm`]'s fields.
    pub const ALL: [SwarmSwitch; 15] = [
        SwarmSwitch::Jitter,
        SwarmSwitch::AttemptTimeout,
        SwarmSwitch::Deadline,
        SwarmSwitch::SleepBudget,
        SwarmSwitch::Circuit,
        SwarmSwitch::RetryBudget,
        SwarmSwitch::RetryAfter,
        SwarmSwitch::Cancellation,
        SwarmSwitch::MultiCall,
        SwarmSwitch::NonIdempotent,
        SwarmSwitch::ClockFaults,
        SwarmSwitch::LongRuns,
        SwarmSwitch::RetryElapsedMax,
        SwarmSwitch::Concurrency,
        SwarmSwitch::Refinements,
    ];

    /// The snake_case name (`retry_after`), as [`Swarm`]'s `Display` and the report header print it.
    pub const fn name(self) -> &'static str {
        match self {
            SwarmSwitch::Jitter => "jitter",
            SwarmSwitch::AttemptTimeout => "attempt_timeout",
            SwarmSwitch::Deadline => "deadline",
            SwarmSwitch::SleepBudget => "sleep_budget",
            SwarmSwitch::Circuit => "circuit",
            SwarmSwitch::RetryBudget => "retry_budget",
            SwarmSwitch::RetryAfter => "retry_after",
            SwarmSwitch::Cancellation => "cancellation",
            SwarmSwitch::MultiCall => "multi_call",
            SwarmSwitch::NonIdempotent => "non_idempotent",
            SwarmSwitch::ClockFaults => "clock_faults",
            SwarmSwitch::LongRuns => "long_runs",
            SwarmSwitch::RetryElapsedMax => "retry_elapsed_max",
            SwarmSwitch::Concurrency => "concurrency",
            SwarmSwitch::Refinements => "refinements",
        }
    }

    /// The switch named `name`, or an error that lists every name.
    ///
    /// ```
    /// use timelaw_generators::SwarmSwitch;
    /// assert_eq!(SwarmSwitch::from_name("clock_faults"), Ok(SwarmSwitch::ClockFaults));
    /// assert!(SwarmSwitch::from_name("clocks").unwrap_err().contains("clock_faults"));
    /// ```
    pub fn from_name(name: &str) -> Result<SwarmSwitch, String> {
        SwarmSwitch::ALL.into_iter().find(|switch| switch.name() == name).ok_or_else(|| {
            let names: Vec<&str> = SwarmSwitch::ALL.iter().map(|switch| switch.name()).collect();
            format!("`{name}` is not a swarm switch; expected one of: {}", names.join(", "))
        })
    }

    /// `swarm` with this switch on.
    pub const fn force_on(self, mut swarm: Swarm) -> Swarm {
        *self.field(&mut swarm) = true;
        swarm
    }

    /// Whether this switch is on in `swarm`.
    pub const fn is_on(self, swarm: &Swarm) -> bool {
        let mut copy = *swarm;
        *self.field(&mut copy)
    }

    const fn field(self, swarm: &mut Swarm) -> &mut bool {
        match self {
            SwarmSwitch::Jitter => &mut swarm.jitter,
            SwarmSwitch::AttemptTimeout => &mut swarm.attempt_timeout,
            SwarmSwitch::Deadline => &mut swarm.deadline,
            SwarmSwitch::SleepBudget => &mut swarm.sleep_budget,
            SwarmSwitch::Circuit => &mut swarm.circuit,
            SwarmSwitch::RetryBudget => &mut swarm.retry_budget,
            SwarmSwitch::RetryAfter => &mut swarm.retry_after,
            SwarmSwitch::Cancellation => &mut swarm.cancellation,
            SwarmSwitch::MultiCall => &mut swarm.multi_call,
            SwarmSwitch::NonIdempotent => &mut swarm.non_idempotent,
            SwarmSwitch::ClockFaults => &mut swarm.clock_faults,
            SwarmSwitch::LongRuns => &mut swarm.long_runs,
            SwarmSwitch::RetryElapsedMax => &mut swarm.retry_elapsed_max,
            SwarmSwitch::Concurrency => &mut swarm.concurrency,
            SwarmSwitch::Refinements => &mut swarm.refinements,
        }
    }
}

impl fmt::Display for SwarmSwitch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SwarmSwitch {
    type Err = String;
    fn from_str(name: &str) -> Result<SwarmSwitch, String> {
        SwarmSwitch::from_name(name)
    }
}

/// Salt of the concurrency coin of [`swarm_for_run`].
const CONCURRENCY_SALT: u64 = 0x434F_4E43_5552_5245; // "CONCURRE"

/// Relative weights of the outcomes a scripted step ends with. A weight of 0 switches the outcome off;
/// `hang` is further switched off wherever nothing could end a hang (see
/// [`sample_schedule`](crate::sample_schedule)). Weights are relative: `ok: 1, transient: 3` makes
/// three transient failures per success.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OutcomeMix {
    /// Weight of [`Outcome::Ok`](timelaw_core::Outcome::Ok).
    pub ok: u32,
    /// Weight of [`Outcome::Transient`](timelaw_core::Outcome::Transient).
    pub transient: u32,
    /// Weight of [`Outcome::Fatal`](timelaw_core::Outcome::Fatal).
    pub fatal: u32,
    /// Weight of [`Outcome::RateLimited`](timelaw_core::Outcome::RateLimited).
    pub rate_limited: u32,
    /// Weight of [`Outcome::Hang`](timelaw_core::Outcome::Hang).
    pub hang: u32,
}

impl OutcomeMix {
    /// Every outcome present, failures more common than successes.
    pub const BALANCED: OutcomeMix = OutcomeMix { ok: 3, transient: 4, fatal: 1, rate_limited: 2, hang: 1 };

    /// The weights in the order `ok, transient, fatal, rate_limited, hang` (simplest first).
    pub const fn weights(self) -> [u32; 5] {
        [self.ok, self.transient, self.fatal, self.rate_limited, self.hang]
    }
}

/// The feature switches of a batch of cases. See the module docs.
///
/// ```
/// use timelaw_generators::Swarm;
/// let swarm = Swarm::from_seed(42);
/// assert_eq!(swarm, Swarm::from_seed(42));
/// assert!(swarm.to_string().contains("boundary_bias="));
/// assert!(Swarm::everything().circuit);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Swarm {
    /// Policies may add jitter to their delays.
    pub jitter: bool,
    /// Policies may cut attempts with a timeout.
    pub attempt_timeout: bool,
    /// Policies may have an overall deadline per call.
    pub deadline: bool,
    /// Policies may limit the total sleep of a call.
    pub sleep_budget: bool,
    /// Policies may have a circuit breaker.
    pub circuit: bool,
    /// Policies may have a retry budget.
    pub retry_budget: bool,
    /// Policies may honour retry-after answers.
    pub retry_after: bool,
    /// Calls may be cancelled by their caller.
    pub cancellation: bool,
    /// Schedules may hold several calls (a stream) with gaps between them.
    pub multi_call: bool,
    /// Calls may be non-idempotent.
    pub non_idempotent: bool,
    /// Wall-clock jumps and failed clock reads ([`crate::clock`]); on in one batch in eight. Absent from
    /// reports written before it existed (read as off).
    #[serde(default)]
    pub clock_faults: bool,
    /// Share of drawn values (durations, counts) taken from the boundary values the laws care about,
    /// in percent (0..=100; 0 switches the bias off).
    pub boundary_percent: u32,
    /// The outcome weights of scripted steps.
    pub outcomes: OutcomeMix,
    /// Long failure runs: a schedule may repeat one step many times (see
    /// [`crate::schedule::LONG_RUN_MAX`]), so a call can fail 40 or thousands of times in a row.
    #[serde(default)]
    pub long_runs: bool,
    /// Policies may limit how long after its call started a retry may start (the reference's
    /// `retry_elapsed_max`); on in one batch in two. Absent from reports written before it existed (read
    /// as off).
    #[serde(default)]
    pub retry_elapsed_max: bool,
    /// Overlapping calls: schedules give their calls arrivals and may record interleaving choices, and
    /// policies may have the mechanisms that act under load (the reference's bulkhead and rate limiter).
    /// Opt-in: never on in [`Swarm::from_seed`] or [`Swarm::everything`]; [`swarm_for_run`] turns it on
    /// for one batch in two when a run asks for concurrency. Absent from reports written before it
    /// existed (read as off).
    #[serde(default, skip_serializing_if = "is_off")]
    pub concurrency: bool,
    /// Policies may state the refinements of the contract's vocabulary: a retry-after policy (the
    /// retry-after replacing the backoff, clamped at or slept above the cap), a circuit breaker's policy,
    /// open shape, cooldown tie and cancellation counting, and the interrupt tie; on in one batch in two
    /// of a run ([`Swarm::from_seed`]), never on in [`Swarm::everything`], so the proptest and `arbitrary`
    /// front-ends decode their inputs (fuzz corpora, crash artifacts) as before it existed. Absent from
    /// reports written before it existed (read as off).
    #[serde(default, skip_serializing_if = "is_off")]
    pub refinements: bool,
}

// serde's `skip_serializing_if` passes a reference. Left out when off, so swarms (and report headers)
// of runs without concurrency read as before it existed.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_off(on: &bool) -> bool {
    !*on
}

impl Swarm {
    /// Every feature on but the opt-in ones (overlapping calls, the vocabulary's refinements), balanced
    /// outcomes, boundary values in a third of draws.
    pub const fn everything() -> Swarm {
        Swarm {
            jitter: true,
            attempt_timeout: true,
            deadline: true,
            sleep_budget: true,
            circuit: true,
            retry_budget: true,
            retry_after: true,
            cancellation: true,
            multi_call: true,
            non_idempotent: true,
            clock_faults: true,
            boundary_percent: 33,
            outcomes: OutcomeMix::BALANCED,
            long_runs: true,
            retry_elapsed_max: true,
            concurrency: false,
            refinements: false,
        }
    }

    /// The same swarm with overlapping calls on ([`Swarm::concurrency`]).
    pub const fn with_concurrency(mut self) -> Swarm {
        self.concurrency = true;
        self
    }

    /// The swarm drawn from `seed`: each switch on with probability 1/2 (clock faults 1/8, long runs
    /// 1/4; concurrency never), the boundary share one of
    /// 0, 10, 33 or 60 percent, each outcome weight in `0..=4` (at least one of ok and transient on).
    pub fn from_seed(seed: u64) -> Swarm {
        let mut rng = SplitMix64::new(seed);
        let mut coin = || rng.next_u64() & 1 == 1;
        let switches = [(); 10].map(|()| coin());
        let boundary_percent = [0, 10, 33, 60][rng.below(4) as usize];
        let mut weight = || rng.below(5) as u32;
        let mut outcomes =
            OutcomeMix { ok: weight(), transient: weight(), fatal: weight(), rate_limited: weight(), hang: weight() };
        if outcomes.ok == 0 && outcomes.transient == 0 {
            outcomes.ok = 1;
        }
        // Drawn after every older option, so those stay what they were for each seed.
        let clock_faults = rng.below(8) == 0;
        // Drawn after `clock_faults`, so every older option stays what it was for each seed.
        let long_runs = rng.below(4) == 0;
        // Drawn after `long_runs`, so every older option stays what it was for each seed.
        let retry_elapsed_max = rng.below(2) == 0;
        // Drawn after `retry_elapsed_max`, so every older option stays what it was for each seed.
        let refinements = rng.below(2) == 0;
        let [jitter, attempt_timeout, deadline, sleep_budget, circuit, retry_budget, retry_after, cancellation, multi_call, non_idempotent] =
            switches;
        Swarm {
            jitter,
            attempt_timeout,
            deadline,
            sleep_budget,
            circuit,
            retry_budget,
            retry_after,
            cancellation,
            multi_call,
            non_idempotent,
            clock_faults,
            boundary_percent,
            outcomes,
            long_runs,
            retry_elapsed_max,
            concurrency: false,
            refinements,
        }
    }
}

impl Default for Swarm {
    /// [`Swarm::everything`].
    fn default() -> Swarm {
        Swarm::everything()
    }
}

impl fmt::Display for Swarm {
    /// Every option on one line, with its unit: `jitter=on attempt_timeout=off ... boundary_bias=33%
    /// outcome_weights=ok:3,transient:4,fatal:1,rate_limited:2,hang:1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let switches = [
            ("jitter", self.jitter),
            ("attempt_timeout", self.attempt_timeout),
            ("deadline", self.deadline),
            ("sleep_budget", self.sleep_budget),
            ("circuit", self.circuit),
            ("retry_budget", self.retry_budget),
            ("retry_after", self.retry_after),
            ("cancellation", self.cancellation),
            ("multi_call", self.multi_call),
            ("non_idempotent", self.non_idempotent),
            ("clock_faults", self.clock_faults),
        ];
        for (name, on) in switches {
            write!(f, "{name}={} ", if on { "on" } else { "off" })?;
        }
        let m = self.outcomes;
        write!(
            f,
            "boundary_bias={}% outcome_weights=ok:{},transient:{},fatal:{},rate_limited:{},hang:{}",
            self.boundary_percent, m.ok, m.transient, m.fatal, m.rate_limited, m.hang
        )?;
        if self.long_runs {
            write!(f, " long_runs=on")?;
        }
        if self.retry_elapsed_max {
            write!(f, " retry_elapsed_max=on")?;
        }
        if self.concurrency {
            write!(f, " concurrency=on")?;
        }
        if self.refinements {
            write!(f, " refinements=on")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_switch_forces_its_own_field_and_names_round_trip() {
        let off = Swarm { concurrency: false, refinements: false, ..Swarm::from_seed(0) };
        for switch in SwarmSwitch::ALL {
            let mut bare = off;
            for other in SwarmSwitch::ALL {
                *other.field(&mut bare) = false;
            }
            let on = switch.force_on(bare);
            assert!(switch.is_on(&on), "{switch}");
            let others_on = SwarmSwitch::ALL.iter().filter(|other| other.is_on(&on)).count();
            assert_eq!(others_on, 1, "{switch} set another field");
            assert_eq!(SwarmSwitch::from_name(switch.name()), Ok(switch));
            assert!(on.to_string().contains(&format!("{switch}=on")), "{on}");
        }
    }

    #[test]
    fn batches_share_a_swarm_and_seeds_differ() {
        assert_eq!(swarm_for(1, 0), swarm_for(1, 63));
        let distinct: std::collections::HashSet<Swarm> = (0..64).map(|batch| swarm_for(1, batch * 64)).collect();
        assert!(distinct.len() > 32, "only {} distinct swarms in 64 batches", distinct.len());
    }

    #[test]
    fn every_switch_is_seen_on_and_off() {
        let swarms: Vec<Swarm> = (0..256).map(Swarm::from_seed).collect();
        let seen = |on: fn(&Swarm) -> bool| swarms.iter().any(on) && !swarms.iter().all(on);
        assert!(seen(|s| s.jitter) && seen(|s| s.circuit) && seen(|s| s.multi_call) && seen(|s| s.non_idempotent));
        assert!(seen(|s| s.boundary_percent > 0) && seen(|s| s.outcomes.hang > 0) && seen(|s| s.clock_faults));
        assert!(seen(|s| s.long_runs) && seen(|s| s.retry_elapsed_max) && seen(|s| s.refinements));
        assert!(swarms.iter().all(|s| s.outcomes.ok + s.outcomes.transient > 0));
    }

    #[test]
    fn display_lists_every_option_with_units() {
        let text = Swarm::everything().to_string();
        let expected = "jitter=on attempt_timeout=on deadline=on sleep_budget=on circuit=on retry_budget=on \
                        retry_after=on cancellation=on multi_call=on non_idempotent=on clock_faults=on boundary_bias=33% \
                        outcome_weights=ok:3,transient:4,fatal:1,rate_limited:2,hang:1 long_runs=on \
                        retry_elapsed_max=on";
        assert_eq!(text, expected);
    }

    #[test]
    fn serde_round_trip() {
        let swarm = Swarm::from_seed(9);
        let json = serde_json::to_string(&swarm).unwrap();
        assert_eq!(serde_json::from_str::<Swarm>(&json).unwrap(), swarm);
    }
}
