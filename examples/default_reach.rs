//! What `check` with its defaults catches of the planted load-mechanism bugs (bulkhead, rate limiter,
//! half-open under load, cancellation under load, hedging, ordered results), with overlapping calls on
//! (today's default) and off (the default before: `.concurrency(false)`, `--sequential`).
//!
//! `cargo run --release --example default_reach [CASES]` (default 100,000, seed: the default run seed).
//! Prints one row per bug: the law it breaks and the first violating case index each way, or "missed".

#[path = "../tests/common/planted_hedge.rs"]
mod planted_hedge;
#[path = "../tests/common/planted_load.rs"]
mod planted_load;
#[path = "../tests/common/unrefined.rs"]
mod unrefined;

use timelaw::generators::ConfigDomain;
use timelaw::{Config, StopAt};

/// The first case index at which `law` is violated in a run of `cases` with `concurrency`, if any.
fn first_violation<S: ConfigDomain>(subject: &S, law: &str, cases: u64, concurrency: bool) -> Option<u64> {
    let config = Config { cases, concurrency, stop_at: StopAt::First, ..Config::default() };
    let output = timelaw::check(subject).config(config).env(false).run();
    let row = output.laws.iter().find(|row| row.law.id == law)?;
    row.counterexamples.first().map(|found| found.case_index)
}

fn cell(found: Option<u64>) -> String {
    found.map_or_else(|| "missed".to_owned(), |index| format!("case {index}"))
}

fn main() {
    let cases = std::env::args().nth(1).and_then(|text| text.parse().ok()).unwrap_or(100_000);
    println!("| planted bug | law | overlapping calls off | on (the default) |");
    println!("|---|---|---|---|");
    let (mut off, mut on, mut total) = (0, 0, 0);
    let mut row = |name: String, law: &str, before: Option<u64>, after: Option<u64>| {
        total += 1;
        off += usize::from(before.is_some());
        on += usize::from(after.is_some());
        println!("| {name} | `{law}` | {} | {} |", cell(before), cell(after));
    };
    for (bug, law) in planted_load::LOAD_BUGS {
        let subject = planted_load::LoadPlanted(bug);
        let (before, after) =
            (first_violation(&subject, law, cases, false), first_violation(&subject, law, cases, true));
        row(format!("{bug:?}"), law, before, after);
    }
    for (bug, law) in planted_hedge::HEDGE_BUGS {
        let subject = planted_hedge::HedgePlanted(bug);
        let (before, after) =
            (first_violation(&subject, law, cases, false), first_violation(&subject, law, cases, true));
        row(format!("{bug:?}"), law, before, after);
    }
    println!("\ncaught: {off} of {total} with overlapping calls off, {on} of {total} on ({cases} cases each)");
}
