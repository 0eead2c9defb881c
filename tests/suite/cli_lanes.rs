//! `timelaw explain` shows a trace whose calls overlap with one lane per call, and a sequential one as
//! before, on checked-in fixtures.

use std::process::Command;

/// The table rows of `timelaw explain FILE`, each as its trimmed cells.
fn rows(file: &str) -> (Vec<Vec<String>>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_timelaw"))
        .args(["explain", file])
        .env("NO_COLOR", "1")
        .output()
        .expect("the timelaw binary runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let rows = text
        .lines()
        .filter(|line| line.starts_with('│'))
        .map(|line| {
            let cells: Vec<String> = line.split(['│', '┆']).map(|cell| cell.trim().to_owned()).collect();
            cells[1..cells.len() - 1].to_vec()
        })
        .collect();
    (rows, text)
}

#[track_caller]
fn check(file: &str, expect: &[&[&str]]) {
    let (rows, text) = rows(file);
    for (row, expect) in rows.iter().zip(expect) {
        assert_eq!(row, expect, "{text}");
    }
}

/// Two calls arriving together under a bulkhead of one slot (a format version 3 fixture).
const OVERLAPPING: &str = "tests/fixtures/reference/attempts_within_max--reference--47ffc6ba087555c0.json";

#[test]
fn overlapping_calls_get_one_lane_each() {
    check(
        OVERLAPPING,
        &[
            &["", "seq", "at", "attempt", "delay", "call 0", "call 1"],
            &["", "0", "0ms", "", "", "call started", ""],
            &["", "1", "0ms", "", "", "⋮", "call started"],
            &["", "2", "0ms", "1", "", "⋮", "attempt 1 started"],
            &["", "3", "0ms", "", "", "queued for a bulkhead slot", "⋮"],
        ],
    );
    let (rows, text) = rows(OVERLAPPING);
    assert_eq!(rows.last().map(|row| row[5..].to_vec()), Some(vec!["call returned Ok".to_owned(), String::new()]));
    assert!(text.contains("lanes: one column per call"), "{text}");
}

#[test]
fn a_sequential_trace_keeps_one_column() {
    let file = "tests/fixtures/adapters/delay_within_cap--backon-exponential--ced5f7ec12e3ebae.json";
    check(
        file,
        &[&["", "seq", "at", "call", "attempt", "delay", "what"], &["", "0", "0ms", "0", "", "", "call started"]],
    );
    assert!(!rows(file).1.contains("lanes:"));
}
