//! What a law is: data with a stable id, a title, a kind, applicability on the contract and a check.

use serde::{Deserialize, Serialize};
use timelaw_core::{Contract, Schedule, Trace};

use crate::temporal::{calls_interleave, with_grouped_by_call};
use crate::verdict::Verdict;

/// Safety laws say something bad never happens; liveness laws say something good eventually happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LawKind {
    /// "Never": a finite prefix can violate it, a truncated trace can still violate it.
    Safety,
    /// "Eventually": only a complete trace can violate it; on a truncated trace it is inconclusive.
    Liveness,
}

/// What the runner observed for a case: everything a law may look at.
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// The case's schedule.
    pub schedule: &'a Schedule,
    /// The case's randomness seed.
    pub seed: u64,
    /// The subject's contract for the case's config.
    pub contract: &'a Contract,
    /// The trace of the run.
    pub trace: &'a Trace,
    /// Set when the runner ran the case a second time on a fresh World (for `deterministic_replay`).
    pub replay: Option<Replay>,
    /// Set when the case has wall jumps and the runner ran it again without them (for
    /// `wall_jump_keeps_monotonic_limits`): action digests ([`timelaw_core::Trace::action_digest`]) of
    /// both runs and the first differing action ([`timelaw_core::first_action_difference`]).
    pub without_wall_jumps: Option<Replay>,
}

impl<'a> Observation<'a> {
    /// One run of a case, observed once: no second run for `deterministic_replay` and no run without wall
    /// jumps, so the laws that need those are vacuous. What a user's test of a single trace needs.
    pub fn single_run(schedule: &'a Schedule, seed: u64, contract: &'a Contract, trace: &'a Trace) -> Self {
        Observation { schedule, seed, contract, trace, replay: None, without_wall_jumps: None }
    }
}

/// Digests of two runs of the same case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Replay {
    /// [`Trace::digest`] of the first run.
    pub first: u64,
    /// [`Trace::digest`] of the second run.
    pub second: u64,
    /// The first event of the first run's trace that differs in the second (`None` when none does: equal
    /// traces, traces that differ only in how they ended, or a first run that is a prefix of the second).
    pub first_difference: Option<u32>,
    /// The second run ended in a panic: a metamorphic law never blames the input it varied for a panic
    /// the run without it raises too. Absent from files written before it existed (read as `false`).
    #[serde(default)]
    pub second_panicked: bool,
}

/// A named law. Ids are snake_case, stable, and part of the fixture format.
#[derive(Clone, Copy, Debug)]
pub struct Law {
    /// Stable snake_case id.
    pub id: &'static str,
    /// One-line title.
    pub title: &'static str,
    /// Safety or liveness.
    pub kind: LawKind,
    /// The contract fields the law reads (for `timelaw laws` and the docs).
    pub needs: &'static [&'static str],
    /// Whether the law says anything about a subject with this contract.
    pub applies: fn(&Contract) -> bool,
    /// The check. Called only when `applies` is true.
    pub check: fn(&Observation<'_>) -> Verdict,
}

impl Law {
    /// Judges `observation`: [`Verdict::NotApplicable`] when the contract lacks what the law needs,
    /// otherwise the check's verdict. A standard law that judges one call at a time
    /// ([`crate::catalogue::judged_per_call`]) reads an interleaved trace regrouped call by call
    /// ([`crate::temporal::grouped_by_call`]; this allocates, a sequential trace never does).
    pub fn judge(&self, observation: &Observation<'_>) -> Verdict {
        self.judge_in(observation, Calls::Unknown, crate::catalogue::judged_per_call(self.id))
    }

    /// [`Law::judge`] knowing already whether the trace's calls interleave, and with the regrouped trace
    /// at hand when they do, so a catalogue looks and regroups once for all its laws; `per_call` is
    /// [`crate::catalogue::judged_per_call`] of this law, which a catalogue looks up once.
    #[inline]
    pub(crate) fn judge_in(&self, observation: &Observation<'_>, calls: Calls<'_>, per_call: bool) -> Verdict {
        if !(self.applies)(observation.contract) {
            return Verdict::NotApplicable;
        }
        if matches!(calls, Calls::Sequential) || !per_call {
            return (self.check)(observation);
        }
        match calls {
            Calls::Sequential => (self.check)(observation),
            Calls::Grouped(trace) => (self.check)(&Observation { trace, ..*observation }),
            Calls::Unknown if !calls_interleave(&observation.trace.events) => (self.check)(observation),
            Calls::Unknown => {
                with_grouped_by_call(observation.trace, |trace| (self.check)(&Observation { trace, ..*observation }))
            }
        }
    }
}

/// What a catalogue knows about a trace's calls before judging its laws.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Calls<'a> {
    /// Not looked at yet.
    Unknown,
    /// Each call's events are contiguous, in call order.
    Sequential,
    /// The calls interleave; this is the trace regrouped by call.
    Grouped(&'a Trace),
}

/// `applies` for laws that hold for every subject.
#[inline(never)]
pub fn always_applies(_: &Contract) -> bool {
    true
}

/// A law's `applies` written as a function of its own, never inlined: it has one address wherever its law
/// is named. A catalogue knows a standard law by its functions ([`crate::catalogue::vacuous_without`]), and
/// a closure or a small function may be copied into each crate and each part of the code that names its
/// law's `pub const`, each copy with an address of its own: a law named through its constant in another
/// crate would then not be known as the standard law (the same verdicts, without the catalogue's shortcuts).
/// `applies!(contract => contract.delays.max.is_some())`.
macro_rules! applies {
    ($contract:ident => $body:expr) => {{
        #[inline(never)]
        fn applies($contract: &timelaw_core::Contract) -> bool {
            $body
        }
        applies
    }};
}
pub(crate) use applies;

/// A law's `check` written as a function of its own, never inlined, for the reason [`applies!`] gives.
/// `judged!(observation => gives_no_retry_up(observation, Judged::RateLimited))`.
macro_rules! judged {
    ($observation:ident => $body:expr) => {{
        #[inline(never)]
        fn check($observation: &$crate::law::Observation<'_>) -> $crate::verdict::Verdict {
            $body
        }
        check
    }};
}
pub(crate) use judged;
