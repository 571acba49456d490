//! The guide (`docs/guide/`, an mdBook) cannot drift from the build: every chapter that
//! `SUMMARY.md` lists exists and is included in the `guide` module of `src/lib.rs` (so that
//! each of its Rust blocks is a doc-test), and every chapter included there is listed; the
//! links between chapters lead to chapters; no Rust block is `ignore`d; and no chapter but
//! `testing.md` sends a user to the repository's own `cargo xtask` commands. Offline: no
//! node needed (the doc-tests themselves run with `cargo test --doc`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn guide_src() -> PathBuf {
    root().join("docs/guide/src")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The targets of the Markdown links in `text` that name a `.md` file (`[..](a.md)`,
/// `[..](a.md#anchor)`), without the anchor.
fn md_links(text: &str) -> Vec<String> {
    let mut links = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        let file = target.split('#').next().unwrap_or(target);
        if file.ends_with(".md") && !file.contains("://") {
            links.push(file.to_owned());
        }
    }
    links
}

/// The chapters `SUMMARY.md` lists, in order.
fn summary_chapters() -> Vec<String> {
    md_links(&read(&guide_src().join("SUMMARY.md")))
}

/// The chapters the `guide` module of `src/lib.rs` includes.
fn included_chapters() -> Vec<String> {
    let lib = read(&root().join("src/lib.rs"));
    let module = lib
        .split_once("pub mod guide {")
        .map(|(_, m)| m)
        .expect("src/lib.rs has a `guide` module");
    let module = &module[..module.find("\n}").expect("the end of the `guide` module")];
    let prefix = "include_str!(\"../docs/guide/src/";
    module
        .match_indices(prefix)
        .map(|(at, _)| {
            let name = &module[at + prefix.len()..];
            name[..name.find('"').expect("a closing quote")].to_owned()
        })
        .collect()
}

/// Every `.md` file of the guide's source folder but `SUMMARY.md`.
fn chapter_files() -> BTreeSet<String> {
    std::fs::read_dir(guide_src())
        .expect("docs/guide/src")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| n.ends_with(".md") && n != "SUMMARY.md")
        .collect()
}

#[test]
fn the_book_is_configured() {
    let book = read(&root().join("docs/guide/book.toml"));
    assert!(book.contains("title = \"cassmodel guide\""), "{book}");
    assert!(book.contains("src = \"src\""), "{book}");
}

#[test]
fn every_chapter_is_listed_included_and_present() {
    let listed = summary_chapters();
    assert!(!listed.is_empty(), "SUMMARY.md lists no chapter");
    let listed_set: BTreeSet<String> = listed.iter().cloned().collect();
    assert_eq!(
        listed_set.len(),
        listed.len(),
        "a chapter listed twice: {listed:?}"
    );
    let included: BTreeSet<String> = included_chapters().into_iter().collect();
    assert_eq!(
        listed_set, included,
        "SUMMARY.md and the `guide` module of src/lib.rs must name the same chapters"
    );
    assert_eq!(
        listed_set,
        chapter_files(),
        "every chapter file is listed in SUMMARY.md, and every listed chapter exists"
    );
}

#[test]
fn links_between_chapters_lead_to_chapters() {
    let chapters = chapter_files();
    for chapter in &chapters {
        for link in md_links(&read(&guide_src().join(chapter))) {
            assert!(
                chapters.contains(&link),
                "{chapter} links to {link}, which is no chapter of the guide"
            );
        }
    }
}

#[test]
fn no_rust_block_is_ignored() {
    for chapter in chapter_files() {
        for line in read(&guide_src().join(&chapter)).lines() {
            let fence = line.trim_start();
            if let Some(info) = fence.strip_prefix("```rust") {
                assert!(
                    !info.split(',').any(|a| a.trim() == "ignore"),
                    "{chapter}: `{line}`: a Rust block of the guide is a doc-test; write it so \
                     that it compiles (or make it `text`)"
                );
            }
        }
    }
}

#[test]
fn only_the_testing_chapter_mentions_cargo_xtask() {
    for chapter in chapter_files() {
        if chapter == "testing.md" {
            continue;
        }
        let text = read(&guide_src().join(&chapter));
        // A line break may fall between the two words.
        let words: Vec<&str> = text.split_whitespace().collect();
        let at = words
            .windows(2)
            .position(|w| w[0].ends_with("cargo") && w[1].starts_with("xtask"));
        assert!(
            at.is_none(),
            "{chapter} mentions `cargo xtask`: the guide gives a user's commands \
             (`cargo run --bin migrate -- ..`, `cargo test`)"
        );
    }
}
