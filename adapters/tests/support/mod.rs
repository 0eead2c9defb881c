//! Test support: judge one law on one case, and run the standard catalogue over sampled cases.

#![allow(dead_code)] // Each test file uses a part.

use std::collections::BTreeMap;

use timelaw_core::{mix, Case, Schedule, Subject, Trace};
use timelaw_generators::{sample_case, swarm_for, ConfigDomain};
use timelaw_laws::{Catalogue, Observation, Replay, Verdict};

/// Runs a case as the facade does: on a thread of its own for a subject with seeded std randomness
/// (its thread-local generators start afresh from the case's stream), else on this thread.
pub fn execute<S: Subject>(subject: &S, config: &S::Config, schedule: &Schedule, seed: u64) -> Trace {
    if !subject.std_random().is_seeded() {
        return timelaw_core::execute(subject, config, schedule, seed);
    }
    std::thread::scope(|scope| scope.spawn(|| timelaw_core::execute(subject, config, schedule, seed)).join().unwrap())
}

/// The first (smallest) case that violated a law, and how often the law was violated.
#[derive(Clone, Debug)]
pub struct Found<C> {
    pub count: u64,
    pub case: Case<C>,
    pub message: String,
}

/// The verdict of `law` on `case` (the case runs twice, for `deterministic_replay`).
pub fn judge<S: Subject>(subject: &S, case: &Case<S::Config>, law: &str) -> Verdict {
    let catalogue = Catalogue::standard();
    let law = catalogue.get(law).expect("a standard law");
    let trace = execute(subject, &case.config, &case.schedule, case.seed);
    let again = execute(subject, &case.config, &case.schedule, case.seed);
    let replay = Some(replay(trace.digest(), again.digest()));
    let contract = subject.contract(&case.config);
    let observation = Observation {
        schedule: &case.schedule,
        seed: case.seed,
        contract: &contract,
        trace: &trace,
        replay,
        without_wall_jumps: None,
    };
    law.judge(&observation)
}

fn replay(first: u64, second: u64) -> Replay {
    Replay { first, second, first_difference: (first != second).then_some(0), second_panicked: false }
}

/// Samples `cases` cases of run `run_seed` and judges every standard law on each; every fourth case
/// runs twice for `deterministic_replay`. Keeps the smallest violating case per law.
pub fn survey<S: ConfigDomain>(subject: &S, run_seed: u64, cases: u64) -> BTreeMap<&'static str, Found<S::Config>> {
    let catalogue = Catalogue::standard();
    let mut found: BTreeMap<&'static str, Found<S::Config>> = BTreeMap::new();
    for index in 0..cases {
        let case = sample_case(subject, mix(run_seed, index), &swarm_for(run_seed, index));
        let trace = execute(subject, &case.config, &case.schedule, case.seed);
        let replay = (index % 4 == 0).then(|| {
            let again = execute(subject, &case.config, &case.schedule, case.seed);
            replay(trace.digest(), again.digest())
        });
        let contract = subject.contract(&case.config);
        let observation = Observation {
            schedule: &case.schedule,
            seed: case.seed,
            contract: &contract,
            trace: &trace,
            replay,
            without_wall_jumps: None,
        };
        for law in catalogue.iter() {
            let Verdict::Violated(violation) = law.judge(&observation) else { continue };
            let entry = found.entry(law.id).or_insert_with(|| Found {
                count: 0,
                case: case.clone(),
                message: violation.message.to_string(),
            });
            entry.count += 1;
            if size(&case) < size(&entry.case) {
                entry.case = case.clone();
                entry.message = violation.message.to_string();
            }
        }
    }
    found
}

/// A rough size: calls, steps, then total scripted time.
pub fn size<C>(case: &Case<C>) -> (usize, usize, u128) {
    let nanos =
        case.schedule.calls.iter().flat_map(|call| &call.steps).map(|step| u128::from(step.duration.as_nanos()));
    let gaps = case.schedule.calls.iter().map(|call| u128::from(call.gap_before.as_nanos()));
    (case.schedule.calls.len(), case.schedule.step_count(), nanos.chain(gaps).sum())
}
