//! governor under load: the direct rate limiter on the World's virtual clock admits exactly what GCRA
//! admits, the limiter laws hold on it (and catch a planted limiter that admits burst + 1), and the
//! findings of docs/findings.md reproduce at their minimal cases.

mod support;

use std::time::Duration;

use timelaw_adapters::governor::{Governor, GovernorConfig};
use timelaw_core::concurrent_sync::{serve_sync_calls, SyncAction, SyncEvent, SyncServer};
use timelaw_core::{
    execute, Abort, CallInfo, CallResult, CallScript, Case, Contract, ErrorKind, EventKind, Outcome, Rejection,
    Schedule, Step, Subject, VDuration, World,
};
use timelaw_laws::Verdict;

fn config(burst: u32, period_ns: u64) -> GovernorConfig {
    GovernorConfig { burst, period: Duration::from_nanos(period_ns), attempts_max: 1 }
}

/// One quick successful call arriving at each instant (nanoseconds).
fn arrivals(at_ns: &[u64]) -> Schedule {
    let call = CallScript::new(vec![Step::instant(Outcome::Ok)]);
    Schedule::new(at_ns.iter().map(|&at| call.clone().arriving(VDuration::from_nanos(at))).collect())
}

/// `a` for each call admitted, `r` for each refused.
fn admitted<S: Subject>(subject: &S, config: &S::Config, schedule: &Schedule) -> String {
    let trace = execute(subject, config, schedule, 0);
    assert_eq!(trace.end, timelaw_core::TraceEnd::Complete, "{trace:?}");
    let calls = schedule.calls.len() as u32;
    (0..calls)
        .map(|call| {
            let refused = trace.call_events(call).any(|e| matches!(e.kind, EventKind::Rejected { .. }));
            if refused {
                'r'
            } else {
                'a'
            }
        })
        .collect()
}

fn verdict<S: Subject>(subject: &S, config: S::Config, schedule: Schedule, law: &str) -> &'static str {
    match support::judge(subject, &Case::new(config, schedule, 0), law) {
        Verdict::Holds => "holds",
        Verdict::Vacuous => "vacuous",
        Verdict::Violated(_) => "violated",
        Verdict::NotApplicable => "not applicable",
        Verdict::Inconclusive(_) => "inconclusive",
    }
}

/// governor admits `expect` on calls arriving at `at_ns`, and both limiter laws hold there.
#[track_caller]
fn check(burst: u32, period_ns: u64, at_ns: &[u64], expect: &str) {
    let (config, schedule) = (config(burst, period_ns), arrivals(at_ns));
    assert_eq!(admitted(&Governor, &config, &schedule), expect);
    for law in ["limiter_within_rate", "limiter_admits_with_tokens"] {
        let found = verdict(&Governor, config.clone(), schedule.clone(), law);
        assert!(found == "holds" || found == "vacuous", "{law}: {found}");
    }
}

#[test]
fn governor_admits_what_gcra_admits() {
    check(1, 10, &[0, 0], "ar");
    check(2, 10, &[0, 0, 0], "aar");
    check(2, 10, &[0, 0, 9, 10], "aara");
    check(1, 10, &[0, 10, 19, 20], "aara");
    // Continuous refill from the first cell, not whole periods since the start: a cell at 5 ns is
    // replenished at 15 ns, not at 10 ns.
    check(1, 10, &[5, 10, 14, 15], "arra");
    check(3, 1_000_000, &[0, 0, 0, 0, 1_000_000, 1_000_000], "aaarar");
    check(u32::MAX, 1, &[0, 0, 0, 0], "aaaa");
    check(1, 1 << 40, &[0, 0, 1 << 39, 1 << 40], "arra");
}

#[test]
fn gcra_keeps_the_whole_period_bound_whenever_it_was_created() {
    // Cells admitted late in a period still count against the whole-period window of the contract:
    // arrivals that start mid-period never beat `burst + refills in (a, b]`.
    for start_ns in [0, 1, 5, 9, 10, 11] {
        let at: Vec<u64> = (0..12).map(|i| start_ns + i * 3).collect();
        let (config, schedule) = (config(2, 10), arrivals(&at));
        assert_eq!(verdict(&Governor, config, schedule, "limiter_within_rate"), "holds", "start {start_ns}");
    }
}

/// A planted limiter: a token bucket that admits `burst + 1` at once, served through the same seam.
struct PlantedBucket {
    burst: u32,
    taken: u32,
}

impl SyncServer for PlantedBucket {
    fn on_event(&mut self, world: &mut World<'_>, _call: CallInfo, event: SyncEvent) -> Result<SyncAction, Abort> {
        Ok(match event {
            SyncEvent::Arrived if self.taken > self.burst => {
                world.reject(Rejection::LimiterEmpty)?;
                SyncAction::End(CallResult::Err(ErrorKind::LimiterEmpty))
            }
            SyncEvent::Arrived => {
                self.taken += 1;
                SyncAction::dispatch()
            }
            _ => SyncAction::End(CallResult::Ok),
        })
    }
}

struct Planted;

impl Subject for Planted {
    type Config = GovernorConfig;
    fn name(&self) -> &str {
        "planted-bucket"
    }
    fn contract(&self, config: &GovernorConfig) -> Contract {
        Governor.contract(config)
    }
    fn run(&self, config: &GovernorConfig, world: &mut World<'_>) -> Result<(), Abort> {
        serve_sync_calls(world, PlantedBucket { burst: config.burst, taken: 0 })
    }
}

#[test]
fn the_limiter_laws_catch_a_limiter_admitting_burst_plus_one() {
    let law = "limiter_within_rate";
    assert_eq!(verdict(&Planted, config(2, 10), arrivals(&[0, 0]), law), "holds");
    assert_eq!(verdict(&Governor, config(2, 10), arrivals(&[0, 0, 0]), law), "holds");
    assert_eq!(verdict(&Planted, config(2, 10), arrivals(&[0, 0, 0]), law), "violated");
    assert_eq!(admitted(&Planted, &config(2, 10), &arrivals(&[0, 0, 0, 0])), "aaar");
}

#[test]
fn a_retry_asks_the_limiter_again() {
    let call = CallScript::new(vec![Step::instant(Outcome::Transient), Step::instant(Outcome::Ok)]);
    let schedule = Schedule::new(vec![call]);
    let config = |burst| GovernorConfig { burst, period: Duration::from_millis(10), attempts_max: 2 };
    let results = |burst| {
        let trace = execute(&Governor, &config(burst), &schedule, 0);
        trace
            .events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::CallEnd { result } => Some(result),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(results(2), [CallResult::Ok]);
    assert_eq!(results(1), [CallResult::Err(ErrorKind::LimiterEmpty)]);
}

#[test]
fn a_period_past_584_years_panics_building_the_limiter() {
    std::panic::set_hook(Box::new(|_| {})); // The panics are the finding.
    let just_fits = GovernorConfig { burst: 1, period: Duration::from_nanos(u64::MAX), attempts_max: 1 };
    let past = GovernorConfig { period: Duration::from_nanos(u64::MAX) + Duration::from_nanos(1), ..just_fits.clone() };
    let one_call = || Schedule::new(vec![CallScript::new(vec![Step::instant(Outcome::Ok)])]);
    assert_eq!(verdict(&Governor, just_fits, one_call(), "never_panics"), "holds");
    assert_eq!(verdict(&Governor, past.clone(), one_call(), "never_panics"), "violated");
    assert_eq!(
        verdict(&Governor, GovernorConfig { period: Duration::MAX, ..past }, one_call(), "never_panics"),
        "violated"
    );
}

/// governor's GCRA arithmetic is plain `u64` arithmetic: `t * (burst - 1)` and `tat + t` overflow for
/// quotas whose burst capacity passes 2^64 ns. Under overflow checks (debug builds, where `cargo test`
/// runs) that panics; a release build wraps instead (docs/findings.md).
#[cfg(debug_assertions)]
#[test]
fn gcra_arithmetic_overflows_on_huge_quotas() {
    std::panic::set_hook(Box::new(|_| {}));
    let two_63 = 1_u64 << 63;
    // `tau = t * (burst - 1)`: 2^63 ns * 2 passes 2^64 when the limiter is built.
    assert_eq!(verdict(&Governor, config(2, two_63), arrivals(&[0]), "never_panics"), "holds");
    assert_eq!(verdict(&Governor, config(3, two_63), arrivals(&[0]), "never_panics"), "violated");
    // `tat = t0 + t`: a cell at 1 ns with a period of 2^64 - 1 ns.
    assert_eq!(verdict(&Governor, config(1, u64::MAX), arrivals(&[0]), "never_panics"), "holds");
    assert_eq!(verdict(&Governor, config(1, u64::MAX), arrivals(&[1]), "never_panics"), "violated");
}

/// The two release-build findings (`"profile": "release"` fixtures): one call at 0 ns whose retries
/// are the cells, under a period of 2^63 ns. `(burst, attempts_max, transient failures, law)`.
const WRAPPED: [(u32, u32, usize, &str); 2] =
    [(3, 2, 1, "limiter_admits_with_tokens"), (2, 3, 2, "limiter_within_rate")];

fn wrapped_case(burst: u32, attempts_max: u32, failures: usize) -> (GovernorConfig, Schedule) {
    let config = GovernorConfig { burst, period: Duration::from_nanos(1 << 63), attempts_max };
    (config, Schedule::single(vec![Step::instant(Outcome::Transient); failures]))
}

/// In a release build the GCRA arithmetic wraps: `tau` wraps to 0 at burst 3 (the second cell is refused
/// with tokens left) and `tat` wraps to 0 at the second cell of burst 2 (a third is admitted at once).
#[test]
#[cfg_attr(debug_assertions, ignore = "the arithmetic wraps only without overflow checks (a release build)")]
fn gcra_arithmetic_wraps_in_release_builds() {
    for (burst, attempts_max, failures, law) in WRAPPED {
        let (config, schedule) = wrapped_case(burst, attempts_max, failures);
        assert_eq!(verdict(&Governor, config.clone(), schedule.clone(), law), "violated", "{law}");
        assert_eq!(verdict(&Governor, config, schedule, "never_panics"), "holds", "{law}");
    }
}

/// The release-build findings are the overflows of `gcra_arithmetic_overflows_on_huge_quotas`: under
/// overflow checks their cases panic instead (`tau` when the limiter is built, `tat` at the second cell).
#[test]
#[cfg_attr(not(debug_assertions), ignore = "the overflow panics only under overflow checks (a debug build)")]
fn the_release_findings_panic_under_overflow_checks() {
    std::panic::set_hook(Box::new(|_| {}));
    for (burst, attempts_max, failures, law) in WRAPPED {
        let (config, schedule) = wrapped_case(burst, attempts_max, failures);
        assert_eq!(verdict(&Governor, config, schedule, "never_panics"), "violated", "{law}");
    }
}

/// Under overflow checks (see above): a release build's wrapped arithmetic would be judged by the limiter
/// laws instead.
#[cfg(debug_assertions)]
#[test]
fn a_sampled_run_violates_only_never_panics() {
    std::panic::set_hook(Box::new(|_| {}));
    let found = support::survey(&Governor, 0x7131_E1A3, 20_000);
    let violated: Vec<&str> = found.keys().copied().collect();
    assert_eq!(violated, ["never_panics"], "{found:?}");
}

/// Without overflow checks (a release build) the same sampled run breaks the limiter laws through the
/// wrapped arithmetic (`gcra_arithmetic_wraps_in_release_builds`), besides the period past 584 years.
#[test]
#[cfg_attr(debug_assertions, ignore = "the arithmetic wraps only without overflow checks (a release build)")]
fn a_sampled_release_run_violates_the_limiter_laws_through_the_wrap() {
    std::panic::set_hook(Box::new(|_| {}));
    let found = support::survey(&Governor, 0x7131_E1A3, 20_000);
    let violated: Vec<&str> = found.keys().copied().collect();
    assert_eq!(violated, ["limiter_admits_with_tokens", "limiter_within_rate", "never_panics"], "{found:?}");
}

#[test]
fn the_domain_reaches_every_extreme_and_starts_at_the_simplest() {
    use timelaw_generators::{sample_case, simplest_config, swarm_for, ConfigDomain, Describe, Simplest, Swarm};
    let simplest = simplest_config(&Governor);
    assert_eq!(simplest, GovernorConfig::default());
    assert_eq!(Governor.describe(&mut Simplest, &Swarm::everything()), simplest);
    assert!(Governor.shrink_config(&simplest).iter().all(|candidate| *candidate != simplest));
    let configs: Vec<GovernorConfig> =
        (0..4000).map(|index| sample_case(&Governor, index, &swarm_for(7, index)).config).collect();
    let periods: Vec<Duration> = configs.iter().map(|config| config.period).collect();
    assert!(configs.iter().any(|config| config.burst == 1));
    assert!(configs.iter().any(|config| config.burst == u32::MAX));
    assert!(periods.contains(&Duration::from_nanos(1)) && periods.contains(&Duration::MAX));
    assert!(configs.iter().all(|config| config.burst >= 1 && !config.period.is_zero()), "only legal quotas");
}
