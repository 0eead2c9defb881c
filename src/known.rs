//! Known violations, checked precisely: a `known_violation` fixture pins one violation (its law, the event
//! it blames and the class of its message), not "any violation of the law".
//!
//! ```
//! use timelaw::known::{compare, message_class, KnownMatch};
//! use timelaw::laws::Verdict;
//!
//! assert_eq!(message_class("slept 150ms, above the cap 100ms"), "slept #, above the cap #");
//! let stored = Verdict::violated_at(5, "slept 150ms, above the cap 100ms");
//! assert_eq!(compare(&stored, &Verdict::violated_at(5, "slept 90ms, above the cap 80ms")), KnownMatch::Same);
//! assert!(matches!(compare(&stored, &Verdict::violated_at(7, "slept 150ms, above the cap 100ms")),
//!     KnownMatch::Differently { .. }));
//! ```
//!
//! # Message class
//! The message with every number masked: a run of ASCII digits (with a decimal point inside it), and the
//! duration unit right after it (`s`, `ms`, `us`, `ns`), becomes `#`. So the same sentence about other
//! durations, attempt numbers or counts is the same class, and a range of two masked ends (`#..=#`) is one
//! `#` (a range whose ends are equal prints as one value); another sentence (another check of the law,
//! another error kind in it) is another class. Laws build their messages from fixed sentences with
//! numbers filled in, so the class names which check of the law failed.
//!
//! A panic's message (`the subject panicked: ...`) is the subject's text, not a law's sentence: what it
//! says inside parentheses is masked too (`(…)`), since that is mostly the `Debug` form of an error
//! value, which the standard library prints differently across Rust versions (`TryFromIntError(())` on
//! one, `TryFromIntError(PosOverflow)` on another) while the panic is the same. Its site
//! (` [at FILE:LINE:COLUMN]`, [`crate::panic_site`]) is part of the class, its numbers masked: the same
//! message from another place is another panic. A stored panic that names no site (written before sites
//! were recorded) matches a panic now by its message alone, and replay says so
//! ([`KnownMatch::Loosely`]). So does a panic reported at the standard library's site (`library/...`) in
//! one of the two: whether a function of the standard library reports its own file or its caller's line
//! changes between Rust releases, so the same panic names either, depending on the toolchain.
//!
//! # Older fixtures
//! Every fixture stores its verdict; when the stored verdict is not a violation (a hand-written file) or
//! names no event, the comparison falls back to what is stored (the law alone, or the law and the message
//! class) and says so ([`KnownMatch::Loosely`]).

use std::fmt;
use std::path::{Path, PathBuf};

use timelaw_core::{Case, Limits};
use timelaw_generators::ConfigDomain;
use timelaw_laws::{Law, Verdict, Violation};

use crate::fixture::{self, FixtureError};
use crate::shrink::{neighbours, shrink, Drawn, ShrinkBudget};

/// The message with its numbers masked (see the module docs).
pub fn message_class(message: &str) -> String {
    let unwrapped;
    let message = match message.strip_prefix(PANICKED) {
        Some(text) => {
            unwrapped = format!("{PANICKED}{}", without_parenthesized(text));
            unwrapped.as_str()
        }
        None => message,
    };
    let mut class = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(first) = rest.chars().next() {
        // `forever` is how a duration at the end of time prints: a value like any other.
        let word_start = !class.ends_with(|c: char| c.is_alphanumeric());
        if let Some(after) = rest.strip_prefix(FOREVER).filter(|after| word_start && !starts_alphanumeric(after)) {
            class.push('#');
            rest = after;
            continue;
        }
        if !first.is_ascii_digit() {
            class.push(first);
            rest = &rest[first.len_utf8()..];
            continue;
        }
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        rest = &rest[digits..];
        let unit = ["ms", "us", "ns", "s"]
            .iter()
            .find(|unit| rest.strip_prefix(**unit).is_some_and(|after| !starts_alphanumeric(after)));
        if let Some(unit) = unit {
            rest = &rest[unit.len()..];
        }
        class.push('#');
    }
    // A range whose ends are equal prints as one value (`0ms`, not `0ms..=0ms`): both are one class.
    while class.contains("#..=#") {
        class = class.replace("#..=#", "#");
    }
    class
}

/// How `never_panics` begins its message: the rest is the subject's panic text.
const PANICKED: &str = "the subject panicked: ";

/// Whether a violation's `message` reports a panic of the subject (`never_panics`' wording).
pub fn is_panic(message: &str) -> bool {
    message.starts_with(PANICKED)
}

/// `text` with what each outermost pair of parentheses holds replaced by `…` (an unclosed parenthesis
/// keeps the rest as it is).
fn without_parenthesized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0_usize;
    for (index, c) in text.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    if !text[index..].contains(')') {
                        out.push_str(&text[index..]);
                        return out;
                    }
                    out.push_str("(…");
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(')');
                }
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// How a duration at the end of time prints (`VDuration::MAX`'s `Display`).
const FOREVER: &str = "forever";

fn starts_alphanumeric(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphanumeric())
}

/// How a verdict now compares with a known violation's stored verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KnownMatch {
    /// Violated at the same event with a message of the same class: the known violation reproduces.
    Same,
    /// Violated, and the stored verdict lacks what a precise comparison needs; `compared` says what was
    /// compared ("the law alone" or "the law and the message class").
    Loosely {
        /// What the comparison rested on.
        compared: &'static str,
    },
    /// Still violated, but differently: another event, or another message class.
    Differently {
        /// What differs, in a sentence.
        what: String,
    },
    /// Not violated any more.
    NotViolated,
}

impl KnownMatch {
    /// `true` when the known violation counts as reproduced ([`KnownMatch::Same`] or
    /// [`KnownMatch::Loosely`]).
    pub fn reproduces(&self) -> bool {
        matches!(self, KnownMatch::Same | KnownMatch::Loosely { .. })
    }
}

impl fmt::Display for KnownMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnownMatch::Same => f.write_str("the same violation (event and message class)"),
            KnownMatch::Loosely { compared } => {
                write!(f, "a violation; the stored verdict allowed comparing {compared}")
            }
            KnownMatch::Differently { what } => write!(f, "still violated, but differently: {what}"),
            KnownMatch::NotViolated => f.write_str("no longer violated"),
        }
    }
}

/// Compares the verdict `now` with the `stored` verdict of a known violation of the same law.
pub fn compare(stored: &Verdict, now: &Verdict) -> KnownMatch {
    let Some(found) = now.violation() else { return KnownMatch::NotViolated };
    let Some(known) = stored.violation() else { return KnownMatch::Loosely { compared: "the law alone" } };
    let (known_class, found_class) = (message_class(&known.message), message_class(&found.message));
    if known_class != found_class {
        if siteless_panic_matches(&known.message, &found.message) {
            return KnownMatch::Loosely { compared: "the panic's message (the stored verdict names no site)" };
        }
        if std_sited_panic_matches(&known.message, &found.message) {
            return KnownMatch::Loosely {
                compared: "the panic's message (one site is the standard library's, which moves between Rust releases)",
            };
        }
        return KnownMatch::Differently {
            what: format!("the message was \"{}\", now \"{}\"", known.message, found.message),
        };
    }
    match (known.event, found.event) {
        (None, _) => KnownMatch::Loosely { compared: "the law and the message class (no stored event)" },
        (Some(was), Some(is)) if was == is => KnownMatch::Same,
        (Some(was), is) => KnownMatch::Differently { what: format!("blamed {}, now {}", event(Some(was)), event(is)) },
    }
}

/// A panic stored before panics named their site ([`crate::panic_site`]) matches a panic now when the
/// messages without the site are of one class (`never_panics`, and the laws that quote a panic).
fn siteless_panic_matches(stored: &str, found: &str) -> bool {
    let found_message = crate::panic_site::without_site(found);
    let (stored_has_site, found_has_site) = (crate::panic_site::without_site(stored) != stored, found_message != found);
    !stored_has_site && found_has_site && message_class(found_message) == message_class(stored)
}

/// Whether two panic texts are one panic reported at the standard library's site in one of them: the same
/// message class without the sites, and one site in `library/`. Whether a function of the standard library
/// reports its own file or its caller's (`#[track_caller]`) changes between Rust releases, so the same
/// panic (`overflow when adding duration to instant`) names `library/std/src/time.rs` on one toolchain and
/// the caller's line on another (a fuzz build on nightly against a fixture written on stable).
fn std_sited_panic_matches(stored: &str, found: &str) -> bool {
    let in_std = |text: &str| {
        let site = &text[crate::panic_site::without_site(text).len()..];
        site.starts_with(&format!("{}library/", crate::panic_site::SITE_OPEN))
    };
    let (stored_message, found_message) =
        (crate::panic_site::without_site(stored), crate::panic_site::without_site(found));
    stored_message != stored
        && found_message != found
        && (in_std(stored) || in_std(found))
        && message_class(stored_message) == message_class(found_message)
}

/// Whether `found` is a violation of the same class as the known `message`: the test of the fuzz masking,
/// where the case (and so the event index) differs from the fixture's. A panic reported at the standard
/// library's site in one of them is compared without the sites (see `std_sited_panic_matches`).
pub fn same_class(message: &str, found: &Violation) -> bool {
    message_class(message) == message_class(&found.message) || std_sited_panic_matches(message, &found.message)
}

/// One known violation as a `known_violation` fixture pins it: its law, its stored message and its case
/// (as JSON, the subject's config included).
#[derive(Clone, Debug, PartialEq)]
pub struct Pinned {
    /// The law's id.
    pub law: String,
    /// The stored verdict's message (empty when the stored verdict is no violation: then it pins nothing).
    pub message: String,
    /// The fixture's case, as JSON.
    pub case: serde_json::Value,
}

/// The known violations of `subject` pinned under `dir` (recursively): one [`Pinned`] per
/// `known_violation` fixture naming the subject and belonging to this build's profile (a fixture that
/// states the other profile pins nothing here). A missing folder pins none.
///
/// # Errors
/// An unreadable folder or file, or a file that does not read strictly as a fixture (as replay reads it;
/// the config as any JSON), named by its path.
pub fn pinned_in(dir: &Path, subject: &str) -> Result<Vec<Pinned>, FixtureError> {
    let mut pinned = Vec::new();
    for (path, found) in known_violations_in(dir, subject)? {
        let message = found.verdict.violation().map(|violation| violation.message.to_string()).unwrap_or_default();
        let case = serde_json::to_value(&found.case).map_err(|error| FixtureError::parse(&path, &error))?;
        pinned.push(Pinned { law: found.law, message, case });
    }
    Ok(pinned)
}

/// The `known_violation` fixtures of `subject` under `dir` (recursively) that belong to this build's
/// profile, with their paths, in the order [`fixture::list`] gives them. A missing folder holds none.
fn known_violations_in(
    dir: &Path,
    subject: &str,
) -> Result<Vec<(PathBuf, fixture::Fixture<serde_json::Value>)>, FixtureError> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut known = Vec::new();
    for path in fixture::list(dir)? {
        let text = fixture::read_text(&path)?;
        let found: fixture::Fixture<serde_json::Value> = fixture::parse(&path, &text)?;
        let other_profile = found.profile.is_some_and(|profile| profile != fixture::Profile::current());
        if found.status == fixture::Status::KnownViolation && found.subject == subject && !other_profile {
            known.push((path, found));
        }
    }
    Ok(known)
}

/// What `timelaw import-crash --known` says of an imported finding ([`known_in`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KnownIn {
    /// A `known_violation` fixture pins this very case (the same law and message class): the crash
    /// shrank to a pinned finding.
    Case(PathBuf),
    /// A fixture pins the same law with a message of the same class, at another case: another minimum
    /// of that finding, or another bug of the same kind; a person tells which.
    Class(PathBuf),
    /// No fixture pins the law against the subject with a message of this class.
    New,
}

/// Where the finding `found` of `law` against `subject`, shrunk to `case` (the case as a fixture writes
/// it), stands among the `known_violation` fixtures under `dir` (recursively; this build's profile): the
/// first that pins the case itself ([`KnownIn::Case`]), else the first that pins the law with a message
/// of the same class ([`same_class`]; [`KnownIn::Class`]), else [`KnownIn::New`]. The class alone is no
/// proof of one bug: a fuzzed backon run whose 27th delay drifted by 100 ppb had the class of a pinned
/// finding about the first delay, and was a false alarm of a tolerance.
///
/// # Errors
/// As [`pinned_in`].
pub fn known_in(
    dir: &Path,
    subject: &str,
    law: &str,
    found: &Violation,
    case: &serde_json::Value,
) -> Result<KnownIn, FixtureError> {
    let mut class = None;
    for (path, fixture) in known_violations_in(dir, subject)? {
        let Some(pinned) = fixture.verdict.violation() else { continue };
        if fixture.law != law || !same_class(&pinned.message, found) {
            continue;
        }
        let pinned_case = serde_json::to_value(&fixture.case).map_err(|error| FixtureError::parse(&path, &error))?;
        if pinned_case == *case {
            return Ok(KnownIn::Case(path));
        }
        class.get_or_insert(path);
    }
    Ok(class.map_or(KnownIn::New, KnownIn::Class))
}

/// How many subject runs the masking may spend shrinking one violation to compare it with a pinned case.
pub const MASK_SHRINK_EVALS: u64 = 1_000;

/// The pinned finding `case` is, if any: a violation of `law` (with `verdict`) is the pinned one only
/// when a [`Pinned`] entry has the same law and message class ([`same_class`]; a panic's class includes
/// its site), or, for a violation that is no panic, the check that finds the pinned case's violation
/// today ([`timelaw_laws::CheckSite`]: the same check worded otherwise), and the case, shrunk for
/// `law` (at most [`MASK_SHRINK_EVALS`] runs; by its config's answers when known, and also without
/// them, as fixtures pinned before were shrunk), equals the pinned case,
/// is one shrink move from it ([`crate::shrink::neighbours`], either way), or equals the pinned case shrunk
/// by today's shrinker (a fixture written by an older shrinker pins the same minimum). Nothing masks a
/// whole law or a whole class of messages: the same bug reached through another minimal case is a new
/// finding.
pub fn pinned_finding<'p, S: ConfigDomain + ?Sized>(
    subject: &S,
    pinned: &'p [Pinned],
    law: &Law,
    verdict: &Verdict,
    case: &Drawn<S::Config>,
) -> Option<&'p Pinned> {
    let found = verdict.violation()?;
    let classed: Vec<&Pinned> = pinned
        .iter()
        .filter(|known| known.law == law.id && !known.message.is_empty())
        .filter(|known| same_class(&known.message, found) || same_check(subject, law, known, found))
        .collect();
    if classed.is_empty() {
        return None;
    }
    // Shrunk by its answers (as the runner and import-crash shrink now) and, when it has them, without
    // (as a fixture pinned before configs shrank by their answers was shrunk).
    let mut minima = vec![minimum(subject, law, case)];
    if case.answers.is_some() {
        let plain = minimum(subject, law, &case.case.clone().into());
        if plain != minima[0] {
            minima.push(plain);
        }
    }
    classed.into_iter().find(|known| {
        let Ok(pinned_case) = serde_json::from_value::<Case<S::Config>>(known.case.clone()) else { return false };
        minima.iter().any(|shrunk| {
            pinned_case == *shrunk
                || neighbours(subject, shrunk).iter().any(|step| step.case == pinned_case)
                || neighbours(subject, &pinned_case).iter().any(|step| step.case == *shrunk)
                || pinned_minimum(subject, law, known).is_some_and(|minimum| minimum == *shrunk)
        })
    })
}

/// Whether `found` (not a panic) was found by the check of `law` that finds the pinned case's violation
/// when it is run today ([`timelaw_laws::CheckSite`]), a violation of the stored class: the same check
/// worded otherwise (an outcome or a call named in its sentence) is of the pinned one's class. Panics
/// keep their message class (every panic is found by one check of `never_panics`).
fn same_check<S: ConfigDomain + ?Sized>(subject: &S, law: &Law, known: &Pinned, found: &Violation) -> bool {
    if is_panic(&known.message) || is_panic(&found.message) || found.check.location().is_none() {
        return false;
    }
    let Ok(pinned_case) = serde_json::from_value::<Case<S::Config>>(known.case.clone()) else { return false };
    let evaluation = crate::eval::evaluate(
        subject,
        &pinned_case,
        Limits::default(),
        law.id == timelaw_laws::ids::DETERMINISTIC_REPLAY,
    );
    match evaluation.judge(law, &pinned_case) {
        // The pin is current (its case still gives its stored class, as replay checks) and its check is
        // the one that found `found`.
        Verdict::Violated(violation) => {
            same_class(&known.message, &violation)
                && violation.check.location().is_some()
                && !violation.check.other_than(found.check)
        }
        _ => false,
    }
}

/// `case` shrunk for `law` (at most [`MASK_SHRINK_EVALS`] runs; by its config's answers too when known, as
/// the runner and `import-crash` shrink); `case` itself when it does not fail.
fn minimum<S: ConfigDomain + ?Sized>(subject: &S, law: &Law, case: &Drawn<S::Config>) -> Case<S::Config> {
    let budget = ShrinkBudget { evals_max: MASK_SHRINK_EVALS, time_max: None };
    shrink(subject, law, case.clone(), budget, Limits::default())
        .map_or_else(|_| case.case.clone(), |outcome| outcome.case)
}

/// The pinned case shrunk by today's shrinker, computed once per process (keyed by subject, law and the
/// case's JSON).
fn pinned_minimum<S: ConfigDomain + ?Sized>(subject: &S, law: &Law, known: &Pinned) -> Option<Case<S::Config>> {
    static MINIMA: std::sync::Mutex<Vec<(String, serde_json::Value)>> = std::sync::Mutex::new(Vec::new());
    let key = format!("{}\u{0}{}\u{0}{}", subject.name(), law.id, known.case);
    let cached = MINIMA.lock().ok()?.iter().find(|(seen, _)| *seen == key).map(|(_, minimum)| minimum.clone());
    let value = match cached {
        Some(value) => value,
        None => {
            let pinned_case: Case<S::Config> = serde_json::from_value(known.case.clone()).ok()?;
            let value = serde_json::to_value(minimum(subject, law, &pinned_case.into())).ok()?;
            MINIMA.lock().ok()?.push((key, value.clone()));
            value
        }
    };
    serde_json::from_value(value).ok()
}

fn event(index: Option<u32>) -> String {
    index.map_or_else(|| "no event".to_owned(), |index| format!("event {index}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_panic_at_the_standard_librarys_site_matches_the_same_panic_at_its_caller() {
        let std_site = "the subject panicked: overflow when adding duration to instant [at library/std/src/time.rs]";
        let caller = "the subject panicked: overflow when adding duration to instant [at tokio-1.54.1/src/time/instant.rs:161:27]";
        let other =
            "the subject panicked: overflow when adding duration to instant [at tokio-1.54.1/src/time/other.rs:9:1]";
        let another_message =
            "the subject panicked: attempt to add with overflow [at tokio-1.54.1/src/time/instant.rs:161:27]";
        for (stored, found) in [(std_site, caller), (caller, std_site)] {
            assert!(std_sited_panic_matches(stored, found), "{stored} / {found}");
            assert!(compare(&Verdict::violated_at(1, stored), &Verdict::violated_at(1, found)).reproduces());
            assert!(same_class(stored, Verdict::violated_at(1, found).violation().unwrap()));
        }
        // Two sites outside the standard library are two panics; another message is another panic.
        assert!(!std_sited_panic_matches(caller, other));
        assert!(!same_class(caller, Verdict::violated_at(1, other).violation().unwrap()));
        assert!(!std_sited_panic_matches(std_site, another_message));
        assert!(!compare(&Verdict::violated_at(1, std_site), &Verdict::violated_at(1, another_message)).reproduces());
        // Not a panic with a site at all: nothing to relax.
        assert!(!std_sited_panic_matches("slept 5ms", "slept 6ms [at library/std/src/time.rs]"));
    }

    use super::*;

    #[track_caller]
    fn class(message: &str, expect: &str) {
        assert_eq!(message_class(message), expect);
    }

    #[test]
    fn numbers_and_their_units_are_masked() {
        class("slept 150ms, above the cap 100ms", "slept #, above the cap #");
        class("sleep 2 of the call was 1.5s, expected 3us", "sleep # of the call was #, expected #");
        class("attempt 4 started, but max_attempts is 3", "attempt # started, but max_attempts is #");
        class("slept 7nsx", "slept #nsx"); // Not a unit: a word that starts like one.
        class("sleep 1 of the call was 1166700ns, outside 0ms..=0ms", "sleep # of the call was #, outside #");
        class("sleep 1 of the call was 17ms, outside 1ms", "sleep # of the call was #, outside #");
        class("the call returned Err(Fatal)", "the call returned Err(Fatal)");
        class("", "");
        class("µ 12", "µ #");
        class("slept forever, above the cap 120s", "slept #, above the cap #");
        class("slept forevermore and foreverx", "slept forevermore and foreverx"); // Words, not the value.
        class("a xforever", "a xforever");
    }

    #[test]
    fn a_panics_parenthesized_payloads_are_masked() {
        let class_of =
            |payload: &str| message_class(&format!("the subject panicked: too long: TryFromIntError({payload})"));
        assert_eq!(class_of("()"), class_of("PosOverflow"));
        assert_eq!(class_of("()"), "the subject panicked: too long: TryFromIntError(…)");
        class("the subject panicked: a (b (c) d) e (f", "the subject panicked: a (…) e (f");
        class("the subject panicked: index 3 (len 2)", "the subject panicked: index # (…)");
        // Only a panic's text: a law's sentence keeps what its parentheses say.
        class("the call returned Err(Fatal)", "the call returned Err(Fatal)");
    }

    #[track_caller]
    fn check(stored: Verdict, now: Verdict, expect: &str) {
        assert_eq!(compare(&stored, &now).to_string(), expect);
    }

    #[test]
    fn each_outcome_of_a_comparison() {
        let at = |event, message| Verdict::violated_at(event, message);
        let nowhere = |message: &'static str| Verdict::violated_with(None, message.to_owned());
        check(at(5, "slept 2ms"), at(5, "slept 9ms"), "the same violation (event and message class)");
        check(at(5, "slept 2ms"), at(6, "slept 2ms"), "still violated, but differently: blamed event 5, now event 6");
        check(
            at(5, "slept 2ms"),
            nowhere("slept 2ms"),
            "still violated, but differently: blamed event 5, now no event",
        );
        check(
            at(5, "slept 2ms"),
            at(5, "woke 2ms"),
            "still violated, but differently: the message was \"slept 2ms\", now \"woke 2ms\"",
        );
        check(at(5, "slept 2ms"), Verdict::Holds, "no longer violated");
        check(
            nowhere("slept 2ms"),
            at(3, "slept 4ms"),
            "a violation; the stored verdict allowed comparing the law and the message class (no stored event)",
        );
        check(Verdict::Holds, at(3, "slept 4ms"), "a violation; the stored verdict allowed comparing the law alone");
    }
}
