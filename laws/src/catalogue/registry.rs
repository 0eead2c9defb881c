//! [`Catalogue`]: an ordered set of laws with unique snake_case ids.

use thiserror::Error;

use crate::features::Features;
use crate::law::{Calls, Law, Observation};
use crate::verdict::Verdict;

/// Why a law could not be registered or selected.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Error)]
pub enum LawError {
    /// Another law of the catalogue has this id.
    #[error("law id `{id}` is already registered in this catalogue")]
    Duplicate {
        /// The id.
        id: String,
    },
    /// The id is not snake_case.
    #[error(
        "law id `{id}` is not snake_case (lowercase ASCII letters, digits and single underscores, \
         starting with a letter, not ending with an underscore)"
    )]
    NotSnakeCase {
        /// The id.
        id: String,
    },
    /// Some ids name no law of the catalogue.
    #[error("unknown law id(s): {}", quoted(.ids))]
    Unknown {
        /// Every unknown id, in the order given.
        ids: Vec<String>,
    },
}

fn quoted(ids: &[String]) -> String {
    ids.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", ")
}

/// `true` for a snake_case id: `[a-z][a-z0-9]*(_[a-z0-9]+)*`.
pub(crate) fn is_snake_case(id: &str) -> bool {
    let starts_with_letter = id.bytes().next().is_some_and(|byte| byte.is_ascii_lowercase());
    let allowed = id.bytes().all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_');
    starts_with_letter && allowed && !id.ends_with('_') && !id.contains("__")
}

/// An ordered set of laws with unique snake_case ids: the standard catalogue, a selection of it, or the
/// standard laws plus a user's own.
///
/// ```
/// use timelaw_laws::{ids, Catalogue};
/// let standard = Catalogue::standard();
/// assert_eq!(standard.len(), 58);
/// let some = standard.select(&[ids::NEVER_PANICS, ids::TERMINATES]).unwrap();
/// assert_eq!(some.ids().collect::<Vec<_>>(), ["never_panics", "terminates"]);
/// assert!(standard.select(&["no_such_law"]).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Catalogue {
    laws: Vec<Law>,
    /// Per law, how the catalogue judges it, looked up once here instead of for every case.
    plans: Vec<Plan>,
}

/// How a catalogue judges one of its laws (one entry per law, beside it: the judging loop reads one
/// array, not one per fact).
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// The facts without which the law is vacuous ([`super::vacuous_without`]).
    vacuous_without: Features,
    /// Whether it judges one call at a time ([`super::judged_per_call`]).
    per_call: bool,
}

impl Catalogue {
    /// Every standard law, in blueprint order ([`crate::catalogue::STANDARD`]).
    pub fn standard() -> Catalogue {
        let mut catalogue = Catalogue::empty();
        for law in super::STANDARD {
            catalogue.push(law);
        }
        catalogue
    }

    /// A catalogue with no law.
    pub fn empty() -> Catalogue {
        Catalogue { laws: Vec::new(), plans: Vec::new() }
    }

    /// Adds `law` at the end, unchecked.
    fn push(&mut self, law: Law) {
        self.plans
            .push(Plan { vacuous_without: super::vacuous_without(&law), per_call: super::judged_per_call(law.id) });
        self.laws.push(law);
    }

    /// Adds `law` at the end.
    ///
    /// # Errors
    /// [`LawError::NotSnakeCase`] when the id is not snake_case, [`LawError::Duplicate`] when a law with
    /// the same id is already there.
    pub fn register(&mut self, law: Law) -> Result<(), LawError> {
        if !is_snake_case(law.id) {
            return Err(LawError::NotSnakeCase { id: law.id.to_owned() });
        }
        if self.get(law.id).is_some() {
            return Err(LawError::Duplicate { id: law.id.to_owned() });
        }
        self.push(law);
        Ok(())
    }

    /// The law with this id.
    pub fn get(&self, id: &str) -> Option<&Law> {
        self.laws.iter().find(|law| law.id == id)
    }

    /// The laws, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Law> {
        self.laws.iter()
    }

    /// The laws as a slice, in order.
    pub fn laws(&self) -> &[Law] {
        &self.laws
    }

    /// How many laws there are.
    pub fn len(&self) -> usize {
        self.laws.len()
    }

    /// `true` when there is no law.
    pub fn is_empty(&self) -> bool {
        self.laws.is_empty()
    }

    /// The ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.laws.iter().map(|law| law.id)
    }

    /// A catalogue of the laws named by `ids`, in the order given (a repeated id is taken once).
    ///
    /// # Errors
    /// [`LawError::Unknown`] listing every id that names no law here.
    pub fn select(&self, ids: &[&str]) -> Result<Catalogue, LawError> {
        let unknown: Vec<String> = ids.iter().filter(|id| self.get(id).is_none()).map(|id| (*id).to_owned()).collect();
        if !unknown.is_empty() {
            return Err(LawError::Unknown { ids: unknown });
        }
        let mut selected = Catalogue::empty();
        for law in ids.iter().filter_map(|id| self.get(id)) {
            if selected.get(law.id).is_none() {
                selected.push(*law);
            }
        }
        Ok(selected)
    }

    /// Judges every law on `observation`, writing the verdicts to `out` in catalogue order (`out` is
    /// cleared first). Reuse `out` across cases: with its capacity in place, judging allocates nothing
    /// unless a law is violated or inconclusive with a formatted message.
    pub fn judge_all(&self, observation: &Observation<'_>, out: &mut Vec<Verdict>) {
        out.clear();
        self.judge_each(observation, |_, _, verdict| out.push(verdict));
    }

    /// Judges every law on `observation` in catalogue order, handing each verdict to `each` with the
    /// law's index and the law. Like [`Catalogue::judge_all`], it looks once whether the trace's calls
    /// interleave (and regroups it once if they do), where judging law by law with [`Law::judge`] looks
    /// for every law; it allocates nothing for a sequential trace. It also gathers the case's
    /// [`Features`] once, and a standard law that is vacuous without any of its facts
    /// ([`super::vacuous_without`]) is judged vacuous without a walk: the verdict [`Law::judge`] gives.
    pub fn judge_each(&self, observation: &Observation<'_>, each: impl FnMut(usize, &Law, Verdict)) {
        super::case_memo::judging_case(|| {
            if crate::temporal::calls_interleave(&observation.trace.events) {
                crate::temporal::with_grouped_by_call(observation.trace, |grouped| {
                    self.judge_each_in(observation, Calls::Grouped(grouped), each);
                });
            } else {
                self.judge_each_in(observation, Calls::Sequential, each);
            }
        });
    }

    fn judge_each_in(
        &self,
        observation: &Observation<'_>,
        calls: Calls<'_>,
        mut each: impl FnMut(usize, &Law, Verdict),
    ) {
        debug_assert_eq!(self.laws.len(), self.plans.len());
        let features = Features::of(observation.trace, observation.schedule);
        for (index, (law, &Plan { vacuous_without: needed, per_call })) in self.laws.iter().zip(&self.plans).enumerate()
        {
            let verdict = match needed.is_empty() || features.intersects(needed) {
                true => law.judge_in(observation, calls, per_call),
                false => cut_vacuous(law, observation, calls, per_call),
            };
            each(index, law, verdict);
        }
    }
}

/// The verdict of a law none of whose facts happened: vacuous when it applies. Debug builds run the check
/// all the same and assert it agrees ([`super::vacuous_without`]'s claim).
fn cut_vacuous(law: &Law, observation: &Observation<'_>, calls: Calls<'_>, per_call: bool) -> Verdict {
    if !(law.applies)(observation.contract) {
        return Verdict::NotApplicable;
    }
    debug_assert_eq!(
        law.judge_in(observation, calls, per_call),
        Verdict::Vacuous,
        "law `{}` was cut as vacuous (none of its facts happened) but its check says otherwise",
        law.id
    );
    Verdict::Vacuous
}

impl<'a> IntoIterator for &'a Catalogue {
    type Item = &'a Law;
    type IntoIter = std::slice::Iter<'a, Law>;
    fn into_iter(self) -> Self::IntoIter {
        self.laws.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::is_snake_case;

    #[test]
    fn snake_case_ids() {
        for good in ["a", "never_panics", "retry_2x", "a1_b2"] {
            assert!(is_snake_case(good), "{good}");
        }
        for bad in ["", "_a", "a_", "a__b", "NeverPanics", "never-panics", "1a", "é"] {
            assert!(!is_snake_case(bad), "{bad}");
        }
    }
}
