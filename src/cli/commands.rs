//! One function per command.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use timelaw_laws::Catalogue;
use timelaw_reports::{merge, parse_json, render_json, render_junit, render_table, render_timeline, Report};

use super::args::{CheckArgs, Command, ContractArgs, FixturesCommand, Format, ListFormat, ReportCommand, CLI_CASES};
use super::bar::{color_terminal, Bar};
use super::{CliError, EXIT_ERROR, EXIT_HOLDS, EXIT_VIOLATED};
use crate::config::{Config, StopAt, ENV_ALL, ENV_REPLAY, ENV_SHRINK};
use crate::fixture::{self, Placed};
use crate::registry::Registry;
use crate::replay::replay_file;
use crate::runner::StoreNotes;

/// Colour only on a terminal that is not `TERM=dumb`, and never when `NO_COLOR` is set.
fn color() -> bool {
    std::io::stdout().is_terminal() && color_terminal()
}

/// Writes `text` to stdout. A closed stdout is [`CliError::StdoutClosed`] (the command ends quietly),
/// any other write error a message.
fn out(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).map_err(|error| match error.kind() {
        std::io::ErrorKind::BrokenPipe => CliError::StdoutClosed,
        _ => CliError::Message(format!("cannot write to stdout: {error}")),
    })
}

/// [`out`] of `text` and a newline.
fn out_line(text: &str) -> Result<(), CliError> {
    out(&format!("{text}\n"))
}

pub(super) fn dispatch(registry: &Registry, command: Command) -> Result<u8, CliError> {
    match command {
        Command::Check(args) => check(registry, args),
        Command::Laws { format } => laws(format),
        Command::Subjects => subjects(registry),
        Command::Contract(args) => contract(registry, &args),
        Command::Replay { paths } => replay(registry, &paths),
        Command::Shrink { file, bless } => shrink(registry, &file, bless),
        Command::Explain { file } => explain(registry, &file),
        Command::ImportCrash { artifact, subject, fixtures, bless, concurrency } => {
            import_crash(registry, &artifact, &subject, &fixtures, bless, concurrency)
        }
        Command::Fixtures { command: FixturesCommand::Upgrade { paths } } => upgrade_fixtures(registry, &paths),
        Command::Report { command: ReportCommand::Merge { files, format } } => merge_reports(&files, format),
    }
}

fn print_report(report: &Report, format: Format) -> Result<(), CliError> {
    let mut text = match format {
        Format::Table => render_table(report, color()),
        Format::Json => render_json(report),
        Format::Junit => render_junit(report),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    out(&text)
}

fn check(registry: &Registry, args: CheckArgs) -> Result<u8, CliError> {
    let subject = registry.get(&args.subject).ok_or_else(|| {
        CliError::Message(format!(
            "unknown subject {:?} (known subjects: {})",
            args.subject,
            registry.names().join(", ")
        ))
    })?;
    let catalogue = Catalogue::standard();
    let laws = if args.laws.is_empty() {
        catalogue
    } else {
        let ids: Vec<&str> = args.laws.iter().map(String::as_str).collect();
        catalogue.select(&ids)?
    };
    let format = args.format;
    let config = check_config(args)?;
    let (report, store) = subject.check(&laws, &config, &Bar::for_stderr());
    report_store(&store)?;
    print_report(&report, format)?;
    Ok(report.exit_code())
}

/// The run's options: each flag given, else its `TIMELAW_*` variable, else the default; a variable whose
/// flag was given is not read.
fn check_config(args: CheckArgs) -> Result<Config, CliError> {
    let given = [
        ("TIMELAW_CASES", args.cases.is_some()),
        ("TIMELAW_SEED", args.seed.is_some()),
        ("TIMELAW_THREADS", args.threads.is_some()),
        ("TIMELAW_MAX_VIOLATIONS", args.collect.is_some()),
        ("TIMELAW_FIXTURES", args.fixtures.is_some()),
    ];
    let read: Vec<&str> = ENV_ALL
        .iter()
        .copied()
        .filter(|name| !given.iter().any(|(flag_var, given)| *given && flag_var == name))
        .collect();
    let mut config = Config { cases: CLI_CASES, ..Config::default() }.with_env_vars(&read)?;
    config.cases = args.cases.unwrap_or(config.cases);
    config.seed = args.seed.unwrap_or(config.seed);
    config.threads = args.threads.unwrap_or(config.threads);
    if let Some(k) = args.collect {
        config.stop_at = if k <= 1 { StopAt::First } else { StopAt::Collect(k) };
    }
    config.fixtures = args.fixtures.or(config.fixtures);
    config.shard = args.shard;
    config.bless = args.bless || config.bless;
    config.concurrency = args.concurrency || config.concurrency;
    config.validate()?;
    Ok(config)
}

fn laws(format: ListFormat) -> Result<u8, CliError> {
    let catalogue = Catalogue::standard();
    let text = match format {
        ListFormat::Table => crate::listing::laws_table(&catalogue),
        ListFormat::Json => crate::listing::laws_json(&catalogue),
    };
    out_line(&text)?;
    Ok(EXIT_HOLDS)
}

fn subjects(registry: &Registry) -> Result<u8, CliError> {
    out(&crate::listing::subjects_listing(registry, &Catalogue::standard()))?;
    Ok(EXIT_HOLDS)
}

fn unknown_subject(registry: &Registry, name: &str) -> CliError {
    CliError::Message(format!("unknown subject {name:?} (known subjects: {})", registry.names().join(", ")))
}

fn contract(registry: &Registry, args: &ContractArgs) -> Result<u8, CliError> {
    let subject = registry.get(&args.subject).ok_or_else(|| unknown_subject(registry, &args.subject))?;
    let text = crate::listing::contract_listing(subject, args.simplest, args.seed.unwrap_or(0), args.format)?;
    out(&text)?;
    Ok(EXIT_HOLDS)
}

/// The fixture files under `paths`; a path with none is an error.
fn fixture_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    for path in paths {
        let found = fixture::list(path)?;
        if found.is_empty() {
            return Err(CliError::Message(format!("{}: no fixture files (*.json) under it", path.display())));
        }
        files.extend(found);
    }
    Ok(files)
}

fn replay(registry: &Registry, paths: &[PathBuf]) -> Result<u8, CliError> {
    let laws = Catalogue::standard();
    let config = Config::default().with_env_vars(ENV_REPLAY)?;
    let files = fixture_files(paths)?;
    let (mut passed, mut failed, mut broken, mut warned) = (0, 0, 0, 0);
    for file in &files {
        let result = replay_file(registry, &laws, file, &config);
        if let Some(warning) = result.as_ref().ok().and_then(|result| result.outside_warning(file)) {
            eprintln!("{warning}");
        }
        match result {
            Ok(result) if result.outcome.is_warning() => {
                warned += 1;
                out_line(&format!("WARNING {}  law `{}`: {}", file.display(), result.law, result.explanation))?;
            }
            Ok(result) if result.passed => {
                passed += 1;
                out_line(&format!("ok      {}  ({})", file.display(), result.explanation))?;
            }
            Ok(result) => {
                failed += 1;
                out_line(&format!("FAILED  {}  law `{}`: {}", file.display(), result.law, result.explanation))?;
            }
            Err(error) => {
                broken += 1;
                eprintln!("ERROR   {error}");
            }
        }
    }
    let warnings = if warned > 0 { format!(", {warned} warnings") } else { String::new() };
    out_line(&format!("{passed} passed, {failed} failed, {broken} errors{warnings}, {} fixtures", files.len()))?;
    Ok(match (failed, broken) {
        (_, 1..) => EXIT_ERROR,
        (1.., 0) => EXIT_VIOLATED,
        _ => EXIT_HOLDS,
    })
}

/// `timelaw fixtures upgrade`: the one command that rewrites a user's files, because it is asked to.
fn upgrade_fixtures(registry: &Registry, paths: &[PathBuf]) -> Result<u8, CliError> {
    let files = fixture_files(paths)?;
    let (mut upgraded, mut current, mut broken) = (0, 0, 0);
    for file in &files {
        match upgrade_file(registry, file) {
            Ok(true) => {
                upgraded += 1;
                out_line(&format!("upgraded {}", file.display()))?;
            }
            Ok(false) => current += 1,
            Err(error) => {
                broken += 1;
                eprintln!("ERROR   {error} (left as it is)");
            }
        }
    }
    // A sequential fixture is current at SEQUENTIAL_VERSION, one with overlapping calls at VERSION.
    let (version, latest) = (fixture::SEQUENTIAL_VERSION, fixture::VERSION);
    out_line(&format!(
        "{upgraded} upgraded to version {version}, {current} already current (version {version}, or {latest} with \
         overlapping calls), {broken} errors, {} fixtures",
        files.len()
    ))?;
    Ok(if broken > 0 { EXIT_ERROR } else { EXIT_HOLDS })
}

/// Rewrites `file` in the current format when it is older (`true`), through a temporary file and a
/// rename of the real file behind any symbolic link; a file that does not parse is never written.
fn upgrade_file(registry: &Registry, file: &Path) -> Result<bool, fixture::FixtureError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    if header.version >= fixture::SEQUENTIAL_VERSION {
        return Ok(false);
    }
    let subject = registry.for_fixture(file, &header.subject)?;
    let Some(upgraded) = subject.upgrade(file, &text)? else {
        return Ok(false);
    };
    let real = std::fs::canonicalize(file).map_err(|error| fixture::FixtureError::io(file, error))?;
    fixture::write_atomic(&real, &upgraded)?;
    Ok(true)
}

/// Prints the store's notes on stderr; a write error ends the command (exit 2) before any report.
fn report_store(store: &StoreNotes) -> Result<(), CliError> {
    for note in &store.notes {
        eprintln!("timelaw: {note}");
    }
    match &store.error {
        Some(error) => Err(CliError::Message(format!("fixture not written: {error}"))),
        None => Ok(()),
    }
}

/// The path written, or the file that already pins the finding.
fn print_placed(placed: &Placed) -> Result<(), CliError> {
    match placed {
        Placed::Written(path) => out_line(&path.display().to_string()),
        Placed::AlreadyPinned(path) => out_line(&format!("already pinned by {}", path.display())),
    }
}

fn shrink(registry: &Registry, file: &Path, bless: bool) -> Result<u8, CliError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    let subject = registry.for_fixture(file, &header.subject)?;
    let config = Config::default().with_env_vars(ENV_SHRINK)?;
    let config = Config { bless: bless || config.bless, ..config };
    let placed = subject.shrink_fixture(&Catalogue::standard(), file, &text, &config)?;
    print_placed(&placed)?;
    Ok(EXIT_HOLDS)
}

fn explain(registry: &Registry, file: &Path) -> Result<u8, CliError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    let subject = registry.for_fixture(file, &header.subject)?;
    let config = Config::default().with_env_vars(ENV_REPLAY)?;
    let explanation = subject.explain(&Catalogue::standard(), file, &text, &config)?;
    let mut text = format!("{} on `{}`: {}\n", explanation.law.id, header.subject, explanation.law.title);
    if let Some(note) = &explanation.note {
        text.push_str(&format!("note: {note}\n"));
    }
    let violation = explanation.verdict.violation();
    text.push_str(&render_timeline(&explanation.trace, violation, explanation.law.id, color()));
    text.push_str(&format!("verdict: {}\n", explanation.verdict));
    out(&text)?;
    Ok(if violation.is_some() { EXIT_VIOLATED } else { EXIT_HOLDS })
}

fn import_crash(
    registry: &Registry,
    artifact: &Path,
    name: &str,
    dir: &Path,
    bless: bool,
    concurrency: bool,
) -> Result<u8, CliError> {
    let subject = registry.get(name).ok_or_else(|| {
        CliError::Message(format!("unknown subject {name:?} (known subjects: {})", registry.names().join(", ")))
    })?;
    let config = Config::default().with_env_vars(ENV_SHRINK)?;
    let config = Config { bless: bless || config.bless, concurrency, ..config };
    let placed = subject.import_crash(&Catalogue::standard(), artifact, dir, &config)?;
    print_placed(&placed)?;
    Ok(EXIT_HOLDS)
}

fn merge_reports(files: &[PathBuf], format: Format) -> Result<u8, CliError> {
    let mut reports = Vec::new();
    for file in files {
        let text =
            std::fs::read_to_string(file).map_err(|error| CliError::Message(format!("{}: {error}", file.display())))?;
        reports.push(parse_json(&text).map_err(|error| CliError::Message(format!("{}: {error}", file.display())))?);
    }
    let merged = merge(&reports)?;
    print_report(&merged, format)?;
    Ok(merged.exit_code())
}
