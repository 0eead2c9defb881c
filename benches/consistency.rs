//! Consistency as a property, at scale: the reference interpreter under every statable contract
//! (`timelaw_generators::restated::Restated`: every retry-after policy and breaker refinement it
//! implements, mechanisms restated as unstated, timers coarsened from zero to 1 s, tolerances), judged by
//! the whole catalogue, sequential calls and then overlapping calls. Every case must be judged with no
//! law violated; the bench prints each run's figures and exits with status 1 otherwise.
//!
//! `cargo bench --bench consistency`; `TIMELAW_BENCH_CASES` (default 1,000,000 per run) and the usual
//! `TIMELAW_SEED` / `TIMELAW_THREADS` set the size.

use std::process::ExitCode;

use timelaw::generators::restated::Restated;
use timelaw::reference::Reference;

/// Cases per run unless `TIMELAW_BENCH_CASES` says otherwise.
const CASES_DEFAULT: u64 = 1_000_000;

fn cases() -> u64 {
    match std::env::var("TIMELAW_BENCH_CASES") {
        Ok(text) => text.replace('_', "").parse().unwrap_or_else(|_| panic!("TIMELAW_BENCH_CASES={text}: not a count")),
        Err(_) => CASES_DEFAULT,
    }
}

fn main() -> ExitCode {
    let subject = Restated::new(Reference);
    let cases = cases();
    let mut held = true;
    for concurrency in [false, true] {
        let output = timelaw::check(&subject).cases(cases).concurrency(concurrency).run();
        let violated: u64 = output.laws.iter().map(|law| law.counts.violated).sum();
        let non_vacuous: u64 = output.laws.iter().map(|law| law.counts.holds).sum();
        println!(
            "{} concurrency={} seed={:#x}: {} cases x {} laws in {:.1} s: {} violations, {} holds (non-vacuous), \
             {} time-limit cuts, {} long-run cuts, judged={}",
            timelaw::core::Subject::name(&subject),
            if concurrency { "on" } else { "off" },
            output.config.seed,
            cases,
            output.laws.len(),
            output.wall_time.as_secs_f64(),
            violated,
            non_vacuous,
            output.time_limit_cuts,
            output.long_run_cuts,
            output.judged(),
        );
        if !output.holds() {
            eprintln!("{}", output.failure_message());
            held = false;
        }
    }
    if held {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
