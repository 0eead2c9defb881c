//! The exact promised delays against a high-precision computation: every shape over extreme starts and
//! factors (1 ns, non-integer factors, factors below 1, results past 584 years). The reference here is a
//! small exact big-integer rational written for the test: `floor(initial * p^k / q^k)` is the `F` with
//! `F * q^k <= initial * p^k < (F + 1) * q^k`.

use std::cmp::Ordering;

use timelaw_core::{BackoffShape, FloatFactor, JitterBounds, Promised, Tolerance, VDuration};

/// A non-negative big integer, little-endian `u64` limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u64>);

impl Big {
    fn from(value: u128) -> Big {
        Big(vec![value as u64, (value >> 64) as u64]).trimmed()
    }
    fn trimmed(mut self) -> Big {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }
    fn mul(&self, other: &Big) -> Big {
        let mut out = vec![0_u64; self.0.len() + other.0.len() + 1];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0_u128;
            for (j, &b) in other.0.iter().enumerate() {
                let sum = u128::from(a) * u128::from(b) + u128::from(out[i + j]) + carry;
                out[i + j] = sum as u64;
                carry = sum >> 64;
            }
            let mut k = i + other.0.len();
            while carry > 0 {
                let sum = u128::from(out[k]) + carry;
                out[k] = sum as u64;
                carry = sum >> 64;
                k += 1;
            }
        }
        Big(out).trimmed()
    }
    fn pow(&self, mut power: u64) -> Big {
        let (mut base, mut result) = (self.clone(), Big::from(1));
        while power > 0 {
            if power & 1 == 1 {
                result = result.mul(&base);
            }
            base = base.mul(&base);
            power >>= 1;
        }
        result
    }
    fn shl(&self, bits: u64) -> Big {
        self.mul(&Big::from(2).pow(bits))
    }
    fn cmp(&self, other: &Big) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

/// `initial * (p/q)^k` exactly: `(floor, exact)`, the floor saturating at `u128::MAX`.
fn exact(initial: u128, p: &Big, q: &Big, k: u64) -> (u128, bool) {
    let numerator = Big::from(initial).mul(&p.pow(k));
    let denominator = q.pow(k);
    if numerator.cmp(&denominator.mul(&Big::from(u128::MAX))) != Ordering::Less {
        return (u128::MAX, false);
    }
    // Binary search of the floor on u128.
    let (mut low, mut high) = (0_u128, u128::MAX);
    while low < high {
        let middle = low + (high - low) / 2 + 1;
        match denominator.mul(&Big::from(middle)).cmp(&numerator) {
            Ordering::Greater => high = middle - 1,
            _ => low = middle,
        }
    }
    (low, denominator.mul(&Big::from(low)) == numerator)
}

/// The factor of a shape as an exact fraction `p/q`.
fn fraction(shape: BackoffShape) -> (u128, Big, Big) {
    match shape {
        BackoffShape::Exponential { initial, factor_milli } => {
            (u128::from(initial.as_nanos()), Big::from(u128::from(factor_milli)), Big::from(1000))
        }
        BackoffShape::ExponentialFloat { initial_nanos, factor } => {
            let bits = factor.0.to_bits();
            let (biased, fraction) = ((bits >> 52) & 0x7ff, bits & ((1 << 52) - 1));
            let (mantissa, exp2) = match biased {
                0 => (fraction, -1074_i64),
                _ => (fraction | (1 << 52), biased as i64 - 1075),
            };
            let mantissa = Big::from(u128::from(mantissa));
            match exp2 >= 0 {
                true => (initial_nanos, mantissa.shl(exp2 as u64), Big::from(1)),
                false => (initial_nanos, mantissa, Big::from(1).shl(exp2.unsigned_abs())),
            }
        }
        other => panic!("not an exponential: {other:?}"),
    }
}

#[track_caller]
fn check_exponential(shape: BackoffShape, n: u32) {
    let (initial, p, q) = fraction(shape);
    let (floor, is_exact) = exact(initial, &p, &q, u64::from(n - 1));
    let promised = shape.promised(n).unwrap();
    let ceil = if is_exact || floor == u128::MAX { floor } else { floor + 1 };
    // Exact to the nanosecond below 2^126 ns (127-bit mantissas); above, only "beyond" matters.
    if floor < 1 << 126 {
        assert_eq!((promised.low_nanos(), promised.high_nanos()), (floor, ceil), "{shape:?} n={n}");
    }
    assert_eq!(promised.is_beyond(), floor > u128::from(u64::MAX), "{shape:?} n={n}");
}

fn ns(nanos: u64) -> VDuration {
    VDuration::from_nanos(nanos)
}

fn milli(initial: VDuration, factor_milli: u64) -> BackoffShape {
    BackoffShape::Exponential { initial, factor_milli }
}

fn float(initial_nanos: u128, factor: f64) -> BackoffShape {
    BackoffShape::ExponentialFloat { initial_nanos, factor: FloatFactor(factor) }
}

#[test]
fn exponential_matches_the_exact_rational() {
    for n in [1, 2, 3, 4, 5, 6, 10, 17, 40, 64, 65, 100, 500] {
        check_exponential(milli(ns(1), 600_497), n); // The issue's first case (360596.6 ns at n = 3).
        check_exponential(milli(ns(1), 3032), n); // The issue's second case (256.2 ns at n = 6).
        check_exponential(float(1, f64::from(600.497_f32)), n);
        check_exponential(float(1, f64::from(3.032_f32)), n);
        check_exponential(milli(ns(1), 1001), n);
        check_exponential(milli(ns(7), 1500), n);
        check_exponential(milli(VDuration::MAX, 999), n);
        check_exponential(milli(VDuration::MAX, 500), n);
        check_exponential(milli(VDuration::from_secs(1), 16_000), n);
        check_exponential(milli(ns(3), 0), n);
        check_exponential(milli(ns(3), 1), n);
        check_exponential(float(1, 0.1), n);
        check_exponential(float(1 << 100, 0.5), n); // A start past 584 years coming back into range.
        check_exponential(float(u128::MAX, 0.25), n);
        check_exponential(float(1_000_000_000, 1e30), n);
        check_exponential(float(1, 1.000_000_1), n);
        check_exponential(float(5, f64::MIN_POSITIVE), n);
        check_exponential(float(5, 2.0), n);
    }
}

#[test]
fn the_issues_cases_are_exact() {
    let first = milli(ns(1), 600_497).promised(3).unwrap();
    assert_eq!((first.low_nanos(), first.high_nanos()), (360_596, 360_597));
    assert!(first.admits(ns(360_597)) && !first.admits(ns(360_298)));
    let second = milli(ns(1), 3032).promised(6).unwrap();
    assert_eq!((second.low_nanos(), second.high_nanos()), (256, 257));
    assert!(second.admits(ns(256)) && !second.admits(ns(245)));
}

#[track_caller]
fn check(shape: BackoffShape, n: u32, low_nanos: u128, high_nanos: u128) {
    let promised = shape.promised(n).unwrap();
    assert_eq!((promised.low_nanos(), promised.high_nanos()), (low_nanos, high_nanos), "{shape:?} n={n}");
}

#[test]
fn integer_shapes_are_exact_past_the_range() {
    let max = u128::from(u64::MAX);
    check(BackoffShape::Constant { delay: VDuration::MAX }, 9, max, max);
    check(BackoffShape::Linear { initial: ns(1), step: ns(2) }, 4, 7, 7);
    check(BackoffShape::Linear { initial: VDuration::MAX, step: VDuration::MAX }, 3, 3 * max, 3 * max);
    check(BackoffShape::Fibonacci { initial: ns(1) }, 10, 55, 55);
    check(BackoffShape::Fibonacci { initial: VDuration::MAX }, 3, 2 * max, 2 * max);
    check(
        BackoffShape::Fibonacci { initial: ns(1) },
        186,
        332_825_110_087_067_562_321_196_029_789_634_457_848,
        332_825_110_087_067_562_321_196_029_789_634_457_848,
    );
    check(BackoffShape::Fibonacci { initial: ns(2) }, 186, u128::MAX, u128::MAX);
    check(BackoffShape::Fibonacci { initial: ns(1) }, u32::MAX, u128::MAX, u128::MAX);
    assert!(BackoffShape::Linear { initial: VDuration::MAX, step: ns(1) }.promised(2).unwrap().is_beyond());
}

#[track_caller]
fn check_range(range: Promised, low_nanos: u128, high_nanos: u128) {
    assert_eq!((range.low_nanos(), range.high_nanos()), (low_nanos, high_nanos));
}

#[test]
fn beyond_is_never_equal_to_the_maximum() {
    let beyond = float(1 << 70, 1.0).promised(1).unwrap();
    assert!(beyond.is_beyond());
    assert!(beyond.admits(VDuration::MAX), "a saturated recording stands for 584 years or more");
    assert!(!beyond.admits(ns(u64::MAX - 1)));
    let just_below = Promised::exactly(ns(u64::MAX - 1));
    assert!(!just_below.admits(VDuration::MAX));
    check_range(beyond.min(VDuration::from_secs(1)), 1_000_000_000, 1_000_000_000);
    assert_eq!(beyond.to_string(), "more than VDuration holds (584 years)");
    assert_eq!(milli(ns(1), 600_497).promised(3).unwrap().to_string(), "360596ns..=360597ns");
}

#[test]
fn tolerance_is_absolute_plus_relative() {
    let tolerance = Tolerance { absolute: ns(64), relative_ppb: 1000 };
    check_range(Promised::exactly(VDuration::from_secs(1)).widen(tolerance), 999_998_936, 1_000_001_064);
    check_range(Promised::exactly(ns(10)).widen(tolerance), 0, 75);
    check_range(Promised::exactly(ns(10)).widen(Tolerance::default()), 10, 10);
}

#[track_caller]
fn check_jitter(jitter: JitterBounds, base: Promised, low_nanos: u128, high_nanos: u128) {
    check_range(jitter.around(base), low_nanos, high_nanos);
}

#[test]
fn jitter_ranges_around_exact_bases() {
    let odd = Promised::between(360_596, 360_597);
    check_jitter(JitterBounds::None, odd, 360_596, 360_597);
    check_jitter(JitterBounds::Full, odd, 0, 360_597);
    check_jitter(JitterBounds::Equal, odd, 180_298, 360_597);
    check_jitter(JitterBounds::Equal, Promised::exactly(ns(7)), 3, 7);
    check_jitter(JitterBounds::Additive { ratio_milli: 1000 }, odd, 360_596, 721_194);
    check_jitter(JitterBounds::Symmetric { ratio_milli: 500 }, Promised::exactly(ns(101)), 50, 152);
    check_jitter(JitterBounds::Symmetric { ratio_milli: 1500 }, Promised::exactly(ns(100)), 0, 250);
    let beyond = Promised::between(1 << 80, 1 << 80);
    check_jitter(JitterBounds::Additive { ratio_milli: 1000 }, beyond, 1 << 80, 1 << 81);
}

#[track_caller]
fn check_decorrelated(initial: u64, previous: Option<u64>, cap: u64, low_nanos: u128, high_nanos: u128) {
    let shape = BackoffShape::decorrelated(ns(initial));
    check_range(shape.decorrelated_bounds(previous.map(ns), ns(cap)).unwrap(), low_nanos, high_nanos);
}

#[test]
fn decorrelated_bounds_compose_with_the_cap() {
    check_decorrelated(10, None, 1000, 10, 30);
    check_decorrelated(10, Some(25), 1000, 10, 75);
    check_decorrelated(10, Some(25), 40, 10, 40);
    check_decorrelated(10, Some(1), 1000, 10, 10); // previous * 3 below the base: the base.
    check_decorrelated(100, None, 40, 40, 40); // The cap below the base: the cap.
    check_decorrelated(100, Some(40), 40, 40, 40);
    check_decorrelated(100, Some(u64::MAX), u64::MAX, 100, u128::from(u64::MAX));
    let wide = BackoffShape::Decorrelated { initial: ns(10), factor_milli: 2500 };
    check_range(wide.decorrelated_bounds(Some(ns(3)), VDuration::MAX).unwrap(), 10, 10);
    check_range(wide.decorrelated_bounds(Some(ns(11)), VDuration::MAX).unwrap(), 10, 28);
    assert_eq!(milli(ns(1), 2000).decorrelated_bounds(None, VDuration::MAX), None);
}
