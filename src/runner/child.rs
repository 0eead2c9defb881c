//! Shrinking a hang in child processes: every candidate runs in a fresh process (the test binary or the
//! `timelaw` binary, run again), waited for with a bound and killed past it, so a candidate that hangs
//! never hangs the shrinker and its spinning thread dies with its process.
//!
//! # Protocol
//! The parent writes a request (subject name, case, whether to replay) to a scratch file and starts the
//! same executable with [`ENV_CHILD`] naming it. In a test binary (the run was started from a libtest
//! thread, named after its test) the child gets `--exact TEST --nocapture --test-threads 1`, so it runs
//! that test only; anywhere else it gets the parent's own arguments. The child's first
//! [`run`](super::run) sees the variable, evaluates the case under the watchdog, writes the trace next to
//! the request and exits. A child that is killed, exits without an answer, or answers for another
//! subject gives no violation, so its candidate is never kept.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw_core::{Abort, Case, Subject, SubjectConfig, Trace, TraceEnd};
use wait_timeout::ChildExt;

use crate::config::Config;
use crate::eval::Evaluation;
use crate::watchdog::{evaluate_bounded, hung};

/// The variable that makes a run a child: the path of its request.
pub const ENV_CHILD: &str = "TIMELAW_CHILD_CASE";
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

/// In a child (with [`ENV_CHILD`] set): answers the request and exits the process. Returns at once
/// otherwise.
pub(super) fn serve_if_child<S: Subject + ?Sized>(subject: &S, config: &Config) {
    let Some(request) = std::env::var_os(ENV_CHILD) else { return };
    let code = serve(subject, config, Path::new(&request));
    std::process::exit(code); // Also ends the thread of a case that hung in this child.
}

fn serve<S: Subject + ?Sized>(subject: &S, config: &Config, path: &Path) -> i32 {
    let Ok(text) = std::fs::read_to_string(path) else { return EXIT_IO };
    let Ok(request) = serde_json::from_str::<Request<S::Config>>(&text) else { return EXIT_IO };
    if request.subject != subject.name() {
        return EXIT_OTHER_SUBJECT;
    }
    let evaluation = evaluate_bounded(subject, &request.case, config.limits, request.replay, config.case_timeout_ms);
    let Ok(answer) = serde_json::to_string(&Answer { trace: evaluation.trace }) else { return EXIT_IO };
    match std::fs::write(answer_path(path), answer) {
        Ok(()) => 0,
        Err(_) => EXIT_IO,
    }
}

fn answer_path(request: &Path) -> PathBuf {
    request.with_extension("answer.json")
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

    /// Evaluates `case` in a child process, bounded by the case timeout plus [`CHILD_START_MS`]; a
    /// child killed at that bound is a hang.
    pub fn evaluate<S: Subject + ?Sized>(
        &self,
        subject: &S,
        case: &Case<S::Config>,
        replay: bool,
        config: &Config,
    ) -> Evaluation {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!("timelaw-child-{}-{}.json", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let request_path = std::env::temp_dir().join(name);
        let request = Request { subject: subject.name().to_owned(), case: case.clone(), replay };
        let trace = match serde_json::to_string(&request) {
            Ok(text) if std::fs::write(&request_path, &text).is_ok() => self.ask(&request_path, config),
            _ => None,
        };
        let _ = std::fs::remove_file(&request_path);
        let _ = std::fs::remove_file(answer_path(&request_path));
        match trace {
            Some(Ok(trace)) => {
                Evaluation { contract: subject.contract(&case.config), trace, replay: None, without_wall_jumps: None }
            }
            Some(Err(())) => hung(subject, case, config.case_timeout_ms),
            None => no_answer(subject, case),
        }
    }

    /// Runs the child: `Some(Ok(trace))` with its answer, `Some(Err(()))` when it was killed at the
    /// bound, `None` when it ended without an answer.
    fn ask(&self, request: &Path, config: &Config) -> Option<Result<Trace, ()>> {
        let mut child = Command::new(&self.exe)
            .args(&self.args)
            .env(ENV_CHILD, request)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let bound = Duration::from_millis(config.case_timeout_ms.saturating_add(CHILD_START_MS));
        match child.wait_timeout(bound) {
            Ok(Some(status)) if status.success() => {}
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Some(Err(()));
            }
        }
        let text = std::fs::read_to_string(answer_path(request)).ok()?;
        serde_json::from_str::<Answer>(&text).ok().map(|answer| Ok(answer.trace))
    }
}

/// The evaluation of a candidate whose child gave no answer: inconclusive for every law (so never kept).
fn no_answer<S: Subject + ?Sized>(subject: &S, case: &Case<S::Config>) -> Evaluation {
    let mut trace = Trace::new();
    trace.end = TraceEnd::Aborted(Abort::InvalidConfig("the child process gave no answer".to_owned()));
    Evaluation { contract: subject.contract(&case.config), trace, replay: None, without_wall_jumps: None }
}
