//! Hangs in pure code: a subject that loops without calling the World is caught by the per-case
//! watchdog as a `terminates` violation ("no progress for N ms"), its raw counterexample is written at
//! once, the run goes on without the hung thread, and every case that does not hang is judged as it
//! would be without the watchdog. The case timeout here is 200 ms (the default is 2,000 ms), so the
//! tests stay short in CI.

use std::path::PathBuf;

mod common;

use common::hangs::{Spin, SpinConfig};
use timelaw::config::Shard;
use timelaw::laws::Catalogue;
use timelaw::runner::{run, RunOutput, Silent};
use timelaw::Config;

/// The case timeout of these tests.
const TIMEOUT_MS: u64 = 200;

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("timelaw-hangs-{}-{name}", std::process::id()))
}

fn check_run(subject: &Spin, shard: Option<Shard>, threads: usize, fixtures: Option<PathBuf>) -> RunOutput<SpinConfig> {
    let laws = Catalogue::standard();
    let config =
        Config { cases: 100_000, shard, threads, seed: 7, case_timeout_ms: TIMEOUT_MS, fixtures, ..Config::default() };
    run(subject, &laws, &config, &Silent)
}

/// The one normal run of 100,000 cases of the planted hang (shared by the tests: each hang it meets
/// leaves a thread spinning until the test process ends), with its fixture written into a scratch
/// folder.
fn planted_run() -> &'static RunOutput<SpinConfig> {
    static OUTPUT: std::sync::OnceLock<RunOutput<SpinConfig>> = std::sync::OnceLock::new();
    OUTPUT.get_or_init(|| check_run(&Spin { planted: true }, None, 2, Some(scratch("found"))))
}

/// The hang the planted run kept for `terminates`.
fn planted_hang() -> &'static timelaw::runner::Counterexample<SpinConfig> {
    let law = planted_run().laws.iter().find(|law| law.law.id == "terminates").unwrap();
    law.counterexamples.first().expect("the hang is found in 100,000 cases")
}

#[test]
fn a_pure_loop_is_a_terminates_violation_and_the_run_goes_on() {
    let (output, found) = (planted_run(), planted_hang());
    assert_eq!(found.violation.message, format!("no progress for {TIMEOUT_MS} ms"));
    assert!(found.hang);
    assert!((1..=7).contains(&found.found.config.delay.as_nanos()), "{:?}", found.found);
    // Every case was judged by every law, the hung ones included.
    assert!(output.laws.iter().all(|law| law.counts.cases == 100_000));
    assert!(output.abandoned_threads >= 1);
    let written = found.fixture.clone().expect("a fixture is written");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.contains("no progress for 200 ms"), "{text}");
}

/// The canonical minimum of the planted hang: one retry after 1 ns (the smallest delay whose pacing step
/// is zero), one instant transient failure, seed 0.
fn minimum() -> timelaw::core::Case<SpinConfig> {
    use timelaw::core::{Case, Outcome, Schedule, Step, VDuration};
    let config = SpinConfig { max_attempts: 2, delay: VDuration::from_nanos(1) };
    Case::new(config, Schedule::single(vec![Step::instant(Outcome::Transient)]), 0)
}

fn terminates_of(counts: &[(&str, timelaw::reports::Counts)]) -> u64 {
    counts.iter().find(|(id, _)| *id == "terminates").map(|(_, counts)| counts.violated).unwrap()
}

#[test]
fn the_same_seed_gives_the_same_verdicts_on_every_case_that_does_not_hang() {
    // The thousand cases around the hang the planted run found (shard 1/100 is cases 0..1000).
    let index = u32::try_from(planted_hang().case_index / 1_000).unwrap();
    let shard = Some(Shard { index: index + 1, count: 100 });
    let run_counts = |planted, threads| {
        let output = check_run(&Spin { planted }, shard, threads, None);
        let counts: Vec<_> = output.laws.iter().map(|law| (law.law.id, law.counts)).collect();
        (counts, output.abandoned_threads)
    };
    let (one, hung_one) = run_counts(true, 1);
    let (three, hung_three) = run_counts(true, 3);
    assert_eq!((&one, hung_one), (&three, hung_three), "the same verdicts on 1 and 3 threads");
    assert!(hung_one > 0, "the shard holds the hang");
    // Against the correct subject, only the hung cases differ: each is a `terminates` violation.
    let (correct, hung_correct) = run_counts(false, 2);
    assert_eq!(hung_correct, 0);
    assert_eq!(terminates_of(&one), terminates_of(&correct) + hung_one);
}

/// The planted hang's fixture, checked in under tests/fixtures/planted/ as a `known_violation` and
/// replayed by tests/replay.rs (under the watchdog's default 2,000 ms there). `TIMELAW_BLESS=1`
/// rewrites it.
#[test]
fn the_hang_is_pinned_as_a_known_violation() {
    let bless = common::bless::bless();
    let found = planted_hang();
    // Shrunk in child processes (this test binary, run again per candidate) to the exact minimum.
    assert_eq!(found.shrunk, minimum());
    assert!(found.shrink_evaluations > 0);
    let written = found.fixture.clone().expect("a fixture is written");
    let mut fixture: timelaw::fixture::Fixture<SpinConfig> =
        serde_json::from_str(&std::fs::read_to_string(&written).unwrap()).unwrap();
    assert!(fixture.provenance.shrunk);
    fixture.status = timelaw::fixture::Status::KnownViolation;
    fixture.note = Some("planted hang: the subject spins in pure code on delays of 1 to 7 ns".to_owned());
    let expected_text = format!("{}\n", serde_json::to_string_pretty(&fixture).unwrap());
    let target = std::path::Path::new("tests/fixtures/planted").join(written.file_name().unwrap());
    if bless {
        std::fs::write(&target, &expected_text).unwrap();
    }
    let checked_in = std::fs::read_to_string(&target).unwrap_or_default();
    assert_eq!(checked_in, expected_text, "{} is stale; rerun with TIMELAW_BLESS=1", target.display());
}

/// A libFuzzer `-timeout` artifact (`timeout-<sha>`) imports like a crash: the watchdog bounds the run,
/// and the fixture pins "no progress for N ms".
#[test]
fn a_libfuzzer_timeout_artifact_imports_like_a_crash() {
    let subject = Spin { planted: true };
    let mut rng = timelaw::core::SplitMix64::new(13);
    let bytes = (0..100_000)
        .map(|_| (0..64).map(|_| rng.next_u64() as u8).collect::<Vec<u8>>()) // the low byte: truncation meant
        .find(|bytes| {
            let case = timelaw::generators::arbitrary_case(&subject, bytes);
            let first = case.schedule.calls.first().filter(|call| call.cancel_after.is_none());
            let first = first.map(|call| call.step(1).outcome);
            let delay_ns = case.config.delay.as_nanos();
            case.config.max_attempts >= 2
                && first == Some(timelaw::core::Outcome::Transient)
                && (1..=7).contains(&delay_ns)
        })
        .expect("a byte string that decodes to a hanging case");
    let dir = scratch("timeout-artifact");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let artifact = dir.join("timeout-5bd1e1a2c0ffee00");
    std::fs::write(&artifact, &bytes).unwrap();
    let registry = timelaw::Registry::new().with(subject);
    let dyn_subject = registry.get("planted-spins-forever").unwrap();
    // Found with the sequential decoding (`arbitrary_case`): imported as a sequential target's artifact.
    let config = Config { case_timeout_ms: TIMEOUT_MS, concurrency: false, ..Config::default() };
    let placed = dyn_subject.import_crash(&Catalogue::standard(), &artifact, &dir, &config).unwrap();
    let text = std::fs::read_to_string(placed.path()).unwrap();
    assert!(text.contains("\"law\": \"terminates\""), "{text}");
    assert!(text.contains("no progress for 200 ms"), "{text}");
    assert!(text.contains("\"source\": \"fuzz\""), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The message of a busy-wait stopped at the default idle-call limit.
const BUSY_WAIT: &str = "stopped at the step limit (65536 clock reads and random draws in a row, with no event and \
                         no clock move): the documented default, far above what a correct subject needs";

/// A busy-wait on the World's clock (sync and tokio) and a tokio deadlock: each violates `terminates`,
/// stops without the watchdog (no thread abandoned) and shrinks to its simplest case: one retry after 1
/// ns behind a transient failure, or one fatal answer.
#[test]
fn a_busy_wait_and_a_deadlock_violate_terminates_and_shrink_to_one_step() {
    use common::hangs::Waiting::{BusyWait, BusyWaitTokio, DeadlockTokio};
    use timelaw::core::Outcome::{Fatal, Transient};
    let deadlock = "call 0 waits for nothing that can wake it (no timer pending, no task ready): a deadlock";
    check_waits(BusyWait, 30, BUSY_WAIT, (2, 1, Transient));
    check_waits(BusyWaitTokio, 30, BUSY_WAIT, (2, 1, Transient));
    check_waits(DeadlockTokio, 200, deadlock, (1, 0, Fatal));
}

#[track_caller]
fn check_waits(
    waiting: common::hangs::Waiting,
    cases: u64,
    message: &str,
    minimum: (u32, u64, timelaw::core::Outcome),
) {
    use timelaw::core::{Case, Schedule, Step, VDuration};
    let output = timelaw::check(&common::hangs::Waits(waiting)).cases(cases).seed(3).env(false).run();
    let law = output.laws.iter().find(|law| law.law.id == "terminates").unwrap();
    let found = law.counterexamples.first().unwrap_or_else(|| panic!("{waiting:?} is found"));
    assert_eq!(found.violation.message, message, "{waiting:?}");
    let (max_attempts, delay_ns, outcome) = minimum;
    let config = SpinConfig { max_attempts, delay: VDuration::from_nanos(delay_ns) };
    let expect = Case::new(config, Schedule::single(vec![Step::instant(outcome)]), 0);
    assert_eq!(found.shrunk, expect, "{waiting:?}");
    assert_eq!(output.abandoned_threads, 0, "{waiting:?} is stopped by the World or the driver, not the watchdog");
}

/// More hangs than `ABANDONED_MAX` in one run, each in a loop an abandoned thread leaves at once (a
/// busy-wait on the clock parks at its next read; a tokio task that yields parks between two polls):
/// every abandoned worker is replaced and every case is judged.
#[test]
fn abandoned_threads_that_park_are_replaced_and_every_case_is_judged() {
    use timelaw::core::Limits;
    use timelaw::runner::ABANDONED_MAX;
    for tokio in [false, true] {
        let limits = Limits { idle_calls_max: u32::MAX, ..Limits::default() };
        let config = Config { cases: 150, threads: 2, seed: 11, case_timeout_ms: 50, limits, ..Config::default() };
        let config = Config { shrink_evals_max: 2, ..config }; // Each evaluation of a hang is a child process.
        let output = run(&common::hangs::Parks { tokio }, &Catalogue::standard(), &config, &Silent);
        assert!(output.abandoned_threads > ABANDONED_MAX, "tokio {tokio}: {} abandoned", output.abandoned_threads);
        assert!(output.laws.iter().all(|law| law.counts.cases == 150), "tokio {tokio}: every case is judged");
        let terminates = output.laws.iter().find(|law| law.law.id == "terminates").unwrap();
        assert_eq!(terminates.counts.violated, output.abandoned_threads, "tokio {tokio}");
        assert_eq!(terminates.counts.inconclusive, 0, "tokio {tokio}: {:?}", terminates.inconclusive);
    }
}

/// A shrink candidate that loops in pure code (a delay below 8 ns) is cut by the watchdog and rejected,
/// so shrinking never freezes the run and its minimum never hangs; a shrink stops after
/// `SHRINK_HANGS_MAX` such candidates (each leaves a thread spinning).
#[test]
fn a_shrink_candidate_that_hangs_is_cut_and_rejected() {
    use common::hangs::OneTooMany;
    use timelaw::shrink::{shrink_bounded, ShrinkBudget, SHRINK_HANGS_MAX};
    let timeout_ms = 50;
    let check = timelaw::check(&OneTooMany).cases(20).seed(5).case_timeout_ms(timeout_ms).env(false);
    let output = check.only_laws(&["attempts_within_max"]).run();
    assert_eq!(output.abandoned_threads, 0, "the search meets no hang");
    let law = &output.laws[0];
    let found = law.counterexamples.first().expect("one attempt too many is found");
    assert!(found.shrunk.config.delay.as_nanos() >= 8, "a hanging candidate was kept: {:?}", found.shrunk);
    let limits = timelaw::core::Limits::default();
    let shrunk =
        shrink_bounded(&OneTooMany, &law.law, found.found.clone(), ShrinkBudget::default(), limits, timeout_ms);
    let shrunk = shrunk.expect("the case found violates the law");
    assert_eq!((shrunk.hung_candidates, shrunk.exhausted), (SHRINK_HANGS_MAX, true));
    assert!(shrunk.case.config.delay.as_nanos() >= 8, "{:?}", shrunk.case);
}

/// Busy-waits on the clock (parking when abandoned) in the process that searches, never in a child
/// process: a hang as a starved CPU makes one, which a re-run does not reproduce.
#[derive(Clone, Copy)]
struct HangsInParentOnly;

impl timelaw::core::Subject for HangsInParentOnly {
    type Config = ();
    fn name(&self) -> &str {
        "hangs-in-parent-only"
    }
    fn contract(&self, _config: &()) -> timelaw::core::Contract {
        timelaw::core::Contract::default()
    }
    fn run(&self, _config: &(), world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        let in_child = std::env::var_os(timelaw::runner::ENV_CHILD).is_some();
        world.for_each_call(|world, _call| {
            for _ in 0..common::hangs::PARKS_READS_MAX {
                if in_child {
                    break;
                }
                world.read_now()?.ok();
            }
            Ok(timelaw::core::CallResult::Ok)
        })
    }
}

impl timelaw::generators::Describe for HangsInParentOnly {
    fn describe<C: timelaw::generators::Choices + ?Sized>(&self, _c: &mut C, _swarm: &timelaw::generators::Swarm) {}
}

/// A hang that a child process does not reproduce is a `nondeterministic` finding, never shrunk, and its
/// fixture says so.
#[test]
fn a_hang_a_child_does_not_reproduce_is_nondeterministic() {
    let dir = scratch("not-reproduced");
    let _ = std::fs::remove_dir_all(&dir);
    let limits = timelaw::core::Limits { idle_calls_max: u32::MAX, ..timelaw::core::Limits::default() };
    let config =
        Config { cases: 1, threads: 1, case_timeout_ms: 50, limits, fixtures: Some(dir.clone()), ..Config::default() };
    let output = run(&HangsInParentOnly, &Catalogue::standard(), &config, &Silent);
    let law = output.laws.iter().find(|law| law.law.id == "terminates").unwrap();
    let found = law.counterexamples.first().expect("the search saw a hang");
    assert!(found.hang);
    let flaky = found.nondeterministic.as_ref().expect("the child did not reproduce it");
    assert_eq!(flaky.rerun, timelaw::laws::Verdict::Holds);
    assert_eq!(found.shrink_evaluations, 0, "never shrunk");
    let text = std::fs::read_to_string(found.fixture.as_ref().expect("a fixture")).unwrap();
    assert!(text.contains("\"status\": \"nondeterministic\""), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ends its call with `Err(Fatal)` when a file of its parent's child protocol is in the temp folder.
#[derive(Clone, Copy)]
struct LooksForRequestFiles;

impl timelaw::core::Subject for LooksForRequestFiles {
    type Config = ();
    fn name(&self) -> &str {
        "looks-for-request-files"
    }
    fn contract(&self, _config: &()) -> timelaw::core::Contract {
        timelaw::core::Contract::default()
    }
    fn run(&self, _config: &(), world: &mut timelaw::core::World<'_>) -> Result<(), timelaw::core::Abort> {
        let seen = files_of(std::os::unix::process::parent_id());
        world.for_each_call(|_world, _call| {
            Ok(if seen.is_empty() {
                timelaw::core::CallResult::Ok
            } else {
                timelaw::core::CallResult::Err(timelaw::core::ErrorKind::Fatal)
            })
        })
    }
}

impl timelaw::generators::Describe for LooksForRequestFiles {
    fn describe<C: timelaw::generators::Choices + ?Sized>(&self, _c: &mut C, _swarm: &timelaw::generators::Swarm) {}
}

/// The child-protocol files of process `pid` in the temp folder.
fn files_of(pid: u32) -> Vec<String> {
    let prefix = format!("timelaw-child-{pid}-");
    let entries = std::fs::read_dir(std::env::temp_dir()).into_iter().flatten().flatten();
    entries.filter_map(|entry| entry.file_name().into_string().ok()).filter(|name| name.starts_with(&prefix)).collect()
}

/// A child process gets its request through a pipe and answers through one: no file of the protocol is
/// on disk while it runs (so a parent stopped mid-shrink leaves none behind), nor after.
#[test]
fn a_child_gets_its_request_through_a_pipe_and_no_file() {
    use timelaw::core::{Case, Outcome, Schedule, Step, TraceEnd};
    timelaw::check(&LooksForRequestFiles).cases(1).env(false).run(); // In the child: answers, exits.
    let launcher = timelaw::runner::Launcher::detect().expect("this test binary");
    let case = Case::new((), Schedule::single(vec![Step::instant(Outcome::Ok)]), 0);
    let evaluation = launcher.evaluate(&LooksForRequestFiles, &case, false, &Config::default());
    assert_eq!(evaluation.trace.end, TraceEnd::Complete, "the child answered");
    let end = evaluation.trace.events.last().map(|event| event.kind);
    let ok = timelaw::core::EventKind::CallEnd { result: timelaw::core::CallResult::Ok };
    assert_eq!(end, Some(ok), "the child saw no request file of ours");
    assert_eq!(files_of(std::process::id()), Vec::<String>::new());
}

/// `TIMELAW_CHILD_CASE` set by hand (only timelaw sets it, to `CHILD_PROTOCOL`) is ignored with a note
/// on stderr: the run goes on as usual.
#[test]
fn a_stray_child_variable_is_ignored_with_a_note() {
    let test = "a_child_gets_its_request_through_a_pipe_and_no_file";
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads", "1"])
        .env(timelaw::runner::ENV_CHILD, "/nowhere/request.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let note = "timelaw: ignoring TIMELAW_CHILD_CASE=\"/nowhere/request.json\": only timelaw sets it";
    assert!(stderr.contains(note), "{stderr}");
}
