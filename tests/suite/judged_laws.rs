//! Which laws judge what: the laws a subject declares as judging its harness (timelaw's own retry loop)
//! are marked in reports, and `timelaw subjects` lists per subject which laws a fixed sample judged
//! non-vacuously.

use timelaw::laws::Catalogue;
use timelaw::registry::Registry;
use timelaw::reports::render_table;
use timelaw::runner::Silent;
use timelaw::Config;

#[test]
fn loop_laws_are_catalogue_laws() {
    let catalogue = Catalogue::standard();
    for id in timelaw_adapters::LOOP_LAWS {
        assert!(catalogue.get(id).is_some(), "{id} is no catalogue law");
    }
}

/// The table of a small run of `subject` and its rows' harness marks.
fn table(subject: &str) -> (String, Vec<(String, bool)>) {
    let registry = Registry::builtin();
    let config = Config { cases: 200, seed: 0, threads: 1, shrink_evals_max: 1, ..Config::default() };
    let (report, _store) = registry.get(subject).unwrap().check(&Catalogue::standard(), &config, &Silent);
    let marks = report.laws.iter().map(|row| (row.id.clone(), row.judges_harness)).collect();
    (render_table(&report, false), marks)
}

#[track_caller]
fn check_marks(subject: &str, expect_marked: &[&str]) {
    let (text, marks) = table(subject);
    let marked: Vec<&str> = marks.iter().filter(|(_, marked)| *marked).map(|(id, _)| id.as_str()).collect();
    assert_eq!(marked, expect_marked, "{subject}");
    for id in expect_marked {
        assert!(text.contains(&format!("{id} (loop)")), "{subject}: {id} unmarked in\n{text}");
    }
    assert_eq!(text.contains("(loop): the law judges the retry loop"), !expect_marked.is_empty(), "{text}");
}

#[test]
fn reports_mark_the_laws_that_judge_the_loop() {
    let loop_laws = timelaw_adapters::LOOP_LAWS;
    check_marks("backon-exponential", loop_laws);
    check_marks("tokio-retry2-fixed", loop_laws);
    check_marks("exponential-backoff", loop_laws);
    // Driven end to end by the crate (backon's own `Retry`) or written as application code: nothing marked.
    check_marks("backon-retry", &[]);
    check_marks("tokio-timeout-loop", &[]);
    check_marks("reference", &[]);
}

#[test]
fn the_table_names_laws_never_judged_non_vacuously() {
    let (text, _) = table("tower-budget");
    let line = text.lines().find(|line| line.starts_with("never judged non-vacuously in this run: ")).unwrap();
    assert!(line.contains("circuit_open_rejects_without_dispatch"), "{line}");
    assert!(!line.contains("retry_budget_respected"), "{line}");
}

#[test]
fn subjects_lists_the_judged_laws_of_a_fixed_sample() {
    let text = timelaw::listing::subjects_listing(&Registry::builtin(), &Catalogue::standard());
    let block = |name: &str| -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.iter().position(|line| *line == name).unwrap_or_else(|| panic!("{name} missing:\n{text}"));
        lines[start + 1..].iter().take_while(|line| line.starts_with("  ")).map(|line| line.to_string()).collect()
    };
    let reference = block("reference");
    // Both elapsed-time-limit laws are judged (the domain draws `retry_elapsed_max`); a probe cancelled
    // while half-open, a deadline tied with a cancellation, a full bulkhead's refusal and its admission
    // below the limit are rarer than one case in 500: laws/tests/reference_keeps_every_law.rs and the
    // main job (100,000 cases) judge those on the reference. Overlapping calls are on by default, so
    // the load mechanisms' laws apply.
    let expected = [
        "  judged   54 of 58 laws non-vacuously in a fixed sample of 500 cases (seed 0)",
        "  vacuous  circuit_probe_slot_freed, interrupt_tie_as_declared, bulkhead_rejects_without_dispatch, \
         bulkhead_admits_below_limit",
    ];
    assert_eq!(reference, expected);
    let backon = block("backon-exponential");
    assert!(backon.iter().any(|line| line.starts_with("  n/a      timeout_translated_to_err, ")), "{backon:?}");
    let loop_line = format!("  loop     {}", timelaw_adapters::LOOP_LAWS.join(", "));
    assert!(backon.contains(&loop_line), "{backon:?}");
    assert!(!block("tokio-timeout-loop").iter().any(|line| line.starts_with("  loop")), "{text}");
    // The sample is fixed: the same text every time.
    assert_eq!(text, timelaw::listing::subjects_listing(&Registry::builtin(), &Catalogue::standard()));
}
