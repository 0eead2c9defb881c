//! `timelaw laws`: the catalogue as rows for the reports crate.

use timelaw_laws::Catalogue;
use timelaw_reports::{render_laws_json, render_laws_table, LawListing};

fn rows(catalogue: &Catalogue) -> Vec<LawListing> {
    catalogue
        .iter()
        .map(|law| LawListing {
            id: law.id.to_owned(),
            title: law.title.to_owned(),
            kind: law.kind,
            needs: law.needs.iter().map(|field| (*field).to_owned()).collect(),
        })
        .collect()
}

/// The catalogue as a table.
pub fn laws_table(catalogue: &Catalogue) -> String {
    render_laws_table(&rows(catalogue))
}

/// The catalogue as JSON.
pub fn laws_json(catalogue: &Catalogue) -> String {
    render_laws_json(&rows(catalogue))
}
