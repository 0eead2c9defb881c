//! Cases per second through each adapter: sample a batch of cases (not timed), then time running them
//! (`execute`) and judging the whole catalogue on each trace.
//!
//! Run with `cargo bench -p timelaw-adapters --bench throughput` (optionally `-- CASES`, default 20000).
//! Wall-clock time is read here only, to report speed; nothing on the checking path reads it.

use std::time::Instant;

use timelaw_adapters::backon::{BackonConstant, BackonExponential, BackonFibonacci, BackonRetry};
use timelaw_adapters::exponential_backoff::ExponentialBackoffSubject;
use timelaw_adapters::tokio_retry2::{
    TokioRetry2Exponential, TokioRetry2ExponentialFactor, TokioRetry2Fibonacci, TokioRetry2Fixed, TokioRetry2Linear,
    TokioRetry2Retry,
};
use timelaw_adapters::tokio_timeout_loop::TokioTimeoutLoop;
use timelaw_adapters::tower::{TowerBackoff, TowerBudget};
use timelaw_core::reference::Reference;
use timelaw_core::{execute, mix, Case};
use timelaw_generators::{sample_case, swarm_for, ConfigDomain};
use timelaw_laws::{Catalogue, Observation, Verdict};

const RUN_SEED: u64 = 0xBE7C;

fn measure<S: ConfigDomain>(subject: &S, cases: u64) {
    let batch: Vec<Case<S::Config>> =
        (0..cases).map(|index| sample_case(subject, mix(RUN_SEED, index), &swarm_for(RUN_SEED, index))).collect();
    let catalogue = Catalogue::standard();
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(catalogue.len());
    let started = Instant::now();
    let mut events = 0_usize;
    for case in &batch {
        let trace = execute(subject, &case.config, &case.schedule, case.seed);
        events += trace.events.len();
        let contract = subject.contract(&case.config);
        let observation = Observation {
            schedule: &case.schedule,
            seed: case.seed,
            contract: &contract,
            trace: &trace,
            replay: None,
            without_wall_jumps: None,
        };
        verdicts.clear();
        catalogue.judge_all(&observation, &mut verdicts);
    }
    let seconds = started.elapsed().as_secs_f64();
    let rate = cases as f64 / seconds;
    println!("{:<32} {:>10.0} cases/s  {:>6.1} events/case", subject.name(), rate, events as f64 / cases as f64);
}

fn main() {
    std::panic::set_hook(Box::new(|_| {})); // Subjects that panic are part of the findings.
    let cases = std::env::args().filter_map(|arg| arg.parse().ok()).next().unwrap_or(20_000);
    println!("{cases} cases per subject, run seed {RUN_SEED:#x}, execute + judge {} laws", Catalogue::standard().len());
    measure(&Reference, cases);
    measure(&BackonExponential, cases);
    measure(&BackonFibonacci, cases);
    measure(&BackonConstant, cases);
    measure(&BackonRetry, cases);
    measure(&TowerBackoff, cases);
    measure(&TowerBudget, cases);
    measure(&ExponentialBackoffSubject, cases);
    measure(&TokioRetry2Exponential, cases);
    measure(&TokioRetry2ExponentialFactor, cases);
    measure(&TokioRetry2Fibonacci, cases);
    measure(&TokioRetry2Fixed, cases);
    measure(&TokioRetry2Linear, cases);
    measure(&TokioRetry2Retry, cases);
    measure(&TokioTimeoutLoop, cases);
}
