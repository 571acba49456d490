//! CQL DDL text for keyspaces, user-defined types and tables.
//!
//! Pure functions of a schema description: unit-tested without a database, and the same
//! text is what `Db::create_table` sends and migrations plan. Users see it through
//! [`TableSchema::create_cql`] and the migrator; the functions are the crate's own.

use std::borrow::Cow;
use std::fmt::Write;

use cassmodel_schema::quote_ident;

use super::model::{ColumnDef, ColumnKind, IndexDef, Order, TableSchema, UdtSchema};

/// How a keyspace is replicated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replication {
    /// `SimpleStrategy` with a replication factor: for tests and single-datacenter
    /// development only.
    Simple(u32),
    /// `NetworkTopologyStrategy`: a replication factor per datacenter, the production setting.
    NetworkTopology(Vec<(String, u32)>),
}

impl Replication {
    /// `NetworkTopologyStrategy` with the given datacenters.
    ///
    /// ```
    /// use cassmodel_runtime::Replication;
    /// let r = Replication::network_topology([("datacenter1", 3)]);
    /// assert_eq!(
    ///     r.to_cql(),
    ///     "{'class': 'NetworkTopologyStrategy', 'datacenter1': 3}"
    /// );
    /// ```
    pub fn network_topology<S: Into<String>>(dcs: impl IntoIterator<Item = (S, u32)>) -> Self {
        Replication::NetworkTopology(dcs.into_iter().map(|(d, n)| (d.into(), n)).collect())
    }

    /// The replication map in CQL.
    pub fn to_cql(&self) -> String {
        match self {
            Replication::Simple(rf) => {
                format!("{{'class': 'SimpleStrategy', 'replication_factor': {rf}}}")
            }
            Replication::NetworkTopology(dcs) => {
                let mut s = String::from("{'class': 'NetworkTopologyStrategy'");
                for (dc, rf) in dcs {
                    let _ = write!(s, ", {}: {rf}", string_literal(dc));
                }
                s.push('}');
                s
            }
        }
    }
}

/// A CQL string literal: single-quoted, inner quotes doubled.
pub(crate) fn string_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `ks.name`, each part quoted when needed.
pub(crate) fn qualified(keyspace: &str, name: &str) -> String {
    format!("{}.{}", quote_ident(keyspace), quote_ident(name))
}

/// `CREATE KEYSPACE IF NOT EXISTS ...`
pub(crate) fn create_keyspace(name: &str, replication: &Replication) -> String {
    format!(
        "CREATE KEYSPACE IF NOT EXISTS {} WITH replication = {}",
        quote_ident(name),
        replication.to_cql()
    )
}

/// `CREATE TYPE IF NOT EXISTS ks.name (field type, ...)`
pub(crate) fn create_type(udt: &UdtSchema, keyspace: &str) -> String {
    let fields: Vec<String> = udt
        .fields
        .iter()
        .map(|f| definition(f.name, &f.cql_type, false))
        .collect();
    format!(
        "CREATE TYPE IF NOT EXISTS {} ({})",
        qualified(keyspace, udt.name),
        fields.join(", ")
    )
}

/// The `PRIMARY KEY (...)` clause: `((a, b), c, d)` for a composite partition key.
pub(crate) fn primary_key_clause(t: &TableSchema) -> String {
    let name = |&i: &usize| t.columns[i].name;
    key_clause(
        t.partition_key.iter().map(name),
        t.clustering.iter().map(name),
    )
}

/// `PRIMARY KEY (...)` from the partition-key and clustering column names, in key order
/// (for a model's table and for a live one alike).
pub(crate) fn key_clause<'a>(
    partition: impl IntoIterator<Item = &'a str>,
    clustering: impl IntoIterator<Item = &'a str>,
) -> String {
    let pk: Vec<String> = partition
        .into_iter()
        .map(|n| quote_ident(n).into_owned())
        .collect();
    let partition = if pk.len() == 1 {
        pk[0].clone()
    } else {
        format!("({})", pk.join(", "))
    };
    let mut parts = vec![partition];
    parts.extend(clustering.into_iter().map(|n| quote_ident(n).into_owned()));
    format!("PRIMARY KEY ({})", parts.join(", "))
}

/// `CLUSTERING ORDER BY (c ASC, d DESC)`, in key order.
pub(crate) fn clustering_order(t: &TableSchema) -> String {
    order_clause(
        t.clustering
            .iter()
            .map(|&i| (t.columns[i].name, t.order_of(i).unwrap_or(Order::Asc))),
    )
}

/// `CLUSTERING ORDER BY (...)` from `(column, order)` pairs in key order.
pub(crate) fn order_clause<'a>(columns: impl IntoIterator<Item = (&'a str, Order)>) -> String {
    let cols: Vec<String> = columns
        .into_iter()
        .map(|(n, o)| format!("{} {}", quote_ident(n), o.cql()))
        .collect();
    format!("CLUSTERING ORDER BY ({})", cols.join(", "))
}

/// `name type [STATIC] [MASKED WITH f(..)]`: a column as CREATE TABLE and ALTER TABLE ADD
/// write it.
pub(crate) fn column_definition(c: &ColumnDef) -> String {
    let mut s = definition(c.name, &c.cql_type, c.kind == ColumnKind::Static);
    if let Some(mask) = c.mask {
        s.push_str(" MASKED WITH ");
        s.push_str(mask);
    }
    s
}

/// `name type [STATIC]` from its parts: a column (model or live) or a UDT field.
pub(crate) fn definition(name: &str, cql_type: impl std::fmt::Display, is_static: bool) -> String {
    let stat = if is_static { " STATIC" } else { "" };
    format!("{} {cql_type}{stat}", quote_ident(name))
}

/// The `WITH ...` options of a table (clustering order first), or an empty string.
pub(crate) fn table_options(t: &TableSchema) -> String {
    let mut opts = Vec::new();
    if !t.clustering.is_empty() {
        opts.push(clustering_order(t));
    }
    let o = &t.options;
    if let Some(ttl) = o.default_ttl {
        opts.push(format!("default_time_to_live = {ttl}"));
    }
    if let Some(g) = o.gc_grace_seconds {
        opts.push(format!("gc_grace_seconds = {g}"));
    }
    if let Some(c) = o.comment {
        opts.push(format!("comment = {}", string_literal(c)));
    }
    if let Some(c) = o.compaction {
        opts.push(format!("compaction = {{'class': {}}}", string_literal(c)));
    }
    if opts.is_empty() {
        String::new()
    } else {
        format!(" WITH {}", opts.join(" AND "))
    }
}

/// `CREATE TABLE IF NOT EXISTS ks.table (...) PRIMARY KEY (...)) WITH ...`
pub(crate) fn create_table(t: &TableSchema, keyspace: &str) -> String {
    let mut cols: Vec<String> = t.columns.iter().map(column_definition).collect();
    cols.push(primary_key_clause(t));
    format!(
        "CREATE TABLE IF NOT EXISTS {} ({}){}",
        qualified(keyspace, t.name),
        cols.join(", "),
        table_options(t)
    )
}

/// The table view `t` is of (its `view_of`; without one, itself).
pub(crate) fn view_base(t: &TableSchema) -> &'static str {
    t.view_of.map_or(t.name, |b| b.name)
}

/// `ks.view AS SELECT <select> FROM ks.base WHERE <where_clause> PRIMARY KEY (..) [WITH
/// CLUSTERING ORDER BY (..)]`: a view as `CREATE MATERIALIZED VIEW` defines it, from its
/// parts (a model's or a live one's).
pub(crate) fn view_definition(
    keyspace: &str,
    view: &str,
    select: &str,
    base: &str,
    where_clause: &str,
    key: &str,
    order: Option<String>,
) -> String {
    let order = order.map(|o| format!(" WITH {o}")).unwrap_or_default();
    format!(
        "{} AS SELECT {select} FROM {} WHERE {where_clause} {key}{order}",
        qualified(keyspace, view),
        qualified(keyspace, base),
    )
}

/// The definition of view `t` in `keyspace`: its columns (`*` for a view of every column),
/// every row of its base whose key columns are not null, its key and clustering order.
pub(crate) fn model_view_definition(t: &TableSchema, keyspace: &str) -> String {
    let select: Vec<_> = if t.view_selects_all {
        vec![Cow::Borrowed("*")]
    } else {
        t.columns.iter().map(|c| quote_ident(c.name)).collect()
    };
    let not_null: Vec<String> = t
        .primary_key()
        .iter()
        .map(|&i| format!("{} IS NOT NULL", quote_ident(t.columns[i].name)))
        .collect();
    view_definition(
        keyspace,
        t.name,
        &select.join(", "),
        view_base(t),
        &not_null.join(" AND "),
        &primary_key_clause(t),
        (!t.clustering.is_empty()).then(|| clustering_order(t)),
    )
}

/// `CREATE MATERIALIZED VIEW IF NOT EXISTS ks.view AS SELECT .. FROM ks.base WHERE k IS NOT
/// NULL AND .. PRIMARY KEY (..) WITH CLUSTERING ORDER BY (..)` for view `t` in `keyspace`.
pub(crate) fn create_view(t: &TableSchema, keyspace: &str) -> String {
    format!(
        "CREATE MATERIALIZED VIEW IF NOT EXISTS {}",
        model_view_definition(t, keyspace)
    )
}

/// `DROP MATERIALIZED VIEW IF EXISTS ks.view`
#[cfg(feature = "migrate")]
pub(crate) fn drop_view(keyspace: &str, view: &str) -> String {
    format!(
        "DROP MATERIALIZED VIEW IF EXISTS {}",
        qualified(keyspace, view)
    )
}

/// The class name of storage-attached indexes in `CREATE INDEX ... USING`, as
/// `system_schema.indexes` stores it in `options['class_name']`.
pub(crate) const SAI_CLASS: &str = "sai";

/// `CREATE INDEX IF NOT EXISTS name ON ks.table (target) USING 'sai'` for the index on
/// `column` of `t`.
pub(crate) fn create_index(
    t: &TableSchema,
    column: &ColumnDef,
    index: &IndexDef,
    keyspace: &str,
) -> String {
    format!(
        "CREATE INDEX IF NOT EXISTS {}",
        index_definition(t, column, index, keyspace)
    )
}

/// `name ON ks.table (target) USING 'sai'`: an index as `CREATE INDEX` defines it, with
/// ` WITH OPTIONS = {'similarity_function': '..'}` for a vector index that names one.
pub(crate) fn index_definition(
    t: &TableSchema,
    column: &ColumnDef,
    index: &IndexDef,
    keyspace: &str,
) -> String {
    let mut s = format!(
        "{} ON {} ({}) USING {}",
        quote_ident(index.name),
        qualified(keyspace, t.name),
        index.target.cql(column.name),
        string_literal(SAI_CLASS)
    );
    if let Some(f) = index.similarity {
        let _ = write!(
            s,
            " WITH OPTIONS = {{{}: {}}}",
            string_literal(SIMILARITY_OPTION),
            string_literal(f.name())
        );
    }
    s
}

/// The option of a vector index that names its similarity function, as `CREATE INDEX`
/// takes it and `system_schema.indexes` stores it.
pub(crate) const SIMILARITY_OPTION: &str = "similarity_function";

/// The `CREATE INDEX` statements of every index of `t`, in field order.
pub(crate) fn create_indexes(t: &TableSchema, keyspace: &str) -> Vec<String> {
    t.indexes()
        .map(|(c, i)| create_index(t, c, i, keyspace))
        .collect()
}

/// Every statement that creates the table in `keyspace`: its user-defined types
/// (dependencies first), then the table, then its indexes.
pub(crate) fn create_table_with_types(t: &TableSchema, keyspace: &str) -> Vec<String> {
    if t.view_of.is_some() {
        return vec![create_view(t, keyspace)];
    }
    let mut out: Vec<String> = t.udts().iter().map(|u| create_type(u, keyspace)).collect();
    out.push(create_table(t, keyspace));
    out.extend(create_indexes(t, keyspace));
    out
}

impl TableSchema {
    /// The statements that create this table in `keyspace`, each `IF NOT EXISTS`: its
    /// user-defined types (dependencies first), the table, then its indexes. The same text
    /// [`Db::create_table`](crate::Db::create_table) runs; the migrator
    /// ([`Migrator::schema_cql`](crate::migrate::Migrator::schema_cql)) gives a whole
    /// schema's.
    ///
    /// ```
    /// use cassmodel_runtime::{ColumnDef, ColumnKind, IndexTarget, TableOptions, TableSchema};
    /// let t = TableSchema::new("T", "customers", None, TableOptions::default(), vec![
    ///     ColumnDef::new::<i32>("id", "id", ColumnKind::PartitionKey, None, false),
    ///     ColumnDef::new::<Vec<String>>("tags", "tags", ColumnKind::Regular, None, false)
    ///         .with_index("customers_tags_idx", None),
    /// ]);
    /// assert_eq!(
    ///     t.create_cql("shop"),
    ///     [
    ///         "CREATE TABLE IF NOT EXISTS shop.customers (id int, tags list<text>, PRIMARY KEY (id))",
    ///         "CREATE INDEX IF NOT EXISTS customers_tags_idx ON shop.customers (values(tags)) USING 'sai'",
    ///     ]
    /// );
    /// ```
    pub fn create_cql(&self, keyspace: &str) -> Vec<String> {
        create_table_with_types(self, keyspace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::model::TableOptions;
    use cassmodel_schema::CqlType;

    /// A column of CQL type `cql` (the Rust side of a column is the mapping layer's: not
    /// needed for DDL text).
    fn col(name: &'static str, cql: &str, kind: ColumnKind) -> ColumnDef {
        let cql_type: CqlType = cql.parse().expect("a CQL type");
        ColumnDef::from_parts(name, name, cql_type, kind, false, "T", Vec::new(), |_| {
            Ok(())
        })
    }

    #[test]
    fn posts_table() {
        let t = TableSchema::new(
            "Post",
            "posts_facebook",
            None,
            TableOptions::default(),
            vec![
                col("user_id", "uuid", ColumnKind::PartitionKey),
                col("post_id", "timeuuid", ColumnKind::Clustering(Order::Desc)),
                col("content", "text", ColumnKind::Regular),
            ],
        );
        assert_eq!(
            create_table(&t, "ks"),
            "CREATE TABLE IF NOT EXISTS ks.posts_facebook (user_id uuid, post_id timeuuid, \
             content text, PRIMARY KEY (user_id, post_id)) WITH CLUSTERING ORDER BY (post_id DESC)"
        );
    }

    #[test]
    fn composite_key_static_options_and_quoting() {
        let t = TableSchema::new(
            "T",
            "Orders",
            Some("shop"),
            TableOptions {
                default_ttl: Some(60),
                comment: Some("it's"),
                compaction: Some("LeveledCompactionStrategy"),
                gc_grace_seconds: None,
            },
            vec![
                col("a", "text", ColumnKind::PartitionKey),
                col("order", "int", ColumnKind::PartitionKey),
                col("c", "int", ColumnKind::Clustering(Order::Asc)),
                col("d", "int", ColumnKind::Clustering(Order::Desc)),
                col("s", "text", ColumnKind::Static),
                col("v", "ascii", ColumnKind::Regular),
            ],
        );
        assert_eq!(
            create_table(&t, "shop"),
            "CREATE TABLE IF NOT EXISTS shop.\"Orders\" (a text, \"order\" int, c int, d int, \
             s text STATIC, v ascii, PRIMARY KEY ((a, \"order\"), c, d)) WITH CLUSTERING ORDER \
             BY (c ASC, d DESC) AND default_time_to_live = 60 AND comment = 'it''s' AND \
             compaction = {'class': 'LeveledCompactionStrategy'}"
        );
    }

    #[test]
    fn indexes_quote_names_and_targets() {
        use cassmodel_schema::IndexTarget;
        let t = TableSchema::new(
            "T",
            "Orders",
            None,
            TableOptions::default(),
            vec![
                col("id", "int", ColumnKind::PartitionKey),
                col("select", "text", ColumnKind::Regular).with_index("by_select", None),
                col("m", "map<text, int>", ColumnKind::Regular)
                    .with_index("ByKey", Some(IndexTarget::Keys)),
                col("l", "list<int>", ColumnKind::Regular)
                    .with_index("l_idx", Some(IndexTarget::Column)),
                col("plain", "int", ColumnKind::Regular),
            ],
        );
        assert_eq!(
            create_indexes(&t, "ks"),
            [
                "CREATE INDEX IF NOT EXISTS by_select ON ks.\"Orders\" (\"select\") USING 'sai'",
                "CREATE INDEX IF NOT EXISTS \"ByKey\" ON ks.\"Orders\" (keys(m)) USING 'sai'",
                "CREATE INDEX IF NOT EXISTS l_idx ON ks.\"Orders\" (values(l)) USING 'sai'",
            ]
        );
        let all = create_table_with_types(&t, "ks");
        assert_eq!(all.len(), 4);
        assert!(all[0].starts_with("CREATE TABLE"));
        assert_eq!(t.indexes().count(), 3);
        let (c, i) = t.indexes().next().expect("an index");
        assert_eq!(t.index_problem(c, i), None);
    }

    #[test]
    fn index_problems_in_the_servers_words() {
        use cassmodel_schema::IndexTarget;
        let t = TableSchema::new(
            "T",
            "t",
            None,
            TableOptions::default(),
            vec![
                col("k", "int", ColumnKind::PartitionKey).with_index("k_idx", None),
                col("l", "list<int>", ColumnKind::Regular)
                    .with_index("l_idx", Some(IndexTarget::Keys)),
            ],
        );
        let problems: Vec<Option<String>> =
            t.indexes().map(|(c, i)| t.index_problem(c, i)).collect();
        assert_eq!(
            problems,
            [
                Some("Cannot create secondary index on the only partition key column k".into()),
                Some("Cannot create index on keys of column l with non-map type".into()),
            ]
        );
        let counters = TableSchema::new(
            "C",
            "c",
            None,
            TableOptions::default(),
            vec![
                col("k", "int", ColumnKind::PartitionKey),
                col("c", "int", ColumnKind::Clustering(Order::Asc)).with_index("c_idx", None),
                col("n", "counter", ColumnKind::Regular),
            ],
        );
        let (c, i) = counters.indexes().next().expect("an index");
        assert_eq!(
            counters.index_problem(c, i).as_deref(),
            Some("Secondary indexes on counter tables aren't supported")
        );
    }

    #[test]
    fn an_index_of_a_list_indexes_its_values() {
        use cassmodel_schema::IndexTarget;
        let t = TableSchema::new(
            "T",
            "customers",
            None,
            TableOptions::default(),
            vec![
                col("id", "int", ColumnKind::PartitionKey),
                col("tags", "list<text>", ColumnKind::Regular)
                    .with_index("customers_tags_idx", None),
            ],
        );
        let (column, index) = t.indexes().next().expect("an index");
        assert_eq!(index.target, IndexTarget::Values);
        assert_eq!(
            create_index(&t, column, index, "shop"),
            "CREATE INDEX IF NOT EXISTS customers_tags_idx ON shop.customers (values(tags)) USING 'sai'"
        );
    }

    #[test]
    fn keyspaces() {
        assert_eq!(
            create_keyspace("ks", &Replication::Simple(1)),
            "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = \
             {'class': 'SimpleStrategy', 'replication_factor': 1}"
        );
        assert_eq!(
            create_keyspace(
                "select",
                &Replication::network_topology([("dc'1", 3), ("dc2", 1)])
            ),
            "CREATE KEYSPACE IF NOT EXISTS \"select\" WITH replication = \
             {'class': 'NetworkTopologyStrategy', 'dc''1': 3, 'dc2': 1}"
        );
    }
}
