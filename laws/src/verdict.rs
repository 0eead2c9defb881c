//! Verdicts: more than two values.

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::panic::Location;

use serde::{Deserialize, Serialize};

/// A violated law: where, and a sentence a person understands.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Violation {
    /// The index (= sequence number) of the violating event, when one event is to blame.
    pub event: Option<u32>,
    /// What went wrong, as a sentence.
    pub message: Cow<'static, str>,
    /// Which check of the law found it (see [`CheckSite`]); never written to a fixture, and ignored by
    /// `==`.
    #[serde(skip)]
    pub check: CheckSite,
}

impl Violation {
    /// A violation at `event` with `message`, found by the check at the caller's place in the code.
    #[track_caller]
    pub fn new(event: Option<u32>, message: impl Into<Cow<'static, str>>) -> Violation {
        Violation { event, message: message.into(), check: CheckSite::here() }
    }
}

/// Which check of a law found a violation: the place in the law's code that built it (the call of
/// [`Verdict::violated_at`], [`Check::that`](crate::temporal::Check::that), a combinator such as
/// [`always`](crate::temporal::always), ...), recorded without allocating (`#[track_caller]`).
///
/// One law often checks several things, each with its own message, whose wording may carry numbers and
/// outcome names that change while a case shrinks; the site does not. The shrinker keeps it: a smaller
/// case that violates the law through another check is another finding, not a smaller case of this one
/// ([`CheckSite::other_than`]). A site is not part of a verdict's value: two violations that differ
/// only in their sites are equal (`==` and `Hash` ignore it), and a violation read from a fixture has an
/// unknown site. A law whose sentences word one promise in several ways builds them at one site (a
/// helper function without `#[track_caller]`), so a finding may shrink from one wording to another.
///
/// ```
/// use timelaw_laws::{CheckSite, Verdict};
/// let first = Verdict::violated_at(1, "a third attempt");
/// let second = Verdict::violated_at(1, "a third attempt");
/// assert_eq!(first, second); // the same value...
/// let (first, second) = (first.violation().unwrap().check, second.violation().unwrap().check);
/// assert!(first.other_than(second)); // ...found by two checks (two lines of code)
/// assert!(!first.other_than(first));
/// assert!(!first.other_than(CheckSite::UNKNOWN)); // an unknown site is no other check
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckSite(Option<&'static Location<'static>>);

impl CheckSite {
    /// No known site: a violation read from a fixture, or built without one.
    pub const UNKNOWN: CheckSite = CheckSite(None);

    /// The site of the caller (through every `#[track_caller]` function in between).
    #[track_caller]
    pub fn here() -> CheckSite {
        CheckSite(Some(Location::caller()))
    }

    /// The place in the code, when known.
    pub fn location(self) -> Option<&'static Location<'static>> {
        self.0
    }

    /// Whether both sites are known and differ: the violations were found by two different checks.
    pub fn other_than(self, other: CheckSite) -> bool {
        match (self.0, other.0) {
            (Some(mine), Some(theirs)) => mine != theirs,
            _ => false,
        }
    }
}

/// Every site equals every other: a site says where a violation was found, not what it is.
impl PartialEq for CheckSite {
    fn eq(&self, _: &CheckSite) -> bool {
        true
    }
}

impl Eq for CheckSite {}

/// Hashes nothing, as `==` compares nothing.
impl Hash for CheckSite {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// The judgement of one law on one case.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The contract lacks what the law speaks about.
    NotApplicable,
    /// The law holds, and what it speaks about happened.
    Holds,
    /// The law applies, but what it speaks about never happened in this case.
    Vacuous,
    /// The law is violated.
    Violated(Violation),
    /// No judgement possible (for example a liveness law on a truncated trace).
    Inconclusive(Cow<'static, str>),
}

impl Verdict {
    /// A violation at `event` with a fixed message (no allocation), found by the check at the caller's
    /// place in the code ([`CheckSite`]).
    #[track_caller]
    pub fn violated_at(event: u32, message: &'static str) -> Verdict {
        Verdict::Violated(Violation::new(Some(event), message))
    }
    /// A violation at `event` with a formatted message, found by the check at the caller's place in the
    /// code ([`CheckSite`]).
    #[track_caller]
    pub fn violated_with(event: Option<u32>, message: String) -> Verdict {
        Verdict::Violated(Violation::new(event, message))
    }
    /// `true` for [`Verdict::Violated`].
    pub fn is_violated(&self) -> bool {
        matches!(self, Verdict::Violated(_))
    }
    /// The violation, if any.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            Verdict::Violated(violation) => Some(violation),
            _ => None,
        }
    }
    /// The same verdict with its violation's message replaced by `message` (other verdicts unchanged);
    /// the violation keeps its event and its [`CheckSite`].
    ///
    /// ```
    /// use timelaw_laws::Verdict;
    /// let verdict = Verdict::violated_at(3, "generic").because("the sleep exceeded the cap");
    /// assert_eq!(verdict.to_string(), "violated at event 3: the sleep exceeded the cap");
    /// assert_eq!(Verdict::Holds.because("unused"), Verdict::Holds);
    /// ```
    pub fn because(self, message: impl Into<Cow<'static, str>>) -> Verdict {
        match self {
            Verdict::Violated(Violation { event, check, .. }) => {
                Verdict::Violated(Violation { event, message: message.into(), check })
            }
            other => other,
        }
    }
    /// The verdict of a law made of two parts: the more decisive of the two. A violation wins (`self`'s
    /// first), then inconclusive, then holds, then vacuous, then not applicable.
    ///
    /// ```
    /// use timelaw_laws::Verdict;
    /// assert_eq!(Verdict::Vacuous.merge(Verdict::Holds), Verdict::Holds);
    /// assert!(Verdict::Holds.merge(Verdict::violated_at(1, "late")).is_violated());
    /// ```
    pub fn merge(self, other: Verdict) -> Verdict {
        if self.rank() >= other.rank() {
            self
        } else {
            other
        }
    }
    fn rank(&self) -> u8 {
        match self {
            Verdict::NotApplicable => 0,
            Verdict::Vacuous => 1,
            Verdict::Holds => 2,
            Verdict::Inconclusive(_) => 3,
            Verdict::Violated(_) => 4,
        }
    }
    /// A short lowercase name: `not_applicable`, `holds`, `vacuous`, `violated`, `inconclusive`.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::NotApplicable => "not_applicable",
            Verdict::Holds => "holds",
            Verdict::Vacuous => "vacuous",
            Verdict::Violated(_) => "violated",
            Verdict::Inconclusive(_) => "inconclusive",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Violated(Violation { event: Some(event), message, .. }) => {
                write!(f, "violated at event {event}: {message}")
            }
            Verdict::Violated(Violation { event: None, message, .. }) => write!(f, "violated: {message}"),
            Verdict::Inconclusive(why) => write!(f, "inconclusive: {why}"),
            other => f.write_str(other.name()),
        }
    }
}
