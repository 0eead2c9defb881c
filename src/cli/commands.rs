//! One function per command.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use timelaw_laws::Catalogue;
use timelaw_reports::{merge, parse_json, render_json, render_junit, render_table, render_timeline, Report};

use super::args::{CheckArgs, Command, Format, ListFormat, ReportCommand};
use super::bar::Bar;
use super::{CliError, EXIT_ERROR, EXIT_HOLDS, EXIT_VIOLATED};
use crate::config::{Config, Shard, StopAt};
use crate::fixture;
use crate::registry::Registry;
use crate::replay::replay_file;

/// Colour only on a terminal, and never when `NO_COLOR` is set.
fn color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

pub(super) fn dispatch(registry: &Registry, command: Command) -> Result<u8, CliError> {
    match command {
        Command::Check(args) => check(registry, args),
        Command::Laws { format } => laws(format),
        Command::Subjects => subjects(registry),
        Command::Replay { paths } => replay(registry, &paths),
        Command::Shrink { file } => shrink(registry, &file),
        Command::Explain { file } => explain(registry, &file),
        Command::ImportCrash { artifact, subject, fixtures } => import_crash(registry, &artifact, &subject, &fixtures),
        Command::Report { command: ReportCommand::Merge { files, format } } => merge_reports(&files, format),
    }
}

fn print_report(report: &Report, format: Format) {
    let text = match format {
        Format::Table => render_table(report, color()),
        Format::Json => render_json(report),
        Format::Junit => render_junit(report),
    };
    print!("{text}");
    if !text.ends_with('\n') {
        println!();
    }
}

fn check(registry: &Registry, args: CheckArgs) -> Result<u8, CliError> {
    let subject = registry.get(&args.subject).ok_or_else(|| {
        CliError(format!("unknown subject {:?} (known subjects: {})", args.subject, registry.names().join(", ")))
    })?;
    let catalogue = Catalogue::standard();
    let laws = if args.laws.is_empty() {
        catalogue
    } else {
        let ids: Vec<&str> = args.laws.iter().map(String::as_str).collect();
        catalogue.select(&ids)?
    };
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let config = Config {
        cases: args.cases,
        seed: args.seed,
        threads: args.threads,
        stop_at: if args.collect <= 1 { StopAt::First } else { StopAt::Collect(args.collect) },
        fixtures: args.fixtures,
        shard,
        ..Config::from_env()?
    };
    let report = subject.check(&laws, &config, &Bar::for_stderr());
    print_report(&report, args.format);
    Ok(report.exit_code())
}

fn laws(format: ListFormat) -> Result<u8, CliError> {
    let catalogue = Catalogue::standard();
    let text = match format {
        ListFormat::Table => crate::listing::laws_table(&catalogue),
        ListFormat::Json => crate::listing::laws_json(&catalogue),
    };
    println!("{text}");
    Ok(EXIT_HOLDS)
}

fn subjects(registry: &Registry) -> Result<u8, CliError> {
    print!("{}", crate::listing::subjects_listing(registry, &Catalogue::standard()));
    Ok(EXIT_HOLDS)
}

fn replay(registry: &Registry, paths: &[PathBuf]) -> Result<u8, CliError> {
    let laws = Catalogue::standard();
    let config = Config::from_env()?;
    let mut files = Vec::new();
    for path in paths {
        files.extend(fixture::list(path)?);
    }
    let (mut passed, mut failed, mut broken) = (0, 0, 0);
    for file in &files {
        match replay_file(registry, &laws, file, &config) {
            Ok(result) if result.passed => {
                passed += 1;
                println!("ok      {}  ({})", file.display(), result.explanation);
            }
            Ok(result) => {
                failed += 1;
                println!("FAILED  {}  law `{}`: {}", file.display(), result.law, result.explanation);
            }
            Err(error) => {
                broken += 1;
                println!("ERROR   {error}");
            }
        }
    }
    println!("{passed} passed, {failed} failed, {broken} errors, {} fixtures", files.len());
    Ok(match (failed, broken) {
        (_, 1..) => EXIT_ERROR,
        (1.., 0) => EXIT_VIOLATED,
        _ => EXIT_HOLDS,
    })
}

fn shrink(registry: &Registry, file: &Path) -> Result<u8, CliError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    let subject = registry.for_fixture(file, &header.subject)?;
    let written = subject.shrink_fixture(&Catalogue::standard(), file, &text, &Config::from_env()?)?;
    println!("{}", written.display());
    Ok(EXIT_HOLDS)
}

fn explain(registry: &Registry, file: &Path) -> Result<u8, CliError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    let subject = registry.for_fixture(file, &header.subject)?;
    let explanation = subject.explain(&Catalogue::standard(), file, &text, &Config::from_env()?)?;
    println!("{} on `{}`: {}", explanation.law.id, header.subject, explanation.law.title);
    if let Some(note) = &explanation.note {
        println!("note: {note}");
    }
    let violation = explanation.verdict.violation();
    print!("{}", render_timeline(&explanation.trace, violation, explanation.law.id, color()));
    println!("verdict: {}", explanation.verdict);
    Ok(if violation.is_some() { EXIT_VIOLATED } else { EXIT_HOLDS })
}

fn import_crash(registry: &Registry, artifact: &Path, name: &str, dir: &Path) -> Result<u8, CliError> {
    let subject = registry.get(name).ok_or_else(|| {
        CliError(format!("unknown subject {name:?} (known subjects: {})", registry.names().join(", ")))
    })?;
    let written = subject.import_crash(&Catalogue::standard(), artifact, dir, &Config::from_env()?)?;
    println!("{}", written.display());
    Ok(EXIT_HOLDS)
}

fn merge_reports(files: &[PathBuf], format: Format) -> Result<u8, CliError> {
    let mut reports = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|error| CliError(format!("{}: {error}", file.display())))?;
        reports.push(parse_json(&text).map_err(|error| CliError(format!("{}: {error}", file.display())))?);
    }
    let merged = merge(&reports)?;
    print_report(&merged, format);
    Ok(merged.exit_code())
}
