//! The reference's concurrent path (taken for overlapping calls or a load mechanism) serves a sequential
//! case exactly as the sequential path does: the same events, instants and results, so the load
//! mechanisms add behaviour only where they act. The cases are the generators' (a dev-dependency).

use timelaw_core::reference::{Policy, Reference};
use timelaw_core::{execute, mix, BulkheadContract, LimiterContract, VDuration};
use timelaw_generators::{sample_case, swarm_for};

/// The policy with a neutral load mechanism, which sends it down the concurrent path.
fn neutral(policy: &Policy, limiter: bool) -> Policy {
    let mut policy = policy.clone();
    if limiter {
        policy.limiter = Some(LimiterContract::token_bucket(u32::MAX, VDuration::ZERO));
    } else {
        policy.bulkhead = Some(BulkheadContract::new(u32::MAX, 0));
    }
    policy
}

#[test]
fn sequential_cases_run_alike_on_both_paths() {
    let mut differ = Vec::new();
    for index in 0..3_000 {
        let case = sample_case(&Reference, mix(11, index), &swarm_for(11, index));
        let sequential = execute(&Reference, &case.config, &case.schedule, case.seed);
        let concurrent = execute(&Reference, &neutral(&case.config, index % 2 == 0), &case.schedule, case.seed);
        if sequential.events != concurrent.events || sequential.end != concurrent.end {
            differ.push(index);
        }
    }
    assert_eq!(differ, Vec::<u64>::new());
}
