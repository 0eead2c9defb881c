//! Ordered results on the reference's concurrent path: calls return in input (index) order, like a
//! buffered stream. See the module docs of [`crate::reference`], "Ordered results".

use std::future::poll_fn;
use std::task::Poll;

use super::load::State;
use crate::exec::AsyncWorld;

/// Which calls have returned, and which may enter the bulkhead next.
#[derive(Clone, Debug, Default)]
pub(super) struct Order {
    /// One flag per call index seen so far: returned.
    returned: Vec<bool>,
    /// The smallest index not returned yet: the call whose turn it is.
    next_return: u32,
    /// The call that may enter the bulkhead next (calls enter in index order).
    next_entry: u32,
}

impl Order {
    /// `true` when every call before `index` has returned.
    fn is_turn_of(&self, index: u32) -> bool {
        self.next_return >= index
    }

    /// Marks `index` returned and moves the turn past every returned call.
    fn mark_returned(&mut self, index: u32) {
        let slot = index as usize;
        if self.returned.len() <= slot {
            self.returned.resize(slot + 1, false);
        }
        self.returned[slot] = true;
        // Bounded by the calls seen: the turn moves past the run of returned calls from it.
        let run = self.returned.iter().skip(self.next_return as usize).take_while(|&&returned| returned).count();
        self.next_return += u32::try_from(run).expect("call indices are u32");
    }

    /// `true` when `index` may enter the bulkhead now (every earlier call has entered).
    pub(super) fn may_enter(&self, index: u32) -> bool {
        self.next_entry >= index
    }

    /// Marks `index` entered (admitted, queued or rejected).
    pub(super) fn mark_entered(&mut self, index: u32) {
        self.next_entry = self.next_entry.max(index.saturating_add(1));
    }
}

/// Waits until every call before `index` has returned, or until the call's cancellation (the caller
/// stops waiting then, and the call returns at once, out of order; its turn coming at that same instant
/// goes first), then marks `index` returned.
pub(super) async fn hold(state: &State, w: &AsyncWorld<'_>, index: u32) {
    if let Some(at) = w.with(|w| w.cancel_at()) {
        w.wake_at(at);
    }
    poll_fn(|_| {
        let ready = state.borrow().order.is_turn_of(index) || w.with(|w| w.is_cancelled());
        if ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    state.borrow_mut().order.mark_returned(index);
}
