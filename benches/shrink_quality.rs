//! Shrink quality: for each planted bug, the first violation found from 100 different run seeds is shrunk;
//! the bench counts how many reach the canonical minimum (the minimum of seed 0) and the mean number of
//! evaluations. `cargo bench --bench shrink_quality` (`TIMELAW_BENCH_SEEDS` sets the seed count).

#[path = "../tests/common/planted.rs"]
mod planted;

use planted::{Planted, BUGS};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::Config;

fn main() {
    let seeds: u64 = std::env::var("TIMELAW_BENCH_SEEDS").ok().and_then(|t| t.parse().ok()).unwrap_or(100);
    println!("{:<32} {:<30} {:>10} {:>12} {:>10}", "planted bug", "law", "canonical", "mean evals", "found");
    for (bug, law) in BUGS {
        let laws = Catalogue::standard().select(&[law]).expect("planted laws are in the catalogue");
        let subject = Planted(bug);
        let mut minima = Vec::new();
        let mut evaluations = 0;
        for seed in 0..seeds {
            let config = Config { cases: 5_000, seed, threads: 1, replay_every: 0, ..Config::default() };
            let output = run(&subject, &laws, &config, &Silent);
            if let Some(example) = output.laws[0].counterexamples.first() {
                evaluations += example.shrink_evaluations;
                minima.push(serde_json::to_string(&example.shrunk).unwrap_or_default());
            }
        }
        let canonical = minima.first().cloned().unwrap_or_default();
        let same = minima.iter().filter(|minimum| **minimum == canonical).count();
        let mean = evaluations as f64 / minima.len().max(1) as f64;
        println!(
            "{:<32} {:<30} {:>6}/{:<3} {:>12.1} {:>6}/{:<3}",
            format!("{bug:?}"),
            law,
            same,
            minima.len(),
            mean,
            minima.len(),
            seeds
        );
        if same != minima.len() {
            let mut distinct = minima.clone();
            distinct.sort();
            distinct.dedup();
            for minimum in distinct.iter().take(3) {
                println!("    minimum: {minimum}");
            }
        }
    }
}
