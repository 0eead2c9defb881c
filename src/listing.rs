//! `timelaw laws` and `timelaw subjects`: the catalogue as rows for the reports crate, and the subjects
//! with the laws a fixed sample judges.

use timelaw_laws::Catalogue;
use timelaw_reports::{
    contract_view, render_contract_json, render_contract_text, render_laws_json, render_laws_table, LawListing,
};

use crate::cli::ListFormat;
use crate::registry::{ConfigPick, DynSubject};

fn rows(catalogue: &Catalogue) -> Vec<LawListing> {
    catalogue
        .iter()
        .map(|law| LawListing {
            id: law.id.to_owned(),
            title: law.title.to_owned(),
            kind: law.kind,
            mechanism: timelaw_laws::mechanism_of(law.id),
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

/// Cases per subject in the fixed sample of `timelaw subjects` (seed 0, one thread, no shrinking, no
/// fixtures): small enough to list every built-in subject in a few seconds.
pub const SUBJECT_SAMPLE_CASES: u64 = 500;

/// `timelaw subjects`: each subject's name, then which laws the fixed sample judged non-vacuously, which
/// it never did (vacuous in every applicable case, or not applicable), and which laws judge the harness
/// rather than the code under test ([`timelaw_core::Subject::harness_laws`]). A law never judged in the
/// sample may still be judged by a longer run; one judged here is judged by any run that samples the
/// same cases, as `timelaw check` with seed 0 does.
pub fn subjects_listing(registry: &crate::Registry, catalogue: &Catalogue) -> String {
    let config = crate::Config {
        cases: SUBJECT_SAMPLE_CASES,
        seed: 0,
        threads: 1,
        shrink_evals_max: 1,
        ..crate::Config::default()
    };
    let mut lines = Vec::new();
    for name in registry.names() {
        let Some(subject) = registry.get(name) else { continue };
        let (report, _store) = subject.check(catalogue, &config, &crate::runner::Silent);
        lines.push(name.to_owned());
        lines.extend(subject_lines(&report, subject.harness_laws()));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn subject_lines(report: &timelaw_reports::Report, harness_laws: &[&str]) -> Vec<String> {
    let judged = report.laws.iter().filter(|row| row.judged_non_vacuously()).count();
    let mut lines = vec![format!(
        "  judged   {judged} of {} laws non-vacuously in a fixed sample of {SUBJECT_SAMPLE_CASES} cases (seed 0)",
        report.laws.len()
    )];
    let vacuous: Vec<&str> = report
        .laws
        .iter()
        .filter(|row| !row.judged_non_vacuously() && row.counts.applicable() > 0)
        .map(|row| row.id.as_str())
        .collect();
    let absent: Vec<&str> =
        report.laws.iter().filter(|row| row.counts.applicable() == 0).map(|row| row.id.as_str()).collect();
    let mut list = |label: &str, ids: &[&str]| {
        if !ids.is_empty() {
            lines.push(format!("  {label} {}", ids.join(", ")));
        }
    };
    list("vacuous ", &vacuous);
    list("n/a     ", &absent);
    list("loop    ", harness_laws);
    lines
}

/// `timelaw contract`: `subject`'s contract for its simplest config (`simplest`) or for the config of
/// case 0 of `timelaw check --seed SEED`, grouped by mechanism, as text or JSON.
///
/// # Errors
/// A config that does not serialize to JSON.
pub fn contract_listing(
    subject: &dyn DynSubject,
    simplest: bool,
    seed: u64,
    format: ListFormat,
) -> Result<String, serde_json::Error> {
    let (pick, from) = if simplest {
        (ConfigPick::Simplest, "the simplest config of its domain".to_owned())
    } else {
        (ConfigPick::Seed(seed), format!("case 0 of `timelaw check --subject {} --seed {seed}`", subject.name()))
    };
    let sample = subject.contract_sample(pick)?;
    let view = contract_view(subject.name(), &from, sample.config, &sample.contract, &Catalogue::standard());
    Ok(match format {
        ListFormat::Table => render_contract_text(&view),
        ListFormat::Json => render_contract_json(&view),
    })
}
