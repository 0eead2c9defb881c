//! A model of the contract's retry budget, walked over a trace's events: what the budget laws judge
//! against, public so a user's own law can use it too.
//!
//! A budget allows `min_retries + calls * retry_percent / 100` retries
//! ([`BudgetContract::allowed`](timelaw_core::BudgetContract::allowed)), counting the calls started (at
//! their `CallStart`, or with [`BudgetModel::deposits_when_run`] at their first event after it) and the
//! retries taken over the whole case or, with a window
//! ([`BudgetContract::window`](timelaw_core::BudgetContract::window)), only those at instants within the
//! window before now (an event at `t` counts at `now` while `now - t < window`). A
//! retry is taken at its `AttemptStart` (attempt 2 or more); with [`BudgetModel::spent_at_sleep`] it is
//! taken at the sleep before it instead (a subject that spends its budget before it sleeps, so a sleep
//! cut by cancellation still spent it), and at its `AttemptStart` only when no sleep came right before.
//! Events are in time order, so the window slides with two cursors and nothing is allocated.
//!
//! ```
//! use timelaw_core::{BudgetContract, Contract, Declared, Event, EventKind, VInstant};
//! use timelaw_laws::catalogue::budget_model::BudgetModel;
//!
//! let budget = BudgetContract { min_retries: 1, retry_percent: 0, ..BudgetContract::default() };
//! let contract = Contract { budget: Declared::Stated(budget), ..Contract::default() };
//! let events = [
//!     Event { seq: 0, at: VInstant::EPOCH, call: 0, attempt: 0, kind: EventKind::CallStart { idempotent: true } },
//!     Event { seq: 1, at: VInstant::EPOCH, call: 0, attempt: 2, kind: EventKind::AttemptStart },
//! ];
//! let mut model = BudgetModel::of(&contract).unwrap();
//! model.advance(&events, 1); // Counts events 0..1: the call, no retry yet.
//! assert_eq!((model.retries(), model.allowed()), (0, 1));
//! model.advance(&events, 2);
//! assert_eq!(model.retries(), 1);
//! ```

use timelaw_core::{BudgetContract, Contract, Event, EventKind, VDuration, VInstant};

/// The retry budget's standing while walking a trace. See the module docs.
#[derive(Clone, Copy, Debug)]
pub struct BudgetModel {
    params: BudgetContract,
    window: Option<VDuration>,
    spent_at_sleep: bool,
    deposits_when_run: bool,
    /// Events before this index are counted.
    head: usize,
    /// Events before this index have left the window.
    tail: usize,
    calls: u32,
    retries: u64,
}

impl BudgetModel {
    /// The budget `contract` states; `None` without a stated `budget`.
    pub fn of(contract: &Contract) -> Option<BudgetModel> {
        let params = contract.budget.into_stated()?;
        Some(BudgetModel {
            params,
            window: params.window,
            spent_at_sleep: false,
            deposits_when_run: false,
            head: 0,
            tail: 0,
            calls: 0,
            retries: 0,
        })
    }

    /// The same model taking a retry at the sleep before it (see the module docs).
    pub fn spent_at_sleep(self) -> BudgetModel {
        BudgetModel { spent_at_sleep: true, ..self }
    }

    /// The same model counting a call at its first event after its `CallStart`, where the call's own code
    /// first ran, instead of at the `CallStart`: for calls that arrive together and run one after another
    /// at the same instant, where a subject deposits for a call only when that call runs.
    pub fn deposits_when_run(self) -> BudgetModel {
        BudgetModel { deposits_when_run: true, ..self }
    }

    /// Counts `events[..index]`, then drops what left the window by the instant of `events[index]` (the
    /// last event's instant when `index` is past the end). `index` never moves back.
    pub fn advance(&mut self, events: &[Event], index: usize) {
        let index = index.min(events.len());
        for counted in self.head..index {
            let delta = self.weight(events, counted);
            self.calls = self.calls.saturating_add(delta.0);
            self.retries = self.retries.saturating_add(delta.1);
        }
        self.head = self.head.max(index);
        let Some(window) = self.window else { return };
        let now = events.get(index).or(events.last()).map_or(VInstant::EPOCH, |event| event.at);
        for dropped in self.tail..self.head {
            if events[dropped].at.saturating_add(window) > now {
                break;
            }
            let delta = self.weight(events, dropped);
            self.calls = self.calls.saturating_sub(delta.0);
            self.retries = self.retries.saturating_sub(delta.1);
            self.tail = dropped + 1;
        }
    }

    /// `(calls, retries)` event `index` adds.
    fn weight(&self, events: &[Event], index: usize) -> (u32, u64) {
        // The call's previous event: the one just before in a sequential trace, further back once calls
        // overlap.
        let call = events[index].call;
        let slept_before = || {
            let previous = events[..index].iter().rev().find(|event| event.call == call);
            previous.is_some_and(|event| {
                matches!(event.kind, EventKind::SleepRequested { .. } | EventKind::SleepClamped { .. })
            })
        };
        match events[index].kind {
            EventKind::CallStart { .. } if self.deposits_when_run => (0, 0),
            EventKind::CallStart { .. } => (1, 0),
            _ if self.deposits_when_run && first_action(events, index) => (1, 0),
            EventKind::SleepRequested { .. } if self.spent_at_sleep => (0, 1),
            EventKind::AttemptStart if events[index].attempt >= 2 && !(self.spent_at_sleep && slept_before()) => (0, 1),
            _ => (0, 0),
        }
    }

    /// Retries taken in the window.
    pub fn retries(&self) -> u64 {
        self.retries
    }

    /// Calls started in the window.
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// Retries the budget allows for the calls in the window.
    pub fn allowed(&self) -> u64 {
        self.params.allowed(self.calls)
    }

    /// `true` when one more retry fits.
    pub fn has_room(&self) -> bool {
        self.retries < self.allowed()
    }
}

/// `true` when `events[index]` is its call's first event after its `CallStart`: where the call deposits
/// into the budget. A subject deposits when the call's own code first runs, which for calls arriving
/// together may come after another call's retry; in a sequential trace it is the event right after the
/// `CallStart`, at the same instant.
fn first_action(events: &[Event], index: usize) -> bool {
    // A wall-clock jump is the case's doing, recorded under whichever call is in focus: no action.
    let action = |event: &Event| !matches!(event.kind, EventKind::WallJump { .. });
    if !action(&events[index]) {
        return false;
    }
    let call = events[index].call;
    // Fast path: the event before is the same call's action (always so in a sequential trace).
    if let Some(previous) = index.checked_sub(1).map(|before| &events[before]) {
        if previous.call == call && action(previous) {
            return matches!(previous.kind, EventKind::CallStart { .. });
        }
    }
    let previous = events[..index].iter().rev().find(|event| event.call == call && action(event));
    previous.is_some_and(|event| matches!(event.kind, EventKind::CallStart { .. }))
}
