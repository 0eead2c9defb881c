//! Persist as you find: every counterexample the search keeps is saved in the fixtures folder's scratch
//! area (`DIR/.timelaw/pending/`) the moment it is found, so a kill at any moment loses at most the case
//! being evaluated. When shrinking ends, each shrunk counterexample is placed in `DIR` by the store's rules
//! ([`crate::fixture::place`]: nothing that exists is replaced without `--bless`) and its raw file is
//! removed. What killed runs left is recovered before the search starts (only what a timelaw run marked
//! as its own, see [`crate::fixture::Pending`]).
//!
//! The raw files kept are exactly the lowest-index violations per law seen so far over all workers, so
//! they end as the tally's kept violations: a raw file pushed out by a lower-index one is removed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use timelaw_core::Case;
use timelaw_generators::ConfigDomain;
use timelaw_laws::Law;

use super::counterexample::{build_fixture, build_fixture_from, provenance};
use crate::config::Config;
use crate::eval::Evaluation;
use crate::fixture::{self, FixtureError, Pending, Placed};

/// What a run did to the fixture store besides writing fixtures: the first write error and the notes
/// for people (recovered files, findings already pinned).
#[derive(Clone, Debug, Default)]
pub struct StoreNotes {
    /// The first fixture write error: the run's fixtures are incomplete (the CLI exits with 2).
    pub error: Option<Arc<FixtureError>>,
    /// One line per file recovered or removed, and per finding already pinned by an existing file.
    pub notes: Vec<String>,
}

/// The raw counterexamples saved so far, and the store's state, shared by the search's workers.
pub struct Finds<'a, S: ConfigDomain + ?Sized> {
    subject: &'a S,
    config: &'a Config,
    dir: Option<&'a Path>,
    pending: Option<Pending>,
    keep: usize,
    /// Per law id, the saved raw counterexamples sorted by case index (at most `keep`).
    saved: Mutex<HashMap<&'static str, Vec<(u64, PathBuf)>>>,
    failed: AtomicBool,
    store: Mutex<StoreNotes>,
}

/// Whether a killed run's raw counterexample reads as a fixture: strictly, with the config type when it
/// is this run's subject's, else with the config as any JSON (another subject's run left it).
fn readable<S: ConfigDomain + ?Sized>(subject: &S, path: &Path, text: &str) -> Result<(), FixtureError> {
    let header = fixture::parse_header(path, text)?;
    match header.subject == timelaw_core::Subject::name(subject) {
        true => fixture::parse::<S::Config>(path, text).map(drop),
        false => fixture::parse::<serde_json::Value>(path, text).map(drop),
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A worker that panicked mid-update left plain data (a list, notes) that is still usable.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<'a, S: ConfigDomain + ?Sized> Finds<'a, S> {
    /// Recovers what killed runs left in the run's fixtures folder and opens this run's scratch folder;
    /// with no fixtures folder, saves nothing.
    ///
    /// # Errors
    /// [`FixtureError::Io`] naming the folder or file that could not be read or written.
    pub fn open(subject: &'a S, config: &'a Config) -> Result<Finds<'a, S>, FixtureError> {
        let dir = config.fixtures.as_deref();
        let mut notes = Vec::new();
        let pending = match dir {
            Some(dir) => {
                let pending = Pending::open(dir)?;
                notes.extend(pending.note().map(str::to_owned));
                notes.extend(pending.recover(&|path, text| readable(subject, path, text))?.lines());
                Some(pending)
            }
            None => None,
        };
        let store = Mutex::new(StoreNotes { error: None, notes });
        let keep = config.violations_per_law();
        Ok(Finds {
            subject,
            config,
            dir,
            pending,
            keep,
            saved: Mutex::default(),
            failed: AtomicBool::new(false),
            store,
        })
    }

    /// Saves and places nothing (the run has no fixtures folder, or it could not be opened).
    pub fn without_store(subject: &'a S, config: &'a Config) -> Finds<'a, S> {
        let keep = config.violations_per_law();
        let (saved, store) = (Mutex::default(), Mutex::default());
        Finds { subject, config, dir: None, pending: None, keep, saved, failed: AtomicBool::new(false), store }
    }

    /// Whether shrunk fixtures are to be placed (a fixtures folder, and no write failed).
    pub fn writes(&self) -> bool {
        self.dir.is_some() && !self.failed()
    }

    /// Whether a write failed: the search stops judging cases, nothing more is written.
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }

    fn fail(&self, error: FixtureError) {
        self.failed.store(true, Ordering::Relaxed);
        let mut store = locked(&self.store);
        if store.error.is_none() {
            store.error = Some(Arc::new(error));
        }
    }

    /// Saves `case`, a violation of `law` at `case_index` that a worker's tally kept, unless lower-index
    /// violations of that law already fill the kept places.
    pub fn offer(&self, law: &Law, case_index: u64, case: &Case<S::Config>) {
        self.offer_evaluated(law, case_index, case, None);
    }

    /// [`Finds::offer`] with the case's evaluation when the caller has it (a hang's: running the case
    /// again to write its raw file would hang again).
    pub(super) fn offer_evaluated(
        &self,
        law: &Law,
        case_index: u64,
        case: &Case<S::Config>,
        evaluation: Option<&Evaluation>,
    ) {
        let Some(pending) = &self.pending else { return };
        if self.failed() {
            return;
        }
        let mut saved = locked(&self.saved);
        let list = saved.entry(law.id).or_default();
        let at = list.partition_point(|(index, _)| *index < case_index);
        if at >= self.keep || list.get(at).is_some_and(|(index, _)| *index == case_index) {
            return;
        }
        let provenance = provenance(self.config, case_index, false, 0);
        let fixture = match evaluation {
            Some(evaluation) => build_fixture_from(self.subject, law, case, provenance, evaluation),
            None => build_fixture(self.subject, law, self.config, case, provenance),
        };
        match pending.save(&fixture) {
            Ok(path) => list.insert(at, (case_index, path)),
            Err(error) => return self.fail(error),
        }
        if list.len() > self.keep {
            if let Some((_, superseded)) = list.pop() {
                if let Err(error) = pending.discard(&superseded) {
                    self.fail(error);
                }
            }
        }
    }

    /// Places the shrunk fixture of the violation of `law` found at `case_index` and removes its raw
    /// file. `None` when no fixtures are written or a write failed (the error is kept).
    pub fn promote(&self, law: &Law, case_index: u64, fixture: &fixture::Fixture<S::Config>) -> Option<Placed> {
        let dir = self.dir?;
        if self.failed() {
            return None;
        }
        let placed = match &self.pending {
            Some(pending) => pending.place(dir, fixture, self.config.bless),
            None => fixture::place(dir, fixture, self.config.bless),
        };
        let placed = match placed {
            Ok(placed) => placed,
            Err(error) => {
                self.fail(error);
                return None;
            }
        };
        if let Placed::AlreadyPinned(path) = &placed {
            let note = format!("law `{}`: the counterexample is already pinned by {}", law.id, fixture::shown(path));
            locked(&self.store).notes.push(note);
        }
        self.discard(law, case_index);
        Some(placed)
    }

    /// Removes the raw file of the violation of `law` found at `case_index` (a duplicate after shrinking).
    pub fn discard(&self, law: &Law, case_index: u64) {
        let Some(pending) = &self.pending else { return };
        let path = locked(&self.saved)
            .get(law.id)
            .and_then(|list| list.iter().find(|(index, _)| *index == case_index).map(|(_, path)| path.clone()));
        if let Some(path) = path {
            if let Err(error) = pending.discard(&path) {
                self.fail(error);
            }
        }
    }

    /// Closes the scratch folder (removed when empty) and returns the store's notes.
    pub fn finish(self) -> StoreNotes {
        if let Some(pending) = self.pending {
            pending.close();
        }
        self.store.into_inner().unwrap_or_else(PoisonError::into_inner)
    }
}
