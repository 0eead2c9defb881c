//! timelaw-generators (being built).
pub mod domain;
pub mod swarm;
pub use domain::ConfigDomain;
pub use swarm::Swarm;
