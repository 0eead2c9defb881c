//! The runner: check a subject against laws over many cases in parallel, shrink every counterexample,
//! write fixtures.

mod counterexample;
mod persist;
mod progress;
mod search;
mod tally;

use std::path::PathBuf;

use timelaw_generators::ConfigDomain;
use timelaw_laws::Catalogue;

pub use counterexample::{build_fixture, Counterexample, LawOutcome, RunOutput};
pub use persist::{Finds, StoreNotes};
pub use progress::{Progress, Silent};
pub use search::{check_case, search, search_saving, COVERAGE_EVERY, PROGRESS_CASES};
pub use tally::{Found, Tally};

use crate::config::{Config, ConfigError, Shard, StopAt};

/// Starts a check of `subject` with the default [`Config`] and the `TIMELAW_*` environment variables.
///
/// ```
/// use timelaw::reference::Reference;
/// let output = timelaw::check(&Reference).cases(500).run();
/// output.assert_holds();
/// ```
pub fn check<S: ConfigDomain>(subject: &S) -> Check<'_, S> {
    Check { subject, config: Config::from_env(), laws: None, progress: &Silent }
}

/// A check being configured; [`Check::run`] runs it.
pub struct Check<'a, S: ConfigDomain> {
    subject: &'a S,
    config: Result<Config, ConfigError>,
    laws: Option<Catalogue>,
    progress: &'a dyn Progress,
}

impl<'a, S: ConfigDomain> Check<'a, S> {
    fn edit(mut self, edit: impl FnOnce(&mut Config)) -> Self {
        if let Ok(config) = self.config.as_mut() {
            edit(config);
        }
        self
    }
    /// The number of cases.
    pub fn cases(self, cases: u64) -> Self {
        self.edit(|config| config.cases = cases)
    }
    /// The run seed.
    pub fn seed(self, seed: u64) -> Self {
        self.edit(|config| config.seed = seed)
    }
    /// Worker threads (0: one per core).
    pub fn threads(self, threads: usize) -> Self {
        self.edit(|config| config.threads = threads)
    }
    /// Write fixtures into `dir`.
    pub fn fixtures(self, dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        self.edit(|config| config.fixtures = Some(dir))
    }
    /// Collect up to `k` distinct violations per law instead of the first.
    pub fn collect(self, k: u32) -> Self {
        self.edit(|config| config.stop_at = if k <= 1 { StopAt::First } else { StopAt::Collect(k) })
    }
    /// Run only shard `shard`.
    pub fn shard(self, shard: Shard) -> Self {
        self.edit(|config| config.shard = Some(shard))
    }
    /// Replaces the whole configuration.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Ok(config);
        self
    }
    /// Checks these laws instead of the standard catalogue.
    pub fn laws(mut self, laws: Catalogue) -> Self {
        self.laws = Some(laws);
        self
    }
    /// Reports progress to `progress`.
    pub fn progress(mut self, progress: &'a dyn Progress) -> Self {
        self.progress = progress;
        self
    }
    /// Runs the check.
    ///
    /// # Errors
    /// A bad `TIMELAW_*` environment variable.
    pub fn try_run(self) -> Result<RunOutput<S::Config>, ConfigError> {
        let config = self.config?;
        let laws = self.laws.unwrap_or_else(Catalogue::standard);
        Ok(run(self.subject, &laws, &config, self.progress))
    }
    /// Runs the check; the fixture store's notes (recovered files, findings already pinned) go to stderr.
    ///
    /// # Panics
    /// On a bad `TIMELAW_*` environment variable (with its name and value): this is the `cargo test` entry.
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
    let pool = rayon::ThreadPoolBuilder::new().num_threads(config.threads).build();
    let work = || match Finds::open(subject, config) {
        Ok(finds) => {
            let tally = search_saving(subject, laws, config, progress, Some(&finds));
            counterexample::resolve(subject, laws, config, tally, progress, finds)
        }
        Err(error) => {
            // Nothing was searched: the output carries only the error.
            let empty = Tally::new(laws.len(), config.violations_per_law());
            let finds = Finds::without_store(subject, config);
            let mut output = counterexample::resolve(subject, laws, config, empty, progress, finds);
            output.store.error = Some(std::sync::Arc::new(error));
            output
        }
    };
    match pool {
        Ok(pool) => pool.install(work),
        Err(_) => work(), // No dedicated pool could be built: run on the global one.
    }
}
