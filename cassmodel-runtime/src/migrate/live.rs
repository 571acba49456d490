//! The live schema, read from `system_schema` directly: the driver's metadata has neither the
//! clustering order nor the indexes nor the dropped columns.
//!
//! Tables read, per keyspace (their partition key is `keyspace_name`): `keyspaces`, `tables`,
//! `columns`, `types`, `indexes`, `dropped_columns`. Type text is parsed into a
//! [`CqlType`], so `frozen<tuple<...>>`, `varchar`, case and spaces compare equal to the
//! model's type ([`CqlType::canonical`]).

use std::collections::BTreeMap;

use cassmodel_schema::CqlType;
use futures::TryStreamExt;
use scylla::client::session::Session;
use scylla::deserialize::row::DeserializeRow;

use super::MigrationError;
use crate::schema::{ColumnKind, Order};

/// The schema of some keyspaces of a cluster.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LiveSchema {
    /// Keyspaces that exist, by name.
    pub keyspaces: BTreeMap<String, LiveKeyspace>,
}

/// One keyspace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveKeyspace {
    /// Its name.
    pub name: String,
    /// Its replication map (`class` and the factors), as stored.
    pub replication: BTreeMap<String, String>,
    /// Tables by name (materialized views are not included).
    pub tables: BTreeMap<String, LiveTable>,
    /// User-defined types by name.
    pub types: BTreeMap<String, LiveType>,
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
            .get(crate::ddl::SIMILARITY_OPTION)
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
#[derive(Debug, Clone, PartialEq)]
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

/// Runs `cql` with `keyspace` bound and collects every row (paged).
async fn rows<R>(session: &Session, cql: &str, keyspace: &str) -> Result<Vec<R>, MigrationError>
where
    R: for<'f, 'm> DeserializeRow<'f, 'm>,
{
    let err = |e: &dyn std::fmt::Display| MigrationError::LiveSchema(format!("`{cql}`: {e}"));
    session
        .query_iter(cql, (keyspace,))
        .await
        .map_err(|e| err(&e))?
        .rows_stream::<R>()
        .map_err(|e| err(&e))?
        .try_collect::<Vec<R>>()
        .await
        .map_err(|e| err(&e))
}

fn parse_type(keyspace: &str, what: &str, text: &str) -> Result<CqlType, MigrationError> {
    text.parse::<CqlType>().map_err(|e| {
        MigrationError::LiveSchema(format!(
            "{keyspace}: {what} has the type `{text}`, which cassmodel cannot read: {e}"
        ))
    })
}

fn kind_of(kind: &str, order: &str) -> Option<ColumnKind> {
    Some(match (kind, order) {
        ("partition_key", _) => ColumnKind::PartitionKey,
        ("clustering", "desc") => ColumnKind::Clustering(Order::Desc),
        ("clustering", _) => ColumnKind::Clustering(Order::Asc),
        ("static", _) => ColumnKind::Static,
        ("regular", _) => ColumnKind::Regular,
        _ => return None,
    })
}

type Map = BTreeMap<String, String>;

impl LiveSchema {
    /// Reads `keyspaces` (those that exist) from `system_schema`.
    pub async fn read(session: &Session, keyspaces: &[&str]) -> Result<Self, MigrationError> {
        let mut out = LiveSchema::default();
        for &ks in keyspaces {
            if let Some(k) = read_keyspace(session, ks).await? {
                out.keyspaces.insert(ks.to_owned(), k);
            }
        }
        Ok(out)
    }

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

    /// The type `keyspace.name`, if it exists.
    pub fn udt(&self, keyspace: &str, name: &str) -> Option<&LiveType> {
        self.keyspaces.get(keyspace)?.types.get(name)
    }
}

async fn read_keyspace(
    session: &Session,
    ks: &str,
) -> Result<Option<LiveKeyspace>, MigrationError> {
    let found: Vec<(String, Option<Map>)> = rows(
        session,
        "SELECT keyspace_name, replication FROM system_schema.keyspaces WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    let Some((_, replication)) = found.into_iter().next() else {
        return Ok(None);
    };
    let mut k = LiveKeyspace {
        name: ks.to_owned(),
        replication: replication.unwrap_or_default(),
        ..LiveKeyspace::default()
    };

    type TableRow = (
        String,
        Option<String>,
        Option<Map>,
        Option<i32>,
        Option<i32>,
    );
    let tables: Vec<TableRow> = rows(
        session,
        "SELECT table_name, comment, compaction, default_time_to_live, gc_grace_seconds \
         FROM system_schema.tables WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (name, comment, compaction, ttl, gc) in tables {
        let options = LiveOptions {
            default_ttl: ttl.unwrap_or(0),
            gc_grace_seconds: gc.unwrap_or(0),
            comment: comment.unwrap_or_default(),
            compaction_class: compaction
                .and_then(|mut c| c.remove("class"))
                .unwrap_or_default(),
        };
        k.tables.insert(
            name.clone(),
            LiveTable {
                name,
                options,
                ..LiveTable::default()
            },
        );
    }

    type ColumnRow = (
        String,
        String,
        Option<String>,
        Option<String>,
        Option<i32>,
        String,
    );
    let columns: Vec<ColumnRow> = rows(
        session,
        "SELECT table_name, column_name, clustering_order, kind, position, type \
         FROM system_schema.columns WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (table, name, order, kind, position, type_text) in columns {
        // Columns of materialized views are in this table too; their views are not tables.
        let Some(t) = k.tables.get_mut(&table) else {
            continue;
        };
        let kind_text = kind.unwrap_or_default();
        let Some(kind) = kind_of(&kind_text, order.as_deref().unwrap_or("none")) else {
            return Err(MigrationError::LiveSchema(format!(
                "{ks}.{table}.{name}: unknown column kind `{kind_text}`"
            )));
        };
        let cql_type = parse_type(ks, &format!("column {table}.{name}"), &type_text)?;
        t.columns.push(LiveColumn {
            name,
            kind,
            position: position.unwrap_or(-1),
            cql_type,
            type_text,
        });
    }
    for t in k.tables.values_mut() {
        t.columns.sort_by(|a, b| {
            let rank = |c: &LiveColumn| match c.kind {
                ColumnKind::PartitionKey => 0,
                ColumnKind::Clustering(_) => 1,
                ColumnKind::Static | ColumnKind::Regular => 2,
            };
            (rank(a), a.position, &a.name).cmp(&(rank(b), b.position, &b.name))
        });
    }

    type TypeRow = (String, Option<Vec<String>>, Option<Vec<String>>);
    let types: Vec<TypeRow> = rows(
        session,
        "SELECT type_name, field_names, field_types FROM system_schema.types \
         WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (name, names, types) in types {
        let mut fields = Vec::new();
        for (f, text) in names
            .unwrap_or_default()
            .into_iter()
            .zip(types.unwrap_or_default())
        {
            let t = parse_type(ks, &format!("field {name}.{f}"), &text)?;
            fields.push((f, t, text));
        }
        k.types.insert(name.clone(), LiveType { name, fields });
    }

    let indexes: Vec<(String, String, Option<String>, Option<Map>)> = rows(
        session,
        "SELECT table_name, index_name, kind, options FROM system_schema.indexes \
         WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (table, name, kind, options) in indexes {
        if let Some(t) = k.tables.get_mut(&table) {
            t.indexes.push(LiveIndex {
                name,
                kind: kind.unwrap_or_default(),
                options: options.unwrap_or_default(),
            });
        }
    }

    let dropped: Vec<(String, String, Option<String>, Option<String>)> = rows(
        session,
        "SELECT table_name, column_name, kind, type FROM system_schema.dropped_columns \
         WHERE keyspace_name = ?",
        ks,
    )
    .await?;
    for (table, name, kind, type_text) in dropped {
        if let Some(t) = k.tables.get_mut(&table) {
            t.dropped.push(DroppedColumn {
                name,
                type_text: type_text.unwrap_or_default(),
                kind: kind.unwrap_or_default(),
            });
        }
    }
    Ok(Some(k))
}

/// The last part of a Java class name: `LeveledCompactionStrategy` for both
/// `LeveledCompactionStrategy` and `org.apache.cassandra.db.compaction.LeveledCompactionStrategy`.
pub(crate) fn class_short_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}
