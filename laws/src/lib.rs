//! timelaw-laws: laws as data, three-valued verdicts, temporal combinators and the catalogue.
//!
//! ```
//! use timelaw_core::reference::{Backoff, Policy, Reference};
//! use timelaw_core::{execute, EventKind, Outcome, Schedule, Step, Subject, VDuration};
//! use timelaw_laws::temporal::never;
//! use timelaw_laws::{always_applies, ids, Catalogue, Law, LawKind, Observation, Verdict};
//!
//! /// A law of our own: retries always wait (no busy loop).
//! fn no_busy_retry(observation: &Observation<'_>) -> Verdict {
//!     let sleeps = observation.trace.events.iter().filter(|e| matches!(e.kind, EventKind::SleepRequested { .. }));
//!     never(sleeps, |e| e.kind == EventKind::SleepRequested { duration: VDuration::ZERO })
//!         .because("the subject retried without waiting")
//! }
//!
//! let mut laws = Catalogue::standard();
//! laws.register(Law {
//!     id: "no_busy_retry",
//!     title: "retries always wait",
//!     kind: LawKind::Safety,
//!     needs: &[],
//!     applies: always_applies,
//!     check: no_busy_retry,
//! })?;
//!
//! // Two transient failures, then success, under the reference interpreter.
//! let policy = Policy::new(3, Backoff::Constant { delay: VDuration::from_millis(10) }, VDuration::from_secs(1));
//! let schedule = Schedule::single(vec![Step::instant(Outcome::Transient); 2]);
//! let trace = execute(&Reference, &policy, &schedule, 7);
//! let contract = Reference.contract(&policy);
//! let observation = Observation { schedule: &schedule, seed: 7, contract: &contract, trace: &trace, replay: None, without_wall_jumps: None };
//!
//! let mut verdicts = Vec::with_capacity(laws.len());
//! laws.judge_all(&observation, &mut verdicts);
//! assert!(verdicts.iter().all(|verdict| !verdict.is_violated()));
//! assert_eq!(laws.get("no_busy_retry").unwrap().judge(&observation), Verdict::Holds);
//! assert_eq!(laws.get(ids::ATTEMPTS_WITHIN_MAX).unwrap().judge(&observation), Verdict::Holds);
//! assert_eq!(laws.get(ids::DEADLINE_RESPECTED).unwrap().judge(&observation), Verdict::NotApplicable);
//! # Ok::<(), timelaw_laws::LawError>(())
//! ```
//!
//! ## Laws as data
//! A [`Law`] is a stable snake_case id, a one-line title, a [`LawKind`] (safety or liveness), the
//! contract fields it needs, an applicability test on the [`Contract`](timelaw_core::Contract) and a check
//! over an [`Observation`] (schedule, seed, contract, trace and, when the case ran twice, a [`Replay`]).
//!
//! ## Verdicts
//! A [`Verdict`] has five values: not applicable (the contract lacks what the law needs), holds, vacuous
//! (applicable, but what the law speaks about never happened), violated (with the event index and a
//! sentence), inconclusive. A run cut short never lets a liveness law pass: an awaited event missing at
//! the end of a complete trace is a violation, at the end of a truncated trace (a step limit, a hang, a
//! panic) it is inconclusive.
//!
//! ## Temporal combinators
//! [`temporal`] has [`always`](temporal::always), [`never`](temporal::never()),
//! [`eventually`](temporal::eventually), [`before`](temporal::before), [`between`](temporal::between) and
//! [`monitor`](temporal::monitor): each walks the events once, allocates nothing and returns a verdict
//! naming the violating event. Every standard law is built from them or from a plain loop.
//!
//! ## The catalogue
//! [`catalogue`] holds the standard laws (one constant each, documented with what it states, what it
//! needs, when it is vacuous and an example violation); [`ids`] their ids. [`Catalogue`] is the registry:
//! [`Catalogue::standard`], [`Catalogue::empty`], [`Catalogue::register`] for a user's own laws,
//! [`Catalogue::select`] for a subset, and [`Catalogue::judge_all`] to judge every law on a case.
//!
//! ## Laws on the catalogue's models
//! The models the standard laws judge against are public: [`catalogue::breaker_model`] (the circuit
//! breaker a contract states: count window, consecutive failures or time window, open-period shape,
//! cooldown tie, cancellation as failure), [`catalogue::budget_model`] (the retry budget and its window),
//! [`catalogue::support`] (event classification, the call walk) and [`catalogue::replay_breaker`], which
//! replays the breaker model over a trace's calls. A law of your own on the breaker model:
//!
//! ```
//! use timelaw_core::reference::{Backoff, Policy, Reference};
//! use timelaw_core::{execute, CallScript, CircuitContract, Outcome, Schedule, Subject, VDuration};
//! use timelaw_laws::catalogue::breaker_model::{Admission, CallFacts, Phase};
//! use timelaw_laws::catalogue::replay_breaker;
//! use timelaw_laws::{Law, LawKind, Observation, Verdict};
//!
//! /// The breaker refuses a call only when the contract's breaker would: open, or out of probes.
//! fn refuses_only_when_due(observation: &Observation<'_>) -> Verdict {
//!     replay_breaker(observation, |facts: &CallFacts, admission: Admission, _before: Phase| {
//!         match (facts.rejected(), admission.is_admitted()) {
//!             (true, true) => Some(Verdict::violated_at(facts.refusal_event().unwrap_or(0), "refused too early")),
//!             (true, false) => Some(Verdict::Holds),
//!             (false, _) => None,
//!         }
//!     })
//! }
//!
//! let law = Law {
//!     id: "refuses_only_when_due",
//!     title: "the breaker refuses only when the contract's breaker would",
//!     kind: LawKind::Safety,
//!     needs: &["circuit"],
//!     applies: |contract| contract.circuit.is_stated(),
//!     check: refuses_only_when_due,
//! };
//! // Two failures open a two-call window; the third call comes before the 50ms cooldown ends.
//! let circuit = CircuitContract {
//!     window: 2, min_calls: 2, failure_percent: 100, open_for: VDuration::from_millis(50), half_open_probes: 1,
//!     ..CircuitContract::DEFAULT
//! };
//! let policy = Policy { circuit: Some(circuit), ..Policy::new(1, Backoff::Constant { delay: VDuration::ZERO }, VDuration::ZERO) };
//! let schedule = Schedule::new(vec![CallScript::outcomes(&[Outcome::Transient]); 3]);
//! let trace = execute(&Reference, &policy, &schedule, 0);
//! let contract = Reference.contract(&policy);
//! assert_eq!(law.judge(&Observation::single_run(&schedule, 0, &contract, &trace)), Verdict::Holds);
//! ```
//!
//! ## Cost
//! Judging the whole catalogue on a typical trace allocates nothing when no law is violated (reuse the
//! output vector; the thread's buffers grow once); messages are `&'static str` unless a violation formats
//! its numbers. A [`Catalogue`] gathers a case's [`Features`] once and judges a standard law none of
//! whose facts happened vacuous without walking the trace ([`catalogue::vacuous_without`]).
#![deny(missing_docs)]

pub mod catalogue;
pub mod features;
pub mod ids;
pub mod law;
pub mod temporal;
pub mod verdict;

pub use catalogue::{mechanism_of, Catalogue, LawError, Mechanism};
pub use features::Features;
pub use law::{always_applies, Law, LawKind, Observation, Replay};
pub use temporal::Check;
pub use verdict::{CheckSite, Verdict, Violation};
