//! The report formats agree with each other, JSON round-trips, shards merge into the whole run, and the
//! timeline marks the right event. Every report here is built from one table of synthetic verdicts.

use std::borrow::Cow;

use serde_json::json;
use timelaw_core::{CallResult, ErrorKind, EventKind, Outcome, Trace, VDuration, VInstant};
use timelaw_laws::{LawKind, Verdict, Violation};
use timelaw_reports::{
    merge, parse_json, render_json, render_junit, render_table, render_timeline, BoundaryRow, InconclusiveSummary,
    LawRow, Report, Settings, Shard, Status, ViolationSummary,
};

const SEED: u64 = 0x5eed;
const CASES: u64 = 100;

/// A synthetic law: id, kind, and the verdict of case `i`.
type SyntheticLaw = (&'static str, LawKind, fn(u64) -> Verdict);

/// The laws of the synthetic run.
const LAWS: [SyntheticLaw; 4] = [
    ("attempts_within_max", LawKind::Safety, |i| if i % 37 == 11 { violated(i) } else { Verdict::Holds }),
    ("eventually_succeeds", LawKind::Liveness, |i| match i {
        _ if i % 10 == 3 => Verdict::Inconclusive(Cow::Owned(format!("trace of case {i} truncated"))),
        _ if i % 4 == 0 => Verdict::Vacuous,
        _ => Verdict::Holds,
    }),
    ("circuit_open_rejects_without_dispatch", LawKind::Safety, |_| Verdict::NotApplicable),
    ("delay_within_cap", LawKind::Safety, |i| match i {
        70 | 95 => violated(i),
        _ if i % 3 == 0 => Verdict::Vacuous,
        _ => Verdict::Holds,
    }),
];

fn violated(i: u64) -> Verdict {
    Verdict::violated_with(Some(u32::try_from(i % 7).unwrap()), format!("case {i} slept <\"too\" & long>"))
}

/// The report a runner writes for cases `range` (as shard `shard`, if any) of the synthetic run.
fn run(range: (u64, u64), shard: Option<Shard>) -> Report {
    let mut report = Report::new("reference", SEED);
    report.cases = range.1 - range.0;
    report.threads = 2;
    report.shard = shard;
    report.swarm = vec!["jitter: on".to_owned(), "circuit: off".to_owned()];
    report.case_range = Some(range);
    report.settings = Some(Settings {
        cases: CASES,
        collect: 1,
        replay_every: 16,
        shrink_evals_max: 4_000,
        shrink_time_ms: None,
        events_max: 4096,
        attempts_max: 1024,
        sleeps_max: 1024,
    });
    for (id, kind, verdict_of) in LAWS {
        let mut row = LawRow::new(id, format!("the title of {id}"), kind);
        for i in range.0..range.1 {
            let verdict = verdict_of(i);
            row.counts.add(&verdict);
            match &verdict {
                Verdict::Violated(violation) if row.violation.is_none() => {
                    let case = json!({ "index": i, "steps": ["transient", "ok"] });
                    row.violation = Some(ViolationSummary::new(i, violation, case, 10 + i, SEED));
                    row.fixture = Some(format!("tests/fixtures/reference/{id}-{i}.json"));
                }
                Verdict::Inconclusive(reason) if row.first_inconclusive.is_none() => {
                    row.first_inconclusive =
                        Some(InconclusiveSummary { case_index: i, reason: reason.to_string(), fixture: None });
                }
                _ => {}
            }
        }
        report.laws.push(row);
    }
    let hits = |every: u64| (range.0..range.1).filter(|i| i % every == 0).count() as u64;
    report.boundary_cases = range.1 - range.0;
    report.time_limit_cuts = hits(25);
    report.boundaries = vec![
        BoundaryRow { class: "attempt_at_timeout".to_owned(), cases: hits(5) },
        BoundaryRow { class: "delay_at_cap".to_owned(), cases: hits(9) },
    ];
    report
}

fn whole() -> Report {
    run((0, CASES), None)
}

fn shards(bounds: &[u64]) -> Vec<Report> {
    let count = u32::try_from(bounds.len() - 1).unwrap();
    (0..count)
        .map(|k| {
            let (start, end) = (bounds[k as usize], bounds[k as usize + 1]);
            run((start, end), Some(Shard { index: k + 1, count }))
        })
        .collect()
}

#[test]
fn merging_shards_gives_the_whole_run() {
    let whole = whole();
    for bounds in [&[0, 50, 100][..], &[0, 33, 66, 100], &[0, 1, 2, 100], &[0, 0, 100]] {
        let mut reports = shards(bounds);
        assert_eq!(merge(&reports), Ok(whole.clone()), "{bounds:?}");
        reports.reverse();
        assert_eq!(merge(&reports), Ok(whole.clone()), "{bounds:?} reversed");
        let from_json: Vec<Report> = reports.iter().map(|r| parse_json(&render_json(r)).unwrap()).collect();
        assert_eq!(merge(&from_json), Ok(whole.clone()), "{bounds:?} through JSON");
    }
    // The kept violation is the smallest case index over all shards, with its fixture.
    let row = whole.law("delay_within_cap").unwrap();
    assert_eq!(row.violation.as_ref().map(|v| v.case_index), Some(70));
    assert_eq!(row.fixture.as_deref(), Some("tests/fixtures/reference/delay_within_cap-70.json"));
    assert_eq!(whole.boundaries[0].cases, 20, "boundary counts add up over shards");
    assert_eq!(whole.time_limit_cuts, 4, "time-limit cuts add up over shards");
    let table = render_table(&whole, false);
    assert!(table.contains(
        "bounds   of 100 sampled cases:\n           attempt_at_timeout 20 (20.0%), delay_at_cap 12 (12.0%)\n"
    ));
    assert_eq!(merge(std::slice::from_ref(&whole)), Ok(whole));
}

#[test]
fn merge_errors_say_what_is_wrong() {
    let two = || shards(&[0, 50, 100]);
    let three = || shards(&[0, 30, 60, 100]);
    let edit = |mut reports: Vec<Report>, file: usize, change: fn(&mut Report)| {
        change(&mut reports[file]);
        reports
    };
    let cases: Vec<(Vec<Report>, &str)> = vec![
        (vec![], "no reports to merge"),
        (edit(two(), 1, |r| r.seed = 7), "report 1: seed is 7, but report 0 has 24301"),
        (
            edit(two(), 1, |r| r.subject = "tower".into()),
            r#"report 1: subject is "tower", but report 0 has "reference""#,
        ),
        (
            edit(two(), 1, |r| r.swarm.pop().map(drop).unwrap()),
            "report 1: swarm option `circuit` is absent, but report 0 has off",
        ),
        (
            edit(two(), 1, |r| r.swarm[0] = "jitter: on in 12% of batches".into()),
            "report 1: swarm option `jitter` is on in 12% of batches, but report 0 has on",
        ),
        (
            edit(two(), 1, |r| r.timelaw_version = "9.9.9".into()),
            "report 1: timelaw_version is 9.9.9, but report 0 has 0.1.0",
        ),
        (edit(two(), 1, |r| r.laws.truncate(3)), "report 1: laws is 3 laws, but report 0 has 4 laws"),
        (
            edit(two(), 1, |r| r.laws.swap(0, 1)),
            "report 1: laws[0].id is `eventually_succeeds`, but report 0 has `attempts_within_max`",
        ),
        (
            edit(two(), 1, |r| r.laws[2].kind = LawKind::Liveness),
            "report 1: laws[2].kind is Liveness, but report 0 has Safety",
        ),
        (
            edit(two(), 1, |r| r.settings.as_mut().unwrap().collect = 3),
            "report 1: settings.collect is 3, but report 0 has 1",
        ),
        (
            edit(two(), 0, |r| r.settings.as_mut().unwrap().shrink_time_ms = Some(5)),
            "report 1: settings.shrink_time_ms is none, but report 0 has 5",
        ),
        (edit(two(), 1, |r| r.settings = None), "report 1: settings is absent, but report 0 has recorded"),
        (
            edit(three(), 2, |r| r.shard = Some(Shard { index: 3, count: 4 })),
            "report 2: shard.count is 4, but report 0 has 3",
        ),
        (vec![two()[0].clone(), two()[0].clone()], "shard 1/2 appears twice: reports 0 and 1"),
        (vec![three()[0].clone(), three()[2].clone()], "shard 2 of 3 is missing"),
        (vec![three()[1].clone()], "shards 1, 3 of 3 are missing"),
        (
            edit(two(), 0, |r| r.shard = None),
            "report 0 has no `shard`: it is a whole run, and only the shards of one run can be merged",
        ),
        (
            vec![whole(), whole()],
            "report 0 has no `shard`: it is a whole run, and only the shards of one run can be merged",
        ),
        (
            vec![two()[0].clone(), run((60, 100), Some(Shard { index: 2, count: 2 }))],
            "case ranges: no report ran cases [50, 60) (between reports 0 and 1)",
        ),
        (
            vec![two()[0].clone(), run((40, 100), Some(Shard { index: 2, count: 2 }))],
            "case ranges: reports 0 and 1 overlap: both ran cases [40, 50)",
        ),
        (
            edit(two(), 0, |r| r.case_range = None),
            "case ranges: report 0 has no case_range, but 1 other reports have one",
        ),
        (
            edit(two(), 1, |r| r.laws[0].counts.cases += 1),
            "report 1: laws[0].counts: cases is 51 but the verdicts add up to 50",
        ),
        (edit(two(), 1, |r| r.cases = 49), "report 1: cases: cases is 49 but case_range [50, 100) holds 50"),
        (
            edit(two(), 1, |r| r.laws[0].violation.as_mut().unwrap().case_index = 7),
            "report 1: laws[0].violation.case_index: case 7 is outside the report's case_range [50, 100)",
        ),
    ];
    for (reports, expected) in cases {
        assert_eq!(merge(&reports).map_err(|e| e.to_string()), Err(expected.to_owned()));
    }
}

#[test]
fn status_and_exit_code() {
    let with = |id: &str, verdicts: &[Verdict]| {
        let mut report = Report::new("s", 0);
        let mut row = LawRow::new(id, "t", LawKind::Safety);
        verdicts.iter().for_each(|verdict| row.counts.add(verdict));
        report.laws.push(row);
        report
    };
    let inconclusive = Verdict::Inconclusive(Cow::Borrowed("x"));
    let violation = Verdict::Violated(Violation::new(None, "x"));
    let cases = [
        (Report::new("s", 0), Status::Holds, 0),
        (with("a", &[Verdict::Holds, Verdict::Vacuous, Verdict::NotApplicable]), Status::Holds, 0),
        (with("a", &[Verdict::NotApplicable]), Status::Holds, 0),
        (with("a", &[Verdict::Holds, inconclusive.clone()]), Status::Inconclusive, 3),
        (with("a", &[inconclusive, violation]), Status::Violated, 1),
        (whole(), Status::Violated, 1),
    ];
    for (report, status, code) in cases {
        assert_eq!((report.status(), report.exit_code()), (status, code), "{report:?}");
    }
}

#[test]
fn json_round_trips_byte_for_byte() {
    for report in [whole(), shards(&[0, 30, 60, 100]).remove(1), Report::new("empty", u64::MAX)] {
        let text = render_json(&report);
        let back = parse_json(&text).unwrap();
        assert_eq!(back, report);
        assert_eq!(render_json(&back), text);
    }
    let text = render_json(&Report::new("empty", u64::MAX));
    assert!(text.contains("\"seed\": 18446744073709551615"), "{text}");
}

/// The cells of the table row of law `id`.
fn table_row(table: &str, id: &str) -> Vec<String> {
    let line = table.lines().find(|line| line.starts_with(&format!("│ {id} "))).unwrap();
    line.split(['│', '┆']).map(str::trim).filter(|cell| !cell.is_empty()).map(str::to_owned).collect()
}

#[test]
fn table_json_and_junit_agree() {
    let report = whole();
    let table = render_table(&report, false);
    let parsed = parse_json(&render_json(&report)).unwrap();
    let junit = render_junit(&report);
    for row in &report.laws {
        let counts = &row.counts;
        let share =
            if counts.applicable() == 0 { "-".to_owned() } else { format!("{:.1}%", 100.0 * counts.vacuous_share()) };
        let kind = if row.kind == LawKind::Safety { "safety" } else { "liveness" };
        let expected = [
            row.id.clone(),
            kind.to_owned(),
            counts.cases.to_string(),
            counts.holds.to_string(),
            share,
            counts.not_applicable.to_string(),
            counts.violated.to_string(),
            counts.inconclusive.to_string(),
            counts.cut.to_string(),
            row.fixture.clone().unwrap_or_else(|| "-".to_owned()),
        ];
        assert_eq!(table_row(&table, &row.id), expected);
        assert_eq!(parsed.law(&row.id).map(|r| r.counts), Some(*counts));
        let testcase = format!(r#"<testcase classname="timelaw.reference" name="{}""#, row.id);
        assert_eq!(junit.matches(&testcase).count(), 1, "{junit}");
        if let Some(violation) = &row.violation {
            assert!(table.contains(&format!(
                "{} violated in {} of 100 cases; first in case {}",
                row.id, counts.violated, violation.case_index
            )));
            assert!(junit.contains(&format!(
                "violated in {} of 100 cases; first in case {}",
                counts.violated, violation.case_index
            )));
        }
    }
    assert_eq!(junit.matches("<failure ").count(), 3);
    assert_eq!(junit.matches("<skipped ").count(), 1);
    assert!(junit.contains(r#"<testsuite name="timelaw.reference" tests="4" failures="3" errors="0" skipped="1">"#));
    assert!(junit.contains(r#"<skipped message="not applicable"/>"#));
    assert!(junit.contains(
        r#"<failure message="could not judge 10 of 100 cases: trace of case 3 truncated" type="inconclusive">first in case 3"#
    ));
    assert!(
        junit.contains(r#"<failure message="case 11 slept &lt;&quot;too&quot; &amp; long&gt;" type="violated">"#),
        "{junit}"
    );
    assert!(
        junit.contains(r#"case: {&quot;index&quot;:11,&quot;steps&quot;:[&quot;transient&quot;,&quot;ok&quot;]}"#),
        "{junit}"
    );
    assert!(table.contains("reproduce: TIMELAW_SEED=0x0000000000005eed"));
    assert!(table.contains("seed     0x0000000000005eed (24301)"));
    assert!(table.contains("swarm    jitter: on\n           circuit: off\n"));
    assert!(table.contains("status: violated (exit code 1)"));
}

#[test]
fn colour_only_when_asked() {
    // The first half of the run: one law of each colour (and one not applicable, uncoloured).
    let report = shards(&[0, 50, 100]).remove(0);
    let trace = retry_trace();
    let violation = Violation::new(Some(3), "x");
    let texts = |color| [render_table(&report, color), render_timeline(&trace, Some(&violation), "law", color)];
    for text in texts(false) {
        assert!(!text.contains('\x1b'), "{text}");
    }
    let [red, green, yellow] = ["\x1b[38;5;9m", "\x1b[38;5;10m", "\x1b[38;5;11m"];
    let [table, timeline] = texts(true);
    for code in [red, green, yellow] {
        assert!(table.contains(code), "{code:?} in {table}");
    }
    assert!(timeline.contains(red), "{timeline}");
}

/// Call 0: attempt 1 times out after 50ms, a 100ms sleep, attempt 2 ends transient, the call returns
/// Err(timeout) where the law expects Err(transient).
fn retry_trace() -> Trace {
    let at = |ms| VInstant::EPOCH.saturating_add(VDuration::from_millis(ms));
    let mut trace = Trace::new();
    let events = [
        (0, 0, EventKind::CallStart { idempotent: true }),
        (0, 1, EventKind::AttemptStart),
        (50, 1, EventKind::AttemptTimedOut { timeout: VDuration::from_millis(50) }),
        (50, 1, EventKind::SleepRequested { duration: VDuration::from_millis(100) }),
        (150, 2, EventKind::AttemptStart),
        (300, 2, EventKind::AttemptEnd { outcome: Outcome::Transient }),
        (300, 0, EventKind::CallEnd { result: CallResult::Err(ErrorKind::Timeout) }),
    ];
    for (ms, attempt, kind) in events {
        trace.push(at(ms), 0, attempt, kind);
    }
    trace
}

/// The whole table, character for character: the format people read (laws grouped by mechanism).
#[test]
fn table_golden() {
    let report = Report { timelaw_version: "0.0.0-test".to_owned(), ..whole() };
    let expected = r#"timelaw 0.0.0-test report: subject reference
  seed     0x0000000000005eed (24301)
  cases    100 (indices 0..100)
  threads  2
  shard    none (whole run)
  swarm    jitter: on
           circuit: off
  bounds   of 100 sampled cases:
           attempt_at_timeout 20 (20.0%), delay_at_cap 12 (12.0%)
  cut      4 cases (4.0%) at the virtual time limit: safety laws judged on the prefix, liveness laws counted as cut (a documented cut, not a failure)
  cut      0 cases (0.0%) at a step limit inside a long scripted run: safety laws judged on the prefix, liveness laws counted as cut (a documented cut, not a failure)
┌───────────────────────────────────────┬──────────┬───────┬───────┬─────────┬─────┬──────────┬──────────────┬─────┬──────────────────────────────────────────────────────┐
│ law                                   ┆ kind     ┆ cases ┆ holds ┆ vacuous ┆ n/a ┆ violated ┆ inconclusive ┆ cut ┆ fixture                                              │
╞═══════════════════════════════════════╪══════════╪═══════╪═══════╪═════════╪═════╪══════════╪══════════════╪═════╪══════════════════════════════════════════════════════╡
│ ── retry ──                           ┆          ┆       ┆       ┆         ┆     ┆          ┆              ┆     ┆                                                      │
│ attempts_within_max                   ┆ safety   ┆   100 ┆    97 ┆    0.0% ┆   0 ┆        3 ┆            0 ┆   0 ┆ tests/fixtures/reference/attempts_within_max-11.json │
│ eventually_succeeds                   ┆ liveness ┆   100 ┆    65 ┆   25.0% ┆   0 ┆        0 ┆           10 ┆   0 ┆ -                                                    │
│ ── delays/backoff ──                  ┆          ┆       ┆       ┆         ┆     ┆          ┆              ┆     ┆                                                      │
│ delay_within_cap                      ┆ safety   ┆   100 ┆    64 ┆   34.0% ┆   0 ┆        2 ┆            0 ┆   0 ┆ tests/fixtures/reference/delay_within_cap-70.json    │
│ ── circuit ──                         ┆          ┆       ┆       ┆         ┆     ┆          ┆              ┆     ┆                                                      │
│ circuit_open_rejects_without_dispatch ┆ safety   ┆   100 ┆     0 ┆       - ┆ 100 ┆        0 ┆            0 ┆   0 ┆ -                                                    │
└───────────────────────────────────────┴──────────┴───────┴───────┴─────────┴─────┴──────────┴──────────────┴─────┴──────────────────────────────────────────────────────┘
never judged non-vacuously in this run: circuit_open_rejects_without_dispatch
status: violated (exit code 1)

attempts_within_max violated in 3 of 100 cases; first in case 11, at event 4:
  case 11 slept <"too" & long>
  fixture:   tests/fixtures/reference/attempts_within_max-11.json
  shrunk in: 21 evaluations
  reproduce: TIMELAW_SEED=0x0000000000005eed and the same command

delay_within_cap violated in 2 of 100 cases; first in case 70, at event 0:
  case 70 slept <"too" & long>
  fixture:   tests/fixtures/reference/delay_within_cap-70.json
  shrunk in: 80 evaluations
  reproduce: TIMELAW_SEED=0x0000000000005eed and the same command

eventually_succeeds could not judge 10 cases (inconclusive); first in case 3:
  trace of case 3 truncated
"#;
    assert_eq!(render_table(&report, false), expected);
}

#[test]
fn timeline_marks_the_violating_event() {
    let trace = retry_trace();
    let sentence = "the call returned Err(timeout) but its last attempt ended transient";
    let violation = Violation::new(Some(6), sentence);
    let text = render_timeline(&trace, Some(&violation), "result_matches_last_attempt", false);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|line| line.starts_with('│'))
        .map(|line| line.split(['│', '┆']).map(str::trim).collect::<Vec<_>>()[1..8].to_vec())
        .collect();
    let expected = [
        ["", "seq", "at", "call", "attempt", "delay", "what"],
        ["", "0", "0ms", "0", "", "", "call started"],
        ["", "1", "0ms", "0", "1", "", "attempt 1 started"],
        ["", "2", "50ms", "0", "1", "", "timed out after 50ms"],
        ["", "3", "50ms", "0", "1", "100ms", "slept 100ms"],
        ["", "4", "150ms", "0", "2", "", "attempt 2 started"],
        ["", "5", "300ms", "0", "2", "", "attempt ended: transient"],
        ["▶", "6", "300ms", "0", "", "", "call returned Err(timeout)"],
    ];
    assert_eq!(rows, expected, "{text}");
    assert!(
        text.ends_with(&format!("end: complete\n▶ event 6 violates result_matches_last_attempt: {sentence}\n")),
        "{text}"
    );
    let unmarked = [
        render_timeline(&trace, None, "law", false),
        render_timeline(&trace, Some(&Violation::new(None, "x")), "law", false),
        render_timeline(&trace, Some(&Violation::new(Some(99), "x")), "law", false),
    ];
    for text in unmarked {
        assert!(!text.contains("│ ▶ ┆"), "{text}");
    }
}

#[test]
fn table_groups_laws_by_mechanism_user_laws_last() {
    let mut report = Report::new("reference", 1);
    report.cases = 1;
    for id in ["my_own_law", "never_panics", "delay_within_cap", "attempts_within_max", "delay_at_least_min"] {
        let mut row = LawRow::new(id, "t", LawKind::Safety);
        row.counts.add(&Verdict::Holds);
        report.laws.push(row);
    }
    let table = render_table(&report, false);
    let first_cells: Vec<&str> = table
        .lines()
        .filter(|line| line.starts_with('│') && !line.contains("inconclusive"))
        .map(|line| line.split('┆').next().unwrap().trim_matches(['│', ' ']))
        .collect();
    let expected = [
        "── retry ──",
        "attempts_within_max",
        "── delays/backoff ──",
        "delay_within_cap",
        "delay_at_least_min",
        "── meta ──",
        "never_panics",
        "── other ──",
        "my_own_law",
    ];
    assert_eq!(first_cells, expected, "{table}");
    let json = render_json(&report);
    assert!(!json.contains("mechanism") && !json.contains("──"), "the JSON report is unchanged: {json}");
}
