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
    let table = check(&["laws"], 0, &["58 laws", "needs (contract fields)"], &[]);
    let rows = rows(&table);
    assert_eq!(rows.len(), 58);
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

#[test]
fn contract_prints_every_mechanism_for_seed_0_by_default() {
    let text = check(
        &["contract"],
        0,
        &["contract of reference for case 0 of `timelaw check --subject reference --seed 0`"],
        &[],
    );
    let headings: Vec<&str> =
        text.lines().filter(|line| !line.starts_with(' ') && line.contains(" laws apply)")).collect();
    assert_eq!(headings.len(), Mechanism::ALL.len(), "{text}");
    for (heading, mechanism) in headings.iter().zip(Mechanism::ALL) {
        assert!(heading.starts_with(&format!("{}: ", mechanism.name())), "{heading}");
    }
    assert_eq!(check(&["contract", "--seed", "0"], 0, &[], &[]), text, "seed 0 is the default");
    assert_eq!(check(&["contract", "--seed", "0x0"], 0, &[], &[]), text, "seeds in hex too");
    assert_eq!(check(&["contract"], 0, &[], &[]), text, "the same seed gives the same contract");
}

/// The config line (second line) of `timelaw contract ARGS`.
fn config_line(args: &[&str]) -> String {
    check(args, 0, &[], &[]).lines().nth(1).unwrap().trim().to_owned()
}

#[test]
fn contract_draws_the_config_of_case_0_of_the_seed_or_the_simplest() {
    let seeds: Vec<String> =
        ["0", "1", "2", "3"].iter().map(|seed| config_line(&["contract", "--seed", seed])).collect();
    assert!(seeds.windows(2).any(|pair| pair[0] != pair[1]), "different seeds draw different configs: {seeds:?}");
    let simplest = check(&["contract", "--simplest"], 0, &["for the simplest config of its domain"], &[]);
    let reference = timelaw_core::reference::Reference;
    let expected = serde_json::to_value(timelaw_generators::ConfigDomain::simplest_config(&reference)).unwrap();
    assert_eq!(simplest.lines().nth(1).unwrap().trim(), expected.to_string());
    let swarm = timelaw_generators::swarm_for(5, 0);
    let case_0 = timelaw_generators::sample_case(&reference, timelaw_core::mix(5, 0), &swarm);
    let expected = serde_json::to_value(case_0.config).unwrap().to_string();
    assert_eq!(config_line(&["contract", "--seed", "5"]), expected, "the config of case 0 of `check --seed 5`");
    let adapter =
        check(&["contract", "--subject", "tower-budget", "--seed", "3"], 0, &["contract of tower-budget"], &[]);
    assert!(adapter.contains("budget: stated"), "{adapter}");
}

#[test]
fn contract_json_holds_the_same_groups_as_the_text() {
    let text = check(&["contract", "--seed", "5"], 0, &[], &[]);
    let json = check(&["contract", "--seed", "5", "--format", "json"], 0, &[], &[]);
    let view: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(view["subject"], "reference");
    assert_eq!(view["config"].to_string(), text.lines().nth(1).unwrap().trim());
    let groups = view["groups"].as_array().unwrap();
    assert_eq!(groups.len(), Mechanism::ALL.len());
    for group in groups {
        let name =
            Mechanism::ALL.iter().find(|m| serde_json::to_value(m).unwrap() == group["mechanism"]).unwrap().name();
        let applying = group["laws_applying"].as_array().unwrap().len();
        let total = applying + group["laws_not_applying"].as_array().unwrap().len();
        let fields = group["fields"].as_array().unwrap();
        let heading = match fields.is_empty() {
            // A mechanism no field describes (meta) names no state.
            true => format!("{name}: ({applying} of {total} laws apply)"),
            false => format!("{name}: {} ({applying} of {total} laws apply)", group["state"].as_str().unwrap()),
        };
        assert!(text.lines().any(|line| line == heading), "{heading} not in\n{text}");
        for field in fields {
            let (field_name, state) = (field["name"].as_str().unwrap(), field["state"].as_str().unwrap());
            let line = text.lines().find(|line| line.split_whitespace().next() == Some(field_name)).unwrap();
            assert_eq!(line.split_whitespace().nth(1), Some(state), "{line}");
        }
    }
}

#[test]
fn contract_errors_are_one_line_and_exit_2() {
    let err = |args: &[&str], has: &str| {
        let output = timelaw(args);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(has), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
        stderr
    };
    let unknown =
        err(&["contract", "--subject", "nope"], "timelaw: error: unknown subject \"nope\" (known subjects: reference");
    assert_eq!(unknown.lines().count(), 1, "{unknown}");
    err(&["contract", "--seed", "1", "--simplest"], "cannot be used with");
    err(&["contract", "--seed", "banana"], "banana");
    err(&["contract", "--format", "junit"], "junit");
}
