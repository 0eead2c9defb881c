//! Choices: the one primitive every description of the case domain is written against.
//!
//! A description (of a policy, a schedule, a user's config) is a plain function generic over [`Choices`]:
//! it asks for numbers below bounds and builds a value from the answers. Three sources answer:
//!
//! | source | front-end | answers |
//! |---|---|---|
//! | [`SplitMix64`] | native sampling (the runner's hot loop) | uniform draws |
//! | [`Unstructured`] | `arbitrary` decoding (cargo-fuzz) | fuzz bytes; `0` once the bytes run out |
//! | the tape of [`choice_strategy`](crate::choice_strategy) | proptest | recorded draws, replayed while shrinking |
//!
//! # Invariant: zero is the simplest answer
//! Every description orders its options so that answering `0` everywhere gives the simplest value
//! (fewest attempts, no features, zero durations, one call with no steps). That single rule makes running
//! out of fuzz bytes give the smallest case and makes proptest's shrinking (which lowers recorded answers
//! towards zero) move towards simpler values.
//!
//! # Writing a description that shrinks well
//! The proptest shrinker (see [`crate::strategy`]) prefers tapes that are shorter, then smaller. So:
//! - draw lists with [`list`] and options with [`optional`]: their elements can then be deleted whole;
//!   a list's length must be the *last* answer of its length draw and grow by one per element;
//! - draw a plain value first and a boundary value after it (replacing it): the plain path is then the
//!   shorter, simpler one;
//! - keep the shape fixed where it is cheap (draw an answer even when it is ignored), so that simplifying
//!   one answer does not change how the answers after it are read;
//! - prefer one linear answer over tiers of disjoint ranges ([`scaled_duration`]).

use arbitrary::Unstructured;
use timelaw_core::{SplitMix64, VDuration};

/// A source of answers for a description. See the module docs.
pub trait Choices {
    /// A value in `0..bound`; `0` is the simplest answer. A `bound` of `0` is treated as `1`.
    fn pick(&mut self, bound: u64) -> u64;

    /// A value in `low..=high` (`low` is the simplest).
    fn between(&mut self, low: u64, high: u64) -> u64 {
        debug_assert!(low <= high, "between: low {low} above high {high}");
        let high = high.max(low);
        match (high - low).checked_add(1) {
            Some(span) => low + self.pick(span),
            // The full u64 range: two draws of 32 bits each, still 0 for the simplest answer.
            None => (self.pick(1 << 32) << 32) | self.pick(1 << 32),
        }
    }

    /// An index into `weights` drawn with probability proportional to its weight; options with weight 0
    /// are never drawn. Index 0 is the simplest; with every weight 0 the answer is 0.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&weight| u64::from(weight)).sum();
        if total == 0 {
            return 0;
        }
        let ticket = self.pick(total);
        // The first index whose running sum passes the ticket: the number of running sums at or below it
        // (an option of weight 0 adds nothing to the sum, so it is never the answer). Counted without a
        // branch on the ticket, which is random.
        let mut sum = 0_u64;
        let mut index = 0;
        for &weight in weights {
            sum += u64::from(weight);
            index += usize::from(sum <= ticket);
        }
        debug_assert!(index < weights.len(), "ticket < total = the sum of the weights");
        index.min(weights.len() - 1)
    }

    /// `true` with probability `numerator / denominator`; `false` is the simplest answer.
    fn maybe(&mut self, numerator: u64, denominator: u64) -> bool {
        let denominator = denominator.max(1);
        self.pick(denominator) >= denominator.saturating_sub(numerator)
    }

    /// A duration in `low..=high`, nanosecond-exact.
    fn duration_between(&mut self, low: VDuration, high: VDuration) -> VDuration {
        VDuration::from_nanos(self.between(low.as_nanos(), high.as_nanos()))
    }

    /// A structure hint for shrinking: how many answers were given so far. Sources that do not shrink
    /// need not count (the default is 0). Use [`list`] and [`optional`] rather than calling it.
    fn position(&self) -> usize {
        0
    }

    /// A structure hint for shrinking: the answers from `start` to the current position form one span
    /// controlled by the answer at `control` (see [`SpanKind`]). The default ignores it. Use [`list`]
    /// and [`optional`] rather than calling it.
    fn span(&mut self, start: usize, control: usize, kind: SpanKind) {
        let _ = (start, control, kind);
    }
}

/// The largest value of the small-value class every [`scaled_duration`] draws from: 0 to 16 ns, odd and
/// even alike, where halving, rounding and off-by-one bugs show (a 3 ns delay halved, a 1 ns refill).
pub const SMALL_NS_MAX: u64 = 16;

/// A duration in `0..=max`, where `max` is drawn first from `classes` (`(weight, max)` pairs, simplest
/// first, at most 7) and from the small-value class (0 to [`SMALL_NS_MAX`] ns, weighted an eighth of the
/// other classes' total, rounded up; right after the first class when that one is zero, else first): the
/// size class makes small values common, and the duration itself is one linear answer, so shrinking
/// moves smoothly across classes (lowering the class clamps the duration to it).
///
/// ```
/// use timelaw_core::{SplitMix64, VDuration};
/// use timelaw_generators::choice::{scaled_duration, SMALL_NS_MAX};
/// let mut rng = SplitMix64::new(5);
/// let draws: Vec<u64> = (0..2_000)
///     .map(|_| scaled_duration(&mut rng, &[(1, VDuration::ZERO), (8, VDuration::from_secs(1))]).as_nanos())
///     .collect();
/// assert!(draws.iter().any(|&ns| ns % 2 == 1 && ns <= SMALL_NS_MAX));
/// assert!(draws.iter().any(|&ns| ns % 2 == 0 && (2..=SMALL_NS_MAX).contains(&ns)));
/// ```
pub fn scaled_duration<C: Choices + ?Sized>(c: &mut C, classes: &[(u32, VDuration)]) -> VDuration {
    let classes = &classes[..classes.len().min(7)];
    let total: u32 = classes.iter().map(|&(weight, _)| weight).sum();
    let small = (total.div_ceil(8).max(1), VDuration::from_nanos(SMALL_NS_MAX));
    let small_at = usize::from(classes.first().is_some_and(|&(_, max)| max.is_zero()));
    let (mut weights, mut maxes) = ([0_u32; 8], [VDuration::ZERO; 8]);
    // The classes in order with the small class slotted in at `small_at` (a plain loop: this runs for
    // every duration of every case drawn).
    for (index, &(weight, max)) in classes.iter().enumerate() {
        let at = index + usize::from(index >= small_at);
        (weights[at], maxes[at]) = (weight, max);
    }
    (weights[small_at], maxes[small_at]) = small;
    let class = c.weighted(&weights[..=classes.len()]);
    c.duration_between(VDuration::ZERO, maxes[class])
}

/// How a span of answers depends on its control answer; the proptest shrinker deletes a span and
/// adjusts its control answer in one step, so the answers after it keep their meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpanKind {
    /// One element of a list whose length grows by one per unit of the control answer.
    Element,
    /// The contents of an optional value that is present unless the control answer is 0.
    Present,
}

/// A list: `draw_len` draws its length (its last answer must grow by one per element, as
/// [`Choices::between`] does), then `element(c, index)` draws each element.
///
/// ```
/// use timelaw_core::SplitMix64;
/// use timelaw_generators::choice::{list, Choices};
/// let delays_ms = list(&mut SplitMix64::new(3), |c| c.between(0, 4), |c, _| c.between(1, 100));
/// assert!(delays_ms.len() <= 4);
/// ```
pub fn list<C, T>(c: &mut C, draw_len: impl FnOnce(&mut C) -> u64, mut element: impl FnMut(&mut C, u64) -> T) -> Vec<T>
where
    C: Choices + ?Sized,
{
    let before = c.position();
    let len = draw_len(c);
    let control = c.position().checked_sub(1).filter(|&last| last >= before);
    let mut items = Vec::with_capacity(len as usize);
    for index in 0..len {
        let start = c.position();
        items.push(element(c, index));
        if let Some(control) = control {
            c.span(start, control, SpanKind::Element);
        }
    }
    items
}

/// `Some(contents(c))` with probability `numerator / denominator` when `enabled`, else `None` (with no
/// answer drawn). `None` is the simplest.
pub fn optional<C, T>(
    c: &mut C,
    enabled: bool,
    numerator: u64,
    denominator: u64,
    contents: impl FnOnce(&mut C) -> T,
) -> Option<T>
where
    C: Choices + ?Sized,
{
    if !enabled {
        return None;
    }
    let control = c.position();
    if !c.maybe(numerator, denominator) {
        return None;
    }
    let start = c.position();
    let value = contents(c);
    c.span(start, control, SpanKind::Present);
    Some(value)
}

impl<C: Choices + ?Sized> Choices for &mut C {
    fn pick(&mut self, bound: u64) -> u64 {
        (**self).pick(bound)
    }
    fn position(&self) -> usize {
        (**self).position()
    }
    fn span(&mut self, start: usize, control: usize, kind: SpanKind) {
        (**self).span(start, control, kind);
    }
}

impl Choices for SplitMix64 {
    fn pick(&mut self, bound: u64) -> u64 {
        self.below(bound.max(1))
    }
}

impl Choices for Unstructured<'_> {
    /// Reads as few bytes as the bound needs; once the bytes run out every answer is `0`.
    fn pick(&mut self, bound: u64) -> u64 {
        // `int_in_range` fails only for an empty range, and `0..=bound-1` with `bound >= 1` never is.
        self.int_in_range(0..=bound.max(1) - 1).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers 0 to everything: the simplest source.
    struct Zeros;
    impl Choices for Zeros {
        fn pick(&mut self, _bound: u64) -> u64 {
            0
        }
    }

    #[test]
    fn zero_answers_are_the_simplest() {
        assert_eq!(Zeros.between(3, 9), 3);
        assert_eq!(Zeros.between(0, u64::MAX), 0);
        assert!(!Zeros.maybe(99, 100));
        assert!(Zeros.maybe(1, 1), "a certain event happens even for the simplest answer");
        assert_eq!(Zeros.weighted(&[0, 0, 5]), 2);
        assert_eq!(Zeros.weighted(&[]), 0);
        assert_eq!(Unstructured::new(&[]).pick(1000), 0);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = SplitMix64::new(5);
        for _ in 0..1000 {
            assert!((7..=9).contains(&rng.between(7, 9)));
            assert!(rng.weighted(&[0, 1, 0, 3]) % 2 == 1);
            assert!(!Choices::maybe(&mut rng, 0, 10));
            assert!(Choices::maybe(&mut rng, 10, 10));
        }
        let bytes = [0xFF_u8; 64];
        let mut u = Unstructured::new(&bytes);
        assert!((7..=9).contains(&u.between(7, 9)));
        assert_eq!(u.pick(0), 0);
    }
}
