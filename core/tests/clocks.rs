//! The World's two clocks: the wall clock moves with the monotonic one plus the scheduled jumps, every read
//! is counted, scheduled read failures fail exactly the reads they name.

use timelaw_core::duration_text::with_integer_nanos;
use timelaw_core::{
    ClockFaults, ClockKind, Contract, EventKind, FailFrom, JumpAt, Outcome, ReadFailed, ReadFailure, Schedule, Step,
    Subject, Trace, VDuration, VInstant, WallInstant, WallJump, World,
};

/// What the subject saw: (monotonic, wall) per read pair.
type Seen = Vec<(Result<VInstant, ReadFailed>, Result<WallInstant, ReadFailed>)>;

/// Reads both clocks before the attempt, sleeps 10 ms, reads both again, and notes what it saw.
struct Reader;

thread_local! {
    static SEEN: std::cell::RefCell<Seen> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Subject for Reader {
    type Config = ();
    fn name(&self) -> &str {
        "reader"
    }
    fn contract(&self, (): &()) -> Contract {
        Contract::default()
    }
    fn run(&self, (): &(), world: &mut World<'_>) -> Result<(), timelaw_core::Abort> {
        world.for_each_call(|world, _| {
            let first = (world.read_now()?, world.wall_now()?);
            world.dispatch()?;
            world.sleep(VDuration::from_millis(10))?;
            let second = (world.read_now()?, world.wall_now()?);
            SEEN.with(|seen| seen.borrow_mut().extend([first, second]));
            Ok(timelaw_core::CallResult::Ok)
        })
    }
}

fn run(clock: ClockFaults) -> (Trace, Seen) {
    let schedule = Schedule::single(vec![Step::new(VDuration::from_millis(4), Outcome::Ok)]).with_clock(clock);
    SEEN.with(|seen| seen.borrow_mut().clear());
    let trace = timelaw_core::execute(&Reader, &(), &schedule, 0);
    (trace, SEEN.with(|seen| seen.borrow().clone()))
}

fn wall(offset_ms: i64) -> Result<WallInstant, ReadFailed> {
    Ok(WallInstant::START.saturating_add_nanos(i128::from(offset_ms) * 1_000_000))
}

fn mono(millis: u64) -> Result<VInstant, ReadFailed> {
    Ok(VInstant::from_nanos(millis * 1_000_000))
}

fn jumps(jumps: &[(JumpAt, i64)]) -> ClockFaults {
    let wall_jumps = jumps.iter().map(|&(at, by_ns)| WallJump { at, by_ns }).collect();
    ClockFaults { wall_jumps, read_failures: vec![] }
}

#[track_caller]
fn check(clock: ClockFaults, expected: Seen, jump_events: &[(u64, i64)]) {
    let (trace, seen) = run(clock);
    assert_eq!(seen, expected);
    let recorded: Vec<(u64, i64)> = trace
        .events
        .iter()
        .filter_map(|event| match event.kind {
            EventKind::WallJump { by_ns } => Some((event.at.as_nanos() / 1_000_000, by_ns)),
            _ => None,
        })
        .collect();
    assert_eq!(recorded, jump_events);
    assert_eq!((trace.clock_reads.monotonic, trace.clock_reads.wall), (2, 2));
}

const HOUR_NS: i64 = 3_600_000_000_000;

#[test]
fn the_wall_clock_follows_the_monotonic_one_and_its_jumps() {
    check(ClockFaults::default(), vec![(mono(0), wall(0)), (mono(14), wall(14))], &[]);
    // Backwards by an hour during the sleep (its midpoint is t=9ms).
    check(
        jumps(&[(JumpAt::Sleep(1), -HOUR_NS)]),
        vec![(mono(0), wall(0)), (mono(14), wall(14 - 3_600_000))],
        &[(9, -HOUR_NS)],
    );
    // Forwards by 1 ns during the attempt (midpoint t=2ms) is seen; a jump at t=0 before the first read too.
    let both = jumps(&[(JumpAt::Attempt(1), 1_000_000), (JumpAt::Instant(VInstant::EPOCH), -2_000_000)]);
    check(both, vec![(mono(0), wall(-2)), (mono(14), wall(13))], &[(0, -2_000_000), (2, 1_000_000)]);
    // A jump whose point is never reached never happens.
    check(jumps(&[(JumpAt::Sleep(2), HOUR_NS)]), vec![(mono(0), wall(0)), (mono(14), wall(14))], &[]);
}

#[test]
fn a_wall_jump_can_go_before_the_unix_epoch() {
    let before = -WallInstant::START.as_unix_nanos() - 1;
    let (_, seen) = run(jumps(&[(JumpAt::Instant(VInstant::EPOCH), before)]));
    let first = seen[0].1.unwrap();
    assert_eq!(first.to_string(), "1969-12-31T23:59:59.999999999Z");
    assert_eq!(first.duration_since(WallInstant::UNIX_EPOCH), Err(VDuration::from_nanos(1)));
}

#[test]
fn failed_reads_fail_exactly_the_scheduled_reads() {
    let fail = |clock, from, count| ClockFaults {
        wall_jumps: vec![],
        read_failures: vec![ReadFailure { clock, from, count }],
    };
    let (trace, seen) = run(fail(ClockKind::Monotonic, FailFrom::AfterReads(1), 1));
    assert_eq!(seen, vec![(mono(0), wall(0)), (Err(ReadFailed(ClockKind::Monotonic)), wall(14))]);
    let failed: Vec<EventKind> = trace.events.iter().map(|event| event.kind).filter(|kind| !kind.is_action()).collect();
    assert_eq!(failed, vec![EventKind::ClockReadFailed { clock: ClockKind::Monotonic }]);
    let (_, seen) = run(fail(ClockKind::Wall, FailFrom::Instant(VInstant::from_nanos(1)), 5));
    assert_eq!(seen, vec![(mono(0), wall(0)), (mono(14), Err(ReadFailed(ClockKind::Wall)))]);
}

#[test]
fn schedules_without_clock_faults_serialize_as_before() {
    let schedule = Schedule::single(vec![Step::instant(Outcome::Ok)]);
    let json = serde_json::to_string(&schedule).unwrap();
    assert_eq!(
        json,
        r#"{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":"ok"}],"cancel_after":null,"idempotent":true}]}"#
    );
    // The integer form (fixture names hash it) is the one written before durations were text.
    let old = with_integer_nanos(|| serde_json::to_string(&schedule).unwrap());
    assert_eq!(
        old,
        r#"{"calls":[{"gap_before":0,"steps":[{"duration":0,"outcome":"ok"}],"cancel_after":null,"idempotent":true}]}"#
    );
    let with_jump = schedule.with_clock(jumps(&[(JumpAt::Sleep(1), -5)]));
    let json = serde_json::to_string(&with_jump).unwrap();
    assert!(json.ends_with(r#""clock":{"wall_jumps":[{"at":{"sleep":1},"by":"-5ns"}]}}"#), "{json}");
    assert_eq!(serde_json::from_str::<Schedule>(&json).unwrap(), with_jump);
    let old = with_integer_nanos(|| serde_json::to_string(&with_jump).unwrap());
    assert!(old.ends_with(r#""clock":{"wall_jumps":[{"at":{"sleep":1},"by_ns":-5}]}}"#), "{old}");
    assert_eq!(serde_json::from_str::<Schedule>(&old).unwrap(), with_jump);
    let unknown = r#"{"calls":[],"clock":{"wall_jumps":[],"typo":1}}"#;
    assert!(serde_json::from_str::<Schedule>(unknown).is_err());
}
