//! recloser under load: when the breaker opens (the `len + 1`-th result, over the last `len`), what
//! overlapping calls count, the open period and the half-open state on virtual std clocks, and the
//! findings of docs/findings.md at their minimal cases.

mod support;

use std::time::Duration;

use timelaw_adapters::recloser::{RecloserConfig, RecloserSubject, OPEN_WAIT_DEFAULT, OPEN_WAIT_OVERFLOW};
use timelaw_adapters::F32;
use timelaw_core::{execute, CallScript, Case, EventKind, Outcome, Schedule, Step, VDuration};
use timelaw_laws::Verdict;

fn config(closed_len: u32, error_rate: f32) -> RecloserConfig {
    RecloserConfig { closed_len, error_rate_closed: F32(error_rate), ..RecloserConfig::default() }
}

const MS: fn(u64) -> VDuration = VDuration::from_millis;

/// One call per letter, one after another: `f` fails, `s` succeeds (each attempt takes 1 ms).
fn sequential(outcomes: &str) -> Schedule {
    Schedule::new(outcomes.chars().map(|c| CallScript::new(vec![step(c)])).collect())
}

fn step(c: char) -> Step {
    Step::new(MS(1), if c == 'f' { Outcome::Transient } else { Outcome::Ok })
}

/// Calls arriving at `(ms, outcome)`.
fn arriving(calls: &[(u64, char)]) -> Schedule {
    Schedule::new(calls.iter().map(|&(at, c)| CallScript::new(vec![step(c)]).arriving(MS(at))).collect())
}

/// `a` for each call admitted, `r` for each rejected.
fn admitted(config: &RecloserConfig, schedule: &Schedule) -> String {
    let trace = execute(&RecloserSubject, config, schedule, 0);
    assert_eq!(trace.end, timelaw_core::TraceEnd::Complete, "{trace:?}");
    (0..schedule.calls.len() as u32)
        .map(|call| match trace.call_events(call).any(|e| matches!(e.kind, EventKind::Rejected { .. })) {
            true => 'r',
            false => 'a',
        })
        .collect()
}

#[track_caller]
fn check(config: RecloserConfig, schedule: Schedule, expect: &str) {
    assert_eq!(admitted(&config, &schedule), expect);
    let verdict = support::judge(&RecloserSubject, &Case::new(config, schedule, 0), "deterministic_replay");
    assert!(matches!(verdict, Verdict::Holds), "{verdict}");
}

#[test]
fn the_rate_is_first_computed_at_the_result_after_the_ring_is_full() {
    // "At least `len` calls will be performed before calculating a failure_rate".
    check(config(1, 0.5), sequential("fff"), "aar");
    check(config(2, 0.5), sequential("fffff"), "aaarr");
    check(config(3, 1.0), sequential("ffffs"), "aaaar");
    // Over the last `len` results only: the success drops out of the ring.
    check(config(2, 1.0), sequential("sffff"), "aaarr");
    check(config(3, 1.0), sequential("sffff"), "aaaar");
    check(config(2, 0.6), sequential("fsfsfs"), "aaaaaa");
    check(config(2, 0.5), sequential("sfs"), "aaa");
    // The rate is computed at every result, a success too: `[f, s]` is 0.5, at the threshold.
    check(config(2, 0.5), sequential("sfsf"), "aaar");
    // A threshold at or below 0 opens at the first computed rate, successes or not; above 1 never.
    check(config(1, 0.0), sequential("sss"), "aar");
    check(config(1, 2.0), sequential("ffff"), "aaaa");
}

#[test]
fn overlapping_calls_are_all_admitted_while_closed_and_counted_when_they_end() {
    // Three calls together, all admitted (closed); their three failures open it at 1 ms.
    check(config(2, 0.5), arriving(&[(0, 'f'), (0, 'f'), (0, 'f'), (5, 's')]), "aaar");
    // Results of calls admitted closed that land after it opened change nothing: still open.
    check(config(1, 0.5), arriving(&[(0, 'f'), (0, 'f'), (0, 's'), (5, 's')]), "aaar");
}

#[test]
fn it_half_opens_once_open_wait_has_passed_in_virtual_time() {
    let open = |open_wait_ms: u64| RecloserConfig { open_wait: Duration::from_millis(open_wait_ms), ..config(1, 0.5) };
    // Opens when the second failure lands at 3 ms; open until 13 ms, rejected at 13 ms itself (recloser
    // lets a call through once `now > until`), half-open and admitting at 14 ms.
    check(open(10), arriving(&[(0, 'f'), (2, 'f'), (13, 's'), (14, 's')]), "aara");
    // The default period: rejected 30 s after opening, admitted 1 ms later.
    let at_30_s = 3 + OPEN_WAIT_DEFAULT.as_millis() as u64;
    check(config(1, 0.5), arriving(&[(0, 'f'), (2, 'f'), (at_30_s, 's'), (at_30_s + 1, 's')]), "aara");
    // Half-open lets every call through: three overlapping calls after the period are all admitted.
    check(open(10), arriving(&[(0, 'f'), (2, 'f'), (20, 'f'), (20, 'f'), (20, 'f')]), "aaaaa");
}

#[test]
fn half_open_closes_or_opens_again_on_its_own_ring() {
    let half_open = |error_rate_half_open: f32| RecloserConfig {
        open_wait: Duration::from_millis(10),
        half_open_len: 1,
        error_rate_half_open: F32(error_rate_half_open),
        ..config(1, 0.5)
    };
    // Two failures at 14 and 16 ms fill and judge the half-open ring of one: open again until 27 ms.
    let again = arriving(&[(0, 'f'), (2, 'f'), (14, 'f'), (16, 'f'), (20, 's'), (28, 's')]);
    check(half_open(0.5), again, "aaaara");
    // Two successes close it; closed, the ring of one opens only on its second result.
    let closes = arriving(&[(0, 'f'), (2, 'f'), (14, 's'), (16, 's'), (20, 'f'), (22, 's')]);
    check(half_open(0.5), closes, "aaaaaa");
}
fn never_panics(config: RecloserConfig, schedule: Schedule) -> String {
    let verdict = support::judge(&RecloserSubject, &Case::new(config, schedule, 0), "never_panics");
    verdict.to_string()
}

#[test]
fn a_ring_of_length_zero_panics_at_the_first_result() {
    std::panic::set_hook(Box::new(|_| {})); // The panics are the finding.
    assert!(!never_panics(config(1, 0.5), sequential("s")).contains("violated"));
    let found = never_panics(config(0, 0.5), sequential("s"));
    assert!(found.contains("violated") && found.contains("subtract with overflow"), "{found}");
}

#[test]
fn an_open_wait_past_the_instant_range_panics_when_it_opens() {
    std::panic::set_hook(Box::new(|_| {}));
    let max = RecloserConfig { open_wait: Duration::MAX, ..config(1, 0.5) };
    assert!(!never_panics(max.clone(), sequential("f")).contains("violated"));
    let found = never_panics(max, sequential("ff"));
    assert!(found.contains("violated") && found.contains("overflow when adding duration to instant"), "{found}");
    // On virtual std clocks the boundary is the same on every machine: the longest period that fits
    // when the breaker opens at the case's start fits, one second more does not.
    let at = |open_wait: Duration| RecloserConfig { open_wait, ..config(1, 0.5) };
    let instant = || Schedule::new(vec![CallScript::new(vec![Step::instant(Outcome::Transient)]); 2]);
    assert!(!never_panics(at(OPEN_WAIT_OVERFLOW), instant()).contains("violated"));
    let past = never_panics(at(OPEN_WAIT_OVERFLOW + Duration::from_secs(1)), instant());
    assert!(past.contains("overflow when adding duration to instant"), "{past}");
}

#[test]
fn a_sampled_run_violates_only_never_panics() {
    std::panic::set_hook(Box::new(|_| {}));
    let found = support::survey(&RecloserSubject, 0x7131_E1A3, 20_000);
    let violated: Vec<&str> = found.keys().copied().collect();
    assert_eq!(violated, ["never_panics"], "{found:?}");
}

#[test]
fn the_domain_reaches_every_extreme_and_starts_at_the_simplest() {
    use timelaw_adapters::recloser::RING_LEN_MAX;
    use timelaw_generators::{sample_case, simplest_config, swarm_for, ConfigDomain, Describe, Simplest, Swarm};
    let simplest = simplest_config(&RecloserSubject);
    assert_eq!(RecloserSubject.describe(&mut Simplest, &Swarm::everything()), simplest);
    assert!(RecloserSubject.shrink_config(&simplest).iter().all(|candidate| *candidate != simplest));
    let configs: Vec<RecloserConfig> =
        (0..4000).map(|index| sample_case(&RecloserSubject, index, &swarm_for(7, index)).config).collect();
    assert!(configs.iter().any(|config| config.closed_len == 0));
    assert!(configs.iter().any(|config| config.closed_len > 1000));
    assert!(configs.iter().any(|config| config.open_wait == Duration::MAX));
    assert!(configs.iter().any(|config| config.open_wait < Duration::from_secs(1)), "periods a case outlives");
    let just_below =
        |wait: Duration| wait <= OPEN_WAIT_OVERFLOW && OPEN_WAIT_OVERFLOW - wait < Duration::from_secs(1 << 20);
    assert!(configs.iter().any(|config| just_below(config.open_wait)));
    assert!(configs.iter().any(|config| config.open_wait > OPEN_WAIT_OVERFLOW && config.open_wait < Duration::MAX));
    assert!(configs.iter().all(|config| config.closed_len <= RING_LEN_MAX && config.half_open_len <= RING_LEN_MAX));
}
