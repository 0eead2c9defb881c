//! The vacuity cut: a catalogue judges a standard law vacuous without walking the trace when none of the
//! facts the law speaks about happened ([`timelaw::laws::catalogue::vacuous_without`]). Each claim is held
//! to the law's own check on random cases of every distribution the runner draws (check's swarms, every
//! swarm feature on, overlapping calls); a wrong claim is caught by the same comparison.

use timelaw::core::mix;
use timelaw::core::reference::Reference;
use timelaw::eval::evaluate;
use timelaw::generators::{sample_case, swarm_for_run, Swarm};
use timelaw::laws::catalogue::vacuous_without;
use timelaw::laws::{ids, Catalogue, Features, Law, Verdict};
use timelaw::Config;

/// Cases per distribution: enough that every law with a claim is judged non-vacuously on some of them.
const CASES: u64 = 3_000;

/// Per law, a claim: the facts without which its verdict is vacuous.
type Claim = (&'static str, Features);

/// What checking the claims on a distribution found.
#[derive(Default)]
struct Found {
    /// A case where a law's facts were absent and its check was not vacuous: (law, case index, verdict).
    contradicted: Option<(&'static str, u64, String)>,
    /// The laws of the claims judged non-vacuously on some case (their facts present).
    judged: Vec<&'static str>,
}

/// Checks `claims` on `cases` cases drawn by `swarm_of(index)` with the reference.
fn check_claims(claims: &[Claim], swarm_of: impl Fn(u64) -> Swarm) -> Found {
    let config = Config::default();
    let catalogue = Catalogue::standard();
    let mut found = Found::default();
    for index in 0..CASES {
        let case = sample_case(&Reference, mix(config.seed, index), &swarm_of(index));
        let evaluation = evaluate(&Reference, &case, config.limits, index % 16 == 0);
        let observation = evaluation.observation(&case);
        let features = Features::of(observation.trace, observation.schedule);
        for &(id, facts) in claims {
            let verdict = catalogue.get(id).expect("a standard law").judge(&observation);
            let judged = !matches!(verdict, Verdict::Vacuous | Verdict::NotApplicable);
            if judged && !features.intersects(facts) && found.contradicted.is_none() {
                found.contradicted = Some((id, index, verdict.to_string()));
            }
            if judged && !found.judged.contains(&id) {
                found.judged.push(id);
            }
        }
    }
    found
}

/// The standard catalogue's claims.
fn standard_claims() -> Vec<Claim> {
    let catalogue = Catalogue::standard();
    catalogue.iter().map(|law| (law.id, vacuous_without(law))).filter(|(_, facts)| !facts.is_empty()).collect()
}

/// A distribution: its name and the swarm of each case index.
type Distribution = (&'static str, Box<dyn Fn(u64) -> Swarm>);

/// The distributions the runner draws from: check's swarms, with and without overlapping calls, and every
/// swarm feature on.
fn distributions() -> [Distribution; 3] {
    let seed = Config::default().seed;
    [
        ("check's swarms", Box::new(move |index| swarm_for_run(seed, index, false))),
        ("under load", Box::new(move |index| swarm_for_run(seed, index, true))),
        ("every feature on", Box::new(|_| Swarm::everything())),
    ]
}

#[test]
fn every_claim_agrees_with_its_law_on_every_distribution() {
    let claims = standard_claims();
    assert!(claims.len() >= 20, "{} claims", claims.len());
    let mut judged = Vec::new();
    for (name, swarm_of) in distributions() {
        let found = check_claims(&claims, swarm_of);
        assert!(found.contradicted.is_none(), "{name}: {:?}", found.contradicted);
        judged.extend(found.judged);
    }
    // Every claim was put to the test: its law judged some case non-vacuously.
    for (id, _) in &claims {
        assert!(judged.contains(id), "{id} was never judged non-vacuously, so its claim was never tested");
    }
}

#[test]
fn a_wrong_claim_is_caught() {
    let wrong: [Claim; 3] = [
        (ids::SUCCESS_ENDS_CALL, Features::SLEEP),
        (ids::DELAY_WITHIN_CAP, Features::TIMED_OUT),
        (ids::EXHAUSTED_RETRIES_RETURN_ERR, Features::ENDED_FATAL),
    ];
    for claim in wrong {
        let found = check_claims(&[claim], |index| swarm_for_run(Config::default().seed, index, false));
        assert!(found.contradicted.is_some(), "the wrong claim {claim:?} was not caught");
    }
}

#[test]
fn a_users_law_under_a_standard_id_is_never_cut() {
    let standard = *Catalogue::standard().get(ids::DELAY_WITHIN_CAP).unwrap();
    assert!(!vacuous_without(&standard).is_empty());
    let own = Law { check: |_| Verdict::Holds, ..standard };
    assert_eq!(vacuous_without(&own), Features::EMPTY);
    let mut catalogue = Catalogue::empty();
    catalogue.register(own).unwrap();
    // A case where nothing slept: the standard law would be cut; the user's own law is judged.
    let config = Config::default();
    let case = (0..)
        .map(|index| sample_case(&Reference, mix(config.seed, index), &swarm_for_run(config.seed, index, false)))
        .find(|case| {
            let evaluation = evaluate(&Reference, case, config.limits, false);
            let observation = evaluation.observation(case);
            let features = Features::of(observation.trace, observation.schedule);
            (own.applies)(observation.contract) && !features.intersects(Features::SLEEP)
        })
        .unwrap();
    let evaluation = evaluate(&Reference, &case, config.limits, false);
    let mut verdicts = Vec::new();
    catalogue.judge_all(&evaluation.observation(&case), &mut verdicts);
    assert_eq!(verdicts, [Verdict::Holds]);
}

/// The runner's loop on [`CASES`] cases of `swarm_of`: each case evaluated and judged by the catalogue,
/// its trace buffer handed back for the next case, nothing judged in between (so whatever the catalogue
/// keeps from case to case would show); every law's verdict is the one the law gives on its own, on the
/// same case evaluated again. Returns how many cases had a circuit law judged non-vacuously.
fn catalogue_agrees_law_by_law(swarm_of: &dyn Fn(u64) -> Swarm) -> u64 {
    let config = Config::default();
    let catalogue = Catalogue::standard();
    let draw = |index| sample_case(&Reference, mix(config.seed, index), &swarm_of(index));
    let mut judged = Vec::new();
    for index in 0..CASES {
        let case = draw(index);
        let evaluation = evaluate(&Reference, &case, config.limits, index % 16 == 0);
        let mut verdicts = Vec::new();
        catalogue.judge_all(&evaluation.observation(&case), &mut verdicts);
        judged.push(verdicts);
        evaluation.trace.recycle();
    }
    let circuit = catalogue.get(ids::CIRCUIT_OPEN_REJECTS_WITHOUT_DISPATCH).unwrap();
    let mut circuit_judged = 0;
    for (index, verdicts) in (0..CASES).zip(judged) {
        let case = draw(index);
        let evaluation = evaluate(&Reference, &case, config.limits, index % 16 == 0);
        let observation = evaluation.observation(&case);
        for (law, verdict) in catalogue.iter().zip(verdicts) {
            assert_eq!(verdict, law.judge(&observation), "{} on case {index}", law.id);
        }
        circuit_judged += u64::from(matches!(circuit.judge(&observation), Verdict::Holds | Verdict::Violated(_)));
    }
    circuit_judged
}

#[test]
fn the_catalogue_judges_every_law_as_the_law_judges_itself() {
    for (name, swarm_of) in distributions() {
        let circuit_judged = catalogue_agrees_law_by_law(&*swarm_of);
        assert!(circuit_judged > 10, "{name}: the breaker's laws judged {circuit_judged} cases");
    }
}
