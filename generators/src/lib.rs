//! timelaw-generators
