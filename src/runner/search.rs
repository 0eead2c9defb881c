//! The parallel random search: case `i` is generated from `mix(seed, i)`, so the tally is the same on any
//! number of threads and in any order.

use rayon::prelude::*;
use timelaw_core::mix;
use timelaw_generators::{sample_case, swarm_for, ConfigDomain};
use timelaw_laws::Catalogue;

use super::progress::Progress;
use super::tally::Tally;
use crate::config::Config;
use crate::eval::evaluate;

/// Case indices handled between two progress updates.
pub const CHUNK_CASES: u64 = 2048;

/// Generates and judges every case index of the run's range (its shard's, or all).
pub fn search<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    progress: &dyn Progress,
) -> Tally<S::Config> {
    let keep = config.violations_per_law();
    let (first, last) = config.case_range();
    progress.start("checking", last - first);
    let mut total = Tally::new(laws.len(), keep);
    let mut start = first;
    while start < last {
        let end = start.saturating_add(CHUNK_CASES).min(last);
        let part = (start..end)
            .into_par_iter()
            .fold(
                || Tally::new(laws.len(), keep),
                |mut tally, index| {
                    check_case(subject, laws, config, index, &mut tally);
                    tally
                },
            )
            .reduce(|| Tally::new(laws.len(), keep), Tally::merge);
        total = total.merge(part);
        progress.advance(end - start);
        start = end;
    }
    progress.finish();
    total
}

/// Generates case `index` and records every law's verdict on it.
pub fn check_case<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    index: u64,
    tally: &mut Tally<S::Config>,
) {
    let swarm = swarm_for(config.seed, index);
    let case = sample_case(subject, mix(config.seed, index), &swarm);
    let replay = config.replay_every > 0 && index % config.replay_every == 0;
    let evaluation = evaluate(subject, &case, config.limits, replay);
    let observation = evaluation.observation(&case);
    for (law_index, law) in laws.iter().enumerate() {
        tally.record(law_index, index, &case, law.judge(&observation));
    }
}
