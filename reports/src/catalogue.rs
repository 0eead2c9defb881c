//! `timelaw laws`: the catalogue as a table or JSON.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use serde::{Deserialize, Serialize};
use timelaw_laws::LawKind;

/// One law of the catalogue as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LawListing {
    /// The stable id.
    pub id: String,
    /// The one-line title.
    pub title: String,
    /// Safety or liveness.
    pub kind: LawKind,
    /// The contract fields the law needs (empty: it applies to every subject).
    pub needs: Vec<String>,
}

fn kind_name(kind: LawKind) -> &'static str {
    match kind {
        LawKind::Safety => "safety",
        LawKind::Liveness => "liveness",
    }
}

/// The catalogue as a table: id, kind, title, contract fields needed.
///
/// ```
/// use timelaw_reports::{render_laws_table, LawListing};
/// use timelaw_laws::LawKind;
/// let rows = [LawListing { id: "clock_monotonic".into(), title: "Time never goes backwards".into(),
///     kind: LawKind::Safety, needs: vec![] }];
/// assert!(render_laws_table(&rows).contains("clock_monotonic"));
/// ```
pub fn render_laws_table(laws: &[LawListing]) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["id", "kind", "title", "needs (contract fields)"]);
    for law in laws {
        let needs = if law.needs.is_empty() { "(any subject)".to_owned() } else { law.needs.join(", ") };
        table.add_row(vec![law.id.clone(), kind_name(law.kind).to_owned(), law.title.clone(), needs]);
    }
    format!("{table}\n{} laws\n", laws.len())
}

/// The catalogue as pretty JSON: an array of [`LawListing`].
pub fn render_laws_json(laws: &[LawListing]) -> String {
    // Plain data with string keys: serializing cannot fail.
    serde_json::to_string_pretty(laws).unwrap_or_default()
}
