//! From a run's output to the report model of `timelaw-reports` (the only crate that knows formats).

use serde::Serialize;
use timelaw_reports::{
    seed_hex, BoundaryRow, InconclusiveSummary, LawRow, Report, Settings, Shard, UnjudgedRow, ViolationSummary,
    SCHEMA_VERSION,
};

use crate::runner::{LawOutcome, RunOutput};
use crate::swarm_summary::swarm_lines;

/// The report of `output`.
pub fn to_report<C: Serialize>(output: &RunOutput<C>) -> Report {
    let config = &output.config;
    Report {
        schema_version: SCHEMA_VERSION,
        timelaw_version: crate::VERSION.to_owned(),
        subject: output.subject.clone(),
        seed: config.seed,
        cases: output.laws.first().map_or(0, |law| law.counts.cases),
        threads: u32::try_from(output.threads).unwrap_or(u32::MAX),
        shard: config.shard.map(|shard| Shard { index: shard.index, count: shard.count }),
        swarm: swarm_lines(config),
        case_range: Some(config.case_range()),
        laws: output.laws.iter().map(|law| law_row(law, config.seed)).collect(),
        boundaries: output
            .coverage
            .iter()
            .map(|(class, cases)| BoundaryRow { class: class.name().to_owned(), cases })
            .collect(),
        boundary_cases: output.coverage.cases(),
        time_limit_cuts: output.time_limit_cuts,
        long_run_cuts: output.long_run_cuts,
        settings: Some(settings(config)),
        unjudged: output
            .unjudged
            .nonzero()
            .map(|(reason, cases)| UnjudgedRow { reason: reason.describe().to_owned(), cases })
            .collect(),
    }
}

/// The options shards of one run must agree on.
fn settings(config: &crate::config::Config) -> Settings {
    Settings {
        cases: config.cases,
        collect: u32::try_from(config.violations_per_law()).unwrap_or(u32::MAX), // at most a u32 by construction
        replay_every: config.replay_every,
        shrink_evals_max: config.shrink_evals_max,
        shrink_time_ms: config.shrink_time_ms,
        events_max: config.limits.events_max,
        attempts_max: config.limits.attempts_max,
        sleeps_max: config.limits.sleeps_max,
    }
}

fn law_row<C: Serialize>(outcome: &LawOutcome<C>, seed: u64) -> LawRow {
    let first = outcome.counterexamples.first();
    LawRow {
        id: outcome.law.id.to_owned(),
        title: outcome.law.title.to_owned(),
        kind: outcome.law.kind,
        counts: outcome.counts,
        fixture: first.and_then(|example| example.fixture.as_ref()).map(|path| path.display().to_string()),
        violation: first.map(|example| ViolationSummary {
            case_index: example.case_index,
            event: example.violation.event,
            message: example.violation.message.to_string(),
            case: serde_json::to_value(&example.shrunk).unwrap_or(serde_json::Value::Null),
            shrink_evaluations: example.shrink_evaluations,
            seed_hex: seed_hex(seed),
        }),
        first_inconclusive: outcome.inconclusive.as_ref().map(|first| InconclusiveSummary {
            case_index: first.case_index,
            reason: first.reason.clone(),
            fixture: first.fixture.as_ref().map(|path| path.display().to_string()),
        }),
        judges_harness: false,
    }
}

/// Marks the rows of `report` whose law is one of `harness_laws` (a subject's
/// [`Subject::harness_laws`](timelaw_core::Subject::harness_laws)): their verdicts judge the harness, not
/// the code under test.
pub fn mark_harness_laws(report: &mut Report, harness_laws: &[&str]) {
    for row in &mut report.laws {
        row.judges_harness = harness_laws.contains(&row.id.as_str());
    }
}
