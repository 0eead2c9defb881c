//! JSON: the stable, machine-readable form of a report, and the input of `merge`.

use serde::Deserialize;

use crate::model::{Report, ReportError, SCHEMA_VERSION};

/// Renders `report` as pretty-printed JSON (two-space indent, fields in the declaration order of the model
/// types, a trailing newline). The same report always gives the same bytes.
pub fn render_json(report: &Report) -> String {
    // Infallible: serde_json fails only on maps with non-string keys and on `Serialize` impls that return
    // errors; the model has neither (its only map is `serde_json::Value`, whose keys are strings).
    let mut text = serde_json::to_string_pretty(report).expect("a report always serializes to JSON");
    text.push('\n');
    text
}

/// Just enough of a report to check its schema version before reading the rest.
#[derive(Deserialize)]
#[serde(rename = "Report")]
struct VersionProbe {
    schema_version: Option<u32>,
}

/// Reads a report written by [`render_json`] and checks it with [`Report::validate`].
///
/// # Errors
/// - [`ReportError::Json`] for text that is not JSON, or not a report: it names the line and column and
///   what was expected there (for example "missing field `seed`").
/// - [`ReportError::SchemaVersion`] for a report of another schema version (checked before the rest of
///   the fields, so a newer schema gets this error and not a confusing one about a field).
/// - [`ReportError::Invalid`] for a report that breaks an invariant.
pub fn parse_json(text: &str) -> Result<Report, ReportError> {
    expect_object(text)?;
    let probe: VersionProbe = serde_json::from_str(text).map_err(json_error)?;
    if let Some(found) = probe.schema_version.filter(|&version| version != SCHEMA_VERSION) {
        return Err(ReportError::SchemaVersion { found, supported: SCHEMA_VERSION });
    }
    let report: Report = serde_json::from_str(text).map_err(json_error)?;
    report.validate()?;
    Ok(report)
}

/// serde accepts a struct written as a JSON array too; a report is always an object.
fn expect_object(text: &str) -> Result<(), ReportError> {
    let mut line = 1;
    let mut column = 0;
    for ch in text.chars() {
        match ch {
            '{' => return Ok(()),
            '\n' => (line, column) = (line + 1, 0),
            ' ' | '\t' | '\r' => column += 1,
            _ => {
                let message = format!("expected a JSON object (`{{`) holding a report, found `{ch}`");
                return Err(ReportError::Json { line, column: column + 1, message });
            }
        }
    }
    // Empty or blank text: serde_json's own error says where it ended.
    Ok(())
}

fn json_error(error: serde_json::Error) -> ReportError {
    let (line, column) = (error.line(), error.column());
    let text = error.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_owned();
    ReportError::Json { line, column, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: &str) {
        let actual = parse_json(text).map(|_| ()).map_err(|error| error.to_string());
        assert_eq!(actual, Err(expected.to_owned()), "{text}");
    }

    #[test]
    fn errors_say_where_and_what_was_expected() {
        let full = render_json(&Report::new("reference", 1));
        check("", "line 1, column 0: EOF while parsing a value");
        check("[1]", "line 1, column 1: expected a JSON object (`{`) holding a report, found `[`");
        check("\n  null", "line 2, column 3: expected a JSON object (`{`) holding a report, found `n`");
        check(
            "{\n  \"schema_version\": 1\n}",
            "schema_version 1 is not supported: this timelaw reads schema_version 2",
        );
        check("{\n  \"schema_version\": 2\n}", "line 3, column 1: missing field `timelaw_version`");
        check(
            &full.replace("\"seed\": 1", "\"seed\": \"one\""),
            "line 5, column 15: invalid type: string \"one\", expected u64",
        );
        check(
            &full.replace("\"threads\": 1", "\"threads\": -1"),
            "line 7, column 15: invalid value: integer `-1`, expected u32",
        );
    }
}
