//! Virtual std clocks: on the case's thread, `Instant::now()` and `SystemTime::now()` read the World's
//! clocks (wall jumps included); other threads, and this thread outside the case, read the real ones.

use std::cell::RefCell;
use std::time::{Duration, Instant, SystemTime};

use timelaw_core::std_clocks::MONOTONIC_ORIGIN;
use timelaw_core::{
    execute, Abort, CallResult, ClockFaults, Contract, JumpAt, Outcome, Schedule, StdClocks, Step, Subject, TraceEnd,
    VDuration, WallInstant, WallJump, World,
};

/// What a case saw through std's clocks.
#[derive(Clone, Debug, Default)]
struct Seen {
    /// `Instant::now()` after the attempt and the sleep, less the one before.
    elapsed: Option<Duration>,
    /// `SystemTime::now()` before and after.
    walls: Vec<SystemTime>,
    /// Whether `Instant::now()` at the start was exactly [`MONOTONIC_ORIGIN`] after "boot" (told by where
    /// adding to it overflows).
    at_origin: bool,
    /// `SystemTime::now()` on a thread the case spawned.
    other_thread: Option<SystemTime>,
}

thread_local! {
    static SEEN: RefCell<Seen> = RefCell::new(Seen::default());
}

/// Reads std's clocks, dispatches its 4 ms attempt, sleeps 10 ms, reads them again; asks for `clocks`.
struct Reader(StdClocks);

impl Subject for Reader {
    type Config = ();
    fn name(&self) -> &str {
        "std-reader"
    }
    fn contract(&self, (): &()) -> Contract {
        Contract::default()
    }
    fn run(&self, (): &(), world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            let start = Instant::now();
            // std's `Instant` holds `i64` seconds: `start + left` is the last instant it can represent.
            let left = Duration::new(i64::MAX as u64 - MONOTONIC_ORIGIN.to_std().as_secs(), 999_999_999);
            let at_origin =
                start.checked_add(left).is_some() && start.checked_add(left + Duration::from_nanos(1)).is_none();
            let first_wall = SystemTime::now();
            let other_thread = std::thread::spawn(SystemTime::now).join().ok();
            world.dispatch()?;
            world.sleep(VDuration::from_millis(10))?;
            let elapsed = Instant::now().duration_since(start);
            let seen =
                Seen { elapsed: Some(elapsed), walls: vec![first_wall, SystemTime::now()], at_origin, other_thread };
            SEEN.with(|cell| *cell.borrow_mut() = seen);
            Ok(CallResult::Ok)
        })
    }
    fn std_clocks(&self) -> StdClocks {
        self.0
    }
}

fn run(clocks: StdClocks, faults: ClockFaults) -> (TraceEnd, Seen) {
    let schedule = Schedule::single(vec![Step::new(VDuration::from_millis(4), Outcome::Ok)]).with_clock(faults);
    let trace = execute(&Reader(clocks), &(), &schedule, 0);
    (trace.end, SEEN.with(|cell| cell.take()))
}

fn wall_ms(offset_ms: i64) -> SystemTime {
    WallInstant::START.saturating_add_nanos(i128::from(offset_ms) * 1_000_000).to_system_time()
}

#[test]
fn the_case_thread_reads_the_worlds_clocks() {
    let real_before = SystemTime::now();
    let (end, seen) = run(StdClocks::Virtual, ClockFaults::default());
    let real_after = SystemTime::now();
    assert_eq!(end, TraceEnd::Complete);
    assert_eq!(seen.elapsed, Some(Duration::from_millis(14)), "4 ms of attempt and 10 ms of sleep, exactly");
    assert!(seen.at_origin, "a case starts at the monotonic origin");
    assert_eq!(seen.walls, vec![wall_ms(0), wall_ms(14)]);
    // A thread the case spawned reads the real wall clock, and so does this thread after the case.
    let other = seen.other_thread.expect("the spawned thread read the clock");
    assert!(real_before <= other && other <= real_after, "{other:?} is not between {real_before:?} and {real_after:?}");
    let now = SystemTime::now();
    assert!(real_after <= now, "after the case this thread reads the real clock again");
}

#[test]
fn wall_jumps_move_system_time_and_not_instant() {
    let faults = ClockFaults {
        wall_jumps: vec![WallJump { at: JumpAt::Sleep(1), by_ns: -3_600_000_000_000 }],
        read_failures: vec![],
    };
    let (end, seen) = run(StdClocks::Virtual, faults);
    assert_eq!(end, TraceEnd::Complete);
    assert_eq!(seen.elapsed, Some(Duration::from_millis(14)));
    assert_eq!(seen.walls, vec![wall_ms(0), wall_ms(14 - 3_600_000)]);
}

#[test]
fn real_std_clocks_are_the_default() {
    let real_before = SystemTime::now();
    let (end, seen) = run(StdClocks::Real, ClockFaults::default());
    assert_eq!(end, TraceEnd::Complete);
    assert!(seen.walls.iter().all(|&wall| wall >= real_before), "{:?} read before {real_before:?}", seen.walls);
    assert!(seen.elapsed.is_some_and(|elapsed| elapsed < Duration::from_millis(14)), "no real time passes");
}

#[test]
fn every_case_reads_the_same_instants() {
    let first = run(StdClocks::Virtual, ClockFaults::default()).1;
    let second = run(StdClocks::Virtual, ClockFaults::default()).1;
    assert_eq!((first.elapsed, first.walls), (second.elapsed, second.walls));
}
