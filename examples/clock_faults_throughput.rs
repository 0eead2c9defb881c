//! Cases per second with clock faults on, off, and as the runner mixes them (one batch in eight), measured
//! side by side in one process: the runner's per-case work (sample, evaluate with the "without wall jumps"
//! run where a case has jumps and a replay every 16th case, judge the whole catalogue) on one thread.
//!
//! `cargo run --release --example clock_faults_throughput [CASES]` (default 200,000 per mode).

use std::time::Instant;

use timelaw::core::reference::Reference;
use timelaw::core::{mix, Limits};
use timelaw::eval::evaluate;
use timelaw::generators::{sample_case, swarm_for};
use timelaw::laws::Catalogue;

#[derive(Clone, Copy, Debug)]
enum Mode {
    Off,
    Mixed,
    On,
}

/// Runs `cases` cases; returns cases/s and how many cases had clock faults.
fn measure(mode: Mode, cases: u64, seed: u64) -> (f64, u64) {
    let catalogue = Catalogue::standard();
    let mut verdicts = Vec::with_capacity(catalogue.len());
    let (mut faulty, mut violated) = (0_u64, 0_u64);
    let start = Instant::now();
    for index in 0..cases {
        let mut swarm = swarm_for(seed, index);
        match mode {
            Mode::Off => swarm.clock_faults = false,
            Mode::On => swarm.clock_faults = true,
            Mode::Mixed => {}
        }
        let case = sample_case(&Reference, mix(seed, index), &swarm);
        faulty += u64::from(!case.schedule.clock.is_empty());
        let evaluation = evaluate(&Reference, &case, Limits::default(), index % 16 == 0);
        catalogue.judge_all(&evaluation.observation(&case), &mut verdicts);
        violated += verdicts.iter().filter(|verdict| verdict.is_violated()).count() as u64;
    }
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(violated, 0, "the reference interpreter violated a law");
    (cases as f64 / seconds, faulty)
}

fn main() {
    let cases: u64 = std::env::args().nth(1).and_then(|text| text.parse().ok()).unwrap_or(200_000);
    println!("{cases} cases per mode, reference interpreter, whole catalogue, 1 thread");
    let mut best = [(0.0_f64, 0_u64); 3];
    for round in 0..3 {
        for (slot, mode) in [Mode::Off, Mode::Mixed, Mode::On].into_iter().enumerate() {
            let (rate, faulty) = measure(mode, cases, 0x5EED + round);
            if rate > best[slot].0 {
                best[slot] = (rate, faulty);
            }
        }
    }
    for (mode, (rate, faulty)) in [Mode::Off, Mode::Mixed, Mode::On].iter().zip(best) {
        println!("clock faults {mode:?}: {rate:>10.0} cases/s ({faulty} cases with clock faults)");
    }
}
