//! Boundary coverage: which boundary values a case reaches ([`classify`]) and how often a batch reached
//! each ([`Coverage`]).
//!
//! Classification reads only the schedule and the contract, never a trace, so it is cheap enough for
//! every case of a run. "Lands on the deadline" uses the jitter-free prediction of a call's timeline: an
//! attempt takes its scripted duration cut by the attempt timeout (a hang takes the whole timeout), and
//! a failed attempt is followed by the contract's capped jitter-free delay (at least the retry-after
//! where the contract honours it).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use timelaw_core::{Contract, JumpAt, Outcome, Schedule, VDuration};

use crate::choice::SMALL_NS_MAX;
use crate::schedule::{jitter_free, predict, NEAR_MAX_SPAN};

/// A boundary the laws care about. The snake_case names are stable (reports use them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoundaryClass {
    /// A step takes exactly the attempt timeout (equality counts as expired in the reference).
    AttemptAtTimeout,
    /// A step takes the attempt timeout minus 1 ns.
    AttemptJustUnderTimeout,
    /// A step takes the attempt timeout plus 1 ns.
    AttemptJustOverTimeout,
    /// An attempt or a sleep is predicted to end exactly on the call's deadline.
    LandsOnDeadline,
    /// A retry's jitter-free delay reaches the cap (the call fails often enough to get there).
    DelayReachesCap,
    /// A call scripts more steps than `max_attempts`.
    StepsOverAttempts,
    /// A call scripts exactly `max_attempts` steps.
    StepsEqualAttempts,
    /// A call scripts fewer steps than `max_attempts`.
    StepsUnderAttempts,
    /// A step takes no time at all.
    ZeroStep,
    /// A zero attempt timeout, deadline, sleep budget, cap or cancellation delay.
    ZeroLimit,
    /// A step or retry-after within [`NEAR_MAX_SPAN`] of `u64::MAX` ns.
    NearMaxDuration,
    /// A retry-after longer than the cap.
    RetryAfterOverCap,
    /// A fatal step after a transient one in the same call.
    FatalAfterTransient,
    /// With a circuit: a gap between calls longer than its open duration.
    GapOverOpen,
    /// With a circuit: a gap between calls exactly its open duration.
    GapEqualsOpen,
    /// With a circuit: a gap between calls shorter than its open duration.
    GapUnderOpen,
    /// A wall jump exactly at the deadline (an instant jump at the first call's deadline).
    WallJumpAtDeadline,
    /// A wall jump larger than the monotonic time elapsed when it happens (an instant jump).
    WallJumpOverElapsed,
    /// A step, a gap or a stated limit (attempt timeout, deadline, sleep budget, cap) of an odd number of
    /// nanoseconds from 1 to 15: where halving and rounding bugs show.
    SmallOddDuration,
    /// A step, a gap or a stated limit of an even number of nanoseconds from 2 to 16.
    SmallEvenDuration,
}

impl BoundaryClass {
    /// How many classes there are.
    pub const COUNT: usize = 20;

    /// Every class, in declaration order.
    pub const ALL: [BoundaryClass; BoundaryClass::COUNT] = [
        BoundaryClass::AttemptAtTimeout,
        BoundaryClass::AttemptJustUnderTimeout,
        BoundaryClass::AttemptJustOverTimeout,
        BoundaryClass::LandsOnDeadline,
        BoundaryClass::DelayReachesCap,
        BoundaryClass::StepsOverAttempts,
        BoundaryClass::StepsEqualAttempts,
        BoundaryClass::StepsUnderAttempts,
        BoundaryClass::ZeroStep,
        BoundaryClass::ZeroLimit,
        BoundaryClass::NearMaxDuration,
        BoundaryClass::RetryAfterOverCap,
        BoundaryClass::FatalAfterTransient,
        BoundaryClass::GapOverOpen,
        BoundaryClass::GapEqualsOpen,
        BoundaryClass::GapUnderOpen,
        BoundaryClass::WallJumpAtDeadline,
        BoundaryClass::WallJumpOverElapsed,
        BoundaryClass::SmallOddDuration,
        BoundaryClass::SmallEvenDuration,
    ];

    /// The stable snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            BoundaryClass::AttemptAtTimeout => "attempt_at_timeout",
            BoundaryClass::AttemptJustUnderTimeout => "attempt_just_under_timeout",
            BoundaryClass::AttemptJustOverTimeout => "attempt_just_over_timeout",
            BoundaryClass::LandsOnDeadline => "lands_on_deadline",
            BoundaryClass::DelayReachesCap => "delay_reaches_cap",
            BoundaryClass::StepsOverAttempts => "steps_over_attempts",
            BoundaryClass::StepsEqualAttempts => "steps_equal_attempts",
            BoundaryClass::StepsUnderAttempts => "steps_under_attempts",
            BoundaryClass::ZeroStep => "zero_step",
            BoundaryClass::ZeroLimit => "zero_limit",
            BoundaryClass::NearMaxDuration => "near_max_duration",
            BoundaryClass::RetryAfterOverCap => "retry_after_over_cap",
            BoundaryClass::FatalAfterTransient => "fatal_after_transient",
            BoundaryClass::GapOverOpen => "gap_over_open",
            BoundaryClass::GapEqualsOpen => "gap_equals_open",
            BoundaryClass::GapUnderOpen => "gap_under_open",
            BoundaryClass::WallJumpAtDeadline => "wall_jump_at_deadline",
            BoundaryClass::WallJumpOverElapsed => "wall_jump_over_elapsed",
            BoundaryClass::SmallOddDuration => "small_odd_duration",
            BoundaryClass::SmallEvenDuration => "small_even_duration",
        }
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl fmt::Display for BoundaryClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`BoundaryClass`]es (a bitset).
///
/// ```
/// use timelaw_generators::coverage::{BoundaryClass, BoundarySet};
/// let set = BoundarySet::EMPTY.with(BoundaryClass::ZeroStep).with(BoundaryClass::GapOverOpen);
/// assert!(set.contains(BoundaryClass::ZeroStep));
/// assert_eq!(set.len(), 2);
/// assert_eq!(set.to_string(), "{zero_step, gap_over_open}");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BoundarySet(u32);

impl BoundarySet {
    /// No class.
    pub const EMPTY: BoundarySet = BoundarySet(0);
    /// Every class.
    pub const ALL: BoundarySet = BoundarySet((1 << BoundaryClass::COUNT) - 1);

    /// Adds `class`.
    pub fn insert(&mut self, class: BoundaryClass) {
        self.0 |= class.bit();
    }
    /// The set with `class` added.
    #[must_use]
    pub const fn with(self, class: BoundaryClass) -> BoundarySet {
        BoundarySet(self.0 | class.bit())
    }
    /// Whether `class` is in the set.
    pub const fn contains(self, class: BoundaryClass) -> bool {
        self.0 & class.bit() != 0
    }
    /// Both sets together.
    #[must_use]
    pub const fn union(self, other: BoundarySet) -> BoundarySet {
        BoundarySet(self.0 | other.0)
    }
    /// The classes of `self` not in `other`.
    #[must_use]
    pub const fn difference(self, other: BoundarySet) -> BoundarySet {
        BoundarySet(self.0 & !other.0)
    }
    /// How many classes are in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The classes in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = BoundaryClass> {
        BoundaryClass::ALL.into_iter().filter(move |&class| self.contains(class))
    }
}

impl FromIterator<BoundaryClass> for BoundarySet {
    fn from_iter<I: IntoIterator<Item = BoundaryClass>>(iter: I) -> BoundarySet {
        iter.into_iter().fold(BoundarySet::EMPTY, BoundarySet::with)
    }
}

impl fmt::Display for BoundarySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (index, class) in self.iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            f.write_str(class.name())?;
        }
        f.write_str("}")
    }
}

impl fmt::Debug for BoundarySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BoundarySet{self}")
    }
}

/// The boundary classes `schedule` reaches under `contract` (see the module docs).
///
/// ```
/// use timelaw_core::{Contract, Outcome, Schedule, Step, VDuration};
/// use timelaw_generators::coverage::{classify, BoundaryClass};
///
/// let ms = VDuration::from_millis;
/// let mut contract = Contract::default();
/// contract.retry.max_attempts = Some(2);
/// contract.timing.attempt_timeout = Some(ms(10));
/// let schedule = Schedule::single(vec![Step::new(ms(10), Outcome::Transient)]);
/// let classes = classify(&schedule, &contract);
/// assert!(classes.contains(BoundaryClass::AttemptAtTimeout));
/// assert!(classes.contains(BoundaryClass::StepsUnderAttempts));
/// ```
pub fn classify(schedule: &Schedule, contract: &Contract) -> BoundarySet {
    let mut set = BoundarySet::EMPTY;
    let zero = Some(VDuration::ZERO);
    let zero_limit =
        [contract.timing.attempt_timeout, contract.timing.deadline, contract.delays.sleep_budget, contract.delays.max];
    if zero_limit.contains(&zero) || schedule.calls.iter().any(|call| call.cancel_after == zero) {
        set.insert(BoundaryClass::ZeroLimit);
    }
    for call in &schedule.calls {
        set = set.union(classify_steps(call.steps.as_slice(), contract));
        if let Some(max_attempts) = contract.retry.max_attempts {
            set.insert(match (call.steps.len() as u64).cmp(&u64::from(max_attempts)) {
                std::cmp::Ordering::Less => BoundaryClass::StepsUnderAttempts,
                std::cmp::Ordering::Equal => BoundaryClass::StepsEqualAttempts,
                std::cmp::Ordering::Greater => BoundaryClass::StepsOverAttempts,
            });
        }
    }
    set = set.union(classify_clock(schedule, contract));
    set = set.union(classify_small(schedule, &zero_limit));
    if let Some(circuit) = contract.circuit.into_stated() {
        for call in schedule.calls.iter().skip(1) {
            set.insert(match call.gap_before.cmp(&circuit.open_for) {
                std::cmp::Ordering::Less => BoundaryClass::GapUnderOpen,
                std::cmp::Ordering::Equal => BoundaryClass::GapEqualsOpen,
                std::cmp::Ordering::Greater => BoundaryClass::GapOverOpen,
            });
        }
    }
    set
}

/// The small-value classes: a step (not a hang), a gap or a stated limit of 1 to 16 ns.
fn classify_small(schedule: &Schedule, limits: &[Option<VDuration>]) -> BoundarySet {
    let steps = schedule.calls.iter().flat_map(|call| call.steps.iter());
    let steps = steps.filter(|step| step.outcome != Outcome::Hang).map(|step| step.duration);
    let gaps = schedule.calls.iter().skip(1).map(|call| call.gap_before);
    let durations = steps.chain(gaps).chain(limits.iter().flatten().copied());
    let mut set = BoundarySet::EMPTY;
    for nanos in durations.map(VDuration::as_nanos).filter(|nanos| (1..=SMALL_NS_MAX).contains(nanos)) {
        set.insert(if nanos % 2 == 1 { BoundaryClass::SmallOddDuration } else { BoundaryClass::SmallEvenDuration });
    }
    set
}

/// The classes of the wall jumps at an instant: at the deadline, larger than the time elapsed.
fn classify_clock(schedule: &Schedule, contract: &Contract) -> BoundarySet {
    let mut set = BoundarySet::EMPTY;
    for jump in &schedule.clock.wall_jumps {
        let JumpAt::Instant(at) = jump.at else { continue };
        if contract.timing.deadline == Some(at.since_epoch()) {
            set.insert(BoundaryClass::WallJumpAtDeadline);
        }
        if jump.by_ns.unsigned_abs() > at.as_nanos() {
            set.insert(BoundaryClass::WallJumpOverElapsed);
        }
    }
    set
}

fn near_max(duration: VDuration) -> bool {
    duration >= VDuration::MAX.saturating_sub(NEAR_MAX_SPAN)
}

/// The classes one call's steps reach on their own.
fn classify_steps(steps: &[timelaw_core::Step], contract: &Contract) -> BoundarySet {
    let mut set = BoundarySet::EMPTY;
    let mut seen_transient = false;
    for step in steps {
        let duration = step.duration;
        match step.outcome {
            Outcome::Hang => {}
            Outcome::RateLimited { retry_after } => {
                if contract.delays.max.is_some_and(|cap| retry_after > cap) {
                    set.insert(BoundaryClass::RetryAfterOverCap);
                }
                if near_max(retry_after) {
                    set.insert(BoundaryClass::NearMaxDuration);
                }
            }
            Outcome::Fatal if seen_transient => set.insert(BoundaryClass::FatalAfterTransient),
            Outcome::Transient => seen_transient = true,
            Outcome::Ok | Outcome::Fatal => {}
        }
        if step.outcome == Outcome::Hang {
            continue;
        }
        if duration.is_zero() {
            set.insert(BoundaryClass::ZeroStep);
        }
        if near_max(duration) {
            set.insert(BoundaryClass::NearMaxDuration);
        }
        if let Some(timeout) = contract.timing.attempt_timeout {
            if duration == timeout {
                set.insert(BoundaryClass::AttemptAtTimeout);
            }
            if duration.checked_add(VDuration::from_nanos(1)) == Some(timeout) {
                set.insert(BoundaryClass::AttemptJustUnderTimeout);
            }
            if timeout.checked_add(VDuration::from_nanos(1)) == Some(duration) {
                set.insert(BoundaryClass::AttemptJustOverTimeout);
            }
        }
    }
    set.union(classify_timeline(steps, contract))
}

/// The classes that depend on the predicted timeline of the retries: the deadline and the cap.
fn classify_timeline(steps: &[timelaw_core::Step], contract: &Contract) -> BoundarySet {
    let mut set = BoundarySet::EMPTY;
    let cap = contract.delays.max.filter(|_| contract.delays.backoff.is_some());
    if contract.timing.deadline.is_none() && cap.is_none() {
        return set;
    }
    let max_attempts = contract.retry.max_attempts.unwrap_or(u32::MAX);
    let mut elapsed = VDuration::ZERO;
    for (index, step) in steps.iter().enumerate() {
        let attempt = index as u32 + 1; // At most the step count of a call.
        let predicted = predict(contract, elapsed, *step, attempt);
        if contract.timing.deadline == Some(predicted.attempt_end) {
            set.insert(BoundaryClass::LandsOnDeadline);
        }
        let retried = !matches!(step.outcome, Outcome::Ok | Outcome::Fatal) && attempt < max_attempts;
        if !retried {
            break;
        }
        if contract.timing.deadline == Some(predicted.sleep_end) {
            set.insert(BoundaryClass::LandsOnDeadline);
        }
        if let Some(cap) = cap.filter(|_| !set.contains(BoundaryClass::DelayReachesCap)) {
            if contract.delays.backoff.and_then(|shape| jitter_free(shape, attempt)).is_some_and(|base| base >= cap) {
                set.insert(BoundaryClass::DelayReachesCap);
            }
        }
        elapsed = predicted.sleep_end;
    }
    set
}

/// How often a batch of cases reached each boundary class. Merges across threads and batches.
///
/// ```
/// use timelaw_generators::coverage::{BoundaryClass, BoundarySet, Coverage};
/// let mut batch = Coverage::default();
/// batch.record(BoundarySet::EMPTY.with(BoundaryClass::ZeroStep));
/// batch.record(BoundarySet::EMPTY);
/// let mut total = Coverage::default();
/// total.merge(&batch);
/// assert_eq!((total.cases(), total.hits(BoundaryClass::ZeroStep)), (2, 1));
/// assert!(total.missing().contains(BoundaryClass::GapOverOpen));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "CoverageRecord", from = "CoverageRecord")]
pub struct Coverage {
    cases: u64,
    hits: [u64; BoundaryClass::COUNT],
}

impl Coverage {
    /// Counts one case that reached `classes`.
    pub fn record(&mut self, classes: BoundarySet) {
        self.cases += 1;
        for class in classes.iter() {
            self.hits[class as usize] += 1;
        }
    }
    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &Coverage) {
        self.cases += other.cases;
        for (hits, more) in self.hits.iter_mut().zip(other.hits) {
            *hits += more;
        }
    }
    /// The cases recorded.
    pub const fn cases(&self) -> u64 {
        self.cases
    }
    /// The cases that reached `class`.
    pub const fn hits(&self, class: BoundaryClass) -> u64 {
        self.hits[class as usize]
    }
    /// The classes no recorded case reached.
    pub fn missing(&self) -> BoundarySet {
        BoundaryClass::ALL.into_iter().filter(|&class| self.hits(class) == 0).collect()
    }
    /// Each class with its hit count, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (BoundaryClass, u64)> + '_ {
        BoundaryClass::ALL.into_iter().map(|class| (class, self.hits(class)))
    }
}

impl fmt::Display for Coverage {
    /// One line per class: `zero_step: 12 of 64 cases (18.8%)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (class, hits) in self.iter() {
            let percent = if self.cases == 0 { 0.0 } else { hits as f64 * 100.0 / self.cases as f64 };
            writeln!(f, "{}: {hits} of {} cases ({percent:.1}%)", class.name(), self.cases)?;
        }
        Ok(())
    }
}

/// The serialized form of [`Coverage`]: `{"cases": 64, "hits": {"zero_step": 12, ...}}`.
#[derive(Serialize, Deserialize)]
struct CoverageRecord {
    cases: u64,
    hits: BTreeMap<BoundaryClass, u64>,
}

impl From<Coverage> for CoverageRecord {
    fn from(coverage: Coverage) -> CoverageRecord {
        CoverageRecord { cases: coverage.cases, hits: coverage.iter().collect() }
    }
}

impl From<CoverageRecord> for Coverage {
    fn from(record: CoverageRecord) -> Coverage {
        let mut coverage = Coverage { cases: record.cases, hits: [0; BoundaryClass::COUNT] };
        for (class, hits) in record.hits {
            coverage.hits[class as usize] = hits;
        }
        coverage
    }
}

#[cfg(test)]
mod tests {
    use timelaw_core::{CallScript, CircuitContract, Step};

    use super::*;
    use timelaw_core::{Declared, DelayContract, RetryContract, TimingContract};

    fn ms(millis: u64) -> VDuration {
        VDuration::from_millis(millis)
    }
    fn under(d: VDuration) -> VDuration {
        d.saturating_sub(VDuration::from_nanos(1))
    }
    fn over(d: VDuration) -> VDuration {
        d.saturating_add(VDuration::from_nanos(1))
    }

    #[track_caller]
    fn check(contract: Contract, calls: Vec<CallScript>, expected: &[BoundaryClass]) {
        let got = classify(&Schedule::new(calls), &contract);
        assert_eq!(got, expected.iter().copied().collect::<BoundarySet>());
    }

    fn call(steps: &[(VDuration, Outcome)]) -> CallScript {
        CallScript::new(steps.iter().map(|&(duration, outcome)| Step::new(duration, outcome)).collect())
    }

    fn gap(gap_before: VDuration) -> CallScript {
        CallScript { gap_before, ..call(&[]) }
    }

    #[test]
    fn each_class_from_a_minimal_schedule() {
        use BoundaryClass as B;
        use Outcome::{Fatal, Ok, RateLimited, Transient};
        let timeout = Contract {
            timing: TimingContract { attempt_timeout: Some(ms(10)), ..TimingContract::default() },
            ..Contract::default()
        };
        check(timeout, vec![call(&[(ms(10), Ok)])], &[B::AttemptAtTimeout]);
        check(timeout, vec![call(&[(under(ms(10)), Ok)])], &[B::AttemptJustUnderTimeout]);
        check(timeout, vec![call(&[(over(ms(10)), Ok)])], &[B::AttemptJustOverTimeout]);
        check(timeout, vec![call(&[(VDuration::MAX, Ok)])], &[B::NearMaxDuration]);
        let deadline = Contract {
            timing: TimingContract { deadline: Some(ms(5)), ..TimingContract::default() },
            ..Contract::default()
        };
        check(deadline, vec![call(&[(ms(2), Transient), (ms(3), Ok)])], &[B::LandsOnDeadline]);
        check(deadline, vec![call(&[(ms(2), Fatal), (ms(3), Ok)])], &[]);
        let capped = Contract {
            delays: DelayContract {
                max: Some(ms(4)),
                backoff: Some(timelaw_core::BackoffShape::Exponential { initial: ms(1), factor_milli: 2000 }),
                ..DelayContract::default()
            },
            ..Contract::default()
        };
        check(capped, vec![call(&[(ms(1), Transient), (ms(1), Transient)])], &[]);
        check(capped, vec![call(&[(ms(1), Transient), (ms(1), Transient), (ms(1), Transient)])], &[B::DelayReachesCap]);
        let retry_after = RateLimited { retry_after: over(ms(4)) };
        check(capped, vec![call(&[(ms(1), retry_after)])], &[B::RetryAfterOverCap]);
        let two = Contract {
            retry: RetryContract { max_attempts: Some(2), ..RetryContract::default() },
            ..Contract::default()
        };
        check(two, vec![call(&[(ms(1), Transient)])], &[B::StepsUnderAttempts]);
        check(two, vec![call(&[(ms(1), Transient), (ms(1), Fatal)])], &[B::StepsEqualAttempts, B::FatalAfterTransient]);
        check(two, vec![call(&[(ms(1), Ok); 3])], &[B::StepsOverAttempts]);
        check(Contract::default(), vec![call(&[(VDuration::ZERO, Ok)])], &[B::ZeroStep]);
        check(
            Contract {
                timing: TimingContract { deadline: Some(VDuration::ZERO), ..TimingContract::default() },
                ..Contract::default()
            },
            vec![call(&[])],
            &[B::ZeroLimit],
        );
        let open_for = ms(100);
        let circuit = CircuitContract {
            window: 2,
            min_calls: 1,
            failure_percent: 50,
            open_for,
            half_open_probes: 1,
            ..CircuitContract::DEFAULT
        };
        let breaker = Contract { circuit: Declared::Stated(circuit), ..Contract::default() };
        check(breaker, vec![gap(ms(1)), gap(open_for)], &[B::GapEqualsOpen]);
        check(breaker, vec![gap(ms(1)), gap(under(open_for)), gap(over(open_for))], &[B::GapUnderOpen, B::GapOverOpen]);
    }

    #[track_caller]
    fn check_jump(contract: Contract, at: JumpAt, by_ns: i64, expected: &[BoundaryClass]) {
        let clock =
            timelaw_core::ClockFaults { wall_jumps: vec![timelaw_core::WallJump { at, by_ns }], read_failures: vec![] };
        let got = classify(&Schedule::new(vec![]).with_clock(clock), &contract);
        assert_eq!(got, expected.iter().copied().collect::<BoundarySet>());
    }

    #[test]
    fn wall_jump_classes() {
        use BoundaryClass as B;
        let at = |millis: u64| JumpAt::Instant(timelaw_core::VInstant::from_nanos(millis * 1_000_000));
        let deadline = Contract {
            timing: TimingContract { deadline: Some(ms(5)), ..TimingContract::default() },
            ..Contract::default()
        };
        check_jump(deadline, at(5), 1, &[B::WallJumpAtDeadline]);
        check_jump(deadline, at(5), -5_000_001, &[B::WallJumpAtDeadline, B::WallJumpOverElapsed]);
        check_jump(deadline, at(4), 5_000_000, &[B::WallJumpOverElapsed]);
        check_jump(deadline, at(5), -5_000_000, &[B::WallJumpAtDeadline]);
        check_jump(deadline, JumpAt::Sleep(1), i64::MIN, &[]);
        check_jump(Contract::default(), at(5), 1, &[]);
    }
}
