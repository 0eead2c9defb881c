//! Shrink quality over the planted-bug corpus (`tests/common/corpus.rs`: the six planted bugs, the three
//! planted clock bugs, the slips in the copy of the reference and the four planted load bugs, searched
//! with overlapping calls on), then the guide corpus (`tests/common/guide_corpus.rs`: slips in copies of
//! the guide's short-form subjects, whose configs shrink by the answers they were drawn from). For each
//! bug and each of N run seeds,
//! the cases of the seed are searched in index order for the first violation of the bug's law (at most
//! M cases), which is shrunk with the runner's budget and compared with the bug's canonical minimum
//! (`tests/common/corpus_minima.rs`, stated by hand). Per bug it reports the kill rate, the mean and
//! largest case index of the first violation (cases to the first violation, less one), the share of
//! killed seeds reaching the canonical minimum and the mean evaluations (every subject run of the
//! shrink). Targets: every seed killed, every kill at the canonical minimum, mean evaluations under 120;
//! the bench prints the targets each bug misses and exits with status 1 when any is missed.
//!
//! `cargo bench --bench shrink_quality`; `TIMELAW_BENCH_SEEDS` (default 100), `TIMELAW_BENCH_CASES`
//! (default 100,000) and `TIMELAW_BENCH_ONLY` (bugs whose name contains this text) set the size;
//! `TIMELAW_BENCH_PASSES=1` adds, per bug, the mean candidates each shrink pass tried and kept.

#[allow(dead_code)]
#[path = "../tests/common/mod.rs"]
mod common;

use common::corpus::CORPUS;
use common::corpus_measure::Reached;
use common::corpus_minima::canonical;
use common::guide_corpus::GUIDE_CORPUS;
use rayon::prelude::*;

/// Mean evaluations a shrink may spend, per the target.
const EVALUATIONS_TARGET: f64 = 120.0;

/// What the seeds of one bug reached.
struct Quality {
    seeds: u64,
    killed: u64,
    canonical: u64,
    case_index_sum: u64,
    case_index_max: u64,
    evaluations: u64,
    first_miss: Option<String>,
    /// Per pass: its name, the candidates it evaluated and kept, summed over the killed seeds.
    passes: Vec<(&'static str, u64, u64)>,
}

impl Quality {
    /// The seeds `0..seeds` of one bug, `measure` giving what each reached.
    fn of(seeds: u64, measure: impl Fn(u64) -> Reached + Sync) -> Quality {
        let runs: Vec<(u64, Reached)> = (0..seeds).into_par_iter().map(|seed| (seed, measure(seed))).collect();
        let mut quality = Quality {
            seeds,
            killed: 0,
            canonical: 0,
            case_index_sum: 0,
            case_index_max: 0,
            evaluations: 0,
            first_miss: None,
            passes: Vec::new(),
        };
        for (seed, reached) in runs {
            let Some(index) = reached.case_index else { continue };
            quality.killed += 1;
            quality.case_index_sum += index;
            quality.case_index_max = quality.case_index_max.max(index);
            quality.evaluations += reached.evaluations;
            quality.add_passes(&reached.passes);
            if reached.at_minimum {
                quality.canonical += 1;
            } else if quality.first_miss.is_none() {
                quality.first_miss = Some(format!("seed {seed}: {}", reached.shrunk_json));
            }
        }
        quality
    }

    fn add_passes(&mut self, passes: &[(&'static str, u64, u64)]) {
        for &(name, tried, accepted) in passes {
            match self.passes.iter_mut().find(|pass| pass.0 == name) {
                Some(pass) => (pass.1, pass.2) = (pass.1 + tried, pass.2 + accepted),
                None => self.passes.push((name, tried, accepted)),
            }
        }
    }

    /// The mean candidates tried / kept per pass, in words (passes that tried none left out).
    fn passes_shown(&self) -> String {
        let shown: Vec<String> = self
            .passes
            .iter()
            .filter(|pass| pass.1 > 0)
            .map(|&(name, tried, accepted)| format!("{name} {:.1}/{:.1}", self.mean(tried), self.mean(accepted)))
            .collect();
        shown.join(", ")
    }

    fn mean(&self, total: u64) -> f64 {
        total as f64 / self.killed.max(1) as f64
    }

    /// The targets missed, in words.
    fn misses(&self) -> Vec<&'static str> {
        let mut misses = Vec::new();
        if self.killed < self.seeds {
            misses.push("kills");
        }
        if self.canonical < self.killed || self.killed == 0 {
            misses.push("minimum");
        }
        if self.mean(self.evaluations) >= EVALUATIONS_TARGET {
            misses.push("evaluations");
        }
        misses
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|text| text.replace('_', "").parse().ok()).unwrap_or(default)
}

fn main() {
    let seeds = env_u64("TIMELAW_BENCH_SEEDS", 100);
    let cases_max = env_u64("TIMELAW_BENCH_CASES", 100_000);
    let only = std::env::var("TIMELAW_BENCH_ONLY").unwrap_or_default();
    let show_passes = env_u64("TIMELAW_BENCH_PASSES", 0) != 0;
    println!("shrink quality: {seeds} seeds per bug, at most {cases_max} cases per seed");
    println!(
        "{:<44} {:<38} {:>9} {:>11} {:>9} {:>9} {:>10}  targets missed",
        "bug", "law", "killed", "mean case", "max case", "minimum", "mean evals"
    );
    type Measure<'a> = Box<dyn Fn(u64) -> Reached + Sync + 'a>;
    let mut rows: Vec<(&str, &str, Measure)> = Vec::new();
    for entry in &CORPUS {
        let measure = move |seed| entry.bug.measure(entry.law, seed, cases_max).reached(&canonical(entry.bug));
        rows.push((entry.bug.name(), entry.law, Box::new(measure)));
    }
    for entry in &GUIDE_CORPUS {
        rows.push((entry.name(), entry.law, Box::new(move |seed| entry.reach(seed, cases_max))));
    }
    let mut missed_any = false;
    for (name, law, measure) in rows.iter().filter(|row| row.0.contains(only.as_str())) {
        let quality = Quality::of(seeds, measure);
        let misses = quality.misses();
        println!(
            "{:<44} {:<38} {:>5}/{:<3} {:>11.1} {:>9} {:>5}/{:<3} {:>10.1}  {}",
            name,
            law,
            quality.killed,
            quality.seeds,
            quality.mean(quality.case_index_sum),
            quality.case_index_max,
            quality.canonical,
            quality.killed,
            quality.mean(quality.evaluations),
            if misses.is_empty() { "-".to_owned() } else { misses.join(", ") },
        );
        if show_passes {
            println!("    mean candidates tried/kept per pass: {}", quality.passes_shown());
        }
        if let Some(miss) = &quality.first_miss {
            println!("    first miss of the canonical minimum, {miss}");
        }
        missed_any |= !misses.is_empty();
    }
    if missed_any {
        println!("shrink quality: some bug missed a target (kills, canonical minimum, mean evaluations < 120)");
        std::process::exit(1);
    }
}
