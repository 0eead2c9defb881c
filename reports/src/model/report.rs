//! The report of one run (or one shard of a run), and its rows.

use std::fmt;

use serde::{Deserialize, Serialize};
use timelaw_laws::{LawKind, Violation};

use super::counts::Counts;
use super::settings::Settings;

/// The version of the JSON schema this crate writes and reads. Bumped on any change that is not the addition
/// of a field. Version 2: durations inside `violation.case` are exact text (`"1.5s"`), as in fixture
/// format version 2; version 1 wrote integers of nanoseconds there.
pub const SCHEMA_VERSION: u32 = 2;

/// The timelaw version written into new reports (`timelaw_version`).
pub const TIMELAW_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A seed as reports and reproduce lines print it: `0x` and 16 lowercase hex digits.
///
/// ```
/// assert_eq!(timelaw_reports::seed_hex(42), "0x000000000000002a");
/// ```
pub fn seed_hex(seed: u64) -> String {
    format!("{seed:#018x}")
}

/// What a run found: one row per law. Serialized as JSON schema version [`SCHEMA_VERSION`]; fields appear
/// in the order below.
///
/// # Invariants
/// Checked by [`Report::validate`] (and so by [`crate::parse_json`] and [`crate::merge`]):
/// `schema_version` is [`SCHEMA_VERSION`]; a shard has `1 <= index <= count`; a case range has
/// `start <= end`; law ids are non-empty and unique; each row's [`Counts`] add up; a row carries a
/// violation (inconclusive) summary only if it counted a violated (inconclusive) case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// The JSON schema version, [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The version of timelaw that ran.
    pub timelaw_version: String,
    /// The subject's name.
    pub subject: String,
    /// The run seed; case `i` is generated from `mix(seed, i)`. An exact `u64` JSON integer.
    pub seed: u64,
    /// How many cases this report covers.
    pub cases: u64,
    /// Worker threads used. Informational: no count or verdict depends on it.
    pub threads: u32,
    /// Which shard of the run this is (`--shard K/N`); `None` for a whole run.
    pub shard: Option<Shard>,
    /// The swarm options of the run, one line each as the runner prints them (`"jitter: on"`).
    pub swarm: Vec<String>,
    /// The case indices this report ran, `[start, end)`, as a JSON array `[start, end]`.
    pub case_range: Option<(u64, u64)>,
    /// One row per law, in the order the run listed its laws.
    pub laws: Vec<LawRow>,
    /// How many of the `boundary_cases` classified cases reached each boundary class the laws care about
    /// (an attempt of exactly the timeout, a delay at the cap, ...), in the generators' class order.
    /// Empty in reports that predate it.
    #[serde(default)]
    pub boundaries: Vec<BoundaryRow>,
    /// How many cases were classified for `boundaries` (the runner classifies a fixed sample of indices).
    #[serde(default)]
    pub boundary_cases: u64,
    /// How many cases the World cut at its virtual time limit (their safety laws judged on the prefix,
    /// their liveness laws inconclusive; never a violation by itself). Zero in reports that predate it.
    #[serde(default)]
    pub time_limit_cuts: u64,
    /// How many cases the World cut at a count limit (attempts, sleeps, events) while the subject was
    /// still working through a long scripted run (judged like time-limit cuts). Zero in reports that
    /// predate it.
    #[serde(default)]
    pub long_run_cuts: u64,
    /// The options of the run that shards must agree on (`--cases`, `--collect`, shrink budget, step
    /// limits). `None` in reports that predate it.
    #[serde(default)]
    pub settings: Option<Settings>,
    /// The cases some law could not judge although no documented cut ended them, per reason: each fails
    /// the run (status inconclusive, exit code 3). Absent (empty) in older reports and when every case was
    /// judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unjudged: Vec<UnjudgedRow>,
}

/// The cases of a report that reached one boundary class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoundaryRow {
    /// The class's stable snake_case name.
    pub class: String,
    /// How many cases reached it.
    pub cases: u64,
}

/// One shard of a run: shard `index` (from 1) of `count`. Printed as `index/count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// The shard number, from 1.
    pub index: u32,
    /// How many shards the run was split into.
    pub count: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What one law did over the cases of a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LawRow {
    /// The law's stable snake_case id.
    pub id: String,
    /// The law's one-line title.
    pub title: String,
    /// Safety or liveness.
    pub kind: LawKind,
    /// Verdict counts.
    pub counts: Counts,
    /// The path of the fixture written for `violation`, as the runner wrote it.
    pub fixture: Option<String>,
    /// The violation of the smallest case index (see [`crate::merge`]).
    pub violation: Option<ViolationSummary>,
    /// The inconclusive case of the smallest case index and why it was inconclusive.
    #[serde(default)]
    pub first_inconclusive: Option<InconclusiveSummary>,
    /// `true` when the law's verdicts on this subject judge the harness that drives the code under test
    /// (timelaw's own retry loop around a backoff iterator), not the code itself; the subject declares it
    /// (`Subject::harness_laws`). Absent (false) in older reports.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub judges_harness: bool,
}

/// The counterexample kept for a violated law.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViolationSummary {
    /// The index of the case (in the run) that violated the law first.
    pub case_index: u64,
    /// The index (= sequence number) of the violating event in the shrunk case's trace, when one is to blame.
    pub event: Option<u32>,
    /// The law's sentence about what went wrong, for the shrunk case.
    pub message: String,
    /// The shrunk case, as the subject serializes it (durations as text, like a fixture's `case`).
    pub case: serde_json::Value,
    /// How many evaluations the shrinker spent.
    pub shrink_evaluations: u64,
    /// The run seed that finds the violation again (`TIMELAW_SEED`), as [`seed_hex`] prints it.
    pub seed_hex: String,
}

/// The first inconclusive case of a law.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InconclusiveSummary {
    /// The index of the case.
    pub case_index: u64,
    /// Why no judgement was possible.
    pub reason: String,
    /// The fixture the runner wrote to replay the case (absent when it wrote none, and in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture: Option<String>,
}

/// How many cases of a report no law could judge for one reason (a case counts once).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnjudgedRow {
    /// The reason, a sentence that says what to do.
    pub reason: String,
    /// How many cases.
    pub cases: u64,
}

/// The outcome of a whole report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Every applicable law held (vacuously or not) in every case.
    Holds,
    /// Some law was violated.
    Violated,
    /// No law was violated, but some case could not be judged (an inconclusive verdict that no
    /// documented cut explains): the run does not hold.
    Inconclusive,
}

impl Status {
    /// The process exit code for this status:
    ///
    /// | code | meaning |
    /// |---|---|
    /// | 0 | [`Status::Holds`]: every applicable law holds |
    /// | 1 | [`Status::Violated`]: a law is violated |
    /// | 2 | reserved for usage, I/O and bad-fixture errors (produced by the CLI, never here) |
    /// | 3 | [`Status::Inconclusive`]: nothing violated, but some case could not be judged |
    pub const fn exit_code(self) -> u8 {
        match self {
            Status::Holds => 0,
            Status::Violated => 1,
            Status::Inconclusive => 3,
        }
    }
    /// A lowercase word: `holds`, `violated`, `inconclusive`.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Violated => "violated",
            Status::Inconclusive => "inconclusive",
        }
    }
}

/// The outcome of one law over a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LawStatus {
    /// Some case violated the law.
    Violated,
    /// No violation, but some case could not be judged (documented cuts aside).
    Inconclusive,
    /// The law applied to no case.
    NotApplicable,
    /// The law applied and held in every applicable case (vacuously or not).
    Holds,
}

impl LawStatus {
    /// A lowercase word: `violated`, `inconclusive`, `not applicable`, `holds`.
    pub const fn name(self) -> &'static str {
        match self {
            LawStatus::Violated => "violated",
            LawStatus::Inconclusive => "inconclusive",
            LawStatus::NotApplicable => "not applicable",
            LawStatus::Holds => "holds",
        }
    }
}

impl Report {
    /// An empty report of schema [`SCHEMA_VERSION`] for `subject` and `seed`: no cases, one thread, no shard,
    /// no swarm options, no case range, no laws, no settings. The runner fills in the rest.
    pub fn new(subject: impl Into<String>, seed: u64) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            timelaw_version: TIMELAW_VERSION.to_owned(),
            subject: subject.into(),
            seed,
            cases: 0,
            threads: 1,
            shard: None,
            swarm: Vec::new(),
            case_range: None,
            laws: Vec::new(),
            boundaries: Vec::new(),
            boundary_cases: 0,
            time_limit_cuts: 0,
            long_run_cuts: 0,
            settings: None,
            unjudged: Vec::new(),
        }
    }

    /// [`Status::Violated`] if any law was violated, else [`Status::Inconclusive`] if any judgement was
    /// inconclusive, else [`Status::Holds`].
    pub fn status(&self) -> Status {
        let statuses = || self.laws.iter().map(LawRow::status);
        if statuses().any(|status| status == LawStatus::Violated) {
            Status::Violated
        } else if statuses().any(|status| status == LawStatus::Inconclusive) {
            Status::Inconclusive
        } else {
            Status::Holds
        }
    }

    /// The process exit code: `self.status().exit_code()` (0 holds, 1 violated, 3 inconclusive; 2 is the
    /// CLI's for usage, I/O and bad-fixture errors). See [`Status::exit_code`].
    pub fn exit_code(&self) -> u8 {
        self.status().exit_code()
    }

    /// The laws the run barely exercised ([`Counts::barely_exercised`]): the contract states what they
    /// need, yet fewer than 0.1% of their applicable cases judged them non-vacuously. A warning in the
    /// table; a failure (exit code 4) under `--require-judged`.
    pub fn barely_exercised(&self) -> Vec<&LawRow> {
        self.laws.iter().filter(|row| row.counts.barely_exercised()).collect()
    }

    /// The row of law `id`.
    pub fn law(&self, id: &str) -> Option<&LawRow> {
        self.laws.iter().find(|row| row.id == id)
    }
}

impl LawRow {
    /// A row with zero counts, no fixture and no violation.
    pub fn new(id: impl Into<String>, title: impl Into<String>, kind: LawKind) -> LawRow {
        LawRow {
            id: id.into(),
            title: title.into(),
            kind,
            counts: Counts::default(),
            fixture: None,
            violation: None,
            first_inconclusive: None,
            judges_harness: false,
        }
    }

    /// `true` when some case judged the law non-vacuously: it held on a case where what it speaks about
    /// happened, or it was violated.
    pub fn judged_non_vacuously(&self) -> bool {
        self.counts.holds > 0 || self.counts.violated > 0
    }

    /// Violated, inconclusive, not applicable (no applicable case) or holds, in that precedence.
    pub fn status(&self) -> LawStatus {
        if self.counts.violated > 0 {
            LawStatus::Violated
        } else if self.counts.inconclusive > 0 {
            LawStatus::Inconclusive
        } else if self.counts.applicable() == 0 {
            LawStatus::NotApplicable
        } else {
            LawStatus::Holds
        }
    }
}

impl ViolationSummary {
    /// The summary of `violation` (judged on the shrunk `case`), found at case `case_index` of the run
    /// seeded with `seed`.
    pub fn new(
        case_index: u64,
        violation: &Violation,
        case: serde_json::Value,
        shrink_evaluations: u64,
        seed: u64,
    ) -> ViolationSummary {
        ViolationSummary {
            case_index,
            event: violation.event,
            message: violation.message.to_string(),
            case,
            shrink_evaluations,
            seed_hex: seed_hex(seed),
        }
    }
}
