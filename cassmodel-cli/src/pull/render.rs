//! A [`Module`] as Rust source, formatted as rustfmt would (`prettyplease` on the `syn`
//! tree): one module, or one file per struct with a `mod.rs`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::model::{Item, Module};
use super::names::{module_ident, unique_snake};
use super::types::Uses;

/// The module's first lines: what wrote it, the crates it needs, what is not generated.
fn header(m: &Module, uses: &Uses) -> String {
    let mut out = String::from(
        "//! Models of a keyspace's tables and types, written by `cassmodel pull` from the\n\
         //! cluster's `system_schema`; `cassmodel pull --check` tells when they no longer match.\n",
    );
    let mut crates = vec!["`cassmodel`"];
    for (krate, name) in [("uuid::", "`uuid`"), ("chrono::", "`chrono`")] {
        if uses.iter().any(|u| u.starts_with(krate)) {
            crates.push(name);
        }
    }
    let _ = writeln!(out, "//!\n//! Needs the crates {}.", crates.join(", "));
    if !m.skipped.is_empty() {
        out.push_str("//!\n//! Not generated (the cluster keeps them as they are):\n");
        for s in &m.skipped {
            let _ = writeln!(out, "//! - {s}");
        }
    }
    out
}

/// The `use` items, one per path prefix (`use chrono::{DateTime, Utc};`), in rustfmt's order:
/// by path, a `{..}` group after the names beside it (`cassmodel::value::X` before
/// `cassmodel::{CassTable, CassUdt}`).
fn use_items(uses: &Uses, derives: &[&str]) -> String {
    let mut by_prefix: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for u in uses {
        let (prefix, name) = u.rsplit_once("::").unwrap_or(("", u));
        by_prefix.entry(prefix).or_default().push(name);
    }
    if !derives.is_empty() {
        by_prefix.entry("cassmodel").or_default().extend(derives);
    }
    let mut lines: Vec<(String, String)> = by_prefix
        .into_iter()
        .map(|(prefix, mut names)| {
            names.sort_unstable();
            names.dedup();
            match names.as_slice() {
                [one] => (format!("{prefix}::{one}"), format!("use {prefix}::{one};")),
                _ => (
                    format!("{prefix}::~"),
                    format!("use {prefix}::{{{}}};", names.join(", ")),
                ),
            }
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, line)| line + "\n").collect()
}

fn derives(m: &Module) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !m.udts.is_empty() {
        out.push("CassUdt");
    }
    if !m.tables.is_empty() {
        out.push("CassTable");
    }
    out
}

/// One struct.
fn item(out: &mut String, item: &Item, is_udt: bool) {
    if is_udt {
        let _ = writeln!(out, "/// The user-defined type `{}`.", item.name);
    } else {
        let _ = writeln!(out, "/// A row of the table `{}`.", item.name);
    }
    for n in &item.notes {
        let _ = writeln!(out, "///\n/// {n}");
    }
    let derive = if is_udt { "CassUdt" } else { "CassTable" };
    let _ = writeln!(out, "#[derive(Debug, Clone, PartialEq, {derive})]");
    let mut options = vec![format!(
        "{} = {:?}",
        if is_udt { "name" } else { "table" },
        item.name
    )];
    options.extend(item.options.iter().cloned());
    let _ = writeln!(out, "#[cass({})]", options.join(", "));
    let _ = writeln!(out, "pub struct {} {{", item.ident);
    for f in &item.fields {
        for (i, n) in f.notes.iter().enumerate() {
            let _ = writeln!(out, "{}/// {n}", if i > 0 { "///\n" } else { "" });
        }
        if f.complex {
            out.push_str("#[allow(clippy::type_complexity)]\n");
        }
        if let Some(k) = f.key {
            let _ = writeln!(out, "#[{k}]");
        }
        if !f.options.is_empty() {
            let _ = writeln!(out, "#[cass({})]", f.options.join(", "));
        }
        let _ = writeln!(out, "pub {}: {},", f.ident, f.ty);
    }
    out.push_str("}\n");
}

/// Source text -> formatted source; the text is ours, so a parse error is a bug, reported
/// with the text.
fn format(source: &str) -> Result<String, String> {
    let file = syn::parse_file(source)
        .map_err(|e| format!("cassmodel pull wrote Rust it cannot parse ({e}):\n{source}"))?;
    Ok(spaced(&prettyplease::unparse(&file)))
}

/// A blank line after the header and the `use` items and between items, as rustfmt keeps
/// them (prettyplease drops blank lines).
fn spaced(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + 256);
    let mut prev: Option<&str> = None;
    for line in src.lines() {
        if let Some(p) = prev {
            let top = !line.starts_with(' ') && !line.is_empty();
            let group = |l: &str| {
                if l.starts_with("//!") {
                    0
                } else if l.starts_with("use ")
                    || l.starts_with("mod ")
                    || l.starts_with("pub use ")
                {
                    1
                } else {
                    2
                }
            };
            if top && (p == "}" || group(p) != group(line) && group(p) < 2) {
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
        prev = Some(line);
    }
    out
}

/// The whole module in one file.
pub(super) fn module(m: &Module) -> Result<String, String> {
    let items: Vec<&Item> = m.udts.iter().chain(&m.tables).collect();
    let mut src = header(m, &m.uses);
    src.push('\n');
    src.push_str(&use_items(&m.uses, &derives(m)));
    for (i, it) in items.iter().enumerate() {
        src.push('\n');
        item(&mut src, it, i < m.udts.len());
    }
    format(&src)
}

/// One file per struct (named after it in snake_case) and `mod.rs`, which declares them
/// and re-exports their structs: (file name, source) pairs, `mod.rs` first.
pub(super) fn files(m: &Module) -> Result<Vec<(String, String)>, String> {
    let mut mod_rs = header(m, &m.uses);
    mod_rs.push('\n');
    let mut out = Vec::new();
    let udts = m.udts.len();
    let mut taken = std::collections::BTreeSet::new();
    for (i, it) in m.udts.iter().chain(&m.tables).enumerate() {
        let module = unique_snake(module_ident(&it.ident), &mut taken);
        let file = format!("{}.rs", module.trim_start_matches("r#"));
        let _ = writeln!(mod_rs, "mod {module};\npub use {module}::{};", it.ident);
        let mut src = use_items(&it.uses, &[if i < udts { "CassUdt" } else { "CassTable" }]);
        for u in &it.uses_udts {
            let _ = writeln!(src, "use super::{u};");
        }
        src.push('\n');
        item(&mut src, it, i < udts);
        out.push((file, format(&src)?));
    }
    out.insert(0, ("mod.rs".to_owned(), format(&mod_rs)?));
    Ok(out)
}
