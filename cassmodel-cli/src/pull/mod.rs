//! Models from a live keyspace: `#[derive(CassTable)]` and `#[derive(CassUdt)]` structs
//! that reproduce its tables and types exactly, read from `system_schema`. The way onto
//! cassmodel for a keyspace that exists already, as `diesel print-schema` is for diesel.
//!
//! For each table: a struct with the table's name (`#[cass(table = "..")]`), its columns
//! in the table's order (partition key, clustering columns with their order, then the
//! others by name), each column's Rust type (below), `Option` where the column can be null,
//! `#[cass(static)]`, `#[cass(frozen)]`, a `cql_type` where the Rust type alone would give
//! another CQL type (`ascii`, a set of floats held in a `Vec`), a raw identifier or
//! `#[cass(name = "..")]` where the column's name is not a Rust field name, its SAI and
//! vector indexes (`#[cass(index(..))]`), and the table options the derive manages
//! (`default_ttl`, `gc_grace_seconds`, `comment`, `compaction`) where they differ from a new
//! table's. For each user-defined type: a struct, dependencies first, whose fields are all
//! `Option`s. Every value the cluster can hold reads and writes back unchanged: a type's field
//! and a tuple's element can each be null (a null list inside a frozen type is not an empty
//! one, and `(1, null)` is a tuple of a key column too), so they are `Option`s.
//!
//! | CQL | Rust |
//! |---|---|
//! | `text`, `varchar`, `ascii` | `String` |
//! | `tinyint`, `smallint`, `int`, `bigint` | `i8`, `i16`, `i32`, `i64` |
//! | `float`, `double`, `boolean`, `blob` | `f32`, `f64`, `bool`, `Vec<u8>` |
//! | `uuid`, `inet` | `uuid::Uuid`, `std::net::IpAddr` |
//! | `timestamp`, `date`, `time` | chrono's `DateTime<Utc>`, `NaiveDate`, `NaiveTime` |
//! | `timeuuid`, `counter`, `decimal`, `varint`, `duration` | `cassmodel::value::{Timeuuid, Counter, Decimal, Varint, Duration}` |
//! | `vector<float, n>` | `cassmodel::value::Vector<n>` |
//! | `list<T>`, `tuple<A, B>` | `Vec<T>`, `(Option<A>, Option<B>)` |
//! | `set<T>`, `map<K, V>` | `BTreeSet<T>`, `BTreeMap<K, V>`; a `Vec<T>`, `Vec<(K, V)>` with `cql_type` when `T` or `K` is not `Ord` (floats, ...) |
//! | a user-defined type | its struct |
//!
//! What cannot be written as a model is named, with the reason, in the module's doc
//! comment and in [`Pulled::warnings`], never silently left out: a `COMPACT STORAGE` table,
//! a table with a type cassmodel cannot hold (a `vector` of anything but `float`), a
//! materialized view that selects rows by more than its key columns being not null (any other
//! view is written as a `#[cass(view_of = ..)]` struct of its base table, with `all_columns`
//! when it was created with `SELECT *`), an index that is
//! not SAI or has options the derive does not declare (a note on its field; the cluster keeps
//! it).
//!
//! ```no_run
//! use cassmodel_cli::pull::{pull, Output, PullOptions};
//! # async fn f(db: &cassmodel_runtime::Db) -> Result<(), Box<dyn std::error::Error>> {
//! let pulled = pull(db, "shop", &PullOptions::new()).await?;
//! for w in &pulled.warnings {
//!     eprintln!("warning: {w}");
//! }
//! pulled.write(&Output::File("src/models.rs".into()))?;
//! # Ok(()) }
//! ```
//!
//! The command: `cassmodel --keyspace shop pull --out src/models.rs` (or `--dir src/models`
//! for a file per table; `--check` in CI).

mod model;
mod names;
mod render;
mod types;

use std::path::{Path, PathBuf};

use cassmodel_runtime::Db;
use cassmodel_runtime::migrate::{LiveKeyspace, LiveSchema, MigrationError};

/// Which tables to generate.
#[derive(Debug, Clone, Default)]
pub struct PullOptions {
    tables: Vec<String>,
}

impl PullOptions {
    /// Every table and type of the keyspace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only the tables named so (call once per table), and the types they use.
    pub fn table(mut self, name: impl Into<String>) -> Self {
        self.tables.push(name.into());
        self
    }
}

/// Where generated models go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// One module, in this file.
    File(PathBuf),
    /// One file per table and type, and a `mod.rs` that declares them and re-exports their
    /// structs, in this directory.
    Dir(PathBuf),
}

/// Why models could not be pulled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PullError {
    /// The schema could not be read.
    #[error(transparent)]
    Schema(#[from] MigrationError),
    /// The keyspace does not exist.
    #[error("the cluster has no keyspace `{0}`")]
    NoKeyspace(String),
    /// A table named in [`PullOptions::table`] is not in the keyspace.
    #[error("{0}")]
    NoTable(String),
    /// The generated Rust does not parse (a bug of cassmodel: please report it).
    #[error("{0}")]
    Generated(String),
}

/// A keyspace's models as Rust source.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Pulled {
    /// Everything in one module.
    pub module: String,
    /// One file per table and type, and `mod.rs`: (file name, source).
    pub files: Vec<(String, String)>,
    /// What the keyspace has that the models do not declare, one sentence each.
    pub warnings: Vec<String>,
    /// The structs written, types first.
    pub structs: Vec<PulledStruct>,
}

/// One struct of [`Pulled`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PulledStruct {
    /// The table's or type's name in CQL.
    pub name: String,
    /// The struct's name.
    pub ident: String,
    /// A table's (`#[derive(CassTable)]`), else a user-defined type's.
    pub is_table: bool,
    /// What the cluster has on it that the struct does not declare (also in
    /// [`Pulled::warnings`]).
    pub notes: Vec<String>,
}

/// Reads `keyspace`'s schema from `system_schema` and writes its models.
pub async fn pull(db: &Db, keyspace: &str, options: &PullOptions) -> Result<Pulled, PullError> {
    let live = LiveSchema::read(db, &[keyspace]).await?;
    let ks = live
        .keyspaces
        .get(keyspace)
        .ok_or_else(|| PullError::NoKeyspace(keyspace.to_owned()))?;
    generate(ks, options)
}

/// The models of a keyspace as [`LiveSchema::read`] describes it.
pub fn generate(keyspace: &LiveKeyspace, options: &PullOptions) -> Result<Pulled, PullError> {
    let m = model::module(keyspace, &options.tables).map_err(PullError::NoTable)?;
    let mut warnings: Vec<String> = m
        .skipped
        .iter()
        .map(|s| format!("not generated: {s}"))
        .collect();
    let mut structs = Vec::new();
    for (i, item) in m.udts.iter().chain(&m.tables).enumerate() {
        let mut notes: Vec<String> = item.notes.clone();
        warnings.extend(item.notes.iter().map(|n| format!("{}: {n}", item.name)));
        for f in &item.fields {
            let field = f.ident.trim_start_matches("r#");
            notes.extend(f.notes.iter().map(|n| format!("{field}: {n}")));
            warnings.extend(
                f.notes
                    .iter()
                    .map(|n| format!("{}.{field}: {n}", item.name)),
            );
        }
        structs.push(PulledStruct {
            name: item.name.clone(),
            ident: item.ident.clone(),
            is_table: i >= m.udts.len(),
            notes,
        });
    }
    Ok(Pulled {
        module: render::module(&m).map_err(PullError::Generated)?,
        files: render::files(&m).map_err(PullError::Generated)?,
        warnings,
        structs,
    })
}

impl Pulled {
    /// The files to write for `output`: (path, source).
    fn targets(&self, output: &Output) -> Vec<(PathBuf, &str)> {
        match output {
            Output::File(path) => vec![(path.clone(), self.module.as_str())],
            Output::Dir(dir) => self
                .files
                .iter()
                .map(|(name, src)| (dir.join(name), src.as_str()))
                .collect(),
        }
    }

    /// Writes the models (creating the directory of [`Output::Dir`]).
    pub fn write(&self, output: &Output) -> std::io::Result<()> {
        if let Output::Dir(dir) = output {
            std::fs::create_dir_all(dir)?;
        }
        for (path, src) in self.targets(output) {
            std::fs::write(path, src)?;
        }
        Ok(())
    }

    /// The files of `output` that are missing or differ from these models, each with why:
    /// empty when the files match the cluster.
    pub fn differences(&self, output: &Output) -> Vec<String> {
        self.targets(output)
            .into_iter()
            .filter_map(|(path, src)| differs(&path, src))
            .collect()
    }
}

fn differs(path: &Path, expected: &str) -> Option<String> {
    let shown = path.display();
    match std::fs::read_to_string(path) {
        Err(e) => Some(format!("{shown}: cannot read it ({e})")),
        Ok(found) if found == expected => None,
        Ok(found) => {
            let line = found
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| found.lines().count().min(expected.lines().count()));
            Some(format!(
                "{shown}: differs from the cluster's schema from line {}: the file has `{}`, \
                 the cluster says `{}`",
                line + 1,
                found.lines().nth(line).unwrap_or("(end of file)").trim(),
                expected.lines().nth(line).unwrap_or("(end of file)").trim()
            ))
        }
    }
}
