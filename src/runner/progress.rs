//! Progress reporting for long runs (the CLI shows a bar; library runs are silent).

/// Receives progress of a run. Implementations must be cheap: `advance` is called once per chunk.
pub trait Progress: Sync {
    /// A phase starts with `total` units of work.
    fn start(&self, phase: &str, total: u64);
    /// `done` more units are finished.
    fn advance(&self, done: u64);
    /// The phase is over.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _phase: &str, _total: u64) {}
    fn advance(&self, _done: u64) {}
    fn finish(&self) {}
}
