//! The docs stay true: the law catalogue page is generated from the laws' own doc comments and the CLI
//! help page from the CLI itself (`TIMELAW_BLESS=1` rewrites both), every relative link of the README,
//! ARCHITECTURE.md and the book resolves (files and heading anchors), and the law count quoted on the
//! front pages is the catalogue's.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use timelaw::laws::{mechanism_of, Catalogue, LawKind, Mechanism};

const LAWS_PAGE: &str = "docs/laws.md";
const CLI_PAGE: &str = "docs/cli-help.md";

/// Compares `generated` with the checked-in `path`, or rewrites it when blessing.
#[track_caller]
fn check_generated(path: &str, generated: &str) {
    if common::bless::bless() {
        std::fs::write(path, generated).unwrap_or_else(|error| panic!("{path}: {error}"));
        return;
    }
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    assert!(checked_in == generated, "{path} is stale; rerun with TIMELAW_BLESS=1 cargo test --test suite docs::");
}

/// Every `pub const NAME: Law = Law { id: ids::ID, ..}` of the catalogue's sources with the doc comment
/// above it, by law id.
fn law_docs() -> BTreeMap<String, String> {
    let ids = std::fs::read_to_string("laws/src/ids.rs").expect("laws/src/ids.rs");
    let id_of = |constant: &str| -> Option<String> {
        let line = ids.lines().find(|line| line.starts_with(&format!("pub const {constant}: &str = ")))?;
        Some(line.split('"').nth(1)?.to_owned())
    };
    let mut docs = BTreeMap::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir("laws/src/catalogue")
        .expect("laws/src/catalogue")
        .map(|entry| entry.expect("an entry").path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let lines: Vec<&str> = text.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            if !(line.starts_with("pub const ") && line.ends_with(": Law = Law {")) {
                continue;
            }
            let constant = lines[index + 1].trim().trim_start_matches("id: ids::").trim_end_matches(',');
            let doc: Vec<&str> = lines[..index]
                .iter()
                .rev()
                .take_while(|line| line.starts_with("///"))
                .map(|line| line.trim_start_matches("///").strip_prefix(' ').unwrap_or(""))
                .collect();
            let doc: Vec<&str> = doc.into_iter().rev().collect();
            let id = id_of(constant).unwrap_or_else(|| panic!("{}: no id for {constant}", file.display()));
            docs.insert(id, plain_links(&doc.join("\n")));
        }
    }
    docs
}

/// Rustdoc's intra-doc links (`` [`Name`] ``, `` [`Name`](path) ``) as plain code spans.
fn plain_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(close) = after.find("`]") else {
            out.push_str(&rest[start..]);
            return out;
        };
        out.push_str(&after[..close + 1]);
        rest = &after[close + 2..];
        if rest.starts_with('(') {
            rest = rest.find(')').map_or(rest, |end| &rest[end + 1..]);
        }
    }
    out.push_str(rest);
    out
}

fn laws_page() -> String {
    let catalogue = Catalogue::standard();
    let docs = law_docs();
    let mut page = format!(
        "# Every law\n\nThe {} laws of the standard catalogue, grouped by mechanism, each with its own documentation: what it \
         needs from the contract, what it compares, where it blames a violation, and an example. Generated from the \
         laws' doc comments by `tests/suite/docs.rs` (`TIMELAW_BLESS=1 cargo test --test suite docs::` rewrites it); do not edit \
         by hand.\n",
        catalogue.len()
    );
    for mechanism in Mechanism::ALL {
        let laws: Vec<_> = catalogue.iter().filter(|law| mechanism_of(law.id) == Some(mechanism)).collect();
        if laws.is_empty() {
            continue;
        }
        page.push_str(&format!("\n## {}\n", mechanism.name()));
        for law in laws {
            let kind = if law.kind == LawKind::Safety { "safety" } else { "liveness" };
            let needs = if law.needs.is_empty() { "nothing".to_owned() } else { law.needs.join(", ") };
            let doc = docs.get(law.id).unwrap_or_else(|| panic!("no doc comment found for {}", law.id));
            page.push_str(&format!("\n### `{}`\n\n{} ({kind}; needs {needs})\n\n{doc}\n", law.id, law.title));
        }
    }
    page
}

#[test]
fn the_laws_page_is_generated_from_the_laws_docs() {
    let page = laws_page();
    assert!(page.contains("### `attempts_within_max`"), "{page}");
    check_generated(LAWS_PAGE, &page);
}

/// `timelaw ARGS --help`.
fn help(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_timelaw"))
        .args(args)
        .arg("--help")
        .env("COLUMNS", "100")
        .env_remove("NO_COLOR")
        .output()
        .expect("the timelaw binary runs");
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

const COMMANDS: [&[&str]; 12] = [
    &[],
    &["check"],
    &["laws"],
    &["subjects"],
    &["contract"],
    &["replay"],
    &["shrink"],
    &["explain"],
    &["import-crash"],
    &["fixtures", "upgrade"],
    &["report", "merge"],
    &["help"],
];

fn cli_page() -> String {
    let mut page = String::from(
        "# CLI help\n\nThe help of every command of the `timelaw` binary, as it prints it. Generated from the CLI by \
         `tests/suite/docs.rs` (`TIMELAW_BLESS=1 cargo test --test suite docs::` rewrites it); do not edit by hand.\n",
    );
    for args in COMMANDS.iter().filter(|args| args.first() != Some(&"help")) {
        let title = if args.is_empty() { "timelaw".to_owned() } else { format!("timelaw {}", args.join(" ")) };
        page.push_str(&format!("\n## `{title}`\n\n```text\n{}```\n", help(args)));
    }
    page
}

#[test]
fn the_cli_help_page_is_generated_from_the_cli() {
    let page = cli_page();
    assert!(page.contains("## `timelaw check`"), "{page}");
    check_generated(CLI_PAGE, &page);
}

/// The Markdown files whose links must resolve: the front pages and the book.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md"), PathBuf::from("ARCHITECTURE.md")];
    let mut book: Vec<PathBuf> = std::fs::read_dir("docs")
        .expect("docs/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    book.sort();
    files.extend(book);
    files
}

/// Every inline link target of `text` outside code (fenced blocks and code spans).
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            targets.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// The anchors GitHub and mdBook give the headings of `text`: lower case, spaces as hyphens, other
/// punctuation dropped.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#').trim().to_lowercase();
        let slug: String = heading
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.push(slug);
    }
    out
}

/// What is wrong with `target`, a link in `file`; `None` when it resolves.
fn broken(file: &Path, target: &str) -> Option<String> {
    if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
        return None;
    }
    // A rustdoc path (`crate::core::World`): the guide is also the facade's `guide` module, and rustdoc
    // checks those links (`cargo doc` with `-D rustdoc::broken_intra_doc_links`).
    if target.contains("::") && !target.contains('/') {
        return None;
    }
    let (path, anchor) = target.split_once('#').map_or((target, None), |(path, anchor)| (path, Some(anchor)));
    let resolved = if path.is_empty() { file.to_owned() } else { file.parent().unwrap_or(Path::new("")).join(path) };
    if !resolved.exists() {
        return Some(format!("{target}: no such file {}", resolved.display()));
    }
    let anchor = anchor.filter(|_| resolved.extension().is_some_and(|extension| extension == "md"))?;
    let text = std::fs::read_to_string(&resolved).unwrap_or_default();
    (!anchors(&text).iter().any(|known| known == anchor)).then(|| format!("{target}: no heading #{anchor}"))
}

#[test]
fn every_relative_link_resolves() {
    let mut problems = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("a Markdown file");
        for target in link_targets(&text) {
            if let Some(problem) = broken(&file, &target) {
                problems.push(format!("{}: {problem}", file.display()));
            }
        }
    }
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

#[test]
fn the_link_checker_finds_what_is_broken() {
    assert_eq!(link_targets("[a](b.md) `[c](d.md)` [e](f.md#g)"), ["b.md", "f.md#g"]);
    assert_eq!(anchors("# The CLI\n## Exit codes (0-3)\n```\n# not a heading\n```"), ["the-cli", "exit-codes-0-3"]);
    assert_eq!(broken(Path::new("README.md"), "docs/guide.md"), None);
    assert!(broken(Path::new("README.md"), "docs/no-such-page.md").is_some());
    assert!(broken(Path::new("README.md"), "docs/guide.md#no-such-heading").is_some());
}

#[test]
fn the_front_pages_quote_the_catalogue_law_count() {
    let count = Catalogue::standard().len();
    for file in ["README.md", "docs/guide.md", "docs/catalogue.md", "docs/laws.md", "src/lib.rs"] {
        let text = std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{file}: {error}"));
        let words: Vec<&str> = text.split_whitespace().collect();
        for pair in words.windows(2) {
            let quoted = pair[0].trim_start_matches('(').replace(',', "");
            let Ok(number) = quoted.parse::<usize>() else { continue };
            let is_law_count = pair[1].starts_with("laws") || pair[1] == "named";
            if is_law_count && number >= 10 {
                assert_eq!(number, count, "{file} quotes {number} laws; the catalogue has {count}");
            }
        }
    }
}
