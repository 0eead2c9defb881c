//! Swarm options (being built).
/// Options drawn per batch of cases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Swarm {}
