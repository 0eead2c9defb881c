//! With virtual std clocks, std's `Instant::now()` and tokio's paused `Instant::now()` agree: the World
//! catches up with tokio's clock before every poll of the subject's future.

use std::cell::RefCell;
use std::time::Duration;

use timelaw_core::{
    execute, Abort, CallResult, Contract, Outcome, Schedule, StdClocks, Step, Subject, VDuration, World,
};
use timelaw_tokio::serve_calls;

thread_local! {
    /// (std's elapsed, tokio's elapsed) after each sleep.
    static SEEN: RefCell<Vec<(Duration, Duration)>> = const { RefCell::new(Vec::new()) };
}

/// Sleeps on tokio's timers, then reads both clocks, three times a call; its attempt runs in between.
struct Sleeper;

impl Subject for Sleeper {
    type Config = ();
    fn name(&self) -> &str {
        "tokio-sleeper"
    }
    fn contract(&self, (): &()) -> Contract {
        Contract::default()
    }
    fn run(&self, (): &(), world: &mut World<'_>) -> Result<(), Abort> {
        serve_calls(world, |w, _| async move {
            let std_start = std::time::Instant::now();
            let tokio_start = tokio::time::Instant::now();
            for millis in [7, 250, 1] {
                tokio::time::sleep(Duration::from_millis(millis)).await;
                let seen = (std_start.elapsed(), tokio_start.elapsed());
                SEEN.with(|cell| cell.borrow_mut().push(seen));
            }
            w.attempt().await?;
            let seen = (std_start.elapsed(), tokio_start.elapsed());
            SEEN.with(|cell| cell.borrow_mut().push(seen));
            Ok(CallResult::Ok)
        })
    }
    fn std_clocks(&self) -> StdClocks {
        StdClocks::Virtual
    }
}

#[test]
fn std_and_tokio_clocks_agree() {
    let step = Step::new(VDuration::from_millis(40), Outcome::Ok);
    let schedule = Schedule::single(vec![step]);
    let trace = execute(&Sleeper, &(), &schedule, 0);
    assert_eq!(trace.end, timelaw_core::TraceEnd::Complete, "{trace:?}");
    let seen = SEEN.with(|cell| cell.take());
    let ms = Duration::from_millis;
    let expected: Vec<_> = [7, 257, 258, 298].into_iter().map(|total| (ms(total), ms(total))).collect();
    assert_eq!(seen, expected, "(std, tokio) elapsed after each sleep and the attempt");
}
