//! timelaw-reports: what a timelaw run found, as data ([`Report`]) and in every output format: a table for
//! people, JSON with a stable schema, JUnit XML for CI, and the timeline of one counterexample.
//!
//! ```
//! use timelaw_laws::{LawKind, Verdict};
//! use timelaw_reports::{parse_json, render_json, render_junit, render_table, LawRow, Report, Status};
//!
//! let mut report = Report::new("reference", 0x2a);
//! report.cases = 3;
//! let mut row = LawRow::new("attempts_within_max", "attempts never exceed max_attempts", LawKind::Safety);
//! for verdict in [Verdict::Holds, Verdict::Vacuous, Verdict::Holds] {
//!     row.counts.add(&verdict);
//! }
//! report.laws.push(row);
//!
//! assert_eq!(report.status(), Status::Holds);
//! assert_eq!(report.exit_code(), 0);
//! let table = render_table(&report, false);
//! assert!(table.contains("0x000000000000002a (42)"));
//! assert!(table.contains("33.3%")); // the vacuous share
//! assert_eq!(parse_json(&render_json(&report))?, report);
//! assert!(render_junit(&report).contains(r#"<testcase classname="timelaw.reference" name="attempts_within_max"/>"#));
//! # Ok::<(), timelaw_reports::ReportError>(())
//! ```
//!
//! Architecture invariant: this is the only crate that knows an output format. The runner builds a
//! [`Report`]; the CLI picks a renderer and writes the text.
//!
//! ## The report model
//! [`Report`] holds the run's parameters (subject, seed, cases, threads, shard, swarm options, case range)
//! and one [`LawRow`] per law: its [`Counts`] of verdicts, the fixture path, and a [`ViolationSummary`] of
//! the violation with the smallest case index. [`Report::status`] and [`Report::exit_code`] sum it up:
//! 0 every applicable law holds, 1 a law is violated, 3 nothing violated but something inconclusive
//! (2 is the CLI's, for usage, I/O and bad-fixture errors).
//!
//! ## JSON and its schema
//! [`render_json`] writes schema version [`SCHEMA_VERSION`]; [`parse_json`] reads it back, naming line,
//! column and what was expected on errors. The schema is the serde form of [`Report`], fields in
//! declaration order:
//!
//! ```text
//! { "schema_version": 2, "timelaw_version": "0.1.0", "subject": "reference", "seed": 42,
//!   "cases": 1000, "threads": 2, "shard": {"index": 1, "count": 2} | null,
//!   "swarm": ["jitter: on"], "case_range": [0, 1000] | null,
//!   "laws": [ { "id": "attempts_within_max", "title": "...", "kind": "safety" | "liveness",
//!               "counts": {"cases": 1000, "holds": 990, "vacuous": 3, "not_applicable": 0,
//!                          "violated": 7, "inconclusive": 0},
//!               "fixture": "tests/fixtures/....json" | null,
//!               "violation": { "case_index": 17, "event": 5 | null, "message": "...", "case": {...},
//!                              "shrink_evaluations": 312, "seed_hex": "0x000000000000002a" } | null,
//!               "first_inconclusive": { "case_index": 3, "reason": "..." } | null } ] }
//! ```
//!
//! Within a schema version fields are only ever added; a reader ignores fields it does not know. Schema 2
//! writes the durations inside `violation.case` as exact text (`"250ms"`, `"max"`), like fixture format 2.
//!
//! ## Merging shards
//! [`merge`] puts the JSON reports of the shards `1/N ..= N/N` of one run together into exactly the report
//! of the whole run, or says which report differs in which field, which shard is missing or duplicated.
//!
//! ## Table and JUnit XML
//! [`render_table`] (comfy-table; colour only when asked) and [`render_junit`] (one testcase per law).
//!
//! ## Catalogue listing
//! [`render_laws_table`] and [`render_laws_json`] list the laws for `timelaw laws`.
//!
//! ## A subject's contract
//! [`contract_view`] groups a [`timelaw_core::Contract`] by mechanism, each field stated, unstated or
//! absent, with the laws it makes applicable; [`render_contract_text`] and [`render_contract_json`] print
//! it for `timelaw contract`.
//!
//! ## Timeline
//! [`render_timeline`] shows one counterexample's trace as a table with the violating event marked;
//! [`describe_event`] puts one event into words. A trace whose calls overlap gets one lane (column) per
//! call ([`lanes`]).
#![deny(missing_docs)]

#[cfg(feature = "table")]
pub mod catalogue;
#[cfg(feature = "table")]
pub mod lanes;
pub mod model;
pub mod render;
#[cfg(feature = "table")]
mod style;
#[cfg(feature = "table")]
pub mod timeline;
mod words;

#[cfg(feature = "table")]
pub use catalogue::{render_laws_json, render_laws_table, LawListing};
pub use model::{
    merge, seed_hex, BoundaryRow, Counts, InconclusiveSummary, LawRow, LawStatus, MergeError, Report, ReportError,
    Settings, Shard, Status, UnjudgedRow, ViolationSummary, EXERCISED_SHARE_MIN, SCHEMA_VERSION, TIMELAW_VERSION,
};
#[cfg(feature = "table")]
pub use render::{
    contract_view, render_contract_json, render_contract_text, render_table, value_text, ContractView, FieldView,
    GroupView, PromiseState,
};
pub use render::{parse_json, render_json, render_junit};
#[cfg(feature = "table")]
pub use timeline::render_timeline;
pub use words::describe_event;
