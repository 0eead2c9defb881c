//! The shrink pass `fold_retries`: a failed step made `ok`, lasting until its call ended, so the retries
//! it caused (their waits and attempts) are folded into one successful attempt that holds the call as
//! long as they did. Where calls overlap, what often matters is only how long a call stays busy (a
//! bulkhead slot held through a retry's backoff); a plain `ok` ends the call at once and loses the
//! failure, while `ok` taking the call's whole remaining time keeps it. The step's outcome gets simpler
//! (item 5 of [`super::order`]) and the retry's config (more attempts, a backoff) is lowered after.
//!
//! The instants come from the trace of the current case (one counted run per round, only when some step
//! could be folded).

use timelaw_core::trace::EventKind;
use timelaw_core::{Case, Outcome, Step, Trace};
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// Whether step `step` of `case` may be folded: a single, failed (not hanging) dispatch.
fn foldable(step: &Step) -> bool {
    step.count() == 1 && !matches!(step.outcome, Outcome::Ok | Outcome::Hang)
}

/// Whether any step of `case` may be folded (the pass runs the subject for its trace only then): only
/// where calls overlap, where how long a call stays busy is what another call sees.
pub(super) fn any_foldable<C>(case: &Case<C>) -> bool {
    case.schedule.has_arrivals() && case.schedule.calls.iter().any(|call| call.steps.iter().any(foldable))
}

/// Every case whose calls overlap with one failed step of `case` made `ok`, taking from its attempt's start to its call's
/// end in `trace` (the trace of `case`); only where that is longer than the step took (else it is the
/// plain `ok` that `simplify_outcomes` tries). First call first, first step first.
pub(super) fn folded_retries<C: Clone>(case: &Case<C>, trace: &Trace) -> Vec<Case<C>> {
    let mut out = Vec::new();
    if !case.schedule.has_arrivals() {
        return out;
    }
    for (call, script) in case.schedule.calls.iter().enumerate() {
        let Some(ended) =
            trace.events.iter().find(|e| e.call as usize == call && matches!(e.kind, EventKind::CallEnd { .. }))
        else {
            continue;
        };
        let mut attempt = 0_u32;
        for (index, step) in script.steps.iter().enumerate() {
            let first = attempt.saturating_add(1);
            attempt = attempt.saturating_add(step.count());
            if !foldable(step) {
                continue;
            }
            let started = trace
                .events
                .iter()
                .find(|e| e.call as usize == call && e.attempt == first && matches!(e.kind, EventKind::AttemptStart));
            let Some(started) = started else { continue };
            let took = ended.at.duration_since(started.at);
            if took <= step.duration {
                continue;
            }
            let mut next = case.clone();
            next.schedule.calls[call].steps[index] = Step::new(took, Outcome::Ok);
            out.push(next);
        }
    }
    out
}

/// `fold_retries`: each failed step made `ok` until its call's end, where that keeps the failure.
pub(super) fn fold_retries<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    if !any_foldable(&shrinker.best) || shrinker.out_of_budget() {
        return false;
    }
    let trace = shrinker.best_trace();
    for candidate in folded_retries(&shrinker.best, &trace) {
        if shrinker.attempt(candidate) {
            return true;
        }
        if shrinker.out_of_budget() {
            break;
        }
    }
    false
}
