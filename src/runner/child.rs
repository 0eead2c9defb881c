//! Shrinking a hang in child processes: every candidate runs in a fresh process (the test binary or the
//! `timelaw` binary, run again), waited for with a bound and killed past it, so a candidate that hangs
//! never hangs the shrinker and its spinning thread dies with its process. Before shrinking, the case
//! found is run once in a child: a hang the child does not reproduce is a nondeterministic finding
//! (the watchdog saw a starved thread, not a loop), never shrunk and never written as a fact.
//!
//! # Protocol
//! The parent starts the same executable with [`ENV_CHILD`] set to [`CHILD_PROTOCOL`] and writes its
//! request (subject name, case, whether to replay) to the child's stdin; nothing touches the disk, so a
//! parent stopped mid-shrink leaves no file behind. In a test binary (the run was started from a
//! libtest thread, named after its test) the child gets `--exact TEST --nocapture --test-threads 1`,
//! so it runs that test only; anywhere else it gets the parent's own arguments. The child's first
//! [`run`](super::run) sees the variable, reads the request, evaluates the case under the watchdog,
//! prints its answer on stdout as one line starting with `timelaw-child-answer` (whatever else the test
//! prints is skipped) and exits. A child that is killed, exits without an answer, or answers for
//! another subject gives no violation, so its candidate is never kept.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::{Abort, Case, Subject, SubjectConfig, Trace, TraceEnd};
use timelaw_laws::{Law, Verdict};
use wait_timeout::ChildExt;

use super::counterexample::Nondeterminism;
use super::tally::Found;
use crate::config::Config;
use crate::eval::Evaluation;
use crate::watchdog::{evaluate_bounded, hung};

/// The variable that makes a run a child; timelaw sets it to [`CHILD_PROTOCOL`].
pub const ENV_CHILD: &str = "TIMELAW_CHILD_CASE";
/// The value of [`ENV_CHILD`] in a child: its request comes on stdin, its answer goes to stdout.
pub const CHILD_PROTOCOL: &str = "stdin-1";
/// How the child's answer line starts on its stdout (the trace as JSON follows on the same line).
const ANSWER_PREFIX: &str = "timelaw-child-answer ";
/// Exit code of a child asked about another subject than the one its run checks.
const EXIT_OTHER_SUBJECT: i32 = 3;
/// Exit code of a child whose request or answer could not be read or written.
const EXIT_IO: i32 = 4;
/// Time a child gets to start, on top of the case timeout, before it is killed.
const CHILD_START_MS: u64 = 10_000;

#[derive(Serialize, Deserialize)]
#[serde(bound = "C: SubjectConfig")]
struct Request<C> {
    subject: String,
    case: Case<C>,
    replay: bool,
}

#[derive(Serialize, Deserialize)]
struct Answer {
    trace: Trace,
}

/// In a child (with [`ENV_CHILD`] set to [`CHILD_PROTOCOL`]): answers the request on stdin and exits the
/// process. Returns at once otherwise; a variable with another value is ignored, with a note on stderr
/// (only timelaw sets it).
pub(super) fn serve_if_child<S: Subject + ?Sized>(subject: &S, config: &Config) {
    let Some(value) = std::env::var_os(ENV_CHILD) else { return };
    if value != CHILD_PROTOCOL {
        let value = value.to_string_lossy();
        eprintln!("timelaw: ignoring {ENV_CHILD}={value:?}: only timelaw sets it, for its own child processes");
        return;
    }
    let code = serve(subject, config);
    std::process::exit(code); // Also ends the thread of a case that hung in this child.
}

fn serve<S: Subject + ?Sized>(subject: &S, config: &Config) -> i32 {
    let mut text = String::new();
    if std::io::stdin().lock().read_to_string(&mut text).is_err() {
        return EXIT_IO;
    }
    let Ok(request) = serde_json::from_str::<Request<S::Config>>(&text) else { return EXIT_IO };
    if request.subject != subject.name() {
        return EXIT_OTHER_SUBJECT;
    }
    let evaluation = evaluate_bounded(subject, &request.case, config.limits, request.replay, config.case_timeout_ms);
    let Ok(answer) = serde_json::to_string(&Answer { trace: evaluation.trace }) else { return EXIT_IO };
    // On a line of its own: the test may have printed a partial line before.
    let mut out = std::io::stdout().lock();
    match writeln!(out, "\n{ANSWER_PREFIX}{answer}").and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => EXIT_IO,
    }
}

/// What became of one child.
enum Outcome {
    /// It answered with this trace.
    Answered(Box<Trace>),
    /// It was killed at the bound: a hang.
    Killed,
    /// It ended (or could not start) without an answer.
    NoAnswer,
}

/// How to start a child: this executable with the arguments that reach the same `run` again.
#[derive(Clone, Debug)]
pub struct Launcher {
    exe: PathBuf,
    args: Vec<OsString>,
}

impl Launcher {
    /// The launcher for a run started on this thread; `None` when the executable cannot be found.
    pub fn detect() -> Option<Launcher> {
        let exe = std::env::current_exe().ok()?;
        let args = match std::thread::current().name() {
            // libtest runs each test on a thread named after it.
            Some(test) if test != "main" => {
                ["--exact", test, "--nocapture", "--test-threads", "1"].into_iter().map(OsString::from).collect()
            }
            _ => std::env::args_os().skip(1).collect(),
        };
        Some(Launcher { exe, args })
    }

    /// Evaluates `case` in a child process, bounded by the case timeout plus `CHILD_START_MS` (10 s); a
    /// child killed at that bound is a hang.
    pub fn evaluate<S: Subject + ?Sized>(
        &self,
        subject: &S,
        case: &Case<S::Config>,
        replay: bool,
        config: &Config,
    ) -> Evaluation {
        match self.outcome(subject, case, replay, config) {
            Outcome::Answered(trace) => Evaluation {
                contract: subject.contract(&case.config),
                trace: *trace,
                replay: None,
                without_wall_jumps: None,
            },
            Outcome::Killed => hung(subject, case, config.case_timeout_ms),
            Outcome::NoAnswer => no_answer(subject, case),
        }
    }

    /// Runs the hang `found` once more in a child: `Some` when the child answered and its run does not
    /// violate `law` the same way (the hang did not reproduce), `None` when it hung again or gave no
    /// answer (nothing is known then).
    pub(super) fn rerun_hang<S: Subject + ?Sized>(
        &self,
        subject: &S,
        law: &Law,
        config: &Config,
        found: &Found<S::Config>,
    ) -> Option<Nondeterminism> {
        let replay = law.id == timelaw_laws::ids::DETERMINISTIC_REPLAY;
        let Outcome::Answered(trace) = self.outcome(subject, &found.case, replay, config) else { return None };
        let evaluation = Evaluation {
            contract: subject.contract(&found.case.config),
            trace: *trace,
            replay: None,
            without_wall_jumps: None,
        };
        let verdict = evaluation.judge(law, &found.case);
        if matches!(&verdict, Verdict::Violated(violation) if *violation == found.violation) {
            return None;
        }
        let first_difference = crate::eval::first_difference(&found.trace, &evaluation.trace);
        Some(Nondeterminism { rerun: verdict, first_difference })
    }

    /// Runs `case` in a child and waits for it, bounded by the case timeout plus `CHILD_START_MS` (10 s).
    fn outcome<S: Subject + ?Sized>(
        &self,
        subject: &S,
        case: &Case<S::Config>,
        replay: bool,
        config: &Config,
    ) -> Outcome {
        let request = Request { subject: subject.name().to_owned(), case: case.clone(), replay };
        let Ok(request) = serde_json::to_string(&request) else { return Outcome::NoAnswer };
        let child = Command::new(&self.exe)
            .args(&self.args)
            .env(ENV_CHILD, CHILD_PROTOCOL)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let Ok(child) = child else { return Outcome::NoAnswer };
        let bound = Duration::from_millis(config.case_timeout_ms.saturating_add(CHILD_START_MS));
        ask(child, request, bound)
    }
}

/// Writes `request` to the child's stdin and reads its stdout, each on a thread of its own (the child
/// reads its request before it answers, and a large answer must not fill the pipe), while waiting for
/// the child at most `bound`.
fn ask(mut child: Child, request: String, bound: Duration) -> Outcome {
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Outcome::NoAnswer;
    };
    // A child that never reads its stdin (another program, a test that does not run) makes the write
    // fail or block until the child ends; dropping `stdin` ends the request either way.
    let writer = std::thread::spawn(move || drop(stdin.write_all(request.as_bytes())));
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let waited = child.wait_timeout(bound);
    if !matches!(waited, Ok(Some(_))) {
        let _ = child.kill();
        let _ = child.wait();
        let _ = writer.join(); // Its stdout closed with it: the reader ends on its own.
        return if matches!(waited, Ok(None)) { Outcome::Killed } else { Outcome::NoAnswer };
    }
    let finished = waited.is_ok_and(|status| status.is_some_and(|status| status.success()));
    let _ = writer.join();
    let text = reader.join().unwrap_or_default();
    let answer = text.lines().rev().find_map(|line| line.strip_prefix(ANSWER_PREFIX));
    match answer.and_then(|json| serde_json::from_str::<Answer>(json).ok()) {
        Some(answer) if finished => Outcome::Answered(Box::new(answer.trace)),
        _ => Outcome::NoAnswer,
    }
}

/// The evaluation of a candidate whose child gave no answer: a run that refused its config, so no hang
/// (`terminates` holds on it, and only hangs are shrunk in child processes: it is never kept).
fn no_answer<S: Subject + ?Sized>(subject: &S, case: &Case<S::Config>) -> Evaluation {
    let mut trace = Trace::new();
    trace.end = TraceEnd::Aborted(Abort::InvalidConfig("the child process gave no answer".to_owned()));
    Evaluation { contract: subject.contract(&case.config), trace, replay: None, without_wall_jumps: None }
}
