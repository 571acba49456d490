//! The pull round trip of every keyspace the suite leaves (`tests/pull_suite.rs`): the
//! directory the tests dump into (`CASSMODEL_PULL_DUMP`) and the suite file written from it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `target/pull-dump` of the workspace.
pub fn dump_path() -> PathBuf {
    let xtask = Path::new(env!("CARGO_MANIFEST_DIR"));
    xtask
        .parent()
        .unwrap_or(xtask)
        .join("target")
        .join("pull-dump")
}

/// The directory the tests dump each keyspace into, emptied for this run.
pub fn dump_dir() -> Result<PathBuf, String> {
    let dir = dump_path();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// What the suite file holds: how many keyspaces were dumped and how many are distinct.
pub struct Written {
    pub file: PathBuf,
    pub dumped: usize,
    pub distinct: usize,
}

/// Writes `<dir>/suite.rs`: one module per distinct keyspace (the same module, table structs
/// and `DESCRIBE` once its own name is taken out), and the `suite! { .. }` that names them.
pub fn write(dir: &Path) -> Result<Written, String> {
    let read =
        |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "tables"))
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .collect();
    names.sort();
    // (module, DESCRIBE without the keyspace's name, tables) -> the first keyspace that had it.
    let mut distinct: BTreeMap<(String, String, String), String> = BTreeMap::new();
    for ks in &names {
        let file = |ext: &str| dir.join(format!("{ks}.{ext}"));
        let key = (
            read(&file("rs"))?,
            read(&file("cql"))?.replace(ks.as_str(), "{keyspace}"),
            read(&file("tables"))?,
        );
        distinct.entry(key).or_insert_with(|| ks.clone());
    }
    let mut firsts: Vec<(&String, &String)> = distinct
        .iter()
        .map(|((_, _, tables), ks)| (ks, tables))
        .collect();
    firsts.sort();
    let mut modules = String::new();
    let mut entries = String::new();
    for (i, (ks, tables)) in firsts.iter().enumerate() {
        let path = |ext: &str| dir.join(format!("{ks}.{ext}")).display().to_string();
        modules += &format!("#[path = {:?}]\nmod m{i};\n", path("rs"));
        let tables: Vec<&str> = tables.lines().filter(|l| !l.is_empty()).collect();
        entries += &format!(
            "    m{i}: {ks:?} => include_str!({:?}) => [{}];\n",
            path("cql"),
            tables.join(", ")
        );
    }
    let file = dir.join("suite.rs");
    let text = format!(
        "// Written by `cargo xtask test`: the {} distinct keyspaces of the {} the suite left.\n\
         {modules}suite! {{\n{entries}}}\n",
        firsts.len(),
        names.len()
    );
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(Written {
        file,
        dumped: names.len(),
        distinct: firsts.len(),
    })
}
