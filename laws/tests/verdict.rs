//! A verdict's name and text: what reports and replay messages print.

use timelaw_laws::Verdict;

#[track_caller]
fn check(verdict: Verdict, name: &str, text: &str) {
    assert_eq!((verdict.name(), verdict.to_string().as_str()), (name, text));
}

#[test]
fn names_and_text() {
    check(Verdict::NotApplicable, "not_applicable", "not_applicable");
    check(Verdict::Holds, "holds", "holds");
    check(Verdict::Vacuous, "vacuous", "vacuous");
    check(Verdict::violated_at(3, "late"), "violated", "violated at event 3: late");
    check(Verdict::violated_with(None, "never ended".into()), "violated", "violated: never ended");
    check(Verdict::Inconclusive("truncated".into()), "inconclusive", "inconclusive: truncated");
}
