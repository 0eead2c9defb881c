//! Every built-in subject is described once (`Describe`): its simplest config is the description
//! answered with `0` everywhere, the same as the empty fuzz input, and nothing is simpler.

use arbitrary::Unstructured;
use timelaw_adapters::backon::{BackonConstant, BackonExponential, BackonFibonacci, BackonRetry};
use timelaw_adapters::exponential_backoff::ExponentialBackoffSubject;
use timelaw_adapters::tokio_retry2::{
    TokioRetry2Exponential, TokioRetry2ExponentialFactor, TokioRetry2Fibonacci, TokioRetry2Fixed, TokioRetry2Linear,
    TokioRetry2Retry,
};
use timelaw_adapters::tokio_timeout_loop::TokioTimeoutLoop;
use timelaw_adapters::tower::{TowerBackoff, TowerBudget};
use timelaw_generators::{simplest_config, ConfigDomain, Describe, Simplest, Swarm};

#[track_caller]
fn check<S: Describe>(subject: S) {
    let simplest = simplest_config(&subject);
    assert_eq!(subject.simplest_config(), simplest, "{}", subject.name());
    assert_eq!(subject.arbitrary_config(&mut Unstructured::new(&[])), simplest, "{}", subject.name());
    assert_eq!(subject.describe(&mut Simplest, &Swarm::everything()), simplest, "{}", subject.name());
    for candidate in subject.shrink_config(&simplest) {
        assert_ne!(candidate, simplest, "{}", subject.name());
    }
}

#[test]
fn every_builtin_subject_has_a_simplest_config() {
    check(BackonConstant);
    check(BackonExponential);
    check(BackonFibonacci);
    check(BackonRetry);
    check(ExponentialBackoffSubject);
    check(TokioRetry2Exponential);
    check(TokioRetry2ExponentialFactor);
    check(TokioRetry2Fibonacci);
    check(TokioRetry2Fixed);
    check(TokioRetry2Linear);
    check(TokioRetry2Retry);
    check(TokioTimeoutLoop);
    check(TowerBackoff);
    check(TowerBudget);
}
