//! timelaw-laws
