//! The README is a front page that cannot drift from the code: its quick start is the crate
//! `examples/telemetry` (which the suite builds and tests as a member of the workspace) and
//! the compile-fail case `tests/ui/quickstart/` (whose compiler output the suite checks), as
//! written. Each block the README marks with `<!-- readme-check: PATH... -->` must appear in
//! every file it names, line for line (indentation aside). The README's links lead to files
//! that exist, and it stays a front page.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A block of the README and the files it must appear in.
struct Checked {
    files: Vec<String>,
    lines: Vec<String>,
    /// The README's line of the marker, for messages.
    at: usize,
}

/// Every block marked `<!-- readme-check: a b -->` on the line before its fence.
fn checked_blocks(readme: &str) -> Vec<Checked> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix("<!-- readme-check:") else {
            continue;
        };
        let files = rest
            .trim_end_matches("-->")
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let fence = lines.get(i + 1).copied().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "README.md:{}: a readme-check marker is followed by a fenced block",
            i + 1
        );
        let body = lines[i + 2..]
            .iter()
            .take_while(|l| !l.starts_with("```"))
            .map(|l| (*l).to_owned())
            .collect();
        out.push(Checked {
            files,
            lines: body,
            at: i + 1,
        });
    }
    out
}

/// `lines` without the indentation they all share.
fn dedented(lines: &[String]) -> Vec<String> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end().to_owned())
        .collect()
}

/// Whether `block` is a run of consecutive lines of `file`, indentation aside.
fn appears_in(block: &[String], file: &str) -> bool {
    let file: Vec<String> = file.lines().map(str::to_owned).collect();
    let block = dedented(block);
    !block.is_empty() && file.windows(block.len()).any(|w| dedented(w) == block)
}

/// A user's crate depends on a checkout of cassmodel beside it (`../cassmodel`); the example
/// crate, inside the checkout, on `../..`.
fn as_a_user_writes_it(path: &str, text: String) -> String {
    if !path.ends_with("Cargo.toml") {
        return text;
    }
    text.replace("path = \"../../", "path = \"../cassmodel/")
        .replace("path = \"../..\"", "path = \"../cassmodel\"")
}

#[test]
fn the_quick_start_is_the_example_crate_as_written() {
    let readme = read(&root().join("README.md"));
    let blocks = checked_blocks(&readme);
    // The install, the model, the migration binary, the test, the wrong query and its error.
    assert!(blocks.len() >= 6, "{} checked blocks", blocks.len());
    let mut differ = Vec::new();
    for b in &blocks {
        assert!(!b.files.is_empty(), "README.md:{}: no file named", b.at);
        for file in &b.files {
            let text = as_a_user_writes_it(file, read(&root().join(file)));
            if !appears_in(&b.lines, &text) {
                differ.push(format!(
                    "README.md:{}: the block does not appear in {file}:\n{}",
                    b.at,
                    b.lines.join("\n")
                ));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{}\n\ncopy the file's text into the README (or change both)",
        differ.join("\n\n")
    );
}

#[test]
fn the_readmes_links_lead_to_files() {
    let readme = read(&root().join("README.md"));
    let mut missing = Vec::new();
    for (n, line) in readme.lines().enumerate() {
        for part in line.split("](").skip(1) {
            let Some(target) = part.split(')').next() else {
                continue;
            };
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") {
                continue;
            }
            if !root().join(target).exists() {
                missing.push(format!("README.md:{}: {target}", n + 1));
            }
        }
    }
    assert!(missing.is_empty(), "links to nothing: {missing:#?}");
}

/// A front page: the size of the READMEs of sqlx (16 KB) and below.
#[test]
fn the_readme_is_a_front_page() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; the guide holds the rest"
    );
    assert!(
        readme.len() <= 16 * 1024,
        "README.md has {} bytes",
        readme.len()
    );
    // The two commands come first, before any section.
    let first_section = readme.find("\n## ").unwrap_or(readme.len());
    for command in ["cargo run --example demo", "cargo xtask test"] {
        let at = readme.find(command).unwrap_or(usize::MAX);
        assert!(at < first_section, "`{command}` before the first section");
    }
}

#[test]
fn blocks_are_found_line_for_line() {
    let file = "fn a() {\n    let x = 1;\n    let y = 2;\n}\n";
    let block = |s: &str| s.lines().map(str::to_owned).collect::<Vec<_>>();
    assert!(appears_in(&block("let x = 1;\nlet y = 2;"), file));
    assert!(!appears_in(&block("let y = 2;\nlet x = 1;"), file));
    assert!(!appears_in(&block("let x = 2;"), file));
    assert!(!appears_in(&[], file));
    assert_eq!(
        as_a_user_writes_it(
            "x/Cargo.toml",
            "a = { path = \"../..\" }\nb = { path = \"../../b\" }".into()
        ),
        "a = { path = \"../cassmodel\" }\nb = { path = \"../cassmodel/b\" }"
    );
}
