//! tower under load: `ConcurrencyLimit`, `RateLimit` and `Hedge` serving overlapping calls on the
//! concurrent tokio driver. What each does on small cases, the load laws on them, the findings, and
//! that every legal extreme setting is in the config domains.

mod support;

use std::time::Duration;

use timelaw_adapters::tower::{
    TowerConcurrencyLimit, TowerConcurrencyLimitConfig, TowerHedge, TowerHedgeConfig, TowerRateLimit,
    TowerRateLimitConfig, SEMAPHORE_PERMITS_MAX,
};
use timelaw_adapters::F32;
use timelaw_core::{
    execute, mix, CallScript, Case, Contract, Declared, EventKind, LimiterContract, LimiterWindow, Outcome, Schedule,
    SplitMix64, Step, Subject, VDuration,
};
use timelaw_generators::{swarm_for, ConfigDomain};
use timelaw_laws::{Catalogue, Observation, Verdict};

fn ms(millis: u64) -> VDuration {
    VDuration::from_millis(millis)
}

/// `count` calls arriving at `arrival_ms`, each one attempt of `steps`, with the interleave choices.
fn calls(arrivals_ms: &[u64], steps: &[(u64, Outcome)], interleave: &[u32]) -> Schedule {
    let steps: Vec<Step> = steps.iter().map(|&(duration_ms, outcome)| Step::new(ms(duration_ms), outcome)).collect();
    let calls = arrivals_ms.iter().map(|&at| CallScript::new(steps.clone()).arriving(ms(at)));
    Schedule::new(calls.collect()).with_interleave(interleave.to_vec())
}

/// `(ms, call, kind name)` of the events of one kind family, for short expectations.
fn starts<S: Subject>(subject: &S, config: &S::Config, schedule: &Schedule) -> Vec<(u64, u32, &'static str)> {
    let trace = execute(subject, config, schedule, 0);
    assert!(trace.is_complete(), "{:?}", trace.end);
    let name = |kind: &EventKind| match kind {
        EventKind::Queued => Some("queued"),
        EventKind::AttemptStart => Some("start"),
        EventKind::AttemptDropped { .. } => Some("dropped"),
        EventKind::CallEnd { .. } => Some("end"),
        _ => None,
    };
    trace.events.iter().filter_map(|e| Some((e.at.as_nanos() / 1_000_000, e.call, name(&e.kind)?))).collect()
}

/// `law` holds (or is vacuous) on the case and is judged for real somewhere in the suite.
#[track_caller]
fn holds<S: Subject>(subject: &S, config: S::Config, schedule: Schedule, law: &str) -> Verdict {
    let verdict = support::judge(subject, &Case::new(config, schedule, 0), law);
    assert!(matches!(verdict, Verdict::Holds | Verdict::Vacuous), "{law}: {verdict}");
    verdict
}

#[test]
fn concurrency_limit_makes_the_third_call_wait() {
    let limit = TowerConcurrencyLimitConfig { max: 2 };
    let three = |interleave: &[u32]| calls(&[0, 0, 0], &[(10, Outcome::Ok)], interleave);
    let expect = [(0, 0, "start"), (0, 1, "start"), (0, 2, "queued"), (10, 0, "end"), (10, 1, "end"), (10, 2, "start")];
    assert_eq!(starts(&TowerConcurrencyLimit, &limit, &three(&[]))[..6], expect);
    // Call 2 polled first: it takes a permit, and call 1 waits.
    let found = starts(&TowerConcurrencyLimit, &limit, &three(&[2]));
    assert_eq!(found[..3], [(0, 2, "start"), (0, 0, "start"), (0, 1, "queued")]);
    let verdict = holds(&TowerConcurrencyLimit, limit.clone(), three(&[]), "bulkhead_in_flight_within_limit");
    assert_eq!(verdict, Verdict::Holds);
    holds(&TowerConcurrencyLimit, limit, three(&[1, 1]), "bulkhead_in_flight_within_limit");
}

/// `RateLimit` keeps one waker, the last poller's: when that call is cancelled while it waits, the
/// calls that polled before it are woken by the waiting line it leaves (`SharedService`), not left to
/// wait for nothing (a deadlock the concurrent driver would report as a `terminates` violation).
#[test]
fn rate_limit_wakes_the_line_when_its_last_poller_is_cancelled() {
    let rate = TowerRateLimitConfig { num: 1, per: Duration::from_micros(500) };
    let mut schedule = calls(&[0, 0, 0], &[], &[]);
    schedule.calls[2].cancel_after = Some(VDuration::from_nanos(1));
    let trace = execute(&TowerRateLimit, &rate, &schedule, 0);
    assert!(trace.is_complete(), "{:?}", trace.end);
    let ends = trace.events.iter().filter(|e| matches!(e.kind, EventKind::CallEnd { .. })).count();
    assert_eq!(ends, 3);
    holds(&TowerRateLimit, rate, schedule, "terminates");
}

#[test]
fn rate_limit_admits_num_per_window() {
    let rate = TowerRateLimitConfig { num: 2, per: Duration::from_millis(10) };
    let four = calls(&[0, 0, 0, 0], &[(0, Outcome::Ok)], &[]);
    let dispatches: Vec<(u64, u32)> = (starts(&TowerRateLimit, &rate, &four).into_iter())
        .filter(|&(_, _, kind)| kind == "start")
        .map(|(at, call, _)| (at, call))
        .collect();
    // Two in the window that opens at 0 ms, the other two when the next one opens, at 10 ms. `RateLimit`
    // keeps one waker, the last poller's: call 3 is woken, goes first, and the round after its dispatch
    // lets call 2 in.
    assert_eq!(dispatches, [(0, 0), (0, 1), (10, 3), (10, 2)]);
    assert_eq!(holds(&TowerRateLimit, rate, four, "limiter_within_rate"), Verdict::Holds);
}

#[test]
fn rate_limit_contract_is_a_fixed_window_stated_exactly() {
    let check = |num, per_ms, expect: Option<(u32, u64)>| {
        let contract = TowerRateLimit.contract(&TowerRateLimitConfig { num, per: Duration::from_millis(per_ms) });
        let limiter = contract.limiter.into_stated();
        assert!(limiter.is_none_or(|limiter| limiter.window == LimiterWindow::Fixed), "{limiter:?}");
        let stated = limiter.map(|limiter| (limiter.burst, limiter.refill_every.as_nanos()));
        assert_eq!(stated, expect, "{num} per {per_ms} ms");
    };
    check(2, 10, Some((2, 10_000_000)));
    check(1, 10, Some((1, 10_000_000)));
    check(3, 10, Some((3, 10_000_000)));
    check(u64::from(u32::MAX), 10, Some((u32::MAX, 10_000_000)));
    check(u64::from(u32::MAX) + 1, 10, None); // past the vocabulary's burst: unstated
}

/// Two per 10 ms, a window opening at its first request: two requests at 9 ms fill the window opened at
/// 9 ms, two more at 19 ms open the next one, four within 10 ms. tower keeps that exact fixed window; a
/// token bucket of the same numbers, or a window one request smaller, is broken by it.
#[test]
fn rate_limit_keeps_its_fixed_window_and_not_a_bucket() {
    let rate = TowerRateLimitConfig { num: 2, per: Duration::from_millis(10) };
    let across = calls(&[9, 9, 19, 19], &[(0, Outcome::Ok)], &[]);
    let dispatches: Vec<u64> =
        starts(&TowerRateLimit, &rate, &across).into_iter().filter(|e| e.2 == "start").map(|e| e.0).collect();
    assert_eq!(dispatches, [9, 9, 19, 19]);
    assert_eq!(holds(&TowerRateLimit, rate.clone(), across.clone(), "limiter_within_rate"), Verdict::Holds);
    let judged_as = |limiter: LimiterContract| {
        let trace = execute(&TowerRateLimit, &rate, &across, 0);
        let contract = Contract { limiter: Declared::Stated(limiter), ..TowerRateLimit.contract(&rate) };
        let observation = Observation {
            schedule: &across,
            seed: 0,
            contract: &contract,
            trace: &trace,
            replay: None,
            without_wall_jumps: None,
        };
        Catalogue::standard().get("limiter_within_rate").unwrap().judge(&observation)
    };
    assert!(judged_as(LimiterContract::token_bucket(2, ms(10))).is_violated());
    let smaller = LimiterContract { window: LimiterWindow::Fixed, ..LimiterContract::token_bucket(1, ms(10)) };
    assert!(judged_as(smaller).is_violated());
}

#[test]
fn hedge_sends_one_copy_and_drops_the_loser() {
    let config = TowerHedgeConfig::default(); // no data points needed: an empty histogram gives delay 0
    let slow_then_fast =
        Schedule::new(vec![
            CallScript::new(vec![Step::new(ms(30), Outcome::Ok), Step::new(ms(10), Outcome::Ok)]).arriving(ms(0))
        ]);
    let found = starts(&TowerHedge, &config, &slow_then_fast);
    assert_eq!(found, [(0, 0, "start"), (0, 0, "start"), (10, 0, "dropped"), (10, 0, "end")]);
    for law in ["hedges_within_limit_and_delay", "hedged_call_leaves_no_attempt_running"] {
        assert_eq!(holds(&TowerHedge, config.clone(), slow_then_fast.clone(), law), Verdict::Holds, "{law}");
    }
    // A non-idempotent call is never copied.
    let mut once = slow_then_fast;
    once.calls[0].idempotent = false;
    assert_eq!(starts(&TowerHedge, &config, &once), [(0, 0, "start"), (30, 0, "end")]);
    // With more data points required than recorded, no hedge either.
    let wary = TowerHedgeConfig { min_data_points: 5, ..config };
    let one = calls(&[0], &[(30, Outcome::Ok), (10, Outcome::Ok)], &[]);
    assert_eq!(starts(&TowerHedge, &wary, &one), [(0, 0, "start"), (30, 0, "end")]);
}

/// The findings of docs/findings.md: the panic, and the neighbouring setting without it.
#[test]
fn findings_panic_on_legal_extremes_only() {
    let one_call = || calls(&[0], &[(0, Outcome::Ok)], &[]);
    let panics = |verdict: Verdict| matches!(verdict, Verdict::Violated(_));
    let limit = |max| Case::new(TowerConcurrencyLimitConfig { max }, one_call(), 0);
    assert!(panics(support::judge(&TowerConcurrencyLimit, &limit(SEMAPHORE_PERMITS_MAX + 1), "never_panics")));
    holds(
        &TowerConcurrencyLimit,
        TowerConcurrencyLimitConfig { max: SEMAPHORE_PERMITS_MAX },
        one_call(),
        "never_panics",
    );
    let rate = |per| Case::new(TowerRateLimitConfig { num: 1, per }, one_call(), 0);
    assert!(panics(support::judge(&TowerRateLimit, &rate(Duration::MAX), "never_panics")));
    holds(
        &TowerRateLimit,
        TowerRateLimitConfig { num: 1, per: Duration::from_secs(u64::from(u32::MAX)) },
        one_call(),
        "never_panics",
    );
    let hedge = |period| Case::new(TowerHedgeConfig { period, ..TowerHedgeConfig::default() }, one_call(), 0);
    assert!(panics(support::judge(&TowerHedge, &hedge(Duration::ZERO), "never_panics")));
    holds(
        &TowerHedge,
        TowerHedgeConfig { period: Duration::from_nanos(1), ..TowerHedgeConfig::default() },
        one_call(),
        "never_panics",
    );
}

/// Samples 4,000 configs of `subject` and returns them.
fn sampled<S: ConfigDomain>(subject: &S) -> Vec<S::Config> {
    (0..4000).map(|index| subject.sample_config(&mut SplitMix64::new(mix(5, index)), &swarm_for(5, index))).collect()
}

#[test]
fn domains_reach_every_legal_extreme() {
    let limits: Vec<usize> = sampled(&TowerConcurrencyLimit).iter().map(|config| config.max).collect();
    for max in [0, 1, u32::MAX as usize, SEMAPHORE_PERMITS_MAX] {
        assert!(limits.contains(&max), "max {max}");
    }
    assert!(limits.iter().any(|&max| max > SEMAPHORE_PERMITS_MAX));
    let rates = sampled(&TowerRateLimit);
    assert!(rates.iter().all(|config| config.validate().is_ok()));
    assert!(rates.iter().any(|config| config.num == u64::MAX) && rates.iter().any(|config| config.num == 1));
    assert!(rates.iter().any(|config| config.per == Duration::MAX));
    assert!(rates.iter().any(|config| config.per == Duration::from_nanos(1)));
    let hedges = sampled(&TowerHedge);
    assert!(hedges.iter().any(|config| config.period == Duration::ZERO));
    assert!(hedges.iter().any(|config| config.period == Duration::MAX));
    assert!(hedges.iter().any(|config| config.min_data_points == u64::MAX));
    for percentile in [0.0, 1.0, -1.0, f32::MAX] {
        assert!(hedges.iter().any(|config| config.latency_percentile == F32(percentile)), "{percentile}");
    }
}

/// A misreading of a middleware's docs, in test code: the real middleware under a contract that claims
/// more than the docs promise, so the load laws must catch it.
struct Misread<S>(S, fn(&mut timelaw_core::Contract));

impl<S: Subject> Subject for Misread<S> {
    type Config = S::Config;
    fn name(&self) -> &str {
        "misread"
    }
    fn contract(&self, config: &S::Config) -> timelaw_core::Contract {
        let mut contract = self.0.contract(config);
        (self.1)(&mut contract);
        contract
    }
    fn run(&self, config: &S::Config, world: &mut timelaw_core::World<'_>) -> Result<(), timelaw_core::Abort> {
        self.0.run(config, world)
    }
}

#[test]
fn the_load_laws_catch_a_misread_contract() {
    let violated = |verdict: Verdict| assert!(matches!(verdict, Verdict::Violated(_)), "{verdict}");
    // A bulkhead one smaller than `ConcurrencyLimit`'s.
    let smaller = Misread(TowerConcurrencyLimit, |contract| {
        if let timelaw_core::Declared::Stated(bulkhead) = &mut contract.bulkhead {
            bulkhead.max_in_flight -= 1;
        }
    });
    let three = Case::new(TowerConcurrencyLimitConfig { max: 2 }, calls(&[0, 0, 0], &[(10, Outcome::Ok)], &[]), 0);
    violated(support::judge(&smaller, &three, "bulkhead_in_flight_within_limit"));
    // `RateLimit` read as a token bucket of `num` refilled every `per / num`: a full window at its end
    // and the next one at its start hold more than such a bucket.
    let bucket = Misread(TowerRateLimit, |contract| {
        if let timelaw_core::Declared::Stated(limiter) = &mut contract.limiter {
            limiter.burst /= 2;
        }
    });
    let rate = TowerRateLimitConfig { num: 3, per: Duration::from_millis(30) };
    let edge = calls(&[0, 29, 29, 30, 30, 30], &[(0, Outcome::Ok)], &[]);
    violated(support::judge(&bucket, &Case::new(rate.clone(), edge.clone(), 0), "limiter_within_rate"));
    assert_eq!(holds(&TowerRateLimit, rate, edge, "limiter_within_rate"), Verdict::Holds);
    // A hedge promised never to be sent.
    let no_hedge = Misread(TowerHedge, |contract| {
        if let timelaw_core::Declared::Stated(hedge) = &mut contract.hedge {
            hedge.max_hedges = 0;
        }
    });
    let hedged = calls(&[0], &[(30, Outcome::Ok), (10, Outcome::Ok)], &[]);
    violated(support::judge(
        &no_hedge,
        &Case::new(TowerHedgeConfig::default(), hedged, 0),
        "hedges_within_limit_and_delay",
    ));
}

/// The laws `subject` violates over 4,000 sampled cases with overlapping calls (every swarm batch with
/// concurrency on), every fourth case replayed for `deterministic_replay`.
fn violated_under_load<S: ConfigDomain>(subject: &S) -> Vec<&'static str> {
    let catalogue = timelaw_laws::Catalogue::standard();
    let mut violated = std::collections::BTreeSet::new();
    for index in 0..4000 {
        let mut swarm = swarm_for(0x7131_E1A3, index);
        swarm.concurrency = true;
        let case = timelaw_generators::sample_case(subject, mix(0x7131_E1A3, index), &swarm);
        let trace = execute(subject, &case.config, &case.schedule, case.seed);
        let replay = (index % 4 == 0).then(|| {
            let (first, second) = (trace.digest(), execute(subject, &case.config, &case.schedule, 0).digest());
            timelaw_laws::Replay {
                first,
                second,
                first_difference: (first != second).then_some(0),
                second_panicked: false,
            }
        });
        let contract = subject.contract(&case.config);
        let observation = timelaw_laws::Observation {
            schedule: &case.schedule,
            seed: case.seed,
            contract: &contract,
            trace: &trace,
            replay,
            without_wall_jumps: None,
        };
        violated.extend(catalogue.iter().filter(|law| law.judge(&observation).is_violated()).map(|law| law.id));
    }
    violated.into_iter().collect()
}

#[test]
fn under_load_only_the_findings_are_violated() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {})); // Panicking subjects are findings, not noise.
    let found = [
        violated_under_load(&TowerConcurrencyLimit),
        violated_under_load(&TowerRateLimit),
        violated_under_load(&TowerHedge),
    ];
    std::panic::set_hook(hook);
    // `ConcurrencyLimit::new(service, 0)` admits no call: every caller waits in `poll_ready` forever, a
    // deadlock (docs/findings.md).
    let deadlock = vec!["never_panics", "terminates"];
    assert_eq!(found, [deadlock, vec!["never_panics"], vec!["never_panics"]]);
}
