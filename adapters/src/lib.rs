//! timelaw-adapters
