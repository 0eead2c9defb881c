//! Paired drops (`drop_paired` in `timelaw::shrink`): a failing dispatch dropped with the backoff
//! advanced by one retry, or with its retry's delay taken out of the deadline. Each row starts from a
//! case where an older shrinker stopped (the dispatch could not be dropped alone) for a slip of the
//! corpus copy of the reference (test code), and states the exact minimum: the slip's canonical one.

use crate::common;

use common::corpus::{CorpusBug, CORPUS};
use common::corpus_minima::canonical;
use common::corpus_subject::{Slip, Slipped};
use timelaw::core::reference::Policy;
use timelaw::core::{Case, Limits};
use timelaw::laws::Catalogue;
use timelaw::shrink::{shrink, ShrinkBudget};

/// The shrinker's minimum of `start` (JSON) for `slip` under its corpus law, which must be `expect`.
#[track_caller]
fn check(slip: Slip, start: &str, expect: Case<Policy>) {
    let bug = CorpusBug::Slip(slip);
    let law = CORPUS.iter().find(|entry| entry.bug == bug).map(|entry| entry.law).expect("a corpus slip");
    let law = *Catalogue::standard().get(law).expect("a catalogue law");
    let start: Case<Policy> = serde_json::from_str(start).expect("a case");
    let outcome = shrink(&Slipped(slip), &law, start, ShrinkBudget::default(), Limits::default()).expect("it fails");
    let shown = serde_json::to_string(&outcome.case).unwrap_or_default();
    assert_eq!(outcome.case, expect, "{slip:?}: {shown} ({} evaluations)", outcome.evaluations);
}

/// A policy in the corpus's JSON form with the given backoff, cap, attempts and limits.
fn policy(max_attempts: u32, backoff: &str, delay_max: &str, deadline: &str, sleep_budget: &str) -> String {
    policy_honouring(max_attempts, backoff, delay_max, deadline, sleep_budget, false)
}

/// [`policy`], honouring retry-after or not.
fn policy_honouring(
    max_attempts: u32,
    backoff: &str,
    delay_max: &str,
    deadline: &str,
    sleep_budget: &str,
    honour: bool,
) -> String {
    format!(
        r#"{{"max_attempts":{max_attempts},"backoff":{backoff},"delay_max":"{delay_max}","jitter":"none","retry_on":{{"transient":true,"rate_limited":true,"timeout":true}},"honor_retry_after":{honour},"attempt_timeout":null,"deadline":{deadline},"sleep_budget":{sleep_budget},"circuit":null,"retry_budget":null}}"#
    )
}

/// One call of `count` instant transient failures, as separate steps.
fn transients(count: usize) -> String {
    let steps = vec![r#"{"duration":"0","outcome":"transient"}"#; count].join(",");
    format!(r#"{{"calls":[{{"gap_before":"0","steps":[{steps}],"cancel_after":null,"idempotent":true}}]}}"#)
}

fn case(policy: String, schedule: String) -> String {
    format!(r#"{{"config":{policy},"schedule":{schedule},"seed":0}}"#)
}

#[test]
fn a_growing_backoff_advances_as_a_failure_is_dropped() {
    // Delays 1, 2, 4 ns under a 3 ns cap: the slip lets the third through (the second was under the
    // cap). Dropping a failure alone leaves 1, 2; with the backoff advanced (2, 4) the second passes.
    let exponential = r#"{"exponential":{"initial":"1ns","factor":2}}"#;
    check(Slip::CapCheckedOnPrevious, &case(policy(4, exponential, "3ns", "null", "null"), transients(3)), {
        canonical(CorpusBug::Slip(Slip::CapCheckedOnPrevious))
    });
    // Delays 0, 1 ns under a 0 ns budget: the slip checks the budget before adding the next delay, so
    // the second sleep passes it. With one failure dropped and the backoff advanced, the first does.
    let linear = r#"{"linear":{"initial":"0","step":"1ns"}}"#;
    check(Slip::SleepBudgetForgetsNextDelay, &case(policy(3, linear, "1ns", "null", "\"0\""), transients(2)), {
        canonical(CorpusBug::Slip(Slip::SleepBudgetForgetsNextDelay))
    });
}

#[test]
fn a_dropped_retry_gives_its_delay_back_to_the_deadline() {
    // Three 50.615257 ms sleeps wake exactly on a deadline three times as long: the slip retries there.
    let constant = r#"{"constant":{"delay":"50.615257ms"}}"#;
    let start = case(policy(4, constant, "50.615257ms", "\"151.845771ms\"", "null"), transients(3));
    check(Slip::DeadlineSleepStrict, &start, canonical(CorpusBug::Slip(Slip::DeadlineSleepStrict)));
}

#[test]
fn a_rate_limit_becomes_a_transient_failure_with_its_retry_after_as_the_delay() {
    // A 1 ns retry-after honoured over a 0 ns delay, under a 0 ns budget: the slip sleeps it. As a
    // transient failure alone it sleeps 0 ns; with the first delay raised to 1 ns it sleeps 1 ns again.
    let constant = r#"{"constant":{"delay":"0"}}"#;
    let config = policy_honouring(2, constant, "1ns", "null", "\"0\"", true);
    let limited = r#"{"calls":[{"gap_before":"0","steps":[{"duration":"0","outcome":{"rate_limited":{"retry_after":"1ns"}}}],"cancel_after":null,"idempotent":true}]}"#;
    let start = case(config, limited.to_owned());
    check(Slip::SleepBudgetForgetsNextDelay, &start, canonical(CorpusBug::Slip(Slip::SleepBudgetForgetsNextDelay)));
}
