//! Laws about how many attempts a call makes: the attempt limit, exhaustion, idempotency and the retry
//! budget.

use timelaw_core::{Contract, EventKind};

use super::budget_model::BudgetModel;
use super::support::{is_failed_attempt, is_interrupted, LastAttempt};
use crate::ids;
use crate::law::{applies, Law, LawKind, Observation};
use crate::temporal::{monitor, Check};
use crate::verdict::Verdict;

// Never inlined: one address wherever its laws are named (`crate::law::applies!`).
#[inline(never)]
fn has_max_attempts(contract: &Contract) -> bool {
    contract.retry.max_attempts.is_some()
}

/// `attempts_within_max`: no call makes more than `retry.max_attempts` attempts, the first included.
///
/// - Needs: `retry.max_attempts`.
/// - Violated at the first `AttemptStart` numbered above `retry.max_attempts`.
/// - Vacuous when no attempt failed (no call had a reason to retry).
/// - Example violation: `max_attempts = 3` and a call dispatches a fourth attempt.
pub const ATTEMPTS_WITHIN_MAX: Law = Law {
    id: ids::ATTEMPTS_WITHIN_MAX,
    title: "a call makes at most max_attempts attempts",
    kind: LawKind::Safety,
    needs: &["retry.max_attempts"],
    applies: has_max_attempts,
    check: attempts_within_max,
};

fn attempts_within_max(observation: &Observation<'_>) -> Verdict {
    let max = observation.contract.retry.max_attempts.unwrap_or(u32::MAX);
    monitor(&observation.trace.events, (), |(), event| match event.kind {
        EventKind::AttemptStart if event.attempt > max => {
            Check::failed(format!("call {} made attempt {}, but max_attempts is {max}", event.call, event.attempt))
        }
        ref kind if is_failed_attempt(kind) => Check::Pass,
        _ => Check::Skip,
    })
}

/// `no_sleep_after_final_attempt`: a call never sleeps in vain. It does not sleep after its
/// `retry.max_attempts`-th attempt started, and a sleep is always followed by another attempt unless the call
/// ends `Err(Cancelled)` or `Err(DeadlineExceeded)` (the sleep was cut, or the clock ran out) or the retry
/// it waited for was refused (a `Rejected` event: a breaker, a budget, a bulkhead or a limiter said no).
///
/// - Needs: `retry.max_attempts`.
/// - Violated at the offending `SleepRequested`.
/// - Vacuous when there was no sleep and no call reached its last attempt.
/// - Example violation: the last attempt fails, the subject sleeps 100ms, then returns `Err(Transient)`.
pub const NO_SLEEP_AFTER_FINAL_ATTEMPT: Law = Law {
    id: ids::NO_SLEEP_AFTER_FINAL_ATTEMPT,
    title: "no sleep after the final attempt or before giving up",
    kind: LawKind::Safety,
    needs: &["retry.max_attempts"],
    applies: has_max_attempts,
    check: no_sleep_after_final_attempt,
};

fn no_sleep_after_final_attempt(observation: &Observation<'_>) -> Verdict {
    let max = observation.contract.retry.max_attempts.unwrap_or(u32::MAX);
    let (mut attempts, mut pending_sleep, mut relevant) = (0_u32, None, false);
    for event in &observation.trace.events {
        match event.kind {
            EventKind::CallStart { .. } => (attempts, pending_sleep) = (0, None),
            EventKind::AttemptStart => {
                attempts = attempts.max(event.attempt);
                relevant |= attempts >= max;
                pending_sleep = None;
            }
            EventKind::SleepRequested { .. } if attempts >= max => {
                return slept_in_vain(event.seq, "the call slept after its final attempt");
            }
            EventKind::SleepRequested { .. } => (relevant, pending_sleep) = (true, Some(event.seq)),
            // The retry the sleep waited for was tried and refused by a declared mechanism.
            EventKind::Rejected { .. } => pending_sleep = None,
            EventKind::CallEnd { result } => match pending_sleep {
                Some(sleep) if !is_interrupted(result) => {
                    return slept_in_vain(sleep, "the call slept, then gave up without another attempt");
                }
                _ => pending_sleep = None,
            },
            _ => {}
        }
    }
    if relevant {
        Verdict::Holds
    } else {
        Verdict::Vacuous
    }
}

/// A sleep in vain, worded by how the call gave up after it (its attempts were used up, or it returned
/// without one more): one check of one promise (the [`CheckSite`](crate::CheckSite) is this
/// function's, whichever the wording), so a finding shrinks from one wording to the other.
fn slept_in_vain(sleep: u32, wording: &'static str) -> Verdict {
    Verdict::violated_at(sleep, wording)
}

/// `exhausted_retries_return_err`: a call that used all `retry.max_attempts` attempts and whose last attempt
/// failed (an error outcome, a timeout or a cancellation) returns `Err`. A hedge's loser, cancelled at
/// the instant another attempt decided the call ([`LastAttempt`]), is no
/// failure.
///
/// - Needs: `retry.max_attempts`.
/// - Violated at the call's `CallEnd`.
/// - Vacuous when no call exhausted its attempts.
/// - Example violation: three transient failures with `max_attempts = 3`, and the call returns `Ok`.
pub const EXHAUSTED_RETRIES_RETURN_ERR: Law = Law {
    id: ids::EXHAUSTED_RETRIES_RETURN_ERR,
    title: "a call that exhausted its attempts returns Err",
    kind: LawKind::Safety,
    needs: &["retry.max_attempts"],
    applies: has_max_attempts,
    check: exhausted_retries_return_err,
};

fn exhausted_retries_return_err(observation: &Observation<'_>) -> Verdict {
    let max = observation.contract.retry.max_attempts.unwrap_or(u32::MAX);
    // (attempts started, whether an attempt failed since the last start, the last attempt's result)
    let start = (0_u32, false, LastAttempt::default());
    monitor(&observation.trace.events, start, |(attempts, last_failed, last), event| {
        let counts = last.step(event);
        match event.kind {
            EventKind::CallStart { .. } => {
                (*attempts, *last_failed) = (0, false);
                Check::Skip
            }
            EventKind::AttemptStart => {
                (*attempts, *last_failed) = ((*attempts).max(event.attempt), false);
                Check::Skip
            }
            EventKind::CallEnd { result } if *attempts >= max && *last_failed => {
                Check::that(!result.is_ok(), "the call exhausted its attempts but returned Ok")
            }
            // A hedge's loser, cancelled because another attempt decided the call, is no failure.
            ref kind => {
                *last_failed |= counts && is_failed_attempt(kind);
                Check::Skip
            }
        }
    })
}

/// `non_idempotent_not_retried`: a call that is not idempotent is attempted at most once.
///
/// - Needs: `respects_idempotency == true`.
/// - Violated at the second `AttemptStart` of a non-idempotent call.
/// - Vacuous when no non-idempotent call failed its first attempt.
/// - Example violation: a non-idempotent `POST` fails transiently and is sent again.
pub const NON_IDEMPOTENT_NOT_RETRIED: Law = Law {
    id: ids::NON_IDEMPOTENT_NOT_RETRIED,
    title: "a non-idempotent call is attempted at most once",
    kind: LawKind::Safety,
    needs: &["retry.respects_idempotency"],
    applies: applies!(contract => contract.retry.respects_idempotency),
    check: non_idempotent_not_retried,
};

fn non_idempotent_not_retried(observation: &Observation<'_>) -> Verdict {
    monitor(&observation.trace.events, true, |idempotent, event| match event.kind {
        EventKind::CallStart { idempotent: flag } => {
            *idempotent = flag;
            Check::Skip
        }
        _ if *idempotent => Check::Skip,
        EventKind::AttemptStart if event.attempt >= 2 => Check::fail("a non-idempotent call was retried"),
        ref kind if event.attempt == 1 && is_failed_attempt(kind) => Check::Pass,
        _ => Check::Skip,
    })
}

/// `retry_budget_respected`: the retries taken never exceed
/// [`BudgetContract::allowed`](timelaw_core::BudgetContract::allowed) for the calls started: over the
/// whole case, or within `budget.window` when the contract states one (see
/// [`super::budget_model`]).
///
/// - Needs: `budget` (reads `budget.window`).
/// - Violated at the first retry beyond the budget.
/// - Vacuous when no call retried.
/// - Example violation: `min_retries = 1, retry_percent = 0` and two retries in one case.
pub const RETRY_BUDGET_RESPECTED: Law = Law {
    id: ids::RETRY_BUDGET_RESPECTED,
    title: "retries stay within the retry budget",
    kind: LawKind::Safety,
    needs: &["budget"],
    applies: applies!(contract => contract.budget.is_stated()),
    check: retry_budget_respected,
};

fn retry_budget_respected(observation: &Observation<'_>) -> Verdict {
    let Some(mut model) = BudgetModel::of(observation.contract) else {
        return Verdict::NotApplicable;
    };
    let events = &observation.trace.events;
    let mut verdict = Verdict::Vacuous;
    for (index, event) in events.iter().enumerate() {
        if event.kind != EventKind::AttemptStart || event.attempt < 2 {
            continue;
        }
        model.advance(events, index);
        if !model.has_room() {
            return Verdict::violated_at(event.seq, "a retry exceeded the retry budget");
        }
        verdict = Verdict::Holds;
    }
    verdict
}
