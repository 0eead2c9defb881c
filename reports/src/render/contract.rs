//! `timelaw contract`: what a subject promises for one config, grouped by mechanism, each field stated,
//! unstated or absent, as text or JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use timelaw_core::Contract;
use timelaw_laws::catalogue::CONTRACT_FIELDS;
use timelaw_laws::{mechanism_of, Catalogue, Mechanism};

/// How much a contract says about a field or a mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromiseState {
    /// Promised, with the value shown.
    Stated,
    /// The mechanism exists but its parameters are not stated ([`timelaw_core::Declared::Unstated`]).
    Unstated,
    /// No promise: the field is `None`, `false`, or a default of a mechanism that is not stated.
    Absent,
}

impl PromiseState {
    fn name(self) -> &'static str {
        match self {
            PromiseState::Stated => "stated",
            PromiseState::Unstated => "unstated",
            PromiseState::Absent => "absent",
        }
    }
}

/// One contract field as shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldView {
    /// The field's path in the contract's grouped JSON form (`retry.max_attempts`).
    pub name: String,
    /// Stated, unstated or absent.
    pub state: PromiseState,
    /// The field's value as fixtures write it (durations as text).
    pub value: Value,
    /// The field this one refines (`timing.timeout_tie` refines `timing.attempt_timeout`): while that one is not
    /// stated, neither is this one.
    pub refines: Option<String>,
}

/// The fields of one mechanism, and the standard laws of that mechanism the contract makes applicable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupView {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// Stated when a field is; else unstated when a field is; else absent.
    pub state: PromiseState,
    /// Its fields, in declaration order.
    pub fields: Vec<FieldView>,
    /// The laws of this mechanism that apply to the contract.
    pub laws_applying: Vec<String>,
    /// The laws of this mechanism that do not (their fields are absent or unstated).
    pub laws_not_applying: Vec<String>,
}

/// A subject's contract for one config, grouped by mechanism.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContractView {
    /// The subject's name.
    pub subject: String,
    /// Where the config came from: `case 0 of seed N` or `simplest`.
    pub config_from: String,
    /// The config, as fixtures write it.
    pub config: Value,
    /// One group per mechanism, in [`Mechanism::ALL`] order.
    pub groups: Vec<GroupView>,
}

/// The field a refinement depends on: while that one is not stated, the refinement says nothing either,
/// whatever its value.
const PARENTS: [(&str, &str); 20] = [
    ("timing.timeout_tie", "timing.attempt_timeout"),
    ("timing.deadline_tie", "timing.deadline"),
    ("timing.retry_elapsed_bound", "timing.retry_elapsed_max"),
    ("delays.jitter_clipped_at_cap", "delays.jitter"),
    ("delays.tolerance", "delays.backoff"),
    ("delays.tolerance_ppb", "delays.backoff"),
    ("circuit.policy", "circuit"),
    ("circuit.open_shape", "circuit"),
    ("circuit.cooldown_tie", "circuit"),
    ("circuit.counts_cancellation", "circuit"),
    ("circuit.probe_settle", "circuit"),
    ("circuit.closes_after", "circuit"),
    ("circuit.late_results", "circuit"),
    ("circuit.half_open_entry", "circuit"),
    ("budget.window", "budget"),
    ("budget.admits", "budget"),
    ("bulkhead.first_come", "bulkhead"),
    ("limiter.window", "limiter"),
    ("timing.interrupt_tie", "timing.deadline"),
    ("timing.timer_granularity", "timing.interrupt_tie"),
];

/// Whether `path` is a parameter of a mechanism the contract has without stating it.
fn unstated(contract: &Contract, path: &str, mechanism: Mechanism) -> bool {
    match mechanism {
        Mechanism::Circuit => contract.circuit.is_unstated(),
        Mechanism::Budget => contract.budget.is_unstated(),
        Mechanism::Bulkhead => contract.bulkhead.is_unstated(),
        Mechanism::Limiter => contract.limiter.is_unstated(),
        Mechanism::Hedging => contract.hedge.is_unstated(),
        _ => {
            let limits = ["timing.deadline", "timing.retry_elapsed_max", "delays.sleep_budget"];
            contract.timing.limit_unstated && limits.contains(&path)
        }
    }
}

fn parent_of(name: &str) -> Option<&'static str> {
    PARENTS.iter().find(|(child, _)| *child == name).map(|(_, parent)| *parent)
}

/// The value of the field at `path` in the grouped JSON form `fields`. A refinement of a stated breaker
/// or budget left at its default is not written there; its value is read from the parameters.
fn field_value(contract: &Contract, fields: &Value, path: &str) -> Value {
    let pointer = format!("/{}", path.replace('.', "/"));
    if let Some(value) = fields.pointer(&pointer) {
        return value.clone();
    }
    // Plain data: serializing cannot fail.
    let value = |field: Result<Value, serde_json::Error>| field.unwrap_or(Value::Null);
    if path == "timing.ordered_results" {
        return Value::Bool(contract.timing.ordered_results);
    }
    if path == "timing.deadline_tie" {
        return value(serde_json::to_value(contract.timing.deadline_tie));
    }
    if path == "timing.retry_elapsed_bound" {
        return value(serde_json::to_value(contract.timing.retry_elapsed_bound));
    }
    match (path, contract.circuit.stated(), contract.budget.stated()) {
        ("circuit.policy", Some(circuit), _) => value(serde_json::to_value(circuit.policy)),
        ("circuit.open_shape", Some(circuit), _) => value(serde_json::to_value(circuit.open_shape)),
        ("circuit.cooldown_tie", Some(circuit), _) => value(serde_json::to_value(circuit.cooldown_tie)),
        ("circuit.counts_cancellation", Some(circuit), _) => Value::Bool(circuit.counts_cancellation),
        ("circuit.probe_settle", Some(circuit), _) => value(serde_json::to_value(circuit.probe_settle)),
        ("circuit.late_results", Some(circuit), _) => value(serde_json::to_value(circuit.late_results)),
        ("circuit.half_open_entry", Some(circuit), _) => value(serde_json::to_value(circuit.half_open_entry)),
        ("budget.window", _, Some(_)) => Value::Null,
        ("budget.admits", _, Some(budget)) => Value::Bool(budget.admits),
        ("bulkhead.first_come", ..) => contract.bulkhead.stated().map_or(Value::Null, |b| Value::Bool(b.first_come)),
        ("limiter.window", ..) => {
            contract.limiter.stated().map_or(Value::Null, |l| value(serde_json::to_value(l.window)))
        }
        _ => Value::Null,
    }
}

fn field_state(contract: &Contract, fields: &Value, name: &str) -> PromiseState {
    let mechanism = timelaw_laws::catalogue::field_mechanism(name).unwrap_or(Mechanism::Meta);
    let value = field_value(contract, fields, name);
    match value {
        Value::String(word)
            if word == "unstated" && matches!(name, "circuit" | "budget" | "bulkhead" | "limiter" | "hedge") =>
        {
            return PromiseState::Unstated
        }
        Value::Null if unstated(contract, name, mechanism) => return PromiseState::Unstated,
        Value::Null | Value::Bool(false) => return PromiseState::Absent,
        _ => {}
    }
    match parent_of(name) {
        // A refinement of a mechanism that is not stated refines nothing, whatever its value.
        Some(parent) => field_state(contract, fields, parent),
        None => PromiseState::Stated,
    }
}

fn group_state(fields: &[FieldView]) -> PromiseState {
    let any = |state| fields.iter().any(|field| field.state == state);
    if any(PromiseState::Stated) {
        PromiseState::Stated
    } else if any(PromiseState::Unstated) {
        PromiseState::Unstated
    } else {
        PromiseState::Absent
    }
}

/// Groups `contract` by mechanism ([`CONTRACT_FIELDS`]) and names, per group, which of `laws` apply.
pub fn contract_view(
    subject: &str,
    config_from: &str,
    config: Value,
    contract: &Contract,
    laws: &Catalogue,
) -> ContractView {
    let groups = Mechanism::ALL.iter().map(|&mechanism| group_view(mechanism, contract, laws)).collect();
    ContractView { subject: subject.to_owned(), config_from: config_from.to_owned(), config, groups }
}

fn group_view(mechanism: Mechanism, contract: &Contract, laws: &Catalogue) -> GroupView {
    // Contracts serialize to a JSON object (string keys, no failing impl): these cannot fail.
    let fields = serde_json::to_value(contract).unwrap_or(Value::Null);
    let shown: Vec<FieldView> = CONTRACT_FIELDS
        .iter()
        .filter(|(_, of)| *of == mechanism)
        .map(|(name, _)| FieldView {
            name: (*name).to_owned(),
            state: field_state(contract, &fields, name),
            value: field_value(contract, &fields, name),
            refines: parent_of(name).map(str::to_owned),
        })
        .collect();
    let (mut laws_applying, mut laws_not_applying) = (Vec::new(), Vec::new());
    for law in laws.iter().filter(|law| mechanism_of(law.id) == Some(mechanism)) {
        let list = if (law.applies)(contract) { &mut laws_applying } else { &mut laws_not_applying };
        list.push(law.id.to_owned());
    }
    GroupView { mechanism, state: group_state(&shown), fields: shown, laws_applying, laws_not_applying }
}

/// A field's value in words: `yes`/`no`, durations as text, an enum variant with its parameters as
/// `exponential (initial=10ms, factor_milli=2000)`, `-` for none.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::Null => "-".to_owned(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Object(map) => match map.iter().next() {
            Some((variant, Value::Object(inner))) if map.len() == 1 => {
                format!("{variant} ({})", pairs(inner))
            }
            _ => pairs(map),
        },
    }
}

fn pairs(map: &serde_json::Map<String, Value>) -> String {
    map.iter().map(|(key, value)| format!("{key}={}", value_text(value))).collect::<Vec<_>>().join(", ")
}

/// The view as text: a heading with the config, then per mechanism its state, how many of its laws
/// apply, and each field's state and value. Ends with a newline.
pub fn render_contract_text(view: &ContractView) -> String {
    let mut lines = vec![
        format!("contract of {} for {}:", view.subject, view.config_from),
        format!("  {}", view.config),
        "stated: promised as shown; unstated: the mechanism exists, its parameters are not stated; absent: no promise"
            .to_owned(),
    ];
    for group in &view.groups {
        let total = group.laws_applying.len() + group.laws_not_applying.len();
        lines.push(String::new());
        let applying = group.laws_applying.len();
        lines.push(match group.fields.is_empty() {
            // A mechanism no contract field describes (meta): its laws apply to every subject.
            true => format!("{}: ({applying} of {total} laws apply)", group.mechanism.name()),
            false => format!("{}: {} ({applying} of {total} laws apply)", group.mechanism.name(), group.state.name()),
        });
        for field in &group.fields {
            lines.push(format!("  {:<28} {:<9} {}", field.name, field.state.name(), field_text(field, group)));
        }
        if !group.laws_not_applying.is_empty() {
            lines.push(format!("  laws not applying: {}", group.laws_not_applying.join(", ")));
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A field's value for the text: `unstated` as the mechanisms it names, a refinement of a mechanism that
/// is not stated with why it promises nothing.
fn field_text(field: &FieldView, group: &GroupView) -> String {
    let text = value_text(&field.value);
    let parent_state = |parent: &str| group.fields.iter().find(|f| f.name == parent).map(|f| f.state);
    match field.refines.as_deref().and_then(|parent| Some((parent, parent_state(parent)?))) {
        Some((parent, state))
            if state != PromiseState::Stated && !matches!(field.value, Value::Null | Value::Bool(false)) =>
        {
            format!("{text} (not a promise: `{parent}` is {})", state.name())
        }
        _ => text,
    }
}

/// The view as pretty JSON (fields in declaration order), ending with a newline.
pub fn render_contract_json(view: &ContractView) -> String {
    // Plain data with string keys: serializing cannot fail.
    let mut text = serde_json::to_string_pretty(view).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use timelaw_core::{BudgetContract, CircuitContract, Declared, RetryContract, TimingContract, VDuration};

    use super::*;

    fn view(contract: &Contract) -> ContractView {
        contract_view("s", "a test", Value::Null, contract, &Catalogue::standard())
    }

    #[track_caller]
    fn check(contract: Contract, field: &str, expect: PromiseState) {
        let view = view(&contract);
        let found = view.groups.iter().flat_map(|group| &group.fields).find(|f| f.name == field).unwrap();
        assert_eq!(found.state, expect, "{field} of {contract:?}");
    }

    #[track_caller]
    fn check_group(contract: Contract, mechanism: Mechanism, state: PromiseState, applying: &[&str]) {
        let view = view(&contract);
        let group = view.groups.iter().find(|group| group.mechanism == mechanism).unwrap();
        assert_eq!(
            (group.state, group.laws_applying.clone()),
            (state, applying.iter().map(|id| id.to_string()).collect())
        );
    }

    fn ms(millis: u64) -> Option<VDuration> {
        Some(VDuration::from_millis(millis))
    }

    const BREAKER: CircuitContract = CircuitContract {
        window: 4,
        min_calls: 2,
        failure_percent: 50,
        open_for: VDuration::from_millis(10),
        half_open_probes: 1,
        ..CircuitContract::DEFAULT
    };

    #[test]
    fn fields_are_stated_unstated_or_absent() {
        use PromiseState::{Absent, Stated, Unstated};
        let none = Contract::default();
        check(none, "retry.max_attempts", Absent);
        let mut attempts = none;
        attempts.retry.max_attempts = Some(3);
        check(attempts, "retry.max_attempts", Stated);
        let mut notifies = none;
        notifies.delays.notifies = true;
        check(notifies, "delays.notifies", Stated);
        check(none, "delays.notifies", Absent);
        check(none, "timing.timeout_tie", Absent);
        check(
            Contract { timing: TimingContract { attempt_timeout: ms(5), ..none.timing }, ..none },
            "timing.timeout_tie",
            Stated,
        );
        let admits = BudgetContract { admits: true, ..BudgetContract::default() };
        check(Contract { budget: Declared::Stated(admits), ..none }, "budget.admits", Stated);
        check(Contract { budget: Declared::Stated(admits), ..none }, "budget.window", Absent);
        let fair = timelaw_core::BulkheadContract { first_come: true, ..timelaw_core::BulkheadContract::new(2, 1) };
        check(Contract { bulkhead: Declared::Stated(fair), ..none }, "bulkhead.first_come", Stated);
        let plain = timelaw_core::BulkheadContract::new(2, 1);
        check(Contract { bulkhead: Declared::Stated(plain), ..none }, "bulkhead.first_come", Absent);
        let bucket = timelaw_core::LimiterContract::token_bucket(2, VDuration::from_millis(5));
        check(Contract { limiter: Declared::Stated(bucket), ..none }, "limiter.window", Stated);
        check(Contract { limiter: Declared::Unstated, ..none }, "limiter.window", Unstated);
        let breaker = Contract { circuit: Declared::Unstated, ..none };
        check(breaker, "circuit", Unstated);
        check(breaker, "circuit.policy", Unstated);
        let limit = Contract { timing: TimingContract { limit_unstated: true, ..none.timing }, ..none };
        check(limit, "timing.limit_unstated", Stated);
        check(none, "timing.limit_unstated", Absent);
        check(limit, "timing.deadline", Unstated);
        check(limit, "timing.retry_elapsed_max", Unstated);
        check(limit, "timing.attempt_timeout", Absent);
        check(Contract { circuit: Declared::Stated(BREAKER), ..none }, "circuit.open_shape", Stated);
        check(
            Contract { timing: TimingContract { deadline: ms(9), ..none.timing }, ..none },
            "timing.interrupt_tie",
            Absent,
        );
    }

    #[test]
    fn groups_name_their_state_and_the_laws_that_apply() {
        use PromiseState::{Absent, Stated, Unstated};
        let none = Contract::default();
        check_group(none, Mechanism::Circuit, Absent, &[]);
        let breaker = Contract { circuit: Declared::Unstated, ..none };
        check_group(breaker, Mechanism::Circuit, Unstated, &[]);
        check_group(
            Contract { circuit: Declared::Stated(BREAKER), ..none },
            Mechanism::Circuit,
            Stated,
            &[
                "circuit_open_rejects_without_dispatch",
                "circuit_half_open_after_cooldown",
                "half_open_probe_limit",
                "circuit_closed_admits",
                "circuit_closes_after_probes",
                "circuit_probe_slot_freed",
                "circuit_open_period_as_declared",
                "circuit_probes_settle_as_declared",
            ],
        );
        check_group(
            none,
            Mechanism::Meta,
            Absent,
            &[
                "deterministic_replay",
                "never_panics",
                "terminates",
                "no_undeclared_rejection",
                "uses_world_as_documented",
                "accepts_described_configs",
            ],
        );
        check_group(
            Contract { retry: RetryContract { max_attempts: Some(2), ..none.retry }, ..none },
            Mechanism::Retry,
            Stated,
            &[
                "attempts_within_max",
                "no_sleep_after_final_attempt",
                "success_ends_call",
                "exhausted_retries_return_err",
            ],
        );
    }

    #[track_caller]
    fn check_text(value: Value, expect: &str) {
        assert_eq!(value_text(&value), expect);
    }

    #[test]
    fn values_in_words() {
        check_text(Value::Null, "-");
        check_text(serde_json::json!(true), "yes");
        check_text(serde_json::json!("250ms"), "250ms");
        check_text(
            serde_json::json!({"exponential": {"initial": "1ms", "factor_milli": 2000}}),
            "exponential (factor_milli=2000, initial=1ms)",
        );
        check_text(serde_json::json!({"transient": true, "fatal": false}), "fatal=no, transient=yes");
        check_text(serde_json::json!([1, "x"]), "1, x");
    }

    /// The text, character for character, for a contract of two mechanisms.
    #[test]
    fn text_golden() {
        let contract = Contract {
            retry: RetryContract { max_attempts: Some(3), ..RetryContract::default() },
            circuit: Declared::Stated(BREAKER),
            budget: Declared::Unstated,
            ..Contract::default()
        };
        let view =
            contract_view("demo", "case 0 of seed 7", serde_json::json!({"n": 3}), &contract, &Catalogue::standard());
        let text = render_contract_text(&view);
        if std::env::var_os("TIMELAW_BLESS").is_some() {
            std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/src/render/contract_golden.txt"), &text).unwrap();
        }
        let expected = include_str!("contract_golden.txt");
        assert_eq!(text, expected);
        let json: ContractView = serde_json::from_str(&render_contract_json(&view)).unwrap();
        assert_eq!(json, view, "the JSON reads back as the view");
    }
}
