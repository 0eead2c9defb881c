//! Reading a contract's JSON: the grouped form ([`Contract`]'s own, one object per mechanism) and the flat
//! form contracts were written in before they were grouped (one object of thirty-odd fields, with
//! `unstated` flags). Both read into the same [`Contract`]; a mixture of the two is refused, and an
//! unknown field is named in the error.

use serde::Deserialize;

use crate::clock::ClockContract;
use crate::contract::{
    BackoffShape, BudgetContract, BulkheadContract, CircuitContract, Contract, DelayContract, HedgeContract,
    JitterBounds, LimiterContract, RateContract, RetryContract, RetryOn, TieRule, TimingContract,
};
use crate::contract_declared::Declared;
use crate::mechanisms::{CircuitPolicy, CooldownTie, InterruptTie, OpenShape, RetryAfterPolicy, Unstated};
use crate::time::VDuration;

/// Every key either form may hold. `circuit` reads the same in both (`null` or the breaker's object; the
/// grouped form also says `"unstated"`), and so do `bulkhead`, `limiter` and `hedge` (newer than either
/// form, so a flat contract may add them too).
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContractForm {
    retry: Option<RetryContract>,
    delays: Option<DelayContract>,
    timing: Option<TimingContract>,
    rate: Option<RateContract>,
    circuit: Declared<CircuitContract>,
    budget: Option<Declared<BudgetContract>>,
    bulkhead: Declared<BulkheadContract>,
    limiter: Declared<LimiterContract>,
    hedge: Declared<HedgeContract>,
    max_attempts: Option<u32>,
    delay_min: Option<VDuration>,
    delay_max: Option<VDuration>,
    backoff: Option<BackoffShape>,
    jitter: Option<JitterBounds>,
    delay_tolerance: Option<VDuration>,
    delay_tolerance_ppb: Option<u64>,
    attempt_timeout: Option<VDuration>,
    timeout_tie: Option<TieRule>,
    deadline: Option<VDuration>,
    sleep_budget: Option<VDuration>,
    retry_on: Option<RetryOn>,
    honors_retry_after: Option<bool>,
    reports_last_result: Option<bool>,
    respects_idempotency: Option<bool>,
    honors_cancellation: Option<bool>,
    notifies: Option<bool>,
    serves_stream: Option<bool>,
    retry_budget: Option<BudgetContract>,
    clocks: Option<ClockContract>,
    retry_elapsed_max: Option<VDuration>,
    retry_after: Option<RetryAfterPolicy>,
    jitter_clipped_at_cap: Option<bool>,
    circuit_policy: Option<CircuitPolicy>,
    circuit_open_shape: Option<OpenShape>,
    circuit_cooldown_tie: Option<CooldownTie>,
    circuit_counts_cancellation: Option<bool>,
    retry_budget_window: Option<VDuration>,
    retry_budget_admits: Option<bool>,
    interrupt_tie: Option<InterruptTie>,
    unstated: Option<Unstated>,
}

impl ContractForm {
    /// The first key of the grouped form present, if any.
    fn grouped_key(&self) -> Option<&'static str> {
        let keys = [
            ("retry", self.retry.is_some()),
            ("delays", self.delays.is_some()),
            ("timing", self.timing.is_some()),
            ("rate", self.rate.is_some()),
            ("budget", self.budget.is_some()),
        ];
        keys.into_iter().find(|(_, present)| *present).map(|(key, _)| key)
    }

    /// The first key of the flat form present (not `null`), if any.
    fn flat_key(&self) -> Option<&'static str> {
        let keys = [
            ("max_attempts", self.max_attempts.is_some()),
            ("delay_min", self.delay_min.is_some()),
            ("delay_max", self.delay_max.is_some()),
            ("backoff", self.backoff.is_some()),
            ("jitter", self.jitter.is_some()),
            ("delay_tolerance", self.delay_tolerance.is_some()),
            ("delay_tolerance_ppb", self.delay_tolerance_ppb.is_some()),
            ("attempt_timeout", self.attempt_timeout.is_some()),
            ("timeout_tie", self.timeout_tie.is_some()),
            ("deadline", self.deadline.is_some()),
            ("sleep_budget", self.sleep_budget.is_some()),
            ("retry_on", self.retry_on.is_some()),
            ("honors_retry_after", self.honors_retry_after.is_some()),
            ("reports_last_result", self.reports_last_result.is_some()),
            ("respects_idempotency", self.respects_idempotency.is_some()),
            ("honors_cancellation", self.honors_cancellation.is_some()),
            ("notifies", self.notifies.is_some()),
            ("serves_stream", self.serves_stream.is_some()),
            ("retry_budget", self.retry_budget.is_some()),
            ("clocks", self.clocks.is_some()),
            ("retry_elapsed_max", self.retry_elapsed_max.is_some()),
            ("retry_after", self.retry_after.is_some()),
            ("jitter_clipped_at_cap", self.jitter_clipped_at_cap.is_some()),
            ("circuit_policy", self.circuit_policy.is_some()),
            ("circuit_open_shape", self.circuit_open_shape.is_some()),
            ("circuit_cooldown_tie", self.circuit_cooldown_tie.is_some()),
            ("circuit_counts_cancellation", self.circuit_counts_cancellation.is_some()),
            ("retry_budget_window", self.retry_budget_window.is_some()),
            ("retry_budget_admits", self.retry_budget_admits.is_some()),
            ("interrupt_tie", self.interrupt_tie.is_some()),
            ("unstated", self.unstated.is_some()),
        ];
        keys.into_iter().find(|(_, present)| *present).map(|(key, _)| key)
    }

    /// The contract the flat form states, with today's meaning of every field it leaves out.
    fn flat(self) -> Contract {
        let unstated = self.unstated.unwrap_or_default();
        let circuit = match self.circuit {
            Declared::Stated(circuit) => Declared::Stated(CircuitContract {
                policy: self.circuit_policy.unwrap_or(circuit.policy),
                open_shape: self.circuit_open_shape.unwrap_or(circuit.open_shape),
                cooldown_tie: self.circuit_cooldown_tie.unwrap_or(circuit.cooldown_tie),
                counts_cancellation: self.circuit_counts_cancellation.unwrap_or(circuit.counts_cancellation),
                ..circuit
            }),
            _ if unstated.circuit => Declared::Unstated,
            other => other,
        };
        let budget = match self.retry_budget {
            Some(budget) => Declared::Stated(BudgetContract {
                window: self.retry_budget_window.or(budget.window),
                admits: self.retry_budget_admits.unwrap_or(budget.admits),
                ..budget
            }),
            None if unstated.retry_budget => Declared::Unstated,
            None => Declared::Absent,
        };
        let flag = |value: Option<bool>| value.unwrap_or(false);
        Contract {
            retry: RetryContract {
                max_attempts: self.max_attempts,
                retry_on: self.retry_on,
                reports_last_result: flag(self.reports_last_result),
                respects_idempotency: flag(self.respects_idempotency),
            },
            delays: DelayContract {
                min: self.delay_min,
                max: self.delay_max,
                backoff: self.backoff,
                jitter: self.jitter,
                jitter_clipped_at_cap: flag(self.jitter_clipped_at_cap),
                tolerance: self.delay_tolerance.unwrap_or_default(),
                tolerance_ppb: self.delay_tolerance_ppb.unwrap_or_default(),
                sleep_budget: self.sleep_budget,
                notifies: flag(self.notifies),
            },
            timing: TimingContract {
                attempt_timeout: self.attempt_timeout,
                timeout_tie: self.timeout_tie.unwrap_or_default(),
                deadline_tie: TieRule::Expired,
                retry_elapsed_bound: crate::mechanisms::LimitBound::Inclusive,
                deadline: self.deadline,
                retry_elapsed_max: self.retry_elapsed_max,
                limit_unstated: unstated.time_limit,
                honors_cancellation: flag(self.honors_cancellation),
                interrupt_tie: self.interrupt_tie,
                timer_granularity: VDuration::ZERO,
                serves_stream: flag(self.serves_stream),
                ordered_results: false,
                clocks: self.clocks,
            },
            rate: RateContract { honors_retry_after: flag(self.honors_retry_after), retry_after: self.retry_after },
            circuit,
            budget,
            bulkhead: self.bulkhead,
            limiter: self.limiter,
            hedge: self.hedge,
        }
    }
}

/// A JSON object that mixes the grouped and the flat form of a contract.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "a contract is either grouped (retry, delays, timing, rate, circuit, budget) or flat (the form before \
     grouping), not both: found the grouped `{grouped}` and the flat `{flat}`"
)]
pub struct MixedForms {
    /// A grouped key found.
    pub grouped: &'static str,
    /// A flat key found.
    pub flat: &'static str,
}

impl TryFrom<ContractForm> for Contract {
    type Error = MixedForms;

    fn try_from(form: ContractForm) -> Result<Contract, MixedForms> {
        match (form.grouped_key(), form.flat_key()) {
            (Some(grouped), Some(flat)) => Err(MixedForms { grouped, flat }),
            (_, Some(_)) => Ok(form.flat()),
            _ => Ok(Contract {
                retry: form.retry.unwrap_or_default(),
                delays: form.delays.unwrap_or_default(),
                timing: form.timing.unwrap_or_default(),
                rate: form.rate.unwrap_or_default(),
                circuit: form.circuit,
                budget: form.budget.unwrap_or_default(),
                bulkhead: form.bulkhead,
                limiter: form.limiter,
                hedge: form.hedge,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// A contract that states something in every group, every refinement away from its default.
    fn rich() -> Contract {
        let ms = VDuration::from_millis;
        let mut contract = Contract::exponential(4, ms(10), 2000, ms(80));
        contract.retry.retry_on = Some(RetryOn::ALL);
        contract.delays.tolerance_ppb = 60;
        contract.timing.deadline = Some(ms(500));
        contract.timing.interrupt_tie = Some(InterruptTie::CancellationFirst);
        contract.timing.limit_unstated = true;
        contract.rate.retry_after = Some(RetryAfterPolicy::default());
        contract.circuit = Declared::Stated(CircuitContract {
            policy: CircuitPolicy::ConsecutiveFailures { threshold: 3 },
            open_shape: OpenShape::Exponential { factor_milli: 2000, max: ms(100) },
            cooldown_tie: CooldownTie::AdmitsAfterEnd,
            counts_cancellation: true,
            ..CircuitContract::DEFAULT
        });
        contract.budget = Declared::Unstated;
        contract
    }

    #[track_caller]
    fn check(json: Value, expect: Result<Contract, &str>) {
        let read = serde_json::from_value::<Contract>(json.clone()).map_err(|error| error.to_string());
        match (read, expect) {
            (Ok(read), Ok(expect)) => assert_eq!(read, expect, "{json}"),
            (Err(error), Err(part)) => assert!(error.contains(part), "`{error}` should contain `{part}`"),
            (read, expect) => panic!("{json}: read {read:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn the_grouped_form_round_trips() {
        let written = serde_json::to_value(rich()).unwrap();
        let keys: Vec<&str> = written.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["budget", "circuit", "delays", "rate", "retry", "timing"], "one key per group");
        assert_eq!(written["budget"], json!("unstated"));
        assert_eq!(written["circuit"]["policy"], json!({"consecutive_failures": {"threshold": 3}}));
        check(written, Ok(rich()));
        check(serde_json::to_value(Contract::default()).unwrap(), Ok(Contract::default()));
        // Groups left out read as their defaults.
        let attempts = Contract {
            retry: RetryContract { max_attempts: Some(2), ..RetryContract::default() },
            ..Contract::default()
        };
        check(json!({"retry": {"max_attempts": 2}}), Ok(attempts));
        check(json!({}), Ok(Contract::default()));
    }

    #[test]
    fn the_flat_form_reads_with_todays_meaning() {
        let ms = VDuration::from_millis;
        // A contract written before any of the richer promises existed.
        let old = json!({
            "max_attempts": 3, "delay_min": null, "delay_max": null, "backoff": null, "jitter": null,
            "delay_tolerance": 0, "attempt_timeout": null, "timeout_tie": "expired", "deadline": null,
            "sleep_budget": null, "retry_on": null, "honors_retry_after": false, "reports_last_result": false,
            "respects_idempotency": false, "honors_cancellation": false, "notifies": false,
            "serves_stream": false, "circuit": null, "retry_budget": null
        });
        let attempts = Contract {
            retry: RetryContract { max_attempts: Some(3), ..RetryContract::default() },
            ..Contract::default()
        };
        check(old, Ok(attempts));
        // The flat form's refinements move into the stated breaker and budget.
        let mut refined = Contract::default();
        let breaker = CircuitContract {
            window: 4,
            min_calls: 2,
            failure_percent: 50,
            open_for: ms(10),
            half_open_probes: 1,
            ..CircuitContract::DEFAULT
        };
        refined.circuit = Declared::Stated(CircuitContract { cooldown_tie: CooldownTie::AdmitsAfterEnd, ..breaker });
        refined.budget =
            Declared::Stated(BudgetContract { min_retries: 1, retry_percent: 10, window: Some(ms(5)), admits: true });
        refined.delays.tolerance_ppb = 60;
        let flat = json!({
            "circuit": {"window": 4, "min_calls": 2, "failure_percent": 50, "open_for": "10ms", "half_open_probes": 1},
            "circuit_cooldown_tie": "admits_after_end",
            "retry_budget": {"min_retries": 1, "retry_percent": 10},
            "retry_budget_window": "5ms", "retry_budget_admits": true, "delay_tolerance_ppb": 60
        });
        check(flat, Ok(refined));
        // Unstated flags become unstated mechanisms; a stated breaker stays stated.
        let mut unstated = Contract { budget: Declared::Unstated, ..Contract::default() };
        unstated.timing.limit_unstated = true;
        check(json!({"unstated": {"retry_budget": true, "time_limit": true}}), Ok(unstated));
        let stated = json!({"circuit": serde_json::to_value(breaker).unwrap(), "unstated": {"circuit": true}});
        check(stated, Ok(Contract { circuit: Declared::Stated(breaker), ..Contract::default() }));
        // A refinement of a breaker the flat form does not state refines nothing.
        check(json!({"circuit_counts_cancellation": true}), Ok(Contract::default()));
    }

    #[test]
    fn load_groups_are_left_out_when_absent_and_round_trip_when_present() {
        let ms = VDuration::from_millis;
        let written = serde_json::to_value(Contract::default()).unwrap();
        for key in ["bulkhead", "limiter", "hedge"] {
            assert!(written.get(key).is_none(), "absent `{key}` is left out: {written}");
        }
        assert!(written["timing"].get("ordered_results").is_none(), "{written}");
        let mut load = Contract {
            bulkhead: Declared::Stated(BulkheadContract::new(2, 0)),
            limiter: Declared::Stated(LimiterContract::token_bucket(3, ms(10))),
            hedge: Declared::Unstated,
            ..Contract::default()
        };
        load.timing.ordered_results = true;
        load.circuit = Declared::Stated(CircuitContract {
            probe_settle: crate::mechanisms::ProbeSettle::ResultOrder,
            ..CircuitContract::DEFAULT
        });
        check(serde_json::to_value(load).unwrap(), Ok(load));
        // The bulkhead's queue defaults to none; a flat contract may state the load groups too.
        let flat = json!({"max_attempts": 2, "bulkhead": {"max_in_flight": 2}, "hedge": "unstated"});
        let expect = Contract {
            retry: RetryContract { max_attempts: Some(2), ..RetryContract::default() },
            bulkhead: Declared::Stated(BulkheadContract::new(2, 0)),
            hedge: Declared::Unstated,
            ..Contract::default()
        };
        check(flat, Ok(expect));
        check(json!({"limiter": {"burst": 1}}), Err("missing field `refill_every`"));
        check(json!({"hedge": {"delay": "1ms", "max_hedges": 1, "maximum": 2}}), Err("unknown field `maximum`"));
        check(
            json!({"circuit": {"window": 1, "min_calls": 1, "failure_percent": 100, "open_for": "0ns",
            "half_open_probes": 1, "probe_settle": "first"}}),
            Err("unknown variant `first`"),
        );
    }

    #[test]
    fn errors_name_the_field() {
        check(json!({"max_atempts": 3}), Err("unknown field `max_atempts`"));
        check(json!({"retry": {"max_atempts": 3}}), Err("unknown field `max_atempts`"));
        check(json!({"circuit": {"window": 1, "ttl": 3}}), Err("unknown field `ttl`"));
        check(json!({"budget": {"min_retries": 1, "retry_percent": 0, "tll": 3}}), Err("unknown field `tll`"));
        check(json!({"retry": {}, "delay_max": "5ms"}), Err("found the grouped `retry` and the flat `delay_max`"));
        check(json!({"timing": {"deadline": true}}), Err("invalid type"));
    }
}
