//! Output formats of a [`Report`](crate::Report): a table for people, JSON for machines and merging,
//! JUnit XML for CI.

mod json;
mod junit;
mod table;

pub use json::{parse_json, render_json};
pub use junit::render_junit;
pub use table::render_table;
