//! Verdicts: more than two values.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A violated law: where, and a sentence a person understands.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Violation {
    /// The index (= sequence number) of the violating event, when one event is to blame.
    pub event: Option<u32>,
    /// What went wrong, as a sentence.
    pub message: Cow<'static, str>,
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
    /// A violation at `event` with a fixed message (no allocation).
    pub fn violated_at(event: u32, message: &'static str) -> Verdict {
        Verdict::Violated(Violation { event: Some(event), message: Cow::Borrowed(message) })
    }
    /// A violation at `event` with a formatted message.
    pub fn violated_with(event: Option<u32>, message: String) -> Verdict {
        Verdict::Violated(Violation { event, message: Cow::Owned(message) })
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
    /// The same verdict with its violation's message replaced by `message` (other verdicts unchanged).
    ///
    /// ```
    /// use timelaw_laws::Verdict;
    /// let verdict = Verdict::violated_at(3, "generic").because("the sleep exceeded the cap");
    /// assert_eq!(verdict.to_string(), "violated at event 3: the sleep exceeded the cap");
    /// assert_eq!(Verdict::Holds.because("unused"), Verdict::Holds);
    /// ```
    pub fn because(self, message: impl Into<Cow<'static, str>>) -> Verdict {
        match self {
            Verdict::Violated(Violation { event, .. }) => {
                Verdict::Violated(Violation { event, message: message.into() })
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
            Verdict::Violated(Violation { event: Some(event), message }) => {
                write!(f, "violated at event {event}: {message}")
            }
            Verdict::Violated(Violation { event: None, message }) => write!(f, "violated: {message}"),
            Verdict::Inconclusive(why) => write!(f, "inconclusive: {why}"),
            other => f.write_str(other.name()),
        }
    }
}
