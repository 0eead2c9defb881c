//! Runner throughput, side by side in one run: the timelaw runner on 1 and 2 threads, an equivalent
//! hand-written proptest `TestRunner` harness checking the same laws on the same subject (the strategy a
//! user writes with proptest's combinators), the same harness fed by timelaw's own proptest front-end,
//! and a plain loop with the native sampler and no runner machinery.
//!
//! `cargo bench --bench throughput` (`TIMELAW_BENCH_CASES` sets the cases per measurement, default 200,000).

use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use timelaw::core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw::core::{
    mix, BudgetContract, CallScript, Case, CircuitContract, Limits, Outcome, RetryOn, Schedule, Step, VDuration,
};
use timelaw::eval::evaluate;
use timelaw::generators::{case_strategy, sample_case, swarm_for};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::Config;

fn cases() -> u64 {
    std::env::var("TIMELAW_BENCH_CASES").ok().and_then(|text| text.parse().ok()).unwrap_or(200_000)
}

fn timed(name: &str, cases: u64, threads: usize, work: impl FnOnce()) -> f64 {
    let started = Instant::now();
    work();
    let seconds = started.elapsed().as_secs_f64();
    let per_second = cases as f64 / seconds;
    println!("{name:<34} {threads:>2} thread(s) {cases:>8} cases {seconds:>8.3} s {per_second:>12.0} cases/s");
    per_second
}

fn runner(laws: &Catalogue, cases: u64, threads: usize) {
    let config = Config { cases, threads, replay_every: 0, ..Config::default() };
    let output = run(&Reference, laws, &config, &Silent);
    assert!(output.holds(), "the reference interpreter must hold every law");
}

fn plain_loop(laws: &Catalogue, cases: u64) {
    let seed = Config::default().seed;
    let mut violations = 0;
    for index in 0..cases {
        let case = sample_case(&Reference, mix(seed, index), &swarm_for(seed, index));
        let evaluation = evaluate(&Reference, &case, Limits::default(), false);
        violations += laws.iter().filter(|law| evaluation.judge(law, &case).is_violated()).count();
    }
    assert_eq!(violations, 0);
}

/// The strategy a user writes by hand with proptest's combinators for the same domain as timelaw's:
/// every policy mechanism (backoff kinds, cap, jitter, classifier, retry-after, timeout, deadline, sleep
/// budget, circuit, retry budget) and schedules of up to 8 calls of up to 12 steps with every outcome.
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
        },
    );
    let budget =
        (0..10_u32, 0..200_u32).prop_map(|(min_retries, retry_percent)| BudgetContract { min_retries, retry_percent });
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
            });
    let schedule = proptest::collection::vec(call, 1..8).prop_map(Schedule::new);
    (policy, schedule, any::<u64>()).prop_map(|(policy, schedule, seed)| Case::new(policy, schedule, seed)).boxed()
}

fn proptest_harness(laws: &Catalogue, cases: u64, strategy: &BoxedStrategy<Case<Policy>>) {
    let config = ProptestConfig {
        cases: u32::try_from(cases).unwrap_or(u32::MAX),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(strategy, |case| {
        let evaluation = evaluate(&Reference, &case, Limits::default(), false);
        for law in laws.iter() {
            if evaluation.judge(law, &case).is_violated() {
                return Err(TestCaseError::fail(law.id));
            }
        }
        Ok(())
    });
    assert!(result.is_ok(), "{result:?}");
}

fn main() {
    let laws = Catalogue::standard();
    let cases = cases();
    println!("timelaw throughput: reference interpreter, whole catalogue ({} laws)", laws.len());
    let one = timed("timelaw runner", cases, 1, || runner(&laws, cases, 1));
    let two = timed("timelaw runner", cases, 2, || runner(&laws, cases, 2));
    let plain = timed("plain loop (native sampler)", cases, 1, || plain_loop(&laws, cases));
    let proptest_cases = (cases / 10).max(1);
    let hand = hand_written_strategy();
    let prop =
        timed("proptest harness (hand-written)", proptest_cases, 1, || proptest_harness(&laws, proptest_cases, &hand));
    let ours = case_strategy(&Reference);
    let front = timed("proptest harness (timelaw strategy)", proptest_cases, 1, || {
        proptest_harness(&laws, proptest_cases, &ours)
    });
    println!();
    println!("runner / hand-written proptest harness (1 thread each): {:.1}x", one / prop);
    println!("runner / proptest harness on timelaw's strategy (1 thread each): {:.1}x", one / front);
    println!("runner / plain loop (1 thread each): {:.2}x", one / plain);
    println!("runner 2 threads / 1 thread: {:.2}x", two / one);
}
