//! Output formats of a [`Report`](crate::Report): a table for people, JSON for machines and merging,
//! JUnit XML for CI.

#[cfg(feature = "table")]
mod contract;
mod json;
mod junit;
#[cfg(feature = "table")]
mod table;

#[cfg(feature = "table")]
pub use contract::{
    contract_view, render_contract_json, render_contract_text, value_text, ContractView, FieldView, GroupView,
    PromiseState,
};
pub use json::{parse_json, render_json};
pub use junit::render_junit;
#[cfg(feature = "table")]
pub use table::render_table;
