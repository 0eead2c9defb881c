//! A paired drop for a call that used every attempt: its last attempt dropped with the attempts allowed
//! lowered by one and the time that attempt took, with the delay slept before it, added to the attempt
//! before it, so the call still ends when it ended (with the same failure, now after one attempt
//! fewer); and its mirror, the first attempt dropped, which needs no more than a neighbour to take its
//! time (an attempt the schedule leaves unscripted stays one). A failure that needs "the call ends 1 ns after it starts" reached through two instant
//! attempts 1 ns apart survives as one attempt taking 1 ns, where dropping the attempt alone (the call
//! ends sooner) or lowering the attempts alone (the scripted attempt is left over) loses it.

use timelaw_core::{Case, Contract};
use timelaw_generators::ConfigDomain;

/// `config` with the number that carries the contract's attempts lowered by one, when nothing else of
/// the contract changes; `None` when no number does that.
fn attempts_lowered<S: ConfigDomain + ?Sized>(subject: &S, config: &S::Config, attempts: u32) -> Option<S::Config> {
    let old = subject.contract(config);
    let expect =
        Contract { retry: timelaw_core::RetryContract { max_attempts: Some(attempts - 1), ..old.retry }, ..old };
    let numbers = subject.config_numbers(config);
    let candidates = numbers.iter().enumerate().filter(|(_, number)| number.value == u64::from(attempts));
    candidates
        .filter_map(|(index, _)| subject.with_config_number(config, index, u64::from(attempts) - 1))
        .find(|next| subject.contract(next) == expect)
}

/// `case` with the last dispatch of call `call` dropped, the attempts allowed lowered by one and the
/// dropped dispatch's duration plus the delay its retry slept added to the dispatch before it; `None`
/// unless the call scripts exactly as many dispatches as the attempts allowed (at least two), the delay
/// is promised (no jitter) and the domain can write the lowered attempts.
pub(super) fn last_attempt_absorbed<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Option<Case<S::Config>> {
    absorbed(subject, case, call, End::Last)
}

/// `case` with the first dispatch of call `call` dropped, the attempts allowed lowered by one and the
/// dropped dispatch's duration plus the delay slept after it added to the dispatch after it, so the
/// call still ends when it ended, after one attempt fewer: the mirror of [`last_attempt_absorbed`] for
/// a failure the last attempt carries (a timeout that ends the call only once no attempt is left).
/// `None` unless the call scripts at least two dispatches and no more than the attempts allowed (the
/// attempts past the scripted ones stay as many: the retry decisions after the drop come at the same
/// instants, each one attempt earlier), the backoff does not grow (a growing one would shift every later delay: that drop is the backoff's
/// advance, `super::paired::advanced`), its delay is promised (no jitter) and the domain can write the
/// lowered attempts.
pub(super) fn first_attempt_absorbed<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
) -> Option<Case<S::Config>> {
    if super::paired::advanced_config(subject, &case.config).is_some() {
        return None;
    }
    absorbed(subject, case, call, End::First)
}

/// Which attempt of the call is dropped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    First,
    Last,
}

/// The attempt at `end` of call `call` dropped, its time and the delay between it and its neighbour
/// added to that neighbour, the attempts allowed one fewer (see the two functions above).
fn absorbed<S: ConfigDomain + ?Sized>(
    subject: &S,
    case: &Case<S::Config>,
    call: usize,
    end: End,
) -> Option<Case<S::Config>> {
    let script = case.schedule.calls.get(call)?;
    let contract = subject.contract(&case.config);
    let attempts = contract.retry.max_attempts?;
    // The last attempt needs every attempt scripted (it is the one no retry follows); the first needs a
    // neighbour, and attempts left unscripted stay as many after the drop.
    let scripted = script.dispatches_scripted();
    let fits = match end {
        End::First => (2..=u64::from(attempts)).contains(&scripted),
        End::Last => attempts >= 2 && scripted == u64::from(attempts),
    };
    if !fits {
        return None;
    }
    // The dropped dispatch, its neighbour (which takes its time), the retry whose delay lies between
    // them, the step entry that loses a dispatch and the neighbour's dispatch number after the drop.
    let (dropped, neighbour, retry, entry, kept_at) = match end {
        End::First => (1, 2, 1, 0, 1),
        End::Last => (attempts, attempts - 1, attempts - 1, script.steps.len() - 1, attempts - 1),
    };
    let slept = super::paired::promised_delay(&contract, retry)?;
    let (gone, kept) = (script.step(dropped), script.step(neighbour));
    let took = kept.duration.checked_add(slept)?.checked_add(gone.duration)?;
    let mut next = super::paired::one_dispatch_fewer(case, call, entry)?;
    let written = &mut next.schedule.calls[call];
    written.set_step(kept_at, timelaw_core::Step { duration: took, ..kept });
    super::passes::merge_equal_neighbours(written);
    next.config = attempts_lowered(subject, &case.config, attempts)?;
    Some(next)
}

#[cfg(test)]
mod tests {
    use timelaw_core::reference::{Backoff, Jitter, Policy, Reference};
    use timelaw_core::{Outcome, Schedule, Step, VDuration};

    use super::*;

    fn ns(nanos: u64) -> VDuration {
        VDuration::from_nanos(nanos)
    }

    fn case(max_attempts: u32, delay_ns: u64, steps: Vec<Step>) -> Case<Policy> {
        let policy = Policy::new(max_attempts, Backoff::Constant { delay: ns(delay_ns) }, ns(delay_ns));
        Case::new(policy, Schedule::single(steps), 0)
    }

    #[track_caller]
    fn check(from: Case<Policy>, expect: Option<Case<Policy>>) {
        assert_eq!(last_attempt_absorbed(&Reference, &from, 0), expect);
    }

    #[test]
    fn the_last_attempt_and_its_sleep_move_into_the_attempt_before() {
        let t = |took: u64| Step::new(ns(took), Outcome::Transient);
        check(case(2, 1, vec![t(0).repeated(2)]), Some(case(1, 1, vec![t(1)])));
        check(case(2, 3, vec![t(2), t(5)]), Some(case(1, 3, vec![t(10)])));
        check(case(3, 1, vec![t(0).repeated(3)]), Some(case(2, 1, vec![t(0), t(1)])));
        check(case(3, 1, vec![t(0).repeated(2)]), None);
        check(case(1, 1, vec![t(0)]), None);
        let mut jittered = case(2, 1, vec![t(0).repeated(2)]);
        jittered.config.jitter = Jitter::Full;
        check(jittered, None);
    }

    #[test]
    fn the_first_attempt_and_its_sleep_move_into_the_attempt_after() {
        let t = |took: u64| Step::new(ns(took), Outcome::Transient);
        let hang = Step::new(ns(0), Outcome::Hang);
        let first = |from: &Case<Policy>| first_attempt_absorbed(&Reference, from, 0);
        assert_eq!(first(&case(2, 0, vec![t(0), hang])), Some(case(1, 0, vec![hang])));
        assert_eq!(first(&case(2, 3, vec![t(2), t(5)])), Some(case(1, 3, vec![t(10)])));
        assert_eq!(first(&case(3, 1, vec![t(0).repeated(3)])), Some(case(2, 1, vec![t(1), t(0)])));
        // An attempt left unscripted stays one: the retry after the old second attempt keeps its instant.
        assert_eq!(first(&case(3, 1, vec![t(0).repeated(2)])), Some(case(2, 1, vec![t(1)])));
        assert_eq!(first(&case(3, 1, vec![t(0)])), None, "no attempt after the first to take its time");
        assert_eq!(first(&case(2, 1, vec![t(0).repeated(3)])), None, "more dispatches than attempts");
        let growing = Policy::new(2, Backoff::Linear { initial: ns(1), step: ns(1) }, ns(9));
        assert_eq!(first(&Case::new(growing, Schedule::single(vec![t(0), t(0)]), 0)), None, "a growing backoff");
    }
}
