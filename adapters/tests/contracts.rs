//! The richer promises each adapter's contract states, as its crate's docs give them: a table of config
//! to the mechanism fields (retry-after policy, jitter clipped at the cap, time limits, budget window,
//! tie rules, unstated mechanisms). The sentence each field rests on is cited next to it in the
//! adapter's `contract`.

use std::time::Duration;

use timelaw_adapters::backon::{
    BackonBuilder, BackonConstant, BackonConstantConfig, BackonExponential, BackonExponentialConfig, BackonFibonacci,
    BackonFibonacciConfig, BackonRetry, BackonRetryConfig,
};
use timelaw_adapters::exponential_backoff::{ExponentialBackoffConfig, ExponentialBackoffSubject};
use timelaw_adapters::tokio_retry2::{
    FixedStrategy, Strategy, TokioRetry2Fixed, TokioRetry2Retry, TokioRetry2RetryConfig,
};
use timelaw_adapters::tokio_timeout_loop::{TokioTimeoutLoop, TokioTimeoutLoopConfig};
use timelaw_adapters::tower::{TowerBackoff, TowerBackoffConfig, TowerBudget, TowerBudgetConfig};
use timelaw_core::{
    AboveCap, BudgetContract, Contract, RetryAfterCombine, RetryAfterPolicy, Subject, Unstated, VDuration,
};

/// The mechanism fields of a contract that the new vocabulary added.
#[derive(Debug, PartialEq, Eq)]
struct Mechanisms {
    retry_after: Option<RetryAfterPolicy>,
    clipped: bool,
    sleep_budget: Option<VDuration>,
    elapsed_max: Option<VDuration>,
    budget_window: Option<VDuration>,
    budget_admits: bool,
    interrupt_tie_stated: bool,
    circuit_stated: bool,
    unstated: Unstated,
}

/// Nothing beyond what a contract meant before.
const NONE: Mechanisms = Mechanisms {
    retry_after: None,
    clipped: false,
    sleep_budget: None,
    elapsed_max: None,
    budget_window: None,
    budget_admits: false,
    interrupt_tie_stated: false,
    circuit_stated: false,
    unstated: Unstated { circuit: false, retry_budget: false, time_limit: false },
};

const IGNORED: Option<RetryAfterPolicy> =
    Some(RetryAfterPolicy { combine: RetryAfterCombine::Ignored, above_cap: AboveCap::GiveUp });

const REPLACES: Option<RetryAfterPolicy> =
    Some(RetryAfterPolicy { combine: RetryAfterCombine::ReplacesBackoff, above_cap: AboveCap::SleepAnyway });

fn mechanisms(contract: &Contract) -> Mechanisms {
    Mechanisms {
        retry_after: contract.rate.retry_after,
        clipped: contract.delays.jitter_clipped_at_cap,
        sleep_budget: contract.delays.sleep_budget,
        elapsed_max: contract.timing.retry_elapsed_max,
        budget_window: contract.budget.stated().and_then(|budget| budget.window),
        budget_admits: contract.budget.stated().is_some_and(|budget| budget.admits),
        interrupt_tie_stated: contract.timing.interrupt_tie.is_some(),
        circuit_stated: contract.circuit.is_stated(),
        unstated: Unstated {
            circuit: contract.circuit.is_unstated(),
            retry_budget: contract.budget.is_unstated(),
            time_limit: contract.timing.limit_unstated,
        },
    }
}

#[track_caller]
fn check<S: Subject>(subject: &S, config: S::Config, expect: Mechanisms) {
    assert_eq!(mechanisms(&subject.contract(&config)), expect, "{}", subject.name());
}

fn secs(secs: u64) -> Duration {
    Duration::from_secs(secs)
}

fn v_secs(secs: u64) -> VDuration {
    VDuration::from_secs(secs)
}

#[test]
fn backon_builders() {
    // `with_total_delay`: "stop yielding sleep durations once the cumulative sleep time plus the next
    // sleep duration would exceed `total_delay`": a sleep budget, not an elapsed-time limit.
    check(&BackonExponential, BackonExponentialConfig::default(), NONE);
    let total = BackonExponentialConfig { total_delay: Some(secs(5)), ..BackonExponentialConfig::default() };
    check(&BackonExponential, total, Mechanisms { sleep_budget: Some(v_secs(5)), ..NONE });
    // Jitter "within `(0, current_delay)`" is added after the cap: not clipped.
    let jitter = BackonExponentialConfig { jitter: true, ..BackonExponentialConfig::default() };
    check(&BackonExponential, jitter, NONE);
    check(&BackonFibonacci, BackonFibonacciConfig { jitter: true, ..BackonFibonacciConfig::default() }, NONE);
    check(&BackonConstant, BackonConstantConfig { jitter: true, ..BackonConstantConfig::default() }, NONE);
}

#[test]
fn backon_retry_ignores_retry_after_without_adjust() {
    let retry = |backoff| BackonRetryConfig { backoff, notify: false };
    check(
        &BackonRetry,
        retry(BackonBuilder::Constant(BackonConstantConfig::default())),
        Mechanisms { retry_after: IGNORED, ..NONE },
    );
    let total = BackonExponentialConfig { total_delay: Some(secs(2)), ..BackonExponentialConfig::default() };
    let expect = Mechanisms { retry_after: IGNORED, sleep_budget: Some(v_secs(2)), ..NONE };
    check(&BackonRetry, retry(BackonBuilder::Exponential(total)), expect);
    check(
        &BackonRetry,
        retry(BackonBuilder::Fibonacci(BackonFibonacciConfig::default())),
        Mechanisms { retry_after: IGNORED, ..NONE },
    );
}

#[test]
fn exponential_backoff_clamps_its_jitter() {
    // "Make sure it doesn't exceed upper / lower bounds": the jittered delay is clamped to `min..=max`.
    check(&ExponentialBackoffSubject, ExponentialBackoffConfig::default(), Mechanisms { clipped: true, ..NONE });
    let plain = ExponentialBackoffConfig { jitter_milli: 0, max: None, ..ExponentialBackoffConfig::default() };
    check(&ExponentialBackoffSubject, plain, Mechanisms { clipped: true, ..NONE });
}

#[test]
fn tower_backoff_clips_its_jitter_at_max() {
    // "a random, uniform duration on `[0, base*self.jitter]` no greater than `self.max`".
    check(&TowerBackoff, TowerBackoffConfig::default(), Mechanisms { clipped: true, ..NONE });
}

#[test]
fn tower_budget_states_no_window_under_its_frozen_clock() {
    // The docs' window is `ttl`, but the subject freezes tokio's clock: nothing expires, so the budget
    // is over the whole case (a windowed model would forget deposits `TpsBudget` still holds).
    check(&TowerBudget, TowerBudgetConfig::default(), NONE);
    check(&TowerBudget, TowerBudgetConfig { ttl: secs(1), ..TowerBudgetConfig::default() }, NONE);
}

#[test]
fn tokio_retry2_retry_after_replaces_the_strategy_delay() {
    let fixed = FixedStrategy { interval: Duration::from_millis(500), take: Some(3) };
    // A strategy alone has no retry-after.
    check(&TokioRetry2Fixed, fixed.clone(), NONE);
    let retry = |retry_after| TokioRetry2RetryConfig {
        strategy: Strategy::Fixed(fixed.clone()),
        notify: false,
        retry_after,
        max_duration: None,
        jitter: false,
    };
    // "If the `retry_after` is `None` the operation should be retried according to the defined strategy
    // policy, else after the specified duration."
    check(&TokioRetry2Retry, retry(true), Mechanisms { retry_after: REPLACES, ..NONE });
    // Rate limits reported as plain transient errors: the strategy's delay.
    check(&TokioRetry2Retry, retry(false), Mechanisms { retry_after: IGNORED, ..NONE });
}

#[test]
fn tokio_timeout_loop_sleeps_its_delay_whatever_the_retry_after() {
    check(&TokioTimeoutLoop, TokioTimeoutLoopConfig::default(), Mechanisms { retry_after: IGNORED, ..NONE });
    let deadline = TokioTimeoutLoopConfig { deadline: Some(v_secs(1)), ..TokioTimeoutLoopConfig::default() };
    // The deadline is stated (`deadline`), the tie with cancellation is not.
    check(&TokioTimeoutLoop, deadline, Mechanisms { retry_after: IGNORED, ..NONE });
}

#[test]
fn tower_budget_window_would_misread_the_frozen_clock() {
    use timelaw_core::{execute, CallScript, Case, Outcome, Schedule, Step};
    use timelaw_laws::{Catalogue, Observation};
    // A deposit at 0 s and a retry at 1 s (the ttl): `TpsBudget` still holds the deposit, so with a
    // budget window of `ttl` the law would blame tower for a retry the whole-case budget allows.
    let config = TowerBudgetConfig { ttl: secs(1), min_per_sec: 0, retry_percent: timelaw_adapters::F32(2.0) };
    let slow_failure = CallScript {
        steps: vec![Step { duration: v_secs(1), ..Step::instant(Outcome::Transient) }],
        ..CallScript::outcomes(&[])
    };
    let case = Case::new(config.clone(), Schedule::new(vec![CallScript::outcomes(&[]), slow_failure]), 0);
    let trace = execute(&TowerBudget, &case.config, &case.schedule, case.seed);
    let catalogue = Catalogue::standard();
    let law = catalogue.get("retry_budget_respected").expect("a standard law");
    let judge =
        |contract: &Contract| (law.check)(&Observation::single_run(&case.schedule, case.seed, contract, &trace));
    let stated = TowerBudget.contract(&config);
    assert!(!judge(&stated).is_violated(), "the stated whole-case budget holds");
    let windowed =
        Contract { budget: stated.budget.map(|budget| BudgetContract { window: Some(v_secs(1)), ..budget }), ..stated };
    assert!(judge(&windowed).is_violated(), "a ttl window forgets the deposit tower still holds");
}
