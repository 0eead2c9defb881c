//! Every single shrink move from a case ([`moves`]): what "1-minimal" is measured against. A minimum
//! is 1-minimal when no single move keeps the failure; the checked-in minima are tested that way.

use timelaw_core::{Case, FailFrom, JumpAt, Limits, Outcome, VDuration};
use timelaw_generators::{case_outside, ConfigDomain};

use super::adapt::{boundary_moves, numbers_followed};
use super::clock_passes::{instant_with_jumps_forward, write as write_clock, Number};
use super::concurrency::{
    earlier_from, earlier_one, later_to_next, serialized, slack, smaller_choices, swapped, trimmed, with_choices,
};
use super::counted::dropped_with_counts;
use super::merge::{folded, merged, shifted};
use super::numbers::{near_pairs, tied_groups, without_highest_minimum};
use super::order::{arrivals, case_shape, is_cut, within, Bound};
use super::outcomes::{rewritten_pairs, simpler_steps, uncut_config};
use super::passes::{boundaries, merge_equal_neighbours, read, slots, write};
use super::reindex::{dropped_reindexed, Made};
use super::retries::{any_foldable, folded_retries};
use super::shift::time_taken_out;
use super::ties::ties_broken_by_time;

/// One shrink move applied to a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move<C> {
    /// What the move did, in words ("drop call 1", "circuit.window = 2").
    pub name: String,
    /// The case after it.
    pub case: Case<C>,
}

/// Every single move the shrinker may make from `case`, in the order of its passes: drop a call (also
/// with its wall jumps' attempt and sleep points lowered by each amount up to 15), fold
/// a call's gap into the next, serialize overlapping calls, drop or lower interleaving choices, move
/// arrivals (together with the next call, earlier alone or with every later call), the paired moves
/// (a call dropped with a count lowered by one, and also with every percent raised so the same number
/// of calls reaches it, two adjacent one-dispatch calls joined into one dispatch lasting both with every
/// count lowered by one, choices dropped with a first dispatch 1 ns later, a
/// failed step made `ok` until its call ended where calls overlap, the jitter removed with the
/// backoff's first delay lowered to the jitter's lowest draw or one below, and with the first delay at
/// the lowest draw and the second kept), drop a step, merge two adjacent steps (any outcome), lower a repeat (to
/// 1 and by one), merge equal neighbours, drop a call's first dispatch with the backoff advanced by one
/// retry (under a jitter also with the jitter removed, the first delay at its lowest draw and the second
/// kept), drop its last dispatch with its retry's delay taken out of the deadline, make its first
/// dispatch's rate limit a transient failure with the first delay raised to the retry-after, drop the
/// last attempt of a call that used every attempt with the attempts lowered by one and its time and
/// sleep added to the attempt before (under a backoff that does not grow, likewise its first attempt
/// into the attempt after), each simpler config the domain offers (unless its own simpler
/// configs lead back to `case`'s within three steps: a cycle, in which neither is simpler), each config
/// number at its minimum, halved and one lower (with the durations drawn at it lowered along when it
/// is no stated contract boundary), each group of equal numbers together at the same
/// values, each pair of near numbers lowered by one amount (all the slack, half, one), no
/// cancellation, idempotent, no gap, each simpler outcome (a hang's at once or taking the attempt
/// timeout), each step taking no time with its time taken out of the deadline and the
/// elapsed-time limit, each step taking no time with every backward wall jump turned forward, each pair of adjacent steps given simpler outcomes together, each duration at
/// zero, halved, one nanosecond lower and at each contract boundary below it, every step taking no time
/// at once (also with every backward wall jump turned forward), seed zero, each clock fault dropped,
/// each wall jump at the first attempt and smaller (1 ns, half, one lower) and each failed-read rule
/// from the first read and failing fewer reads (1, half, one fewer). Only moves the shrinker may accept are listed: none is larger in the order on
/// simplicity ([`super::order`]: a larger shape, or at an equal shape a config of a larger rank) or breaks
/// more domain rules than `case`.
///
/// The coupled form of a config move (the schedule adapted to the moved boundaries) needs a run of the
/// subject, so it is not listed; the plain config move is.
pub fn moves<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>) -> Vec<Move<S::Config>> {
    listed(subject, case, Cycles::Excluded)
}

/// [`moves`] with the config moves that lead back to `case`'s config kept: every case one move from
/// `case`. Cheaper: telling a move that leads back costs a bounded search of the domain's candidates per
/// config move, which made a fuzz target's masking (it asks whether a case is one move from a pinned one,
/// where a move that leads back counts too) four times slower once the adapters offered more candidates.
pub fn neighbours<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>) -> Vec<Move<S::Config>> {
    listed(subject, case, Cycles::Kept)
}

/// Whether [`moves`] leaves out the config moves that lead back (see [`leads_back`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cycles {
    Excluded,
    Kept,
}

fn listed<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>, cycles: Cycles) -> Vec<Move<S::Config>> {
    let mut out = Vec::new();
    schedule_moves(case, &mut out);
    concurrency_moves(case, &mut out);
    paired_moves(subject, case, &mut out);
    config_moves(subject, case, cycles, &mut out);
    for call in 0..case.schedule.calls.len() {
        for pair in super::paired::paired_drops(subject, case, call) {
            push(&mut out, pair.name, pair.paired);
        }
    }
    detail_moves(subject, case, &mut out);
    let outside = case_outside(subject, case).len();
    let rank = subject.config_rank(&case.config);
    let bound = Bound { shape: case_shape(subject, case), rank: &rank, arrivals: arrivals(&case.schedule) };
    out.retain(|m: &Move<S::Config>| {
        let (candidate, rank) = (&m.case.schedule, || subject.config_rank(&m.case.config));
        m.case != *case
            && within(case_shape(subject, &m.case), rank, || arrivals(candidate), &bound)
            && case_outside(subject, &m.case).len() <= outside
    });
    out
}

fn push<C>(out: &mut Vec<Move<C>>, name: String, case: Case<C>) {
    out.push(Move { name, case });
}

fn schedule_moves<C: Clone>(case: &Case<C>, out: &mut Vec<Move<C>>) {
    for call in 0..case.schedule.calls.len() {
        let mut dropped = case.clone();
        dropped.schedule.calls.remove(call);
        push(out, format!("drop call {call}"), dropped);
        if let Some(next) = folded(case, call) {
            push(out, format!("fold call {call} into the next"), next);
        }
        if let Some(next) = shifted(case, call) {
            push(out, format!("move call {call}'s gap to the next call"), next);
        }
        if let Some(next) = super::gap::into_gap(case, call) {
            push(out, format!("call {call}'s last step dropped, its time into the next call's gap"), next);
        }
        let steps = case.schedule.calls[call].steps.clone();
        for (index, step) in steps.iter().enumerate() {
            let mut dropped = case.clone();
            dropped.schedule.calls[call].steps.remove(index);
            push(out, format!("drop call {call} step {index}"), dropped);
            for next in merged(case, call, index) {
                let outcome = next.schedule.calls[call].steps[index].outcome;
                push(out, format!("merge call {call} steps {index} and {} into {outcome:?}", index + 1), next);
            }
            for count in [1, step.count().saturating_sub(1)] {
                if count >= 1 && count < step.count() {
                    let mut lower = case.clone();
                    lower.schedule.calls[call].steps[index] = step.repeated(count);
                    push(out, format!("call {call} step {index} repeated {count} times"), lower);
                }
            }
        }
        let mut neighbours = case.clone();
        merge_equal_neighbours(&mut neighbours.schedule.calls[call]);
        push(out, format!("merge equal neighbours of call {call}"), neighbours);
        reindexed_moves(case, call, out);
    }
}

/// Call `call` dropped with every counted wall-jump point moved down by `by` (to 1 at least), for each
/// `by` below the largest point (at most [`REINDEX_MAX`]): the pass reads the exact amount from a run.
fn reindexed_moves<C: Clone>(case: &Case<C>, call: usize, out: &mut Vec<Move<C>>) {
    let point = |at: JumpAt| match at {
        JumpAt::Attempt(n) | JumpAt::Sleep(n) => n,
        JumpAt::Instant(_) => 0,
    };
    let largest = case.schedule.clock.wall_jumps.iter().map(|jump| point(jump.at)).max().unwrap_or(0);
    for by in 1..largest.min(REINDEX_MAX) {
        let within = Made { attempts: by, sleeps: by };
        if let Some(next) = dropped_reindexed(case, call, Made::default(), within) {
            push(out, format!("drop call {call} with the wall jumps' points {by} lower"), next);
        }
    }
}

/// The largest amount [`reindexed_moves`] moves points by.
const REINDEX_MAX: u32 = 16;

/// Serialized forms; no choices, trailing zeros trimmed, each choice dropped and each lowered; each call
/// arriving with the next one, and arriving earlier (alone and with every later call) by the whole slack,
/// half of it and one nanosecond.
fn concurrency_moves<C: Clone>(case: &Case<C>, out: &mut Vec<Move<C>>) {
    for (index, next) in serialized(case).into_iter().enumerate() {
        push(out, format!("serialize (form {index})"), next);
    }
    let choices = &case.schedule.interleave;
    if !choices.is_empty() {
        push(out, "no interleaving choices".to_owned(), with_choices(case, Vec::new()));
        push(out, "interleaving choices without trailing zeros".to_owned(), with_choices(case, trimmed(choices)));
    }
    for (index, next) in swapped(case).into_iter().enumerate() {
        push(out, format!("a call moved before an earlier one arriving with it, for a choice (form {index})"), next);
    }
    for (index, &choice) in choices.iter().enumerate() {
        let mut dropped = choices.clone();
        dropped.remove(index);
        push(out, format!("drop interleaving choice {index}"), with_choices(case, dropped));
        for value in smaller_choices(choice) {
            let mut lower = choices.clone();
            lower[index] = value;
            push(out, format!("interleaving choice {index} = {value}"), with_choices(case, lower));
        }
    }
    for call in 0..case.schedule.calls.len() {
        if let Some(next) = later_to_next(case, call) {
            push(out, format!("call {call} arrives with call {}", call + 1), next);
        }
        let Some(slack) = slack(case, call) else { continue };
        for by in [slack, slack.div(2), VDuration::from_nanos(1)] {
            if let Some(next) = earlier_from(case, call, by) {
                push(out, format!("calls from {call} on arrive {by:?} earlier"), next);
            }
            if let Some(next) = earlier_one(case, call, by) {
                push(out, format!("call {call} arrives {by:?} earlier"), next);
            }
        }
    }
}

/// The paired moves: a call dropped with a number that could count calls lowered by one; the
/// interleaving choices dropped with a call's first dispatch 1 ns later; where calls overlap, a failed
/// step made `ok` until its call ended (from a run of `case`, with the default limits).
fn paired_moves<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>, out: &mut Vec<Move<S::Config>>) {
    for (index, next) in dropped_with_counts(subject, case).into_iter().enumerate() {
        push(out, format!("a call dropped with a count lowered by one (form {index})"), next);
    }
    for (index, next) in super::shares::dropped_with_shares(subject, case).into_iter().enumerate() {
        push(out, format!("a call dropped with a count lowered by one, its percents raised (form {index})"), next);
    }
    for (index, next) in super::joined::joined_with_counts(subject, case).into_iter().enumerate() {
        push(out, format!("two one-dispatch calls joined, every count lowered by one (form {index})"), next);
    }
    for (index, next) in ties_broken_by_time(case).into_iter().enumerate() {
        push(out, format!("interleaving choices dropped, a first dispatch 1 ns later (form {index})"), next);
    }
    if any_foldable(case) {
        let trace = crate::eval::evaluate(subject, case, Limits::default(), false).trace;
        for (index, next) in folded_retries(case, &trace).into_iter().enumerate() {
            push(out, format!("a failed step made ok until its call ended (form {index})"), next);
        }
    }
    for (index, next) in super::unjitter::unjittered_lowered(subject, case).into_iter().enumerate() {
        push(out, format!("the jitter removed with the first delay lowered (form {index})"), next);
    }
    if let Some(next) = super::unjitter::unjittered_second_kept(subject, case) {
        push(out, "the jitter removed with the first delay lowered and the second kept".to_owned(), next);
    }
    for call in 0..case.schedule.calls.len() {
        for index in 0..subject.config_numbers(&case.config).len() {
            if let Some(next) = super::gap::gap_lowered_with(subject, case, call, index) {
                push(out, format!("call {call}'s gap and config number {index} lowered by one amount"), next);
            }
        }
        if let Some(next) = super::gap::into_delay(subject, case, call) {
            push(out, format!("call {call}'s first step an instant failure, its time into the first delay"), next);
        }
    }
}

fn config_moves<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    cycles: Cycles,
    out: &mut Vec<Move<S::Config>>,
) {
    for (index, config) in subject.shrink_config(&case.config).into_iter().enumerate() {
        // Configs that offer each other as simpler (directly or round a short cycle): neither is simpler.
        if cycles == Cycles::Kept || !leads_back(subject, &config, &case.config) {
            push(out, format!("simpler config {index}"), Case { config, ..case.clone() });
        }
    }
    for (name, config) in super::bisect::one_grid_step_closer(subject, &case.config) {
        push(out, name, Case { config, ..case.clone() });
    }
    let numbers = subject.config_numbers(&case.config);
    let contract = subject.contract(&case.config);
    for (index, number) in numbers.iter().enumerate() {
        let lower = [number.min, number.value / 2, number.value.saturating_sub(1)];
        for value in lower.into_iter().filter(|&value| value >= number.min && value < number.value) {
            if let Some(config) = subject.with_config_number(&case.config, index, value) {
                let next = Case { config, ..case.clone() };
                let unstated = boundary_moves(&contract, &subject.contract(&next.config)).is_empty();
                let followed = numbers_followed(&next, &numbers, &subject.config_numbers(&next.config));
                if let Some(followed) = followed.filter(|_| unstated) {
                    push(out, format!("{} = {value}, the durations drawn at it with it", number.name), followed);
                }
                push(out, format!("{} = {value}", number.name), next);
            }
        }
    }
    let groups = tied_groups(&numbers);
    let rests = groups.iter().map(|group| without_highest_minimum(&numbers, group)).filter(|rest| rest.len() > 1);
    for group in groups.clone().into_iter().chain(rests.collect::<Vec<_>>()) {
        let (value, names) = (numbers[group[0]].value, group.iter().map(|&i| numbers[i].name).collect::<Vec<_>>());
        let min = group.iter().map(|&i| numbers[i].min).max().unwrap_or(0);
        for to in [min, value / 2, value.saturating_sub(1)].into_iter().filter(|&to| to >= min && to < value) {
            let config = group
                .iter()
                .try_fold(case.config.clone(), |config, &index| subject.with_config_number(&config, index, to));
            if let Some(config) = config {
                push(out, format!("{} together = {to}", names.join(", ")), Case { config, ..case.clone() });
            }
        }
    }
    for (i, j) in near_pairs(&numbers) {
        let (a, b) = (numbers[i], numbers[j]);
        let slack = (a.value - a.min).min(b.value - b.min);
        for by in [slack, slack / 2, 1].into_iter().filter(|&by| by >= 1) {
            let config = subject.with_config_number(&case.config, i, a.value - by);
            if let Some(config) = config.and_then(|config| subject.with_config_number(&config, j, b.value - by)) {
                push(out, format!("{} and {} both lower by {by}", a.name, b.name), Case { config, ..case.clone() });
            }
        }
    }
}

/// Whether `to` is among the simpler configs of `from`, or theirs, within a few steps (a bounded search:
/// at most [`CYCLE_DEPTH`] steps and [`CYCLE_NODES`] configs).
fn leads_back<S: ConfigDomain + ?Sized>(subject: &S, from: &S::Config, to: &S::Config) -> bool {
    let mut frontier = vec![from.clone()];
    let mut seen = 0;
    for _ in 0..CYCLE_DEPTH {
        let mut next = Vec::new();
        for config in &frontier {
            for simpler in subject.shrink_config(config) {
                if simpler == *to {
                    return true;
                }
                seen += 1;
                if seen > CYCLE_NODES {
                    return false;
                }
                next.push(simpler);
            }
        }
        frontier = next;
    }
    false
}

/// How many steps of simpler configs [`leads_back`] follows.
const CYCLE_DEPTH: usize = 3;
/// How many configs [`leads_back`] looks at, at most.
const CYCLE_NODES: usize = 2_000;

fn detail_moves<S: ConfigDomain + ?Sized>(subject: &S, case: &Case<S::Config>, out: &mut Vec<Move<S::Config>>) {
    for call in 0..case.schedule.calls.len() {
        let mut edited = [case.clone(), case.clone(), case.clone()];
        edited[0].schedule.calls[call].cancel_after = None;
        edited[1].schedule.calls[call].idempotent = true;
        edited[2].schedule.calls[call].gap_before = VDuration::ZERO;
        for (edit, next) in ["no cancellation", "idempotent", "no gap"].into_iter().zip(edited) {
            push(out, format!("call {call}: {edit}"), next);
        }
        let timing = subject.contract(&case.config).timing;
        for (index, &step) in case.schedule.calls[call].steps.iter().enumerate() {
            for simpler in simpler_steps(step, &timing, case.schedule.calls[call].cancel_after) {
                let mut next = case.clone();
                next.schedule.calls[call].steps[index] = simpler;
                let (outcome, duration) = (simpler.outcome, simpler.duration);
                push(out, format!("call {call} step {index} outcome {outcome:?} taking {duration:?}"), next);
            }
            if step.outcome != Outcome::Hang && is_cut(&step, &timing) {
                if let Some(config) = uncut_config(subject, &case.config, step.duration) {
                    let next = Case { config, ..case.clone() };
                    push(out, format!("call {call} step {index} uncut by the attempt timeout raised past it"), next);
                }
            }
            if let Some(next) = instant_with_jumps_forward(case, call, index) {
                push(out, format!("call {call} step {index} taking no time, backward wall jumps forward"), next);
            }
            if let Some(next) = time_taken_out(subject, case, call, index) {
                push(out, format!("call {call} step {index} taking no time, its time taken out of the limits"), next);
            }
            for next in rewritten_pairs(case, call, index, &timing) {
                let pair = [index, index + 1].map(|i| next.schedule.calls[call].steps[i].outcome);
                push(out, format!("call {call} steps {index} and {} outcomes {pair:?}", index + 1), next);
            }
        }
    }
    let limits = boundaries(&subject.contract(&case.config));
    for slot in slots(case) {
        let Some(value) = read(case, slot) else { continue };
        let one = VDuration::from_nanos(1);
        let mut lower = vec![VDuration::ZERO, value.div(2), value.saturating_sub(one)];
        lower.extend(limits.iter().copied().filter(|limit| *limit < value));
        for to in lower.into_iter().filter(|to| *to < value) {
            push(out, format!("{slot:?} = {to:?}"), write(case, slot, to));
        }
    }
    if case.seed != 0 {
        push(out, "seed 0".to_owned(), Case { seed: 0, ..case.clone() });
    }
    for index in 0..case.schedule.clock.wall_jumps.len() {
        let mut next = case.clone();
        next.schedule.clock.wall_jumps.remove(index);
        push(out, format!("drop wall jump {index}"), next);
    }
    for index in 0..case.schedule.clock.read_failures.len() {
        let mut next = case.clone();
        next.schedule.clock.read_failures.remove(index);
        push(out, format!("drop read failure {index}"), next);
    }
    clock_moves(case, out);
    for (index, next) in all_instant(case).into_iter().enumerate() {
        push(out, format!("every step taking no time (form {index})"), next);
    }
}

/// Each wall jump at the first attempt and its size at 1 ns, halved and one lower (its direction
/// kept); each failed-read rule from the first read and failing one read, half as many and one fewer.
fn clock_moves<C: Clone>(case: &Case<C>, out: &mut Vec<Move<C>>) {
    for (index, jump) in case.schedule.clock.wall_jumps.iter().enumerate() {
        let mut first = case.clone();
        first.schedule.clock.wall_jumps[index].at = JumpAt::Attempt(1);
        push(out, format!("wall jump {index} at the first attempt"), first);
        for to in smaller(jump.by_ns.unsigned_abs()) {
            push(out, format!("wall jump {index} by {to} ns"), write_clock(case, Number::JumpSize(index), to));
        }
    }
    for (index, rule) in case.schedule.clock.read_failures.iter().enumerate() {
        let mut first = case.clone();
        first.schedule.clock.read_failures[index].from = FailFrom::AfterReads(0);
        push(out, format!("read failure {index} from the first read"), first);
        for to in smaller(u64::from(rule.count)) {
            push(
                out,
                format!("read failure {index} failing {to} reads"),
                write_clock(case, Number::FailCount(index), to),
            );
        }
    }
}

/// 1, half and one lower than `value`, each at least 1 and below it.
fn smaller(value: u64) -> impl Iterator<Item = u64> {
    [1, value / 2, value.saturating_sub(1)].into_iter().filter(move |&to| to >= 1 && to < value)
}

/// Every step taking no time, alone and, where a wall jump goes back, with every backward jump turned
/// forward by as much (the candidates of `zero_step_durations`); none when no step takes time.
pub(super) fn all_instant<C: Clone>(case: &Case<C>) -> Vec<Case<C>> {
    let mut instant = case.clone();
    let steps = instant.schedule.calls.iter_mut().flat_map(|call| call.steps.iter_mut());
    let took_time = steps.fold(false, |took, step| {
        let took = took || !step.duration.is_zero();
        step.duration = VDuration::ZERO;
        took
    });
    if !took_time {
        return Vec::new();
    }
    if case.schedule.clock.wall_jumps.iter().all(|jump| jump.by_ns >= 0) {
        return vec![instant];
    }
    let mut forward = instant.clone();
    for jump in &mut forward.schedule.clock.wall_jumps {
        jump.by_ns = jump.by_ns.saturating_abs();
    }
    vec![instant, forward]
}
