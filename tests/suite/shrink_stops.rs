//! Stops an older shrinker reached on the planted-bug corpus (`shrink_quality` at 100 seeds), each
//! shrunk again by today's shrinker: it must reach the bug's canonical minimum. Each stop needed a
//! paired move the older shrinker lacked (named per case), so each case failed before that move.

use crate::common;

use common::corpus::{CorpusBug, CORPUS};
use common::corpus_minima::canonical;
use common::corpus_subject::{Slip, Slipped};
use common::planted_clocks::{ClockBug, ClockPlanted};
use timelaw::core::reference::Policy;
use timelaw::core::{Case, Limits};
use timelaw::generators::ConfigDomain;
use timelaw::laws::Catalogue;
use timelaw::shrink::{shrink, ShrinkBudget};

/// The stop `json` of `bug` shrinks to the canonical minimum (and violates to begin with).
#[track_caller]
fn check(bug: CorpusBug, json: &str) {
    let stop: Case<Policy> = serde_json::from_str(json).expect("a case");
    let shrunk = match bug {
        CorpusBug::Clock(clock) => shrunk(&ClockPlanted(clock), bug, stop),
        CorpusBug::Slip(slip) => shrunk(&Slipped(slip), bug, stop),
        _ => unreachable!("only clock and slip stops are listed"),
    };
    let shown = serde_json::to_string(&shrunk).unwrap();
    assert_eq!(shrunk, canonical(bug), "{bug:?} shrank to {shown}");
}

fn shrunk<S: ConfigDomain<Config = Policy>>(subject: &S, bug: CorpusBug, stop: Case<Policy>) -> Case<Policy> {
    let law = CORPUS.iter().find(|entry| entry.bug == bug).expect("a corpus bug").law;
    let law = *Catalogue::standard().get(law).expect("a catalogue law");
    let outcome = shrink(subject, &law, stop, ShrinkBudget::default(), Limits::default()).expect("the stop violates");
    outcome.case
}

const BASE: &str = r#""backoff":{"constant":{"delay":"0"}},"delay_max":"0","jitter":"none","retry_on":{"transient":true,"rate_limited":true,"timeout":true},"honor_retry_after":false,"attempt_timeout":null"#;

fn case(max_attempts: u32, deadline: &str, circuit: &str, calls: &[&str], clock: &str) -> String {
    let calls: Vec<String> = calls
        .iter()
        .map(|steps| format!(r#"{{"gap_before":"0","steps":[{steps}],"cancel_after":null,"idempotent":true}}"#))
        .collect();
    format!(
        r#"{{"config":{{"max_attempts":{max_attempts},{BASE},"deadline":{deadline},"sleep_budget":null,"circuit":{circuit},"retry_budget":null}},"schedule":{{"calls":[{}]{clock}}},"seed":0}}"#,
        calls.join(",")
    )
}

const TRANSIENT: &str = r#"{"duration":"0","outcome":"transient"}"#;

fn jump(attempt: u32, by: &str) -> String {
    format!(r#","clock":{{"wall_jumps":[{{"at":{{"attempt":{attempt}}},"by":"{by}"}}]}}"#)
}

/// A call dropped with its wall jump re-indexed (`drop_calls_reindexed`): the jump during the second
/// call's first attempt stays on it when the empty first call goes.
#[test]
fn a_call_drops_with_its_wall_jump_reindexed() {
    let bug = CorpusBug::Clock(ClockBug::PanicsOnBackwardsJump);
    check(bug, &case(2, "null", "null", &["", TRANSIENT], &jump(2, "-1ns")));
    check(bug, &case(2, "null", "null", &["", "", TRANSIENT], &jump(3, "-1ns")));
    check(bug, &case(2, "null", "null", &["", TRANSIENT, TRANSIENT], &jump(4, "-1ns")));
    let wall = CorpusBug::Clock(ClockBug::WallClockLimit);
    check(wall, &case(2, r#""1ns""#, "null", &["", TRANSIENT], &jump(2, "1ns")));
}

/// A step made instant with the backward jump during it turned forward (the clocks disagreeing the
/// other way round), and a limit the contract does not state lowered with the step drawn at it.
#[test]
fn a_wall_clock_stop_turns_its_jump_forward() {
    let bug = CorpusBug::Clock(ClockBug::WallClockLimit);
    let slow = |duration: &str| format!(r#"{{"duration":"{duration}","outcome":"transient"}}"#);
    check(bug, &case(2, r#""1ns""#, "null", &[&slow("1ns")], &jump(1, "-1ns")));
    check(bug, &case(2, r#""128.715886ms""#, "null", &[&slow("128.715886ms")], &jump(1, "-1ns")));
    check(bug, &case(2, r#""264.613382ms""#, "null", &[&slow("264.613381ms")], &jump(1, "1ns")));
}

/// A removed deadline writes out the call it ended before its first attempt (a deadline of 0) as an
/// instant transient failure, so the stop without scripted steps reaches the minimum without a deadline.
#[test]
fn a_zero_deadline_gives_way_to_the_failure_it_stood_for() {
    let bug = CorpusBug::Slip(Slip::BreakerCooldownStrict);
    let circuit = r#"{"window":1,"min_calls":1,"failure_percent":1,"open_for":"0","half_open_probes":1}"#;
    check(bug, &case(1, r#""0""#, circuit, &["", ""], ""));
}

const BREAKER_RATIO: &str = r#"{"window":2,"min_calls":1,"failure_percent":50,"open_for":"1ns","half_open_probes":1}"#;

/// A call dropped with the window lowered and the failure percent raised with it
/// (`drop_counted_shares`): one failure in a window of two is 50%, in a window of one 100%.
#[test]
fn a_call_drops_with_its_window_lowered_and_its_percent_raised() {
    let bug = CorpusBug::Slip(Slip::BreakerStrictRatio);
    check(bug, &case(1, "null", BREAKER_RATIO, &["", TRANSIENT, ""], ""));
}

/// A call's last attempt dropped with the attempts lowered and its sleep moved into the attempt before
/// (`drop_paired`): two instant attempts 1 ns apart become one attempt taking 1 ns.
#[test]
fn a_last_attempt_gives_its_sleep_to_the_attempt_before() {
    let bug = CorpusBug::Slip(Slip::BreakerOpenedAtCallStart);
    let circuit = r#"{"window":1,"min_calls":1,"failure_percent":1,"open_for":"1ns","half_open_probes":1}"#;
    let stop = case(2, "null", circuit, &[&format!("{TRANSIENT},{TRANSIENT}"), ""], "");
    check(bug, &stop.replace(r#""delay":"0"}},"delay_max":"0""#, r#""delay":"1ns"}},"delay_max":"1ns""#));
}

/// Two calls of one dispatch joined with the window and the minimum calls lowered
/// (`join_counted_calls`): a failure and a 1 ns success counted in a window of two become one failure
/// taking 1 ns in a window of one.
#[test]
fn two_results_join_into_one_with_the_window_lowered() {
    let bug = CorpusBug::Slip(Slip::BreakerOpenedAtCallStart);
    let circuit = r#"{"window":2,"min_calls":2,"failure_percent":1,"open_for":"1ns","half_open_probes":1}"#;
    let ok = r#"{"duration":"1ns","outcome":"ok"}"#;
    check(bug, &case(1, "null", circuit, &[TRANSIENT, ok, ""], ""));
}

/// A full jitter whose draws let the second delay pass the cap (`drop_jitter_lowered`): without the
/// jitter the first delay reaches the cap, so the jitter goes with the first delay lowered below it.
#[test]
fn a_jitter_goes_with_the_first_delay_lowered() {
    let bug = CorpusBug::Slip(Slip::CapCheckedOnPrevious);
    let linear = |initial: &str, step: &str, cap: &str, seed: &str| {
        format!(
            r#"{{"config":{{"max_attempts":3,"backoff":{{"linear":{{"initial":"{initial}","step":"{step}"}}}},"delay_max":"{cap}","jitter":"full","retry_on":{{"transient":true,"rate_limited":true,"timeout":true}},"honor_retry_after":false,"attempt_timeout":null,"deadline":null,"sleep_budget":null,"circuit":null,"retry_budget":null}},"schedule":{{"calls":[{{"gap_before":"0","steps":[{{"duration":"0","outcome":"transient","repeat":2}}],"cancel_after":null,"idempotent":true}}]}},"seed":{seed}}}"#
        )
    };
    check(bug, &linear("3ns", "3ns", "3ns", "8396428389347614220"));
}

/// The backward-jump stop of `wall-clock-limit` (run seed 20): two instant failures 1 ns apart under a
/// 2 ns deadline, the wall clock 1 ns behind, so the wall-clock limit retries where the monotonic one
/// gives up at the second failure. The first attempt goes with its sleep moved into the attempt after
/// (`drop_paired`, the third attempt left unscripted), then the first delay is folded into the deadline
/// (a 1 ns deadline, no delay), then the step is made instant with the jump turned forward.
#[test]
fn a_first_attempt_and_the_first_delay_give_way_to_one_slow_attempt() {
    let bug = CorpusBug::Clock(ClockBug::WallClockLimit);
    let repeated = r#"{"duration":"0","outcome":"transient","repeat":2}"#;
    let stop = case(3, r#""2ns""#, "null", &[repeated], &jump(1, "-1ns"));
    check(bug, &stop.replace(r#""delay":"0"}},"delay_max":"0""#, r#""delay":"1ns"}},"delay_max":"1ns""#));
}

/// Full jitters whose draws let the third delay pass a 1 ns cap (run seeds 83 and 16): the first delay
/// drawn under the cap lets the second base through uncapped. Linear 1 + 1 ns loses the jitter with the
/// first delay at its lowest draw and the second kept (linear 0 + 2 ns, `drop_jitter_lowered`); linear
/// 0 + 1 ns, whose first delay is already the lowest draw, drops its first dispatch with the backoff
/// advanced one retry and then loses the jitter the same way (`drop_paired`).
#[test]
fn a_jitter_goes_with_the_first_delay_lowered_and_the_second_kept() {
    let bug = CorpusBug::Slip(Slip::CapCheckedOnPrevious);
    let linear = |initial: &str, step: &str, seed: &str| {
        format!(
            r#"{{"config":{{"max_attempts":4,"backoff":{{"linear":{{"initial":"{initial}","step":"{step}"}}}},"delay_max":"1ns","jitter":"full","retry_on":{{"transient":true,"rate_limited":true,"timeout":true}},"honor_retry_after":false,"attempt_timeout":null,"deadline":null,"sleep_budget":null,"circuit":null,"retry_budget":null}},"schedule":{{"calls":[{{"gap_before":"0","steps":[{{"duration":"0","outcome":"transient","repeat":3}}],"cancel_after":null,"idempotent":true}}]}},"seed":{seed}}}"#
        )
    };
    check(bug, &linear("1ns", "1ns", "17980219722805493512"));
    check(bug, &linear("0", "1ns", "14084200143338801026"));
}

/// The single moves (`timelaw::shrink::moves`) from the stop `json` that still violate the slip's
/// corpus law, by name.
fn violating_moves(slip: Slip, json: &str) -> Vec<String> {
    let stop: Case<Policy> = serde_json::from_str(json).expect("a case");
    let law = CORPUS.iter().find(|entry| entry.bug == CorpusBug::Slip(slip)).expect("a corpus bug").law;
    let law = *Catalogue::standard().get(law).expect("a catalogue law");
    let subject = Slipped(slip);
    let violates = |case: &Case<Policy>| {
        timelaw::eval::evaluate(&subject, case, Limits::default(), false).judge(&law, case).is_violated()
    };
    timelaw::shrink::moves(&subject, &stop).into_iter().filter(|m| violates(&m.case)).map(|m| m.name).collect()
}

/// A step that only let time pass before the next call becomes that call's gap (`step_to_gap`): a 1 ns
/// success in the first call puts the second call past a deadline counted from the first call's start.
/// No other single move keeps the violation.
#[test]
fn a_step_that_only_let_time_pass_becomes_a_gap() {
    let bug = CorpusBug::Slip(Slip::DeadlineFromFirstCall);
    let ok = r#"{"duration":"1ns","outcome":"ok"}"#;
    let stop = case(1, r#""1ns""#, "null", &[ok, ""], "");
    check(bug, &stop);
    assert_eq!(
        violating_moves(Slip::DeadlineFromFirstCall, &stop),
        ["call 0's last step dropped, its time into the next call's gap"]
    );
}

/// A tie of equal numbers that includes a count (`max_attempts` 2 beside a 2 ns delay, cap and
/// deadline) is lowered without the count: the durations fall to 1 ns together, where the whole group
/// would stop at the count's minimum of 1 (`shrink_numbers`, run seed 3 of the bench).
#[test]
fn a_tie_with_a_count_lowers_the_durations_without_it() {
    let bug = CorpusBug::Slip(Slip::DeadlineSleepStrict);
    let stop = case(2, r#""2ns""#, "null", &[TRANSIENT], "");
    check(bug, &stop.replace(r#""delay":"0"}},"delay_max":"0""#, r#""delay":"2ns"}},"delay_max":"2ns""#));
}

/// An attempt that only let time pass before the retry (a 1 ns fatal failure its 1 ns timeout cuts,
/// ranking as a hang) becomes an instant transient failure with its time moved into the first delay
/// (`step_to_gap`'s second form), the cap raised with the delay it equals: the retry starts at 1 ns as
/// before, where a timer armed at the call's start has no time left. No other single move keeps the
/// violation.
#[test]
fn an_attempts_time_moves_into_the_delay_after_it() {
    let bug = CorpusBug::Slip(Slip::TimeoutArmedPerCall);
    let fatal = r#"{"duration":"1ns","outcome":"fatal"}"#;
    let stop = case(2, "null", "null", &[fatal], "").replace(r#""attempt_timeout":null"#, r#""attempt_timeout":"1ns""#);
    check(bug, &stop);
    let only = ["call 0's first step an instant failure, its time into the first delay"];
    assert_eq!(violating_moves(Slip::TimeoutArmedPerCall, &stop), only);
}

/// A gap that only waited for the open period to pass comes down with it (`lower_gap_with_number`): a
/// call 1 ns after a 1 ns failure under a 2 ns open period becomes a call at once under a 1 ns one (run
/// seed 26 of the bench); either alone loses the violation.
#[test]
fn a_gap_comes_down_with_the_boundary_it_waited_for() {
    let bug = CorpusBug::Slip(Slip::BreakerOpenedAtCallStart);
    let circuit = r#"{"window":1,"min_calls":1,"failure_percent":1,"open_for":"2ns","half_open_probes":1}"#;
    let failure = r#"{"duration":"1ns","outcome":"transient"}"#;
    let stop = case(1, "null", circuit, &[failure, ""], "");
    check(bug, &stop.replacen(r#""gap_before":"0","steps":[]"#, r#""gap_before":"1ns","steps":[]"#, 1));
}

/// A hang its 1 ns timeout cut counts the time it ran when it moves into the first delay (run seed 13
/// of the bench).
#[test]
fn a_cut_hangs_time_moves_into_the_delay_after_it() {
    let bug = CorpusBug::Slip(Slip::TimeoutArmedPerCall);
    let hang = r#"{"duration":"0","outcome":"hang"}"#;
    check(
        bug,
        &case(2, "null", "null", &[hang], "").replace(r#""attempt_timeout":null"#, r#""attempt_timeout":"1ns""#),
    );
}
