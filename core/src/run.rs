//! Running one case: a fresh World, the subject, panics caught, the trace returned.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::schedule::Schedule;
use crate::subject::Subject;
use crate::trace::{EventKind, Trace, TraceEnd};
use crate::world::{Limits, World};

/// Runs `config` of `subject` over `schedule` with randomness from `seed` and default limits.
///
/// A subject with [`Subject::std_clocks`] virtual runs with std's clocks on the World's
/// ([`World::virtualize_std_clocks`]), one with [`Subject::std_random`] seeded with `getrandom` on the
/// case's stream ([`World::seed_std_random`]; on this thread: the facade runs such a case on a thread of
/// its own). A panic in the subject is caught: the trace ends with [`TraceEnd::Panicked`] and a `Panic` event.
pub fn execute<S: Subject + ?Sized>(subject: &S, config: &S::Config, schedule: &Schedule, seed: u64) -> Trace {
    execute_with(subject, config, World::new(schedule, seed), Limits::default())
}

/// Runs `config` of `subject` in `world` under `limits`.
pub fn execute_with<S: Subject + ?Sized>(subject: &S, config: &S::Config, world: World<'_>, limits: Limits) -> Trace {
    let mut world = world.with_limits(limits);
    if subject.std_clocks().is_virtual() {
        if let Err(abort) = world.virtualize_std_clocks() {
            return world.finish_with(TraceEnd::Aborted(abort));
        }
    }
    if subject.std_random().is_seeded() {
        if let Err(abort) = world.seed_std_random() {
            return world.finish_with(TraceEnd::Aborted(abort));
        }
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| subject.run(config, &mut world)));
    match outcome {
        Ok(returned) => {
            let end = world.end_of_run(returned);
            world.finish_with(end)
        }
        Err(payload) => {
            let message = panic_message(payload.as_ref());
            let mut trace = world.finish_with(TraceEnd::Panicked(message));
            let (at, call) = trace.events.last().map_or((Default::default(), 0), |event| (event.at, event.call));
            trace.push(at, call, 0, EventKind::Panic);
            trace
        }
    }
}

/// The text of a panic payload (`&str` or `String`), or a placeholder.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        return (*text).to_owned();
    }
    if let Some(text) = payload.downcast_ref::<String>() {
        return text.clone();
    }
    "panic with a non-string payload".to_owned()
}
