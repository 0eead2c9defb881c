//! JUnit XML, for CI systems that show test results.

use crate::model::{LawRow, LawStatus, Report};

/// Renders `report` as JUnit XML: a `<testsuites>` root holding one
/// `<testsuite name="timelaw.SUBJECT">` (with the seed, cases, shard and swarm options as properties) and one
/// `<testcase classname="timelaw.SUBJECT" name="LAW_ID">` per law:
///
/// | law | testcase holds |
/// |---|---|
/// | violated | `<failure message="SENTENCE" type="violated">` with the case index, event, fixture, the shrunk case as JSON and the reproduce line |
/// | cases left unjudged | `<failure message="could not judge N of M cases: REASON" type="inconclusive">` with the first case and its fixture (a run holds only when every case was judged) |
/// | no applicable case | `<skipped message="not applicable"/>` |
/// | holds | nothing |
///
/// Text is escaped for XML 1.0: `& < > " '` become entities; in attribute values tab, newline and carriage
/// return become character references (so they survive attribute normalization); the control characters
/// XML 1.0 forbids (and U+FFFE, U+FFFF) are written as the visible text `\u{..}`. No `time` attributes:
/// nothing here reads the wall clock. The text ends with a newline.
pub fn render_junit(report: &Report) -> String {
    let suite = format!("timelaw.{}", report.subject);
    let count = |status: LawStatus| report.laws.iter().filter(|row| row.status() == status).count();
    let failures = count(LawStatus::Violated) + count(LawStatus::Inconclusive);
    let skipped = count(LawStatus::NotApplicable);
    let totals = format!(r#"tests="{}" failures="{failures}" errors="0" skipped="{skipped}""#, report.laws.len());
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!("<testsuites name=\"timelaw\" {totals}>\n"));
    xml.push_str(&format!("  <testsuite name=\"{}\" {totals}>\n", attribute(&suite)));
    xml.push_str(&properties(report));
    for row in &report.laws {
        xml.push_str(&testcase(&suite, row));
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn properties(report: &Report) -> String {
    let mut properties = vec![
        ("seed".to_owned(), crate::seed_hex(report.seed)),
        ("cases".to_owned(), report.cases.to_string()),
        ("threads".to_owned(), report.threads.to_string()),
        ("timelaw_version".to_owned(), report.timelaw_version.clone()),
    ];
    if let Some(shard) = report.shard {
        properties.push(("shard".to_owned(), shard.to_string()));
    }
    if let Some((start, end)) = report.case_range {
        properties.push(("case_range".to_owned(), format!("{start}..{end}")));
    }
    properties.extend(report.swarm.iter().map(|option| match option.split_once(':') {
        Some((name, value)) => (format!("swarm.{}", name.trim()), value.trim().to_owned()),
        None => ("swarm".to_owned(), option.clone()),
    }));
    let mut xml = String::from("    <properties>\n");
    for (name, value) in properties {
        xml.push_str(&format!("      <property name=\"{}\" value=\"{}\"/>\n", attribute(&name), attribute(&value)));
    }
    xml.push_str("    </properties>\n");
    xml
}

fn testcase(suite: &str, row: &LawRow) -> String {
    let open = format!("    <testcase classname=\"{}\" name=\"{}\"", attribute(suite), attribute(&row.id));
    let counts = &row.counts;
    match (row.status(), &row.violation) {
        (LawStatus::Violated, Some(violation)) => {
            let event = violation.event.map_or_else(|| "none".to_owned(), |event| event.to_string());
            let body = [
                format!("{}: {}", row.id, violation.message),
                format!(
                    "violated in {} of {} cases; first in case {}",
                    counts.violated, counts.cases, violation.case_index
                ),
                format!("event: {event}"),
                format!("fixture: {}", row.fixture.as_deref().unwrap_or("none written")),
                format!("case: {}", violation.case),
                format!("reproduce: TIMELAW_SEED={} and the same command", violation.seed_hex),
            ]
            .join("\n");
            let message = attribute(&violation.message);
            format!(
                "{open}>\n      <failure message=\"{message}\" type=\"violated\">{}</failure>\n    </testcase>\n",
                text(&body)
            )
        }
        (LawStatus::Violated, None) => {
            let message = format!("violated in {} of {} cases", counts.violated, counts.cases);
            format!("{open}>\n      <failure message=\"{message}\" type=\"violated\"/>\n    </testcase>\n")
        }
        (LawStatus::Inconclusive, _) => {
            let mut message = format!("could not judge {} of {} cases", counts.inconclusive, counts.cases);
            let mut body = Vec::new();
            if let Some(summary) = &row.first_inconclusive {
                message.push_str(&format!(": {}", summary.reason));
                body.push(format!("first in case {}", summary.case_index));
                body.push(format!("fixture: {}", summary.fixture.as_deref().unwrap_or("none written")));
            }
            let (message, body) = (attribute(&message), text(&body.join("\n")));
            format!("{open}>\n      <failure message=\"{message}\" type=\"inconclusive\">{body}</failure>\n    </testcase>\n")
        }
        (LawStatus::NotApplicable, _) => {
            format!("{open}>\n      <skipped message=\"not applicable\"/>\n    </testcase>\n")
        }
        (LawStatus::Holds, _) => format!("{open}/>\n"),
    }
}

/// `value` escaped for an XML attribute value in double quotes.
fn attribute(value: &str) -> String {
    escape(value, true)
}

/// `value` escaped for XML character data.
fn text(value: &str) -> String {
    escape(value, false)
}

fn escape(value: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' if in_attribute => out.push_str(&format!("&#{};", u32::from(ch))),
            '\t' | '\n' | '\r' => out.push(ch),
            _ if forbidden_in_xml(ch) => out.push_str(&format!("\\u{{{:x}}}", u32::from(ch))),
            _ => out.push(ch),
        }
    }
    out
}

/// Characters XML 1.0 allows neither raw nor as character references (Rust strings hold no surrogates).
fn forbidden_in_xml(ch: char) -> bool {
    matches!(ch, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(input: &str, as_attribute: &str, as_text: &str) {
        assert_eq!(attribute(input), as_attribute, "attribute of {input:?}");
        assert_eq!(text(input), as_text, "text of {input:?}");
    }

    #[test]
    fn escapes_markup_quotes_and_control_characters() {
        check("plain", "plain", "plain");
        check(r#"say "hi""#, "say &quot;hi&quot;", "say &quot;hi&quot;");
        check("it's", "it&apos;s", "it&apos;s");
        check("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d", "a &lt; b &amp;&amp; c &gt; d");
        check("]]>", "]]&gt;", "]]&gt;");
        check("&amp;", "&amp;amp;", "&amp;amp;");
        check("line\nnext\ttab\rcr", "line&#10;next&#9;tab&#13;cr", "line\nnext\ttab\rcr");
        check("nul\0bell\u{7}esc\u{1b}", "nul\\u{0}bell\\u{7}esc\\u{1b}", "nul\\u{0}bell\\u{7}esc\\u{1b}");
        check("\u{fffe}\u{ffff}", "\\u{fffe}\\u{ffff}", "\\u{fffe}\\u{ffff}");
        check("délai → 5ms ▶", "délai → 5ms ▶", "délai → 5ms ▶");
    }
}
