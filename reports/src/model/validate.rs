//! Reading errors and the consistency check of a report.

use std::collections::HashSet;

use thiserror::Error;

use super::report::{Report, SCHEMA_VERSION};

/// Why a report could not be read or is not consistent.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReportError {
    /// The text is not JSON of the report schema. `line` and `column` count from 1 (serde_json's
    /// convention); `message` says what was found and what was expected there.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1.
        column: usize,
        /// What was wrong, like "missing field `seed`" or "invalid type: string \"x\", expected u64".
        message: String,
    },
    /// The report was written with another schema version.
    #[error("schema_version {found} is not supported: this timelaw reads schema_version {supported}")]
    SchemaVersion {
        /// The version in the report.
        found: u32,
        /// The version this crate reads, [`SCHEMA_VERSION`].
        supported: u32,
    },
    /// A field breaks an invariant of [`Report`].
    #[error("{field}: {problem}")]
    Invalid {
        /// The path of the field, like `laws[2].counts` or `shard`.
        field: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl ReportError {
    fn invalid(field: impl Into<String>, problem: impl Into<String>) -> ReportError {
        ReportError::Invalid { field: field.into(), problem: problem.into() }
    }
}

impl Report {
    /// Checks the invariants listed on [`Report`].
    ///
    /// # Errors
    /// [`ReportError::SchemaVersion`] for another schema version, [`ReportError::Invalid`] naming the first
    /// field that breaks an invariant.
    pub fn validate(&self) -> Result<(), ReportError> {
        if self.schema_version != SCHEMA_VERSION {
            return Err(ReportError::SchemaVersion { found: self.schema_version, supported: SCHEMA_VERSION });
        }
        if let Some(shard) = self.shard {
            if shard.count == 0 || shard.index == 0 || shard.index > shard.count {
                return Err(ReportError::invalid("shard", format!("{shard} is not a shard: need 1 <= K <= N")));
            }
        }
        self.validate_range()?;
        let mut ids = HashSet::with_capacity(self.laws.len());
        for (index, row) in self.laws.iter().enumerate() {
            let field = |name: &str| format!("laws[{index}].{name}");
            if row.id.is_empty() {
                return Err(ReportError::invalid(field("id"), "empty law id"));
            }
            if !ids.insert(row.id.as_str()) {
                return Err(ReportError::invalid(field("id"), format!("law `{}` appears twice", row.id)));
            }
            let counts = &row.counts;
            if counts.verdict_total() != counts.cases {
                let problem =
                    format!("cases is {} but the verdicts add up to {}", counts.cases, counts.verdict_total());
                return Err(ReportError::invalid(field("counts"), problem));
            }
            if row.violation.is_some() && counts.violated == 0 {
                return Err(ReportError::invalid(field("violation"), "a violation summary but no violated case"));
            }
            if row.first_inconclusive.is_some() && counts.inconclusive == 0 {
                let problem = "an inconclusive summary but no inconclusive case";
                return Err(ReportError::invalid(field("first_inconclusive"), problem));
            }
            let violation = row.violation.as_ref().map(|violation| violation.case_index);
            self.validate_index(field("violation.case_index"), violation)?;
            let inconclusive = row.first_inconclusive.as_ref().map(|first| first.case_index);
            self.validate_index(field("first_inconclusive.case_index"), inconclusive)?;
        }
        Ok(())
    }

    /// The case range is a range and holds exactly `cases` cases.
    fn validate_range(&self) -> Result<(), ReportError> {
        let Some((start, end)) = self.case_range else { return Ok(()) };
        if start > end {
            return Err(ReportError::invalid("case_range", format!("start {start} is after end {end}")));
        }
        if end - start != self.cases {
            let problem = format!("cases is {} but case_range [{start}, {end}) holds {}", self.cases, end - start);
            return Err(ReportError::invalid("cases", problem));
        }
        Ok(())
    }

    /// A kept case's index lies in the report's case range (when it has one).
    fn validate_index(&self, field: String, index: Option<u64>) -> Result<(), ReportError> {
        let (Some(index), Some((start, end))) = (index, self.case_range) else { return Ok(()) };
        if index < start || index >= end {
            let problem = format!("case {index} is outside the report's case_range [{start}, {end})");
            return Err(ReportError::invalid(field, problem));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use timelaw_laws::LawKind;

    use super::*;
    use crate::model::{LawRow, Shard};

    fn report() -> Report {
        let mut report = Report::new("s", 1);
        let mut row = LawRow::new("a", "A", LawKind::Safety);
        row.counts.cases = 2;
        row.counts.holds = 2;
        report.laws.push(row);
        report
    }

    #[track_caller]
    fn check(edit: fn(&mut Report), expected: &str) {
        let mut broken = report();
        edit(&mut broken);
        let actual = broken.validate().map_err(|error| error.to_string());
        assert_eq!(actual, Err(expected.to_owned()));
    }

    #[test]
    fn broken_reports_name_the_field() {
        assert_eq!(report().validate(), Ok(()));
        check(|r| r.schema_version = 3, "schema_version 3 is not supported: this timelaw reads schema_version 2");
        check(|r| r.shard = Some(Shard { index: 0, count: 2 }), "shard: 0/2 is not a shard: need 1 <= K <= N");
        check(|r| r.shard = Some(Shard { index: 3, count: 2 }), "shard: 3/2 is not a shard: need 1 <= K <= N");
        check(|r| r.case_range = Some((5, 4)), "case_range: start 5 is after end 4");
        check(|r| r.case_range = Some((0, 3)), "cases: cases is 0 but case_range [0, 3) holds 3");
        check(
            |r| {
                (r.case_range, r.cases) = (Some((0, 2)), 2);
                r.laws[0].counts.holds = 1;
                r.laws[0].counts.violated = 1;
                r.laws[0].violation = Some(crate::ViolationSummary {
                    case_index: 2,
                    event: None,
                    message: "m".into(),
                    case: serde_json::Value::Null,
                    shrink_evaluations: 0,
                    seed_hex: "0x1".into(),
                });
            },
            "laws[0].violation.case_index: case 2 is outside the report's case_range [0, 2)",
        );
        check(|r| r.laws[0].id.clear(), "laws[0].id: empty law id");
        check(|r| r.laws.push(r.laws[0].clone()), "laws[1].id: law `a` appears twice");
        check(|r| r.laws[0].counts.holds = 1, "laws[0].counts: cases is 2 but the verdicts add up to 1");
        check(
            |r| {
                let summary = crate::InconclusiveSummary { case_index: 0, reason: "x".into(), fixture: None };
                r.laws[0].first_inconclusive = Some(summary);
            },
            "laws[0].first_inconclusive: an inconclusive summary but no inconclusive case",
        );
    }

    #[test]
    fn fields_no_report_has_are_errors_naming_them() {
        let text = crate::render_json(&report());
        let bad = [
            ("\"seed\": 1,", "\"seed\": 1,\n  \"sede\": 1,", "unknown field `sede`"),
            ("\"holds\": 2,", "\"holds\": 2,\n      \"hold\": 2,", "unknown field `hold`"),
            ("\"kind\": \"safety\",", "\"kind\": \"safety\",\n      \"note\": 1,", "unknown field `note`"),
        ];
        for (from, to, expected) in bad {
            let edited = text.replacen(from, to, 1);
            assert_ne!(edited, text, "{from}");
            let error = crate::parse_json(&edited).map(|_| ()).map_err(|error| error.to_string());
            assert!(error.as_ref().is_err_and(|error| error.contains(expected)), "{error:?}");
        }
    }
}
