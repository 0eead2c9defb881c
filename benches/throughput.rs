//! Runner throughput, like for like, side by side in one run.
//!
//! Every row states the distribution its cases come from, and the mean calls and scripted steps per case
//! it really drew, so that rates are compared only on cases of one size:
//! - **runner's distribution** (native sampler, a swarm per batch of 64 cases, `swarm_for`): the timelaw
//!   runner on 1 and 2 threads, a plain loop (native sampler, no runner machinery), and a proptest
//!   `TestRunner` fed by timelaw's proptest front-end over the same descriptions, case `i` under the
//!   runner's swarm of case `i`;
//! - **hand-written distribution** (the strategy a user writes with proptest's combinators, see
//!   [`hand_written_strategy`]): that proptest harness, and a plain loop whose native sampler draws
//!   exactly that distribution (the runner itself only draws from the generators' descriptions, so this
//!   loop stands in for it; the runner / plain-loop ratio on the runner's distribution says what the
//!   runner's machinery adds);
//! - **every swarm feature on** (`Swarm::everything()`, what `case_strategy` draws): a proptest
//!   `TestRunner` fed by `case_strategy(&Reference)`, and a plain loop with the native sampler under that
//!   same swarm.
//!
//! - **runner's distribution under load** (`--concurrency`: `swarm_for_run(seed, i, true)`, half the
//!   batches with overlapping calls and the load mechanisms): the runner on 1 thread, beside its
//!   sequential row, so both figures come from one run.
//!
//! - **check's distribution** (what `timelaw check` runs with no options: `Config::default()`'s swarm,
//!   overlapping calls in half the batches, the replay check on one case in 16, the watchdog on): the
//!   runner on 1 and 2 threads, and a bare loop over the same cases in three rows, one phase more in
//!   each (drawing; running the subject; judging every law), so their differences say where a case's
//!   time goes, and the runner's row minus the last says what the runner's own machinery costs (tally,
//!   coverage, watchdog). After the table, the costliest laws on those cases, each judged alone.
//!
//! Every row runs the same number of cases, so the runner and the proptest harness fed by timelaw's
//! front-end see the same swarm sequence. `cargo bench --bench throughput`; `TIMELAW_BENCH_CASES` sets the
//! cases per row (default 200,000, at least 10); `TIMELAW_BENCH_CASES=2000` is a quick smoke run.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use timelaw::core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw::core::{
    mix, BudgetContract, CallScript, Case, CircuitContract, Limits, Outcome, RetryOn, Schedule, SplitMix64, Step,
    Subject, Trace, VDuration,
};
use timelaw::eval::{evaluate, evaluate_under, Evaluation};
use timelaw::generators::{
    case_strategy, choice_strategy, describe_policy, describe_schedule, sample_case, sample_case_with_contract,
    swarm_for, swarm_for_run, Choices, Swarm, SWARM_BATCH_CASES,
};
use timelaw::laws::catalogue::{judged_per_call, vacuous_without};
use timelaw::laws::temporal::{calls_interleave, grouped_by_call};
use timelaw::laws::{ids, Catalogue, Features, Observation};
use timelaw::runner::{run, Silent};
use timelaw::Config;

const RUNNER: &str = "runner's";
const HAND: &str = "hand-written";
const EVERYTHING: &str = "everything on";
const LOAD: &str = "under load";
const CHECK: &str = "check's";
/// The most cases [`law_costs`] keeps evaluated in memory at once.
const LAW_COST_CASES_MAX: u64 = 20_000;

fn cases() -> u64 {
    std::env::var("TIMELAW_BENCH_CASES").ok().and_then(|text| text.parse().ok()).unwrap_or(200_000).max(10)
}

/// Calls and scripted steps over the cases a row drew.
#[derive(Clone, Copy, Debug, Default)]
struct Sizes {
    cases: u64,
    calls: u64,
    steps: u64,
}

impl Sizes {
    fn add(&mut self, case: &Case<Policy>) {
        self.cases += 1;
        self.calls += case.schedule.calls.len() as u64;
        self.steps += case.schedule.step_count() as u64;
    }
}

/// One measured row of the table.
struct Row {
    name: &'static str,
    distribution: &'static str,
    threads: usize,
    sizes: Sizes,
    seconds: f64,
}

impl Row {
    fn cases_per_second(&self) -> f64 {
        self.sizes.cases as f64 / self.seconds
    }
    fn steps_per_second(&self) -> f64 {
        self.sizes.steps as f64 / self.seconds
    }
    fn print(&self) {
        let per_case = |total: u64| total as f64 / self.sizes.cases as f64;
        println!(
            "{:<38} {:<13} {:>2} {:>8} {:>6.2} {:>6.2} {:>8.3} {:>11.0} {:>12.0}",
            self.name,
            self.distribution,
            self.threads,
            self.sizes.cases,
            per_case(self.sizes.calls),
            per_case(self.sizes.steps),
            self.seconds,
            self.cases_per_second(),
            self.steps_per_second(),
        );
    }
}

/// Times `work`, which returns the sizes of the cases it drew.
fn timed(name: &'static str, distribution: &'static str, threads: usize, work: impl FnOnce() -> Sizes) -> Row {
    let started = Instant::now();
    let sizes = work();
    let seconds = started.elapsed().as_secs_f64();
    let row = Row { name, distribution, threads, sizes, seconds };
    row.print();
    row
}

/// Times `work` alone, then measures the sizes of the cases it drew with `sizes` (drawn again, after
/// the timing stopped: the runner does not hand its cases out).
fn timed_then_sized(
    name: &'static str,
    distribution: &'static str,
    threads: usize,
    work: impl FnOnce(),
    sizes: impl FnOnce() -> Sizes,
) -> Row {
    let started = Instant::now();
    work();
    let seconds = started.elapsed().as_secs_f64();
    let row = Row { name, distribution, threads, sizes: sizes(), seconds };
    row.print();
    row
}

fn runner(laws: &Catalogue, cases: u64, threads: usize, concurrency: bool) {
    let config = Config { concurrency, ..runner_config(cases, threads) };
    let output = run(&Reference, laws, &config, &Silent);
    assert!(output.holds(), "the reference interpreter must hold every law");
}

/// The sizes of the cases the runner draws (the same cases, drawn again after the timing stopped).
fn runner_sizes(cases: u64, concurrency: bool) -> Sizes {
    let seed = Config::default().seed;
    let mut sizes = Sizes::default();
    for index in 0..cases {
        sizes.add(&sample_case(&Reference, mix(seed, index), &swarm_for_run(seed, index, concurrency)));
    }
    sizes
}

/// `timelaw check`'s own cases: the default config's swarm of case `index` (overlapping calls in half
/// the batches).
fn check_case(index: u64) -> Case<Policy> {
    let config = Config::default();
    sample_case(&Reference, mix(config.seed, index), &config.swarm_of(index))
}

/// The runner's rows' config: no overlapping calls, no replay check.
fn runner_config(cases: u64, threads: usize) -> Config {
    Config { cases, threads, replay_every: 0, concurrency: false, ..Config::default() }
}

/// The work per case of a run of `config` without the runner's machinery, one phase more in each row:
/// drawing the cases (each batch's swarm once, the contract with the case, as the runner does); then
/// running the subject on them (the World recording its trace, and the second run of the replay check
/// on every `replay_every`-th case, as the runner does); then judging every law with
/// `Catalogue::judge_all` (the whole bare loop). The first two rows bound the run from above: judging
/// at no cost at all would leave the run at the second row's speed.
fn phase_loop(laws: &Catalogue, config: &Config, cases: u64, phases: usize) -> Sizes {
    let (mut sizes, mut verdicts, mut violations) = (Sizes::default(), Vec::new(), 0);
    let mut batch = (0, config.swarm_of(0));
    for index in 0..cases {
        // As the runner does: each batch's swarm drawn once, the contract asked for once a case.
        if index / SWARM_BATCH_CASES != batch.0 {
            batch = (index / SWARM_BATCH_CASES, config.swarm_of(index));
        }
        let (case, contract) =
            std::hint::black_box(sample_case_with_contract(&Reference, mix(config.seed, index), &batch.1));
        sizes.add(&case);
        if phases < 2 {
            continue;
        }
        let replay = config.replay_every > 0 && index.is_multiple_of(config.replay_every);
        let evaluation = std::hint::black_box(evaluate_under(&Reference, &case, contract, config.limits, replay, None));
        if phases < 3 {
            continue;
        }
        laws.judge_all(&evaluation.observation(&case), &mut verdicts);
        violations += verdicts.iter().filter(|verdict| verdict.is_violated()).count();
    }
    assert_eq!(violations, 0);
    sizes
}

/// `timelaw check` as a user runs it: the default config (watchdog, replay check, overlapping calls in
/// half the batches) but for the number of cases and threads.
fn check_defaults(laws: &Catalogue, cases: u64, threads: usize) {
    let config = Config { cases, threads, ..Config::default() };
    let output = run(&Reference, laws, &config, &Silent);
    assert!(output.holds(), "the reference interpreter must hold every law");
}

/// The sizes of `timelaw check`'s cases.
fn check_sizes(cases: u64) -> Sizes {
    let mut sizes = Sizes::default();
    (0..cases).for_each(|index| sizes.add(&check_case(index)));
    sizes
}

/// The laws that cost most on `timelaw check`'s cases: each law judged alone over the same evaluated
/// cases, on the trace `Catalogue::judge_each` hands it (an interleaved trace regrouped by call, once per
/// case and outside the timing, for a law that judges call by call), and cut as the catalogue cuts it (a
/// standard law none of whose facts happened is vacuous without a walk, `vacuous_without`); nanoseconds
/// per case, the largest first. Gathering each case's facts (`Features::of`, once per case for all laws)
/// is timed on its own line.
fn law_costs(laws: &Catalogue, cases: u64) {
    let limits = Config::default().limits;
    let evaluated: Vec<_> = (0..cases)
        .map(|index| {
            let case = check_case(index);
            let evaluation = evaluate(&Reference, &case, limits, false);
            let grouped = calls_interleave(&evaluation.trace.events).then(|| grouped_by_call(&evaluation.trace));
            let features = Features::of(&evaluation.trace, &case.schedule);
            (case, evaluation, grouped, features)
        })
        .collect();
    // Chunk by chunk: the chunk's traces brought into the cache (untimed: the runner judges a trace it has
    // just recorded), then the facts gathered, then every law over the chunk before the next law.
    let (mut seconds, mut features_seconds) = (vec![0.0_f64; laws.len()], 0.0);
    for chunk in evaluated.chunks(LAW_COST_CHUNK_CASES) {
        warm(chunk);
        let started = Instant::now();
        for (case, evaluation, _, _) in chunk {
            std::hint::black_box(Features::of(&evaluation.trace, &case.schedule));
        }
        features_seconds += started.elapsed().as_secs_f64();
        for (law, seconds) in laws.iter().zip(&mut seconds) {
            let (per_call, needed) = (judged_per_call(law.id), vacuous_without(law));
            let started = Instant::now();
            for (case, evaluation, grouped, features) in chunk {
                let observation = evaluation.observation(case);
                let observation = match grouped {
                    Some(grouped) if per_call => Observation { trace: grouped, ..observation },
                    _ => observation,
                };
                let cut = !needed.is_empty() && !features.intersects(needed);
                if (law.applies)(observation.contract) && !cut {
                    std::hint::black_box((law.check)(&observation));
                }
            }
            *seconds += started.elapsed().as_secs_f64();
        }
    }
    let features_ns = features_seconds * 1e9 / cases as f64;
    let mut costs: Vec<(f64, &str)> =
        laws.iter().zip(&seconds).map(|(law, seconds)| (seconds * 1e9 / cases as f64, law.id)).collect();
    let total: f64 = costs.iter().map(|&(ns, _)| ns).sum();
    costs.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!(
        "judging law by law over {cases} of check's cases: {:.0} ns a case for all {} laws, of which gathering \
         the facts {features_ns:.0} ns",
        total + features_ns,
        laws.len()
    );
    for (ns, id) in costs.iter().take(LAW_COSTS_LISTED) {
        println!("  {id:<44} {ns:>7.1} ns a case");
    }
    // A catalogue's own work a case (the facts, an interleaved trace regrouped), outside the laws.
    let own = judged_together(&evaluated, &[]);
    println!("a catalogue's own work (the facts gathered, an interleaved trace regrouped): {own:.0} ns a case");
    for (walk, ids) in SHARED_WALKS {
        let alone: f64 = costs.iter().filter(|(_, id)| ids.contains(id)).map(|&(ns, _)| ns).sum();
        let together = judged_together(&evaluated, ids) - own;
        println!(
            "the {} laws that {walk}: {alone:.0} ns a case judged one by one above, {together:.0} ns through one \
             catalogue besides its own work (one walk a case, shared)",
            ids.len()
        );
    }
}

/// Brings the traces of `chunk` into the cache: every event read once.
fn warm(chunk: &[(Case<Policy>, Evaluation, Option<Trace>, Features)]) {
    for (_, evaluation, grouped, _) in chunk {
        for trace in std::iter::once(&evaluation.trace).chain(grouped) {
            std::hint::black_box(trace.events.iter().map(|event| event.seq).sum::<u32>());
        }
    }
}

/// The standard laws that share a walk within a catalogue's judging of a case: the breaker model's
/// replay (`replay_breaker`), the sleeps with their ranges (the delay laws).
const SHARED_WALKS: [(&str, &[&str]); 2] = [
    (
        "replay the breaker",
        &[
            ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH,
            ids::CIRCUIT_HALF_OPEN_AFTER_COOLDOWN,
            ids::HALF_OPEN_PROBE_LIMIT,
            ids::CIRCUIT_CLOSED_ADMITS,
            ids::CIRCUIT_CLOSES_AFTER_PROBES,
            ids::CIRCUIT_PROBE_SLOT_FREED,
        ],
    ),
    (
        "walk the sleeps and their ranges",
        &[
            ids::DELAY_WITHIN_CAP,
            ids::DELAY_AT_LEAST_MIN,
            ids::BACKOFF_SHAPE_WITHOUT_JITTER,
            ids::JITTER_WITHIN_BOUNDS,
            ids::RETRY_AFTER_AS_DECLARED,
        ],
    ),
];

/// Nanoseconds a case for the laws `ids` judged together by one catalogue (which gathers the case's facts
/// once, as every catalogue does), chunk by chunk on cache-warm traces as in [`law_costs`].
fn judged_together(evaluated: &[(Case<Policy>, Evaluation, Option<Trace>, Features)], ids: &[&str]) -> f64 {
    let laws = Catalogue::standard().select(ids).expect("standard law ids");
    let (mut verdicts, mut seconds) = (Vec::with_capacity(laws.len()), 0.0);
    for chunk in evaluated.chunks(LAW_COST_CHUNK_CASES) {
        warm(chunk);
        let started = Instant::now();
        for (case, evaluation, _, _) in chunk {
            laws.judge_all(&evaluation.observation(case), &mut verdicts);
            std::hint::black_box(&verdicts);
        }
        seconds += started.elapsed().as_secs_f64();
    }
    seconds * 1e9 / evaluated.len() as f64
}

/// Cases [`law_costs`] judges with one law before the next law (their traces stay in the cache).
const LAW_COST_CHUNK_CASES: usize = 64;

/// How many of the costliest laws [`law_costs`] lists.
const LAW_COSTS_LISTED: usize = 16;

/// Draws case `index` with `sample`, evaluates it and judges every law through the catalogue
/// (`Catalogue::judge_all`, as the runner and the proptest harness below do): the runner's work per case
/// without its machinery (parallel fold, tally, coverage), but for its swarm drawn per case, not per batch.
fn plain_loop(laws: &Catalogue, cases: u64, sample: impl Fn(u64) -> Case<Policy>) -> Sizes {
    let (mut sizes, mut verdicts, mut violations) = (Sizes::default(), Vec::new(), 0);
    for index in 0..cases {
        let case = sample(index);
        sizes.add(&case);
        let evaluation = evaluate(&Reference, &case, Limits::default(), false);
        laws.judge_all(&evaluation.observation(&case), &mut verdicts);
        violations += verdicts.iter().filter(|verdict| verdict.is_violated()).count();
    }
    assert_eq!(violations, 0);
    sizes
}

fn native_runner_case(index: u64) -> Case<Policy> {
    let seed = Config::default().seed;
    sample_case(&Reference, mix(seed, index), &swarm_for(seed, index))
}

fn native_everything_case(index: u64) -> Case<Policy> {
    sample_case(&Reference, mix(Config::default().seed, index), &Swarm::everything())
}

/// Timelaw's proptest front-end (`choice_strategy`) over the descriptions the native sampler uses, with
/// the runner's swarms: the `i`-th case drawn gets `swarm_for(seed, i)`, as the runner's case `i` does;
/// the other answers come from proptest's RNG. (The counter also advances on shrink replays, so this
/// strategy is only for passing runs like this benchmark's.)
fn timelaw_strategy_runner_swarms() -> BoxedStrategy<Case<Policy>> {
    let seed = Config::default().seed;
    let next_index = AtomicU64::new(0);
    choice_strategy(move |tape| {
        let swarm = swarm_for(seed, next_index.fetch_add(1, Ordering::Relaxed));
        let policy = describe_policy(tape, &swarm);
        let schedule = describe_schedule(tape, &swarm, &Reference.contract(&policy));
        Case::new(policy, schedule, tape.pick(u64::MAX))
    })
}

/// The strategy a user writes by hand with proptest's combinators for the reference policy domain: every
/// policy mechanism (1-9 attempts; constant, linear, exponential (factor 1-15) or decorrelated backoff
/// from 0-999 ms; a cap 0-59.999 s above the initial delay; jitter; classifier; retry-after; and, each
/// present half the time, an attempt timeout of 1 ms-5 s, a deadline of 1 ms-60 s, a sleep budget of
/// 0-60 s, a circuit, a retry budget) and schedules of 1-7 calls (mean 4) of 0-11 steps (mean 5.5) of
/// 0-5 s, each ending `Ok`, `Transient`, `Fatal` or `RateLimited` (0-5 s) with equal odds. No `Hang`: a
/// hang ends only by a timeout or a cancellation, and without one the call never ends (the native
/// description draws `Hang` only where something cuts the attempt). [`sample_hand_written`] draws the
/// same distribution natively.
fn hand_written_strategy() -> BoxedStrategy<Case<Policy>> {
    let ms = |range: std::ops::Range<u64>| range.prop_map(VDuration::from_millis);
    let backoff = prop_oneof![
        ms(0..1000).prop_map(|delay| Backoff::Constant { delay }),
        (ms(0..1000), ms(0..1000)).prop_map(|(initial, step)| Backoff::Linear { initial, step }),
        (ms(0..1000), 1..16_u32).prop_map(|(initial, factor)| Backoff::Exponential { initial, factor }),
        ms(0..1000).prop_map(|initial| Backoff::Decorrelated { initial }),
    ];
    let jitter = prop_oneof![Just(Jitter::None), Just(Jitter::Full), Just(Jitter::Equal)];
    let retry_on = (any::<bool>(), any::<bool>(), any::<bool>())
        .prop_map(|(transient, rate_limited, timeout)| RetryOn { transient, rate_limited, timeout });
    let circuit = (1..128_u32, 1..128_u32, 1..=100_u32, ms(0..60_000), 1..4_u32).prop_map(
        |(window, min_calls, failure_percent, open_for, half_open_probes)| CircuitContract {
            window,
            min_calls: min_calls.min(window),
            failure_percent,
            open_for,
            half_open_probes,
            ..CircuitContract::DEFAULT
        },
    );
    let budget = (0..10_u32, 0..200_u32).prop_map(|(min_retries, retry_percent)| BudgetContract {
        min_retries,
        retry_percent,
        ..BudgetContract::default()
    });
    let mechanisms = (
        proptest::option::of(ms(1..5_000)),
        proptest::option::of(ms(1..60_000)),
        proptest::option::of(ms(0..60_000)),
        proptest::option::of(circuit),
        proptest::option::of(budget),
    );
    let policy = (1..10_u32, backoff, ms(0..60_000), jitter, retry_on, any::<bool>(), mechanisms).prop_map(
        |(max_attempts, backoff, extra, jitter, retry_on, honor_retry_after, mechanisms)| {
            let (attempt_timeout, deadline, sleep_budget, circuit, retry_budget) = mechanisms;
            let decorrelated = matches!(backoff, Backoff::Decorrelated { .. });
            Policy {
                jitter: if decorrelated { Jitter::None } else { jitter },
                retry_on,
                honor_retry_after,
                attempt_timeout,
                deadline,
                sleep_budget,
                circuit,
                retry_budget,
                ..Policy::new(max_attempts, backoff, backoff.initial().saturating_add(extra))
            }
        },
    );
    let outcome = prop_oneof![
        Just(Outcome::Ok),
        Just(Outcome::Transient),
        Just(Outcome::Fatal),
        ms(0..5_000).prop_map(|retry_after| Outcome::RateLimited { retry_after }),
    ];
    let step = (ms(0..5_000), outcome).prop_map(|(duration, outcome)| Step::new(duration, outcome));
    let call =
        (ms(0..10_000), proptest::collection::vec(step, 0..12), proptest::option::of(ms(0..10_000)), any::<bool>())
            .prop_map(|(gap_before, steps, cancel_after, idempotent)| CallScript {
                gap_before,
                steps,
                cancel_after,
                idempotent,
                arrival: None,
            });
    let schedule = proptest::collection::vec(call, 1..8).prop_map(Schedule::new);
    (policy, schedule, any::<u64>()).prop_map(|(policy, schedule, seed)| Case::new(policy, schedule, seed)).boxed()
}

/// A duration of `0..bound_ms` whole milliseconds, uniform (what `(0..bound_ms).prop_map(from_millis)` draws).
fn ms_below(rng: &mut SplitMix64, bound_ms: u64) -> VDuration {
    VDuration::from_millis(rng.below(bound_ms))
}

/// `Some(draw())` half the time (what `proptest::option::of` does).
fn half<T>(rng: &mut SplitMix64, draw: impl FnOnce(&mut SplitMix64) -> T) -> Option<T> {
    rng.chance(1, 2).then(|| draw(rng))
}

fn hand_written_backoff(rng: &mut SplitMix64) -> Backoff {
    let initial = ms_below(rng, 1000);
    match rng.below(4) {
        0 => Backoff::Constant { delay: initial },
        1 => Backoff::Linear { initial, step: ms_below(rng, 1000) },
        2 => Backoff::Exponential { initial, factor: 1 + rng.below(15) as u32 },
        _ => Backoff::Decorrelated { initial },
    }
}

fn hand_written_circuit(rng: &mut SplitMix64) -> CircuitContract {
    let window = 1 + rng.below(127) as u32;
    let min_calls = (1 + rng.below(127) as u32).min(window);
    let failure_percent = 1 + rng.below(100) as u32;
    let open_for = ms_below(rng, 60_000);
    CircuitContract {
        window,
        min_calls,
        failure_percent,
        open_for,
        half_open_probes: 1 + rng.below(3) as u32,
        ..CircuitContract::DEFAULT
    }
}

/// The policy distribution of [`hand_written_strategy`], drawn natively.
fn hand_written_policy(rng: &mut SplitMix64) -> Policy {
    let max_attempts = 1 + rng.below(9) as u32;
    let backoff = hand_written_backoff(rng);
    let delay_max = backoff.initial().saturating_add(ms_below(rng, 60_000));
    let jitter = [Jitter::None, Jitter::Full, Jitter::Equal][rng.below(3) as usize];
    let retry_on = RetryOn { transient: rng.chance(1, 2), rate_limited: rng.chance(1, 2), timeout: rng.chance(1, 2) };
    let decorrelated = matches!(backoff, Backoff::Decorrelated { .. });
    Policy {
        jitter: if decorrelated { Jitter::None } else { jitter },
        retry_on,
        honor_retry_after: rng.chance(1, 2),
        attempt_timeout: half(rng, |rng| VDuration::from_millis(1 + rng.below(4_999))),
        deadline: half(rng, |rng| VDuration::from_millis(1 + rng.below(59_999))),
        sleep_budget: half(rng, |rng| ms_below(rng, 60_000)),
        circuit: half(rng, hand_written_circuit),
        retry_budget: half(rng, |rng| BudgetContract {
            min_retries: rng.below(10) as u32,
            retry_percent: rng.below(200) as u32,
            ..BudgetContract::default()
        }),
        ..Policy::new(max_attempts, backoff, delay_max)
    }
}

fn hand_written_call(rng: &mut SplitMix64) -> CallScript {
    let gap_before = ms_below(rng, 10_000);
    let steps = (0..rng.below(12))
        .map(|_| {
            let duration = ms_below(rng, 5_000);
            let outcome = match rng.below(4) {
                0 => Outcome::Ok,
                1 => Outcome::Transient,
                2 => Outcome::Fatal,
                _ => Outcome::RateLimited { retry_after: ms_below(rng, 5_000) },
            };
            Step::new(duration, outcome)
        })
        .collect();
    let cancel_after = half(rng, |rng| ms_below(rng, 10_000));
    CallScript { gap_before, steps, cancel_after, idempotent: rng.chance(1, 2), arrival: None }
}

/// Case `index` of the [`hand_written_strategy`] distribution, drawn natively (for the plain loop).
fn sample_hand_written(index: u64) -> Case<Policy> {
    let mut rng = SplitMix64::new(mix(Config::default().seed, index));
    let policy = hand_written_policy(&mut rng);
    let calls = (0..1 + rng.below(7)).map(|_| hand_written_call(&mut rng)).collect();
    Case::new(policy, Schedule::new(calls), rng.next_u64())
}

fn proptest_harness(laws: &Catalogue, cases: u64, strategy: &BoxedStrategy<Case<Policy>>) -> Sizes {
    let config = ProptestConfig {
        cases: u32::try_from(cases).unwrap_or(u32::MAX),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let sizes = Cell::new(Sizes::default());
    let verdicts = std::cell::RefCell::new(Vec::new());
    let result = runner.run(strategy, |case| {
        let mut counted = sizes.get();
        counted.add(&case);
        sizes.set(counted);
        let evaluation = evaluate(&Reference, &case, Limits::default(), false);
        let mut verdicts = verdicts.borrow_mut();
        laws.judge_all(&evaluation.observation(&case), &mut verdicts);
        match verdicts.iter().zip(laws).find(|(verdict, _)| verdict.is_violated()) {
            Some((_, law)) => Err(TestCaseError::fail(law.id)),
            None => Ok(()),
        }
    });
    assert!(result.is_ok(), "{result:?}");
    sizes.get()
}

fn ratio(name: &str, over: &Row, under: &Row) {
    println!(
        "{name:<58} {:>6.2}x cases/s {:>6.2}x steps/s",
        over.cases_per_second() / under.cases_per_second(),
        over.steps_per_second() / under.steps_per_second()
    );
}

fn main() {
    let laws = Catalogue::standard();
    let cases = cases();
    println!("timelaw throughput: reference interpreter, whole catalogue ({} laws)", laws.len());
    println!(
        "{:<38} {:<13} {:>2} {:>8} {:>6} {:>6} {:>8} {:>11} {:>12}",
        "harness", "distribution", "th", "cases", "calls", "steps", "seconds", "cases/s", "steps/s"
    );
    let check_one = timed_then_sized(
        "timelaw check's defaults",
        CHECK,
        1,
        || check_defaults(&laws, cases, 1),
        || check_sizes(cases),
    );
    let check_two = timed_then_sized(
        "timelaw check's defaults",
        CHECK,
        2,
        || check_defaults(&laws, cases, 2),
        || check_sizes(cases),
    );
    let check = Config::default();
    let sampled = timed("bare loop: drawing only", CHECK, 1, || phase_loop(&laws, &check, cases, 1));
    let evaluated = timed("bare loop: drawing, running", CHECK, 1, || phase_loop(&laws, &check, cases, 2));
    let bare = timed("bare loop: drawing, running, judging", CHECK, 1, || phase_loop(&laws, &check, cases, 3));
    let one =
        timed_then_sized("timelaw runner", RUNNER, 1, || runner(&laws, cases, 1, false), || runner_sizes(cases, false));
    let own = runner_config(cases, 1);
    let runner_sampled = timed("bare loop: drawing only", RUNNER, 1, || phase_loop(&laws, &own, cases, 1));
    let runner_evaluated = timed("bare loop: drawing, running", RUNNER, 1, || phase_loop(&laws, &own, cases, 2));
    let runner_bare = timed("bare loop: drawing, running, judging", RUNNER, 1, || phase_loop(&laws, &own, cases, 3));
    let two =
        timed_then_sized("timelaw runner", RUNNER, 2, || runner(&laws, cases, 2, false), || runner_sizes(cases, false));
    let load = timed_then_sized(
        "timelaw runner, --concurrency",
        LOAD,
        1,
        || runner(&laws, cases, 1, true),
        || runner_sizes(cases, true),
    );
    let plain = timed("plain loop, native sampler", RUNNER, 1, || plain_loop(&laws, cases, native_runner_case));
    let ours = timelaw_strategy_runner_swarms();
    let front = timed("proptest fed by timelaw's front-end", RUNNER, 1, || proptest_harness(&laws, cases, &ours));
    let hand = hand_written_strategy();
    let prop = timed("proptest, hand-written strategy", HAND, 1, || proptest_harness(&laws, cases, &hand));
    let mirror = timed("plain loop, native sampler", HAND, 1, || plain_loop(&laws, cases, sample_hand_written));
    let every = case_strategy(&Reference);
    let public = timed("proptest fed by case_strategy", EVERYTHING, 1, || proptest_harness(&laws, cases, &every));
    let wide = timed("plain loop, native sampler", EVERYTHING, 1, || plain_loop(&laws, cases, native_everything_case));
    println!("(calls, steps: mean per case drawn; steps: scripted steps; th: threads)");
    println!();
    let per_case_ns = |row: &Row| row.seconds * 1e9 / row.sizes.cases as f64;
    let (drawing_ns, to_run_ns, to_judge_ns) = (per_case_ns(&sampled), per_case_ns(&evaluated), per_case_ns(&bare));
    println!(
        "check's cases, per case on 1 thread: drawing {drawing_ns:.0} ns, running {:.0} ns, judging {:.0} ns, \
         the runner's own work {:.0} ns",
        to_run_ns - drawing_ns,
        to_judge_ns - to_run_ns,
        per_case_ns(&check_one) - to_judge_ns,
    );
    let (drawing_ns, to_run_ns, to_judge_ns) =
        (per_case_ns(&runner_sampled), per_case_ns(&runner_evaluated), per_case_ns(&runner_bare));
    println!(
        "the runner's cases, per case on 1 thread: drawing {drawing_ns:.0} ns, running {:.0} ns, judging {:.0} ns, \
         the runner's own work {:.0} ns; with judging free, at most {:.0} cases/s",
        to_run_ns - drawing_ns,
        to_judge_ns - to_run_ns,
        per_case_ns(&one) - to_judge_ns,
        runner_evaluated.cases_per_second(),
    );
    law_costs(&laws, cases.min(LAW_COST_CASES_MAX));
    println!();
    ratio("check's defaults, 2 threads / 1 thread", &check_two, &check_one);
    ratio("check's defaults / bare loop (check's cases, 1 thread)", &check_one, &bare);
    ratio("runner 2 threads / 1 thread", &two, &one);
    ratio("runner under load / sequential (1 thread)", &load, &one);
    ratio("runner / plain loop (runner's distribution)", &one, &plain);
    ratio("runner / bare loop (runner's distribution)", &one, &runner_bare);
    ratio("runner / proptest fed by timelaw (runner's distribution)", &one, &front);
    ratio("plain loop / proptest hand-written (hand-written distr.)", &mirror, &prop);
    ratio("plain loop / proptest case_strategy (everything on)", &wide, &public);
}
