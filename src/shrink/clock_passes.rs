//! The shrink pass over clock faults (`shrink_clock_faults`): no read failures, then fewer of them;
//! fewer wall jumps; smaller jumps (toward 1 ns, keeping their direction: 1 ns, then just past a limit
//! of the case, then one lower, then a binary search); jumps at simpler points (an
//! instant toward zero, the n-th sleep or attempt toward the first, and any point moved to the first
//! attempt when that keeps the failure); failed-read rules failing fewer reads, from the first read.

use timelaw_core::{Case, FailFrom, JumpAt, VInstant};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// Every clock-fault edit, in order; whether any was kept.
pub(super) fn shrink_clock_faults<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    if shrinker.best.schedule.clock.is_empty() {
        return false;
    }
    let mut progress = drop_items(shrinker, Field::ReadFailures);
    progress |= drop_items(shrinker, Field::WallJumps);
    for jump in 0..shrinker.best.schedule.clock.wall_jumps.len() {
        progress |= during_first_attempt(shrinker, jump);
        progress |= lower(shrinker, Number::JumpSize(jump), 1);
        progress |= lower(shrinker, Number::JumpPoint(jump), 0);
    }
    for rule in 0..shrinker.best.schedule.clock.read_failures.len() {
        progress |= from_the_first_read(shrinker, rule);
        progress |= lower(shrinker, Number::FailCount(rule), 1);
        progress |= lower(shrinker, Number::FailFrom(rule), 0);
    }
    progress
}

/// The clock faults' points made the simplest before the steps are made instant and the config is
/// searched (`clock_points_first`): each wall jump moved to the first attempt, each failed-read rule
/// made to start with the first read, one candidate each. A jump at an instant or a sleep needs the
/// time (or the retries) that reach it, which holds up every duration and limit a binary search would
/// otherwise lower to that point's boundary first; whether any was kept.
pub(super) fn clock_points_first<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for jump in 0..shrinker.best.schedule.clock.wall_jumps.len() {
        progress |= during_first_attempt(shrinker, jump);
    }
    for rule in 0..shrinker.best.schedule.clock.read_failures.len() {
        progress |= from_the_first_read(shrinker, rule);
    }
    progress
}

#[derive(Clone, Copy)]
enum Field {
    ReadFailures,
    WallJumps,
}

fn len<C>(case: &Case<C>, field: Field) -> usize {
    match field {
        Field::ReadFailures => case.schedule.clock.read_failures.len(),
        Field::WallJumps => case.schedule.clock.wall_jumps.len(),
    }
}

/// Removes all the items of `field`, else one at a time from the end.
fn drop_items<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, field: Field) -> bool {
    let mut progress = false;
    let mut index = len(&shrinker.best, field);
    let mut all = shrinker.best.clone();
    match field {
        Field::ReadFailures => all.schedule.clock.read_failures.clear(),
        Field::WallJumps => all.schedule.clock.wall_jumps.clear(),
    }
    if index > 0 && shrinker.attempt(all) {
        return true;
    }
    while index > 0 && !shrinker.out_of_budget() {
        index -= 1;
        let mut candidate = shrinker.best.clone();
        match field {
            Field::ReadFailures => drop(candidate.schedule.clock.read_failures.remove(index)),
            Field::WallJumps => drop(candidate.schedule.clock.wall_jumps.remove(index)),
        }
        progress |= shrinker.attempt(candidate);
    }
    progress
}

/// Moves jump `index` to the first attempt (the simplest point: it needs no sleep and no instant).
fn during_first_attempt<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, index: usize) -> bool {
    let mut candidate = shrinker.best.clone();
    match candidate.schedule.clock.wall_jumps.get_mut(index) {
        Some(jump) if jump.at != JumpAt::Attempt(1) => jump.at = JumpAt::Attempt(1),
        _ => return false,
    }
    shrinker.attempt(candidate)
}

/// Makes rule `index` start with the first read of its clock (the simplest start).
fn from_the_first_read<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, index: usize) -> bool {
    let mut candidate = shrinker.best.clone();
    match candidate.schedule.clock.read_failures.get_mut(index) {
        Some(rule) if rule.from != FailFrom::AfterReads(0) => rule.from = FailFrom::AfterReads(0),
        _ => return false,
    }
    shrinker.attempt(candidate)
}

/// A number inside the clock faults that the shrinker may lower.
#[derive(Clone, Copy)]
pub(super) enum Number {
    JumpSize(usize),
    JumpPoint(usize),
    FailCount(usize),
    FailFrom(usize),
}

fn read<C>(case: &Case<C>, number: Number) -> Option<u64> {
    let clock = &case.schedule.clock;
    Some(match number {
        Number::JumpSize(i) => clock.wall_jumps.get(i)?.by_ns.unsigned_abs(),
        Number::JumpPoint(i) => match clock.wall_jumps.get(i)?.at {
            JumpAt::Instant(at) => at.as_nanos(),
            JumpAt::Sleep(n) | JumpAt::Attempt(n) => u64::from(n),
        },
        Number::FailCount(i) => u64::from(clock.read_failures.get(i)?.count),
        Number::FailFrom(i) => match clock.read_failures.get(i)?.from {
            FailFrom::Instant(at) => at.as_nanos(),
            FailFrom::AfterReads(reads) => u64::from(reads),
        },
    })
}

/// `case` with `number` set to `value` (a jump keeps its direction; a point keeps its kind).
pub(super) fn write<C: Clone>(case: &Case<C>, number: Number, value: u64) -> Case<C> {
    let mut next = case.clone();
    let clock = &mut next.schedule.clock;
    let small = u32::try_from(value).unwrap_or(u32::MAX);
    match number {
        Number::JumpSize(i) => {
            if let Some(jump) = clock.wall_jumps.get_mut(i) {
                let magnitude = i64::try_from(value).unwrap_or(i64::MAX);
                jump.by_ns = if jump.by_ns < 0 { -magnitude } else { magnitude };
            }
        }
        Number::JumpPoint(i) => {
            if let Some(jump) = clock.wall_jumps.get_mut(i) {
                jump.at = match jump.at {
                    JumpAt::Instant(_) => JumpAt::Instant(VInstant::from_nanos(value)),
                    JumpAt::Sleep(_) => JumpAt::Sleep(small.max(1)),
                    JumpAt::Attempt(_) => JumpAt::Attempt(small.max(1)),
                };
            }
        }
        Number::FailCount(i) => {
            if let Some(rule) = clock.read_failures.get_mut(i) {
                rule.count = small;
            }
        }
        Number::FailFrom(i) => {
            if let Some(rule) = clock.read_failures.get_mut(i) {
                rule.from = match rule.from {
                    FailFrom::Instant(_) => FailFrom::Instant(VInstant::from_nanos(value)),
                    FailFrom::AfterReads(_) => FailFrom::AfterReads(small),
                };
            }
        }
    }
    next
}

/// Tries `floor` (and the floor of a 1-based point), then each limit of the case below the current
/// value and one above it, smallest first (a jump just past a limit; [`limits`]), then one lower than
/// now (when that loses the failure, so would any smaller value, by the binary search's own
/// assumption), then a binary search between the floor and the current value.
fn lower<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, number: Number, floor: u64) -> bool {
    let floor = match (number, shrinker.best.schedule.clock.wall_jumps.get(index(number))) {
        (Number::JumpPoint(_), Some(jump)) if !matches!(jump.at, JumpAt::Instant(_)) => 1,
        _ => floor,
    };
    let Some(current) = read(&shrinker.best, number) else { return false };
    if current <= floor {
        return false;
    }
    if shrinker.attempt(write(&shrinker.best, number, floor)) {
        return true;
    }
    let mut progress = false;
    if matches!(number, Number::JumpSize(_)) {
        for value in limits(shrinker).into_iter().filter(|&value| value > floor && value < current) {
            if shrinker.attempt(write(&shrinker.best, number, value)) {
                progress = true;
                break;
            }
        }
    }
    let Some(current) = read(&shrinker.best, number) else { return progress };
    if current <= floor + 1 || !shrinker.attempt(write(&shrinker.best, number, current - 1)) {
        return progress;
    }
    let (mut low, mut high, mut progress) = (floor, current - 1, true);
    while high - low > 1 && !shrinker.out_of_budget() {
        let middle = low + (high - low) / 2;
        if shrinker.attempt(write(&shrinker.best, number, middle)) {
            high = middle;
            progress = true;
        } else {
            low = middle;
        }
    }
    progress
}

/// The values a wall jump is worth trying at before a binary search, smallest first: each number of
/// the config (a limit, a delay, a timeout, in nanoseconds) and one above it, each contract boundary
/// and one above it, each step's duration and one above it (a jump that cancels or outweighs the time
/// an attempt took).
fn limits<S: ConfigDomain + ?Sized>(shrinker: &Shrinker<'_, S>) -> Vec<u64> {
    let numbers = shrinker.subject.config_numbers(&shrinker.best.config).into_iter().map(|number| number.value);
    let boundaries = super::passes::boundaries(&shrinker.contract()).into_iter().map(|value| value.as_nanos());
    let steps =
        shrinker.best.schedule.calls.iter().flat_map(|call| call.steps.iter().map(|step| step.duration.as_nanos()));
    let mut values: Vec<u64> =
        numbers.chain(boundaries).chain(steps).flat_map(|value| [value, value.saturating_add(1)]).collect();
    values.sort_unstable();
    values.dedup();
    values
}

fn index(number: Number) -> usize {
    match number {
        Number::JumpSize(i) | Number::JumpPoint(i) | Number::FailCount(i) | Number::FailFrom(i) => i,
    }
}

/// Step `step` of call `call` taking no time with every backward wall jump turned forward by as much:
/// a wall clock that stood still (or went back) while the attempt took time, made a wall clock that
/// moves while the attempt takes none (the two clocks disagree the other way round, with no duration
/// left). `None` when the case has no backward jump or the step already takes no time.
pub(super) fn instant_with_jumps_forward<C: Clone>(case: &Case<C>, call: usize, step: usize) -> Option<Case<C>> {
    let duration = case.schedule.calls.get(call)?.steps.get(step)?.duration;
    if duration.is_zero() || case.schedule.clock.wall_jumps.iter().all(|jump| jump.by_ns >= 0) {
        return None;
    }
    let mut next = case.clone();
    next.schedule.calls[call].steps[step].duration = timelaw_core::VDuration::ZERO;
    for jump in &mut next.schedule.clock.wall_jumps {
        jump.by_ns = jump.by_ns.saturating_abs();
    }
    Some(next)
}
