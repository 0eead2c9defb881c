//! An indicatif progress bar on stderr, shown only when stderr is a terminal.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

use crate::runner::Progress;

/// A progress bar on stderr; silent when stderr is not a terminal.
pub struct Bar {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl Bar {
    /// A bar that draws only when stderr is a terminal.
    pub fn for_stderr() -> Bar {
        Bar { bar: Mutex::new(None), enabled: std::io::stderr().is_terminal() }
    }
}

impl Progress for Bar {
    fn start(&self, phase: &str, total: u64) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::new(total);
        let template = "{prefix:>10} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})";
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(phase.to_owned());
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }
    fn advance(&self, done: u64) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.inc(done);
            }
        }
    }
    fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}
