//! timelaw-reports
