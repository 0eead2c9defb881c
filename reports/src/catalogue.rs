//! `timelaw laws`: the catalogue as a table grouped by mechanism, or JSON.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use serde::{Deserialize, Serialize};
use timelaw_laws::{LawKind, Mechanism};

/// One law of the catalogue as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LawListing {
    /// The stable id.
    pub id: String,
    /// The one-line title.
    pub title: String,
    /// Safety or liveness.
    pub kind: LawKind,
    /// The mechanism the law judges ([`timelaw_laws::mechanism_of`]); `None` for a user's law.
    #[serde(default)]
    pub mechanism: Option<Mechanism>,
    /// The contract fields the law needs (empty: it applies to every subject).
    pub needs: Vec<String>,
}

fn kind_name(kind: LawKind) -> &'static str {
    match kind {
        LawKind::Safety => "safety",
        LawKind::Liveness => "liveness",
    }
}

/// The name of a group of laws: the mechanism's, or `other` for laws outside the standard catalogue.
pub fn group_name(mechanism: Option<Mechanism>) -> &'static str {
    mechanism.map_or("other", Mechanism::name)
}

/// The indices of `mechanisms` grouped by mechanism in [`Mechanism::ALL`] order, laws without one
/// last, each group in its given order.
pub fn grouped_order(mechanisms: &[Option<Mechanism>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..mechanisms.len()).collect();
    // `None` sorts first in `Option`'s order; the key puts it last. The sort is stable.
    order.sort_by_key(|&index| (mechanisms[index].is_none(), mechanisms[index]));
    order
}

/// The catalogue as a table: mechanism (on the first row of its group), id, kind, title, contract fields
/// needed; laws grouped by mechanism, a user's laws last under `other`.
///
/// ```
/// use timelaw_reports::{render_laws_table, LawListing};
/// use timelaw_laws::{LawKind, Mechanism};
/// let rows = [LawListing { id: "clock_monotonic".into(), title: "Time never goes backwards".into(),
///     kind: LawKind::Safety, mechanism: Some(Mechanism::Clocks), needs: vec![] }];
/// assert!(render_laws_table(&rows).contains("clocks"));
/// ```
pub fn render_laws_table(laws: &[LawListing]) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(vec!["mechanism", "id", "kind", "title", "needs (contract fields)"]);
    let mechanisms: Vec<Option<Mechanism>> = laws.iter().map(|law| law.mechanism).collect();
    let mut previous = None;
    for index in grouped_order(&mechanisms) {
        let law = &laws[index];
        let group = group_name(law.mechanism);
        let shown = if previous == Some(group) { String::new() } else { group.to_owned() };
        previous = Some(group);
        let needs = if law.needs.is_empty() { "(any subject)".to_owned() } else { law.needs.join(", ") };
        table.add_row(vec![shown, law.id.clone(), kind_name(law.kind).to_owned(), law.title.clone(), needs]);
    }
    format!("{table}\n{} laws\n", laws.len())
}

/// The catalogue as pretty JSON: an array of [`LawListing`] in catalogue order, each with its
/// `mechanism` (snake_case, `null` for a user's law).
pub fn render_laws_json(laws: &[LawListing]) -> String {
    // Plain data with string keys: serializing cannot fail.
    serde_json::to_string_pretty(laws).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law(id: &str, mechanism: Option<Mechanism>) -> LawListing {
        LawListing { id: id.into(), title: "t".into(), kind: LawKind::Safety, mechanism, needs: vec![] }
    }

    #[track_caller]
    fn check(laws: &[LawListing], expect: &str) {
        let table = render_laws_table(laws);
        let rows: Vec<String> = table
            .lines()
            .filter(|line| line.starts_with('│') && !line.contains("mechanism"))
            .map(|line| line.split('┆').take(2).map(|cell| cell.trim_matches(['│', ' '])).collect::<Vec<_>>().join(":"))
            .collect();
        assert_eq!(rows.join(" "), expect, "{table}");
    }

    #[test]
    fn laws_are_grouped_by_mechanism_in_order_user_laws_last() {
        use Mechanism::{Circuit, Meta, Retry};
        check(&[law("a", Some(Retry))], "retry:a");
        check(&[law("a", Some(Meta)), law("b", Some(Retry))], "retry:b meta:a");
        check(&[law("u", None), law("a", Some(Circuit)), law("b", Some(Retry))], "retry:b circuit:a other:u");
        check(
            &[law("a", Some(Retry)), law("b", Some(Circuit)), law("c", Some(Retry)), law("d", None)],
            "retry:a :c circuit:b other:d",
        );
    }
}
