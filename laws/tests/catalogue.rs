//! The catalogue as a registry: standard order, ids, registration and selection errors, judging.

mod support;

use support::*;
use timelaw_core::reference::{Backoff, Policy};
use timelaw_core::{Contract, EventKind};
use timelaw_laws::catalogue::STANDARD;
use timelaw_laws::temporal::always;
use timelaw_laws::{always_applies, ids, Catalogue, Law, LawError, LawKind, Observation, Verdict};

fn no_zero_sleep(observation: &Observation<'_>) -> Verdict {
    let sleeps = observation.trace.events.iter().filter(|e| matches!(e.kind, EventKind::SleepRequested { .. }));
    always(sleeps, |e| e.kind != EventKind::SleepRequested { duration: ms(0) })
}

fn user_law(id: &'static str) -> Law {
    Law {
        id,
        title: "retries always wait",
        kind: LawKind::Safety,
        needs: &[],
        applies: always_applies,
        check: no_zero_sleep,
    }
}

#[track_caller]
fn check(result: Result<(), LawError>, expect: Result<(), &str>) {
    assert_eq!(result.map_err(|error| error.to_string()), expect.map_err(str::to_owned));
}

#[test]
fn standard_catalogue_is_the_blueprint() {
    let catalogue = Catalogue::standard();
    assert_eq!(catalogue.len(), 58);
    assert_eq!(catalogue.ids().collect::<Vec<_>>(), ids::ALL);
    assert!(STANDARD.iter().all(|law| !law.title.is_empty()));
    let liveness: Vec<&str> = catalogue.iter().filter(|law| law.kind == LawKind::Liveness).map(|law| law.id).collect();
    assert_eq!(liveness, [ids::EVENTUALLY_SUCCEEDS, ids::TIMEOUT_DOES_NOT_END_STREAM]);
    for law in &catalogue {
        assert_eq!(catalogue.get(law.id).map(|found| found.id), Some(law.id));
        // A law that needs nothing applies to a contract that promises nothing, and only such a law.
        assert_eq!(law.needs.is_empty(), (law.applies)(&Contract::default()), "{}", law.id);
        let mut fresh = Catalogue::empty();
        assert!(fresh.register(*law).is_ok(), "{} is not a valid id", law.id);
    }
    // Every view of the laws agrees: the slice, the iterators and the counts.
    let from_slice: Vec<&str> = catalogue.laws().iter().map(|law| law.id).collect();
    let from_loop: Vec<&str> = (&catalogue).into_iter().map(|law| law.id).collect();
    assert_eq!((from_slice.as_slice(), from_loop.as_slice()), (ids::ALL.as_slice(), ids::ALL.as_slice()));
    assert!(!catalogue.is_empty());
    assert!(Catalogue::empty().is_empty());
}

#[test]
fn registration_errors_name_the_id() {
    let mut catalogue = Catalogue::standard();
    check(catalogue.register(user_law("no_zero_sleep")), Ok(()));
    check(
        catalogue.register(user_law("no_zero_sleep")),
        Err("law id `no_zero_sleep` is already registered in this catalogue"),
    );
    check(
        catalogue.register(user_law(ids::NEVER_PANICS)),
        Err("law id `never_panics` is already registered in this catalogue"),
    );
    let not_snake = " is not snake_case (lowercase ASCII letters, digits and single underscores, starting with a \
                     letter, not ending with an underscore)";
    for id in ["NoZeroSleep", "no-zero-sleep", "no__zero", "_no", "no_", "", "2fast"] {
        let expected = format!("law id `{id}`{not_snake}");
        check(catalogue.register(user_law(id)), Err(&expected));
    }
    assert_eq!(catalogue.len(), 59);
    assert_eq!(catalogue.ids().last(), Some("no_zero_sleep"));
}

#[test]
fn selection_keeps_the_given_order() {
    let catalogue = Catalogue::standard();
    let selected = catalogue.select(&[ids::TERMINATES, ids::NEVER_PANICS, ids::TERMINATES]);
    assert_eq!(selected.map(|c| c.ids().collect::<Vec<_>>()), Ok(vec![ids::TERMINATES, ids::NEVER_PANICS]));
    let unknown = catalogue.select(&["nope", ids::NEVER_PANICS, "never"]).map(|c| c.len());
    assert_eq!(unknown, Err(LawError::Unknown { ids: vec!["nope".to_owned(), "never".to_owned()] }));
    assert_eq!(unknown.unwrap_err().to_string(), "unknown law id(s): `nope`, `never`");
    assert_eq!(catalogue.select(&[]).map(|c| c.is_empty()), Ok(true));
    assert!(Catalogue::empty().is_empty());
}

#[test]
fn judge_all_reuses_the_output() {
    let mut catalogue = Catalogue::standard();
    catalogue.register(user_law("no_zero_sleep")).unwrap();
    let policy = Policy::new(3, Backoff::Constant { delay: ms(0) }, ms(10));
    let run = reference(policy, single(&[T, OK]));
    let mut verdicts = vec![Verdict::Holds; 3];
    catalogue.judge_all(&run.observation(), &mut verdicts);
    assert_eq!(verdicts.len(), catalogue.len());
    assert_eq!(verdicts.last().and_then(|v| v.violation()).and_then(|v| v.event), Some(4));
    let judged: Vec<Verdict> = catalogue.iter().map(|law| law.judge(&run.observation())).collect();
    assert_eq!(verdicts, judged);
}
