//! The runner: check a subject against laws over many cases in parallel, shrink every counterexample,
//! write fixtures.

mod child;
mod counterexample;
mod persist;
mod progress;
mod search;
mod summary;
mod tally;
mod unjudged;
mod watched;

pub use watched::ABANDONED_MAX;

use std::path::PathBuf;

use timelaw_generators::ConfigDomain;
use timelaw_laws::{Catalogue, LawError};

pub use child::{Launcher, CHILD_PROTOCOL, ENV_CHILD};
pub use counterexample::{build_fixture, build_fixture_from, Counterexample, LawOutcome, RunOutput};
pub use persist::{Finds, StoreNotes};
pub use progress::{Progress, Silent};
pub use search::{check_case, search, search_saving, COVERAGE_EVERY, PROGRESS_CASES};
pub use summary::Summary;
pub use tally::{Found, Tally};
pub use unjudged::{Unjudged, UnjudgedCases, UnjudgedReason};

use crate::config::{Config, ConfigError, Shard, StopAt};

/// Starts a check of `subject` with the default [`Config`] and the `TIMELAW_*` environment variables
/// ([`Check::env`] turns them off).
///
/// ```
/// use timelaw::reference::Reference;
/// let output = timelaw::check(&Reference).cases(500).run();
/// output.assert_holds();
/// ```
pub fn check<S: ConfigDomain>(subject: &S) -> Check<'_, S> {
    Check {
        subject,
        base: None,
        env: true,
        edits: Vec::new(),
        laws: None,
        only_laws: None,
        without_laws: Vec::new(),
        progress: &Silent,
    }
}

/// One change to the run's options, applied in order on top of the base config.
type Edit = Box<dyn FnOnce(&mut Config)>;

/// A check being configured; [`Check::run`] runs it.
///
/// Options are applied in this order, whatever the order of the calls: the base config
/// ([`Check::config`], else the defaults with the `TIMELAW_*` variables unless [`Check::env`] is
/// `false`), then every option set on the builder, in call order. So a builder option beats its
/// environment variable.
pub struct Check<'a, S: ConfigDomain> {
    subject: &'a S,
    base: Option<Config>,
    env: bool,
    edits: Vec<Edit>,
    laws: Option<Catalogue>,
    only_laws: Option<Vec<String>>,
    without_laws: Vec<String>,
    progress: &'a dyn Progress,
}

/// Why a check could not start.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// A bad `TIMELAW_*` variable, or options that would check nothing (`.cases(0)`, an empty shard).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// [`Check::only_laws`] or [`Check::without_laws`] named a law the catalogue does not have.
    #[error(transparent)]
    Laws(#[from] LawError),
    /// The law selection left no law to check (a run would hold vacuously).
    #[error("no laws left to check after only_laws / without_laws")]
    NoLaws,
}

impl<'a, S: ConfigDomain> Check<'a, S> {
    fn edit(mut self, edit: impl FnOnce(&mut Config) + 'static) -> Self {
        self.edits.push(Box::new(edit));
        self
    }
    /// The number of cases (at least 1: [`Check::try_run`] refuses 0).
    pub fn cases(self, cases: u64) -> Self {
        self.edit(move |config| config.cases = cases)
    }
    /// The run seed.
    pub fn seed(self, seed: u64) -> Self {
        self.edit(move |config| config.seed = seed)
    }
    /// Worker threads (0: one per core).
    pub fn threads(self, threads: usize) -> Self {
        self.edit(move |config| config.threads = threads)
    }
    /// Write fixtures into `dir`.
    pub fn fixtures(self, dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        self.edit(move |config| config.fixtures = Some(dir))
    }
    /// Collect up to `k` distinct violations per law instead of the first.
    pub fn collect(self, k: u32) -> Self {
        self.edit(move |config| config.stop_at = if k <= 1 { StopAt::First } else { StopAt::Collect(k) })
    }
    /// Run only shard `shard`.
    pub fn shard(self, shard: Shard) -> Self {
        self.edit(move |config| config.shard = Some(shard))
    }
    /// Run every `every`-th case twice for `deterministic_replay`; 0 never (for a subject whose
    /// randomness cannot be seeded, not even by seeded std randomness, [`timelaw_core::std_random`]). See
    /// [`Config::replay_every`].
    pub fn replay_every(self, every: u64) -> Self {
        self.edit(move |config| config.replay_every = every)
    }
    /// The per-case watchdog in milliseconds of wall time (0 turns it off; see
    /// [`Config::case_timeout_ms`]): a case whose subject records no event and moves no clock for that
    /// long violates `terminates` with "no progress for N ms", and the run goes on without the thread it
    /// hangs.
    pub fn case_timeout_ms(self, timeout_ms: u64) -> Self {
        self.edit(move |config| config.case_timeout_ms = timeout_ms)
    }
    /// The health check as a failure (default off; see [`Config::require_judged`]): a law the contract
    /// states what it needs for, judged non-vacuously in under 0.1% of its applicable cases, fails
    /// [`RunOutput::assert_holds`].
    pub fn require_judged(self, on: bool) -> Self {
        self.edit(move |config| config.require_judged = on)
    }
    /// Overlapping calls on or off (default on; `false` is the opt-out, see [`Config::concurrency`]).
    pub fn concurrency(self, on: bool) -> Self {
        self.edit(move |config| config.concurrency = on)
    }
    /// Forces a swarm switch on in every batch of cases (see [`Config::swarm_on`]): one feature checked
    /// at full strength, e.g. `.swarm_on(SwarmSwitch::Circuit)` (`timelaw::generators::SwarmSwitch`).
    pub fn swarm_on(self, switch: timelaw_generators::SwarmSwitch) -> Self {
        self.edit(move |config| {
            if !config.swarm_on.contains(&switch) {
                config.swarm_on.push(switch);
            }
        })
    }
    /// Whether the `TIMELAW_*` environment variables apply (default `true`). With `false` the run
    /// starts from [`Config::default`], so the environment cannot change it.
    pub fn env(mut self, read: bool) -> Self {
        self.env = read;
        self
    }
    /// Replaces the base configuration (defaults and environment variables); options set on the builder
    /// still apply on top.
    pub fn config(mut self, config: Config) -> Self {
        self.base = Some(config);
        self
    }
    /// Checks these laws instead of the standard catalogue.
    pub fn laws(mut self, laws: Catalogue) -> Self {
        self.laws = Some(laws);
        self
    }
    /// Checks only the laws with these ids (of the standard catalogue, or of [`Check::laws`]).
    pub fn only_laws(mut self, ids: &[&str]) -> Self {
        self.only_laws = Some(ids.iter().map(|id| (*id).to_owned()).collect());
        self
    }
    /// Leaves out the laws with these ids (say, a law a subject documents it does not keep).
    pub fn without_laws(mut self, ids: &[&str]) -> Self {
        self.without_laws.extend(ids.iter().map(|id| (*id).to_owned()));
        self
    }
    /// Reports progress to `progress`.
    pub fn progress(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = progress;
        self
    }
    /// The options this check would run with (base, environment, then the builder's options), validated.
    ///
    /// # Errors
    /// A bad `TIMELAW_*` variable; options that would check nothing (no cases, an empty shard); too many
    /// threads.
    fn resolved_config(base: Option<Config>, env: bool, edits: Vec<Edit>) -> Result<Config, ConfigError> {
        let mut config = match base {
            Some(config) => config,
            None if env => Config::from_env()?,
            None => Config::default(),
        };
        for edit in edits {
            edit(&mut config);
        }
        config.validate()?;
        Ok(config)
    }
    /// The catalogue after [`Check::only_laws`] and [`Check::without_laws`].
    fn resolved_laws(laws: Catalogue, only: Option<Vec<String>>, without: &[String]) -> Result<Catalogue, CheckError> {
        let laws = match only {
            Some(ids) => laws.select(&ids.iter().map(String::as_str).collect::<Vec<_>>())?,
            None => laws,
        };
        let unknown: Vec<String> = without.iter().filter(|id| laws.get(id).is_none()).cloned().collect();
        if !unknown.is_empty() {
            return Err(LawError::Unknown { ids: unknown }.into());
        }
        let keep: Vec<&str> = laws.ids().filter(|id| !without.iter().any(|left_out| left_out == id)).collect();
        let laws = laws.select(&keep)?;
        if laws.is_empty() {
            return Err(CheckError::NoLaws);
        }
        Ok(laws)
    }
    /// Runs the check.
    ///
    /// # Errors
    /// A bad `TIMELAW_*` environment variable, options that would check nothing (`.cases(0)`, an empty
    /// shard), too many threads, an unknown law id, or no law left to check.
    pub fn try_run(self) -> Result<RunOutput<S::Config>, CheckError> {
        let config = Self::resolved_config(self.base, self.env, self.edits)?;
        let laws = self.laws.unwrap_or_else(Catalogue::standard);
        let laws = Self::resolved_laws(laws, self.only_laws, &self.without_laws)?;
        Ok(run(self.subject, &laws, &config, self.progress))
    }
    /// Runs the check; the fixture store's notes (recovered files, findings already pinned) go to stderr.
    ///
    /// # Panics
    /// On every error of [`Check::try_run`] (with what and where): this is the `cargo test` entry.
    pub fn run(self) -> RunOutput<S::Config> {
        match self.try_run() {
            Ok(output) => {
                for note in &output.store.notes {
                    eprintln!("timelaw: {note}");
                }
                output
            }
            Err(error) => panic!("timelaw: {error}"),
        }
    }
}

/// Runs `laws` against `subject` under `config`: recover what killed runs left in the fixtures folder,
/// search (saving each kept counterexample as it is found), then shrink and place every counterexample.
/// A fixture write error stops the run early and is returned in [`RunOutput::store`].
pub fn run<S: ConfigDomain + ?Sized>(
    subject: &S,
    laws: &Catalogue,
    config: &Config,
    progress: &dyn Progress,
) -> RunOutput<S::Config> {
    child::serve_if_child(subject, config); // A child process answers its request and exits here.
                                            // Wall time for the summary only: read once before and once after, never on the checking path.
    let started = std::time::Instant::now();
    let launcher = Launcher::detect(); // On the caller's thread: a test's thread is named after it.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(config.threads).build();
    let work = || match Finds::open(subject, config) {
        Ok(finds) => {
            let tally = search_saving(subject, laws, config, progress, Some(&finds));
            counterexample::resolve(subject, laws, config, tally, progress, finds, launcher.as_ref())
        }
        Err(error) => {
            // Nothing was searched: the output carries only the error.
            let empty = Tally::new(laws.len(), config.violations_per_law());
            let finds = Finds::without_store(subject, config);
            let mut output = counterexample::resolve(subject, laws, config, empty, progress, finds, None);
            output.store.error = Some(std::sync::Arc::new(error));
            output
        }
    };
    let mut output = match pool {
        Ok(pool) => pool.install(work),
        Err(_) => work(), // No dedicated pool could be built: run on the global one.
    };
    output.wall_time = started.elapsed();
    output
}
