//! Binary numbers with a 127-bit mantissa and directed rounding: the arithmetic behind the exact promised
//! delays of [`crate::promise`].
//!
//! A [`Wide`] is `mantissa * 2^exp2`. Every operation exists twice, rounding down (`_down`) and up (`_up`),
//! so a pair of results always brackets the exact real value: an interval. With 127 bits per mantissa the
//! interval of `initial * factor^k` is narrower than `2^-100` of the value for any `k` below `2^32`, so
//! for every delay up to `2^64` ns its whole-nanosecond floor and ceiling are the exact ones (or, when the
//! exact value lies within `2^-36` ns of an integer, one nanosecond wider).

/// The mantissa never has more bits than this, so rounding up by one cannot overflow a `u128`.
const MANTISSA_BITS: u32 = 127;

/// `mantissa * 2^exp2`, non-negative. Zero has mantissa 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wide {
    mantissa: u128,
    exp2: i64,
}

/// Which way an operation rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    Down,
    Up,
}

impl Wide {
    pub(crate) const ZERO: Wide = Wide { mantissa: 0, exp2: 0 };
    pub(crate) const ONE: Wide = Wide { mantissa: 1, exp2: 0 };

    /// An integer, exactly.
    pub(crate) fn from_u128(value: u128, round: Round) -> Wide {
        normalize(0, value, 0, round)
    }

    /// A finite non-negative `f64`, exactly. Negative values and NaN give zero; infinity gives `2^(2^40)`
    /// (above every delay).
    pub(crate) fn from_f64(value: f64) -> Wide {
        if value.is_nan() || value <= 0.0 {
            return Wide::ZERO;
        }
        if value.is_infinite() {
            return Wide { mantissa: 1, exp2: 1 << 40 };
        }
        let bits = value.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i64;
        let fraction = u128::from(bits & ((1 << 52) - 1));
        match biased {
            0 => Wide { mantissa: fraction, exp2: -1074 },
            _ => Wide { mantissa: fraction | (1 << 52), exp2: biased - 1075 },
        }
    }

    /// `numerator / denominator` rounded as asked; a zero denominator gives the infinity of
    /// [`Wide::from_f64`].
    pub(crate) fn ratio(numerator: u64, denominator: u64, round: Round) -> Wide {
        if denominator == 0 {
            return Wide::from_f64(f64::INFINITY);
        }
        // Long division to 128 fraction bits: numerator * 2^128 / denominator as a 192-bit quotient.
        let (numerator, denominator) = (u128::from(numerator), u128::from(denominator));
        let (first, rest) = ((numerator << 64) / denominator, (numerator << 64) % denominator);
        let (second, remainder) = ((rest << 64) / denominator, (rest << 64) % denominator);
        let (mut high, mut low) = (first >> 64, (first << 64) | second);
        if round == Round::Up && remainder != 0 {
            let (sum, carry) = low.overflowing_add(1);
            (low, high) = (sum, high + u128::from(carry));
        }
        normalize(high, low, -128, round)
    }

    /// `self * other`, rounded as asked.
    pub(crate) fn mul(self, other: Wide, round: Round) -> Wide {
        let (high, low) = mul_wide(self.mantissa, other.mantissa);
        normalize(high, low, self.exp2.saturating_add(other.exp2), round)
    }

    /// `self^power` by squaring, each step rounded as asked (so the result rounds that way too).
    pub(crate) fn pow(self, mut power: u64, round: Round) -> Wide {
        let (mut base, mut result) = (self, Wide::ONE);
        while power > 0 {
            if power & 1 == 1 {
                result = result.mul(base, round);
            }
            power >>= 1;
            if power > 0 {
                base = base.mul(base, round);
            }
        }
        result
    }

    /// The largest integer at most `self`, saturating at `u128::MAX`.
    pub(crate) fn floor(self) -> u128 {
        self.to_integer(Round::Down)
    }

    /// The smallest integer at least `self`, saturating at `u128::MAX`.
    pub(crate) fn ceil(self) -> u128 {
        self.to_integer(Round::Up)
    }

    fn to_integer(self, round: Round) -> u128 {
        if self.mantissa == 0 {
            return 0;
        }
        if self.exp2 >= 0 {
            let bits = 128 - i64::from(self.mantissa.leading_zeros());
            return match bits.saturating_add(self.exp2) {
                ..=128 => self.mantissa << self.exp2,
                _ => u128::MAX,
            };
        }
        let shift = self.exp2.unsigned_abs();
        let (whole, fraction) = match shift {
            0..=127 => (self.mantissa >> shift, self.mantissa & ((1 << shift) - 1)),
            _ => (0, self.mantissa),
        };
        match (round, fraction) {
            (Round::Up, 1..) => whole + 1,
            _ => whole,
        }
    }
}

/// The 256-bit product of two `u128` as `(high, low)`.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    const LOW: u128 = u64::MAX as u128;
    let (a1, a0, b1, b0) = (a >> 64, a & LOW, b >> 64, b & LOW);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let middle = (p00 >> 64) + (p01 & LOW) + (p10 & LOW);
    let low = (p00 & LOW) | (middle << 64);
    let high = p11 + (p01 >> 64) + (p10 >> 64) + (middle >> 64);
    (high, low)
}

/// `(high * 2^128 + low) * 2^exp2` with at most [`MANTISSA_BITS`] bits of mantissa, rounded as asked.
fn normalize(high: u128, low: u128, exp2: i64, round: Round) -> Wide {
    let bits = match high {
        0 => 128 - low.leading_zeros(),
        _ => 256 - high.leading_zeros(),
    };
    if bits == 0 {
        return Wide::ZERO;
    }
    let Some(shift) = bits.checked_sub(MANTISSA_BITS).filter(|&shift| shift > 0) else {
        return Wide { mantissa: low, exp2 }; // At most 127 bits, all in `low`.
    };
    let (mantissa, dropped) = shift_right(high, low, shift);
    let mantissa = match (round, dropped) {
        (Round::Up, true) => mantissa + 1, // Below 2^127 + 1: no overflow.
        _ => mantissa,
    };
    Wide { mantissa, exp2: exp2.saturating_add(i64::from(shift)) }
}

/// `(high * 2^128 + low) >> shift` for `1 <= shift <= 129` and whether a set bit was dropped.
fn shift_right(high: u128, low: u128, shift: u32) -> (u128, bool) {
    match shift {
        1..=127 => {
            let dropped = low & ((1 << shift) - 1) != 0;
            ((low >> shift) | (high << (128 - shift)), dropped)
        }
        128 => (high, low != 0),
        _ => (high >> (shift - 128), low != 0 || high & ((1 << (shift - 128)) - 1) != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(value: Wide, floor: u128, ceil: u128) {
        assert_eq!((value.floor(), value.ceil()), (floor, ceil), "{value:?}");
    }

    #[test]
    fn integers_and_ratios() {
        check(Wide::from_u128(7, Round::Down), 7, 7);
        check(Wide::from_u128(u128::MAX, Round::Down), u128::MAX - 1, u128::MAX - 1);
        check(Wide::from_u128(u128::MAX, Round::Up), u128::MAX, u128::MAX);
        check(Wide::ratio(3, 2, Round::Down), 1, 2);
        check(Wide::ratio(600_497, 1000, Round::Down), 600, 601);
        check(Wide::ratio(600_497, 1000, Round::Up), 600, 601);
        check(Wide::ratio(0, 1000, Round::Up), 0, 0);
        check(Wide::from_f64(0.5), 0, 1);
        check(Wide::from_f64(f64::MIN_POSITIVE / 4.0), 0, 1);
        check(
            Wide::from_f64(1e30),
            1_000_000_000_000_000_019_884_624_838_656,
            1_000_000_000_000_000_019_884_624_838_656,
        );
        check(Wide::from_f64(-1.0), 0, 0);
        check(Wide::from_f64(f64::INFINITY), u128::MAX, u128::MAX);
    }

    #[test]
    fn products_bracket_the_exact_value() {
        let third_down = Wide::ratio(1, 3, Round::Down);
        let third_up = Wide::ratio(1, 3, Round::Up);
        let nine = Wide::from_u128(9, Round::Down);
        check(nine.mul(third_down, Round::Down), 2, 3);
        check(nine.mul(third_up, Round::Up), 3, 4);
        check(Wide::from_u128(3, Round::Down).pow(80, Round::Down), 3_u128.pow(80), 3_u128.pow(80));
        check(Wide::from_u128(3, Round::Down).pow(81, Round::Down), u128::MAX, u128::MAX);
        check(Wide::from_f64(0.5).pow(200, Round::Up), 0, 1);
        check(Wide::from_u128(5, Round::Down).pow(0, Round::Down), 1, 1);
        check(Wide::ZERO.pow(3, Round::Up), 0, 0);
    }
}
