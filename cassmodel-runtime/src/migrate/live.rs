//! The live schema: what the cluster has of the keyspaces the models use, as read from
//! `system_schema` (`read.rs`). Types are parsed into a [`CqlType`], so `frozen<tuple<...>>`,
//! `varchar`, case and spaces compare equal to the model's type ([`CqlType::canonical`]).

use std::collections::{BTreeMap, BTreeSet};

use cassmodel_schema::{CqlType, Mask};

use crate::schema::ddl::SIMILARITY_OPTION;
use crate::schema::model::ColumnKind;

/// The schema of some keyspaces of a cluster.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LiveSchema {
    /// Keyspaces that exist, by name.
    pub keyspaces: BTreeMap<String, LiveKeyspace>,
    /// Whether the cluster runs user-defined functions (`user_defined_functions_enabled` in
    /// `cassandra.yaml`, as `system_views.settings` of the node read says); `None` when
    /// unknown.
    pub functions_enabled: Option<bool>,
}

/// One keyspace.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LiveKeyspace {
    /// Its name.
    pub name: String,
    /// Its replication map (`class` and the factors), as stored.
    pub replication: BTreeMap<String, String>,
    /// Tables by name (materialized views are not included).
    pub tables: BTreeMap<String, LiveTable>,
    /// User-defined types by name.
    pub types: BTreeMap<String, LiveType>,
    /// Materialized views by name (`system_schema.views`).
    pub views: BTreeMap<String, LiveView>,
    /// User-defined functions, by name and argument types.
    pub functions: Vec<LiveFunction>,
    /// User-defined aggregates, by name and argument types.
    pub aggregates: Vec<LiveAggregate>,
}

/// A user-defined function (`system_schema.functions`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LiveFunction {
    /// Its name.
    pub name: String,
    /// Its parameters: name, type, type text as stored.
    pub params: Vec<(String, CqlType, String)>,
    /// What it returns, and the type text as stored.
    pub returns: (CqlType, String),
    /// Its language (`java`).
    pub language: String,
    /// Its body.
    pub body: String,
    /// `CALLED ON NULL INPUT`.
    pub called_on_null_input: bool,
}

/// A user-defined aggregate (`system_schema.aggregates`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LiveAggregate {
    /// Its name.
    pub name: String,
    /// The types of its arguments, and their texts as stored.
    pub params: Vec<(CqlType, String)>,
    /// Its state function's name.
    pub state_function: String,
    /// Its state's type, and the text as stored.
    pub state_type: (CqlType, String),
    /// Its final function's name, if one.
    pub final_function: Option<String>,
    /// Its initial state, as the server writes it back (`(0, 0)`), if one.
    pub initial: Option<String>,
}

/// Whether two lists of types are the same signature.
pub(crate) fn same_types<'a>(
    a: impl IntoIterator<Item = &'a CqlType>,
    b: impl IntoIterator<Item = &'a CqlType>,
) -> bool {
    let a: Vec<CqlType> = a.into_iter().map(CqlType::canonical).collect();
    let b: Vec<CqlType> = b.into_iter().map(CqlType::canonical).collect();
    a == b
}

/// A materialized view of a table.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LiveView {
    /// Its name.
    pub name: String,
    /// The table it is a view of.
    pub base_table: String,
    /// Its `WHERE` clause as stored (`a IS NOT NULL AND b IS NOT NULL`).
    pub where_clause: String,
    /// Whether it was created with `SELECT *` (it then gets the columns added to its base).
    pub include_all_columns: bool,
    /// Its columns, key and clustering order, as a table's (`system_schema.columns` holds a
    /// view's columns as a table's); its `name` is the view's.
    pub table: LiveTable,
}

impl LiveView {
    /// Whether it selects every row of its base whose key columns are not null, and no
    /// fewer: its `WHERE` clause is `k IS NOT NULL` for each of its key columns (in any
    /// order, case and quoting), as cassmodel creates views.
    pub fn selects_rows_by_key_only(&self) -> bool {
        let normalized = |c: &str| -> String {
            c.chars()
                .filter(|ch| *ch != '"' && !ch.is_whitespace())
                .collect()
        };
        let keys: BTreeSet<String> = self
            .table
            .partition_key()
            .chain(self.table.clustering())
            .map(|c| normalized(&format!("{} is not null", c.name.to_lowercase())))
            .collect();
        let lower = self.where_clause.to_lowercase();
        let conditions: BTreeSet<String> = lower
            .split(" and ")
            .map(normalized)
            .filter(|c| !c.is_empty())
            .collect();
        conditions == keys
    }
}

/// One table.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LiveTable {
    /// Its name.
    pub name: String,
    /// Partition-key columns by position, then clustering columns by position, then the
    /// static and regular columns by name.
    pub columns: Vec<LiveColumn>,
    /// The options cassmodel manages.
    pub options: LiveOptions,
    /// Secondary indexes (2i, SAI, custom).
    pub indexes: Vec<LiveIndex>,
    /// Columns dropped from the table (they cannot come back with another type).
    pub dropped: Vec<DroppedColumn>,
    /// Whether it is a `COMPACT STORAGE` table (Thrift-era storage, whose `flags` in
    /// `system_schema.tables` lack `compound` or have `dense` or `super`): Cassandra 4.0
    /// and later refuse to create one, and cassmodel does not model one.
    pub compact_storage: bool,
}

impl LiveTable {
    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&LiveColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The partition-key columns, in key order.
    pub fn partition_key(&self) -> impl Iterator<Item = &LiveColumn> {
        self.columns
            .iter()
            .filter(|c| c.kind == ColumnKind::PartitionKey)
    }

    /// The clustering columns, in key order.
    pub fn clustering(&self) -> impl Iterator<Item = &LiveColumn> {
        self.columns
            .iter()
            .filter(|c| matches!(c.kind, ColumnKind::Clustering(_)))
    }
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LiveColumn {
    /// Its name.
    pub name: String,
    /// Its role, with the clustering order.
    pub kind: ColumnKind,
    /// Its position in the partition key or among the clustering columns (`-1` otherwise).
    pub position: i32,
    /// Its type.
    pub cql_type: CqlType,
    /// The type text as `system_schema` has it.
    pub type_text: String,
    /// Its mask (`system_schema.column_masks`, Cassandra 5.0).
    pub mask: Option<Mask>,
}

/// The table options cassmodel manages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LiveOptions {
    /// `default_time_to_live`.
    pub default_ttl: i32,
    /// `gc_grace_seconds`.
    pub gc_grace_seconds: i32,
    /// `comment`.
    pub comment: String,
    /// The compaction class, as stored (e.g.
    /// `org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy`).
    pub compaction_class: String,
}

/// A secondary index.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LiveIndex {
    /// Its name.
    pub name: String,
    /// `COMPOSITES`, `KEYS` or `CUSTOM` (SAI is `CUSTOM` with `class_name` `sai` or
    /// `StorageAttachedIndex`).
    pub kind: String,
    /// Its options (`target`, `class_name`, ...).
    pub options: BTreeMap<String, String>,
}

impl LiveIndex {
    /// What it indexes, as stored in its `target` option (`email`, `values(tags)`,
    /// `keys(m)`, `entries(m)`, `full(f)`, with the column quoted like CQL quotes it).
    pub fn target(&self) -> &str {
        self.options.get("target").map_or("", String::as_str)
    }

    /// The similarity function of a vector index, if its options name one Cassandra knows.
    pub fn similarity(&self) -> Option<cassmodel_schema::Similarity> {
        self.options
            .get(SIMILARITY_OPTION)
            .and_then(|f| cassmodel_schema::Similarity::from_name(f))
    }

    /// Its class: the `class_name` option of a custom index (`sai` for `USING 'sai'`), or
    /// the kind (`COMPOSITES`, `KEYS`) of a built-in secondary index.
    pub fn class(&self) -> &str {
        self.options.get("class_name").unwrap_or(&self.kind)
    }

    /// Whether it is a storage-attached index (SAI): its class is `sai`,
    /// `StorageAttachedIndex` or `org.apache.cassandra.index.sai.StorageAttachedIndex`, as
    /// `USING` may name it.
    pub fn is_sai(&self) -> bool {
        let short = class_short_name(self.class());
        self.kind == "CUSTOM"
            && (short.eq_ignore_ascii_case("sai")
                || short.eq_ignore_ascii_case("StorageAttachedIndex"))
    }
}

/// A column dropped from a table.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DroppedColumn {
    /// Its name.
    pub name: String,
    /// Its type when it was dropped (user-defined types are stored as tuples).
    pub type_text: String,
    /// `regular` or `static`.
    pub kind: String,
}

/// One user-defined type.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LiveType {
    /// Its name.
    pub name: String,
    /// Its fields in order: name, type, type text as stored.
    pub fields: Vec<(String, CqlType, String)>,
}

impl LiveType {
    /// The field named `name`: its type and its type text.
    pub fn field(&self, name: &str) -> Option<(&CqlType, &str)> {
        self.fields
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, t, s)| (t, s.as_str()))
    }
}

impl LiveSchema {
    /// The table `keyspace.table`, if it exists.
    pub fn table(&self, keyspace: &str, table: &str) -> Option<&LiveTable> {
        self.keyspaces.get(keyspace)?.tables.get(table)
    }

    /// The index named `name` in `keyspace` (index names are unique per keyspace), with its
    /// table.
    pub fn index(&self, keyspace: &str, name: &str) -> Option<(&LiveTable, &LiveIndex)> {
        self.keyspaces
            .get(keyspace)?
            .tables
            .values()
            .find_map(|t| t.indexes.iter().find(|i| i.name == name).map(|i| (t, i)))
    }

    /// The materialized view `keyspace.view`, if it exists.
    pub fn view(&self, keyspace: &str, view: &str) -> Option<&LiveView> {
        self.keyspaces.get(keyspace)?.views.get(view)
    }

    /// The function `keyspace.name` with parameters of `types`, if it exists.
    pub fn function<'a>(
        &self,
        keyspace: &str,
        name: &str,
        types: impl IntoIterator<Item = &'a CqlType>,
    ) -> Option<&LiveFunction> {
        let functions = &self.keyspaces.get(keyspace)?.functions;
        find_signature(functions, name, types, |f| {
            (&f.name, f.params.iter().map(|(_, t, _)| t).collect())
        })
    }

    /// The aggregate `keyspace.name` of arguments of `types`, if it exists.
    pub fn aggregate<'a>(
        &self,
        keyspace: &str,
        name: &str,
        types: impl IntoIterator<Item = &'a CqlType>,
    ) -> Option<&LiveAggregate> {
        let aggregates = &self.keyspaces.get(keyspace)?.aggregates;
        find_signature(aggregates, name, types, |a| {
            (&a.name, a.params.iter().map(|(t, _)| t).collect())
        })
    }

    /// The type `keyspace.name`, if it exists.
    pub fn udt(&self, keyspace: &str, name: &str) -> Option<&LiveType> {
        self.keyspaces.get(keyspace)?.types.get(name)
    }
}

/// The item of `items` named `name` whose parameters are of `types` (one name may have
/// several signatures); `signature` gives an item's name and parameter types.
fn find_signature<'i, 'a, I>(
    items: &'i [I],
    name: &str,
    types: impl IntoIterator<Item = &'a CqlType>,
    signature: impl Fn(&'i I) -> (&'i String, Vec<&'i CqlType>),
) -> Option<&'i I> {
    let types: Vec<&CqlType> = types.into_iter().collect();
    items.iter().find(|i| {
        let (n, params) = signature(i);
        n == name && same_types(params, types.iter().copied())
    })
}

/// The last part of a Java class name: `LeveledCompactionStrategy` for both
/// `LeveledCompactionStrategy` and `org.apache.cassandra.db.compaction.LeveledCompactionStrategy`.
pub(crate) fn class_short_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}
