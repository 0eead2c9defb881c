//! Application code checked under load: a `tokio::sync::Semaphore` bulkhead (at most `permits` calls in
//! flight, the others wait in line) around a plain retry loop (`tokio::time::timeout` per attempt,
//! `tokio::time::sleep` between attempts). Copy it, put your own call where `attempt_within` is, and
//! keep the test at the bottom.
//!
//! - `cargo run --example semaphore_bulkhead --features tokio` checks it over 20,000 cases with
//!   overlapping calls (`Check::concurrency`) against the whole catalogue;
//! - `cargo test --example semaphore_bulkhead --features tokio` runs its tests: the laws hold, and two
//!   deliberately broken variants (a permit given back before the call ends, a semaphore one permit too
//!   big) are caught by `bulkhead_in_flight_within_limit`.
//!
//! What timelaw needs from the code: the calls are served by `serve_calls_concurrently` (one future per
//! call, started at its arrival; calls ready at the same instant run in the order the case records), a
//! call that has to wait for a permit says so (`record_queued`), and the contract states the bulkhead.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use timelaw::core::sync_loop::contract_for;
use timelaw::core::{
    Abort, BulkheadContract, CallInfo, CallResult, Contract, Declared, Subject, TieRule, VDuration, World,
};
use timelaw::draw::{delay_ms, MS};
use timelaw::generators::{Choices, Describe, Swarm};
use timelaw::tokio::tokio::sync::{Semaphore, SemaphorePermit};
use timelaw::tokio::{retryable_by_default, serve_calls_concurrently, TokioWorld};

/// The application's settings.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkheadConfig {
    /// Calls in flight at most (the semaphore's permits).
    pub permits: u32,
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// `tokio::time::timeout` around each attempt.
    pub attempt_timeout: VDuration,
    /// `tokio::time::sleep` between attempts.
    pub delay: VDuration,
}

/// The application: a semaphore bulkhead around a retry loop (`bug` exists for the tests).
#[derive(Clone, Copy, Debug, Default)]
pub struct SemaphoreBulkhead {
    /// A deliberate bug, for the tests (`None` in the application).
    pub bug: Option<Bug>,
}

/// Deliberate bugs the bulkhead laws must catch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// The permit is given back after the first attempt, while the call still retries.
    ReleasesEarly,
    /// The semaphore has one permit more than the configuration says.
    OneTooMany,
}

impl Subject for SemaphoreBulkhead {
    type Config = BulkheadConfig;

    fn name(&self) -> &str {
        match self.bug {
            None => "semaphore-bulkhead",
            Some(Bug::ReleasesEarly) => "semaphore-bulkhead-releases-early",
            Some(Bug::OneTooMany) => "semaphore-bulkhead-one-too-many",
        }
    }

    /// At most `permits` calls in flight, the others wait in a first-come line (no bound on it, nobody is
    /// refused); the
    /// loop's promises around a constant delay: `max_attempts` attempts, each cut after
    /// `attempt_timeout` (tokio's tie rule: an attempt ending at the timeout completes).
    fn contract(&self, config: &BulkheadConfig) -> Contract {
        let mut promise = contract_for(Contract::constant(config.max_attempts, config.delay));
        promise.timing.attempt_timeout = Some(config.attempt_timeout);
        promise.timing.timeout_tie = TieRule::InnerWins;
        // tokio's docs: "The semaphore is fair, which means that permits are given out in the order they
        // were requested": the waiting line is first come, first served.
        let bulkhead = BulkheadContract { first_come: true, ..BulkheadContract::new(config.permits, u32::MAX) };
        promise.bulkhead = Declared::Stated(bulkhead);
        promise
    }

    fn run(&self, config: &BulkheadConfig, world: &mut World<'_>) -> Result<(), Abort> {
        let extra = usize::from(self.bug == Some(Bug::OneTooMany));
        let permits = Rc::new(Semaphore::new(config.permits as usize + extra));
        let (config, bug) = (config.clone(), self.bug);
        serve_calls_concurrently(world, move |w, call| {
            let (permits, config) = (Rc::clone(&permits), config.clone());
            async move {
                // Held until the call's future ends (returns, or is dropped by a cancellation).
                let mut permit = Some(acquire(&w, &permits).await?);
                retry_loop(&w, &config, call, &mut permit, bug == Some(Bug::ReleasesEarly)).await
            }
        })
    }
}

/// Takes a permit, waiting in line (recorded as `Queued`) when there is none.
async fn acquire<'p>(w: &TokioWorld<'_>, permits: &'p Semaphore) -> Result<SemaphorePermit<'p>, Abort> {
    if let Ok(permit) = permits.try_acquire() {
        return Ok(permit);
    }
    w.with(|world| world.record_queued())?;
    // The semaphore is never closed, so `acquire` gives a permit or waits.
    permits.acquire().await.map_err(|closed| Abort::InvalidConfig(format!("the bulkhead closed: {closed}")))
}

/// The retry loop, as anyone would write it. `releases_early` is the bug: the permit dropped after the
/// first attempt.
async fn retry_loop(
    w: &TokioWorld<'_>,
    config: &BulkheadConfig,
    call: CallInfo,
    permit: &mut Option<SemaphorePermit<'_>>,
    releases_early: bool,
) -> Result<CallResult, Abort> {
    let mut attempt = 1;
    loop {
        let result = w.attempt_within(config.attempt_timeout.to_std()).await;
        if releases_early {
            permit.take();
        }
        if attempt >= config.max_attempts || !call.idempotent || !retryable_by_default(&result) {
            return result;
        }
        w.sleep(config.delay.to_std()).await;
        attempt += 1;
    }
}

impl Describe for SemaphoreBulkhead {
    /// Permits 1, 2..=4 or up to 100 (with 0 every call would wait for good: a deadlock, which
    /// `terminates` reports); up to 4 attempts of at most 1 s, whole milliseconds (tokio's timer
    /// resolution).
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> BulkheadConfig {
        let permits = match c.weighted(&[4, 4, 1]) {
            0 => 1,
            1 => c.between(2, 4),
            _ => c.between(5, 100),
        } as u32; // At most 100.
        let max_attempts = c.between(1, 4) as u32; // At most 4.
        let attempt_timeout = MS.saturating_mul(c.between(1, 1000));
        let delay = delay_ms(c, MS.saturating_mul(10));
        BulkheadConfig { permits, max_attempts, attempt_timeout, delay }
    }

    fn simpler(&self, config: &BulkheadConfig) -> Vec<BulkheadConfig> {
        let candidates = [
            BulkheadConfig { permits: 1, ..config.clone() },
            BulkheadConfig { max_attempts: 1, ..config.clone() },
            BulkheadConfig { delay: VDuration::ZERO, ..config.clone() },
        ];
        candidates.into_iter().filter(|candidate| candidate != config).collect()
    }
}

fn main() {
    let output = timelaw::check(&SemaphoreBulkhead::default()).concurrency(true).cases(20_000).run();
    println!("{}", output.summary());
    output.assert_holds();
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAW: &str = "bulkhead_in_flight_within_limit";

    /// Checks `subject` over 3,000 cases with overlapping calls: `bulkhead_in_flight_within_limit`
    /// violated or not; a violation is shrunk to a case with more calls than permits.
    #[track_caller]
    fn check(bug: Option<Bug>, violated: bool) {
        let subject = SemaphoreBulkhead { bug };
        let output = timelaw::check(&subject).env(false).concurrency(true).cases(3_000).seed(7).run();
        let law = output.laws.iter().find(|law| law.law.id == LAW).expect("the bulkhead law is in the catalogue");
        assert_eq!(law.counts.violated > 0, violated, "{bug:?}: {}", output.failure_message());
        match law.counterexamples.first().map(|found| &found.shrunk) {
            Some(case) => assert!(case.schedule.calls.len() > case.config.permits as usize, "{bug:?}: {case:?}"),
            None => output.assert_holds(),
        }
    }

    #[test]
    fn one_thread_or_four_find_and_shrink_the_same() {
        let run = |threads| {
            let subject = SemaphoreBulkhead { bug: Some(Bug::OneTooMany) };
            let check = timelaw::check(&subject).env(false).concurrency(true).cases(1_000).seed(11);
            let output = check.only_laws(&[LAW]).threads(threads).run();
            let law = output.laws.into_iter().find(|law| law.law.id == LAW).expect("the law was checked");
            let first = law.counterexamples.into_iter().next().map(|found| (found.case_index, found.shrunk));
            (law.counts.violated, first)
        };
        let one = run(1);
        assert!(one.0 > 0);
        assert_eq!(one, run(4));
    }

    #[test]
    fn the_bulkhead_holds_and_its_bugs_are_caught() {
        check(None, false);
        check(Some(Bug::ReleasesEarly), true);
        check(Some(Bug::OneTooMany), true);
    }
}
