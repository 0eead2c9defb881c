//! The guide's own subjects in the corpus: copies of the three short-form subjects `docs/guide.md` teaches
//! (`timelaw::subject(name, describe, contract, run)`: the blocking loop of step 2, the tokio loop of
//! step 6, the loop behind its own seams of step 8a), each config drawn by the guide's own description
//! with no numbers of its own, so it shrinks only by the answers it was drawn from. Each entry plants one
//! slip a user could make in that code; its canonical minimum (stated by hand, in words) is the case the
//! order of simplicity (`timelaw::shrink::order`) puts first among the failing ones: one call, the
//! fewest steps, then the config whose answers are smallest (every field at its simplest unless the slip
//! needs it), then the smallest durations. The faithful copies hold on every minimum. Test code only.
#![allow(dead_code)]

use std::time::Duration;

use serde::{Deserialize, Serialize};
use timelaw::core::{
    sync_loop, Abort, AttemptResult, CallResult, CallScript, Case, Contract, ErrorKind, Outcome, Schedule, Step,
    TieRule::InnerWins, VDuration, World,
};
use timelaw::generators::{draw, subject, Choices, FnSubject};
use timelaw::laws::Verdict;

use super::corpus_measure::{judge_any, measure_seed_with, Reached};

/// The guide's policy (step 2 and step 6): up to `retries` retries, `base` doubled per retry, capped at
/// `cap`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GuidePolicy {
    /// Retries after the first attempt.
    pub retries: u32,
    /// The first delay.
    pub base: VDuration,
    /// The largest delay.
    pub cap: VDuration,
}

/// A slip in one of the guide's loops (`None`: the guide's code as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuideSlip {
    /// The guide's code, unchanged.
    None,
    /// Step 4's first version: `0..=retries` delays, one attempt more than promised.
    OneDelayTooMany,
    /// The delays are never capped.
    CapForgotten,
    /// The cap is applied to the base, then the base doubled.
    CapBeforeDoubling,
    /// The tokio loop sleeps before it looks at the result, so a success is followed by a sleep.
    SleepsBeforeChecking,
    /// The seams' loop checks its cancellation token only after a failed attempt.
    CancelCheckedAfterFailure,
}

impl GuidePolicy {
    fn describe_with<C: Choices + ?Sized>(c: &mut C, delay: fn(&mut C, VDuration) -> VDuration) -> GuidePolicy {
        GuidePolicy { retries: draw::retries(c, 20) as u32, base: delay(c, draw::SEC), cap: delay(c, draw::SEC) }
    }

    fn describe(c: &mut dyn Choices) -> GuidePolicy {
        GuidePolicy::describe_with(c, draw::delay)
    }

    fn contract(&self) -> Contract {
        sync_loop::contract_for(Contract::exponential(self.retries + 1, self.base, 2000, self.cap))
    }

    /// The delays before each retry, with `slip` (the guide's `delays` when `GuideSlip::None`).
    pub fn delays(&self, slip: GuideSlip) -> Vec<Duration> {
        let doubled = |base: VDuration, n| 2u64.checked_pow(n).map_or(VDuration::MAX, |f| base.saturating_mul(f));
        let retries = self.retries + u32::from(slip == GuideSlip::OneDelayTooMany);
        let delay = |n| match slip {
            GuideSlip::CapForgotten => doubled(self.base, n),
            GuideSlip::CapBeforeDoubling => doubled(self.base.min(self.cap), n),
            _ => doubled(self.base, n).min(self.cap),
        };
        (0..retries).map(|n| delay(n).to_std()).collect()
    }
}

fn sync_run(policy: &GuidePolicy, world: &mut World<'_>, slip: GuideSlip) -> Result<(), Abort> {
    sync_loop::serve_calls(world, |_| Ok(policy.delays(slip).into_iter()))
}

macro_rules! sync_subject {
    ($name:literal, $slip:expr) => {
        subject($name, GuidePolicy::describe, GuidePolicy::contract, |p, world| sync_run(p, world, $slip))
    };
}

/// Step 2's blocking loop, as the guide writes it.
pub const GUIDE_SYNC: FnSubject<GuidePolicy> = sync_subject!("guide-sync", GuideSlip::None);
const ONE_DELAY_TOO_MANY: FnSubject<GuidePolicy> =
    sync_subject!("guide-sync-one-delay-too-many", GuideSlip::OneDelayTooMany);
const CAP_FORGOTTEN: FnSubject<GuidePolicy> = sync_subject!("guide-sync-cap-forgotten", GuideSlip::CapForgotten);
pub const CAP_BEFORE_DOUBLING: FnSubject<GuidePolicy> =
    sync_subject!("guide-sync-cap-before-doubling", GuideSlip::CapBeforeDoubling);

/// Step 6's loop: runs `op` again after the policy's delays while `again` says its result may change;
/// with the slip, it sleeps before it asks.
async fn retry<T>(
    p: &GuidePolicy,
    op: impl AsyncFn() -> T,
    again: fn(&T) -> bool,
    sleep: impl AsyncFn(Duration),
    slip: GuideSlip,
) -> T {
    let (mut delays, mut result) = (p.delays(GuideSlip::None).into_iter(), op().await);
    if slip == GuideSlip::SleepsBeforeChecking {
        for delay in delays {
            sleep(delay).await;
            if !again(&result) {
                break;
            }
            result = op().await;
        }
        return result;
    }
    while let (true, Some(delay)) = (again(&result), delays.next()) {
        sleep(delay).await;
        result = op().await;
    }
    result
}

type TokioConfig = (GuidePolicy, VDuration);

fn tokio_describe(c: &mut dyn Choices) -> TokioConfig {
    (GuidePolicy::describe_with(c, draw::delay_ms), draw::delay_ms(c, draw::SEC).max(draw::MS))
}

fn tokio_contract((p, timeout): &TokioConfig) -> Contract {
    let mut promise = p.contract().with_attempt_timeout(*timeout, InnerWins);
    promise.retry.respects_idempotency = false;
    promise
}

fn tokio_run((p, t): &TokioConfig, world: &mut World<'_>, slip: GuideSlip) -> Result<(), Abort> {
    timelaw::tokio::serve_calls(world, |w, _| async move {
        let sleep = |d| w.sleep(d);
        retry(p, || w.attempt_within(t.to_std()), timelaw::tokio::retryable_by_default, sleep, slip).await
    })
}

/// Step 6's tokio loop, as the guide writes it.
pub const GUIDE_TOKIO: FnSubject<TokioConfig> =
    subject("guide-tokio", tokio_describe, tokio_contract, |c, world| tokio_run(c, world, GuideSlip::None));
const SLEEPS_BEFORE_CHECKING: FnSubject<TokioConfig> =
    subject("guide-tokio-sleeps-before-checking", tokio_describe, tokio_contract, |c, world| {
        tokio_run(c, world, GuideSlip::SleepsBeforeChecking)
    });

/// Step 8a's seams, the World behind each; a World error is kept and handed back after the call.
struct OnTheWorld<'w, 's> {
    world: &'w mut World<'s>,
    failed: Option<Abort>,
}

impl OnTheWorld<'_, '_> {
    fn send(&mut self) -> Result<(), ErrorKind> {
        match self.world.dispatch() {
            Ok(AttemptResult::Completed(Outcome::Ok)) => Ok(()),
            Ok(AttemptResult::Completed(outcome)) => Err(ErrorKind::from_outcome(outcome).unwrap_or(ErrorKind::Fatal)),
            Ok(AttemptResult::TimedOut) => Err(ErrorKind::Timeout),
            Ok(AttemptResult::Cancelled) => Err(ErrorKind::Cancelled),
            Err(abort) => {
                self.failed.get_or_insert(abort);
                Err(ErrorKind::Fatal)
            }
        }
    }

    fn sleep(&mut self, delay: Duration) {
        if let Err(abort) = self.world.sleep_std(delay) {
            self.failed.get_or_insert(abort);
        }
    }
}

/// Step 8a's loop, written against the seams; with the slip the token is read only after a failure.
fn call_with_retries(io: &mut OnTheWorld<'_, '_>, retries: u32, slip: GuideSlip) -> CallResult {
    let checks_first = slip != GuideSlip::CancelCheckedAfterFailure;
    let mut attempt = 0;
    loop {
        if checks_first && io.world.is_cancelled() {
            return CallResult::Err(ErrorKind::Cancelled);
        }
        match io.send() {
            Ok(()) => return CallResult::Ok,
            Err(error) if attempt == retries || !error.retryable_by_default() => return CallResult::Err(error),
            Err(_) if !checks_first && io.world.is_cancelled() => return CallResult::Err(ErrorKind::Cancelled),
            Err(_) => io.sleep(Duration::from_millis(10)),
        }
        attempt += 1;
    }
}

fn seams_promise(retries: &u32) -> Contract {
    let mut promise = sync_loop::contract_for(Contract::constant(retries + 1, VDuration::from_millis(10)));
    promise.retry.respects_idempotency = false;
    promise
}

fn seams_describe(c: &mut dyn Choices) -> u32 {
    c.between(0, 5) as u32
}

fn seams_run(retries: &u32, world: &mut World<'_>, slip: GuideSlip) -> Result<(), Abort> {
    while world.start_call()?.is_some() {
        let mut io = OnTheWorld { world: &mut *world, failed: None };
        let result = call_with_retries(&mut io, *retries, slip);
        if let Some(abort) = io.failed {
            return Err(abort);
        }
        world.end_call(result)?;
    }
    Ok(())
}

/// Step 8a's loop behind its own seams, as the guide writes it.
pub const GUIDE_SEAMS: FnSubject<u32> =
    subject("guide-seams", seams_describe, seams_promise, |r, world| seams_run(r, world, GuideSlip::None));
const CANCEL_CHECKED_AFTER_FAILURE: FnSubject<u32> =
    subject("guide-seams-cancel-checked-after-failure", seams_describe, seams_promise, |r, world| {
        seams_run(r, world, GuideSlip::CancelCheckedAfterFailure)
    });

/// An entry of the guide corpus: the slip, the law it violates, the mechanism it sits in.
#[derive(Clone, Copy, Debug)]
pub struct GuideEntry {
    /// The slip.
    pub slip: GuideSlip,
    /// The law it violates.
    pub law: &'static str,
    /// The mechanism it sits in.
    pub mechanism: &'static str,
}

/// The guide corpus.
pub const GUIDE_CORPUS: [GuideEntry; 5] = [
    GuideEntry { slip: GuideSlip::OneDelayTooMany, law: "attempts_within_max", mechanism: "attempt counting" },
    GuideEntry { slip: GuideSlip::CapForgotten, law: "delay_within_cap", mechanism: "backoff cap" },
    GuideEntry { slip: GuideSlip::CapBeforeDoubling, law: "delay_within_cap", mechanism: "backoff cap" },
    GuideEntry { slip: GuideSlip::SleepsBeforeChecking, law: "success_ends_call", mechanism: "reported result" },
    GuideEntry {
        slip: GuideSlip::CancelCheckedAfterFailure,
        law: "cancellation_stops_work",
        mechanism: "cancellation",
    },
];

const ZERO: VDuration = VDuration::ZERO;
const NS: VDuration = VDuration::from_nanos(1);

fn policy(retries: u32, base: VDuration, cap: VDuration) -> GuidePolicy {
    GuidePolicy { retries, base, cap }
}

/// `count` instant transient failures in one call, as one step (repeated when more than one).
fn transients(count: u32) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient).repeated(count)])
}

impl GuideEntry {
    /// The subject's name.
    pub fn name(&self) -> &'static str {
        match self.slip {
            GuideSlip::None => "guide",
            GuideSlip::OneDelayTooMany => "guide-sync-one-delay-too-many",
            GuideSlip::CapForgotten => "guide-sync-cap-forgotten",
            GuideSlip::CapBeforeDoubling => "guide-sync-cap-before-doubling",
            GuideSlip::SleepsBeforeChecking => "guide-tokio-sleeps-before-checking",
            GuideSlip::CancelCheckedAfterFailure => "guide-seams-cancel-checked-after-failure",
        }
    }

    /// Searches seed `seed` for the first violation within `cases_max` cases, shrinks it as the runner
    /// does (with the answers its config was drawn from) and compares it with the canonical minimum.
    pub fn reach(&self, seed: u64, cases_max: u64) -> Reached {
        let (law, slip) = (self.law, self.slip);
        match slip {
            GuideSlip::OneDelayTooMany => reached(&ONE_DELAY_TOO_MANY, law, seed, cases_max, &sync_minimum(slip)),
            GuideSlip::CapForgotten => reached(&CAP_FORGOTTEN, law, seed, cases_max, &sync_minimum(slip)),
            GuideSlip::CapBeforeDoubling => reached(&CAP_BEFORE_DOUBLING, law, seed, cases_max, &sync_minimum(slip)),
            GuideSlip::SleepsBeforeChecking => reached(&SLEEPS_BEFORE_CHECKING, law, seed, cases_max, &tokio_minimum()),
            GuideSlip::CancelCheckedAfterFailure => {
                reached(&CANCEL_CHECKED_AFTER_FAILURE, law, seed, cases_max, &seams_minimum())
            }
            GuideSlip::None => unreachable!("the faithful copies are no corpus bug"),
        }
    }

    /// The single shrink moves from the canonical minimum that still violate the law (none, for a
    /// 1-minimal minimum).
    pub fn violating_moves(&self) -> Vec<String> {
        let (law, slip) = (self.law, self.slip);
        match slip {
            GuideSlip::OneDelayTooMany => violating_moves(&ONE_DELAY_TOO_MANY, law, &sync_minimum(slip)),
            GuideSlip::CapForgotten => violating_moves(&CAP_FORGOTTEN, law, &sync_minimum(slip)),
            GuideSlip::CapBeforeDoubling => violating_moves(&CAP_BEFORE_DOUBLING, law, &sync_minimum(slip)),
            GuideSlip::SleepsBeforeChecking => violating_moves(&SLEEPS_BEFORE_CHECKING, law, &tokio_minimum()),
            GuideSlip::CancelCheckedAfterFailure => {
                violating_moves(&CANCEL_CHECKED_AFTER_FAILURE, law, &seams_minimum())
            }
            GuideSlip::None => unreachable!("the faithful copies are no corpus bug"),
        }
    }

    /// The law's verdicts on the canonical minimum: under the slip, and under the guide's code.
    pub fn minimum_verdicts(&self) -> (Verdict, Verdict) {
        let (law, slip) = (self.law, self.slip);
        match slip {
            GuideSlip::SleepsBeforeChecking => {
                let minimum = tokio_minimum();
                (judge_any(&SLEEPS_BEFORE_CHECKING, law, &minimum), judge_any(&GUIDE_TOKIO, law, &minimum))
            }
            GuideSlip::CancelCheckedAfterFailure => {
                let minimum = seams_minimum();
                (judge_any(&CANCEL_CHECKED_AFTER_FAILURE, law, &minimum), judge_any(&GUIDE_SEAMS, law, &minimum))
            }
            _ => {
                let minimum = sync_minimum(slip);
                let subject = match slip {
                    GuideSlip::OneDelayTooMany => &ONE_DELAY_TOO_MANY,
                    GuideSlip::CapForgotten => &CAP_FORGOTTEN,
                    _ => &CAP_BEFORE_DOUBLING,
                };
                (judge_any(subject, law, &minimum), judge_any(&GUIDE_SYNC, law, &minimum))
            }
        }
    }
}

/// The names of the single shrink moves (`timelaw::shrink::moves`) from `minimum` that still violate
/// `law` under `subject`.
fn violating_moves<C>(subject: &FnSubject<C>, law: &str, minimum: &Case<C>) -> Vec<String>
where
    FnSubject<C>: timelaw::generators::ConfigDomain<Config = C>,
{
    let all = timelaw::shrink::moves(subject, minimum);
    all.into_iter().filter(|step| judge_any(subject, law, &step.case).is_violated()).map(|step| step.name).collect()
}

fn reached<C>(subject: &FnSubject<C>, law: &str, seed: u64, cases_max: u64, minimum: &Case<C>) -> Reached
where
    FnSubject<C>: timelaw::generators::ConfigDomain<Config = C>,
    C: Serialize + PartialEq,
{
    measure_seed_with(subject, law, seed, cases_max, false).reached(minimum)
}

/// The minima of the blocking loop's slips, in words:
pub fn sync_minimum(slip: GuideSlip) -> Case<GuidePolicy> {
    let (config, schedule) = match slip {
        // No retry promised, every field at its simplest; the first attempt fails and the slip makes a
        // second one.
        GuideSlip::OneDelayTooMany => (policy(0, ZERO, ZERO), transients(1)),
        // One retry, a first delay of 1 ns under a cap of 0 (the smallest delay above the cap).
        GuideSlip::CapForgotten => (policy(1, NS, ZERO), transients(1)),
        // The capped base doubled: two retries (the second delay is the first doubled), a base of 1 ns
        // and a cap of 1 ns (a cap of 0 caps the base to 0, which doubles to 0); two failures.
        GuideSlip::CapBeforeDoubling => (policy(2, NS, NS), transients(2)),
        other => unreachable!("{other:?} is no slip of the blocking loop"),
    };
    Case::new(config, schedule, 0)
}

/// The tokio loop's slip, in words: one retry (a delay of 0 follows the first attempt), the shortest
/// timeout the description draws (1 ms); one call whose first attempt succeeds, and the slip sleeps
/// after it.
pub fn tokio_minimum() -> Case<TokioConfig> {
    Case::new((policy(1, ZERO, ZERO), draw::MS), Schedule::single(vec![]), 0)
}

/// The seams' slip, in words: no retry, one call cancelled as it starts with nothing scripted: the slip
/// dispatches its first attempt anyway.
pub fn seams_minimum() -> Case<u32> {
    let mut call = CallScript::new(vec![]);
    call.cancel_after = Some(ZERO);
    Case::new(0, Schedule::new(vec![call]), 0)
}
