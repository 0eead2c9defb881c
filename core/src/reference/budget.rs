//! The reference retry budget: retries across the calls of a case stay within
//! `min_retries + calls_started * retry_percent / 100`.

use crate::contract::BudgetContract;

/// Budget state that spans the calls of one case.
#[derive(Clone, Copy, Debug)]
pub struct RetryBudget {
    params: BudgetContract,
    calls_started: u32,
    retries_used: u64,
}

impl RetryBudget {
    /// A budget with no call started yet.
    pub fn new(params: BudgetContract) -> RetryBudget {
        RetryBudget { params, calls_started: 0, retries_used: 0 }
    }
    /// Counts a started call (which earns `retry_percent / 100` retries).
    pub fn on_call_start(&mut self) {
        self.calls_started = self.calls_started.saturating_add(1);
    }
    /// `true` when one more retry fits (nothing taken).
    pub fn has_room(&self) -> bool {
        self.retries_used < self.params.allowed(self.calls_started)
    }
    /// Takes one retry from the budget; `false` (and nothing taken) when none is left.
    pub fn try_spend(&mut self) -> bool {
        if self.retries_used >= self.params.allowed(self.calls_started) {
            return false;
        }
        self.retries_used += 1;
        true
    }
}
