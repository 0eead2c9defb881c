//! The parallel random search: case `i` is generated from `mix(seed, i)`, so the tally is the same on any
//! number of threads and in any order.

use rayon::prelude::*;
use timelaw_core::{mix, Heartbeat};
use timelaw_generators::coverage::classify;
use timelaw_generators::{sample_case_with_contract, ConfigDomain, Swarm};
use timelaw_laws::Catalogue;

use super::persist::Finds;
use super::progress::Progress;
use super::tally::Tally;
use crate::config::Config;
use crate::eval::evaluate_under;

/// Boundary coverage is classified on every this-many-th case index (classifying costs about a third of a
/// case), which is plenty to show what the generators reach.
pub const COVERAGE_EVERY: u64 = 16;

/// Cases between two progress updates (each worker reports every this many cases it judged).
pub const PROGRESS_CASES: u64 = 1024;

/// Generates and judges every case index of the run's range (its shard's, or all), in parallel on the
/// current rayon pool. One parallel pass over the whole range: no barrier between chunks.
pub fn search<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    progress: &dyn Progress,
) -> Tally<S::Config> {
    search_saving(subject, laws, config, progress, None)
}

/// [`search`], saving each violation a worker keeps in `finds` the moment it is found; after a failed
/// write the remaining cases are skipped.
pub fn search_saving<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    progress: &dyn Progress,
    finds: Option<&Finds<'_, S>>,
) -> Tally<S::Config> {
    let keep = config.violations_per_law();
    let (first, last) = config.case_range();
    progress.start("checking", last - first);
    if config.case_timeout_ms > 0 {
        let tally = super::watched::watched_search(subject, laws, config, progress, finds);
        progress.finish();
        return tally;
    }
    let tally = (first..last)
        .into_par_iter()
        .fold(
            || Tally::new(laws.len(), keep),
            |mut tally, index| {
                if finds.is_some_and(Finds::failed) {
                    return tally;
                }
                judge_case(subject, laws, config, index, &mut tally, finds);
                if index % PROGRESS_CASES == PROGRESS_CASES - 1 {
                    progress.advance(PROGRESS_CASES);
                }
                tally
            },
        )
        .reduce(|| Tally::new(laws.len(), keep), Tally::merge);
    progress.finish();
    tally
}

/// Generates case `index` and records every law's verdict on it.
pub fn check_case<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    index: u64,
    tally: &mut Tally<S::Config>,
) {
    judge_case(subject, laws, config, index, tally, None);
}

fn judge_case<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    index: u64,
    tally: &mut Tally<S::Config>,
    finds: Option<&Finds<'_, S>>,
) {
    judge_case_with(subject, laws, config, index, &config.swarm_of(index), tally, finds, None);
}

/// [`check_case`] with the store and a heartbeat for the watchdog; `swarm` is `config.swarm_of(index)`
/// (one per batch of cases: a worker draws it once for the batch).
#[allow(clippy::too_many_arguments)]
pub(super) fn judge_case_with<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    index: u64,
    swarm: &Swarm,
    tally: &mut Tally<S::Config>,
    finds: Option<&Finds<'_, S>>,
    heartbeat: Option<&Heartbeat>,
) {
    debug_assert_eq!(*swarm, config.swarm_of(index), "the swarm of case {index}");
    let (case, contract) = sample_case_with_contract(subject, mix(config.seed, index), swarm);
    let replay = config.replay_every > 0 && index.is_multiple_of(config.replay_every);
    let evaluation = evaluate_under(subject, &case, contract, config.limits, replay, heartbeat);
    if index.is_multiple_of(COVERAGE_EVERY) {
        tally.coverage.record(classify(&case.schedule, &evaluation.contract));
    }
    if evaluation.cut_at_time_limit() {
        tally.time_limit_cuts = tally.time_limit_cuts.saturating_add(1);
    } else if evaluation.trace.end.is_long_run_cut() {
        tally.long_run_cuts = tally.long_run_cuts.saturating_add(1);
    }
    let observation = evaluation.observation(&case);
    tally.begin_case(index, &observation);
    laws.judge_each(&observation, |law_index, law, verdict| {
        let kept = tally.record(law_index, index, &case, &evaluation.trace, verdict);
        if let (true, Some(finds)) = (kept, finds) {
            finds.offer(law, index, &case);
        }
    });
    evaluation.trace.recycle(); // The next case's World records into the same buffer.
}
