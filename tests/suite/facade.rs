//! The facade as a user sees it: a tokio retry loop and proptest/arbitrary use, written with
//! `timelaw::` paths only (plus serde for the config), as an outside crate would.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw::core::sync_loop::{loop_contract, retryable};
use timelaw::core::{Abort, BackoffShape, CallInfo, CallResult, Contract, ErrorKind, JitterBounds, Subject, TieRule};
use timelaw::core::{VDuration, World};
use timelaw::proptest::strategy::{Strategy, ValueTree};
use timelaw::tokio::{run_tokio, time, TokioWorld};
use timelaw::{draw, Choices, ConfigDomain, Describe, Swarm};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct LoopConfig {
    attempts: u32,
    timeout: VDuration,
    delay: VDuration,
}

/// A tokio retry loop; `slow_by` lengthens every sleep past the promised delay (a planted bug).
#[derive(Clone)]
struct TokioLoop {
    slow_by: Duration,
}

impl Subject for TokioLoop {
    type Config = LoopConfig;
    fn name(&self) -> &str {
        "user-tokio-loop"
    }
    fn contract(&self, c: &LoopConfig) -> Contract {
        let mut promise = loop_contract();
        promise.retry.max_attempts = Some(c.attempts);
        promise.delays.min = Some(c.delay);
        promise.delays.max = Some(c.delay);
        promise.delays.backoff = Some(BackoffShape::Constant { delay: c.delay });
        promise.delays.jitter = Some(JitterBounds::None);
        promise.timing.attempt_timeout = Some(c.timeout);
        promise.timing.timeout_tie = TieRule::InnerWins;
        promise
    }
    fn run(&self, c: &LoopConfig, world: &mut World<'_>) -> Result<(), Abort> {
        run_tokio(world, |w| async move { w.for_each_call(|call| self.call(&w, c, call)).await })
    }
}

impl TokioLoop {
    async fn call(&self, w: &TokioWorld<'_>, c: &LoopConfig, call: CallInfo) -> Result<CallResult, Abort> {
        let mut attempt = 1;
        loop {
            let (result, again) = match time::timeout(c.timeout.to_std(), w.attempt()).await {
                Ok(outcome) => {
                    let outcome = outcome?;
                    (CallResult::from_outcome(outcome), retryable(outcome))
                }
                Err(_elapsed) => (CallResult::Err(ErrorKind::Timeout), true),
            };
            if !again || !call.idempotent || attempt >= c.attempts {
                return Ok(result);
            }
            w.sleep(c.delay.to_std() + self.slow_by).await;
            attempt += 1;
        }
    }
}

impl Describe for TokioLoop {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> LoopConfig {
        let attempts = draw::retries(c, 12) as u32 + 1; // At most 13.
        let timeout = draw::MS.saturating_mul(c.between(1, 1000));
        LoopConfig { attempts, timeout, delay: draw::delay_ms(c, draw::MS.saturating_mul(100)) }
    }
}

#[test]
fn a_tokio_loop_described_once_holds() {
    timelaw::check(&TokioLoop { slow_by: Duration::ZERO }).cases(300).seed(1).run().assert_holds();
}

#[test]
fn a_tokio_loop_that_oversleeps_is_caught() {
    let output = timelaw::check(&TokioLoop { slow_by: Duration::from_millis(1) }).cases(300).seed(1).run();
    let violated: Vec<&str> = output.laws.iter().filter(|law| law.counts.violated > 0).map(|law| law.law.id).collect();
    assert!(violated.contains(&timelaw::laws::ids::DELAY_WITHIN_CAP), "{violated:?}");
}

#[test]
fn proptest_and_arbitrary_come_from_the_facade() {
    let subject = TokioLoop { slow_by: Duration::ZERO };
    let mut runner = timelaw::proptest::test_runner::TestRunner::deterministic();
    let config = subject.config_strategy().new_tree(&mut runner).map(|tree| tree.current());
    assert!(config.is_ok_and(|config| config.attempts >= 1));
    let decoded = subject.arbitrary_config(&mut timelaw::arbitrary::Unstructured::new(&[]));
    assert_eq!(decoded, LoopConfig { attempts: 1, timeout: draw::MS, delay: VDuration::ZERO });
    assert_eq!(timelaw::simplest_config(&subject), decoded);
}
