//! timelaw
