//! The cost of judging: the whole catalogue, and each law alone, on a typical trace of about 32 events
//! (a reference run with retries, jitter, a timeout and a circuit breaker over a few calls).

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
use timelaw_core::{execute, CallScript, CircuitContract, Outcome, Schedule, Step, Subject, VDuration};
use timelaw_laws::{Catalogue, Observation};

fn typical() -> (Policy, Schedule) {
    let ms = VDuration::from_millis;
    let breaker = CircuitContract {
        window: 8,
        min_calls: 4,
        failure_percent: 50,
        open_for: ms(50),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };
    let policy = Policy {
        jitter: Jitter::Equal,
        attempt_timeout: Some(ms(20)),
        circuit: Some(breaker),
        honor_retry_after: true,
        ..Policy::new(4, Backoff::Exponential { initial: ms(5), factor: 2 }, ms(40))
    };
    let call = |steps: &[(u64, Outcome)]| {
        CallScript::new(steps.iter().map(|&(millis, outcome)| Step::new(ms(millis), outcome)).collect())
    };
    let schedule = Schedule::new(vec![
        call(&[(3, Outcome::Transient), (4, Outcome::Transient), (2, Outcome::Ok)]),
        call(&[(1, Outcome::RateLimited { retry_after: ms(15) }), (2, Outcome::Ok)]),
        call(&[(30, Outcome::Ok), (5, Outcome::Transient), (1, Outcome::Ok)]),
        call(&[(1, Outcome::Fatal)]),
        call(&[(2, Outcome::Ok)]),
    ]);
    (policy, schedule)
}

fn judge(c: &mut Criterion) {
    let (policy, schedule) = typical();
    let trace = execute(&Reference, &policy, &schedule, 7);
    let contract = Reference.contract(&policy);
    let observation = Observation {
        schedule: &schedule,
        seed: 7,
        contract: &contract,
        trace: &trace,
        replay: None,
        without_wall_jumps: None,
    };
    let catalogue = Catalogue::standard();
    let mut verdicts = Vec::with_capacity(catalogue.len());
    let name = format!("catalogue of {} laws on {} events", catalogue.len(), trace.events.len());
    c.bench_function(&name, |b| {
        b.iter(|| {
            catalogue.judge_all(black_box(&observation), &mut verdicts);
            verdicts.len()
        })
    });
    let mut group = c.benchmark_group("law");
    for law in &catalogue {
        group.bench_function(law.id, |b| b.iter(|| law.judge(black_box(&observation))));
    }
    group.finish();
}

criterion_group!(benches, judge);
criterion_main!(benches);
