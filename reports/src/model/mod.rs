//! The report model: what a run found, as data with a stable JSON schema.
//!
//! A [`Report`] holds one [`LawRow`] per law; each row holds its verdict [`Counts`] and, when the law was
//! violated, a [`ViolationSummary`] of the first violation in case-index order. [`merge`] puts the reports of
//! the shards of one run back together.

mod counts;
mod merge;
mod report;
mod settings;
mod validate;

pub use counts::{Counts, EXERCISED_SHARE_MIN};
pub use merge::{merge, MergeError};
pub use report::{
    seed_hex, BoundaryRow, InconclusiveSummary, LawRow, LawStatus, Report, Shard, Status, UnjudgedRow,
    ViolationSummary, SCHEMA_VERSION, TIMELAW_VERSION,
};
pub use settings::Settings;
pub use validate::ReportError;
