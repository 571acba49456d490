//! Migrations from structs: compare the models (`#[derive(CassTable)]` / `#[derive(CassUdt)]`)
//! with the live cluster, and turn the difference into a reviewed, safe migration.
//!
//! - [`Models`]: the set of tables and types to manage, every derive in the binary
//!   ([`Models::registered`], a link-time registry) or an explicit list ([`Models::new`] +
//!   [`Models::table`]).
//! - [`Migrator`]: reads `system_schema` ([`LiveSchema`]), computes a [`MigrationPlan`] (a pure
//!   function of the models and the live schema, [`Migrator::plan_against`]), applies it ([`Migrator::apply`]), writes it as versioned `.cql`
//!   files ([`Migrator::generate`]), or checks at start-up that the cluster matches
//!   ([`Migrator::validate`]).
//! - `cli` (feature `cli`): the same as a ready command-line tool, embedded in one line.
//!
//! What a plan does:
//!
//! - creates missing keyspaces (with the configured [`Replication`]), user-defined types
//!   (dependencies first), tables and the SAI indexes the models declare (`#[cass(index)]`,
//!   each after its table and columns), each `IF NOT EXISTS`;
//! - adds new regular and static columns (`ALTER TABLE ... ADD IF NOT EXISTS`) and new UDT
//!   fields (`ALTER TYPE ... ADD IF NOT EXISTS`), and changes the table options the model sets
//!   (`ALTER TABLE ... WITH`);
//! - **refuses** what Cassandra cannot change in place (partition key, clustering columns or
//!   order, a column's type, removing a UDT field, re-adding a dropped column with another
//!   type, an index whose name or target is taken by another index), with a [`Refusal`] that
//!   says what to do instead;
//! - **drops nothing**: tables, columns, types and indexes the models do not have are listed
//!   as [`Unmanaged`]; a column is dropped only after [`Migrator::allow_drop`] names it.
//!
//! ```no_run
//! use cassmodel_runtime::migrate::{Migrator, Models};
//! use cassmodel_runtime::{Db, Replication};
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! let db = Db::connect_from_env().await?.with_keyspace("shop")?;
//! let migrator = Migrator::new(&db, Models::registered())
//!     .replication(Replication::network_topology([("dc1", 3)]));
//! let plan = migrator.plan().await?;
//! println!("{plan}"); // the CQL it would run, what it refuses, what it leaves alone
//! migrator.apply().await?; // refuses to run anything if the plan refuses something
//! migrator.validate().await?; // at start-up: every mismatch in one error
//! # Ok(()) }
//! ```
//!
//! Table options: only the options a model sets (`default_ttl`, `gc_grace_seconds`,
//! `comment`, `compaction`) are compared and changed; an option the model leaves out is
//! left as the cluster has it (write e.g. `default_ttl = 0` to reset one).
//!
//! User-defined types are created in the keyspace of every table that uses them. A type no
//! table uses is created in the default keyspace, if there is one.

mod apply;
#[cfg(feature = "cli")]
pub mod cli;
mod error;
mod files;
mod live;
mod plan;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::db::Db;
use crate::ddl::{self, Replication};
use crate::schema::{TableSchema, UdtSchema};
use crate::table::Table;
use crate::udt::Udt;

pub use apply::ApplyReport;
pub use error::MigrationError;
pub use files::{GeneratedFile, next_file_name};
pub use live::{
    DroppedColumn, LiveColumn, LiveIndex, LiveKeyspace, LiveOptions, LiveSchema, LiveTable,
    LiveType,
};
pub use plan::{Change, MigrationPlan, Mismatch, Refusal, Step, Unmanaged};

/// Registration of one `#[derive(CassTable)]` type, emitted by the derive. Not a public API.
#[doc(hidden)]
pub struct TableEntry(pub fn() -> &'static TableSchema);

/// Registration of one `#[derive(CassUdt)]` type, emitted by the derive. Not a public API.
#[doc(hidden)]
pub struct UdtEntry(pub fn() -> &'static UdtSchema);

inventory::collect!(TableEntry);
inventory::collect!(UdtEntry);

/// Every `#[derive(CassTable)]` type linked into this binary, sorted by keyspace, table name
/// and Rust name (the registry's own order depends on the linker).
///
/// ```
/// # use cassmodel_runtime as cassmodel;
/// // In a crate with `#[derive(CassTable)] struct Post { .. }`:
/// let names: Vec<&str> = cassmodel::migrate::registered_tables().iter().map(|t| t.name).collect();
/// # let _ = names;
/// ```
pub fn registered_tables() -> Vec<&'static TableSchema> {
    let mut out: Vec<&'static TableSchema> =
        inventory::iter::<TableEntry>().map(|e| (e.0)()).collect();
    out.sort_by(|a, b| (a.keyspace, a.name, a.rust_name).cmp(&(b.keyspace, b.name, b.rust_name)));
    out.dedup_by(|a, b| std::ptr::eq(*a, *b));
    out
}

/// Every `#[derive(CassUdt)]` type linked into this binary, sorted by name and Rust name.
pub fn registered_udts() -> Vec<&'static UdtSchema> {
    let mut out: Vec<&'static UdtSchema> = inventory::iter::<UdtEntry>().map(|e| (e.0)()).collect();
    out.sort_by(|a, b| (a.name, a.rust_name).cmp(&(b.name, b.rust_name)));
    out.dedup_by(|a, b| std::ptr::eq(*a, *b));
    out
}

/// The tables and user-defined types a migration manages.
///
/// ```
/// # use cassmodel_runtime as cassmodel;
/// use cassmodel::migrate::Models;
/// // Every derive in the binary:
/// let all = Models::registered();
/// // Or an explicit list (works without the registry):
/// // let some = Models::new().table::<Customer>().table::<Order>().udt::<Address>();
/// # let _ = all;
/// ```
#[derive(Debug, Clone, Default)]
pub struct Models {
    tables: Vec<&'static TableSchema>,
    udts: Vec<&'static UdtSchema>,
}

impl Models {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every `#[derive(CassTable)]` and `#[derive(CassUdt)]` type linked into the binary.
    pub fn registered() -> Self {
        Models {
            tables: registered_tables(),
            udts: registered_udts(),
        }
    }

    /// Adds table `T` (and the user-defined types it uses).
    pub fn table<T: Table>(self) -> Self {
        self.table_schema(T::schema())
    }

    /// Adds a table by its description.
    pub fn table_schema(mut self, schema: &'static TableSchema) -> Self {
        if !self.tables.iter().any(|t| std::ptr::eq(*t, schema)) {
            self.tables.push(schema);
        }
        self
    }

    /// Adds user-defined type `U`. Types used by a table are added with the table; add a
    /// type here only to create it where no table uses it (in the default keyspace).
    pub fn udt<U: Udt>(mut self) -> Self {
        let schema = U::udt_schema();
        if !self.udts.iter().any(|u| std::ptr::eq(*u, schema)) {
            self.udts.push(schema);
        }
        self
    }

    /// The tables, in the order given.
    pub fn tables(&self) -> &[&'static TableSchema] {
        &self.tables
    }

    /// The user-defined types given explicitly (or registered), in the order given.
    pub fn udts(&self) -> &[&'static UdtSchema] {
        &self.udts
    }

    /// Places every model in its keyspace: the declared one after `resolve`, or the default.
    /// Two different structs for one table (or type) are an error.
    pub(crate) fn resolve<'a>(
        &self,
        resolve: impl Fn(Option<&'static str>) -> Option<&'a str>,
    ) -> Result<Target, MigrationError> {
        let mut problems = Vec::new();
        let mut tables: BTreeMap<(String, String), &'static TableSchema> = BTreeMap::new();
        for &t in &self.tables {
            let Some(ks) = resolve(t.keyspace) else {
                problems.push(format!(
                    "table `{}` (struct `{}`) has no keyspace: give a default keyspace \
                     (`--keyspace`, `Db::with_keyspace`) or annotate the struct with \
                     #[cass(keyspace = \"...\")]",
                    t.name, t.rust_name
                ));
                continue;
            };
            let key = (ks.to_owned(), t.name.to_owned());
            match tables.get(&key) {
                Some(other)
                    if ddl::create_table_with_types(other, ks)
                        != ddl::create_table_with_types(t, ks) =>
                {
                    problems.push(format!(
                        "table `{ks}.{}` is described by two structs that differ, `{}` and \
                         `{}`: keep one of them in the models",
                        t.name, other.rust_name, t.rust_name
                    ));
                }
                Some(_) => {}
                None => {
                    tables.insert(key, t);
                }
            }
        }
        // Index names are unique per keyspace.
        let mut index_names: BTreeMap<(&str, &str), &'static TableSchema> = BTreeMap::new();
        for ((ks, _), &t) in &tables {
            for (_, i) in t.indexes() {
                match index_names.get(&(ks.as_str(), i.name)) {
                    Some(other) => problems.push(format!(
                        "index `{ks}.{}` is declared on two tables, `{}` (struct `{}`) and `{}` \
                         (struct `{}`): index names are unique per keyspace, so rename one with \
                         #[cass(index(name = \"...\"))]",
                        i.name, other.name, other.rust_name, t.name, t.rust_name
                    )),
                    None => {
                        index_names.insert((ks.as_str(), i.name), t);
                    }
                }
            }
        }
        let mut udts: BTreeMap<String, BTreeMap<String, &'static UdtSchema>> = BTreeMap::new();
        let mut add_udt = |ks: &str, u: &'static UdtSchema, problems: &mut Vec<String>| {
            let in_ks = udts.entry(ks.to_owned()).or_default();
            match in_ks.get(u.name) {
                Some(other) if ddl::create_type(other, ks) != ddl::create_type(u, ks) => {
                    problems.push(format!(
                        "type `{ks}.{}` is described by two structs that differ, `{}` and `{}`: \
                         keep one of them in the models",
                        u.name, other.rust_name, u.rust_name
                    ));
                }
                Some(_) => {}
                None => {
                    in_ks.insert(u.name.to_owned(), u);
                }
            }
        };
        let mut used: BTreeSet<&str> = BTreeSet::new();
        for ((ks, _), t) in &tables {
            for &u in t.udts() {
                used.insert(u.name);
                add_udt(ks, u, &mut problems);
            }
        }
        if let Some(default) = resolve(None) {
            for &u in &self.udts {
                if !used.contains(u.name) {
                    for &d in u.dependencies() {
                        add_udt(default, d, &mut problems);
                    }
                    add_udt(default, u, &mut problems);
                }
            }
        }
        if !problems.is_empty() {
            return Err(MigrationError::Models(problems));
        }
        Ok(Target {
            tables: tables.into_iter().map(|((ks, _), t)| (ks, t)).collect(),
            udts: udts
                .into_iter()
                .map(|(ks, by_name)| (ks, dependency_order(by_name.into_values().collect())))
                .collect(),
        })
    }
}

/// UDTs sorted by name, each after the types it refers to.
fn dependency_order(mut udts: Vec<&'static UdtSchema>) -> Vec<&'static UdtSchema> {
    udts.sort_by_key(|u| u.name);
    let mut out: Vec<&'static UdtSchema> = Vec::new();
    fn visit(u: &'static UdtSchema, all: &[&'static UdtSchema], out: &mut Vec<&'static UdtSchema>) {
        if out.iter().any(|o| o.name == u.name) {
            return;
        }
        for d in u.dependencies() {
            // The dependency as the set knows it (same name), so one definition is used.
            let d = all.iter().find(|a| a.name == d.name).copied().unwrap_or(d);
            visit(d, all, out);
        }
        out.push(u);
    }
    for &u in &udts {
        visit(u, &udts, &mut out);
    }
    out
}

/// The models placed in their (resolved) keyspaces, sorted: what a plan is computed from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Target {
    /// (keyspace, table), sorted by keyspace and table name.
    pub tables: Vec<(String, &'static TableSchema)>,
    /// Per keyspace, the types to have there, dependencies first.
    pub udts: BTreeMap<String, Vec<&'static UdtSchema>>,
}

impl Target {
    /// Every keyspace the models use, sorted.
    pub fn keyspaces(&self) -> BTreeSet<&str> {
        self.tables
            .iter()
            .map(|(k, _)| k.as_str())
            .chain(self.udts.keys().map(String::as_str))
            .collect()
    }
}

/// Settings of a plan that are not in the models.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// Replication of keyspaces the plan creates, unless `keyspace_replication` names them.
    pub replication: Option<Replication>,
    /// Per keyspace.
    pub keyspace_replication: BTreeMap<String, Replication>,
    /// `(keyspace, table, column)` that may be dropped.
    pub allow_drop: BTreeSet<(String, String, String)>,
    /// How long `apply` waits for a new index to be queryable on every node (`None`:
    /// [`INDEX_WAIT`](crate::index_ready::INDEX_WAIT)).
    pub index_wait: Option<std::time::Duration>,
}

impl Settings {
    pub fn replication_of(&self, keyspace: &str) -> Option<&Replication> {
        self.keyspace_replication
            .get(keyspace)
            .or(self.replication.as_ref())
    }
}

/// Where models without a keyspace of their own go, and where fixed keyspaces are mapped to.
#[derive(Debug, Clone)]
enum Keyspaces {
    /// As the [`Db`] resolves them ([`Db::resolve_keyspace`]).
    Db(Db),
    /// Without a cluster: the declared keyspace, or this default.
    Offline(Option<String>),
}

/// Plans, applies, writes and validates migrations of a set of [`Models`] against a cluster.
///
/// Keyspaces are resolved as the [`Db`] resolves them: a model's declared keyspace (after
/// [`Db::map_keyspace`]), or the `Db`'s default keyspace.
///
/// ```no_run
/// # async fn f() -> Result<(), cassmodel_runtime::migrate::MigrationError> {
/// use cassmodel_runtime::migrate::{Migrator, Models};
/// use cassmodel_runtime::{Db, Replication};
/// let db = Db::connect_from_env().await?;
/// let migrator = Migrator::new(&db, Models::registered())
///     .replication(Replication::Simple(1))
///     .keyspace_replication("orders", Replication::network_topology([("dc1", 3), ("dc2", 3)]))
///     .allow_drop("orders", "orders_by_customer", "remarks");
/// let report = migrator.apply().await?;
/// println!("{} statements run", report.applied.len());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Migrator {
    keyspaces: Keyspaces,
    models: Models,
    settings: Settings,
}

impl Migrator {
    /// A migrator for `models` on the cluster of `db`.
    pub fn new(db: &Db, models: Models) -> Self {
        Migrator {
            keyspaces: Keyspaces::Db(db.clone()),
            models,
            settings: Settings::default(),
        }
    }

    /// A migrator without a cluster: only [`schema_cql`](Self::schema_cql) works.
    /// `default_keyspace` holds the models that do not name a keyspace.
    pub fn offline(models: Models, default_keyspace: Option<&str>) -> Self {
        Migrator {
            keyspaces: Keyspaces::Offline(default_keyspace.map(str::to_owned)),
            models,
            settings: Settings::default(),
        }
    }

    /// The replication of every keyspace the plan creates, unless
    /// [`keyspace_replication`](Self::keyspace_replication) names it. Without one, a missing
    /// keyspace is a [`Refusal`] (cassmodel does not guess a production replication).
    pub fn replication(mut self, replication: Replication) -> Self {
        self.settings.replication = Some(replication);
        self
    }

    /// The replication of keyspace `keyspace` (its name on the cluster), if the plan creates it.
    pub fn keyspace_replication(mut self, keyspace: &str, replication: Replication) -> Self {
        self.settings
            .keyspace_replication
            .insert(keyspace.to_owned(), replication);
        self
    }

    /// Lets the plan drop column `column` of `keyspace.table` (names as on the cluster) when
    /// the models no longer have it. Nothing else is ever dropped.
    pub fn allow_drop(mut self, keyspace: &str, table: &str, column: &str) -> Self {
        self.settings
            .allow_drop
            .insert((keyspace.to_owned(), table.to_owned(), column.to_owned()));
        self
    }

    /// How long [`apply`](Self::apply) waits, after creating an index, until every node can
    /// answer reads that use it (two minutes unless set; `Duration::ZERO` does not wait). On a
    /// table with many rows the build takes longer: past the wait, `apply` fails with
    /// [`Error::IndexNotReady`](crate::Error::IndexNotReady) (the index stays, and running
    /// `apply` again waits again).
    pub fn index_wait(mut self, wait: std::time::Duration) -> Self {
        self.settings.index_wait = Some(wait);
        self
    }

    /// The models.
    pub fn models(&self) -> &Models {
        &self.models
    }

    fn db(&self) -> Result<&Db, MigrationError> {
        match &self.keyspaces {
            Keyspaces::Db(db) => Ok(db),
            Keyspaces::Offline(_) => Err(MigrationError::Offline),
        }
    }

    pub(crate) fn target(&self) -> Result<Target, MigrationError> {
        match &self.keyspaces {
            Keyspaces::Db(db) => self.models.resolve(|k| db.resolve_keyspace(k)),
            Keyspaces::Offline(default) => self.models.resolve(|k| k.or(default.as_deref())),
        }
    }

    /// Reads the part of `system_schema` the models live in (their keyspaces).
    pub async fn live_schema(&self) -> Result<LiveSchema, MigrationError> {
        let target = self.target()?;
        let keyspaces: Vec<&str> = target.keyspaces().into_iter().collect();
        LiveSchema::read(self.db()?.session(), &keyspaces).await
    }

    /// The plan: what [`apply`](Self::apply) would run, what it refuses, what it leaves alone.
    /// Computing it changes nothing.
    pub async fn plan(&self) -> Result<MigrationPlan, MigrationError> {
        let live = self.live_schema().await?;
        self.plan_against(&live)
    }

    /// The plan against `live`, without touching the cluster: the pure function behind
    /// [`plan`](Self::plan). The same inputs always give the same plan.
    pub fn plan_against(&self, live: &LiveSchema) -> Result<MigrationPlan, MigrationError> {
        Ok(plan::plan_target(&self.target()?, live, &self.settings))
    }

    /// Computes the plan and runs it: nothing at all when it refuses something
    /// ([`MigrationError::Refused`]); otherwise every step in order, each idempotent, waiting
    /// for schema agreement after each. Then checks that the cluster matches the models.
    /// Safe to run again after an interruption, and from two processes at once.
    pub async fn apply(&self) -> Result<ApplyReport, MigrationError> {
        let plan = self.plan().await?;
        self.apply_and_check(&plan).await
    }

    /// [`apply_plan`](Self::apply_plan), then the check that the cluster matches the models:
    /// the second half of [`apply`](Self::apply), for a caller that already has the plan
    /// (the CLI prints it first, and then runs exactly what it printed).
    pub(crate) async fn apply_and_check(
        &self,
        plan: &MigrationPlan,
    ) -> Result<ApplyReport, MigrationError> {
        let report = self.apply_plan(plan).await?;
        let after = self.plan().await?;
        if !after.is_empty() {
            return Err(MigrationError::Incomplete(after.to_string()));
        }
        Ok(report)
    }

    /// Runs the steps of `plan` in order (e.g. a prefix of a plan). Refuses to run anything
    /// when the plan refuses something. A step the cluster already has (another process
    /// applied it) is reported in [`ApplyReport::already_applied`] and not run again.
    pub async fn apply_plan(&self, plan: &MigrationPlan) -> Result<ApplyReport, MigrationError> {
        if !plan.refused.is_empty() {
            return Err(MigrationError::Refused(plan.refused.clone()));
        }
        let index_wait = self
            .settings
            .index_wait
            .unwrap_or(crate::index_ready::INDEX_WAIT);
        apply::apply_steps(self.db()?, &plan.steps, index_wait).await
    }

    /// Compares the models with the cluster and reports every mismatch in one error (missing
    /// keyspaces, types, fields, tables, columns and indexes; different key columns, key
    /// order, clustering order, types and index definitions). Columns, tables and indexes the
    /// models do not have are fine, and table options are not compared. Run it at start-up, before the first query.
    pub async fn validate(&self) -> Result<(), MigrationError> {
        let plan = self.plan().await?;
        let mismatches = plan.mismatches();
        if mismatches.is_empty() {
            Ok(())
        } else {
            Err(MigrationError::Mismatch(mismatches))
        }
    }

    /// Computes the plan and writes its steps as the next numbered file
    /// (`NNNN_<description>.cql`) in `dir`, for review and for `cqlsh -f`. Writes nothing
    /// when the plan is empty or equal to the newest file there; refuses like
    /// [`apply`](Self::apply). `description` defaults to one made from the first step.
    pub async fn generate(
        &self,
        dir: &Path,
        description: Option<&str>,
    ) -> Result<Option<GeneratedFile>, MigrationError> {
        let plan = self.plan().await?;
        files::generate(dir, &plan, description)
    }

    /// The full DDL of every model, as it would be created on an empty cluster, offline.
    /// Keyspaces without a configured replication appear as a comment.
    pub fn schema_cql(&self) -> Result<String, MigrationError> {
        let target = self.target()?;
        let plan = plan::plan_target(&target, &LiveSchema::default(), &self.settings);
        let mut out = String::new();
        for r in &plan.refused {
            out.push_str(&format!("-- {}\n", r.to_string().replace('\n', "\n-- ")));
        }
        out.push_str(&plan.cql());
        Ok(out)
    }
}
