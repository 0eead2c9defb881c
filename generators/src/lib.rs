//! timelaw-generators: one description of the case domain, with three front-ends: fast native
//! sampling (the runner's hot loop), proptest strategies and `arbitrary` decoding (cargo-fuzz).
//!
//! ```
//! use timelaw_core::reference::Reference;
//! use timelaw_core::{execute, Subject};
//! use timelaw_generators::coverage::{classify, Coverage};
//! use timelaw_generators::{arbitrary_case, sample_case, swarm_for};
//!
//! let run_seed = 0x5EED;
//! let mut coverage = Coverage::default();
//! for index in 0..256 {
//!     let swarm = swarm_for(run_seed, index); // The same 64 cases share one swarm.
//!     let case = sample_case(&Reference, timelaw_core::mix(run_seed, index), &swarm);
//!     assert!(case.config.validate().is_ok());
//!     coverage.record(classify(&case.schedule, &Reference.contract(&case.config)));
//!     let trace = execute(&Reference, &case.config, &case.schedule, case.seed);
//!     assert!(trace.events.len() > 0);
//! }
//! assert_eq!(coverage.cases(), 256);
//!
//! // A fuzzer's bytes decode to a case too; every byte string is valid.
//! let case = arbitrary_case(&Reference, b"any bytes at all");
//! assert!(case.config.validate().is_ok());
//! ```
//!
//! ## One description, three front-ends
//! A domain is written once as a function over [`Choices`] (answers to "a number below `n`"), ordered so
//! that answering `0` everywhere gives the simplest value ([`choice`]). [`SplitMix64`](timelaw_core::SplitMix64)
//! answers for native sampling, [`arbitrary::Unstructured`] for fuzzing (running out of bytes answers
//! `0`), and [`choice_strategy`] records and shrinks the answers for proptest ([`strategy`]). The
//! schedule domain is [`describe_schedule`]; the reference interpreter's policy domain is
//! [`describe_policy`].
//!
//! ## Subjects: `Describe`, or `ConfigDomain` by hand
//! A subject whose configs timelaw generates implements [`ConfigDomain`]. The short way is [`Describe`]:
//! one description of its config over [`Choices`] (plus, optionally, value-level shrink candidates), from
//! which sampling, the proptest strategy, `arbitrary` decoding, the simplest config ([`simplest_config`])
//! and shrink candidates all follow. The reference interpreter ([`timelaw_core::reference::Reference`])
//! is described that way. Shorter still, [`subject`]`(name, describe, contract, run)` makes a subject of
//! plain functions ([`FnSubject`], see [`fn_subject`]). Subjects that need hand-written strategies
//! implement the three forms of [`ConfigDomain`] directly.
//!
//! ## Native sampling
//! [`sample_case`] draws a whole case from one seed; [`sample_schedule`] draws a schedule for a contract.
//! A typical case costs well under a microsecond (see the `frontends` benchmark).
//!
//! ## proptest
//! [`case_strategy`] and [`schedule_strategy`] plug into a `proptest!` test and shrink to simple cases:
//!
//! ```
//! use proptest::prelude::*;
//! use timelaw_core::{execute, reference::Reference, EventKind};
//! use timelaw_generators::case_strategy;
//!
//! proptest! {
//!     #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
//!     // In a test file, `#[test]` goes here; this example calls the function itself.
//!     fn reference_never_exceeds_its_attempts(case in case_strategy(&Reference)) {
//!         let trace = execute(&Reference, &case.config, &case.schedule, case.seed);
//!         for call in 0..case.schedule.calls.len() as u32 {
//!             let attempts = trace.events.iter().filter(|e| e.call == call && e.kind == EventKind::AttemptStart);
//!             prop_assert!(attempts.count() <= case.config.max_attempts as usize);
//!         }
//!     }
//! }
//! reference_never_exceeds_its_attempts();
//! ```
//!
//! ## arbitrary (cargo-fuzz)
//! [`arbitrary_case`] and [`arbitrary_schedule`] map every byte string to a valid case; nothing is
//! rejected, and the empty input is the simplest case.
//!
//! ## Swarm options
//! [`Swarm`] switches features on and off for a batch of [`SWARM_BATCH_CASES`] cases ([`swarm_for`]);
//! its `Display` prints every option with its unit.
//!
//! ## Boundary values and coverage
//! With [`Swarm::boundary_percent`], durations and counts are drawn from the boundaries the laws care
//! about (timeout ± 1 ns, the deadline, the cap, the attempt budget, the circuit's open duration, zero,
//! near `u64::MAX` ns). [`coverage::classify`] names the boundaries a case reaches; [`coverage::Coverage`]
//! counts them per batch.
//!
//! ## The consistency property
//! [`restated::Restated`] runs a subject under every weaker statement of its contract (mechanisms
//! unstated, coarser timers, a tolerance, ...): a correct subject keeps them all, so the whole catalogue
//! must hold on it.
//!
//! ## Termination
//! Hangs and near-`u64::MAX` durations appear only where something cuts the attempt (an attempt timeout,
//! a cancellation), caps stay within about an hour and schedules within 8 calls of 12 steps, so the
//! reference interpreter never legitimately exceeds the World's limits.
#![deny(missing_docs)]

pub mod answers;
pub mod case;
pub mod choice;
pub mod clock;
pub mod coverage;
pub mod domain;
pub mod draw;
pub mod fn_subject;
pub mod membership;
pub mod reference;
pub mod reference_rank;
pub mod restated;
pub mod schedule;
pub mod strategy;
pub mod swarm;

pub use answers::Answers;
pub use case::{
    arbitrary_case, arbitrary_case_answers, arbitrary_case_with, case_strategy, case_strategy_with, sample_case,
    sample_case_answers, sample_case_with_contract,
};
pub use choice::Choices;
pub use domain::{simplest_config, ConfigDomain, ConfigNumber, Describe, Simplest};
pub use fn_subject::{subject, FnSubject};
pub use membership::{case_outside, schedule_outside, Outside};
pub use reference::describe_policy;
pub use schedule::{
    arbitrary_schedule, arbitrary_schedule_with, describe_schedule, sample_schedule, schedule_strategy,
    schedule_strategy_with, CALLS_MAX, GAP_MAX, INTERLEAVE_MAX, LONG_RUN_MAX, NEAR_MAX_SPAN, STEPS_PER_CALL_MAX,
};
pub use strategy::{choice_strategy, ChoiceTree, Tape};
pub use swarm::{swarm_for, swarm_for_run, swarm_for_run_forced, OutcomeMix, Swarm, SwarmSwitch, SWARM_BATCH_CASES};
#[doc(hidden)]
pub use timelaw_core::Subject as __Subject;
