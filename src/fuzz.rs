//! Fuzzing a subject with cargo fuzz: decode the input with the generators' `arbitrary` front-end (every
//! byte string is a valid case), check the whole catalogue, panic on a violation so libFuzzer saves the
//! input as a crash artifact. `timelaw import-crash ARTIFACT --subject NAME` turns it into a shrunk fixture.
//!
//! Every law is judged on every input, except `deterministic_replay`: running the subject a second time
//! for it is the largest cost of an input, so (as the runner checks every `replay_every`-th case) only a
//! deterministic sample of the inputs is run twice, one in [`REPLAY_EVERY`], chosen by a hash of the
//! input's bytes ([`replay_sampled`]). The same bytes are always sampled or never, so a crash artifact
//! reproduces; on the other inputs the law is vacuous. [`violations`] and [`first_violation`] (what
//! `import-crash` uses) always replay.
//!
//! The judging runs out of libFuzzer's sight: the coverage counters are saved before the laws are judged
//! and restored after (`coverage::hidden`, on x86-64 Linux under `cfg(fuzzing)`), so libFuzzer's
//! per-input work covers the edges of decoding and of the subject's run only, the ones that say
//! something about the subject. The replay's digests are taken there too. Every law is still judged on
//! every input.
//!
//! In a build of `fuzz/cargo-fuzz`, libFuzzer's compare hooks are gated: they fire on one input in
//! [`compares_every`] ([`compares_sampled`], a pure function of the bytes like the replay's sample) and
//! never while judging; the edges are seen on every input.
//!
//! Generic code is compiled into the crate that instantiates it, the fuzz target's, which `cargo fuzz`
//! instruments; so only decoding and the subject's run are generic here, and the rest of an input (the
//! runs' bookkeeping, the digests, the judging) is compiled once, in this crate, which `fuzz/cargo-fuzz`
//! builds without coverage instrumentation. The masking below shrinks (it runs the subject, generic code)
//! out of libFuzzer's sight: its counters are saved and restored around it.
//!
//! A subject with known, pinned violations (an upstream bug with a `known_violation` fixture) is fuzzed
//! with [`check_bytes_except`]: an input is skipped only when every law it violates is one of those
//! pinned findings ([`unmasked`]): the same law, a message of the same class (a panic's site included)
//! or the same check of the law ([`timelaw_laws::CheckSite`]), and a case that, shrunk, is the fixture's case or one shrink move from it. `fuzz/build.rs` shows how the
//! bundled targets collect them from the checked-in fixtures.
//!
//! Overlapping calls are fuzzed through [`Decoding::Concurrent`] ([`check_bytes_concurrent`]): the same
//! bytes decode under a swarm with concurrency on ([`Swarm::with_concurrency`]), so configs draw the load
//! mechanisms and schedules give their calls arrivals and interleaving choices. A crash of such a target
//! is imported with `timelaw import-crash ARTIFACT --subject NAME --concurrency`, which decodes it the
//! same way (the panic message says so).
//!
//! A fuzz target for your own subject is five lines (`fuzz/fuzz_targets/my_subject.rs`):
//!
//! ```text
//! #![no_main]
//! use libfuzzer_sys::fuzz_target;
//! fuzz_target!(|data: &[u8]| {
//!     timelaw::fuzz::check_bytes(&my_crate::MySubject, data);
//! });
//! ```

mod coverage;

use std::sync::OnceLock;

use timelaw_core::{execute_with, Case, Contract, Limits, Schedule, World};
use timelaw_generators::{arbitrary_case_answers, arbitrary_case_with, ConfigDomain, Swarm};
use timelaw_laws::{Catalogue, Observation, Verdict};

use crate::eval::{CaseThread, Run, Runs};
use crate::shrink::Drawn;

fn standard() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(Catalogue::standard)
}

/// One input in this many is run twice for `deterministic_replay` ([`replay_sampled`]); the runner's
/// default `replay_every` is the same.
pub const REPLAY_EVERY: u64 = 16;

/// `true` when the input `bytes` is one of those the fuzz helpers run twice for `deterministic_replay`:
/// the FNV-1a 64 hash of the bytes, mixed by MurmurHash3's finalizer (FNV-1a alone mixes short inputs
/// poorly: its low bits depend only on the low bits of the bytes), is a multiple of [`REPLAY_EVERY`]. A
/// pure function of the bytes, so an artifact is judged the same way when it is run again.
pub fn replay_sampled(bytes: &[u8]) -> bool {
    replay_of(input_hash(bytes))
}

/// [`replay_sampled`] from the input's hash.
fn replay_of(hash: u64) -> bool {
    hash.is_multiple_of(REPLAY_EVERY)
}

/// By default, the compare hooks of a `fuzz/cargo-fuzz` build fire on one input in this many
/// ([`compares_sampled`]).
pub const COMPARES_EVERY: u64 = 4;

/// One input in how many runs with libFuzzer's compare hooks on: `TIMELAW_FUZZ_COMPARES_EVERY` when set
/// (a whole number from 1, 1 being every input), 1 when libFuzzer was started with
/// `-use_value_profile=1` (its value profile is made of the hooks' arguments: sampled, an input's
/// features would depend on whether it is sampled), else [`COMPARES_EVERY`]. Read once per process.
///
/// # Panics
/// When `TIMELAW_FUZZ_COMPARES_EVERY` is set to anything but a whole number from 1.
pub fn compares_every() -> u64 {
    static EVERY: OnceLock<u64> = OnceLock::new();
    *EVERY.get_or_init(|| {
        let value_profile = std::env::args().any(|arg| arg == "-use_value_profile=1");
        compares_every_from(std::env::var("TIMELAW_FUZZ_COMPARES_EVERY").ok().as_deref(), value_profile)
    })
}

/// [`compares_every`] from the variable's text (`None` when unset) and whether the value profile is on.
fn compares_every_from(variable: Option<&str>, value_profile: bool) -> u64 {
    match variable {
        Some(text) => match text.trim().parse::<u64>() {
            Ok(every) if every >= 1 => every,
            _ => panic!("TIMELAW_FUZZ_COMPARES_EVERY: expected a whole number from 1 (1: every input), got {text:?}"),
        },
        None if value_profile => 1,
        None => COMPARES_EVERY,
    }
}

/// `true` when the input `bytes` is one of those run with libFuzzer's compare hooks on: a pure function
/// of the bytes (the high half of the hash [`replay_sampled`] uses, so the two samples are independent),
/// one input in [`compares_every`].
///
/// The hooks hand libFuzzer's mutator the values the subject compares with (its table of recent
/// comparisons, `-use_cmp`), which lead it past comparisons with constants such as `Duration::MAX`. They
/// are also the largest cost of running an instrumented subject (every comparison calls one), and the
/// table needs only some of the inputs to stay filled: an input new coverage keeps is mutated many times,
/// and its mutants that are sampled put the values of its comparisons in the table. Only a build of
/// `fuzz/cargo-fuzz` gates the hooks; elsewhere they fire on every input whatever this says.
pub fn compares_sampled(bytes: &[u8]) -> bool {
    compares_of(input_hash(bytes))
}

/// [`compares_sampled`] from the input's hash.
fn compares_of(hash: u64) -> bool {
    (hash >> 32).is_multiple_of(compares_every())
}

/// The FNV-1a 64 hash of `bytes`, mixed by MurmurHash3's finalizer.
fn input_hash(bytes: &[u8]) -> u64 {
    let hash = bytes
        .iter()
        .fold(0xCBF2_9CE4_8422_2325_u64, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3));
    let mut mixed = hash ^ (hash >> 33);
    mixed = mixed.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    mixed ^= mixed >> 33;
    mixed = mixed.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    mixed ^ (mixed >> 33)
}

/// How a fuzz input's bytes decode to a case: the `arbitrary` front-end under one fixed swarm. Every byte
/// string decodes under either; the same bytes give the same case under the same decoding, so a crash
/// artifact is imported with the decoding its target used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decoding {
    /// Calls one after another ([`Swarm::everything`]), as [`timelaw_generators::arbitrary_case`]: the
    /// default, and what [`check_bytes`] uses.
    #[default]
    Sequential,
    /// Overlapping calls and the load mechanisms ([`Swarm::with_concurrency`]): what
    /// [`check_bytes_concurrent`] uses.
    Concurrent,
}

impl Decoding {
    /// [`Decoding::Concurrent`] when `concurrency` is set, else [`Decoding::Sequential`].
    pub fn from_concurrency(concurrency: bool) -> Decoding {
        if concurrency {
            Decoding::Concurrent
        } else {
            Decoding::Sequential
        }
    }

    /// The swarm the bytes decode under.
    pub fn swarm(self) -> Swarm {
        match self {
            Decoding::Sequential => Swarm::everything(),
            Decoding::Concurrent => Swarm::everything().with_concurrency(),
        }
    }

    /// The case `bytes` decode to for `subject`.
    ///
    /// ```
    /// use timelaw::fuzz::Decoding;
    /// use timelaw::reference::Reference;
    ///
    /// let bytes: Vec<u8> = (0..=255).cycle().take(4096).collect();
    /// let sequential = Decoding::Sequential.case(&Reference, &bytes);
    /// assert!(sequential.schedule.calls.iter().all(|call| call.arrival.is_none()));
    /// assert_eq!(Decoding::Sequential.case(&Reference, &bytes), sequential); // a pure function of the bytes
    /// ```
    pub fn case<S: ConfigDomain + ?Sized>(self, subject: &S, bytes: &[u8]) -> Case<S::Config> {
        arbitrary_case_with(subject, bytes, &self.swarm())
    }

    /// [`Decoding::case`] with the answers its config was decoded from, so the case shrinks as a case the
    /// runner found does (`crate::shrink::Drawn`).
    pub fn drawn<S: ConfigDomain + ?Sized>(self, subject: &S, bytes: &[u8]) -> Drawn<S::Config> {
        let answers = arbitrary_case_answers(subject, bytes, &self.swarm());
        Drawn { case: self.case(subject, bytes), answers }
    }

    /// The `timelaw import-crash` flag that decodes the same way.
    fn import_flag(self) -> &'static str {
        match self {
            Decoding::Sequential => "",
            Decoding::Concurrent => " --concurrency",
        }
    }
}

/// A known violation of a subject, as a checked-in `known_violation` fixture pins it: its law, the
/// message of its stored verdict (compared by message class, see [`crate::known`]) and its case (the
/// masking compares an input's case, shrunk, with it: [`crate::known::pinned_finding`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownViolation {
    /// The subject's name.
    pub subject: &'static str,
    /// The law's id.
    pub law: &'static str,
    /// The stored verdict's message.
    pub message: &'static str,
    /// The fixture's case, as JSON text (the subject's config included).
    pub case: &'static str,
}

impl KnownViolation {
    /// As the masking reads it ([`crate::known::Pinned`]); `None` when `case` is not JSON (it pins nothing).
    pub fn pinned(&self) -> Option<crate::known::Pinned> {
        let case = serde_json::from_str(self.case).ok()?;
        Some(crate::known::Pinned { law: self.law.to_owned(), message: self.message.to_owned(), case })
    }
}

/// The first law (in catalogue order) the case decoded from `bytes` violates, with the verdict.
pub fn first_violation<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
) -> Option<(&'static str, Verdict)> {
    violations(subject, laws, bytes).into_iter().next()
}

/// Every law (in catalogue order) the case decoded from `bytes` violates, with its verdict (the case is
/// always run twice, for `deterministic_replay`).
pub fn violations<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
) -> Vec<(&'static str, Verdict)> {
    violations_decoded(subject, laws, bytes, Decoding::Sequential)
}

/// As [`violations`], with the bytes decoded by `decoding` (what `timelaw import-crash` uses).
pub fn violations_decoded<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
    decoding: Decoding,
) -> Vec<(&'static str, Verdict)> {
    violations_replaying(subject, laws, bytes, decoding, true)
}

/// As [`violations_decoded`], running the case a second time for `deterministic_replay` only when
/// `replay` is set (the law is vacuous otherwise).
///
/// The only generic part of checking an input: decoding it and running the subject on a World (the
/// closure handed to [`judged`]). Generic code is compiled into the crate that instantiates it, the fuzz
/// target's, which `cargo fuzz` instruments; so everything else (the replay and its digests, saving and
/// restoring the counters, the judging, the masking) is in non-generic functions of this crate, which
/// `fuzz/cargo-fuzz` builds without coverage instrumentation.
fn violations_replaying<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
    decoding: Decoding,
    replay: bool,
) -> Vec<(&'static str, Verdict)> {
    let Case { config, schedule, seed } = decoding.case(subject, bytes);
    let contract = subject.contract(&config);
    let limits = Limits::default();
    let run = |world: World<'_>| execute_with(subject, &config, world, limits);
    judged(contract, schedule, seed, &run, laws, (replay, CaseThread::of(subject)))
}

/// Runs the case (`schedule`, `seed` and the subject behind `run`) and judges every law of `laws` on it
/// out of libFuzzer's sight: the digests of the replay (when `replay` is set) and of the run without wall
/// jumps are taken inside [`coverage::hidden`] with the judging, so only the subject's runs reach the
/// counters. Takes the schedule by value so that it is also dropped here, not in the fuzz target's crate.
#[inline(never)]
fn judged(
    contract: Contract,
    schedule: Schedule,
    seed: u64,
    run: &Run<'_>,
    laws: &Catalogue,
    (replay, thread): (bool, CaseThread),
) -> Vec<(&'static str, Verdict)> {
    let runs = Runs::of(run, &schedule, seed, replay, None, thread);
    coverage::hidden(|| {
        let evaluation = runs.evaluation(contract);
        let observation = Observation {
            schedule: &schedule,
            seed,
            contract: &evaluation.contract,
            trace: &evaluation.trace,
            replay: evaluation.replay,
            without_wall_jumps: evaluation.without_wall_jumps,
        };
        violated(laws, &observation)
    })
}

/// Every law of `laws` (in catalogue order) violated on `observation`, with its verdict.
///
/// Not generic and never inlined on purpose: it is compiled once, in this crate, and not into each fuzz
/// target's crate, so `fuzz/cargo-fuzz` (which builds this crate without coverage instrumentation) keeps
/// every comparison of the judging loop away from libFuzzer's `trace-compares` hooks.
#[inline(never)]
fn violated(laws: &Catalogue, observation: &Observation<'_>) -> Vec<(&'static str, Verdict)> {
    let mut found = Vec::new();
    laws.judge_each(observation, |_, law, verdict| {
        if verdict.is_violated() {
            found.push((law.id, verdict));
        }
    });
    found
}

/// The first of `found` (violations of `subject` on `case`) that `known` does not mask, or `None` when
/// every one is masked. A violation is masked only when it is a pinned finding
/// ([`crate::known::pinned_finding`]): a known violation of the same subject and law, whose stored message
/// has the same class (a panic's site included), and whose case the input's case, shrunk for the law,
/// equals or is one shrink move from. So an input that also violates another law, the same law in
/// another way, or the same law through another minimal case, is not skipped.
pub fn unmasked<'v, S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    found: &'v [(&'static str, Verdict)],
    known: &[KnownViolation],
    case: &Drawn<S::Config>,
) -> Option<&'v (&'static str, Verdict)> {
    let name = subject.name();
    let pinned: Vec<crate::known::Pinned> =
        known.iter().filter(|entry| entry.subject == name).filter_map(KnownViolation::pinned).collect();
    found.iter().find(|(id, verdict)| {
        let Some(law) = laws.get(id) else { return true };
        crate::known::pinned_finding(subject, &pinned, law, verdict, case).is_none()
    })
}

/// Checks the case decoded from `bytes` against the whole catalogue (`deterministic_replay` on the
/// sampled inputs only, [`replay_sampled`]).
///
/// # Panics
/// When a law is violated, with the law id, the verdict and the case as JSON: that is how libFuzzer
/// learns of a crash.
pub fn check_bytes<S: ConfigDomain + ?Sized>(subject: &S, bytes: &[u8]) {
    check_bytes_with(subject, standard(), bytes);
}

/// As [`check_bytes`], with your own catalogue (the standard laws plus yours, or a selection).
///
/// # Panics
/// When a law is violated.
pub fn check_bytes_with<S: ConfigDomain + ?Sized>(subject: &S, laws: &Catalogue, bytes: &[u8]) {
    check_bytes_with_decoding(subject, laws, bytes, Decoding::Sequential);
}

/// As [`check_bytes`], with the bytes decoded to overlapping calls ([`Decoding::Concurrent`]): the fuzz
/// target for a subject that serves calls concurrently. Import its crashes with
/// `timelaw import-crash ARTIFACT --subject NAME --concurrency`.
///
/// # Panics
/// When a law is violated.
pub fn check_bytes_concurrent<S: ConfigDomain + ?Sized>(subject: &S, bytes: &[u8]) {
    check_bytes_with_decoding(subject, standard(), bytes, Decoding::Concurrent);
}

/// As [`check_bytes_with`], except that an input is skipped when every law it violates is a `known`
/// violation of the subject with a matching verdict ([`unmasked`]): a crash is always a new finding.
///
/// The masking shrinks, so this compiles the shrinker into your target's crate, with coverage: about
/// 14,000 more counters, which libFuzzer scans after every input whether a violation was found or not
/// (about 12% of an input's time in timelaw's `reference` target). With nothing pinned, call
/// [`check_bytes_with`] or [`check_bytes_with_decoding`], which never compile the masking.
///
/// # Panics
/// On the first violation `known` does not mask.
pub fn check_bytes_except<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    known: &[KnownViolation],
    bytes: &[u8],
) {
    check_bytes_decoded(subject, laws, known, bytes, Decoding::Sequential);
}

/// As [`check_bytes_except`], with the bytes decoded by `decoding`.
///
/// # Panics
/// On the first violation `known` does not mask, with the law, the verdict, the case as JSON and the
/// `timelaw import-crash` command that decodes the artifact the same way.
pub fn check_bytes_decoded<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    known: &[KnownViolation],
    bytes: &[u8],
    decoding: Decoding,
) {
    let found = input_violations(subject, laws, bytes, decoding);
    if found.is_empty() {
        return;
    }
    let drawn = decoding.drawn(subject, bytes);
    // The masking shrinks, running the subject: out of libFuzzer's sight, like the judging.
    let first = coverage::hidden(|| unmasked(subject, laws, &found, known, &drawn).cloned());
    if let Some((law, verdict)) = first {
        let case = serde_json::to_string(&drawn.case).unwrap_or_default();
        crash(subject.name(), law, &verdict, decoding, &case);
    }
}

/// As [`check_bytes_with`], with the bytes decoded by `decoding`: your own catalogue, sequential or
/// overlapping calls, nothing masked. It behaves as [`check_bytes_decoded`] with no known violation, but
/// never compiles the masking, which shrinks (generic code over the subject, compiled into the fuzz
/// target's crate with coverage). Code compiled with coverage costs every input, run or not: libFuzzer
/// scans each of its counters after every input. In the `reference` target the masking held 14,000 of
/// 18,400 counters (docs/fuzzing.md, "Counters no input reaches").
///
/// ```
/// use timelaw::fuzz::{check_bytes_with_decoding, Decoding};
/// use timelaw::laws::Catalogue;
/// use timelaw::reference::Reference;
///
/// let laws = Catalogue::standard().select(&["attempts_within_max", "bulkhead_in_flight_within_limit"]).unwrap();
/// // The body of a fuzz target for overlapping calls under a catalogue of your own; the reference holds.
/// check_bytes_with_decoding(&Reference, &laws, &[7; 256], Decoding::Concurrent);
/// ```
///
/// # Panics
/// On the first violation, as [`check_bytes_decoded`] does.
pub fn check_bytes_with_decoding<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
    decoding: Decoding,
) {
    let found = input_violations(subject, laws, bytes, decoding);
    if let Some((law, verdict)) = found.first() {
        let case = serde_json::to_string(&decoding.case(subject, bytes)).unwrap_or_default();
        crash(subject.name(), law, verdict, decoding, &case);
    }
}

/// The violations of the case `bytes` decode to, with the compare hooks and the replay sampled by the
/// input ([`compares_sampled`], [`replay_sampled`]).
fn input_violations<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    bytes: &[u8],
    decoding: Decoding,
) -> Vec<(&'static str, Verdict)> {
    let hash = input_hash(bytes);
    coverage::compares(compares_of(hash));
    violations_replaying(subject, laws, bytes, decoding, replay_of(hash))
}

/// Panics with the violation found, the case as JSON and the import command. Not generic, like
/// [`judged`].
#[inline(never)]
fn crash(name: &str, law: &str, verdict: &Verdict, decoding: Decoding, case: &str) {
    panic!(
        "timelaw: law `{law}` {verdict} on subject `{name}`\ncase: {case}\nimport: timelaw import-crash ARTIFACT --subject {name} --law {law}{}",
        decoding.import_flag()
    );
}

#[cfg(test)]
mod tests {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    use std::sync::atomic::{AtomicU64, Ordering};

    use timelaw_core::{Abort, CallResult, Contract, ErrorKind, Subject, World};

    use super::*;

    /// One call; it makes `config + 2` attempts whatever they answer, while it promises one: the
    /// minimal case violating `attempts_within_max` is config 0, one call, no step.
    struct TooMany;

    impl Subject for TooMany {
        type Config = u8;
        fn name(&self) -> &str {
            "too-many"
        }
        fn contract(&self, _: &u8) -> Contract {
            let mut promise = Contract::default();
            promise.retry.max_attempts = Some(1);
            promise
        }
        fn run(&self, config: &u8, world: &mut World<'_>) -> Result<(), Abort> {
            world.for_each_call(|world, _| {
                for _ in 0..u32::from(*config) + 2 {
                    world.dispatch()?;
                }
                Ok(CallResult::Ok)
            })
        }
    }

    impl ConfigDomain for TooMany {
        fn sample_config(&self, rng: &mut timelaw_core::SplitMix64, _: &timelaw_generators::Swarm) -> u8 {
            rng.below(4) as u8
        }
        fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<u8> {
            use proptest::strategy::Strategy;
            (0_u8..4).boxed()
        }
        fn arbitrary_config(&self, u: &mut arbitrary::Unstructured<'_>) -> u8 {
            u.int_in_range(0..=3).unwrap_or(0)
        }
        fn shrink_config(&self, config: &u8) -> Vec<u8> {
            (0..*config).collect()
        }
    }

    /// The minimal case of [`TooMany`] (config 0, one call, no step), and a case pinned elsewhere: more
    /// than one move from it, and not shrinking to it (it has no call, so it violates nothing).
    const MINIMAL: &str = r#"{"config":0,"schedule":{"calls":[{"gap_before":"0","steps":[],"cancel_after":null,"idempotent":true}]},"seed":0}"#;
    const ELSEWHERE: &str = r#"{"config":3,"schedule":{"calls":[]},"seed":9}"#;

    fn known(message: &'static str, case: &'static str) -> KnownViolation {
        KnownViolation { subject: "too-many", law: "attempts_within_max", message, case }
    }

    /// Whether the violation of `case` (JSON) is masked by `known`.
    #[track_caller]
    fn masked(known: &[KnownViolation], case: &'static str) -> bool {
        let laws = Catalogue::standard().select(&["attempts_within_max"]).expect("a standard law");
        let case: Case<u8> = serde_json::from_str(case).expect("a case");
        let evaluation = crate::eval::evaluate(&TooMany, &case, Limits::default(), false);
        let found: Vec<(&'static str, Verdict)> = laws
            .iter()
            .map(|law| (law.id, evaluation.judge(law, &case)))
            .filter(|(_, verdict)| verdict.is_violated())
            .collect();
        assert_eq!(found.iter().map(|(law, _)| *law).collect::<Vec<_>>(), ["attempts_within_max"], "{case:?}");
        unmasked(&TooMany, &laws, &found, known, &case.clone().into()).is_none()
    }

    #[test]
    fn only_the_pinned_finding_is_masked() {
        const FAR: &str = r#"{"config":2,"schedule":{"calls":[{"gap_before":"0","steps":[{"duration":"3ms","outcome":"transient"}],"cancel_after":null,"idempotent":true},{"gap_before":"1ms","steps":[],"cancel_after":null,"idempotent":true}]},"seed":4}"#;
        let message = "call 0 made attempt 2, but max_attempts is 1";
        // The same bug from a far case shrinks to the pinned minimum: masked; and so when the pinned case is
        // the far one (a fixture written by an older shrinker): both shrink to the same minimum.
        assert!(masked(&[known(message, MINIMAL)], FAR));
        assert!(masked(&[known(message, MINIMAL)], MINIMAL));
        assert!(masked(&[known(message, FAR)], MINIMAL));
        // Pinned elsewhere (the shrunk case is neither that case, nor one move from it, nor its minimum): a
        // new finding.
        assert!(!masked(&[known(message, ELSEWHERE)], FAR));
        // Another sentence of the same law, another subject, or no case: never masked.
        assert!(!masked(&[known("call 0 made attempt 2 after the call was cancelled", MINIMAL)], FAR));
        let other = KnownViolation { subject: "crate-b", ..known(message, MINIMAL) };
        assert!(!masked(&[other], FAR));
        assert!(!masked(&[known(message, "not json")], FAR));
    }

    /// Counts a case's attempts and names their parity: one check, two wordings of two classes.
    fn attempt_parity(observation: &timelaw_laws::Observation<'_>) -> Verdict {
        let attempts = observation.trace.events.iter().filter(|e| e.kind == timelaw_core::EventKind::AttemptStart);
        match attempts.count() {
            count if count > 1 => {
                let parity = if count % 2 == 0 { "an even count" } else { "an odd count" };
                Verdict::violated_with(None, format!("{count} attempts, {parity}"))
            }
            _ => Verdict::Holds,
        }
    }

    const PARITY: timelaw_laws::Law = timelaw_laws::Law {
        id: "attempt_parity",
        title: "at most one attempt, by parity",
        kind: timelaw_laws::LawKind::Safety,
        needs: &[],
        applies: timelaw_laws::always_applies,
        check: attempt_parity,
    };

    /// The same check of a law, worded in another class on the input's own case ("3 attempts, an odd
    /// count" against the pinned "2 attempts, an even count"), is the pinned finding when the case
    /// shrinks to the pinned minimum; pinned elsewhere it is a new finding.
    #[test]
    fn the_same_check_worded_otherwise_is_the_pinned_finding() {
        let mut laws = Catalogue::empty();
        laws.register(PARITY).expect("a new id");
        let far: Case<u8> = serde_json::from_str(&MINIMAL.replace(r#""config":0"#, r#""config":1"#)).unwrap();
        let verdict = attempt_parity(&timelaw_laws::Observation::single_run(
            &far.schedule,
            far.seed,
            &TooMany.contract(&far.config),
            &crate::eval::evaluate(&TooMany, &far, Limits::default(), false).trace,
        ));
        assert_eq!(verdict.violation().map(|v| v.message.as_ref()), Some("3 attempts, an odd count"));
        let found = [("attempt_parity", verdict)];
        let pinned = |case| KnownViolation {
            subject: "too-many",
            law: "attempt_parity",
            message: "2 attempts, an even count",
            case,
        };
        let drawn: Drawn<u8> = far.clone().into();
        assert!(unmasked(&TooMany, &laws, &found, &[pinned(MINIMAL)], &drawn).is_none());
        assert!(unmasked(&TooMany, &laws, &found, &[pinned(ELSEWHERE)], &drawn).is_some());
    }

    /// Two-byte inputs 0, 1, 2, ...
    fn inputs(count: u16) -> impl Iterator<Item = [u8; 2]> {
        (0..count).map(u16::to_le_bytes)
    }

    #[test]
    fn replay_is_sampled_one_input_in_sixteen_by_the_bytes() {
        let sampled = inputs(4096).filter(|bytes| replay_sampled(bytes)).count();
        assert!((192..=320).contains(&sampled), "{sampled} of 4096 inputs sampled");
        // Not only the low bits of the bytes count: some bytes with the same low nibble are sampled and
        // some are not.
        let mixed_class = |nibble: u8| {
            let sampled = (0..=255_u8).filter(|byte| byte % 16 == nibble && replay_sampled(&[*byte])).count();
            (1..16).contains(&sampled)
        };
        assert!((0..16).any(mixed_class), "sampling depends only on the low nibbles");
        // A pure function of the bytes.
        assert!(inputs(4096).all(|bytes| replay_sampled(&bytes) == replay_sampled(&bytes)));
        assert!(!replay_sampled(b""));
    }

    #[test]
    fn compares_are_sampled_one_input_in_four_independently_of_the_replay() {
        assert_eq!(compares_every(), COMPARES_EVERY, "TIMELAW_FUZZ_COMPARES_EVERY is set for the tests");
        let sampled: Vec<bool> = inputs(4096).map(|bytes| compares_sampled(&bytes)).collect();
        let count = sampled.iter().filter(|sampled| **sampled).count();
        assert!((896..=1152).contains(&count), "{count} of 4096 inputs sampled");
        let replayed = inputs(4096).filter(|bytes| replay_sampled(bytes)).count();
        let both = inputs(4096).filter(|bytes| replay_sampled(bytes) && compares_sampled(bytes)).count();
        // Independent: about a quarter of the replayed inputs also run with the hooks on.
        assert!(both * 8 > replayed && both * 8 < replayed * 3, "{both} of {replayed} replayed inputs sampled");
        assert!(inputs(4096).zip(&sampled).all(|(bytes, sampled)| compares_sampled(&bytes) == *sampled));
    }

    #[test]
    fn compares_every_is_the_variable_then_every_input_under_the_value_profile_then_four() {
        assert_eq!(compares_every_from(None, false), COMPARES_EVERY);
        assert_eq!(compares_every_from(None, true), 1);
        assert_eq!(compares_every_from(Some("16"), true), 16);
        assert_eq!(compares_every_from(Some(" 1 "), false), 1);
        for bad in ["0", "-1", "four", ""] {
            let panic = catch_unwind(|| compares_every_from(Some(bad), false)).expect_err(bad);
            let message = panic.downcast_ref::<String>().expect("a formatted message");
            assert!(message.starts_with("TIMELAW_FUZZ_COMPARES_EVERY: expected a whole number from 1"), "{message}");
        }
    }

    /// Answers its one call with `Ok` on even runs and `Err` on odd ones: never the same trace twice.
    struct Wobbly(AtomicU64);

    impl Subject for Wobbly {
        type Config = u8;
        fn name(&self) -> &str {
            "wobbly"
        }
        fn contract(&self, _: &u8) -> Contract {
            Contract::default()
        }
        fn run(&self, _: &u8, world: &mut World<'_>) -> Result<(), Abort> {
            let odd = self.0.fetch_add(1, Ordering::Relaxed) % 2 == 1;
            world.for_each_call(|_, _| Ok(if odd { CallResult::Err(ErrorKind::Transient) } else { CallResult::Ok }))
        }
    }

    impl ConfigDomain for Wobbly {
        fn sample_config(&self, _: &mut timelaw_core::SplitMix64, _: &timelaw_generators::Swarm) -> u8 {
            0
        }
        fn config_strategy(&self) -> proptest::strategy::BoxedStrategy<u8> {
            use proptest::strategy::Strategy;
            proptest::strategy::Just(0).boxed()
        }
        fn arbitrary_config(&self, _: &mut arbitrary::Unstructured<'_>) -> u8 {
            0
        }
    }

    #[test]
    fn a_nondeterministic_subject_crashes_exactly_on_the_sampled_inputs() {
        let laws = Catalogue::standard().select(&["deterministic_replay"]).expect("a standard law");
        let subject = Wobbly(AtomicU64::new(0));
        for bytes in inputs(64) {
            let crashed = catch_unwind(AssertUnwindSafe(|| check_bytes_with(&subject, &laws, &bytes))).is_err();
            assert_eq!(crashed, replay_sampled(&bytes), "input {bytes:?}");
            // What import-crash sees always replays.
            assert_eq!(first_violation(&subject, &laws, &bytes).map(|(law, _)| law), Some("deterministic_replay"));
        }
        assert!(inputs(64).any(|bytes| replay_sampled(&bytes)), "no input of the test is sampled");
    }

    /// Inputs of `len` pseudo-random bytes, one per index.
    fn long_inputs(count: u64, len: usize) -> impl Iterator<Item = Vec<u8>> {
        (0..count).map(move |index| {
            let mut rng = timelaw_core::SplitMix64::new(index);
            (0..len).map(|_| rng.next_u64().to_le_bytes()[0]).collect()
        })
    }

    #[test]
    fn concurrent_decoding_reaches_overlapping_calls_and_sequential_decoding_never() {
        use crate::reference::Reference;
        let overlapping = |decoding: Decoding| {
            long_inputs(256, 512)
                .filter(|bytes| {
                    decoding.case(&Reference, bytes).schedule.calls.iter().any(|call| call.arrival.is_some())
                })
                .count()
        };
        assert_eq!(overlapping(Decoding::Sequential), 0);
        assert!(overlapping(Decoding::Concurrent) > 0, "no input decodes to overlapping calls");
        for bytes in long_inputs(32, 512) {
            assert_eq!(
                Decoding::Sequential.case(&Reference, &bytes),
                timelaw_generators::arbitrary_case(&Reference, &bytes)
            );
        }
        assert_eq!(Decoding::from_concurrency(true), Decoding::Concurrent);
        assert_eq!(Decoding::from_concurrency(false), Decoding::Sequential);
    }

    #[test]
    fn a_concurrent_crash_names_the_import_command_that_decodes_it_the_same_way() {
        let laws = Catalogue::standard().select(&["deterministic_replay"]).expect("a standard law");
        let subject = Wobbly(AtomicU64::new(0));
        let bytes = inputs(64).find(|bytes| replay_sampled(bytes)).expect("a sampled input");
        for (decoding, flag) in [(Decoding::Sequential, false), (Decoding::Concurrent, true)] {
            let crash = catch_unwind(AssertUnwindSafe(|| check_bytes_decoded(&subject, &laws, &[], &bytes, decoding)));
            let payload = crash.expect_err("the wobbly subject crashes on a sampled input");
            let message = payload.downcast_ref::<String>().expect("a formatted panic message");
            let import = "import: timelaw import-crash ARTIFACT --subject wobbly --law deterministic_replay";
            assert!(message.contains(import), "{message}");
            assert_eq!(message.ends_with(" --concurrency"), flag, "{message}");
        }
    }

    /// The panic message of `check`, or `None` when it returns.
    fn crash_message(check: impl FnOnce()) -> Option<String> {
        let payload = catch_unwind(AssertUnwindSafe(check)).err()?;
        Some(payload.downcast_ref::<String>().expect("a formatted panic message").clone())
    }

    #[test]
    fn with_nothing_known_the_unmasked_path_crashes_as_the_masking_does() {
        let laws = Catalogue::standard();
        for bytes in long_inputs(48, 64) {
            for decoding in [Decoding::Sequential, Decoding::Concurrent] {
                let masking = crash_message(|| check_bytes_decoded(&TooMany, &laws, &[], &bytes, decoding));
                let unmasked = crash_message(|| check_bytes_with_decoding(&TooMany, &laws, &bytes, decoding));
                assert!(masking.is_some(), "too many attempts on every input: {bytes:?}");
                assert_eq!(unmasked, masking, "input {bytes:?}, {decoding:?}");
            }
            let sequential = crash_message(|| check_bytes_decoded(&TooMany, &laws, &[], &bytes, Decoding::Sequential));
            assert_eq!(crash_message(|| check_bytes_with(&TooMany, &laws, &bytes)), sequential);
        }
    }
}
