//! The description of a table or user-defined type that the derive macros generate.
//!
//! Generated code builds one [`TableSchema`] (or [`UdtSchema`]) per type, once, and the rest
//! of the runtime (DDL, statements, row checks) works from it. A column and a type refer to
//! each other (a column's types, a type's fields), so both live here.

use cassmodel_schema::{
    CqlType, IndexTarget, IndexViolation, NativeType, Period, Similarity, Span,
};

use scylla::deserialize::TypeCheckError;
use scylla::frame::response::result::ColumnType;

/// A check of one field type against a result column's type.
pub type TypeCheckFn = fn(&ColumnType<'_>) -> Result<(), TypeCheckError>;

/// Clustering order of a clustering column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Ascending (the default).
    Asc,
    /// Descending.
    Desc,
}

impl Order {
    /// `ASC` or `DESC`.
    pub const fn cql(self) -> &'static str {
        match self {
            Order::Asc => "ASC",
            Order::Desc => "DESC",
        }
    }

    /// The opposite order.
    pub const fn reversed(self) -> Order {
        match self {
            Order::Asc => Order::Desc,
            Order::Desc => Order::Asc,
        }
    }
}

/// The role a column plays in its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// Part of the partition key (position = order among partition-key columns).
    PartitionKey,
    /// A clustering column with its order.
    Clustering(Order),
    /// A static column: one value per partition.
    Static,
    /// A regular column.
    Regular,
}

impl ColumnKind {
    /// Whether the column is part of the primary key.
    pub const fn is_key(self) -> bool {
        matches!(self, ColumnKind::PartitionKey | ColumnKind::Clustering(_))
    }
}

/// One column of a table, or one field of a user-defined type.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ColumnDef {
    /// The CQL name (unquoted).
    pub name: &'static str,
    /// The Rust field it is read into.
    pub field: &'static str,
    /// Its CQL type.
    pub cql_type: CqlType,
    /// Its role.
    pub kind: ColumnKind,
    /// Whether the Rust type can hold a null (`Option`).
    pub nullable: bool,
    /// The Rust type's name, for error messages.
    pub rust_type: &'static str,
    /// The secondary indexes on this column (`#[cass(index)]`), in declaration order: one at
    /// most on most columns; a map may have one each on its keys, values and entries.
    pub indexes: Vec<IndexDef>,
    /// The average size of its values in bytes, declared with `#[cass(avg_bytes = N)]` for
    /// the partition-size analysis ([`sizing`](crate::sizing)) of a type whose size varies.
    pub avg_bytes: Option<u32>,
    /// For a bucket column (`#[cass(bucket(..))]` on its source): the source and the rule.
    /// A bucket column has no field; it is written from its source and never read.
    pub bucket: Option<BucketDef>,
    /// Its mask (`#[cass(masked = mask_inner(2, 1))]`): the call after `MASKED WITH`, as
    /// [`cassmodel_schema::Mask`] writes it.
    pub mask: Option<&'static str>,
    udts: Vec<&'static UdtSchema>,
    /// Whether the field's Rust type can read a result column of a given type.
    pub(crate) type_check: TypeCheckFn,
    /// Whether the field declares its CQL type (`#[cass(cql_type = "..")]`): a field of a
    /// user-defined type then keeps it as written (see [`UdtSchema::new`]).
    pub(crate) declared_type: bool,
}

/// A storage-attached (SAI) secondary index on one column, declared with `#[cass(index)]`.
///
/// Created with `CREATE INDEX IF NOT EXISTS <name> ON <ks>.<table> (<target>) USING 'sai'`
/// ([`TableSchema::create_cql`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IndexDef {
    /// The index name (unquoted); unique in its keyspace.
    pub name: &'static str,
    /// What it indexes, resolved for the column's type (never `Column` on a non-frozen
    /// collection: see [`IndexTarget::resolve`]).
    pub target: IndexTarget,
    /// The similarity function of a vector index, if the model names one
    /// (`#[cass(index(similarity = "dot_product"))]`); Cassandra's default is cosine.
    pub similarity: Option<Similarity>,
}

impl ColumnDef {
    /// The similarity function of the column's vector index, if it is a vector column with
    /// one: its values must then pass the index's rules (listed on `cassmodel::value::Vector`),
    /// checked before they are sent.
    #[inline]
    pub fn vector_index(&self) -> Option<Similarity> {
        match (&self.cql_type, self.indexes.first()) {
            (CqlType::Vector(..), Some(index)) => Some(index.similarity_function()),
            _ => None,
        }
    }
}

impl ColumnDef {
    /// What this column uses that Cassandra 5.0 added, in words: the vector type, a
    /// storage-attached or vector index, a mask (dynamic data masking). Empty for a column
    /// any Cassandra 4.x takes.
    pub fn cassandra_5_features(&self) -> Vec<String> {
        let c = self.name;
        let mut out: Vec<String> = self.vector_type_feature().into_iter().collect();
        for index in &self.indexes {
            let kind = if self.vector_index().is_some() {
                "the vector index"
            } else {
                "the storage-attached index (SAI)"
            };
            out.push(format!("{kind} `{}` on column `{c}`", index.name));
        }
        if let Some(mask) = self.mask {
            out.push(format!(
                "the mask of column `{c}` (dynamic data masking, MASKED WITH {mask})"
            ));
        }
        out
    }

    /// `the vector type of column `c` (vector<float, 3>)` when the column's type holds a
    /// vector: no Cassandra before 5.0 has the table.
    pub fn vector_type_feature(&self) -> Option<String> {
        self.cql_type.references_vector().then(|| {
            format!(
                "the vector type of column `{}` ({})",
                self.name, self.cql_type
            )
        })
    }
}

impl IndexDef {
    /// An index named `name` on `target`.
    pub fn new(name: &'static str, target: IndexTarget) -> Self {
        IndexDef {
            name,
            target,
            similarity: None,
        }
    }

    /// The similarity function ANN queries on this index rank by: the declared one, else
    /// Cassandra's default, cosine.
    pub fn similarity_function(&self) -> Similarity {
        self.similarity.unwrap_or_default()
    }
}

impl TableOptions {
    /// No options: the cluster's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// `default_time_to_live` in seconds.
    pub fn with_default_ttl(mut self, seconds: u32) -> Self {
        self.default_ttl = Some(seconds);
        self
    }

    /// `comment`.
    pub fn with_comment(mut self, comment: &'static str) -> Self {
        self.comment = Some(comment);
        self
    }

    /// `compaction = {'class': ...}`.
    pub fn with_compaction(mut self, class: &'static str) -> Self {
        self.compaction = Some(class);
        self
    }

    /// `gc_grace_seconds`.
    pub fn with_gc_grace_seconds(mut self, seconds: u32) -> Self {
        self.gc_grace_seconds = Some(seconds);
        self
    }
}

impl ColumnDef {
    /// The description from its parts (`ColumnDef::new`, in `mapping.rs`, resolves them from
    /// the field's Rust type).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        name: &'static str,
        field: &'static str,
        cql_type: CqlType,
        kind: ColumnKind,
        nullable: bool,
        rust_type: &'static str,
        udts: Vec<&'static UdtSchema>,
        type_check: TypeCheckFn,
    ) -> Self {
        ColumnDef {
            name,
            field,
            cql_type,
            kind,
            nullable,
            rust_type,
            indexes: Vec::new(),
            avg_bytes: None,
            mask: None,
            bucket: None,
            udts,
            type_check,
            declared_type: false,
        }
    }

    /// The column with an SAI index named `name` on `target` (`None`: the default for its
    /// type, [`IndexTarget::default_for`]: `values` for a non-frozen list, set or map, `full`
    /// for a frozen collection, the column itself otherwise), after those it has.
    pub fn with_index(mut self, name: &'static str, target: Option<IndexTarget>) -> Self {
        let target = IndexTarget::resolve(target, &self.cql_type);
        self.indexes.push(IndexDef::new(name, target));
        self
    }

    /// The column's last index (a vector index) ranks by `similarity`
    /// (`#[cass(index(similarity = ..))]`); after [`with_index`](Self::with_index).
    pub fn with_similarity(mut self, similarity: Similarity) -> Self {
        if let Some(index) = self.indexes.last_mut() {
            index.similarity = Some(similarity);
        }
        self
    }

    /// The column masked with `mask` (`mask_inner(2, 1)`), for roles without `UNMASK`.
    pub fn with_mask(mut self, mask: &'static str) -> Self {
        self.mask = Some(mask);
        self
    }

    /// The column with its values' average size declared (`#[cass(avg_bytes = N)]`).
    pub fn with_avg_bytes(mut self, bytes: u32) -> Self {
        self.avg_bytes = Some(bytes);
        self
    }

    /// User-defined types this column refers to, dependencies first.
    pub fn udts(&self) -> &[&'static UdtSchema] {
        &self.udts
    }
}

/// Table options (`WITH ...`) beyond the clustering order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TableOptions {
    /// `default_time_to_live` in seconds.
    pub default_ttl: Option<u32>,
    /// `comment`.
    pub comment: Option<&'static str>,
    /// `compaction = {'class': ...}`.
    pub compaction: Option<&'static str>,
    /// `gc_grace_seconds`.
    pub gc_grace_seconds: Option<u32>,
}

/// How the partitions of a table grow, declared with `#[cass(expect(...))]` on the struct.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Growth {
    /// `expect(rows = N)`: each partition holds about `N` rows, and no more over time.
    Rows(u64),
    /// `expect(rows = N, per = "month", horizon = "5 years")`: each partition gains about `N`
    /// rows per period, and keeps them for the horizon (by default the table's
    /// `default_ttl`, if it has one; `None`: neither, the partitions grow without end).
    Rate {
        /// Rows added per period.
        rows: u64,
        /// The period.
        per: Period,
        /// How long rows are kept.
        horizon: Option<Span>,
    },
}

/// Everything cassmodel knows about a table, built once per `#[derive(CassTable)]` type.
#[derive(Debug)]
#[non_exhaustive]
pub struct TableSchema {
    /// The Rust struct's name.
    pub rust_name: &'static str,
    /// The table name (unquoted).
    pub name: &'static str,
    /// The keyspace given with `#[cass(keyspace = "...")]`, if any; otherwise the table
    /// lives in the [`Db`](crate::Db)'s default keyspace.
    pub keyspace: Option<&'static str>,
    /// Columns in struct-field order.
    pub columns: Vec<ColumnDef>,
    /// Indices of the partition-key columns, in key order.
    pub partition_key: Vec<usize>,
    /// Indices of the clustering columns, in key order.
    pub clustering: Vec<usize>,
    /// Table options.
    pub options: TableOptions,
    /// How its partitions grow, declared with `#[cass(expect(...))]`: the input of the
    /// partition-size analysis ([`sizing`](crate::sizing)). `None`: not declared.
    pub growth: Option<Growth>,
    /// Where the rows of this table are copied from after a key change (`#[cass(from = ..)]`).
    pub source: Option<SourceDef>,
    /// For a materialized view (`#[cass(view_of = Base)]`), its base table: the view lives
    /// in the base's keyspace, and its rows are the base's, keyed again.
    pub view_of: Option<&'static TableSchema>,
    /// For a view declared `#[cass(view_of = Base, all_columns)]`: it selects every column of
    /// its base (`SELECT *`), and so gains the columns later added to the base.
    pub view_selects_all: bool,
    udts: Vec<&'static UdtSchema>,
    all: Vec<usize>,
    written: Vec<usize>,
    key: Vec<usize>,
    /// Whether every column is written from its own field as it is: no bucket (computed
    /// from another field) and no vector index (whose vectors are checked first).
    fields_as_written: bool,
    /// This description's number in the process: the index of its table's slot in a
    /// [`Db`](crate::Db)'s table of plain INSERT statements.
    ordinal: usize,
}

/// The number of the next [`TableSchema`] built.
static NEXT_ORDINAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl TableSchema {
    /// Builds the description; key order is the order of the fields in the struct.
    pub fn new(
        rust_name: &'static str,
        name: &'static str,
        keyspace: Option<&'static str>,
        options: TableOptions,
        columns: Vec<ColumnDef>,
    ) -> Self {
        let mut t = TableSchema {
            rust_name,
            name,
            keyspace,
            columns,
            partition_key: Vec::new(),
            clustering: Vec::new(),
            options,
            growth: None,
            source: None,
            view_of: None,
            view_selects_all: false,
            udts: Vec::new(),
            all: Vec::new(),
            written: Vec::new(),
            key: Vec::new(),
            fields_as_written: true,
            ordinal: NEXT_ORDINAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        };
        t.index();
        t
    }

    /// Whether every column is written from its own field as it is (column `i` from field
    /// `i`, no bucket, no vector index): the writes of its rows then take no per-column
    /// decision ([`write_column`](crate::mapping::table::write_column)).
    pub(crate) fn fields_as_written(&self) -> bool {
        self.fields_as_written
    }

    /// This description's number in the process (see [`Db`](crate::Db)'s insert slots).
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Resolves the key layout and column lists from `columns`.
    fn index(&mut self) {
        let indices = |pred: &dyn Fn(&ColumnDef) -> bool| {
            self.columns
                .iter()
                .enumerate()
                .filter(|(_, c)| pred(c))
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        let partition_key = indices(&|c| c.kind == ColumnKind::PartitionKey);
        let clustering = indices(&|c| matches!(c.kind, ColumnKind::Clustering(_)));
        let all = indices(&|c| c.bucket.is_none());
        self.fields_as_written = self
            .columns
            .iter()
            .all(|c| c.bucket.is_none() && c.vector_index().is_none());
        self.udts = dedup_udts(self.columns.iter().flat_map(|c| c.udts.iter().copied()));
        self.key = partition_key.iter().chain(&clustering).copied().collect();
        self.written = (0..self.columns.len()).collect();
        self.partition_key = partition_key;
        self.clustering = clustering;
        self.all = all;
    }

    /// The table with a bucket column (`#[cass(bucket(..))]` on column `source`): a
    /// partition-key column named `name`, after the others, computed from `source` by `rule`
    /// (a `date` for a time bucket, a `bigint` for a width).
    pub fn with_bucket(mut self, name: &'static str, source: usize, rule: BucketRule) -> Self {
        let cql_type = match rule {
            BucketRule::Period(_) => CqlType::Native(NativeType::Date),
            BucketRule::Width(_) => CqlType::Native(NativeType::Bigint),
        };
        let mut col = ColumnDef::from_parts(
            name,
            "",
            cql_type,
            ColumnKind::PartitionKey,
            false,
            "bucket",
            Vec::new(),
            |_| Ok(()),
        );
        col.bucket = Some(BucketDef { source, rule });
        self.columns.push(col);
        self.index();
        self
    }

    /// The bucket column, if the table has one: its index and definition.
    pub fn bucket(&self) -> Option<(usize, BucketDef)> {
        self.columns
            .iter()
            .enumerate()
            .find_map(|(i, c)| c.bucket.map(|b| (i, b)))
    }

    /// The columns that are fields of the struct (every column but a bucket), in field order:
    /// what a row read holds.
    pub fn field_columns(&self) -> &[ColumnDef] {
        &self.columns[..self.all.len()]
    }

    /// The indices of every column an insert writes: the fields and the bucket.
    pub fn written_columns(&self) -> &[usize] {
        &self.written
    }

    /// The table with its partitions' growth declared (`#[cass(expect(...))]`).
    pub fn with_growth(mut self, growth: Growth) -> Self {
        self.growth = Some(growth);
        self
    }

    /// The description of a materialized view of `base` (`#[cass(view_of = ..)]`).
    /// It lives in the base's keyspace.
    pub fn with_view_of(mut self, base: &'static TableSchema) -> Self {
        self.view_of = Some(base);
        self.keyspace = base.keyspace;
        self
    }

    /// The description of a view that selects every column of its base (`SELECT *`,
    /// `#[cass(view_of = .., all_columns)]`).
    pub fn view_selecting_all(mut self) -> Self {
        self.view_selects_all = true;
        self
    }

    /// The table with the table its rows are copied from (`#[cass(from = ..)]`).
    pub fn with_source(mut self, source: SourceDef) -> Self {
        self.source = Some(source);
        self
    }

    /// The indices of every column that is a field (all but a bucket), in field order.
    pub fn all_columns(&self) -> &[usize] {
        &self.all
    }

    /// The column at `index`.
    pub fn column(&self, index: usize) -> Option<&ColumnDef> {
        self.columns.get(index)
    }

    /// Index of the column named `name` (its CQL name).
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Indices of the full primary key: partition key, then clustering columns.
    pub fn primary_key(&self) -> &[usize] {
        &self.key
    }

    /// The clustering order of clustering column `index`.
    pub fn order_of(&self, index: usize) -> Option<Order> {
        match self.columns.get(index)?.kind {
            ColumnKind::Clustering(o) => Some(o),
            _ => None,
        }
    }

    /// User-defined types used by the table, each after its dependencies, without repeats.
    pub fn udts(&self) -> &[&'static UdtSchema] {
        &self.udts
    }

    /// Every secondary index with its column, in field order (a column's in declaration
    /// order).
    pub fn indexes(&self) -> impl Iterator<Item = (&ColumnDef, &IndexDef)> {
        self.columns
            .iter()
            .flat_map(|c| c.indexes.iter().map(move |i| (c, i)))
    }

    /// Why Cassandra would refuse the index on `column`, in the server's words: an index on
    /// a counter table, on the only partition-key column, or a target its type does not
    /// take ([`CqlType::index_violation`]). The derive refuses these at compile time where
    /// the field's type tells; this check covers the rest (type aliases, hand-built schemas).
    pub fn index_problem(&self, column: &ColumnDef, index: &IndexDef) -> Option<String> {
        if self.is_counter_table() {
            return Some("Secondary indexes on counter tables aren't supported".to_owned());
        }
        if column.kind == ColumnKind::PartitionKey && self.partition_key.len() == 1 {
            return Some(format!(
                "Cannot create secondary index on the only partition key column {}",
                column.name
            ));
        }
        let vector = matches!(column.cql_type, CqlType::Vector(..));
        if index.similarity.is_some() && !vector {
            return Some(IndexViolation::SimilarityNotVector.server_message(column.name));
        }
        column
            .cql_type
            .index_violation(index.target)
            .map(|v| v.server_message(column.name))
    }

    /// Whether this is a counter table (its non-key columns are counters).
    pub fn is_counter_table(&self) -> bool {
        self.columns.iter().any(|c| c.cql_type.is_counter())
    }
}

/// How a bucket is computed from its source column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BucketRule {
    /// The first day of the source's day, week (Monday), month or year, in UTC: a `date`.
    Period(Period),
    /// `floor(source / width) * width`: a `bigint`.
    Width(i64),
}

/// The bucket column of a table: which column it is computed from, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct BucketDef {
    /// The index of the source column (the first clustering column).
    pub source: usize,
    /// The rule.
    pub rule: BucketRule,
}

/// A user-defined type, built once per `#[derive(CassUdt)]` type.
#[derive(Debug)]
#[non_exhaustive]
pub struct UdtSchema {
    /// The Rust struct's name.
    pub rust_name: &'static str,
    /// The type name (unquoted). The type is created in the keyspace of each table that uses it.
    pub name: &'static str,
    /// Fields in struct order (their `kind` is always [`ColumnKind::Regular`]).
    pub fields: Vec<ColumnDef>,
    deps: Vec<&'static UdtSchema>,
}

impl UdtSchema {
    /// Builds the description. A field whose type is a user-defined type is frozen
    /// (Cassandra: "A user type cannot contain non-frozen UDTs"); so is a collection, unless
    /// the field declares its type (`#[cass(cql_type = "list<int>")]`, as `cassmodel pull`
    /// writes for a type made with one). Cassandra takes a non-frozen collection in a type,
    /// but such a type can then only be used frozen.
    pub fn new(rust_name: &'static str, name: &'static str, mut fields: Vec<ColumnDef>) -> Self {
        for f in &mut fields {
            if !(f.declared_type && f.cql_type.is_collection()) {
                f.cql_type = f.cql_type.clone().frozen_for_nesting();
            }
        }
        let deps = dedup_udts(fields.iter().flat_map(|f| f.udts.iter().copied()));
        UdtSchema {
            rust_name,
            name,
            fields,
            deps,
        }
    }

    /// The user-defined types this one refers to, dependencies first.
    pub fn dependencies(&self) -> &[&'static UdtSchema] {
        &self.deps
    }

    /// Pushes this type's dependencies and then itself: the body of
    /// [`CqlMapping::collect_udts`](crate::CqlMapping::collect_udts) for a derived UDT.
    pub fn collect(&'static self, out: &mut Vec<&'static UdtSchema>) {
        out.extend_from_slice(&self.deps);
        out.push(self);
    }
}

fn dedup_udts(all: impl Iterator<Item = &'static UdtSchema>) -> Vec<&'static UdtSchema> {
    let mut out: Vec<&'static UdtSchema> = Vec::new();
    for u in all {
        if !out.iter().any(|o| o.name == u.name) {
            out.push(u);
        }
    }
    out
}

/// The table a new table's rows are copied from after a key change, declared with
/// `#[cass(from = "old_table")]` or `#[cass(from = OldModel)]` on the new table's struct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceDef {
    /// The source table's name (unquoted).
    pub table: &'static str,
    /// Its keyspace, if declared (else the new table's).
    pub keyspace: Option<&'static str>,
    /// Whether rows are converted by a function of the user's (`with = ..`) rather than copied
    /// column by column, by name.
    pub converted: bool,
    /// Whether every write of the new table also reaches this one (`dual_writes`), for the
    /// release that writes both while the copy runs.
    pub dual_writes: bool,
    /// Whether the rows are copied with every writer of this table stopped (`offline`): the
    /// copy of a counter table, which cannot be copied beside live writes.
    pub offline: bool,
}

impl SourceDef {
    /// The table `table` of the new table's keyspace, its columns copied by name.
    pub const fn table(table: &'static str) -> Self {
        SourceDef {
            table,
            keyspace: None,
            converted: false,
            dual_writes: false,
            offline: false,
        }
    }

    /// The same source, with every write of the new table also written to it.
    pub const fn with_dual_writes(mut self) -> Self {
        self.dual_writes = true;
        self
    }

    /// The same source, copied with its writers stopped (a counter table).
    pub const fn offline(mut self) -> Self {
        self.offline = true;
        self
    }

    /// The table of a model, copied by name or (`converted`) through a function.
    pub fn model(schema: &TableSchema, converted: bool) -> Self {
        SourceDef {
            table: schema.name,
            keyspace: schema.keyspace,
            converted,
            dual_writes: false,
            offline: false,
        }
    }
}
