//! The options of a run that decide what its shards compute.

use serde::{Deserialize, Serialize};

/// The options of a run that its counts, counterexamples and fixtures depend on, beyond the subject, seed
/// and laws (which the report carries anyway). The shards of one run must agree on every field:
/// [`crate::merge`] refuses shards that differ, naming the field (`settings.collect`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The cases of the whole run (`--cases`); each shard ran a slice of them.
    pub cases: u64,
    /// Counterexamples collected per law (`--collect`).
    pub collect: u32,
    /// Every `replay_every`-th case was run twice for `deterministic_replay` (0 never).
    pub replay_every: u64,
    /// The shrink budget per counterexample, in evaluations.
    pub shrink_evals_max: u64,
    /// The optional wall-clock shrink budget, in milliseconds.
    pub shrink_time_ms: Option<u64>,
    /// The World's step limit on trace events per run.
    pub events_max: u32,
    /// The World's step limit on attempts per run.
    pub attempts_max: u32,
    /// The World's step limit on sleeps per run.
    pub sleeps_max: u32,
}

impl Settings {
    /// The fields as `(name, value)` in declaration order, for messages that name the field that differs.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let optional = |value: Option<u64>| value.map_or_else(|| "none".to_owned(), |value| value.to_string());
        vec![
            ("cases", self.cases.to_string()),
            ("collect", self.collect.to_string()),
            ("replay_every", self.replay_every.to_string()),
            ("shrink_evals_max", self.shrink_evals_max.to_string()),
            ("shrink_time_ms", optional(self.shrink_time_ms)),
            ("events_max", self.events_max.to_string()),
            ("attempts_max", self.attempts_max.to_string()),
            ("sleeps_max", self.sleeps_max.to_string()),
        ]
    }
}
