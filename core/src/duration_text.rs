//! Exact, human-readable durations: how fixtures (and JSON reports) write a duration, and a serde module
//! for config fields.
//!
//! ```
//! use std::time::Duration;
//! use timelaw_core::{duration_text, VDuration};
//!
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Config {
//!     #[serde(with = "timelaw_core::duration_text")]
//!     timeout: Duration,
//!     #[serde(with = "timelaw_core::duration_text::option")]
//!     cap: Option<Duration>,
//!     delay: VDuration, // VDuration is written this way without an attribute
//! }
//!
//! let config = Config { timeout: Duration::from_millis(1500), cap: Some(Duration::MAX), delay: VDuration::from_nanos(1) };
//! let text = serde_json::to_string(&config).unwrap();
//! assert_eq!(text, r#"{"timeout":"1.5s","cap":"max","delay":"1ns"}"#);
//! assert_eq!(serde_json::from_str::<Config>(&text).unwrap(), config);
//! // The old form, an integer of nanoseconds, is read too.
//! let old: Config = serde_json::from_str(r#"{"timeout":1500000000,"cap":null,"delay":1}"#).unwrap();
//! assert_eq!(old.timeout, Duration::from_millis(1500));
//! assert_eq!(duration_text::to_text(&Duration::from_nanos(1_000_000_001)), "1.000000001s");
//! ```
//!
//! # Grammar
//! ```text
//! duration := "0" | "max" | digits [ "." digits ] unit
//! unit     := "ns" | "us" | "ms" | "s"
//! ```
//! The fraction may have at most as many digits as the unit has smaller units (`us`: 3, `ms`: 6, `s`: 9,
//! `ns`: none), so every string is a whole number of nanoseconds: the text is exact, never rounded.
//! `"max"` is the largest value of the type being read (`VDuration::MAX`, `u64::MAX` ns; or
//! `std::time::Duration::MAX`); a larger value is an error, never clamped. `"0"` may carry a unit (`"0s"`).
//!
//! Written form: `"0"`, `"max"`, otherwise the largest unit not above the value with the shortest exact
//! fraction (`"999ns"`, `"1.5us"`, `"1ms"`, `"1.000000001s"`, `"90s"`). Reading accepts every string of
//! the grammar and, for files written before durations were text, a JSON integer of nanoseconds.
//!
//! [`signed`] writes signed nanoseconds (`i64`, a wall-clock jump) the same way with an optional `-`.
//!
//! # Hashing form
//! [`with_integer_nanos`] makes every duration written through this module an integer of nanoseconds
//! again, inside one closure on the current thread: fixture names are hashes of that form, so a fixture's
//! name does not change when its file is upgraded to text durations.

use std::cell::Cell;
use std::fmt;
use std::time::Duration;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

use crate::time::{VDuration, VInstant};

/// The units of the grammar, largest first: (name, nanoseconds, fraction digits allowed).
const UNITS: [(&str, u128, usize); 4] = [("s", 1_000_000_000, 9), ("ms", 1_000_000, 6), ("us", 1_000, 3), ("ns", 1, 0)];

/// What a string must look like, for error messages.
pub const EXPECTED: &str =
    "a duration like \"0\", \"250ms\", \"1.5s\", \"1.000000001s\" or \"max\" (units ns, us, ms, s), or an integer of nanoseconds";

/// A duration type this module reads and writes, through its count of nanoseconds.
pub trait TextDuration: Sized {
    /// The type's largest value in nanoseconds (what `"max"` means).
    const MAX_NANOS: u128;
    /// The type's name, for error messages.
    const NAME: &'static str;
    /// The value in nanoseconds.
    fn nanos(&self) -> u128;
    /// The value of `nanos` nanoseconds; only called with `nanos <= MAX_NANOS`.
    fn from_nanos_checked(nanos: u128) -> Self;
}

impl TextDuration for VDuration {
    const MAX_NANOS: u128 = u64::MAX as u128;
    const NAME: &'static str = "VDuration";
    fn nanos(&self) -> u128 {
        u128::from(self.as_nanos())
    }
    fn from_nanos_checked(nanos: u128) -> Self {
        VDuration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}

impl TextDuration for VInstant {
    const MAX_NANOS: u128 = u64::MAX as u128;
    const NAME: &'static str = "VInstant";
    fn nanos(&self) -> u128 {
        u128::from(self.as_nanos())
    }
    fn from_nanos_checked(nanos: u128) -> Self {
        VInstant::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}

impl TextDuration for Duration {
    const MAX_NANOS: u128 = Duration::MAX.as_nanos();
    const NAME: &'static str = "std::time::Duration";
    fn nanos(&self) -> u128 {
        self.as_nanos()
    }
    fn from_nanos_checked(nanos: u128) -> Self {
        let secs = u64::try_from(nanos / 1_000_000_000).unwrap_or(u64::MAX);
        // The remainder of a division by 10^9 fits a u32.
        Duration::new(secs, (nanos % 1_000_000_000) as u32)
    }
}

/// Why a string is not a duration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a {type_name}: {problem}; expected {EXPECTED}")]
pub struct DurationTextError {
    /// The text read.
    pub text: String,
    /// The type it was read as.
    pub type_name: &'static str,
    /// What is wrong with it.
    pub problem: String,
}

/// `value` as an exact string (see the module docs).
pub fn to_text<D: TextDuration>(value: &D) -> String {
    format_nanos(value.nanos(), D::MAX_NANOS)
}

/// Parses `text` (see the module docs) as a `D`.
///
/// # Errors
/// [`DurationTextError`] saying what is wrong: no unit, an unknown unit, too many fraction digits for
/// the unit, a value past the type's maximum.
pub fn from_text<D: TextDuration>(text: &str) -> Result<D, DurationTextError> {
    let fail = |problem: String| DurationTextError { text: text.to_owned(), type_name: D::NAME, problem };
    let nanos = parse_nanos(text, D::MAX_NANOS).map_err(fail)?;
    Ok(D::from_nanos_checked(nanos))
}

/// The text of `nanos` for a type whose maximum is `max_nanos`.
fn format_nanos(nanos: u128, max_nanos: u128) -> String {
    if nanos == 0 {
        return "0".to_owned();
    }
    if nanos == max_nanos {
        return "max".to_owned();
    }
    let (name, unit, digits) = UNITS.into_iter().find(|&(_, unit, _)| nanos >= unit).unwrap_or(UNITS[3]);
    let (whole, fraction) = (nanos / unit, nanos % unit);
    if fraction == 0 {
        return format!("{whole}{name}");
    }
    let fraction = format!("{fraction:0digits$}");
    format!("{whole}.{}{name}", fraction.trim_end_matches('0'))
}

/// The nanoseconds of `text`, at most `max_nanos`; the error is the problem, without the text.
fn parse_nanos(text: &str, max_nanos: u128) -> Result<u128, String> {
    if text == "max" {
        return Ok(max_nanos);
    }
    if text == "0" {
        return Ok(0);
    }
    let number_end = text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len());
    let (number, unit_name) = text.split_at(number_end);
    if number.is_empty() {
        return Err("it does not start with a number".to_owned());
    }
    let Some(&(_, unit, digits)) = UNITS.iter().find(|(name, _, _)| *name == unit_name) else {
        return Err(match unit_name {
            "" => "the unit is missing".to_owned(),
            other => format!("`{other}` is not a unit"),
        });
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() || (number.contains('.') && fraction.is_empty()) || fraction.contains('.') {
        return Err(format!("`{number}` is not a number of the form 12 or 1.5"));
    }
    if fraction.len() > digits {
        return Err(format!("`{unit_name}` takes at most {digits} digits after the point (whole nanoseconds)"));
    }
    let past_max = || format!("it is past the largest {}", format_nanos(max_nanos, u128::MAX));
    let whole: u128 = whole.parse().map_err(|_| past_max())?;
    // At most 9 digits: the fraction always parses, and scaled it stays below the unit.
    let fraction_nanos = match fraction {
        "" => 0,
        digits_text => digits_text.parse::<u128>().unwrap_or(0) * 10u128.pow((digits - digits_text.len()) as u32),
    };
    let nanos = whole.checked_mul(unit).and_then(|n| n.checked_add(fraction_nanos)).ok_or_else(past_max)?;
    if nanos > max_nanos {
        return Err(past_max());
    }
    Ok(nanos)
}

thread_local! {
    static INTEGER_NANOS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with every duration written through this module written as an integer of nanoseconds (the
/// form of fixture format version 1), on this thread; restores the text form afterwards, even on panic.
pub fn with_integer_nanos<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            INTEGER_NANOS.with(|flag| flag.set(self.0));
        }
    }
    let _restore = Restore(INTEGER_NANOS.with(|flag| flag.replace(true)));
    f()
}

/// `true` inside [`with_integer_nanos`] on this thread: for hand-written `Serialize` impls that must also
/// write the older form (a field renamed when durations became text).
pub fn integer_nanos() -> bool {
    INTEGER_NANOS.with(Cell::get)
}

/// Serializes a duration as its text (for `#[serde(with = "timelaw_core::duration_text")]`).
///
/// # Errors
/// Only the serializer's own errors.
pub fn serialize<D: TextDuration, S: Serializer>(value: &D, serializer: S) -> Result<S::Ok, S::Error> {
    if integer_nanos() {
        return match u64::try_from(value.nanos()) {
            Ok(nanos) => serializer.serialize_u64(nanos),
            Err(_) => serializer.serialize_u128(value.nanos()),
        };
    }
    serializer.collect_str(&format_args!("{}", to_text(value)))
}

/// Deserializes a duration from its text or an integer of nanoseconds.
///
/// # Errors
/// A string outside the grammar, a negative or too large integer, any other JSON type; each message says
/// what was expected.
pub fn deserialize<'de, D: TextDuration, De: Deserializer<'de>>(deserializer: De) -> Result<D, De::Error> {
    deserializer.deserialize_any(TextVisitor(std::marker::PhantomData))
}

struct TextVisitor<D>(std::marker::PhantomData<D>);

impl<D: TextDuration> TextVisitor<D> {
    fn nanos<E: de::Error>(nanos: u128) -> Result<D, E> {
        if nanos > D::MAX_NANOS {
            let max = format_nanos(D::MAX_NANOS, u128::MAX);
            return Err(E::custom(format_args!("{nanos} ns is past the largest {} ({max})", D::NAME)));
        }
        Ok(D::from_nanos_checked(nanos))
    }
}

impl<'de, D: TextDuration> Visitor<'de> for TextVisitor<D> {
    type Value = D;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<D, E> {
        from_text(text).map_err(E::custom)
    }
    fn visit_u64<E: de::Error>(self, nanos: u64) -> Result<D, E> {
        Self::nanos(u128::from(nanos))
    }
    fn visit_u128<E: de::Error>(self, nanos: u128) -> Result<D, E> {
        Self::nanos(nanos)
    }
    fn visit_i64<E: de::Error>(self, nanos: i64) -> Result<D, E> {
        match u64::try_from(nanos) {
            Ok(nanos) => Self::nanos(u128::from(nanos)),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(nanos), &self)),
        }
    }
}

/// The same for `Option<D>` fields: `null` is `None`
/// (`#[serde(default, with = "timelaw_core::duration_text::option")]`).
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::TextDuration;

    /// Serializes `None` as `null`, a value as its text.
    ///
    /// # Errors
    /// Only the serializer's own errors.
    pub fn serialize<D: TextDuration, S: Serializer>(value: &Option<D>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => super::serialize(value, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Deserializes `null` as `None`, anything else as [`super::deserialize`] does.
    ///
    /// # Errors
    /// As [`super::deserialize`].
    pub fn deserialize<'de, D: TextDuration, De: Deserializer<'de>>(deserializer: De) -> Result<Option<D>, De::Error> {
        struct Wrapped<D>(D);
        impl<'de, D: TextDuration> Deserialize<'de> for Wrapped<D> {
            fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
                super::deserialize(deserializer).map(Wrapped)
            }
        }
        Ok(Option::<Wrapped<D>>::deserialize(deserializer)?.map(|Wrapped(value)| value))
    }
}

/// Signed nanoseconds (`i64`) as text with an optional leading `-` (`"-1.5s"`), or an integer.
pub mod signed {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    use super::{format_nanos, integer_nanos, parse_nanos, DurationTextError, EXPECTED};

    const MAX: u128 = i64::MAX as u128;

    /// The text of `nanos`: `"0"`, or the magnitude's text (never `"max"`) with a `-` when negative.
    pub fn to_text(nanos: i64) -> String {
        let text = format_nanos(u128::from(nanos.unsigned_abs()), u128::MAX);
        if nanos < 0 {
            format!("-{text}")
        } else {
            text
        }
    }

    /// Parses the text of signed nanoseconds.
    ///
    /// # Errors
    /// [`DurationTextError`]: what is wrong, as for unsigned text, or a value outside `i64` nanoseconds.
    pub fn from_text(text: &str) -> Result<i64, DurationTextError> {
        let (negative, magnitude) = text.strip_prefix('-').map_or((false, text), |rest| (true, rest));
        let limit = if negative { MAX + 1 } else { MAX };
        let nanos = parse_nanos(magnitude, u128::MAX).and_then(|nanos| {
            (nanos <= limit).then_some(nanos).ok_or_else(|| "it is outside ±9223372036.854775807s".to_owned())
        });
        let nanos = nanos.map_err(|problem| DurationTextError {
            text: text.to_owned(),
            type_name: "signed duration",
            problem,
        })?;
        // nanos <= 2^63, so the magnitude fits i128 and the signed value fits i64.
        let signed = if negative { -(nanos as i128) } else { nanos as i128 };
        Ok(signed as i64)
    }

    /// Serializes signed nanoseconds as text.
    ///
    /// # Errors
    /// Only the serializer's own errors.
    pub fn serialize<S: Serializer>(nanos: &i64, serializer: S) -> Result<S::Ok, S::Error> {
        if integer_nanos() {
            return serializer.serialize_i64(*nanos);
        }
        serializer.collect_str(&to_text(*nanos))
    }

    /// Deserializes signed nanoseconds from text or an integer.
    ///
    /// # Errors
    /// As [`from_text`]; any other JSON type.
    pub fn deserialize<'de, De: Deserializer<'de>>(deserializer: De) -> Result<i64, De::Error> {
        deserializer.deserialize_any(SignedVisitor)
    }

    struct SignedVisitor;

    impl Visitor<'_> for SignedVisitor {
        type Value = i64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{EXPECTED}, with an optional leading `-`")
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<i64, E> {
            from_text(text).map_err(E::custom)
        }
        fn visit_i64<E: de::Error>(self, nanos: i64) -> Result<i64, E> {
            Ok(nanos)
        }
        fn visit_u64<E: de::Error>(self, nanos: u64) -> Result<i64, E> {
            i64::try_from(nanos).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(nanos), &self))
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[track_caller]
    fn check(text: &str, expect: &str) {
        let found = match from_text::<Duration>(text) {
            Ok(value) => format!("{value:?} = {}", to_text(&value)),
            Err(error) => error.problem,
        };
        assert_eq!(found, expect);
    }

    #[test]
    fn grammar_reads_exact_values_and_says_what_is_wrong() {
        check("0", "0ns = 0");
        check("0s", "0ns = 0");
        check("1ns", "1ns = 1ns");
        check("999ns", "999ns = 999ns");
        check("1.5us", "1.5µs = 1.5us");
        check("1000us", "1ms = 1ms");
        check("1ms", "1ms = 1ms");
        check("1.5s", "1.5s = 1.5s");
        check("1500ms", "1.5s = 1.5s");
        check("1.000000001s", "1.000000001s = 1.000000001s");
        check("90s", "90s = 90s");
        check("max", "18446744073709551615.999999999s = max");
        check("18446744073709551615.999999998s", "18446744073709551615.999999998s = 18446744073709551615.999999998s");
        check("18446744073709551616s", "it is past the largest 18446744073709551615.999999999s");
        check("5", "the unit is missing");
        check("5m", "`m` is not a unit");
        check("5 ms", "` ms` is not a unit");
        check("ms", "it does not start with a number");
        check("-1s", "it does not start with a number");
        check("1.5ns", "`ns` takes at most 0 digits after the point (whole nanoseconds)");
        check("1.0000000001s", "`s` takes at most 9 digits after the point (whole nanoseconds)");
        check(".5s", "`.5` is not a number of the form 12 or 1.5");
        check("5.s", "`5.` is not a number of the form 12 or 1.5");
        check("1.2.3s", "`1.2.3` is not a number of the form 12 or 1.5");
        check("99999999999999999999999999999999999999999s", "it is past the largest 18446744073709551615.999999999s");
    }

    #[test]
    fn each_type_has_its_own_maximum() {
        assert_eq!(to_text(&VDuration::MAX), "max");
        assert_eq!(from_text::<VDuration>("max"), Ok(VDuration::MAX));
        assert_eq!(from_text::<VDuration>("18446744073.709551615s"), Ok(VDuration::MAX));
        assert_eq!(to_text(&Duration::from_nanos(u64::MAX)), "18446744073.709551615s");
        assert_eq!(to_text(&VInstant::END), "max");
        let error = from_text::<VDuration>("18446744073.709551616s").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("`18446744073.709551616s` is not a VDuration: it is past the largest 18446744073.709551615s; expected {EXPECTED}")
        );
    }

    #[track_caller]
    fn check_json<T: serde::de::DeserializeOwned + fmt::Debug>(json: &str, expect: &str) {
        let found = match serde_json::from_str::<T>(json) {
            Ok(value) => format!("{value:?}"),
            Err(error) => error.to_string(),
        };
        assert_eq!(found, expect);
    }

    #[test]
    fn serde_reads_text_and_old_integers() {
        check_json::<VDuration>("1000000", "1ms");
        check_json::<VDuration>("\"1ms\"", "1ms");
        check_json::<VDuration>("18446744073709551615", "forever");
        check_json::<VDuration>("-1", &format!("invalid value: integer `-1`, expected {EXPECTED} at line 1 column 2"));
        check_json::<VDuration>(
            "1.5",
            &format!("invalid type: floating point `1.5`, expected {EXPECTED} at line 1 column 3"),
        );
        check_json::<VDuration>(
            "true",
            &format!("invalid type: boolean `true`, expected {EXPECTED} at line 1 column 4"),
        );
        check_json::<VInstant>("\"2s\"", "t=2s");
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)] // Read by serde only.
        struct Jump(#[serde(with = "signed")] i64);
        check_json::<Jump>("\"-1.5s\"", "Jump(-1500000000)");
        check_json::<Jump>("-7", "Jump(-7)");
        check_json::<Jump>("\"-9223372036.854775808s\"", "Jump(-9223372036854775808)");
        check_json::<Jump>(
            "\"9223372036.854775808s\"",
            &format!("`9223372036.854775808s` is not a signed duration: it is outside ±9223372036.854775807s; expected {EXPECTED} at line 1 column 23"),
        );
    }

    #[test]
    fn integer_form_is_scoped_to_the_closure() {
        let value = Some(Duration::MAX);
        let text = |value: &Option<Duration>| {
            let mut out = Vec::new();
            option::serialize(value, &mut serde_json::Serializer::new(&mut out)).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(with_integer_nanos(|| text(&value)), "18446744073709551615999999999");
        assert_eq!(text(&value), "\"max\"");
        assert_eq!(with_integer_nanos(|| serde_json::to_string(&VDuration::from_millis(1)).unwrap()), "1000000");
    }

    /// A value of `0..=max`, boundaries and small values often.
    fn nanos_up_to(max: u128) -> impl Strategy<Value = u128> {
        let boundaries: Vec<u128> = [0, 1, 999, 1_000, 999_999, 1_000_000, 999_999_999, 1_000_000_000]
            .into_iter()
            .chain([u128::from(u32::MAX), u128::from(u64::MAX), max - 1, max])
            .chain([1_000u128, 1_000_000, 1_000_000_000].map(|unit| u128::from(u64::MAX) * unit))
            .filter(|&n| n <= max)
            .collect();
        prop_oneof![proptest::sample::select(boundaries), 0..=max, 0..1_000_000_000_000u128]
    }

    proptest! {
        #[test]
        fn text_round_trips_every_std_duration(nanos in nanos_up_to(Duration::MAX_NANOS)) {
            let value = Duration::from_nanos_checked(nanos);
            prop_assert_eq!(value.as_nanos(), nanos);
            let text = to_text(&value);
            prop_assert_eq!(from_text::<Duration>(&text), Ok(value));
            let json = serde_json::to_string(&Some(Wrap(value))).unwrap();
            prop_assert_eq!(serde_json::from_str::<Option<Wrap>>(&json).unwrap(), Some(Wrap(value)));
        }

        #[test]
        fn text_round_trips_every_vduration_and_instant(nanos in nanos_up_to(VDuration::MAX_NANOS)) {
            let value = VDuration::from_nanos_checked(nanos);
            let json = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(serde_json::from_str::<VDuration>(&json).unwrap(), value);
            prop_assert_eq!(serde_json::from_str::<VDuration>(&nanos.to_string()).unwrap(), value);
            let instant = VInstant::from_nanos_checked(nanos);
            prop_assert_eq!(serde_json::from_str::<VInstant>(&serde_json::to_string(&instant).unwrap()).unwrap(), instant);
        }

        #[test]
        fn text_round_trips_every_signed_value(nanos in any::<i64>()) {
            prop_assert_eq!(signed::from_text(&signed::to_text(nanos)), Ok(nanos));
        }
    }

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct Wrap(#[serde(with = "super")] Duration);
}
