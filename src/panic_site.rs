//! Where a subject panicked, as text that is the same on every machine: the panic hook of a quiet run
//! ([`crate::eval`]) records the location of the last panic on its thread, and the run's trace ends with
//! the panic's message followed by ` [at FILE:LINE:COLUMN]`, so `never_panics` names the site and two
//! panics with the same message at different sites are different findings (see [`crate::known`]).
//!
//! A file's path is made machine-independent: a file of a crate from a registry or a git checkout keeps
//! its path from the crate's folder on (`recloser-1.1.1/src/lib.rs`), a file of the standard library
//! from `library/` on (and without its line and column, which move with every Rust release); a path
//! relative to the workspace stays as it is.
//!
//! ```
//! use timelaw::panic_site::{portable_path, with_site, SITE_OPEN};
//! let registry = "/home/me/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/recloser-1.1.1/src/lib.rs";
//! assert_eq!(portable_path(registry), "recloser-1.1.1/src/lib.rs");
//! assert_eq!(portable_path("/rustc/59807616e1fa2540/library/core/src/time.rs"), "library/core/src/time.rs");
//! assert_eq!(portable_path("adapters/src/governor.rs"), "adapters/src/governor.rs");
//! assert_eq!(with_site("boom", "src/a.rs", 3, 9), "boom [at src/a.rs:3:9]");
//! assert!(with_site("boom", "src/a.rs", 3, 9).contains(SITE_OPEN));
//! ```

use std::cell::RefCell;

/// What separates a panic's message from its site in a trace's end.
pub const SITE_OPEN: &str = " [at ";

thread_local! {
    /// The site of the last panic on this thread inside a quiet run: (file, line, column).
    static LAST: RefCell<Option<(String, u32, u32)>> = const { RefCell::new(None) };
}

/// Records the site of a panic happening now on this thread (called by the quiet panic hook).
pub(crate) fn record(location: Option<&std::panic::Location<'_>>) {
    let site = location.map(|at| (portable_path(at.file()), at.line(), at.column()));
    LAST.with(|last| *last.borrow_mut() = site);
}

/// Forgets any recorded site (before a run).
pub(crate) fn clear() {
    LAST.with(|last| *last.borrow_mut() = None);
}

/// The recorded site, taken (so the next run starts without one).
pub(crate) fn take() -> Option<(String, u32, u32)> {
    LAST.with(|last| last.borrow_mut().take())
}

/// `message` with its site appended: `MESSAGE [at FILE:LINE:COLUMN]`; a site in the standard library
/// (`library/...`) names its file only, since its lines move with every Rust release.
pub fn with_site(message: &str, file: &str, line: u32, column: u32) -> String {
    if file.starts_with("library/") {
        return format!("{message}{SITE_OPEN}{file}]");
    }
    format!("{message}{SITE_OPEN}{file}:{line}:{column}]")
}

/// The message of a panic text without its site (the text itself when it names none).
pub fn without_site(text: &str) -> &str {
    match text.rfind(SITE_OPEN) {
        Some(at) if text.ends_with(']') => &text[..at],
        _ => text,
    }
}

/// `file` made the same on every machine (see the module docs).
pub fn portable_path(file: &str) -> String {
    let file = file.replace('\\', "/");
    for marker in ["/registry/src/", "/git/checkouts/"] {
        if let Some(at) = file.find(marker) {
            // Past the marker come the index (or repository) folder, then (for git) the revision
            // folder, then the crate's own folder: keep from the crate's folder on.
            let rest = &file[at + marker.len()..];
            let skip = if marker == "/git/checkouts/" { 2 } else { 1 };
            return rest.splitn(skip + 1, '/').nth(skip).unwrap_or(rest).to_owned();
        }
    }
    if let Some(rest) = file.strip_prefix("/rustc/") {
        return rest.split_once('/').map_or(rest, |(_, path)| path).to_owned();
    }
    lexically_normal(&file)
}

/// `file` without `.` segments and with each `name/..` pair resolved, as written (no file system access):
/// a module included by `#[path = "../common/mod.rs"]` names its file `tests/suite/../common/x.rs`, which
/// is `tests/common/x.rs` from every test target. A leading `..` is kept.
fn lexically_normal(file: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for segment in file.split('/') {
        match segment {
            "." => {}
            ".." if kept.last().is_some_and(|last| !last.is_empty() && *last != "..") => {
                kept.pop();
            }
            _ => kept.push(segment),
        }
    }
    kept.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(file: &str, expect: &str) {
        assert_eq!(portable_path(file), expect);
    }

    #[test]
    fn paths_are_the_same_on_every_machine() {
        check(
            "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/governor-0.10.1/src/nanos.rs",
            "governor-0.10.1/src/nanos.rs",
        );
        check(
            "C:\\Users\\me\\.cargo\\registry\\src\\index.crates.io-x\\backon-1.5.2\\src\\lib.rs",
            "backon-1.5.2/src/lib.rs",
        );
        check("/home/me/.cargo/git/checkouts/tower-abc123/4f2e1d0/tower/src/hedge/mod.rs", "tower/src/hedge/mod.rs");
        check("/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/time.rs", "library/core/src/time.rs");
        check("tests/suite/evasion.rs", "tests/suite/evasion.rs");
        check("tests/suite/../common/planted_clocks.rs", "tests/common/planted_clocks.rs");
        check("./src/../../lib.rs", "../lib.rs");
        check("/abs/./a/../b.rs", "/abs/b.rs");
    }

    #[test]
    fn a_site_is_appended_and_taken_off() {
        let text = with_site("attempt to add with overflow", "governor-0.10.1/src/nanos.rs", 12, 5);
        assert_eq!(text, "attempt to add with overflow [at governor-0.10.1/src/nanos.rs:12:5]");
        assert_eq!(without_site(&text), "attempt to add with overflow");
        assert_eq!(without_site("no site [here]"), "no site [here]");
        assert_eq!(without_site("plain"), "plain");
        assert_eq!(
            with_site("overflow", "library/core/src/time.rs", 1181, 31),
            "overflow [at library/core/src/time.rs]"
        );
    }
}
