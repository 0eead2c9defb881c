//! Every standard law and every contract field has exactly one mechanism, in one table.

use timelaw_core::{
    BudgetContract, BulkheadContract, CircuitContract, CircuitPolicy, Contract, CooldownTie, Declared, HedgeContract,
    LimiterContract, LimiterWindow, OpenShape, ProbeSettle, TimingContract, VDuration,
};
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

const PLAIN_BULKHEAD: BulkheadContract = BulkheadContract::new(2, 1);
const PLAIN_LIMITER: LimiterContract = LimiterContract::token_bucket(2, VDuration::from_millis(5));

/// Every field path of the grouped JSON form: each group's keys, the circuit and budget declarations,
/// and their refinements (written only when not at their default, so read from a contract that sets all).
fn field_paths() -> Vec<String> {
    let every = Contract {
        circuit: Declared::Stated(CircuitContract {
            policy: CircuitPolicy::ConsecutiveFailures { threshold: 2 },
            open_shape: OpenShape::Exponential { factor_milli: 2000, max: VDuration::from_millis(9) },
            cooldown_tie: CooldownTie::AdmitsAfterEnd,
            counts_cancellation: true,
            probe_settle: ProbeSettle::ResultOrder,
            closes_after: Some(1),
            late_results: timelaw_core::LateResults::LandingState,
            half_open_entry: timelaw_core::HalfOpenEntry::OnTime,
            ..CircuitContract::DEFAULT
        }),
        budget: Declared::Stated(BudgetContract {
            window: Some(VDuration::from_millis(5)),
            admits: true,
            ..BudgetContract::default()
        }),
        timing: TimingContract {
            ordered_results: true,
            deadline_tie: timelaw_core::TieRule::InnerWins,
            retry_elapsed_bound: timelaw_core::LimitBound::Exclusive,
            ..TimingContract::default()
        },
        bulkhead: Declared::Stated(BulkheadContract { first_come: true, ..PLAIN_BULKHEAD }),
        limiter: Declared::Stated(LimiterContract { window: LimiterWindow::Fixed, ..PLAIN_LIMITER }),
        hedge: Declared::Stated(HedgeContract { delay: VDuration::from_millis(5), max_hedges: 1 }),
        ..Contract::default()
    };
    let plain_bulkhead = serde_json::to_value(PLAIN_BULKHEAD).unwrap();
    let plain_limiter = serde_json::to_value(PLAIN_LIMITER).unwrap();
    let value = serde_json::to_value(every).unwrap();
    let plain = serde_json::to_value(CircuitContract::DEFAULT).unwrap();
    let plain_budget = serde_json::to_value(BudgetContract::default()).unwrap();
    let mut paths = Vec::new();
    for (group, fields) in value.as_object().unwrap() {
        paths.push(group.clone());
        let base = match group.as_str() {
            "circuit" => &plain,
            "budget" => &plain_budget,
            // Their parameters are the declaration itself, like the breaker's window; their refinements
            // (written only when not at their default) are fields of their own.
            "bulkhead" => &plain_bulkhead,
            "limiter" => &plain_limiter,
            "hedge" => fields,
            _ => {
                paths.pop();
                &serde_json::Value::Null
            }
        };
        for key in fields.as_object().unwrap().keys().filter(|key| base.get(key.as_str()).is_none()) {
            paths.push(format!("{group}.{key}"));
        }
    }
    paths
}

#[test]
fn every_contract_field_has_one_mechanism() {
    let mut fields = field_paths();
    let mut table: Vec<String> = CONTRACT_FIELDS.iter().map(|(name, _)| name.to_string()).collect();
    fields.sort_unstable();
    table.sort_unstable();
    assert_eq!(table, fields, "one entry per contract field");
    for law in &STANDARD {
        for field in law.needs {
            assert!(field_mechanism(field).is_some(), "law `{}` needs `{field}`, which is no contract field", law.id);
        }
    }
}

#[test]
fn mechanisms_print_their_names() {
    let names = [
        (Mechanism::Retry, "retry"),
        (Mechanism::Delays, "delays/backoff"),
        (Mechanism::Timing, "timing"),
        (Mechanism::RateLimit, "rate/retry-after"),
        (Mechanism::Circuit, "circuit"),
        (Mechanism::Budget, "budget"),
        (Mechanism::Bulkhead, "bulkhead"),
        (Mechanism::Limiter, "limiter"),
        (Mechanism::Hedging, "hedging"),
        (Mechanism::Clocks, "clocks"),
        (Mechanism::Meta, "meta"),
    ];
    assert_eq!(names.map(|(mechanism, _)| mechanism), Mechanism::ALL);
    for (mechanism, name) in names {
        assert_eq!(mechanism.name(), name);
        assert_eq!(mechanism.to_string(), name);
    }
}

#[test]
fn fields_have_their_mechanism() {
    assert_eq!(field_mechanism("retry.max_attempts"), Some(Mechanism::Retry));
    assert_eq!(field_mechanism("circuit.policy"), Some(Mechanism::Circuit));
    assert_eq!(field_mechanism("timing.clocks"), Some(Mechanism::Clocks));
    assert_eq!(field_mechanism("hedge"), Some(Mechanism::Hedging));
    assert_eq!(field_mechanism("retry.no_such_field"), None);
}
