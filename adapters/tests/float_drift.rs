//! Long runs of crates that compute delays in floating point: their rounding compounds, retry after
//! retry, and the delay laws must not mistake it for a broken backoff (`timelaw_core::float`). A fuzzed
//! backon exponential backoff of factor 1.5 drifted by about 100 ppb at its 27th delay, far above a
//! tolerance taken from its first 16 delays.

mod support;

use std::time::Duration;

use timelaw_adapters::backon::{
    BackonBuilder, BackonExponential, BackonExponentialConfig, BackonRetry, BackonRetryConfig,
};
use timelaw_adapters::F32;
use timelaw_core::{Case, Outcome, Schedule, Step, Subject};
use timelaw_laws::{ids, Verdict};

/// The delay laws a float backoff's long run is judged by.
const DELAY_LAWS: [&str; 4] =
    [ids::BACKOFF_SHAPE_WITHOUT_JITTER, ids::DELAY_WITHIN_CAP, ids::DELAY_AT_LEAST_MIN, ids::JITTER_WITHIN_BOUNDS];

fn failures(count: usize) -> Schedule {
    Schedule::single(vec![Step::instant(Outcome::Transient); count])
}

fn exponential(factor: f32, min_delay: Duration, max_times: u32) -> BackonExponentialConfig {
    BackonExponentialConfig {
        jitter: false,
        factor: F32(factor),
        min_delay,
        // A cap no run of these tests reaches but the fastest: the delay laws all apply.
        max_delay: Some(Duration::from_secs(1 << 40)),
        max_times: Some(max_times),
        total_delay: None,
    }
}

/// Every delay law holds (judged, not vacuous; jitter's law applies only with jitter) on `retries`
/// failures in a row.
#[track_caller]
fn holds<S: Subject>(subject: &S, config: S::Config, retries: usize) {
    let case = Case::new(config, failures(retries + 1), 0);
    for law in DELAY_LAWS {
        let verdict = support::judge(subject, &case, law);
        let judged = law == ids::JITTER_WITHIN_BOUNDS || matches!(verdict, Verdict::Holds);
        assert!(judged && !verdict.is_violated(), "{} {law}, {:?}: {verdict}", subject.name(), case.config);
    }
}

#[test]
fn backon_exponential_rounding_over_long_runs_is_tolerated() {
    // The fuzzed case: 27 delays of factor 1.5 (the 27th about 71 days), and factors whose products round
    // at every step, over runs far past the 16 delays the absolute tolerance is taken from.
    holds(&BackonExponential, exponential(1.5, Duration::from_secs(162), 40), 30);
    for factor in [1.1_f32, 1.3, 1.7, 3.3, 1.000_001] {
        holds(&BackonExponential, exponential(factor, Duration::from_millis(7), 200), 200);
    }
    let retry = BackonRetryConfig {
        backoff: BackonBuilder::Exponential(exponential(1.5, Duration::from_secs(162), 40)),
        notify: true,
    };
    holds(&BackonRetry, retry, 30);
}

#[test]
fn a_wrong_factor_is_still_caught_on_a_long_run() {
    // The contract of factor 1.5 judging a run of factor 1.5 * (1 + 2^-20): about 950 ppb more per
    // retry, which compounds past the tolerance (40 retries: 10,240 ppb) by the 12th delay or so.
    let stated = exponential(1.5, Duration::from_secs(162), 40);
    let run = exponential(1.5 * (1.0 + 1.0 / 1_048_576.0), Duration::from_secs(162), 40);
    let case = Case::new(run, failures(31), 0);
    let trace = support::execute(&BackonExponential, &case.config, &case.schedule, 0);
    let contract = BackonExponential.contract(&stated);
    let catalogue = timelaw_laws::Catalogue::standard();
    let law = catalogue.get(ids::BACKOFF_SHAPE_WITHOUT_JITTER).unwrap();
    let observation = timelaw_laws::Observation {
        schedule: &case.schedule,
        seed: 0,
        contract: &contract,
        trace: &trace,
        replay: None,
        without_wall_jumps: None,
    };
    let verdict = law.judge(&observation);
    assert!(verdict.is_violated(), "{verdict}");
}
