//! The table for people: a header block, one row per law, a status line and a paragraph per violation.

use comfy_table::{CellAlignment, Table};

use crate::model::{LawRow, LawStatus, Report, ViolationSummary};
use crate::style::{self, paint, Tone};

const COLUMNS: [&str; 10] =
    ["law", "kind", "cases", "holds", "vacuous", "n/a", "violated", "inconclusive", "cut", "fixture"];
/// The columns holding numbers, right-aligned.
const NUMERIC_COLUMNS: std::ops::Range<usize> = 2..9;

/// Renders `report` for a terminal or a log: a header block (subject, timelaw version, seed in hex and
/// decimal, cases and their range, threads, shard, swarm options), a table with one row per law grouped by
/// mechanism ([`timelaw_laws::mechanism_of`]; a `── retry ──` row opens each group, in
/// [`timelaw_laws::Mechanism::ALL`] order, a user's laws last under `── other ──`) (id, kind,
/// cases, holds, vacuous share in percent of the applicable cases, not applicable, violated, inconclusive
/// (cases left unjudged: each fails the run), cut (cases a documented cut ended before the law could
/// judge them), fixture path), the cases left unjudged per reason, the status with its exit code, then a
/// paragraph per violated law (id, sentence, case and event index, fixture path, the `TIMELAW_SEED` that
/// reproduces it) and per law that left cases unjudged (with the fixture that replays the first).
///
/// Colours (green holds, red violated, yellow inconclusive) are ANSI codes written only when `color` is
/// true; the caller decides (the CLI: standard output is a terminal and `NO_COLOR` is unset). The output
/// never depends on the terminal otherwise: columns are as wide as their content, nothing wraps.
/// The text ends with a newline.
pub fn render_table(report: &Report, color: bool) -> String {
    let mut lines = header(report);
    lines.push(laws_table(report, color).to_string());
    lines.extend(judged_lines(report));
    lines.extend(health_lines(report));
    lines.extend(unjudged_lines(report));
    let status = report.status();
    let tone = match status {
        crate::Status::Holds => Tone::Good,
        crate::Status::Violated => Tone::Bad,
        crate::Status::Inconclusive => Tone::Warn,
    };
    lines.push(format!("status: {} (exit code {})", paint(status.name(), tone, color), status.exit_code()));
    for row in &report.laws {
        if let Some(violation) = &row.violation {
            lines.push(String::new());
            lines.extend(violation_paragraph(row, violation, color));
        }
    }
    for row in &report.laws {
        if let (LawStatus::Inconclusive, Some(summary)) = (row.status(), &row.first_inconclusive) {
            lines.push(String::new());
            let title = format!(
                "{} could not judge {} cases (inconclusive); first in case {}:",
                row.id, row.counts.inconclusive, summary.case_index
            );
            lines.push(paint(&title, Tone::Warn, color));
            lines.push(format!("  {}", summary.reason));
            if let Some(fixture) = &summary.fixture {
                lines.push(format!("  fixture: {fixture}"));
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn header(report: &Report) -> Vec<String> {
    let mut lines = vec![
        format!("timelaw {} report: subject {}", report.timelaw_version, report.subject),
        format!("  seed     {} ({})", crate::seed_hex(report.seed), report.seed),
    ];
    lines.push(match report.case_range {
        Some((start, end)) => format!("  cases    {} (indices {start}..{end})", report.cases),
        None => format!("  cases    {}", report.cases),
    });
    lines.push(format!("  threads  {}", report.threads));
    lines.push(match report.shard {
        Some(shard) => format!("  shard    {shard}"),
        None => "  shard    none (whole run)".to_owned(),
    });
    match report.swarm.split_first() {
        None => lines.push("  swarm    none".to_owned()),
        Some((first, rest)) => {
            lines.push(format!("  swarm    {first}"));
            lines.extend(rest.iter().map(|option| format!("           {option}")));
        }
    }
    lines.extend(boundary_lines(report));
    lines.push(time_limit_line(report));
    lines.push(long_run_line(report));
    lines
}

/// `  cut      12 cases (0.1%) at the virtual time limit: ...`: the cases the World cut at its virtual
/// time limit, never violations by themselves.
fn time_limit_line(report: &Report) -> String {
    let cuts = report.time_limit_cuts;
    let share = if report.cases == 0 { 0.0 } else { cuts as f64 * 100.0 / report.cases as f64 };
    format!(
        "  cut      {cuts} cases ({share:.1}%) at the virtual time limit: safety laws judged on the prefix, \
         liveness laws counted as cut (a documented cut, not a failure)"
    )
}

/// `  cut      3 cases (0.0%) at a step limit inside a long scripted run: ...`: the cases the World cut
/// at a count limit while the subject was still consuming a long script, never violations by themselves.
fn long_run_line(report: &Report) -> String {
    let cuts = report.long_run_cuts;
    let share = if report.cases == 0 { 0.0 } else { cuts as f64 * 100.0 / report.cases as f64 };
    format!(
        "  cut      {cuts} cases ({share:.1}%) at a step limit inside a long scripted run: safety laws judged \
         on the prefix, liveness laws counted as cut (a documented cut, not a failure)"
    )
}

/// `  bounds   of 6250 sampled cases: attempt_at_timeout 312 (5.0%), ...`: the classified cases that reached
/// each boundary class.
fn boundary_lines(report: &Report) -> Vec<String> {
    let total = report.boundary_cases;
    let share = |cases: u64| if total == 0 { 0.0 } else { cases as f64 * 100.0 / total as f64 };
    let cells: Vec<String> =
        report.boundaries.iter().map(|row| format!("{} {} ({:.1}%)", row.class, row.cases, share(row.cases))).collect();
    if cells.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!("  bounds   of {total} sampled cases:")];
    lines.extend(cells.chunks(4).map(|chunk| format!("           {}", chunk.join(", "))));
    lines
}

fn laws_table(report: &Report, color: bool) -> Table {
    let mut table = style::table(color);
    table.set_header(COLUMNS);
    let mechanisms: Vec<_> = report.laws.iter().map(|row| timelaw_laws::mechanism_of(&row.id)).collect();
    let mut previous = None;
    for index in crate::catalogue::grouped_order(&mechanisms) {
        let row = &report.laws[index];
        let group = crate::catalogue::group_name(mechanisms[index]);
        if previous != Some(group) {
            table.add_row(group_row(group));
            previous = Some(group);
        }
        let tone = Tone::of_law(row.status());
        let counts = &row.counts;
        let vacuous = if counts.applicable() == 0 { "-".to_owned() } else { percent(counts.vacuous_share()) };
        let law = if row.judges_harness { format!("{} (loop)", row.id) } else { row.id.clone() };
        let cells = [
            law,
            kind_name(row),
            counts.cases.to_string(),
            counts.holds.to_string(),
            vacuous,
            counts.not_applicable.to_string(),
            counts.violated.to_string(),
            counts.inconclusive.to_string(),
            counts.cut.to_string(),
            row.fixture.clone().unwrap_or_else(|| "-".to_owned()),
        ];
        table.add_row(cells.into_iter().map(|text| style::cell(text, tone)));
    }
    for index in NUMERIC_COLUMNS {
        if let Some(column) = table.column_mut(index) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// The row that opens a mechanism's group of laws: `── circuit ──` in the law column, the rest empty.
fn group_row(group: &str) -> Vec<String> {
    let mut cells = vec![String::new(); COLUMNS.len()];
    cells[0] = format!("── {group} ──");
    cells
}

/// Under the table: which laws judge the harness (marked `(loop)`), and which laws no case of this run
/// judged non-vacuously (each applicable case vacuous, or none applicable), so a clean row is not read as
/// a checked promise.
fn judged_lines(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    if report.laws.iter().any(|row| row.judges_harness) {
        lines.push(
            "(loop): the law judges the retry loop timelaw drives this subject through, not the code under test"
                .to_owned(),
        );
    }
    let never: Vec<&str> =
        report.laws.iter().filter(|row| !row.judged_non_vacuously()).map(|row| row.id.as_str()).collect();
    if !never.is_empty() {
        lines.push(format!("never judged non-vacuously in this run: {}", never.join(", ")));
    }
    lines
}

/// Under the table: the health check, the laws whose needs the contract meets but which the run barely
/// exercised (judged non-vacuously in under 0.1% of their applicable cases), with how to fix each cause.
fn health_lines(report: &Report) -> Vec<String> {
    let rows = report.barely_exercised();
    if rows.is_empty() {
        return Vec::new();
    }
    let listed: Vec<String> = rows
        .iter()
        .map(|row| format!("{} ({} of {} applicable cases)", row.id, row.counts.exercised(), row.counts.applicable()))
        .collect();
    vec![
        format!(
            "warning: barely exercised (judged non-vacuously in under 0.1% of the cases it applied to): {}",
            listed.join(", ")
        ),
        "  the description rarely draws what the law speaks about (draw it more often), or the contract states a \
         mechanism the code does not have (state only what it has); --require-judged makes this a failure (exit 4)"
            .to_owned(),
    ]
}

/// Under the table: the cases no law could judge, per reason (`unjudged  12 cases: stopped at ...`).
fn unjudged_lines(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    if !report.unjudged.is_empty() {
        lines.push("cases left unjudged (a run holds only when every case was judged):".to_owned());
    }
    lines.extend(report.unjudged.iter().map(|row| format!("  {} cases: {}", row.cases, row.reason)));
    lines
}

fn kind_name(row: &LawRow) -> String {
    match row.kind {
        timelaw_laws::LawKind::Safety => "safety",
        timelaw_laws::LawKind::Liveness => "liveness",
    }
    .to_owned()
}

/// `share` (in `0.0..=1.0`) as a percentage with one decimal, like `12.5%`.
fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

fn violation_paragraph(row: &LawRow, violation: &ViolationSummary, color: bool) -> Vec<String> {
    let event = violation.event.map_or_else(|| "no single event".to_owned(), |event| format!("event {event}"));
    let title = format!(
        "{} violated in {} of {} cases; first in case {}, at {event}:",
        row.id, row.counts.violated, row.counts.cases, violation.case_index
    );
    vec![
        paint(&title, Tone::Bad, color),
        format!("  {}", violation.message),
        format!("  fixture:   {}", row.fixture.as_deref().unwrap_or("none written")),
        format!("  shrunk in: {} evaluations", violation.shrink_evaluations),
        format!("  reproduce: TIMELAW_SEED={} and the same command", violation.seed_hex),
    ]
}
