//! An indicatif progress bar on stderr, shown only when stderr is a terminal that is not `TERM=dumb`.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{HumanCount, ProgressBar, ProgressState, ProgressStyle};

use crate::runner::Progress;

/// Whether the terminal takes colour and cursor movement: not with `TERM=dumb`, and (for colour) not with
/// `NO_COLOR` set to anything but the empty string.
pub(super) fn color_terminal() -> bool {
    let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
    !dumb && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// A rate as the bar prints it: a whole number of cases a second with thousands separators
/// (`710,618/s`), rounded to the nearest; a rate that is not finite (no time elapsed yet) is `0/s`.
pub fn rate_text(per_sec: f64) -> String {
    let whole = if per_sec.is_finite() && per_sec > 0.0 { per_sec.round() as u64 } else { 0 }; // saturating cast
    format!("{}/s", HumanCount(whole))
}

fn write_rate(state: &ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = out.write_str(&rate_text(state.per_sec())); // Writing into the bar's line buffer cannot fail.
}

/// A progress bar on stderr; silent when stderr is not a terminal, or is `TERM=dumb` (no cursor movement).
pub struct Bar {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl Bar {
    /// A bar that draws only when stderr is a terminal.
    pub fn for_stderr() -> Bar {
        let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
        Bar { bar: Mutex::new(None), enabled: std::io::stderr().is_terminal() && !dumb }
    }
}

impl Progress for Bar {
    fn start(&self, phase: &str, total: u64) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::new(total);
        let template = "{prefix:>10} [{bar:40}] {pos}/{len} ({rate}, eta {eta})";
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> ").with_key("rate", write_rate));
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

#[cfg(test)]
mod tests {
    use super::rate_text;

    #[track_caller]
    fn check(per_sec: f64, expect: &str) {
        assert_eq!(rate_text(per_sec), expect);
    }

    #[test]
    fn rates_are_whole_numbers() {
        check(710_617.580_5, "710,618/s");
        check(0.4, "0/s");
        check(999.5, "1,000/s");
        check(f64::INFINITY, "0/s");
        check(f64::NAN, "0/s");
        check(-3.0, "0/s");
    }
}
