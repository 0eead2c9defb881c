//! `timelaw laws` grouped by mechanism, and `timelaw contract`: the real binary.

use std::process::{Command, Output};

use timelaw_laws::{ids, mechanism_of, Mechanism};

fn timelaw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timelaw"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("TIMELAW_SEED")
        .output()
        .expect("the timelaw binary runs")
}

#[track_caller]
fn check(args: &[&str], code: i32, stdout_has: &[&str], stderr_has: &[&str]) -> String {
    let output = timelaw(args);
    let (out, err) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(code), "{args:?}\nstdout:\n{out}\nstderr:\n{err}");
    for text in stdout_has {
        assert!(out.contains(text), "{args:?}: stdout lacks {text:?}:\n{out}");
    }
    for text in stderr_has {
        assert!(err.contains(text), "{args:?}: stderr lacks {text:?}:\n{err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    out.into_owned()
}

/// The table's rows as (mechanism cell, id cell).
fn rows(table: &str) -> Vec<(String, String)> {
    table
        .lines()
        .filter(|line| line.starts_with('│') && !line.contains("needs (contract fields)"))
        .map(|line| {
            let cells: Vec<&str> = line.split('┆').map(|cell| cell.trim_matches(['│', ' '])).collect();
            (cells[0].to_owned(), cells[1].to_owned())
        })
        .collect()
}

#[test]
fn laws_are_listed_by_mechanism_each_group_once_in_order() {
    let table = check(&["laws"], 0, &["42 laws", "needs (contract fields)"], &[]);
    let rows = rows(&table);
    assert_eq!(rows.len(), 42);
    let headers: Vec<&str> = rows.iter().map(|(group, _)| group.as_str()).filter(|group| !group.is_empty()).collect();
    assert_eq!(headers, Mechanism::ALL.map(Mechanism::name), "each group once, in order");
    let mut group = String::new();
    for (header, id) in &rows {
        if !header.is_empty() {
            group.clone_from(header);
        }
        assert_eq!(Some(group.as_str()), mechanism_of(id).map(Mechanism::name), "{id} in the wrong group");
    }
}

#[test]
fn laws_json_names_each_mechanism() {
    let json = check(&["laws", "--format", "json"], 0, &[], &[]);
    let laws: serde_json::Value = serde_json::from_str(&json).unwrap();
    let laws = laws.as_array().unwrap();
    let ids_listed: Vec<&str> = laws.iter().map(|law| law["id"].as_str().unwrap()).collect();
    assert_eq!(ids_listed, ids::ALL, "JSON keeps catalogue order");
    let mechanism = |id: &str| laws.iter().find(|law| law["id"] == id).unwrap()["mechanism"].clone();
    assert_eq!(mechanism(ids::HALF_OPEN_PROBE_LIMIT), "circuit");
    assert_eq!(mechanism(ids::RETRY_AFTER_HONORED), "rate_limit");
    assert_eq!(mechanism(ids::NEVER_PANICS), "meta");
}
