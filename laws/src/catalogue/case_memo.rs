//! What the laws of one case share while a catalogue judges it: walks that do not depend on the law.
//! Six circuit laws replay the same breaker model over the same calls ([`super::replay_breaker`]); five
//! delay laws walk the same sleeps with the same ranges (`delays::each_sleep`, and
//! `retry_after_as_declared`, which reads each sleep's range as its walk passes it); three give-up laws read
//! the same ending of each call (`refusal::gives_no_retry_up`). Within one
//! [`crate::Catalogue::judge_each`] each walk is made once, by the first law that needs it, and the others
//! read it.
//!
//! A walk is reused only inside the catalogue's judging of the case it was made for: the catalogue
//! marks each case with a token of its own ([`judging_case`]), and a walk is kept with that token and
//! the trace and contract it was made from. A law judged on its own ([`crate::Law::judge`]), a law that
//! judges another trace or contract, or a nested catalogue walks afresh. The buffers are the thread's
//! and are reused from case to case, so a walk allocates nothing once they have grown.

use std::cell::Cell;
use std::thread::LocalKey;

use super::circuit::Decision;
use super::refusal::CallEnding;
use super::sleeps::Slept;
use crate::law::Observation;

/// What a kept walk was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    /// The token of the catalogue's judging of the case.
    case: u64,
    /// The trace's events: address and length.
    events: (usize, usize),
    /// The contract's address.
    contract: usize,
}

/// A walk kept on the thread: its items and, when it may be reused, what it was made from.
struct Memo<T> {
    key: Option<Key>,
    items: Vec<T>,
}

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Memo { key: None, items: Vec::new() }
    }
}

thread_local! {
    /// The token of the case a catalogue is judging on this thread; 0 outside any.
    static CASE: Cell<u64> = const { Cell::new(0) };
    /// The last token handed out on this thread.
    static TOKENS: Cell<u64> = const { Cell::new(0) };
    /// The last breaker replay made on this thread.
    static BREAKER: Cell<Memo<Decision>> = Cell::new(Memo::default());
    /// The last walk of the sleeps made on this thread.
    static SLEEPS: Cell<Memo<Slept>> = Cell::new(Memo::default());
    /// The last walk of the calls' endings made on this thread.
    static ENDINGS: Cell<Memo<CallEnding>> = Cell::new(Memo::default());
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
    with_memo(&BREAKER, observation, fill, read)
}

/// Reads the sleeps of `observation`'s trace with `read`: the walk kept for this case and trace when
/// there is one, otherwise `fill` makes it (into emptied buffers).
pub(crate) fn with_sleeps<R>(
    observation: &Observation<'_>,
    fill: impl FnOnce(&mut Vec<Slept>),
    read: impl FnOnce(&[Slept]) -> R,
) -> R {
    with_memo(&SLEEPS, observation, fill, read)
}

/// Reads what the give-up laws read of each call of `observation`'s trace with `read`: the walk kept for
/// this case and trace when there is one, otherwise `fill` makes it (into emptied buffers).
pub(crate) fn with_call_endings<R>(
    observation: &Observation<'_>,
    fill: impl FnOnce(&mut Vec<CallEnding>),
    read: impl FnOnce(&[CallEnding]) -> R,
) -> R {
    with_memo(&ENDINGS, observation, fill, read)
}

/// Reads the walk kept in `slot` with `read` when it was made for this case, trace and contract;
/// otherwise `fill` makes it first (into emptied buffers).
fn with_memo<T: 'static, R>(
    slot: &'static LocalKey<Cell<Memo<T>>>,
    observation: &Observation<'_>,
    fill: impl FnOnce(&mut Vec<T>),
    read: impl FnOnce(&[T]) -> R,
) -> R {
    let events = &observation.trace.events;
    let key = Key {
        case: CASE.try_with(Cell::get).unwrap_or(0),
        events: (events.as_ptr() as usize, events.len()),
        contract: std::ptr::from_ref(observation.contract) as usize,
    };
    // Taken out while read, so a walk nested in `read` makes its own.
    let mut memo = slot.try_with(Cell::take).unwrap_or_default();
    if key.case == 0 || memo.key != Some(key) {
        memo.items.clear();
        fill(&mut memo.items);
        memo.key = (key.case != 0).then_some(key);
    }
    let result = read(&memo.items);
    let _ = slot.try_with(|kept| kept.set(memo));
    result
}
