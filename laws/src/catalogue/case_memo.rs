//! What the laws of one case share while a catalogue judges it: the breaker model's replay. Seven circuit
//! laws replay the same model over the same calls ([`super::replay_breaker`]), and the replay does not
//! depend on the law: within one [`crate::Catalogue::judge_each`] it is made once, by the first of them,
//! and the others fold their own judgement over its decisions.
//!
//! A replay is reused only inside the catalogue's judging of the case it was made for: the catalogue
//! marks each case with a token of its own ([`judging_case`]), and a replay is kept with that token and
//! the trace and contract it was made from. A law judged on its own ([`crate::Law::judge`]), a law that
//! judges another trace or contract, or a nested catalogue replays afresh. The buffers are the thread's
//! and are reused from case to case, so the replay allocates nothing once they have grown.

use std::cell::Cell;

use super::circuit::Decision;
use crate::law::Observation;

/// What a kept replay was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    /// The token of the catalogue's judging of the case.
    case: u64,
    /// The trace's events (address and length) and the contract's address.
    events: (usize, usize),
    contract: usize,
}

/// The thread's breaker replay: its decisions and, when it may be reused, what it was made from.
#[derive(Default)]
struct Memo {
    key: Option<Key>,
    decisions: Vec<Decision>,
}

thread_local! {
    /// The token of the case a catalogue is judging on this thread; 0 outside any.
    static CASE: Cell<u64> = const { Cell::new(0) };
    /// The last token handed out on this thread.
    static TOKENS: Cell<u64> = const { Cell::new(0) };
    /// The last breaker replay made on this thread.
    static BREAKER: Cell<Memo> = Cell::new(Memo::default());
}

/// Runs `judge` as the judging of one case: the laws it judges share their replays, none made before or
/// after it is reused. Restores the enclosing case's token on return or unwind (a nested catalogue).
pub(crate) fn judging_case<R>(judge: impl FnOnce() -> R) -> R {
    /// Puts the enclosing token back when dropped.
    struct Restore(u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = CASE.try_with(|case| case.set(self.0));
        }
    }
    let token = TOKENS.with(|tokens| {
        let next = tokens.get().wrapping_add(1).max(1);
        tokens.set(next);
        next
    });
    let _restore = Restore(CASE.with(|case| case.replace(token)));
    judge()
}

/// Reads the breaker decisions of `observation` with `read`: the replay kept for this case when there is
/// one, otherwise `fill` makes it (into emptied buffers).
pub(crate) fn with_breaker_decisions<R>(
    observation: &Observation<'_>,
    fill: impl FnOnce(&mut Vec<Decision>),
    read: impl FnOnce(&[Decision]) -> R,
) -> R {
    let events = &observation.trace.events;
    let key = Key {
        case: CASE.try_with(Cell::get).unwrap_or(0),
        events: (events.as_ptr() as usize, events.len()),
        contract: std::ptr::from_ref(observation.contract) as usize,
    };
    // Taken out while read, so a replay nested in `read` makes its own.
    let mut memo = BREAKER.try_with(Cell::take).unwrap_or_default();
    if key.case == 0 || memo.key != Some(key) {
        memo.decisions.clear();
        fill(&mut memo.decisions);
        memo.key = (key.case != 0).then_some(key);
    }
    let result = read(&memo.decisions);
    let _ = BREAKER.try_with(|kept| kept.set(memo));
    result
}
