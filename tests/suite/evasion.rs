//! The evasion suite: small broken subjects, written against the public API, that try to look correct,
//! each beside a correct twin. A broken subject must make `assert_holds()` fail (a violation, or cases
//! that could not be judged) within seconds; its twin must hold. A green run means judged: no bug may
//! escape as inconclusive, vacuous, refused or unserved.

use std::time::Duration;

use timelaw::core::{
    sync_loop, Abort, AttemptResult, CallInfo, CallResult, Contract, ErrorKind, Limits, Outcome, Subject, VDuration,
    World,
};
use timelaw::generators::{ConfigNumber, Describe};
use timelaw::reference::{Policy, Reference};
use timelaw::runner::RunOutput;
use timelaw::{draw, subject, Choices, Config, FnSubject, Swarm};

/// How a run ended, in the terms a user of `assert_holds()` sees.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    /// `assert_holds()` passes.
    Holds,
    /// It panics: these laws were violated (sorted), and cases were left unjudged or not.
    Fails { violated: Vec<&'static str>, unjudged: bool },
}

fn seen<C: serde::Serialize>(output: &RunOutput<C>) -> Seen {
    if output.holds() {
        return Seen::Holds;
    }
    let mut violated: Vec<&'static str> =
        output.laws.iter().filter(|law| law.counts.violated > 0).map(|law| law.law.id).collect();
    violated.sort_unstable();
    Seen::Fails { violated, unjudged: !output.judged() }
}

/// The default run of the suite: 2,000 cases, the default options otherwise.
fn run<S: timelaw::generators::ConfigDomain>(subject: &S) -> RunOutput<S::Config> {
    timelaw::check(subject).cases(2_000).seed(7).env(false).run()
}

/// `broken` fails with `violated` among its violated laws (and unjudged cases when `unjudged`); `twin`
/// holds.
#[track_caller]
fn check<B, T>(broken: &B, twin: &T, violated: &[&str], unjudged: bool)
where
    B: timelaw::generators::ConfigDomain,
    T: timelaw::generators::ConfigDomain,
{
    check_outputs(&run(broken), &run(twin), violated, unjudged);
}

#[track_caller]
fn check_outputs<B: serde::Serialize, T: serde::Serialize>(
    broken: &RunOutput<B>,
    twin: &RunOutput<T>,
    violated: &[&str],
    unjudged: bool,
) {
    assert_eq!(seen(twin), Seen::Holds, "the twin of `{}` must hold:\n{}", broken.subject, twin.failure_message());
    let Seen::Fails { violated: found, unjudged: found_unjudged } = seen(broken) else {
        panic!("`{}` escaped: assert_holds() passes", broken.subject);
    };
    for id in violated {
        assert!(found.contains(id), "`{}` does not violate {id}; it violates {found:?}", broken.subject);
    }
    assert_eq!(found_unjudged, unjudged, "`{}` unjudged cases:\n{}", broken.subject, broken.failure_message());
    let asserted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| broken.assert_holds()));
    assert!(asserted.is_err(), "assert_holds() of `{}` passes", broken.subject);
}

/// Retries up to `retries` times, `delay` apart; the contract of the documented sync loop.
fn promise(retries: &u32) -> Contract {
    sync_loop::contract_for(Contract::constant(retries + 1, VDuration::from_millis(10)))
}

fn retries(c: &mut dyn Choices) -> u32 {
    draw::retries(c, 5) as u32
}

fn delays(retries: u32) -> impl Iterator<Item = Duration> {
    std::iter::repeat_n(Duration::from_millis(10), retries as usize)
}

/// The correct loop every twin below is: the documented sync loop.
const TWIN: FnSubject<u32> =
    subject("twin", retries, promise, |r, world| sync_loop::serve_calls(world, |_| Ok(delays(*r))));

/// One attempt per call; a failed call is left without a result and the loop goes on to the next call.
const GIVES_UP_WITHOUT_RESULT: FnSubject<u32> = subject(
    "gives-up-without-result",
    retries,
    |_| sync_loop::contract_for(Contract::constant(1, VDuration::ZERO)),
    |_, world| {
        while world.start_call()?.is_some() {
            if world.dispatch()? == AttemptResult::Completed(Outcome::Ok) {
                world.end_call(CallResult::Ok)?;
            }
        }
        Ok(())
    },
);

const ONE_ATTEMPT: FnSubject<u32> = subject(
    "one-attempt",
    retries,
    |_| sync_loop::contract_for(Contract::constant(1, VDuration::ZERO)),
    |_, world| sync_loop::serve_calls(world, |_| Ok(std::iter::empty())),
);

#[test]
fn a_call_left_without_a_result_is_a_violation() {
    check(&GIVES_UP_WITHOUT_RESULT, &ONE_ATTEMPT, &["uses_world_as_documented"], false);
}

/// Its validation refuses every config its own description draws.
const REFUSES_EVERY_CONFIG: FnSubject<u32> = subject("refuses-every-config", retries, promise, |r, world| {
    if *r < 100 {
        return Err(Abort::InvalidConfig(format!("retries {r} below the minimum 100")));
    }
    sync_loop::serve_calls(world, |_| Ok(delays(*r)))
});

#[test]
fn a_subject_refusing_its_own_configs_is_a_violation() {
    check(&REFUSES_EVERY_CONFIG, &TWIN, &["accepts_described_configs"], false);
}

/// Draws a jitter for each delay with the bounds the wrong way round.
const REVERSED_BOUNDS: FnSubject<u32> = subject("reversed-bounds", retries, jittered, |r, world| {
    sync_loop::serve_calls(world, |world| {
        let extra = world.random_between(10_000_000, 0)?;
        Ok(delays(*r).map(move |delay| delay + Duration::from_nanos(extra)))
    })
});

const JITTERED: FnSubject<u32> = subject("jittered", retries, jittered, |r, world| {
    sync_loop::serve_calls(world, |world| {
        let extra = world.random_between(0, 10_000_000)?;
        Ok(delays(*r).map(move |delay| delay + Duration::from_nanos(extra)))
    })
});

/// Up to `retries` retries, each 10 to 20 ms apart (no promise on the delays beyond that).
fn jittered(retries: &u32) -> Contract {
    let mut promise = Contract::default();
    promise.retry.max_attempts = Some(retries + 1);
    promise.delays.min = Some(VDuration::from_millis(10));
    promise.delays.max = Some(VDuration::from_millis(20));
    sync_loop::contract_for(promise)
}

#[test]
fn a_misuse_of_the_world_is_a_violation() {
    check(&REVERSED_BOUNDS, &JITTERED, &["uses_world_as_documented"], false);
}

/// Serves the first call and returns, leaving the rest of the schedule unserved.
const SERVES_ONE_CALL: FnSubject<u32> = subject("serves-one-call", retries, promise, |r, world| {
    if let Some(call) = world.start_call()? {
        let result = serve_one(world, call, *r)?;
        world.end_call(result)?;
    }
    Ok(())
});

/// One call of the documented loop's behaviour, by hand: up to `retries` retries 10 ms apart.
/// A non-idempotent call is never retried.
fn serve_one(world: &mut World<'_>, call: CallInfo, retries: u32) -> Result<CallResult, Abort> {
    serve_one_sleeping(world, call, retries, |world, delay| world.sleep(delay).map(drop))
}

/// [`serve_one`], sleeping each delay with `sleep`.
fn serve_one_sleeping(
    world: &mut World<'_>,
    call: CallInfo,
    retries: u32,
    sleep: fn(&mut World<'_>, VDuration) -> Result<(), Abort>,
) -> Result<CallResult, Abort> {
    let mut attempt = 0;
    loop {
        if world.is_cancelled() {
            return Ok(CallResult::Err(ErrorKind::Cancelled));
        }
        attempt += 1;
        let result = match world.dispatch()? {
            AttemptResult::Completed(outcome) => CallResult::from_outcome(outcome),
            AttemptResult::TimedOut => CallResult::Err(ErrorKind::Timeout),
            AttemptResult::Cancelled => return Ok(CallResult::Err(ErrorKind::Cancelled)),
        };
        let retryable = matches!(result, CallResult::Err(kind) if kind.retryable_by_default());
        if !retryable || !call.idempotent || attempt > retries || world.is_cancelled() {
            return Ok(result);
        }
        sleep(world, VDuration::from_millis(10))?;
    }
}

const BY_HAND: FnSubject<u32> = subject("by-hand", retries, promise, |r, world| {
    while let Some(call) = world.start_call()? {
        let result = serve_one(world, call, *r)?;
        world.end_call(result)?;
    }
    Ok(())
});

#[test]
fn a_subject_serving_part_of_the_schedule_is_a_violation() {
    check(&SERVES_ONE_CALL, &BY_HAND, &["uses_world_as_documented"], false);
}

/// Sleeps between calls, outside any call (a "cool-down" the World cannot attribute).
const SLEEPS_BETWEEN_CALLS: FnSubject<u32> = subject("sleeps-between-calls", retries, promise, |r, world| {
    while let Some(call) = world.start_call()? {
        let result = serve_one(world, call, *r)?;
        world.end_call(result)?;
        world.sleep(VDuration::from_millis(1))?;
    }
    Ok(())
});

#[test]
fn a_sleep_outside_a_call_is_a_violation() {
    check(&SLEEPS_BETWEEN_CALLS, &BY_HAND, &["uses_world_as_documented"], false);
}

/// Waits for its caller to cancel before it dispatches anything, polling every 10 ms (a wait for a
/// readiness that never comes); checked under a lowered step limit, where a loop and a long run look
/// alike.
const RETRIES_FOR_EVER: FnSubject<u32> = subject(
    "polls-for-ever",
    retries,
    |_| sync_loop::loop_contract(),
    |_, world| {
        while world.start_call()?.is_some() {
            while !world.is_cancelled() {
                world.sleep(VDuration::from_millis(10))?;
            }
            world.end_call(CallResult::Err(ErrorKind::Cancelled))?;
        }
        Ok(())
    },
);

const RETRIES_A_LITTLE: FnSubject<u32> = subject(
    "retries-a-little",
    retries,
    |_| sync_loop::loop_contract(),
    |r, world| sync_loop::serve_calls(world, |_| Ok(delays(*r))),
);

#[test]
fn a_loop_stopped_at_a_lowered_limit_is_unjudged_not_a_pass() {
    let lowered = |subject: &dyn Fn(Config) -> Seen| {
        let limits = Limits { sleeps_max: 64, ..Limits::default() };
        subject(Config { cases: 2_000, seed: 7, limits, ..Config::default() })
    };
    let broken = lowered(&|config| seen(&timelaw::check(&RETRIES_FOR_EVER).config(config).run()));
    assert_eq!(broken, Seen::Fails { violated: Vec::new(), unjudged: true });
    let output = timelaw::check(&RETRIES_FOR_EVER)
        .config(Config {
            cases: 200,
            seed: 7,
            limits: Limits { sleeps_max: 64, ..Limits::default() },
            ..Config::default()
        })
        .run();
    let message = output.failure_message();
    assert!(message.contains("stopped at a step limit set below its default"), "{message}");
    assert!(message.contains("law `terminates` could not judge"), "{message}");
    assert_eq!(lowered(&|config| seen(&timelaw::check(&RETRIES_A_LITTLE).config(config).run())), Seen::Holds);
    // At the default limits the same loop is a violation of `terminates` (a few cases: each run goes on
    // to the default limit of 16,384 sleeps).
    let default = timelaw::check(&RETRIES_FOR_EVER).cases(20).seed(7).env(false).run();
    assert_eq!(seen(&default), Seen::Fails { violated: vec!["terminates"], unjudged: false });
}

/// The reference interpreter run with `edit` applied to its config, while it declares the contract of the
/// config as drawn: a config plumbing bug ("declares X, implements Y").
#[derive(Clone)]
struct Declares {
    name: &'static str,
    edit: fn(&mut Policy),
}

impl Subject for Declares {
    type Config = Policy;
    fn name(&self) -> &str {
        self.name
    }
    fn contract(&self, policy: &Policy) -> Contract {
        Reference.contract(policy)
    }
    fn run(&self, policy: &Policy, world: &mut World<'_>) -> Result<(), Abort> {
        let mut implemented = policy.clone();
        (self.edit)(&mut implemented);
        Reference.run(&implemented, world)
    }
}

impl Describe for Declares {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, swarm: &Swarm) -> Policy {
        Reference.describe(c, swarm)
    }
    fn outside(&self, policy: &Policy) -> Option<String> {
        Reference.outside(policy)
    }
    fn numbers(&self, policy: &Policy) -> Vec<ConfigNumber> {
        Reference.numbers(policy)
    }
    fn rank(&self, policy: &Policy) -> Vec<u64> {
        Reference.rank(policy)
    }
    fn with_number(&self, policy: &Policy, index: usize, value: u64) -> Option<Policy> {
        Reference.with_number(policy, index, value)
    }
    fn simpler(&self, policy: &Policy) -> Vec<Policy> {
        Reference.simpler(policy)
    }
}

const HONEST: Declares = Declares { name: "honest", edit: |_| {} };

fn plus_1ms(duration: &mut VDuration) {
    *duration = duration.saturating_add(VDuration::from_millis(1));
}

#[test]
fn a_delay_cap_implemented_above_the_declared_one_is_a_violation() {
    let broken = Declares { name: "cap-above-declared", edit: |policy| plus_1ms(&mut policy.delay_max) };
    check(&broken, &HONEST, &["delay_within_cap"], false);
}

#[test]
fn an_attempt_timeout_implemented_above_the_declared_one_is_a_violation() {
    let edit = |policy: &mut Policy| policy.attempt_timeout.iter_mut().for_each(plus_1ms);
    check(&Declares { name: "timeout-above-declared", edit }, &HONEST, &["timeout_boundary_is_expired"], false);
}

#[test]
fn an_open_period_implemented_below_the_declared_one_is_a_violation() {
    let edit = |policy: &mut Policy| {
        for circuit in policy.circuit.iter_mut() {
            circuit.open_for = VDuration::from_nanos(circuit.open_for.as_nanos() / 2);
        }
    };
    // Admitted before the declared open period ended: dispatched while the contract's breaker is open.
    check(
        &Declares { name: "open-period-below-declared", edit },
        &HONEST,
        &["circuit_open_rejects_without_dispatch"],
        false,
    );
}

#[test]
fn a_retry_budget_implemented_above_the_declared_one_is_a_violation() {
    let edit = |policy: &mut Policy| {
        for budget in policy.retry_budget.iter_mut() {
            budget.min_retries = budget.min_retries.saturating_add(1);
        }
    };
    check(&Declares { name: "budget-above-declared", edit }, &HONEST, &["retry_budget_respected"], false);
}

/// Sleeps every delay as two halves: the total is right, each sleep is not the promised delay.
const SPLITS_SLEEPS: FnSubject<u32> = subject("splits-sleeps", retries, promise, |r, world| {
    while let Some(call) = world.start_call()? {
        let result = serve_one_sleeping(world, call, *r, |world, delay| {
            let half = VDuration::from_nanos(delay.as_nanos() / 2);
            world.sleep(half)?;
            world.sleep(half).map(drop)
        })?;
        world.end_call(result)?;
    }
    Ok(())
});

#[test]
fn a_delay_split_in_two_sleeps_is_a_violation() {
    check(&SPLITS_SLEEPS, &BY_HAND, &["backoff_shape_without_jitter"], false);
}

/// Gives up on a failed attempt by returning a made-up time-limit cut, which would pass for a limit
/// that says nothing about the subject.
const FORGES_A_CUT: FnSubject<u32> = subject("forges-a-cut", retries, promise, |r, world| {
    while let Some(call) = world.start_call()? {
        let result = serve_one(world, call, *r)?;
        if !result.is_ok() {
            return Err(Abort::StepLimit { kind: timelaw::core::LimitKind::VirtualTime, limit: 1 });
        }
        world.end_call(result)?;
    }
    Ok(())
});

#[test]
fn a_forged_cut_is_a_violation() {
    check(&FORGES_A_CUT, &BY_HAND, &["uses_world_as_documented"], false);
}

/// Retries for ever (its attempt limit is never checked), and when the World stops it at a step limit
/// it swallows the error and returns `Ok`, as if every call had ended.
const SWALLOWS_THE_LIMIT: FnSubject<u32> = subject("swallows-the-limit", retries, promise, |_, world| {
    while world.start_call()?.is_some() {
        loop {
            match world.dispatch() {
                Err(_) => return Ok(()),
                Ok(AttemptResult::Completed(Outcome::Ok)) => break,
                Ok(_) => {}
            }
            if world.sleep(VDuration::from_millis(10)).is_err() {
                return Ok(());
            }
        }
        world.end_call(CallResult::Ok)?;
    }
    Ok(())
});

#[test]
fn a_swallowed_step_limit_still_ends_the_run() {
    check(&SWALLOWS_THE_LIMIT, &BY_HAND, &["attempts_within_max", "terminates"], false);
}

/// Waits out its delay by reading the clock in a loop instead of sleeping (a busy-wait: no event, no
/// clock move).
const BUSY_WAITS: FnSubject<u32> = subject("busy-waits", retries, promise, |r, world| {
    while let Some(call) = world.start_call()? {
        let result = serve_one_sleeping(world, call, *r, |world, delay| {
            let until = world.now().saturating_add(delay);
            while world.read_now()?.is_ok_and(|now| now < until) {}
            Ok(())
        })?;
        world.end_call(result)?;
    }
    Ok(())
});

#[test]
fn a_busy_wait_stops_and_is_a_violation() {
    check(&BUSY_WAITS, &BY_HAND, &["terminates"], false);
}

/// One attempt under a 1 s timeout; after a fatal answer it awaits a future that never completes (no
/// timer, nothing to wake it: a deadlock).
const TOKIO_AWAITS_FOR_EVER: FnSubject<u32> =
    subject("tokio-awaits-for-ever", retries, one_timed_attempt, |_, world| {
        timelaw::tokio::serve_calls(world, |w, _call| async move {
            let result = w.attempt_within(Duration::from_secs(1)).await?;
            if result == CallResult::Err(ErrorKind::Fatal) {
                std::future::pending::<()>().await;
            }
            Ok(result)
        })
    });

const TOKIO_ONE_ATTEMPT: FnSubject<u32> = subject("tokio-one-attempt", retries, one_timed_attempt, |_, world| {
    timelaw::tokio::serve_calls(world, |w, _call| async move { w.attempt_within(Duration::from_secs(1)).await })
});

fn one_timed_attempt(_: &u32) -> Contract {
    let promise = Contract::constant(1, VDuration::ZERO);
    sync_loop::contract_for(promise.with_attempt_timeout(VDuration::from_secs(1), timelaw::core::TieRule::InnerWins))
}

#[test]
fn a_tokio_deadlock_is_a_violation() {
    check(&TOKIO_AWAITS_FOR_EVER, &TOKIO_ONE_ATTEMPT, &["terminates"], false);
}

/// Its contract states a circuit breaker that opens after 1,000 calls in a window of 1,000: no generated
/// case has that many calls, so the breaker never opens and the laws about an open breaker never judge
/// anything. Not a violation: a promise the run never exercised, which the health check names.
const UNREACHABLE_BREAKER: FnSubject<u32> = subject(
    "unreachable-breaker",
    retries,
    |r| {
        let mut promise = promise(r);
        let breaker = timelaw::core::CircuitContract {
            window: 1_000,
            min_calls: 1_000,
            ..timelaw::core::CircuitContract::DEFAULT
        };
        promise.circuit = timelaw::core::Declared::Stated(breaker);
        promise
    },
    |r, world| {
        while let Some(call) = world.start_call()? {
            let result = serve_one(world, call, *r)?;
            world.end_call(result)?;
        }
        Ok(())
    },
);

#[test]
fn a_promise_the_run_never_exercises_is_named_and_fails_when_required() {
    let output = run(&UNREACHABLE_BREAKER);
    let barely = output.barely_exercised();
    assert!(barely.contains(&"circuit_open_rejects_without_dispatch"), "{barely:?}");
    assert!(!barely.contains(&"attempts_within_max"), "{barely:?}");
    assert_eq!(seen(&output), Seen::Holds, "a warning by default");
    assert!(output.summary().to_string().contains("barely exercised"), "{}", output.summary());
    let required = timelaw::check(&UNREACHABLE_BREAKER).cases(2_000).seed(7).env(false).require_judged(true).run();
    assert!(!required.holds());
    assert!(
        required.failure_message().contains("circuit_open_rejects_without_dispatch"),
        "{}",
        required.failure_message()
    );
    // The reference, whose description draws every breaker it states, is exercised.
    let reference = timelaw::check(&Reference).cases(20_000).seed(7).env(false).require_judged(true).run();
    assert_eq!(reference.barely_exercised(), Vec::<&str>::new());
    reference.assert_holds();
}
