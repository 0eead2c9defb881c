//! `TIMELAW_BLESS`, read the way timelaw reads it: `1`/`true`/`yes` rewrite the checked-in fixtures the
//! tests own, `0`/`false`/`no`/empty or unset do not.
#![allow(dead_code)] // Each test target uses a part of the shared code.

/// Whether the tests should rewrite the fixtures they own instead of comparing with them.
///
/// # Panics
/// On any other value, naming it, so a typo never silently compares or rewrites.
pub fn bless() -> bool {
    let Some(value) = std::env::var_os("TIMELAW_BLESS") else { return false };
    match value.to_string_lossy().trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => true,
        "0" | "false" | "no" | "" => false,
        other => panic!("TIMELAW_BLESS={other:?}: expected 1 or 0 (true or false)"),
    }
}
