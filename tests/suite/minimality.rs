//! Local minimality: every pinned minimum is 1-minimal. For each checked-in fixture (the planted bugs,
//! their reference regressions' cases, the adapter findings) and each stated minimum of
//! `tests/common/minima.rs`, every single shrink move (`timelaw::shrink::moves`) is applied and none may
//! still violate the law.

use crate::common;

use std::path::{Path, PathBuf};

use common::corpus::{CorpusBug, CORPUS};
use common::corpus_minima::canonical;
use common::corpus_subject::Slipped;
use common::minima::stated_minimum;
use common::planted::{Planted, BUGS};
use common::planted_clocks::ClockPlanted;
use common::planted_load::{load_minimum, LoadPlanted, LOAD_BUGS};
use timelaw::core::reference::Policy;
use timelaw::core::{Case, Limits};
use timelaw::eval::evaluate;
use timelaw::laws::Catalogue;
use timelaw::registry::Registry;
use timelaw::shrink::moves;
use timelaw::Config;

fn registry() -> Registry {
    common::registry::planted_registry()
}

/// Checked-in fixtures that an older shrinker pinned and that a single move of today's shrinker still
/// simplifies: each with the reason it stays (the fixture folder is data: it is never rewritten here).
/// `excused_fixtures_shrink_again_to_one_minimal_cases` shows today's shrinker takes each further.
const NOT_ONE_MINIMAL: &[(&str, &str)] = &[(
    "delay_within_cap--backon-fibonacci--23f30f02b4c28e95.json",
    "jitter off keeps the violation: the same finding as delay_within_cap--backon-fibonacci--da9401c3b31e65b0",
)];

fn fixtures(dir: &str) -> Vec<PathBuf> {
    timelaw::fixture::list(Path::new(dir)).expect("the fixture folder lists")
}

#[track_caller]
fn check_fixture(registry: &Registry, path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let header = timelaw::fixture::parse_header(path, &text).unwrap();
    let subject = registry.for_fixture(path, &header.subject).unwrap();
    subject.violating_moves(&Catalogue::standard(), path, &text, &Config::default()).unwrap()
}

#[test]
fn every_checked_in_minimum_is_one_minimal() {
    let registry = registry();
    let mut failures = Vec::new();
    let mut checked = 0;
    for dir in ["tests/fixtures/planted", "tests/fixtures/adapters"] {
        for path in fixtures(dir) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let violating = check_fixture(&registry, &path);
            checked += 1;
            let excused = NOT_ONE_MINIMAL.iter().any(|(file, _)| *file == name);
            match (violating.is_empty(), excused) {
                (true, true) => failures.push(format!("{name} is 1-minimal now: remove it from NOT_ONE_MINIMAL")),
                (false, false) => failures.push(format!("{name}: still violated after {violating:?}")),
                _ => {}
            }
        }
    }
    assert!(checked >= 30, "only {checked} fixtures checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The stated minima (the planted bugs' canonical minima, which the reference regressions replay):
/// no single move keeps the planted bug's violation.
#[test]
fn every_stated_minimum_is_one_minimal() {
    for (bug, law) in BUGS {
        let law = *Catalogue::standard().get(law).unwrap();
        let minimum = stated_minimum(bug);
        let subject = Planted(bug);
        let judge = |case: &timelaw::core::Case<timelaw::reference::Policy>| {
            evaluate(&subject, case, Limits::default(), false).judge(&law, case)
        };
        assert!(judge(&minimum).is_violated(), "{bug:?}: the stated minimum does not fail");
        let all = moves(&subject, &minimum);
        assert!(!all.is_empty(), "{bug:?}: no moves");
        for step in all {
            assert!(!judge(&step.case).is_violated(), "{bug:?}: `{}` still fails", step.name);
        }
    }
}

/// The planted load bugs' canonical minima (`tests/common/planted_load.rs`): no single move (fewer calls,
/// serialized, fewer or smaller interleaving choices, arrivals moved, and every other) keeps the violation.
#[test]
fn every_load_minimum_is_one_minimal() {
    for (bug, law) in LOAD_BUGS {
        let law = *Catalogue::standard().get(law).unwrap();
        let (subject, minimum) = (LoadPlanted(bug), load_minimum(bug));
        let judge = |case: &Case<Policy>| evaluate(&subject, case, Limits::default(), false).judge(&law, case);
        assert!(judge(&minimum).is_violated(), "{bug:?}: the minimum does not fail");
        let all = moves(&subject, &minimum);
        assert!(!all.is_empty(), "{bug:?}: no moves");
        for step in all {
            assert!(!judge(&step.case).is_violated(), "{bug:?}: `{}` still fails", step.name);
        }
    }
}

/// A concurrent case one move from its minimum is caught: the bulkhead minimum with its second call
/// arriving 1 ns later and an interleaving choice that changes nothing.
#[test]
fn a_load_case_one_move_from_its_minimum_is_not_one_minimal() {
    use common::planted_load::LoadBug;
    use timelaw::core::VDuration;
    let bug = LoadBug::BulkheadOffByOne;
    let law = *Catalogue::standard().get("bulkhead_in_flight_within_limit").unwrap();
    let subject = LoadPlanted(bug);
    let mut padded = load_minimum(bug);
    padded.schedule.interleave = vec![0];
    let still = |case: &Case<Policy>| -> Vec<String> {
        let violated = |c: &Case<Policy>| evaluate(&subject, c, Limits::default(), false).judge(&law, c).is_violated();
        assert!(violated(case), "{case:?}");
        moves(&subject, case).into_iter().filter(|step| violated(&step.case)).map(|step| step.name).collect()
    };
    assert!(still(&padded).contains(&"no interleaving choices".to_owned()), "{:?}", still(&padded));
    let mut later = load_minimum(bug);
    later.schedule.calls[0].steps[0].duration = VDuration::from_nanos(3);
    later.schedule.calls[1].arrival = Some(VDuration::from_nanos(1));
    assert!(still(&later).contains(&"call 1 arrives 1ns earlier".to_owned()), "{:?}", still(&later));
    // A retry holding the slot through its 1 ns backoff: the failed step made ok until its call ended.
    let mut retried = load_minimum(bug);
    retried.config.max_attempts = 2;
    retried.config.backoff = timelaw::core::reference::Backoff::Constant { delay: VDuration::from_nanos(1) };
    retried.config.delay_max = VDuration::from_nanos(1);
    retried.schedule.calls[0].steps = vec![timelaw::core::Step::instant(timelaw::core::Outcome::Transient)];
    let folded = "a failed step made ok until its call ended (form 0)".to_owned();
    assert!(still(&retried).contains(&folded), "{:?}", still(&retried));
}

/// The half-open minimum with two probes allowed and one more caller: only a caller dropped together
/// with the probe limit lowered by one keeps the violation.
#[test]
fn a_caller_more_under_a_larger_limit_is_not_one_minimal() {
    use common::planted_load::LoadBug;
    use timelaw::core::{CallScript, CircuitContract, VDuration};
    let bug = LoadBug::HalfOpenAdmitsAll;
    let law = *Catalogue::standard().get("half_open_probe_limit").unwrap();
    let subject = LoadPlanted(bug);
    let mut probes = load_minimum(bug);
    probes.config.circuit = probes.config.circuit.map(|circuit| CircuitContract { half_open_probes: 2, ..circuit });
    probes.schedule.calls.insert(1, CallScript::new(vec![]).arriving(VDuration::ZERO));
    let violated = |c: &Case<Policy>| evaluate(&subject, c, Limits::default(), false).judge(&law, c).is_violated();
    assert!(violated(&probes));
    let still: Vec<String> =
        moves(&subject, &probes).into_iter().filter(|step| violated(&step.case)).map(|step| step.name).collect();
    assert!(!still.is_empty() && still.iter().all(|name| name.starts_with("a call dropped with a count")), "{still:?}");
}

/// A case that is not minimal is caught: one more transient failure than the stated minimum needs.
#[test]
fn a_case_one_move_from_its_minimum_is_not_one_minimal() {
    use timelaw::core::{Outcome, Step};
    let (bug, law) = BUGS[0];
    let law = *Catalogue::standard().get(law).unwrap();
    let mut padded = stated_minimum(bug);
    padded.schedule.calls[0].steps.push(Step::instant(Outcome::Transient));
    let subject = Planted(bug);
    let still: Vec<String> = moves(&subject, &padded)
        .into_iter()
        .filter(|step| evaluate(&subject, &step.case, Limits::default(), false).judge(&law, &step.case).is_violated())
        .map(|step| step.name)
        .collect();
    assert!(still.contains(&"drop call 0 step 1".to_owned()), "{still:?}");
}

/// Each excused fixture, shrunk again (a copy, in a scratch folder) by today's shrinker, gives a
/// 1-minimal case: the excuse is the fixture's age, not a shrinker that stops early.
#[test]
fn excused_fixtures_shrink_again_to_one_minimal_cases() {
    let registry = registry();
    let scratch = std::env::temp_dir().join(format!("timelaw-minimality-{}", std::process::id()));
    for (name, _why) in NOT_ONE_MINIMAL {
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).unwrap();
        let copy = scratch.join(name);
        std::fs::copy(Path::new("tests/fixtures/adapters").join(name), &copy).unwrap();
        let text = std::fs::read_to_string(&copy).unwrap();
        let header = timelaw::fixture::parse_header(&copy, &text).unwrap();
        let subject = registry.for_fixture(&copy, &header.subject).unwrap();
        let placed = subject.shrink_fixture(&Catalogue::standard(), &copy, &text, &Config::default()).unwrap();
        let shrunk = match placed {
            timelaw::fixture::Placed::Written(path) => path,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(check_fixture(&registry, &shrunk), Vec::<String>::new(), "{name} shrunk to {}", shrunk.display());
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The moves from `case` that still violate `law` under the subject of `bug`.
fn violating_corpus_moves(bug: CorpusBug, law: &str, case: &Case<Policy>) -> Vec<String> {
    let all = match bug {
        CorpusBug::Planted(bug) => moves(&Planted(bug), case),
        CorpusBug::Clock(bug) => moves(&ClockPlanted(bug), case),
        CorpusBug::Slip(slip) => moves(&Slipped(slip), case),
        CorpusBug::Load(bug) => moves(&LoadPlanted(bug), case),
    };
    all.into_iter().filter(|step| bug.judge(law, &step.case).is_violated()).map(|step| step.name).collect()
}

/// Every canonical minimum of the planted-bug corpus (`tests/common/corpus_minima.rs`) is 1-minimal:
/// no single move keeps its bug's violation.
#[test]
fn every_corpus_minimum_is_one_minimal() {
    let mut failures = Vec::new();
    for entry in CORPUS {
        let minimum = canonical(entry.bug);
        assert!(entry.bug.judge(entry.law, &minimum).is_violated(), "{:?}: the minimum does not fail", entry.bug);
        let violating = violating_corpus_moves(entry.bug, entry.law, &minimum);
        if !violating.is_empty() {
            failures.push(format!("{}: still violated after {violating:?}", entry.bug.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every canonical minimum of the guide corpus (`tests/common/guide_corpus.rs`) is 1-minimal too.
#[test]
fn every_guide_minimum_is_one_minimal() {
    let mut failures = Vec::new();
    for entry in common::guide_corpus::GUIDE_CORPUS {
        let violating = entry.violating_moves();
        if !violating.is_empty() {
            failures.push(format!("{}: still violated after {violating:?}", entry.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A corpus minimum with one step too many is caught: the check can fail.
#[test]
fn a_corpus_case_one_move_from_its_minimum_is_not_one_minimal() {
    use timelaw::core::{Outcome, Step};
    let entry = CORPUS.iter().find(|entry| entry.bug.name() == "slipped-stale-error-after-success").unwrap();
    let mut padded = canonical(entry.bug);
    padded.schedule.calls[0].steps.insert(0, Step::instant(Outcome::Transient));
    let violating = violating_corpus_moves(entry.bug, entry.law, &padded);
    assert!(!violating.is_empty(), "{padded:?}");
}
