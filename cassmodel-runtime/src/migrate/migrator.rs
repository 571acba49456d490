//! [`Migrator`]: plans, applies, writes and validates the migration of a set of [`Models`].

use std::path::Path;

use super::apply::{ApplyReport, apply_steps};
use super::copy::record::create_record;
use super::error::MigrationError;
use super::files::{self, GeneratedFile};
use super::live::LiveSchema;
use super::models::Models;
use super::plan::{self, MigrationPlan};
use super::target::{Settings, Target};
use crate::progress::{OnProgress, Progress};
use crate::schema::ddl::Replication;
use crate::session::db::Db;
use crate::session::index_ready::INDEX_WAIT;
use crate::session::version::ServerVersion;

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
    /// keyspace is a [`Refusal`](super::Refusal) (cassmodel does not guess a production replication).
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

    /// Lets the plan drop the mask of column `column` of `keyspace.table` (names as on the
    /// cluster) when its field declares none: `ALTER TABLE .. ALTER column DROP MASKED`.
    /// Every role without the `UNMASK` permission then reads the column's values in clear, so
    /// without this the plan refuses to drop a mask (a mask the models change to another
    /// masking function is replaced without it: the column stays masked).
    ///
    /// ```
    /// # fn f(migrator: cassmodel_runtime::migrate::Migrator) {
    /// // The models declare no mask on `customers.email` any more: expose it, by name.
    /// let migrator = migrator.allow_unmask("shop", "customers", "email");
    /// # }
    /// ```
    pub fn allow_unmask(mut self, keyspace: &str, table: &str, column: &str) -> Self {
        self.settings.allow_unmask.insert((
            keyspace.to_owned(),
            table.to_owned(),
            column.to_owned(),
        ));
        self
    }

    /// Lets the plan create the materialized views the models declare
    /// (`#[cass(view_of = ..)]`); without it, a missing view is a
    /// [`Refusal`](super::Refusal). Cassandra calls views experimental: a server creates
    /// them only when its `cassandra.yaml` sets `materialized_views_enabled: true`, and each
    /// write to a base table then also writes its views (a read before the write, on every
    /// replica). cassmodel's own alternative is an entity written to several tables
    /// (`#[derive(CassEntity)]`).
    pub fn create_views(mut self, create: bool) -> Self {
        self.settings.create_views = create;
        self
    }

    /// Lets the plan drop materialized view `keyspace.view`: to create it again when the
    /// model's differs from the cluster's (a view's columns and key cannot be altered), or
    /// because no model declares it any more. Reads of a view created again fail until the
    /// server has built it from its base table.
    pub fn allow_drop_view(mut self, keyspace: &str, view: &str) -> Self {
        self.settings
            .drop_views
            .insert((keyspace.to_owned(), view.to_owned()));
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

    /// Calls `f` while [`apply`](Self::apply) runs: before each step, and about once a
    /// second while it waits for a new index to be built ([`Progress`]). The migration CLI
    /// shows them (a progress line on a terminal, plain lines otherwise).
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.settings.on_progress = Some(OnProgress(std::sync::Arc::new(f)));
        self
    }

    /// The settings of its plans that are not in the models.
    #[cfg(test)]
    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
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
        LiveSchema::read(self.db()?, &keyspaces).await
    }

    /// The plan: what [`apply`](Self::apply) would run, what it refuses, what it leaves alone.
    /// Computing it changes nothing.
    ///
    /// Fails with [`MigrationError::Unsupported`] when the models use what the cluster's
    /// Cassandra version lacks (SAI and vector indexes, vector types, masked columns on
    /// Cassandra 4.1), naming each use; so do [`apply`](Self::apply) and
    /// [`validate`](Self::validate).
    pub async fn plan(&self) -> Result<MigrationPlan, MigrationError> {
        let live = self.live_schema().await?;
        self.refuse_what_the_server_lacks().await?;
        self.plan_against(&live)
    }

    /// [`MigrationError::Unsupported`] when the cluster runs a Cassandra older than 5.0 and
    /// the models use what 5.0 added.
    async fn refuse_what_the_server_lacks(&self) -> Result<(), MigrationError> {
        let server = self
            .db()?
            .server_version()
            .await
            .map_err(|e| MigrationError::Db(Box::new(e)))?;
        let Some(server) = server.filter(|v| *v < ServerVersion::CASSANDRA_5_0) else {
            return Ok(());
        };
        let features = self.target()?.cassandra_5_features();
        if features.is_empty() {
            return Ok(());
        }
        Err(MigrationError::Unsupported {
            server: server.to_string(),
            needs: "5.0",
            features,
        })
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
    pub async fn apply_and_check(
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
    /// applied it) is reported in [`ApplyReport::already_applied`] and not run again. When the
    /// plan has a key change to copy ([`MigrationPlan::copies`]), the record of the copies
    /// (keyspace [`RECORD_KEYSPACE`](super::copy::RECORD_KEYSPACE)) is created too, if it is
    /// missing.
    pub async fn apply_plan(&self, plan: &MigrationPlan) -> Result<ApplyReport, MigrationError> {
        if !plan.refused.is_empty() {
            return Err(MigrationError::Refused(plan.refused.clone()));
        }
        let index_wait = self.settings.index_wait.unwrap_or(INDEX_WAIT);
        let progress = self.settings.on_progress.as_ref();
        let db = self.db()?;
        let report = apply_steps(db, &plan.steps, index_wait, progress).await?;
        // A key change to copy: its record too (the first copy on a cluster would otherwise
        // create it, a second or more of schema changes at the start of its copy).
        let copy = plan.copies.iter().find(|c| c.source_exists);
        if let Some((keyspace, _)) = copy.and_then(|c| c.target.split_once('.')) {
            create_record(db, keyspace).await?;
        }
        Ok(report)
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
