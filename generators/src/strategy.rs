//! The proptest front-end: any description becomes a [`Strategy`] whose value tree shrinks the recorded
//! answers.
//!
//! # How shrinking works
//! Generating records every answer the description got (a *tape*). Shrinking proposes smaller tapes and
//! replays the description on them; a replay reads `0` past the end of the tape and clamps an answer to
//! the bound asked for, so every tape gives a valid value. A candidate is offered to proptest only if the
//! tape its replay really used is shortlex-smaller (shorter, or as long and smaller at the first
//! difference) than the tape of the last failing value, so shrinking always terminates.
//!
//! The passes, repeated until a whole round accepts nothing:
//! 1. delete each span the description marked ([`list`](crate::choice::list) elements,
//!    [`optional`](crate::choice::optional) contents), last first, lowering its control answer in the same
//!    step (one element fewer, the option absent), so the answers after it keep their meaning;
//! 2. delete blocks of 8, 4, 2 and 1 answers, from the end backwards;
//! 3. for each answer: try `0`, then binary-search the smallest answer that still fails.
//!
//! Because every description maps `0` to its simplest option, smaller tapes mean simpler values.

use std::fmt;
use std::sync::Arc;

use proptest::prelude::Rng as _;
use proptest::strategy::{BoxedStrategy, NewTree, Strategy, ValueTree};
use proptest::test_runner::{TestRng, TestRunner};

use crate::choice::{Choices, SpanKind};

/// The answers of one run of a description, recorded or replayed. Handed to the description by
/// [`choice_strategy`]; descriptions only see it through [`Choices`].
pub struct Tape<'a> {
    source: TapeSource<'a>,
    used: Vec<u64>,
    spans: Vec<Span>,
}

/// Answers `start..end` that depend on the answer at `control` (see [`SpanKind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    control: usize,
    kind: SpanKind,
}

enum TapeSource<'a> {
    Record(&'a mut TestRng),
    Replay { answers: &'a [u64], next: usize },
}

impl fmt::Debug for Tape<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tape").field("used", &self.used).finish_non_exhaustive()
    }
}

impl Choices for Tape<'_> {
    fn pick(&mut self, bound: u64) -> u64 {
        let bound = bound.max(1);
        let answer = match &mut self.source {
            TapeSource::Record(rng) => {
                let wide = u128::from(rng.next_u64()) * u128::from(bound);
                (wide >> 64) as u64 // The shift leaves at most 64 significant bits.
            }
            TapeSource::Replay { answers, next } => {
                let answer = answers.get(*next).copied().unwrap_or(0);
                *next += 1;
                answer.min(bound - 1)
            }
        };
        self.used.push(answer);
        answer
    }

    fn position(&self) -> usize {
        self.used.len()
    }

    fn span(&mut self, start: usize, control: usize, kind: SpanKind) {
        let end = self.used.len();
        if control < start && start < end {
            self.spans.push(Span { start, end, control, kind });
        }
    }
}

pub(crate) type Describe<T> = dyn Fn(&mut Tape<'_>) -> T + Send + Sync;

/// A proptest strategy from a description (see [`crate::choice`]): generation draws the answers from
/// the test runner's RNG, shrinking lowers and deletes answers (see the module docs).
///
/// ```
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::TestRunner;
/// use timelaw_generators::{choice_strategy, Choices};
///
/// let pairs = choice_strategy(|c| (c.between(1, 10), c.maybe(1, 2)));
/// let mut runner = TestRunner::deterministic();
/// let (attempts, jitter) = pairs.new_tree(&mut runner).unwrap().current();
/// assert!((1..=10).contains(&attempts));
/// # let _ = jitter;
/// ```
pub fn choice_strategy<T, F>(describe: F) -> BoxedStrategy<T>
where
    T: Clone + fmt::Debug + 'static,
    F: Fn(&mut Tape<'_>) -> T + Send + Sync + 'static,
{
    ChoiceStrategy { describe: Arc::new(describe) }.boxed()
}

struct ChoiceStrategy<T> {
    describe: Arc<Describe<T>>,
}

impl<T> fmt::Debug for ChoiceStrategy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChoiceStrategy")
    }
}

impl<T: Clone + fmt::Debug> Strategy for ChoiceStrategy<T> {
    type Tree = ChoiceTree<T>;
    type Value = T;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        Ok(ChoiceTree::recorded(Arc::clone(&self.describe), runner))
    }
}

/// A tape and the value its replay gave.
#[derive(Clone, Debug)]
struct Tried<T> {
    answers: Vec<u64>,
    spans: Vec<Span>,
    value: T,
}

/// Where the shrinker is in its round (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    /// Delete a span and lower its control answer; `index` is the span tried last (spans walk backwards).
    DeleteSpan { index: Option<usize> },
    /// Delete `block` answers starting at `at` (`None`: as far back as possible); `at` walks backwards.
    Delete { block: usize, at: Option<usize> },
    /// Lower answer `at`: every value below `low` is known to pass; `last` is the previous candidate
    /// value (`None` before the first, which tries `low` itself).
    Lower { at: usize, low: u64, last: Option<u64> },
    /// The round is over.
    Done,
}

const DELETE_BLOCKS: [usize; 4] = [8, 4, 2, 1];

impl Pass {
    const START: Pass = Pass::DeleteSpan { index: None };

    fn after_deleting(block: usize) -> Pass {
        match DELETE_BLOCKS.iter().position(|&len| len == block) {
            Some(index) if index + 1 < DELETE_BLOCKS.len() => {
                Pass::Delete { block: DELETE_BLOCKS[index + 1], at: None }
            }
            _ => Pass::Lower { at: 0, low: 0, last: None },
        }
    }
}

/// The value tree of [`choice_strategy`]: a tape known to fail and the candidate under test.
pub struct ChoiceTree<T> {
    describe: Arc<Describe<T>>,
    /// The last tape known to fail (at first: the generated one).
    accepted: Tried<T>,
    /// The tape under test, if any.
    candidate: Option<Tried<T>>,
    pass: Pass,
    /// Whether this round accepted a candidate.
    improved: bool,
}

impl<T: fmt::Debug> fmt::Debug for ChoiceTree<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChoiceTree").field("accepted", &self.accepted).field("pass", &self.pass).finish()
    }
}

impl<T> Clone for ChoiceTree<T>
where
    T: Clone,
{
    fn clone(&self) -> ChoiceTree<T> {
        ChoiceTree {
            describe: Arc::clone(&self.describe),
            accepted: self.accepted.clone(),
            candidate: self.candidate.clone(),
            pass: self.pass,
            improved: self.improved,
        }
    }
}

impl<T: Clone + fmt::Debug> ChoiceTree<T> {
    /// A tree whose value is `describe` run on answers drawn from the runner's RNG.
    pub(crate) fn recorded(describe: Arc<Describe<T>>, runner: &mut TestRunner) -> ChoiceTree<T> {
        let source = TapeSource::Record(runner.rng());
        let mut tape = Tape { source, used: Vec::with_capacity(64), spans: Vec::new() };
        let value = describe(&mut tape);
        let accepted = Tried { answers: tape.used, spans: tape.spans, value };
        ChoiceTree { describe, accepted, candidate: None, pass: Pass::START, improved: false }
    }

    /// A tree whose value is `describe` replayed on `answers` (the answers of another tree, for another
    /// description: a schedule kept while the contract it was drawn for changes).
    pub(crate) fn replayed(describe: Arc<Describe<T>>, answers: &[u64]) -> ChoiceTree<T> {
        let source = TapeSource::Replay { answers, next: 0 };
        let mut tape = Tape { source, used: Vec::with_capacity(answers.len()), spans: Vec::new() };
        let value = describe(&mut tape);
        let accepted = Tried { answers: tape.used, spans: tape.spans, value };
        ChoiceTree { describe, accepted, candidate: None, pass: Pass::START, improved: false }
    }

    /// The answers of the current value.
    pub(crate) fn answers(&self) -> &[u64] {
        &self.candidate.as_ref().unwrap_or(&self.accepted).answers
    }

    fn replay(&self, answers: &[u64]) -> Tried<T> {
        let source = TapeSource::Replay { answers, next: 0 };
        let mut tape = Tape { source, used: Vec::with_capacity(answers.len()), spans: Vec::new() };
        let value = (self.describe)(&mut tape);
        Tried { answers: tape.used, spans: tape.spans, value }
    }

    /// Proposes the next candidate whose replay is strictly simpler than the accepted tape; `false` when
    /// a whole round found nothing. `passed` tells how the previous candidate fared.
    fn advance(&mut self, mut passed: bool) -> bool {
        loop {
            let Some(raw) = self.next_raw(passed) else {
                if !self.improved {
                    return false;
                }
                self.improved = false;
                self.pass = Pass::START;
                passed = false;
                continue;
            };
            let tried = self.replay(&raw);
            if shortlex_less(&tried.answers, &self.accepted.answers) {
                self.candidate = Some(tried);
                return true;
            }
            // Not simpler: skip it as if it had passed.
            passed = true;
        }
    }

    /// The raw tape of the next candidate of this round, or `None` when the round is over.
    fn next_raw(&mut self, passed: bool) -> Option<Vec<u64>> {
        let answers = &self.accepted.answers;
        let len = answers.len();
        loop {
            match self.pass {
                Pass::DeleteSpan { index } => {
                    let spans = &self.accepted.spans;
                    let Some(index) = index.unwrap_or(spans.len()).min(spans.len()).checked_sub(1) else {
                        self.pass = Pass::Delete { block: DELETE_BLOCKS[0], at: None };
                        continue;
                    };
                    self.pass = Pass::DeleteSpan { index: Some(index) };
                    let span = spans[index];
                    let mut raw = answers.clone();
                    match span.kind {
                        SpanKind::Element if raw[span.control] > 0 => raw[span.control] -= 1,
                        SpanKind::Present if raw[span.control] > 0 => raw[span.control] = 0,
                        _ => continue,
                    }
                    raw.drain(span.start..span.end);
                    return Some(raw);
                }
                Pass::Delete { block, at } => {
                    let Some(last_start) = len.checked_sub(block) else {
                        self.pass = Pass::after_deleting(block);
                        continue;
                    };
                    let at = at.unwrap_or(last_start).min(last_start);
                    self.pass = match at.checked_sub(1) {
                        Some(before) => Pass::Delete { block, at: Some(before) },
                        None => Pass::after_deleting(block),
                    };
                    let mut raw = Vec::with_capacity(len - block);
                    raw.extend_from_slice(&answers[..at]);
                    raw.extend_from_slice(&answers[at + block..]);
                    return Some(raw);
                }
                Pass::Lower { at, low, last } => {
                    let Some(&high) = answers.get(at) else {
                        self.pass = Pass::Done;
                        continue;
                    };
                    let low = match last {
                        Some(value) if passed => value + 1,
                        _ => low,
                    };
                    if low >= high {
                        self.pass = Pass::Lower { at: at + 1, low: 0, last: None };
                        continue;
                    }
                    let value = if last.is_none() { low } else { low + (high - low) / 2 };
                    self.pass = Pass::Lower { at, low, last: Some(value) };
                    let mut raw = answers.clone();
                    raw[at] = value;
                    return Some(raw);
                }
                Pass::Done => return None,
            }
        }
    }
}

/// `a` is shorter than `b`, or as long and smaller at the first difference.
fn shortlex_less(a: &[u64], b: &[u64]) -> bool {
    (a.len(), a) < (b.len(), b)
}

impl<T: Clone + fmt::Debug> ValueTree for ChoiceTree<T> {
    type Value = T;

    fn current(&self) -> T {
        self.candidate.as_ref().unwrap_or(&self.accepted).value.clone()
    }

    /// The current value failed: keep it and propose the next candidate.
    fn simplify(&mut self) -> bool {
        if let Some(candidate) = self.candidate.take() {
            self.accepted = candidate;
            self.improved = true;
        }
        self.advance(false)
    }

    /// The current value passed: go back to the last failing one and propose the next candidate.
    ///
    /// With no candidate left it still returns `true`: going back to the failing value is a change, and
    /// the runner's next `simplify` then reports the end. (Returning `false` here would end shrinking
    /// for good, and in a `prop_flat_map` the outer value would never shrink.)
    fn complicate(&mut self) -> bool {
        if self.candidate.take().is_none() {
            return false;
        }
        self.advance(true);
        true
    }
}
