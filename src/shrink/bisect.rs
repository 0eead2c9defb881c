//! The pass `bisect_config`: a config field moved to the exact threshold between its value and the
//! nearest simpler value its domain offers, for a domain that lists no numbers of its own (an adapter,
//! the short `timelaw::subject(..)` form).
//!
//! A domain's own shrink candidates ([`ConfigDomain::shrink_config`]) jump: zero, 1 ns, a boundary value,
//! a power of two, the default. Where the finding holds at the nearest such value, the case stopped
//! wherever its start left the field (a 20.415 s elapsed-time limit, a 1.048576 ms interval), so each
//! start of one bug stopped at another minimum. A domain with numbers of its own has them searched to
//! the nanosecond by `shrink_numbers`; this pass gives every other domain a search too, from its
//! candidates alone: for each candidate that differs from the config in exactly one field, an integer or
//! a duration (read from the config's serialized form, the form a fixture holds), the field is moved to
//! the next value of the grid ([`GRID_BITS`]) towards the candidate's and, where that still fails,
//! searched between the two by bisection over the grid: the grid value nearest the candidate's that
//! still fails is kept. Every value tried lies between two values of the domain, towards the one its
//! domain calls simpler.
//!
//! Why a grid and not the exact threshold: below `2^GRID_BITS` every integer is on it (a count, a delay
//! up to about 1 ms, are searched exactly), and above it a value keeps its `GRID_BITS` leading bits. A
//! threshold near `Duration::MAX` that depends on the machine (an `Instant` overflow, whose base is the
//! process's monotonic clock, so it moves with the machine's uptime) is then pinned at the first grid
//! value past it, the same on every machine, and replays there; the exact threshold would not. The
//! result is the smallest (largest, upwards) grid value past the threshold whatever the start, so each
//! start of one bug reaches one minimum.
//!
//! [`one_grid_step_closer`] is the first of those moves, for [`super::moves`]: a pinned minimum of such a
//! domain is 1-minimal only if no field is one grid step from a threshold it could still cross.

use std::time::Duration;

use serde_json::Value;
use timelaw_core::duration_text;
use timelaw_generators::ConfigDomain;

use super::engine::Shrinker;

/// Where a field sits in a config's serialized form: keys and list indices from the root.
type Path = Vec<Step>;

/// One step of a [`Path`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The kind of number a field holds: a JSON integer, or a duration written as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Integer,
    Duration,
}

/// A field that can move towards a simpler value: its path, kind, value and the nearest value a
/// simpler candidate gives it (in nanoseconds for a duration).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Field {
    path: Path,
    kind: Kind,
    value: u128,
    toward: u128,
}

/// How many fields of one config the pass searches, at most.
const FIELDS_MAX: usize = 32;

/// The significant bits a grid value keeps (see the module docs): every integer below `2^20`
/// (1,048,576; about 1 ms in nanoseconds), and above it a relative step of at most `2^-19`.
pub const GRID_BITS: u32 = 20;

/// The grid step at `value`: 1 below `2^GRID_BITS`, else the weight of the lowest bit a grid value of
/// `value`'s length keeps.
fn grid_step(value: u128) -> u128 {
    let length = u128::BITS - value.leading_zeros();
    1 << length.saturating_sub(GRID_BITS)
}

/// The largest grid value below `value` (`value > 0`).
fn grid_below(value: u128) -> u128 {
    let lower = value - 1;
    lower - lower % grid_step(lower)
}

/// The smallest grid value above `value`.
fn grid_above(value: u128) -> u128 {
    let higher = value.saturating_add(1);
    let step = grid_step(higher);
    match higher % step {
        0 => higher,
        rest => higher.saturating_add(step - rest),
    }
}

/// The grid value next to `from` towards `to`.
fn grid_towards(from: u128, to: u128) -> u128 {
    if to < from {
        grid_below(from).max(to)
    } else {
        grid_above(from).min(to)
    }
}

/// The grid value nearest the middle of `failing` and `holding`, strictly between them, when there is one.
fn grid_between(failing: u128, holding: u128) -> Option<u128> {
    let middle = step_towards(failing, holding, failing.abs_diff(holding) / 2);
    let (low, high) = (failing.min(holding), failing.max(holding));
    // The grid value at or past the middle on the failing side, else the first past `holding`.
    let candidates = if holding < failing {
        [if middle.is_multiple_of(grid_step(middle)) { middle } else { grid_above(middle) }, grid_above(holding)]
    } else {
        [middle - middle % grid_step(middle), grid_below(holding)]
    };
    candidates.into_iter().find(|&value| low < value && value < high)
}

/// The pass (see the module docs): whether it kept a candidate.
pub(super) fn bisect_config<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>) -> bool {
    let mut progress = false;
    let paths: Vec<Path> = fields(shrinker.subject, &shrinker.best.config).into_iter().map(|f| f.path).collect();
    for path in paths {
        if shrinker.out_of_budget() {
            break;
        }
        let now = fields(shrinker.subject, &shrinker.best.config);
        if let Some(field) = now.into_iter().find(|field| field.path == path) {
            progress |= bisect_field(shrinker, &field);
        }
    }
    progress
}

/// Moves `field` of the best config one unit towards its simpler value and, where that still fails,
/// bisects between the two: the value nearest the simpler one that still fails is kept.
fn bisect_field<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, field: &Field) -> bool {
    let probe = grid_towards(field.value, field.toward);
    if probe == field.toward || !attempt_value(shrinker, field, probe) {
        return false;
    }
    // `failing` still fails; `holding` is the simpler side, not yet known to fail.
    let (mut failing, mut holding) = (probe, field.toward);
    while let Some(middle) = grid_between(failing, holding) {
        if shrinker.out_of_budget() {
            break;
        }
        if attempt_value(shrinker, field, middle) {
            failing = middle;
        } else {
            holding = middle;
        }
    }
    true
}

/// Tries the best case with `field` set to `value`; whether it was kept.
fn attempt_value<S: ConfigDomain + ?Sized>(shrinker: &mut Shrinker<'_, S>, field: &Field, value: u128) -> bool {
    let Some(config) = with_value::<S>(&shrinker.best.config, field, value) else { return false };
    let mut candidate = shrinker.best.clone();
    candidate.config = config;
    shrinker.attempt(candidate)
}

/// `from` moved `by` towards `to` (never past it).
fn step_towards(from: u128, to: u128, by: u128) -> u128 {
    if to < from {
        from - by.min(from - to)
    } else {
        from + by.min(to - from)
    }
}

/// `config` with each field one grid step nearer the nearest simpler value its domain offers for it (see
/// the module docs), named for the move's list; none for a domain with numbers of its own.
pub(super) fn one_grid_step_closer<S: ConfigDomain + ?Sized>(
    subject: &S,
    config: &S::Config,
) -> Vec<(String, S::Config)> {
    let mut out = Vec::new();
    for field in fields(subject, config) {
        let probe = grid_towards(field.value, field.toward);
        if probe == field.toward {
            continue;
        }
        if let Some(next) = with_value::<S>(config, &field, probe) {
            out.push((format!("{} one grid step towards {}", shown(&field.path), field.toward), next));
        }
    }
    out
}

/// The fields of `config` a simpler candidate changes alone, each with its nearest simpler value; none
/// for a domain with numbers of its own (they are searched by `shrink_numbers`).
fn fields<S: ConfigDomain + ?Sized>(subject: &S, config: &S::Config) -> Vec<Field> {
    if !subject.config_numbers(config).is_empty() {
        return Vec::new();
    }
    let Ok(base) = serde_json::to_value(config) else { return Vec::new() };
    let mut found: Vec<Field> = Vec::new();
    for candidate in subject.shrink_config(config) {
        let Ok(other) = serde_json::to_value(&candidate) else { continue };
        let Some(field) = single_difference(&base, &other) else { continue };
        let nearer = |known: &Field| field.value.abs_diff(field.toward) < known.value.abs_diff(known.toward);
        match found.iter().position(|known| known.path == field.path) {
            Some(index) if nearer(&found[index]) => found[index] = field,
            Some(_) => {}
            None if found.len() < FIELDS_MAX => found.push(field),
            None => {}
        }
    }
    found
}

/// The one numeric field in which `base` and `other` differ, with `base`'s value and `other`'s as the
/// value to move towards; `None` when they differ elsewhere, in more than one field, or not in a number.
fn single_difference(base: &Value, other: &Value) -> Option<Field> {
    let mut differences = Vec::new();
    collect_differences(base, other, &mut Vec::new(), &mut differences);
    let [(path, from, to)] = <[_; 1]>::try_from(differences).ok()?;
    let (kind, value) = number(&from)?;
    let (other_kind, toward) = number(&to)?;
    (kind == other_kind).then_some(Field { path, kind, value, toward })
}

/// Every place where `a` and `b` differ, with both values (a structural difference counts as one,
/// at the place where the shapes part).
fn collect_differences(a: &Value, b: &Value, path: &mut Path, out: &mut Vec<(Path, Value, Value)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() && x.keys().all(|key| y.contains_key(key)) => {
            for (key, value) in x {
                path.push(Step::Key(key.clone()));
                collect_differences(value, &y[key], path, out);
                path.pop();
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (index, (value, other)) in x.iter().zip(y).enumerate() {
                path.push(Step::Index(index));
                collect_differences(value, other, path, out);
                path.pop();
            }
        }
        _ if a == b => {}
        _ => out.push((path.clone(), a.clone(), b.clone())),
    }
}

/// A field's number: an unsigned JSON integer, or a duration's text in nanoseconds.
fn number(value: &Value) -> Option<(Kind, u128)> {
    match value {
        Value::Number(number) => number.as_u64().map(|n| (Kind::Integer, u128::from(n))),
        Value::String(text) => duration_text::from_text::<Duration>(text).ok().map(|d| (Kind::Duration, d.as_nanos())),
        _ => None,
    }
}

/// `config` with `field` set to `value`, when the result reads back as a config.
fn with_value<S: ConfigDomain + ?Sized>(config: &S::Config, field: &Field, value: u128) -> Option<S::Config> {
    let mut tree = serde_json::to_value(config).ok()?;
    let slot = field.path.iter().try_fold(&mut tree, |node, step| match step {
        Step::Key(key) => node.get_mut(key.as_str()),
        Step::Index(index) => node.get_mut(*index),
    })?;
    *slot = match field.kind {
        Kind::Integer => Value::from(u64::try_from(value).ok()?),
        Kind::Duration => Value::String(duration_text::to_text(&duration(value)?)),
    };
    serde_json::from_value(tree).ok()
}

/// `nanos` as a `std::time::Duration`, when it fits.
fn duration(nanos: u128) -> Option<Duration> {
    let secs = u64::try_from(nanos / 1_000_000_000).ok()?;
    Some(Duration::new(secs, (nanos % 1_000_000_000) as u32))
}

/// A path as `strategy.fixed.interval`.
fn shown(path: &Path) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|step| match step {
            Step::Key(key) => key.clone(),
            Step::Index(index) => index.to_string(),
        })
        .collect();
    parts.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_numeric_difference_is_a_field() {
        let base = json!({"a": 5, "b": {"c": "1.5ms"}});
        let field = single_difference(&base, &json!({"a": 5, "b": {"c": "1ms"}})).unwrap();
        assert_eq!((field.kind, field.value, field.toward), (Kind::Duration, 1_500_000, 1_000_000));
        assert_eq!(shown(&field.path), "b.c");
        let field = single_difference(&base, &json!({"a": 3, "b": {"c": "1.5ms"}})).unwrap();
        assert_eq!((field.kind, field.value, field.toward), (Kind::Integer, 5, 3));
        // Two fields, another shape, a float or a kind that changes: no field.
        assert_eq!(single_difference(&base, &json!({"a": 3, "b": {"c": "1ms"}})), None);
        assert_eq!(single_difference(&base, &json!({"a": 5, "b": null})), None);
        assert_eq!(single_difference(&json!({"a": 0.5}), &json!({"a": 0.25})), None);
        assert_eq!(single_difference(&base, &json!({"a": "5ns", "b": {"c": "1.5ms"}})), None);
    }

    #[test]
    fn steps_never_pass_their_target() {
        assert_eq!(step_towards(10, 3, 1), 9);
        assert_eq!(step_towards(10, 3, 100), 3);
        assert_eq!(step_towards(3, 10, 4), 7);
        assert_eq!(step_towards(3, 10, 100), 10);
        assert_eq!(duration(u128::from(u64::MAX) * 1_000_000_000 + 999_999_999), Some(Duration::MAX));
        assert_eq!(duration(u128::from(u64::MAX) * 1_000_000_000 + 1_000_000_000), None);
    }

    #[test]
    fn the_grid_keeps_every_small_integer_and_twenty_leading_bits() {
        assert_eq!((grid_below(5), grid_above(5), grid_step(1 << 19)), (4, 6, 1));
        assert_eq!(grid_step(1 << 20), 2);
        assert_eq!((grid_below((1 << 20) + 1), grid_above(1 << 20)), (1 << 20, (1 << 20) + 2));
        let big = 1_u128 << 93;
        assert_eq!((grid_below(big), grid_above(big)), (big - (1 << 73), big + (1 << 74)));
        assert_eq!(grid_towards(big + 12345, 0), big);
        assert_eq!(grid_towards(3, 10), 4);
        // Between a failing and a holding value: strictly inside, on the grid, none when adjacent.
        assert_eq!(grid_between(100, 0), Some(50));
        assert_eq!(grid_between(0, 100), Some(50));
        assert_eq!(grid_between(5, 4), None);
        let inside = grid_between(big + (1 << 75), big).unwrap();
        assert!(big < inside && inside < big + (1 << 75) && inside.is_multiple_of(grid_step(inside)));
        assert_eq!(grid_between(big + (1 << 74), big), None);
    }

    /// The bisection over the grid ends at the grid value nearest the threshold on its failing side,
    /// whatever the start.
    #[test]
    fn the_search_ends_at_one_grid_value_whatever_the_start() {
        let threshold = (1_u128 << 93) + 987_654_321_987_654_321;
        let search = |start: u128| {
            let (mut failing, mut holding) = (start, 0);
            while let Some(middle) = grid_between(failing, holding) {
                if middle >= threshold {
                    failing = middle;
                } else {
                    holding = middle;
                }
            }
            failing
        };
        let ends: Vec<u128> = [1_u128 << 94, (1 << 94) - 1, threshold + (1 << 80), threshold + (3 << 74)]
            .into_iter()
            .map(search)
            .collect();
        assert!(ends.iter().all(|&end| end == ends[0]), "{ends:?}");
        assert!(ends[0] >= threshold && grid_below(ends[0]) < threshold, "{ends:?}");
    }
}
