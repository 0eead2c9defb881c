//! Every standard law and every contract field has exactly one mechanism, in one table.

use timelaw_core::Contract;
use timelaw_laws::catalogue::{field_mechanism, CONTRACT_FIELDS, LAW_MECHANISMS, STANDARD};
use timelaw_laws::{ids, mechanism_of, Mechanism};

#[track_caller]
fn check(id: &str, expect: Option<Mechanism>) {
    assert_eq!(mechanism_of(id), expect, "{id}");
}

#[test]
fn laws_have_their_mechanism() {
    check(ids::ATTEMPTS_WITHIN_MAX, Some(Mechanism::Retry));
    check(ids::JITTER_WITHIN_BOUNDS, Some(Mechanism::Delays));
    check(ids::INTERRUPT_TIE_AS_DECLARED, Some(Mechanism::Timing));
    check(ids::RETRY_AFTER_AS_DECLARED, Some(Mechanism::RateLimit));
    check(ids::CIRCUIT_PROBE_SLOT_FREED, Some(Mechanism::Circuit));
    check(ids::RETRY_BUDGET_ADMITS_WITH_ROOM, Some(Mechanism::Budget));
    check(ids::FAILED_READ_HANDLED_AS_DECLARED, Some(Mechanism::Clocks));
    check(ids::NEVER_PANICS, Some(Mechanism::Meta));
    check("a_users_own_law", None);
}

#[test]
fn every_standard_law_has_one_mechanism_in_catalogue_order() {
    let table: Vec<&str> = LAW_MECHANISMS.iter().map(|(id, _)| *id).collect();
    assert_eq!(table, ids::ALL, "one entry per standard law, in catalogue order");
    for law in &STANDARD {
        assert!(mechanism_of(law.id).is_some(), "law `{}` has no mechanism", law.id);
    }
    for mechanism in Mechanism::ALL {
        assert!(LAW_MECHANISMS.iter().any(|(_, m)| *m == mechanism), "no law in {mechanism}");
    }
}

#[test]
fn every_contract_field_has_one_mechanism() {
    let value = serde_json::to_value(Contract::default()).unwrap();
    let mut fields: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    let mut table: Vec<&str> = CONTRACT_FIELDS.iter().map(|(name, _)| *name).collect();
    fields.sort_unstable();
    table.sort_unstable();
    assert_eq!(table, fields, "one entry per contract field");
    for law in &STANDARD {
        for field in law.needs {
            assert!(field_mechanism(field).is_some(), "law `{}` needs `{field}`, which is no contract field", law.id);
        }
    }
}
