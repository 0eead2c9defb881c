//! Colour, in one place: ANSI codes for text outside tables and comfy-table colours for cells, both only when
//! the caller asked for colour.

use comfy_table::{Cell, Color, Table};

use crate::model::LawStatus;

/// What a piece of output means, and so its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Green: holds.
    Good,
    /// Red: violated.
    Bad,
    /// Yellow: inconclusive.
    Warn,
    /// No colour.
    Plain,
}

impl Tone {
    pub(crate) fn of_law(status: LawStatus) -> Tone {
        match status {
            LawStatus::Holds => Tone::Good,
            LawStatus::Violated => Tone::Bad,
            LawStatus::Inconclusive => Tone::Warn,
            LawStatus::NotApplicable => Tone::Plain,
        }
    }

    fn color(self) -> Option<Color> {
        match self {
            Tone::Good => Some(Color::Green),
            Tone::Bad => Some(Color::Red),
            Tone::Warn => Some(Color::Yellow),
            Tone::Plain => None,
        }
    }

    /// The same codes comfy-table (through crossterm) writes for [`Tone::color`], so text and cells match.
    fn ansi(self) -> Option<&'static str> {
        match self {
            Tone::Good => Some("\x1b[38;5;10m"),
            Tone::Bad => Some("\x1b[38;5;9m"),
            Tone::Warn => Some("\x1b[38;5;11m"),
            Tone::Plain => None,
        }
    }
}

/// `text` in the colour of `tone` when `color`, else `text` unchanged.
pub(crate) fn paint(text: &str, tone: Tone, color: bool) -> String {
    match tone.ansi() {
        Some(code) if color => format!("{code}{text}\x1b[39m"),
        _ => text.to_owned(),
    }
}

/// A table cell in the colour of `tone` (shown only by a table made with [`table`]`(true)`).
pub(crate) fn cell(text: impl ToString, tone: Tone) -> Cell {
    let cell = Cell::new(text);
    match tone.color() {
        Some(color) => cell.fg(color),
        None => cell,
    }
}

/// An empty table whose output never depends on the terminal: no width detection, no wrapping, and ANSI
/// colours exactly when `color`.
pub(crate) fn table(color: bool) -> Table {
    let mut table = Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.force_no_tty();
    if color {
        table.enforce_styling();
    }
    table
}
