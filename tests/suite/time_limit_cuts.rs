//! Limits are cuts, not filters: a run that sleeps past the World's virtual time limit is cut there,
//! counted in the run output and the report, its safety laws judged on the prefix, its liveness laws
//! inconclusive, and never a `terminates` violation by itself.

use serde::{Deserialize, Serialize};
use timelaw::core::{
    Abort, AttemptResult, CallResult, Contract, DelayContract, ErrorKind, Outcome, RetryContract, Subject, VDuration,
    World,
};
use timelaw::generators::{Choices, Describe, Swarm};

/// Two centuries: past the World's default virtual time limit of 100 years.
const CENTURIES: VDuration = VDuration::from_secs(200 * 365 * 24 * 3600);

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct SleepyConfig {
    delay: VDuration,
}

/// Retries once after `delay`; with `overshoot` it sleeps that much longer than its cap promises.
#[derive(Clone)]
struct Sleepy {
    overshoot: VDuration,
}

impl Subject for Sleepy {
    type Config = SleepyConfig;
    fn name(&self) -> &str {
        "sleepy"
    }
    fn contract(&self, config: &SleepyConfig) -> Contract {
        Contract {
            retry: RetryContract { max_attempts: Some(2), ..RetryContract::default() },
            delays: DelayContract { max: Some(config.delay), ..DelayContract::default() },
            ..Contract::default()
        }
    }
    fn run(&self, config: &SleepyConfig, world: &mut World<'_>) -> Result<(), Abort> {
        world.for_each_call(|world, _| {
            if world.dispatch()? == AttemptResult::Completed(Outcome::Ok) {
                return Ok(CallResult::Ok);
            }
            world.sleep(config.delay.saturating_add(self.overshoot))?;
            Ok(match world.dispatch()? {
                AttemptResult::Completed(Outcome::Ok) => CallResult::Ok,
                _ => CallResult::Err(ErrorKind::Transient),
            })
        })
    }
}

impl Describe for Sleepy {
    fn describe<C: Choices + ?Sized>(&self, c: &mut C, _swarm: &Swarm) -> SleepyConfig {
        SleepyConfig { delay: [VDuration::from_millis(1), CENTURIES][c.weighted(&[1, 1])] }
    }
}

/// Runs `subject` over 400 cases and checks the cut count is positive and `terminates` never fires;
/// `violated` lists the laws that must be violated (on the prefix before the cut).
#[track_caller]
fn check(subject: &Sleepy, violated: &[&str]) {
    let output = timelaw::check(subject).cases(400).env(false).run();
    assert!(output.time_limit_cuts > 0, "no case was cut");
    assert!(output.time_limit_cuts < 400, "every case was cut");
    let law = |id: &str| output.laws.iter().find(|law| law.law.id == id).unwrap();
    assert_eq!(law("terminates").counts.violated, 0, "a cut is not a termination failure");
    let liveness = output.laws.iter().filter(|law| law.law.kind == timelaw::laws::LawKind::Liveness);
    assert!(liveness.clone().count() > 0);
    for outcome in liveness.filter(|law| law.counts.not_applicable < law.counts.cases) {
        assert!(outcome.counts.inconclusive > 0, "{} is inconclusive on a cut", outcome.law.id);
    }
    for outcome in &output.laws {
        let expected = violated.contains(&outcome.law.id);
        assert_eq!(outcome.counts.violated > 0, expected, "{}", outcome.law.id);
    }
    let report = timelaw::report::to_report(&output);
    assert_eq!(report.time_limit_cuts, output.time_limit_cuts);
    let table = timelaw::reports::render_table(&report, false);
    assert!(table.contains("at the virtual time limit"), "{table}");
    assert!(output.summary().to_string().contains("cut at the virtual time limit"));
}

#[test]
fn cuts_are_counted_and_never_violations() {
    check(&Sleepy { overshoot: VDuration::ZERO }, &[]);
    // A sleep past the cap is caught on the prefix, even when the run is then cut.
    check(&Sleepy { overshoot: VDuration::from_nanos(1) }, &["delay_within_cap"]);
}
