//! The named shrink passes. Each tries candidates through [`Shrinker::attempt`] and reports progress.

use timelaw_core::{CallScript, Case, Contract, Outcome, VDuration};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// A pass: tries candidates, returns whether it kept any.
pub(super) type Pass<S> = fn(&mut Shrinker<'_, S>) -> bool;

/// The passes in the order they run: the order on simplicity's ([`super::order`]), so every pass that
/// shrinks the shape (calls, steps, outcomes) runs before the config passes, while the config that
/// lets a simpler schedule fail is still there (a rate limit becomes a transient failure before the
/// delay its retry-after stood in for is lowered away).
pub(super) fn passes<S: ConfigDomain + ?Sized>() -> [(&'static str, Pass<S>); 31] {
    [
        ("drop_calls", drop_calls::<S>),
        ("drop_calls_reindexed", super::reindex::drop_calls_reindexed::<S>),
        ("fold_calls", super::merge::fold_calls::<S>),
        ("serialize", super::concurrency::serialize::<S>),
        ("shrink_interleave", super::concurrency::shrink_interleave::<S>),
        ("break_ties_by_time", super::ties::break_ties_by_time::<S>),
        ("drop_steps", drop_steps::<S>),
        ("merge_steps", super::merge::merge_steps::<S>),
        ("lower_repeats", lower_repeats::<S>),
        ("drop_paired", super::paired::drop_paired::<S>),
        ("step_to_gap", super::gap::step_to_gap::<S>),
        ("simplify_outcomes", super::outcomes::simplify_outcomes::<S>),
        ("fold_retries", super::retries::fold_retries::<S>),
        ("rewrite_pairs", super::outcomes::rewrite_pairs::<S>),
        ("clock_points_first", super::clock_passes::clock_points_first::<S>),
        ("zero_step_durations", zero_step_durations::<S>),
        ("shrink_config", shrink_config::<S>),
        ("shrink_numbers", super::numbers::shrink_numbers::<S>),
        ("shrink_answers", super::answers::shrink_answers::<S>),
        ("bisect_config", super::bisect::bisect_config::<S>),
        ("couple_answers", super::answers::couple_answers::<S>),
        ("drop_counted_calls", super::counted::drop_counted_calls::<S>),
        ("drop_counted_shares", super::shares::drop_counted_shares::<S>),
        ("join_counted_calls", super::joined::join_counted_calls::<S>),
        ("drop_jitter_lowered", super::unjitter::drop_jitter_lowered::<S>),
        ("lower_gap_with_number", super::gap::lower_gap_with_number::<S>),
        ("shrink_arrivals", super::concurrency::shrink_arrivals::<S>),
        ("simplify_calls", simplify_calls::<S>),
        ("shrink_durations", shrink_durations::<S>),
        ("zero_seed", zero_seed::<S>),
        ("shrink_clock_faults", super::clock_passes::shrink_clock_faults::<S>),
    ]
}

/// The passes tried only after a round of every other pass kept nothing: a coupled search that raises
/// one number to its largest while lowering another is worth its evaluations only where no plain move is
/// left; tried in every round, its raised numbers are searched down again while plain moves would still
/// have made progress (tokio-retry2's elapsed-limit finding then spent the whole budget of 4,000
/// evaluations instead of 154). The bisection of a config's fields towards their simpler values
/// (`bisect_config`) likewise: it runs once the domain's own candidates are spent, and costs one run a
/// field at a minimum.
pub(super) const LAST_RESORT: [&str; 2] = ["bisect_config", "couple_answers"];

/// Delta debugging over a list: removes chunks (halves, quarters, ... single items) while `attempt`
/// keeps the failure. `with` rebuilds a case with a shorter list.
pub(super) fn ddmin<S, T: Clone>(
    shrinker: &mut Shrinker<'_, S>,
    items: impl Fn(&Case<S::Config>) -> Vec<T>,
    with: impl Fn(&Case<S::Config>, Vec<T>) -> Case<S::Config>,
) -> bool
where
    S: ConfigDomain + ?Sized,
{
    let mut progress = false;
    let mut chunk = items(&shrinker.best).len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < items(&shrinker.best).len() {
            let mut list = items(&shrinker.best);
            let end = (start + chunk).min(list.len());
            list.drain(start..end);
            let candidate = with(&shrinker.best, list);
            if shrinker.attempt(candidate) {
                progress = true;
            } else {
                start += chunk;
            }
            if shrinker.out_of_budget() {
                return progress;
            }
        }
        if chunk == 1 {
            return progress;
        }
        chunk = chunk.div_ceil(2);
    }
}

fn drop_calls<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    ddmin(shrinker, |case| case.schedule.calls.clone(), with_calls)
}

fn drop_steps<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        progress |= ddmin(
            shrinker,
            |case| case.schedule.calls.get(call).map(|c| c.steps.clone()).unwrap_or_default(),
            |case, steps| {
                let mut next = case.clone();
                if let Some(script) = next.schedule.calls.get_mut(call) {
                    script.steps = steps;
                }
                next
            },
        );
    }
    progress
}

/// Lowers each repeated step's count by binary search: the smallest count in `1..repeat` that keeps the
/// failure (about log2(repeat) evaluations per step, so 100,000 repeats cost about 17).
/// Equal adjacent steps are first merged into one repeated step (the same dispatches, fewer steps: the
/// normal form of repeats, see [`merge_equal_neighbours`]).
fn lower_repeats<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        let mut merged = shrinker.best.clone();
        merge_equal_neighbours(&mut merged.schedule.calls[call]);
        progress |= shrinker.attempt(merged);
        for step in 0..shrinker.best.schedule.calls[call].steps.len() {
            let (mut low, mut high) = (1, shrinker.best.schedule.calls[call].steps[step].count());
            while low < high && !shrinker.out_of_budget() {
                let middle = low + (high - low) / 2;
                let mut candidate = shrinker.best.clone();
                let slot = &mut candidate.schedule.calls[call].steps[step];
                *slot = slot.repeated(middle);
                if shrinker.attempt(candidate) {
                    progress = true;
                    high = middle;
                } else {
                    low = middle + 1;
                }
            }
        }
    }
    progress
}

/// The normal form of repeats: every run of equal adjacent steps (the same duration and outcome)
/// written as one step repeated as often as the run's dispatches (the same dispatches, fewer step
/// entries: smaller by item 4 of [`super::order`]). A run longer than `u32::MAX` dispatches stays split.
pub(super) fn merge_equal_neighbours(script: &mut CallScript) {
    let mut steps: Vec<timelaw_core::Step> = Vec::with_capacity(script.steps.len());
    for step in script.steps.drain(..) {
        match steps.last_mut() {
            Some(last) if last.repeated(1) == step.repeated(1) && last.count().checked_add(step.count()).is_some() => {
                *last = last.repeated(last.count() + step.count());
            }
            _ => steps.push(step),
        }
    }
    script.steps = steps;
}

fn with_calls<C: Clone>(case: &Case<C>, calls: Vec<CallScript>) -> Case<C> {
    let mut next = case.clone();
    next.schedule.calls = calls;
    next
}

/// After a kept candidate the new config's candidates are tried from the same position on (a halving
/// kept is followed by the next halving: coupled numbers, such as an initial delay and its cap, halve
/// together where the numbers' binary search moves one at a time); the earlier, more aggressive ones
/// get their turn again in the next round of the passes, so they are not re-run after every small step.
fn shrink_config<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let mut start = 0;
    'restart: loop {
        let candidates = shrinker.subject.shrink_config(&shrinker.best.config);
        for (index, config) in candidates.into_iter().enumerate().skip(start) {
            start = index;
            let mut candidate = shrinker.best.clone();
            candidate.config = config;
            let before = shrinker.numbers(&shrinker.best.config);
            // With the schedule adapted to the moved boundaries too (a removed timeout's trace is a
            // counted run).
            if super::numbers::coupled_attempt(shrinker, candidate) {
                super::numbers::after_halving(shrinker, &before);
                progress = true;
                continue 'restart;
            }
            if shrinker.out_of_budget() {
                return progress;
            }
        }
        return progress;
    }
}

fn simplify_calls<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for call in 0..shrinker.best.schedule.calls.len() {
        let edits: [fn(&mut CallScript); 3] =
            [|c| c.cancel_after = None, |c| c.idempotent = true, |c| c.gap_before = VDuration::ZERO];
        for edit in edits {
            let mut candidate = shrinker.best.clone();
            edit(&mut candidate.schedule.calls[call]);
            progress |= shrinker.attempt(candidate);
        }
    }
    progress
}

/// A duration inside a case that the shrinker may lower.
#[derive(Clone, Copy, Debug)]
pub(super) enum Slot {
    Gap(usize),
    Cancel(usize),
    Step(usize, usize),
    RetryAfter(usize, usize),
}

pub(super) fn slots<C>(case: &Case<C>) -> Vec<Slot> {
    let mut slots = Vec::new();
    for (call, script) in case.schedule.calls.iter().enumerate() {
        slots.push(Slot::Gap(call));
        slots.push(Slot::Cancel(call));
        for (step, s) in script.steps.iter().enumerate() {
            slots.push(Slot::Step(call, step));
            if matches!(s.outcome, Outcome::RateLimited { .. }) {
                slots.push(Slot::RetryAfter(call, step));
            }
        }
    }
    slots
}

pub(super) fn read<C>(case: &Case<C>, slot: Slot) -> Option<VDuration> {
    let calls = &case.schedule.calls;
    match slot {
        Slot::Gap(call) => Some(calls[call].gap_before),
        Slot::Cancel(call) => calls[call].cancel_after,
        Slot::Step(call, step) => Some(calls[call].steps[step].duration),
        Slot::RetryAfter(call, step) => match calls[call].steps[step].outcome {
            Outcome::RateLimited { retry_after } => Some(retry_after),
            _ => None,
        },
    }
}

pub(super) fn write<C: Clone>(case: &Case<C>, slot: Slot, value: VDuration) -> Case<C> {
    let mut next = case.clone();
    let calls = &mut next.schedule.calls;
    match slot {
        Slot::Gap(call) => calls[call].gap_before = value,
        Slot::Cancel(call) => calls[call].cancel_after = Some(value),
        Slot::Step(call, step) => calls[call].steps[step].duration = value,
        Slot::RetryAfter(call, step) => calls[call].steps[step].outcome = Outcome::RateLimited { retry_after: value },
    }
    next
}

/// The contract values a duration is worth trying before a binary search, smallest first.
pub(super) fn boundaries(contract: &Contract) -> Vec<VDuration> {
    let mut values: Vec<VDuration> = [
        contract.timing.attempt_timeout,
        contract.timing.attempt_timeout.map(|t| t.saturating_sub(VDuration::from_nanos(1))),
        contract.delays.max,
        contract.delays.min,
        contract.timing.deadline,
        contract.delays.sleep_budget,
        contract.circuit.into_stated().map(|c| c.open_for),
    ]
    .into_iter()
    .flatten()
    .collect();
    values.sort_unstable();
    values.dedup();
    values
}

/// Every step of the schedule made instant at once, one candidate, before the numbers' binary
/// searches: a limit whose boundary only the steps' durations hold up (a deadline above the time the
/// attempts took) is then searched once, down to its own boundary, rather than first to the steps'.
/// Where that loses the failure and the case has a backward wall jump, the same with every backward
/// jump turned forward by as much (the two clocks then disagree the other way round, with no duration
/// left; see `clock_passes::instant_with_jumps_forward`, the same move for one step).
fn zero_step_durations<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut candidates = super::moves::all_instant(&shrinker.best).into_iter();
    let Some(instant) = candidates.next() else { return false };
    if shrinker.attempt(instant) {
        return true;
    }
    candidates.next().is_some_and(|forward| !shrinker.out_of_budget() && shrinker.attempt(forward))
}

fn shrink_durations<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    for slot in slots(&shrinker.best) {
        progress |= lower_slot(shrinker, slot);
        if shrinker.out_of_budget() {
            break;
        }
    }
    progress
}

fn lower_slot<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, slot: Slot) -> bool {
    let Some(current) = read(&shrinker.best, slot) else { return false };
    if current.is_zero() {
        return false;
    }
    if shrinker.attempt(write(&shrinker.best, slot, VDuration::ZERO)) {
        return true;
    }
    if let Slot::Step(call, step) = slot {
        let forward = super::clock_passes::instant_with_jumps_forward(&shrinker.best, call, step);
        if forward.is_some_and(|candidate| shrinker.attempt(candidate)) {
            return true;
        }
    }
    // One nanosecond next: where a boundary sits just above zero, no search is needed.
    let one = VDuration::from_nanos(1);
    if current > one && shrinker.attempt(write(&shrinker.best, slot, one)) {
        return true;
    }
    if let Slot::Step(call, step) = slot {
        let shifted = super::shift::time_taken_out(shrinker.subject, &shrinker.best, call, step);
        if shifted.is_some_and(|candidate| shrinker.attempt(candidate)) {
            return true;
        }
    }
    let mut progress = false;
    for value in boundaries(&shrinker.contract()) {
        let now = read(&shrinker.best, slot).unwrap_or(VDuration::ZERO);
        if value < now && shrinker.attempt(write(&shrinker.best, slot, value)) {
            progress = true;
            break;
        }
    }
    // One nanosecond lower first: when that loses the failure, the binary search's own assumption says
    // no smaller value keeps it either, so the search is skipped.
    let now = read(&shrinker.best, slot).unwrap_or(VDuration::ZERO).as_nanos();
    if now <= 2 || !shrinker.attempt(write(&shrinker.best, slot, VDuration::from_nanos(now - 1))) {
        return progress;
    }
    // Binary search between a value known to lose the failure (1 ns) and the current failing value.
    let (mut low, mut high) = (1_u64, now - 1);
    progress = true;
    while high - low > 1 && !shrinker.out_of_budget() {
        let middle = low + (high - low) / 2;
        if shrinker.attempt(write(&shrinker.best, slot, VDuration::from_nanos(middle))) {
            high = middle;
            progress = true;
        } else {
            low = middle;
        }
    }
    progress
}

fn zero_seed<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    if shrinker.best.seed == 0 {
        return false;
    }
    let mut candidate = shrinker.best.clone();
    candidate.seed = 0;
    shrinker.attempt(candidate)
}
