//! What a plan is computed from besides the live schema: the models placed in their
//! keyspaces ([`Target`]) and the settings that are not in the models ([`Settings`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::schema::ddl::Replication;
use crate::schema::function::{AggregateSchema, FunctionSchema};
use crate::schema::model::{TableSchema, UdtSchema};

/// The models placed in their (resolved) keyspaces, sorted: what a plan is computed from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Target {
    /// (keyspace, table), sorted by keyspace and table name.
    pub tables: Vec<(String, &'static TableSchema)>,
    /// Per keyspace, the types to have there, dependencies first.
    pub udts: BTreeMap<String, Vec<&'static UdtSchema>>,
    /// Per keyspace, the user-defined functions and aggregates to have there.
    pub functions: BTreeMap<String, Placed>,
}

/// The user-defined functions and aggregates of one keyspace: the functions (those the
/// aggregates use too), then the aggregates, each sorted by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Placed {
    pub functions: Vec<&'static FunctionSchema>,
    pub aggregates: Vec<&'static AggregateSchema>,
}

impl Target {
    /// Every keyspace the models use, sorted.
    pub fn keyspaces(&self) -> BTreeSet<&str> {
        self.tables
            .iter()
            .map(|(k, _)| k.as_str())
            .chain(self.udts.keys().map(String::as_str))
            .chain(self.functions.keys().map(String::as_str))
            .collect()
    }
}

impl Target {
    /// What the models use that Cassandra 5.0 added, each with its table or type
    /// (`table `shop.docs`: the vector type of column `embedding` (vector<float, 3>)`).
    pub fn cassandra_5_features(&self) -> Vec<String> {
        let tables = self.tables.iter().flat_map(|(ks, t)| {
            t.columns
                .iter()
                .flat_map(|c| c.cassandra_5_features())
                .map(move |f| format!("table `{ks}.{}`: {f}", t.name))
        });
        let types = self.udts.iter().flat_map(|(ks, udts)| {
            udts.iter().flat_map(move |u| {
                u.fields
                    .iter()
                    .flat_map(|c| c.cassandra_5_features())
                    .map(move |f| format!("type `{ks}.{}`: {f}", u.name))
            })
        });
        tables.chain(types).collect()
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
    /// `(keyspace, table, column)` whose mask may be dropped (the column's values then read
    /// in clear by every role without `UNMASK`).
    pub allow_unmask: BTreeSet<(String, String, String)>,
    /// Whether the plan creates the materialized views the models declare.
    pub create_views: bool,
    /// `(keyspace, view)` that may be dropped (to be created again, or because no model
    /// declares it).
    pub drop_views: BTreeSet<(String, String)>,
    /// How long `apply` waits for a new index to be queryable on every node (`None`:
    /// two minutes, `INDEX_WAIT`).
    pub index_wait: Option<std::time::Duration>,
    /// Who hears of `apply`'s steps and index builds.
    pub on_progress: Option<crate::progress::OnProgress>,
}

impl Settings {
    pub fn replication_of(&self, keyspace: &str) -> Option<&Replication> {
        self.keyspace_replication
            .get(keyspace)
            .or(self.replication.as_ref())
    }
}
