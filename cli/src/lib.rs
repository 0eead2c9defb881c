//! timelaw-cli: a workspace helper with no code of its own.
//!
//! The `timelaw` binary lives in the facade and needs its `adapters` feature, which is off by default
//! so that a library user compiles no retry crate. This package depends on the facade with `adapters`
//! on and is a default member of the workspace, so `cargo run --release -- check` and `cargo build`
//! from the repository root build the binary with every built-in subject.
#![deny(missing_docs)]

/// The registry the `timelaw` binary serves: the reference interpreter and every built-in adapter.
pub fn registry() -> timelaw::Registry {
    timelaw::Registry::builtin()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_binary_registry_has_every_builtin_subject() {
        let registry = super::registry();
        for name in ["reference", "backon-exponential", "tower-budget", "tokio-retry2-retry", "tokio-timeout-loop"] {
            assert!(registry.get(name).is_some(), "{name} is missing");
        }
    }
}
