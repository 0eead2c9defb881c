//! Measuring one planted bug on one run seed: the first violation in case-index order (as the runner
//! finds it, one thread) and its shrink. Shared by the corpus test and the `shrink_quality` bench.
#![allow(dead_code)]

use serde::Serialize;
use timelaw::core::reference::Policy;
use timelaw::core::{mix, Case};
use timelaw::eval::evaluate;
use timelaw::generators::{sample_case_answers, ConfigDomain};
use timelaw::laws::{Catalogue, Verdict};
use timelaw::runner::{check_case, Tally};
use timelaw::shrink::{shrink, Drawn, ShrinkBudget};
use timelaw::Config;

/// What one seed gave.
#[derive(Clone, Debug)]
pub struct Measured<C = Policy> {
    /// The index of the first violating case; `None` when none was found within the cases.
    pub case_index: Option<u64>,
    /// The case as found.
    pub found: Option<Case<C>>,
    /// The shrunk case.
    pub shrunk: Option<Case<C>>,
    /// Subject runs the shrink spent (its first run of the found case included).
    pub evaluations: u64,
    /// Per pass: its name, the candidates it evaluated and the ones it kept.
    pub passes: Vec<(&'static str, u64, u64)>,
}

/// What one seed reached, whatever the config's type: the measurement compared with the canonical
/// minimum (what the `shrink_quality` bench tallies).
#[derive(Clone, Debug)]
pub struct Reached {
    /// The index of the first violating case; `None` when none was found within the cases.
    pub case_index: Option<u64>,
    /// Whether the shrunk case is the canonical minimum.
    pub at_minimum: bool,
    /// The shrunk case as JSON (empty when none was found).
    pub shrunk_json: String,
    /// Subject runs the shrink spent.
    pub evaluations: u64,
    /// Per pass: its name, the candidates it evaluated and the ones it kept.
    pub passes: Vec<(&'static str, u64, u64)>,
}

impl<C: Serialize + PartialEq> Measured<C> {
    /// The measurement against `minimum`, the bug's canonical minimum.
    pub fn reached(self, minimum: &Case<C>) -> Reached {
        let shrunk_json = self.shrunk.as_ref().map(|case| serde_json::to_string(case).unwrap_or_default());
        Reached {
            case_index: self.case_index,
            at_minimum: self.shrunk.as_ref() == Some(minimum),
            shrunk_json: shrunk_json.unwrap_or_default(),
            evaluations: self.evaluations,
            passes: self.passes,
        }
    }
}

/// The run options of a measurement: one thread, no replay runs, the default limits and shrink budget.
pub fn run_config(seed: u64, cases_max: u64) -> Config {
    Config { cases: cases_max, seed, threads: 1, replay_every: 0, ..Config::default() }
}

/// Searches cases `0..cases_max` of `seed` in order for the first violation of `law`, then shrinks it
/// as the runner does: with the runner's budget, and with the answers the found case's config was drawn
/// from (a config without numbers of its own shrinks by them).
pub fn measure_seed<S: ConfigDomain>(subject: &S, law: &str, seed: u64, cases_max: u64) -> Measured<S::Config> {
    measure_seed_with(subject, law, seed, cases_max, false)
}

/// [`measure_seed`] with overlapping calls on or off (`Config::concurrency`; on for the load bugs).
pub fn measure_seed_with<S: ConfigDomain>(
    subject: &S,
    law: &str,
    seed: u64,
    cases_max: u64,
    concurrency: bool,
) -> Measured<S::Config> {
    let laws = Catalogue::standard().select(&[law]).expect("corpus laws are in the catalogue");
    let config = Config { concurrency, ..run_config(seed, cases_max) };
    let mut tally = Tally::new(1, 1);
    let mut index = 0;
    while index < cases_max && tally.found[0].is_empty() {
        check_case(subject, &laws, &config, index, &mut tally);
        index += 1;
    }
    let Some(found) = tally.found[0].first() else {
        return Measured { case_index: None, found: None, shrunk: None, evaluations: 0, passes: Vec::new() };
    };
    let law = *laws.iter().next().expect("one law selected");
    let budget = ShrinkBudget { evals_max: config.shrink_evals_max, time_max: None };
    let index = found.case_index;
    let answers = sample_case_answers(subject, mix(config.seed, index), &config.swarm_of(index));
    let drawn = Drawn { case: found.case.clone(), answers };
    let outcome = shrink(subject, &law, drawn, budget, config.limits).expect("the found case fails");
    Measured {
        case_index: Some(found.case_index),
        found: Some(found.case.clone()),
        shrunk: Some(outcome.case),
        evaluations: outcome.evaluations,
        passes: outcome.passes.iter().map(|pass| (pass.name, pass.tried, pass.accepted)).collect(),
    }
}

/// The verdict of `law` on `case` for `subject`.
pub fn judge<S: ConfigDomain<Config = Policy>>(subject: &S, law: &str, case: &Case<Policy>) -> Verdict {
    judge_any(subject, law, case)
}

/// [`judge`] for a subject of any config.
pub fn judge_any<S: ConfigDomain>(subject: &S, law: &str, case: &Case<S::Config>) -> Verdict {
    let law = *Catalogue::standard().get(law).expect("corpus laws are in the catalogue");
    evaluate(subject, case, Config::default().limits, false).judge(&law, case)
}
