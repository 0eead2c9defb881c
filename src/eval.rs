//! Running one case and judging laws on it: the step shared by the runner, the shrinker and replay.

use std::cell::Cell;
use std::sync::Once;

use timelaw_core::{
    execute_with, first_action_difference, Case, Contract, Heartbeat, Limits, Schedule, Subject, Trace, TraceEnd, World,
};
use timelaw_laws::{Law, Observation, Replay, Verdict};

/// A case's run: its contract, its trace, and the second run's digest when it was replayed.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The subject's contract for the case's config.
    pub contract: Contract,
    /// The trace of the first run.
    pub trace: Trace,
    /// Digests of both runs, when the case was run twice.
    pub replay: Option<Replay>,
    /// The comparison with a run without the case's wall jumps, when it has any.
    pub without_wall_jumps: Option<Replay>,
}

impl Evaluation {
    /// The observation laws judge.
    pub fn observation<'a, C>(&'a self, case: &'a Case<C>) -> Observation<'a> {
        Observation {
            schedule: &case.schedule,
            seed: case.seed,
            contract: &self.contract,
            trace: &self.trace,
            replay: self.replay,
            without_wall_jumps: self.without_wall_jumps,
        }
    }
    /// `true` when the World cut this run at its virtual time limit ([`TraceEnd::is_time_limit_cut`](timelaw_core::TraceEnd::is_time_limit_cut)).
    pub fn cut_at_time_limit(&self) -> bool {
        self.trace.end.is_time_limit_cut()
    }

    /// `law`'s verdict on this run of `case`.
    pub fn judge<C>(&self, law: &Law, case: &Case<C>) -> Verdict {
        law.judge(&self.observation(case))
    }
}

/// Runs `case` once (twice when `replay` is set, on a fresh World each time), catching panics quietly.
/// A case with wall jumps also runs once more without them, for `wall_jump_keeps_monotonic_limits`.
pub fn evaluate<S: Subject + ?Sized>(subject: &S, case: &Case<S::Config>, limits: Limits, replay: bool) -> Evaluation {
    evaluate_with(subject, case, limits, replay, None)
}

/// [`evaluate`], with every World call counted on `heartbeat` for a watchdog ([`crate::watchdog`]).
/// When the watchdog abandons the run, its thread parks for good at the next World call or when the
/// subject returns, so it never comes back to judge or record anything.
pub fn evaluate_with<S: Subject + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    limits: Limits,
    replay: bool,
    heartbeat: Option<&Heartbeat>,
) -> Evaluation {
    evaluate_under(subject, case, subject.contract(&case.config), limits, replay, heartbeat)
}

/// [`evaluate_with`] with the contract of the case's config at hand already, as a loop that draws its
/// cases with [`timelaw_generators::sample_case_with_contract`] has it (the runner does): the subject is
/// not asked for it again. `contract` must be `subject.contract(&case.config)` (debug builds check it).
///
/// ```
/// use timelaw::core::reference::Reference;
/// use timelaw::core::Limits;
/// use timelaw::eval::{evaluate, evaluate_under};
/// use timelaw::generators::{sample_case_with_contract, swarm_for};
///
/// let (case, contract) = sample_case_with_contract(&Reference, 7, &swarm_for(1, 0));
/// let evaluation = evaluate_under(&Reference, &case, contract, Limits::default(), false, None);
/// assert_eq!(evaluation.trace, evaluate(&Reference, &case, Limits::default(), false).trace);
/// ```
pub fn evaluate_under<S: Subject + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    contract: Contract,
    limits: Limits,
    replay: bool,
    heartbeat: Option<&Heartbeat>,
) -> Evaluation {
    debug_assert_eq!(contract, subject.contract(&case.config), "the contract of the case's config");
    let run = |world: World<'_>| execute_with(subject, &case.config, world, limits);
    let thread = CaseThread::of(subject);
    Runs::of(&run, &case.schedule, case.seed, replay, heartbeat, thread).evaluation(contract)
}

/// Where a case runs: on the calling thread, or on a thread of its own for a subject with seeded std
/// randomness ([`timelaw_core::std_random`]: thread-local generators seed themselves once per thread,
/// so each case starts them afresh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CaseThread {
    /// The calling thread.
    Calling,
    /// A thread of the case's own.
    Own,
}

impl CaseThread {
    /// The thread `subject`'s cases run on.
    pub(crate) fn of<S: Subject + ?Sized>(subject: &S) -> CaseThread {
        if subject.std_random().is_seeded() {
            CaseThread::Own
        } else {
            CaseThread::Calling
        }
    }
}

/// Runs the subject on a fresh World over the given schedule and returns its trace: the only part of a
/// case's evaluation that knows the subject's type (`execute_with` with its config and limits). Everything
/// around it ([`Runs`]) is compiled once, here, not into every crate that names a subject (the fuzz
/// targets: see `timelaw::fuzz`).
pub(crate) type Run<'r> = dyn Fn(World<'_>) -> Trace + Sync + 'r;

/// The runs of one case: the first, the second when it is replayed, the run without its wall jumps when
/// it has any. The digests that compare them are taken by [`Runs::evaluation`].
pub(crate) struct Runs {
    trace: Trace,
    second: Option<Trace>,
    jump_free: Option<Trace>,
}

impl Runs {
    /// Runs the case (`schedule` and `seed`, the subject and its config behind `run`) once, twice when
    /// `replay` is set (on a fresh World each time), and once more without its wall jumps when it has
    /// any, for `wall_jump_keeps_monotonic_limits`; panics are caught quietly.
    #[inline(never)]
    pub(crate) fn of(
        run: &Run<'_>,
        schedule: &Schedule,
        seed: u64,
        replay: bool,
        heartbeat: Option<&Heartbeat>,
        thread: CaseThread,
    ) -> Runs {
        let trace = run_quietly(run, schedule, seed, heartbeat, thread);
        let second = replay.then(|| run_quietly(run, schedule, seed, heartbeat, thread));
        let jump_free = if schedule.clock.wall_jumps.is_empty() {
            None
        } else {
            without_wall_jumps(run, schedule, seed, heartbeat, thread)
        };
        Runs { trace, second, jump_free }
    }

    /// The evaluation: the first run's trace, and the digests comparing it with the other runs.
    #[inline(never)]
    pub(crate) fn evaluation(self, contract: Contract) -> Evaluation {
        let Runs { trace, second, jump_free } = self;
        let replay = second.map(|second| {
            let first = trace.digest();
            // Equal traces have equal digests (the digest hashes exactly the fields `==` compares): the
            // second is hashed only when the runs differ, as they do only for a nondeterministic subject.
            let replay = Replay {
                first,
                second: if second == trace { first } else { second.digest() },
                first_difference: first_difference(&trace, &second),
                second_panicked: matches!(second.end, timelaw_core::TraceEnd::Panicked(_)),
            };
            second.recycle(); // Only its digest is kept: the next run records into its buffer.
            replay
        });
        let without_wall_jumps = jump_free.map(|second| compare_actions(&trace, &second));
        Evaluation { contract, trace, replay, without_wall_jumps }
    }
}

/// The comparison of `first`'s actions with `second`'s: their action digests and the first action that
/// differs. When none differs, the two digests are equal (they hash exactly the fields compared), so the
/// second is not computed again.
fn compare_actions(first: &Trace, second: &Trace) -> Replay {
    let first_difference = first_action_difference(first, second);
    let first_digest = first.action_digest();
    let second_digest = if first_difference.is_none() { first_digest } else { second.action_digest() };
    let second_panicked = matches!(second.end, timelaw_core::TraceEnd::Panicked(_));
    Replay { first: first_digest, second: second_digest, first_difference, second_panicked }
}

/// The metamorphic run: the same case with its wall jumps removed (compared action by action in
/// [`Runs::evaluation`]). Kept out of line: most cases have no wall jump, and the hot path stays as small
/// as it was.
#[cold]
#[inline(never)]
fn without_wall_jumps(
    run: &Run<'_>,
    schedule: &Schedule,
    seed: u64,
    heartbeat: Option<&Heartbeat>,
    thread: CaseThread,
) -> Option<Trace> {
    if schedule.clock.wall_jumps.is_empty() {
        return None;
    }
    let jump_free = schedule.without_wall_jumps();
    Some(run_quietly(run, &jump_free, seed, heartbeat, thread))
}

fn run_quietly(
    run: &Run<'_>,
    schedule: &Schedule,
    seed: u64,
    heartbeat: Option<&Heartbeat>,
    thread: CaseThread,
) -> Trace {
    match thread {
        CaseThread::Calling => run_quietly_here(run, schedule, seed, heartbeat),
        CaseThread::Own => on_own_thread(|| run_quietly_here(run, schedule, seed, heartbeat)),
    }
}

/// `run` on a thread of its own, joined. A thread that cannot be started ends the run with the reason
/// (the case is not judged as if it had run).
#[cold]
#[inline(never)]
fn on_own_thread(run: impl FnOnce() -> Trace + Send) -> Trace {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().name("timelaw-case".to_owned()).spawn_scoped(scope, run);
        let joined = match spawned {
            Ok(handle) => handle.join().map_err(|_| "the case's thread panicked outside the subject".to_owned()),
            Err(error) => Err(format!("the case's own thread could not be started: {error}")),
        };
        joined.unwrap_or_else(|reason| {
            let mut trace = Trace::new();
            trace.end = TraceEnd::Aborted(timelaw_core::Abort::InvalidConfig(reason));
            trace
        })
    })
}

fn run_quietly_here(run: &Run<'_>, schedule: &Schedule, seed: u64, heartbeat: Option<&Heartbeat>) -> Trace {
    install_quiet_panic_hook();
    QUIET.with(|quiet| quiet.set(true));
    crate::panic_site::clear();
    let world = World::new(schedule, seed);
    let world = match heartbeat {
        Some(heartbeat) => world.with_heartbeat(heartbeat),
        None => world,
    };
    let mut trace = run(world);
    QUIET.with(|quiet| quiet.set(false));
    name_the_panic_site(&mut trace);
    if let Some(heartbeat) = heartbeat.filter(|heartbeat| heartbeat.is_abandoned()) {
        heartbeat.park(); // The watchdog gave up on this run: never come back to the code that did.
    }
    trace
}

/// The first event of `first` (the run a report shows) that differs from `second`: the first position
/// where the two disagree, or, when `second` is a strict prefix of `first`, its first event past that
/// prefix. `None` when no event of `first` differs: equal traces, traces whose events agree and only
/// their ends differ, or a `first` that is a strict prefix of `second` (its own events all reappear).
pub fn first_difference(first: &Trace, second: &Trace) -> Option<u32> {
    let common = first.events.iter().zip(&second.events).position(|(x, y)| x != y);
    let index = match common {
        Some(index) => index,
        None if first.events.len() > second.events.len() => second.events.len(),
        None => return None,
    };
    Some(u32::try_from(index).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use timelaw_core::{Abort, Contract, EventKind, LimitKind, Trace, TraceEnd, VInstant};

    use super::{compare_actions, first_difference, Runs};

    /// A complete trace of `count` events (an attempt start each millisecond).
    fn trace(count: u32) -> Trace {
        let mut trace = Trace::new();
        for index in 0..count {
            trace.push(VInstant::from_nanos(u64::from(index) * 1_000_000), 0, 1, EventKind::AttemptStart);
        }
        trace
    }

    #[track_caller]
    fn check(first: Trace, second: Trace, expect: Option<u32>) {
        assert_eq!(first_difference(&first, &second), expect);
    }

    #[test]
    fn blames_only_events_of_the_first_trace() {
        check(trace(3), trace(3), None);
        let mut later = trace(3);
        later.events[1].at = VInstant::from_nanos(1_500_000);
        check(trace(3), later, Some(1));
        check(trace(4), trace(2), Some(2));
        // The first run is a prefix of the second: none of its events differs.
        check(trace(2), trace(4), None);
        // Same events, different ends: no event to blame (it used to be one past the end).
        let aborted =
            Trace { end: TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::Events, limit: 3 }), ..trace(3) };
        check(trace(3), aborted, None);
    }

    /// A trace whose events are attempt starts at the given milliseconds, each followed by a wall jump
    /// of `jump_ns` (not an action).
    fn jumping(starts_ms: &[u64], jump_ns: i64) -> Trace {
        let mut trace = Trace::new();
        for start_ms in starts_ms {
            let at = VInstant::from_nanos(start_ms * 1_000_000);
            trace.push(at, 0, 1, EventKind::AttemptStart);
            trace.push(at, 0, 1, EventKind::WallJump { by_ns: jump_ns });
        }
        trace
    }

    #[test]
    fn digests_are_those_of_each_trace_whether_or_not_an_action_differs() {
        for (first, second, difference) in [
            (jumping(&[1, 2], 5), jumping(&[1, 2], -7), None),
            (jumping(&[1, 2], 5), jumping(&[1, 3], 5), Some(2)),
            (jumping(&[1, 2], 5), jumping(&[1], 5), Some(2)),
        ] {
            let compared = compare_actions(&first, &second);
            assert_eq!(compared.first_difference, difference);
            assert_eq!(compared.first, first.action_digest());
            assert_eq!(compared.second, second.action_digest());
        }
    }

    #[test]
    fn a_replays_digests_are_those_of_each_run_whether_or_not_they_differ() {
        let aborted =
            Trace { end: TraceEnd::Aborted(Abort::StepLimit { kind: LimitKind::Events, limit: 3 }), ..trace(3) };
        let mut later = trace(3);
        later.events[2].at = VInstant::from_nanos(2_500_000);
        for second in [trace(3), trace(2), aborted, later] {
            let expected = (trace(3).digest(), second.digest());
            let runs = Runs { trace: trace(3), second: Some(second), jump_free: None };
            let replay = runs.evaluation(Contract::default()).replay.expect("replayed");
            assert_eq!((replay.first, replay.second), expected);
        }
    }
}

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once per process) a panic hook that stays silent for panics inside a subject run on this
/// thread, recording where they happened ([`crate::panic_site`]), and defers to the previous hook for
/// every other panic.
fn install_quiet_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                crate::panic_site::record(info.location());
            } else {
                previous(info);
            }
        }));
    });
}

/// A run that ended in a panic names the panic's site after its message ([`crate::panic_site`]).
fn name_the_panic_site(trace: &mut Trace) {
    let site = crate::panic_site::take();
    if let (TraceEnd::Panicked(message), Some((file, line, column))) = (&mut trace.end, site) {
        *message = crate::panic_site::with_site(message, &file, line, column);
    }
}
