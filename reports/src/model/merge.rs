//! Merging the reports of the shards of one run.

use std::collections::BTreeMap;

use thiserror::Error;

use super::report::{LawRow, Report};
use super::validate::ReportError;

/// How many missing shard numbers an error lists before it says "and N more".
const MISSING_LISTED_MAX: usize = 10;

/// Why shard reports could not be merged. `file` is the index of the report in the slice given to
/// [`merge`], from 0 (the CLI maps it back to a path).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MergeError {
    /// No report was given.
    #[error("no reports to merge")]
    Empty,
    /// A report is not consistent on its own.
    #[error("report {file}: {source}")]
    Invalid {
        /// The report's index.
        file: usize,
        /// What is wrong with it.
        source: ReportError,
    },
    /// A report is of another run than report 0 (or of another timelaw version).
    #[error("report {file}: {field} is {found}, but report 0 has {expected}")]
    Differs {
        /// The report's index.
        file: usize,
        /// The field that differs, like `seed`, `swarm` or `laws[3].id`.
        field: String,
        /// Report 0's value.
        expected: String,
        /// This report's value.
        found: String,
    },
    /// Several reports were given and this one is a whole run, not a shard.
    #[error("report {file} has no `shard`: it is a whole run, and only the shards of one run can be merged")]
    NotAShard {
        /// The report's index.
        file: usize,
    },
    /// Two reports are the same shard.
    #[error("shard {index}/{count} appears twice: reports {first} and {second}")]
    DuplicateShard {
        /// The shard number.
        index: u32,
        /// The number of shards.
        count: u32,
        /// The first report that is this shard.
        first: usize,
        /// The second report that is this shard.
        second: usize,
    },
    /// Some shards of the run are not among the reports.
    #[error("{}", missing_message(*.count, .missing, *.missing_total))]
    MissingShards {
        /// The number of shards of the run.
        count: u32,
        /// The smallest missing shard numbers (at most ten).
        missing: Vec<u32>,
        /// How many shards are missing in all.
        missing_total: u32,
    },
    /// The case ranges of the shards overlap, leave a gap, or are given by some reports only.
    #[error("case ranges: {problem}")]
    CaseRanges {
        /// What is wrong, naming the reports and the ranges.
        problem: String,
    },
}

fn missing_message(count: u32, missing: &[u32], missing_total: u32) -> String {
    let mut listed: Vec<String> = missing.iter().map(u32::to_string).collect();
    let unlisted = (missing_total as usize).saturating_sub(missing.len());
    if unlisted > 0 {
        listed.push(format!("and {unlisted} more"));
    }
    let (noun, verb) = if missing_total == 1 { ("shard", "is") } else { ("shards", "are") };
    format!("{noun} {} of {count} {verb} missing", listed.join(", "))
}

/// Merges the reports of the shards of one run (`--shard K/N`, K = 1..=N) into the report of the whole run.
///
/// The result equals, field for field, the report a single machine writes for the same run: counts and
/// `cases` are added, `shard` becomes `None`, `case_range` becomes the union of the shards' ranges, and
/// `threads` is the largest of the shards' (informational only). For each law the kept violation (with its
/// fixture) is the one of the smallest `case_index`, and so is the kept inconclusive case. This is what a
/// single machine reports: the runner judges every case of its range and keeps, per law, the violation
/// that comes first in case-index order, whatever order its threads finished in.
///
/// A single report without a shard is returned as it is.
///
/// # Errors
/// - [`MergeError::Empty`] for no reports; [`MergeError::Invalid`] for a report that fails
///   [`Report::validate`].
/// - [`MergeError::Differs`] when a report differs from report 0 in `timelaw_version`, `subject`, `seed`,
///   `swarm`, `shard.count`, its laws (number, then id, title and kind of each row), or its settings
///   (`settings.collect`, ...: see [`crate::Settings`]).
/// - [`MergeError::NotAShard`], [`MergeError::DuplicateShard`], [`MergeError::MissingShards`]: the shards
///   must be `1..=N`, each exactly once.
/// - [`MergeError::CaseRanges`] when the ranges overlap, leave a gap, or only some reports have one.
///
/// # Examples
/// ```
/// use timelaw_reports::{merge, Report, Shard};
/// let shard = |index, range| Report { shard: Some(Shard { index, count: 2 }), case_range: Some(range), cases: 50, ..Report::new("reference", 7) };
/// let whole = merge(&[shard(2, (50, 100)), shard(1, (0, 50))])?;
/// assert_eq!(whole, Report { cases: 100, case_range: Some((0, 100)), ..Report::new("reference", 7) });
/// # Ok::<(), timelaw_reports::MergeError>(())
/// ```
pub fn merge(reports: &[Report]) -> Result<Report, MergeError> {
    let first = reports.first().ok_or(MergeError::Empty)?;
    for (file, report) in reports.iter().enumerate() {
        report.validate().map_err(|source| MergeError::Invalid { file, source })?;
    }
    if reports.len() == 1 && first.shard.is_none() {
        return Ok(first.clone());
    }
    for (file, report) in reports.iter().enumerate().skip(1) {
        check_same_run(first, file, report)?;
    }
    check_shards(reports)?;
    let case_range = union_of_ranges(reports)?;
    let mut merged = first.clone();
    merged.shard = None;
    merged.case_range = case_range;
    for report in &reports[1..] {
        merged.cases = merged.cases.saturating_add(report.cases);
        merged.threads = merged.threads.max(report.threads);
        for (row, other) in merged.laws.iter_mut().zip(&report.laws) {
            merge_row(row, other);
        }
        merged.boundary_cases = merged.boundary_cases.saturating_add(report.boundary_cases);
        merged.time_limit_cuts = merged.time_limit_cuts.saturating_add(report.time_limit_cuts);
        merged.long_run_cuts = merged.long_run_cuts.saturating_add(report.long_run_cuts);
        for (row, other) in merged.boundaries.iter_mut().zip(&report.boundaries) {
            row.cases = row.cases.saturating_add(other.cases);
        }
        merge_unjudged(&mut merged.unjudged, &report.unjudged);
    }
    Ok(merged)
}

/// Adds `other`'s unjudged cases to `merged`, reason by reason (a reason new to `merged` goes last).
fn merge_unjudged(merged: &mut Vec<crate::UnjudgedRow>, other: &[crate::UnjudgedRow]) {
    for row in other {
        match merged.iter_mut().find(|mine| mine.reason == row.reason) {
            Some(mine) => mine.cases = mine.cases.saturating_add(row.cases),
            None => merged.push(row.clone()),
        }
    }
}

fn check_same_run(first: &Report, file: usize, report: &Report) -> Result<(), MergeError> {
    let differs = |field: &str, expected: String, found: String| {
        if expected == found {
            return Ok(());
        }
        Err(MergeError::Differs { file, field: field.to_owned(), expected, found })
    };
    differs("timelaw_version", first.timelaw_version.clone(), report.timelaw_version.clone())?;
    differs("subject", format!("{:?}", first.subject), format!("{:?}", report.subject))?;
    differs("seed", first.seed.to_string(), report.seed.to_string())?;
    if let Some((field, expected, found)) = swarm_difference(&first.swarm, &report.swarm) {
        return Err(MergeError::Differs { file, field, expected, found });
    }
    let classes = |report: &Report| report.boundaries.iter().map(|row| row.class.clone()).collect::<Vec<_>>();
    differs("boundaries", format!("{:?}", classes(first)), format!("{:?}", classes(report)))?;
    let count = |report: &Report| report.shard.map_or_else(|| "none".to_owned(), |shard| shard.count.to_string());
    if report.shard.is_some() && first.shard.is_some() {
        differs("shard.count", count(first), count(report))?;
    }
    let laws = |report: &Report| format!("{} laws", report.laws.len());
    differs("laws", laws(first), laws(report))?;
    check_settings(first, file, report)?;
    for (index, (expected, found)) in first.laws.iter().zip(&report.laws).enumerate() {
        differs(&format!("laws[{index}].id"), format!("`{}`", expected.id), format!("`{}`", found.id))?;
        differs(&format!("laws[{index}].title"), format!("{:?}", expected.title), format!("{:?}", found.title))?;
        differs(&format!("laws[{index}].kind"), format!("{:?}", expected.kind), format!("{:?}", found.kind))?;
    }
    Ok(())
}

/// The first swarm option two reports differ in, as `(field, report 0's value, this report's value)`: the
/// field names the option (`swarm.jitter`, from its line `jitter: on`) and the values are its lines'
/// values, so the message stays one short line whatever the number of options.
fn swarm_difference(expected: &[String], found: &[String]) -> Option<(String, String, String)> {
    let name = |line: &str| line.split_once(':').map_or(line, |(name, _)| name).trim().to_owned();
    let value = |line: &str| line.split_once(':').map_or(line, |(_, value)| value).trim().to_owned();
    let count = expected.len().max(found.len());
    let index = (0..count).find(|&index| expected.get(index) != found.get(index))?;
    let (mine, theirs) = (expected.get(index), found.get(index));
    let option = name(mine.or(theirs).map_or("", String::as_str));
    let shown = |line: Option<&String>, other: Option<&String>| match line {
        Some(line) if other.is_none_or(|other| name(other) == name(line)) => value(line),
        Some(line) => format!("{line:?}"),
        None => "absent".to_owned(),
    };
    Some((format!("swarm option `{option}`"), shown(mine, theirs), shown(theirs, mine)))
}

/// The shards must agree on every setting; one with settings and one without (an older report) differ too.
fn check_settings(first: &Report, file: usize, report: &Report) -> Result<(), MergeError> {
    let differs = |field: String, expected: String, found: String| MergeError::Differs { file, field, expected, found };
    match (&first.settings, &report.settings) {
        (None, None) => Ok(()),
        (Some(_), None) => Err(differs("settings".to_owned(), "recorded".to_owned(), "absent".to_owned())),
        (None, Some(_)) => Err(differs("settings".to_owned(), "absent".to_owned(), "recorded".to_owned())),
        (Some(expected), Some(found)) => {
            for ((name, expected), (_, found)) in expected.fields().into_iter().zip(found.fields()) {
                if expected != found {
                    return Err(differs(format!("settings.{name}"), expected, found));
                }
            }
            Ok(())
        }
    }
}

fn check_shards(reports: &[Report]) -> Result<(), MergeError> {
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    let mut count = 0;
    for (file, report) in reports.iter().enumerate() {
        let shard = report.shard.ok_or(MergeError::NotAShard { file })?;
        count = shard.count;
        if let Some(&first) = seen.get(&shard.index) {
            return Err(MergeError::DuplicateShard { index: shard.index, count, first, second: file });
        }
        seen.insert(shard.index, file);
    }
    // Every index is in 1..=count (validated) and distinct, so `seen.len() <= count`.
    let missing_total = count.saturating_sub(u32::try_from(seen.len()).unwrap_or(u32::MAX));
    if missing_total == 0 {
        return Ok(());
    }
    let missing = (1..=count).filter(|index| !seen.contains_key(index)).take(MISSING_LISTED_MAX).collect();
    Err(MergeError::MissingShards { count, missing, missing_total })
}

fn union_of_ranges(reports: &[Report]) -> Result<Option<(u64, u64)>, MergeError> {
    let with_range = reports.iter().filter(|report| report.case_range.is_some()).count();
    if with_range == 0 {
        return Ok(None);
    }
    let mut ranges = Vec::with_capacity(reports.len());
    for (file, report) in reports.iter().enumerate() {
        let Some(range) = report.case_range else {
            let problem = format!("report {file} has no case_range, but {with_range} other reports have one");
            return Err(MergeError::CaseRanges { problem });
        };
        ranges.push((range, file));
    }
    ranges.sort_unstable();
    let ((start, mut end), mut end_file) = ranges[0];
    for &((next_start, next_end), file) in &ranges[1..] {
        if next_start < end {
            let problem =
                format!("reports {end_file} and {file} overlap: both ran cases [{next_start}, {})", end.min(next_end));
            return Err(MergeError::CaseRanges { problem });
        }
        if next_start > end {
            let problem = format!("no report ran cases [{end}, {next_start}) (between reports {end_file} and {file})");
            return Err(MergeError::CaseRanges { problem });
        }
        (end, end_file) = (next_end, file);
    }
    Ok(Some((start, end)))
}

fn merge_row(row: &mut LawRow, other: &LawRow) {
    row.counts.merge(&other.counts);
    let earlier = |mine: Option<u64>, theirs: Option<u64>| match (mine, theirs) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(mine), Some(theirs)) => theirs < mine,
    };
    let case = |row: &LawRow| row.violation.as_ref().map(|violation| violation.case_index);
    if earlier(case(row), case(other)) {
        row.violation.clone_from(&other.violation);
        row.fixture.clone_from(&other.fixture);
    } else if row.violation.is_none() && row.fixture.is_none() {
        row.fixture.clone_from(&other.fixture);
    }
    let inconclusive = |row: &LawRow| row.first_inconclusive.as_ref().map(|summary| summary.case_index);
    if earlier(inconclusive(row), inconclusive(other)) {
        row.first_inconclusive.clone_from(&other.first_inconclusive);
    }
}
