//! Shrink quality: for each planted bug, the first violation found from 100 different run seeds is shrunk;
//! the bench counts how many reach the bug's stated minimum (`tests/common/minima.rs`, written by hand,
//! the same table `tests/shrinker.rs` pins) and the mean evaluations (subject runs) a shrink spent. It exits
//! with status 1 when any seed misses its minimum or finds no violation.
//! `cargo bench --bench shrink_quality` (`TIMELAW_BENCH_SEEDS` sets the seed count, default 100).

#[path = "../tests/common/planted.rs"]
mod planted;

#[path = "../tests/common/minima.rs"]
mod minima;

use minima::stated_minimum;
use planted::{Bug, Planted, BUGS};
use timelaw::laws::Catalogue;
use timelaw::runner::{run, Silent};
use timelaw::Config;

/// What the seeds of one planted bug reached.
struct Quality {
    found: u64,
    at_minimum: u64,
    evaluations: u64,
    misses: Vec<String>,
}

fn measure(bug: Bug, law: &str, seeds: u64) -> Quality {
    let laws = Catalogue::standard().select(&[law]).expect("planted laws are in the catalogue");
    let subject = Planted(bug);
    let expected = stated_minimum(bug);
    let mut quality = Quality { found: 0, at_minimum: 0, evaluations: 0, misses: Vec::new() };
    for seed in 0..seeds {
        let config = Config { cases: 5_000, seed, threads: 1, replay_every: 0, ..Config::default() };
        let output = run(&subject, &laws, &config, &Silent);
        let Some(example) = output.laws[0].counterexamples.first() else { continue };
        quality.found += 1;
        quality.evaluations += example.shrink_evaluations;
        if example.shrunk == expected {
            quality.at_minimum += 1;
        } else {
            let shown = serde_json::to_string(&example.shrunk).unwrap_or_default();
            quality.misses.push(format!("seed {seed}: {shown}"));
        }
    }
    quality
}

fn main() {
    let seeds: u64 = std::env::var("TIMELAW_BENCH_SEEDS").ok().and_then(|t| t.parse().ok()).unwrap_or(100);
    println!("{:<20} {:<30} {:>14} {:>12} {:>10}", "planted bug", "law", "stated minimum", "mean evals", "found");
    let mut failed = false;
    for (bug, law) in BUGS {
        let quality = measure(bug, law, seeds);
        let mean = quality.evaluations as f64 / quality.found.max(1) as f64;
        println!(
            "{:<20} {:<30} {:>10}/{:<3} {:>12.1} {:>6}/{:<3}",
            format!("{bug:?}"),
            law,
            quality.at_minimum,
            quality.found,
            mean,
            quality.found,
            seeds
        );
        for miss in quality.misses.iter().take(3) {
            println!("    missed the stated minimum, {miss}");
        }
        failed |= quality.found < seeds || quality.at_minimum < quality.found;
    }
    if failed {
        println!("shrink quality: some seed missed its stated minimum or found no violation");
        std::process::exit(1);
    }
}
