//! The three front-ends side by side, on the reference interpreter's cases: native sampling (the
//! runner's hot loop), proptest generation (`new_tree` + `current`) and `arbitrary` decoding.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use timelaw_core::reference::Reference;
use timelaw_core::{mix, Contract, SplitMix64, Subject};
use timelaw_generators::{arbitrary_case, case_strategy, sample_case, sample_schedule, swarm_for, Swarm};

fn frontends(c: &mut Criterion) {
    let mut group = c.benchmark_group("case");

    let mut index = 0_u64;
    group.bench_function("native_sample_case/swarm_for", |b| {
        b.iter(|| {
            index += 1;
            black_box(sample_case(&Reference, mix(1, index), &swarm_for(1, index)))
        })
    });

    let everything = Swarm::everything();
    let mut seed = 0_u64;
    group.bench_function("native_sample_case/everything", |b| {
        b.iter(|| {
            seed += 1;
            black_box(sample_case(&Reference, seed, &everything))
        })
    });

    let mut rng = SplitMix64::new(3);
    let contract: Contract = Reference.contract(&sample_case(&Reference, 9, &everything).config);
    group.bench_function("native_sample_schedule/everything", |b| {
        b.iter(|| black_box(sample_schedule(&mut rng, &everything, &contract)))
    });

    let strategy = case_strategy(&Reference);
    let mut runner = TestRunner::deterministic();
    group.bench_function("proptest_case_strategy", |b| {
        b.iter(|| black_box(strategy.new_tree(&mut runner).map(|tree| tree.current())))
    });

    let mut bytes_rng = SplitMix64::new(5);
    let inputs: Vec<Vec<u8>> = (0..1024).map(|_| (0..512).map(|_| bytes_rng.next_u64() as u8).collect()).collect();
    let mut input = 0;
    group.bench_function("arbitrary_case/512_random_bytes", |b| {
        b.iter(|| {
            input = (input + 1) % inputs.len();
            black_box(arbitrary_case(&Reference, &inputs[input]))
        })
    });

    group.finish();
}

criterion_group!(benches, frontends);
criterion_main!(benches);
