//! One function per command.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use timelaw_laws::Catalogue;
use timelaw_reports::{merge, parse_json, render_json, render_junit, render_table, render_timeline, Report};

use super::args::{CheckArgs, Command, ContractArgs, FixturesCommand, Format, ListFormat, ReportCommand, CLI_CASES};
use super::bar::{color_terminal, Bar};
use super::{err_line, CliError, EXIT_ERROR, EXIT_HOLDS, EXIT_UNEXERCISED, EXIT_VIOLATED};
use crate::config::{Config, StopAt, ENV_ALL, ENV_REPLAY, ENV_SHRINK};
use crate::fixture::{self, printable, Placed};
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

/// [`out`] of `text` and a newline; `text` is one line, every value in it made [`printable`], so no
/// value from outside (a file name, a message from a file) can start a line of its own.
fn out_line(text: &str) -> Result<(), CliError> {
    out(&format!("{}\n", printable(text)))
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
        Command::ImportCrash { artifact, subject, fixtures, bless, concurrency, law, known } => {
            let how = Import { bless, concurrency, law: law.as_deref(), known: known.as_deref() };
            import_crash(registry, &artifact, &subject, &fixtures, how)
        }
        Command::Fixtures { command: FixturesCommand::Upgrade { paths } } => upgrade_fixtures(registry, &paths),
        Command::Report { command: ReportCommand::Merge { files, format } } => merge_reports(&files, format),
    }
}

fn print_report(report: &Report, format: Format) -> Result<(), CliError> {
    let mut text = match format {
        Format::Table => render_table(&printable_report(report), color()),
        Format::Json => render_json(report),
        Format::Junit => render_junit(report),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    out(&text)
}

/// `report` with every text that may come from outside (paths, names, messages) made [`printable`], for
/// the table (JSON and JUnit escape by their own rules).
fn printable_report(report: &Report) -> Report {
    let shown = |text: &mut String| *text = printable(text).into_owned();
    let mut report = report.clone();
    shown(&mut report.subject);
    report.swarm.iter_mut().for_each(shown);
    for row in &mut report.laws {
        row.fixture.iter_mut().for_each(shown);
        row.violation.iter_mut().for_each(|violation| shown(&mut violation.message));
        row.first_inconclusive.iter_mut().for_each(|first| shown(&mut first.reason));
    }
    report
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
    refuse_foreign_child_request()?;
    let (report, store) = subject.check(&laws, &config, &Bar::for_stderr());
    report_store(&store)?;
    print_report(&report, format)?;
    let unexercised = config.require_judged && !report.barely_exercised().is_empty();
    Ok(match report.exit_code() {
        EXIT_HOLDS if unexercised => EXIT_UNEXERCISED,
        code => code,
    })
}

/// `TIMELAW_CHILD_CASE` is timelaw's own: it makes a run the child process that evaluates one candidate
/// of a hang being shrunk, and such a run ends at once with a code for its parent only. Set by hand (or
/// left over in a shell), it would end `check` without a word; unless it names a request a parent wrote,
/// it is an error that says so.
fn refuse_foreign_child_request() -> Result<(), CliError> {
    let Some(value) = std::env::var_os(crate::runner::ENV_CHILD) else { return Ok(()) };
    let path = std::path::Path::new(&value);
    let request = std::fs::read_to_string(path).ok().and_then(|text| serde_json::from_str(&text).ok());
    let is_request =
        |value: &serde_json::Value| ["subject", "case", "replay"].iter().all(|key| value.get(key).is_some());
    if request.as_ref().is_some_and(is_request) {
        return Ok(());
    }
    Err(CliError::Message(format!(
        "{} is set (to {:?}) but names no request timelaw wrote: it is timelaw's own variable for the child \
         processes that shrink a hang; unset it",
        crate::runner::ENV_CHILD,
        value.to_string_lossy()
    )))
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
        ("TIMELAW_SWARM_ON", !args.swarm_on.is_empty()),
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
    config.concurrency = (args.concurrency || config.concurrency) && !args.sequential;
    config.require_judged = args.require_judged || config.require_judged;
    if !args.swarm_on.is_empty() {
        config.swarm_on = args.swarm_on;
    }
    config.validate()?;
    Ok(config)
}

fn laws(format: ListFormat) -> Result<u8, CliError> {
    let catalogue = Catalogue::standard();
    let text = match format {
        ListFormat::Table => crate::listing::laws_table(&catalogue),
        ListFormat::Json => crate::listing::laws_json(&catalogue),
    };
    out(&format!("{text}\n"))?; // Timelaw's own text, many lines.
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

/// The fixture files under `paths`, each real file once (a file given twice, or under two names, hard
/// links included, is read and counted once: under the first name found); a path with none is an error.
fn fixture_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        let found = fixture::list(path)?;
        if found.is_empty() {
            return Err(CliError::Message(format!("{}: no fixture files (*.json) under it", fixture::shown(path))));
        }
        files.extend(found.into_iter().filter(|file| seen.insert(file_identity(file))));
    }
    Ok(files)
}

/// What makes two paths one file: device and inode where the platform says, else the canonical path
/// (the path itself when it cannot be resolved).
fn file_identity(path: &Path) -> (u64, u64, PathBuf) {
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::MetadataExt;
        return (meta.dev(), meta.ino(), PathBuf::new());
    }
    (0, 0, std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned()))
}

fn replay(registry: &Registry, paths: &[PathBuf]) -> Result<u8, CliError> {
    let laws = Catalogue::standard();
    let config = Config::default().with_env_vars(ENV_REPLAY)?;
    let files = fixture_files(paths)?;
    let (mut passed, mut failed, mut broken, mut warned, mut skipped) = (0, 0, 0, 0, 0);
    for file in &files {
        let result = replay_file(registry, &laws, file, &config);
        if let Some(warning) = result.as_ref().ok().and_then(|result| result.outside_warning(file)) {
            err_line(&warning);
        }
        match result {
            Ok(result) if result.outcome.is_skip() => {
                skipped += 1;
                out_line(&format!("SKIPPED {}  law `{}`: {}", file.display(), result.law, result.explanation))?;
            }
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
                err_line(&format!("ERROR   {error}"));
            }
        }
    }
    let mut warnings = if warned > 0 { format!(", {warned} warnings") } else { String::new() };
    if skipped > 0 {
        warnings.push_str(&format!(", {skipped} skipped (another build profile)"));
    }
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
                err_line(&format!("ERROR   {error} (left as it is)"));
            }
        }
    }
    // A sequential fixture is current at SEQUENTIAL_VERSION, one with overlapping calls at
    // CONCURRENT_VERSION, one that states its build profile at PROFILE_VERSION, one that ran with virtual
    // std clocks at VERSION.
    let (version, concurrent) = (fixture::SEQUENTIAL_VERSION, fixture::CONCURRENT_VERSION);
    let (profile, latest) = (fixture::PROFILE_VERSION, fixture::VERSION);
    out_line(&format!(
        "{upgraded} upgraded to version {version}, {current} already current (version {version}, {concurrent} with \
         overlapping calls, {profile} with a build profile, {latest} with virtual std clocks), {broken} errors, {} \
         fixtures",
        files.len()
    ))?;
    Ok(if broken > 0 { EXIT_ERROR } else { EXIT_HOLDS })
}

/// Rewrites `file` in the current format when it is older (`true`), through a temporary file and a
/// rename of the real file behind any symbolic link; a file that does not parse is never written.
///
/// Every file is read whole and strictly, as replay reads it (its subject's config type, a law of the
/// catalogue), current or not: a file replay would reject is an error here too, never "already current".
fn upgrade_file(registry: &Registry, file: &Path) -> Result<bool, fixture::FixtureError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    let subject = registry.for_fixture(file, &header.subject)?;
    let upgraded = subject.upgrade(file, &text)?;
    if Catalogue::standard().get(&header.law).is_none() {
        return Err(fixture::FixtureError::UnknownLaw { path: file.to_owned(), id: header.law });
    }
    let Some(upgraded) = upgraded else {
        return Ok(false);
    };
    let real = std::fs::canonicalize(file).map_err(|error| fixture::FixtureError::io(file, error))?;
    fixture::write_atomic(&real, &upgraded)?;
    Ok(true)
}

/// Prints the store's notes on stderr; a write error ends the command (exit 2) before any report.
fn report_store(store: &StoreNotes) -> Result<(), CliError> {
    for note in &store.notes {
        err_line(&format!("timelaw: {note}"));
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
    let placed = match subject.shrink_fixture(&Catalogue::standard(), file, &text, &config) {
        Ok(placed) => placed,
        Err(crate::registry::OperationError::Hangs { path, timeout_ms }) => {
            return Err(hang_not_shrunk(&path, timeout_ms))
        }
        Err(error) => return Err(error.into()),
    };
    print_placed(&placed)?;
    Ok(EXIT_HOLDS)
}

/// Why `timelaw shrink` leaves a hang as it is, and what does shrink one.
fn hang_not_shrunk(path: &Path, timeout_ms: u64) -> CliError {
    CliError::Message(format!(
        "{}: the case hangs (no progress for {timeout_ms} ms). `timelaw shrink` runs candidates in its own \
         process, where a hung one could never be stopped, so it does not shrink hangs; `timelaw check` \
         shrinks the hangs it finds, each candidate in a child process. The fixture is left as it is and \
         still pins the hang (replay checks it); if the case is only slow, a longer \
         TIMELAW_CASE_TIMEOUT_MS lets it finish",
        fixture::shown(path)
    ))
}

fn explain(registry: &Registry, file: &Path) -> Result<u8, CliError> {
    let text = fixture::read_text(file)?;
    let header = fixture::parse_header(file, &text)?;
    let subject = registry.for_fixture(file, &header.subject)?;
    let config = Config::default().with_env_vars(ENV_REPLAY)?;
    let explanation = subject.explain(&Catalogue::standard(), file, &text, &config)?;
    let subject = printable(&header.subject);
    let mut text = format!("{} on `{subject}`: {}\n", explanation.law.id, explanation.law.title);
    if let Some(note) = &explanation.note {
        text.push_str(&format!("note: {}\n", printable(note)));
    }
    let violation = explanation.verdict.violation();
    text.push_str(&render_timeline(&explanation.trace, violation, explanation.law.id, color()));
    text.push_str(&format!("verdict: {}\n", explanation.verdict));
    out(&text)?;
    Ok(if violation.is_some() { EXIT_VIOLATED } else { EXIT_HOLDS })
}

/// How `timelaw import-crash` imports: its flags.
struct Import<'a> {
    bless: bool,
    concurrency: bool,
    /// The law the crash names (`--law`), if given.
    law: Option<&'a str>,
    /// The folder of known violations to compare the finding with (`--known`), if given.
    known: Option<&'a Path>,
}

fn import_crash(registry: &Registry, artifact: &Path, name: &str, dir: &Path, how: Import<'_>) -> Result<u8, CliError> {
    let subject = registry.get(name).ok_or_else(|| {
        CliError::Message(format!("unknown subject {name:?} (known subjects: {})", registry.names().join(", ")))
    })?;
    let config = Config::default().with_env_vars(ENV_SHRINK)?;
    let config = Config { bless: how.bless || config.bless, concurrency: how.concurrency, ..config };
    let laws = match how.law {
        Some(law) => {
            Catalogue::standard().select(&[law]).map_err(|error| CliError::Message(format!("--law: {error}")))?
        }
        None => Catalogue::standard(),
    };
    let placed = subject.import_crash(&laws, artifact, dir, &config)?;
    print_placed(&placed)?;
    match how.known {
        Some(known) => known_or_new(&placed, known),
        None => Ok(EXIT_HOLDS),
    }
}

/// `import-crash --known DIR`: whether the imported finding (the fixture `placed` names) is a case
/// pinned as a known violation under `known` (exit 0) or not (exit 1: a new finding, or another minimum of
/// a pinned finding's class, which a person must tell from a new bug), said in one line.
fn known_or_new(placed: &Placed, known: &Path) -> Result<u8, CliError> {
    let (Placed::Written(path) | Placed::AlreadyPinned(path)) = placed;
    let imported: fixture::Fixture<serde_json::Value> = fixture::parse(path, &fixture::read_text(path)?)?;
    let (law, subject) = (&imported.law, &imported.subject);
    let case = serde_json::to_value(&imported.case).map_err(|error| fixture::FixtureError::parse(path, &error))?;
    let standing = match imported.verdict.violation() {
        Some(violation) => crate::known::known_in(known, subject, law, violation, &case)?,
        None => crate::known::KnownIn::New,
    };
    let (line, code) = match standing {
        crate::known::KnownIn::Case(pinned) => {
            (format!("known: the case pinned by {} ({law} against {subject})", pinned.display()), EXIT_HOLDS)
        }
        crate::known::KnownIn::Class(pinned) => (
            format!(
                "new: another minimum of the class pinned by {} ({law} against {subject}, a message of the same \
                 class at another case): another case of that finding, or another bug of the same kind; review it",
                pinned.display()
            ),
            EXIT_VIOLATED,
        ),
        crate::known::KnownIn::New => (
            format!(
                "new: no known_violation fixture under {} pins {law} against {subject} with a message of this class",
                known.display()
            ),
            EXIT_VIOLATED,
        ),
    };
    out_line(&line)?;
    Ok(code)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hang_given_to_shrink_is_explained_with_what_shrinks_it() {
        let CliError::Message(message) = hang_not_shrunk(Path::new("a\nb.json"), 2000) else { panic!() };
        assert!(message.starts_with("a\\nb.json: the case hangs (no progress for 2000 ms)"), "{message}");
        assert!(message.contains("`timelaw check` shrinks the hangs it finds"), "{message}");
        assert!(message.contains("TIMELAW_CASE_TIMEOUT_MS"), "{message}");
    }
}
