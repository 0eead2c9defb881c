//! [`Declared`]: whether a contract states a mechanism (absent, present with unstated parameters, stated),
//! and its JSON form.
//!
//! The JSON form is `null` for absent, `"unstated"` for unstated, and the parameters' own object for
//! stated, so the flat contracts of before the grouping (`"circuit": null` or `"circuit": {...}`) read
//! unchanged, and an unknown field inside the parameters is named by the parameters' own error.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Whether a contract states a mechanism: "unknown" is not "absent". A contract can say a mechanism exists
/// without stating its parameters ([`Declared::Unstated`]): laws that need the parameters are then not
/// applicable, and so are liveness laws that assume the mechanism's absence (a breaker nobody described
/// may refuse calls).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Declared<T> {
    /// The subject has no such mechanism (the docs describe none).
    #[default]
    Absent,
    /// "It has one" (a circuit breaker, a retry budget) with no stated parameters.
    Unstated,
    /// The mechanism with the parameters its docs state.
    Stated(T),
}

impl<T> Declared<T> {
    /// The stated parameters; `None` when absent or unstated.
    pub const fn stated(&self) -> Option<&T> {
        match self {
            Declared::Stated(parameters) => Some(parameters),
            _ => None,
        }
    }

    /// The stated parameters by value; `None` when absent or unstated.
    pub fn into_stated(self) -> Option<T> {
        match self {
            Declared::Stated(parameters) => Some(parameters),
            _ => None,
        }
    }

    /// The stated parameters, to change them in place; `None` when absent or unstated.
    pub fn stated_mut(&mut self) -> Option<&mut T> {
        match self {
            Declared::Stated(parameters) => Some(parameters),
            _ => None,
        }
    }

    /// `true` when the subject has the mechanism, stated or not.
    pub const fn is_present(&self) -> bool {
        !matches!(self, Declared::Absent)
    }

    /// `true` when the subject has no such mechanism.
    pub const fn is_absent(&self) -> bool {
        matches!(self, Declared::Absent)
    }

    /// `true` when the parameters are stated.
    pub const fn is_stated(&self) -> bool {
        matches!(self, Declared::Stated(_))
    }

    /// `true` when the subject has the mechanism without stating its parameters.
    pub const fn is_unstated(&self) -> bool {
        matches!(self, Declared::Unstated)
    }

    /// The stated parameters changed by `change`; absent and unstated stay as they are.
    pub fn map<U>(self, change: impl FnOnce(T) -> U) -> Declared<U> {
        match self {
            Declared::Absent => Declared::Absent,
            Declared::Unstated => Declared::Unstated,
            Declared::Stated(parameters) => Declared::Stated(change(parameters)),
        }
    }
}

impl<T> From<Option<T>> for Declared<T> {
    /// `Some` is stated, `None` absent.
    fn from(parameters: Option<T>) -> Declared<T> {
        parameters.map_or(Declared::Absent, Declared::Stated)
    }
}

/// The word the JSON form uses for [`Declared::Unstated`].
const UNSTATED: &str = "unstated";

impl<T: Serialize> Serialize for Declared<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Declared::Absent => serializer.serialize_none(),
            Declared::Unstated => serializer.serialize_str(UNSTATED),
            Declared::Stated(parameters) => parameters.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Declared<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Declared<T>, D::Error> {
        deserializer.deserialize_any(DeclaredVisitor(PhantomData))
    }
}

/// Reads `null`, `"unstated"` (or `"absent"`) and the parameters' object.
struct DeclaredVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for DeclaredVisitor<T> {
    type Value = Declared<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("null (absent), \"unstated\", or the mechanism's parameters as an object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Declared<T>, E> {
        Ok(Declared::Absent)
    }

    fn visit_none<E: de::Error>(self) -> Result<Declared<T>, E> {
        Ok(Declared::Absent)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Declared<T>, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_str<E: de::Error>(self, word: &str) -> Result<Declared<T>, E> {
        match word {
            UNSTATED => Ok(Declared::Unstated),
            "absent" => Ok(Declared::Absent),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Declared<T>, M::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Declared::Stated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::BudgetContract;

    #[track_caller]
    fn check(json: &str, expect: Result<Declared<BudgetContract>, &str>) {
        let read = serde_json::from_str::<Declared<BudgetContract>>(json).map_err(|error| error.to_string());
        match (read, expect) {
            (Ok(read), Ok(expect)) => {
                assert_eq!(read, expect);
                let written = serde_json::to_string(&read).unwrap();
                assert_eq!(serde_json::from_str::<Declared<BudgetContract>>(&written).unwrap(), read, "{written}");
            }
            (Err(error), Err(part)) => assert!(error.contains(part), "{error} should contain {part}"),
            (read, expect) => panic!("{json}: read {read:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn json_forms() {
        let budget = BudgetContract { min_retries: 1, retry_percent: 20, ..BudgetContract::default() };
        check("null", Ok(Declared::Absent));
        check("\"absent\"", Ok(Declared::Absent));
        check("\"unstated\"", Ok(Declared::Unstated));
        check(r#"{"min_retries": 1, "retry_percent": 20}"#, Ok(Declared::Stated(budget)));
        check(r#"{"min_retries": 1, "retry_percent": 20, "ttl": 3}"#, Err("unknown field `ttl`"));
        check("\"maybe\"", Err("invalid value: string \"maybe\""));
        check("7", Err("invalid type"));
    }

    #[test]
    fn accessors() {
        let stated = Declared::Stated(3);
        assert_eq!((stated.stated(), stated.into_stated()), (Some(&3), Some(3)));
        assert!(stated.is_present() && stated.is_stated() && !stated.is_unstated());
        let unstated: Declared<u8> = Declared::Unstated;
        assert!(unstated.is_present() && unstated.is_unstated() && unstated.stated().is_none());
        assert!(!Declared::<u8>::Absent.is_present());
        assert_eq!(Declared::from(Some(2)).map(|n| n * 2), Declared::Stated(4));
        assert_eq!(Declared::<u8>::from(None), Declared::Absent);
        assert_eq!(Declared::<u8>::Unstated.map(|n| n * 2), Declared::Unstated);
    }
}
