//! The shape of a statement without its values: operators, and the [`Spec`] that is the
//! cache key of its prepared statement.

use cassmodel_schema::Similarity;
use smallvec::SmallVec;

use crate::mapping::projection::{Computed, Selector};
use crate::schema::model::TableSchema;

/// What a statement does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Statement {
    /// `SELECT`
    Select,
    /// `UPDATE`
    Update,
    /// `DELETE`
    Delete,
    /// `SELECT COUNT(*)`: the rows the restrictions select, counted by the server.
    Count,
}

impl Statement {
    /// Its name in a statement's `tracing` span: `select`, `update`, `delete`, `count`.
    pub const fn kind(self) -> &'static str {
        match self {
            Statement::Select => "select",
            Statement::Update => "update",
            Statement::Delete => "delete",
            Statement::Count => "count",
        }
    }
}

/// A restriction or condition operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=` (conditions only)
    Ne,
    /// `IN`
    In,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `CONTAINS`: an element of a list or set, a value of a map.
    Contains,
    /// `CONTAINS KEY`: a key of a map.
    ContainsKey,
    /// `c[?] = ?`: a map entry (binds the key, then the value).
    Entry,
}

impl Op {
    /// The operator in CQL.
    pub const fn cql(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::In => "IN",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Contains => "CONTAINS",
            Op::ContainsKey => "CONTAINS KEY",
            Op::Entry => "=",
        }
    }
}

/// A comparison in a lightweight transaction's condition (`IF column <cmp> ?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl From<Cmp> for Op {
    fn from(c: Cmp) -> Op {
        match c {
            Cmp::Eq => Op::Eq,
            Cmp::Ne => Op::Ne,
            Cmp::Lt => Op::Lt,
            Cmp::Le => Op::Le,
            Cmp::Gt => Op::Gt,
            Cmp::Ge => Op::Ge,
        }
    }
}

/// How an UPDATE changes a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetOp {
    /// `c = ?`
    Assign,
    /// `c = c + ?` (list append, set add, map merge)
    Append,
    /// `c = ? + c` (list prepend)
    Prepend,
    /// `c = c - ?` (list/set remove, map remove keys)
    Remove,
    /// `c[?] = ?` (list index, map key)
    AtKey,
    /// `c = c + ?` on a counter
    Increment,
    /// `c = c - ?` on a counter
    Decrement,
}

impl SetOp {
    /// Whether retrying the change could apply it twice.
    pub const fn is_idempotent(self) -> bool {
        !matches!(
            self,
            SetOp::Append | SetOp::Prepend | SetOp::Increment | SetOp::Decrement
        )
    }
}

/// The statement a query runs, without its values: the cache key of its prepared statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Spec {
    /// `(column index, operator)` in WHERE order (which is also bind order).
    pub restrictions: Vec<(u16, Op)>,
    /// `(column index, change)` of an UPDATE, in SET order.
    pub sets: Vec<(u16, SetOp)>,
    /// `IF column <op> ?` conditions (a lightweight transaction).
    pub conditions: Vec<(u16, Op)>,
    /// `IF EXISTS` (a lightweight transaction).
    pub if_exists: bool,
    /// `USING TTL ?`
    pub ttl: bool,
    /// `USING TIMESTAMP ?`
    pub timestamp: bool,
    /// `LIMIT ?`
    pub limit: bool,
    /// `PER PARTITION LIMIT ?`
    pub per_partition_limit: bool,
    /// `ORDER BY` the reverse of the clustering order.
    pub reversed: bool,
    /// `ALLOW FILTERING`
    pub allow_filtering: bool,
    /// `ORDER BY column ANN OF ?`: a vector search on this column (index).
    pub ann: Option<u16>,
    /// Similarity scores read before the columns, in the order they were asked for: the
    /// last one is selected first (`SELECT similarity_<function>(column, ?), ...`, the
    /// outermost `Scored`): `(column index, function)`.
    pub scores: SmallVec<[(u16, Similarity); 2]>,
}

impl Spec {
    /// A read by `=` on the first `n` primary-key columns of `schema` (the partition key,
    /// then clustering columns): the shape of `get` and `partition`.
    pub(crate) fn key_prefix(schema: &TableSchema, n: usize) -> Spec {
        Spec {
            restrictions: schema
                .primary_key()
                .iter()
                .take(n)
                .map(|&i| (i as u16, Op::Eq))
                .collect(),
            ..Spec::default()
        }
    }

    /// What this statement on `table`, reading `computed` fields, uses that Cassandra 5.0
    /// added, in words, if anything: a vector search, a similarity function, a restriction
    /// served by a storage-attached index, a scalar function 5.0 added, a table with a vector
    /// column. Asked only when preparing it failed.
    pub(crate) fn cassandra_5_feature(
        &self,
        table: &TableSchema,
        computed: &[Computed],
    ) -> Option<String> {
        let column = |c: u16| table.columns.get(usize::from(c));
        let name = |c: u16| column(c).map_or("?", |c| c.name);
        if let Some(c) = self.ann {
            return Some(format!("a vector search (ORDER BY {} ANN OF ?)", name(c)));
        }
        if let Some(&(c, f)) = self.scores.first() {
            return Some(format!(
                "the similarity function {}({}, ?)",
                f.function(),
                name(c)
            ));
        }
        let indexed = self.restrictions.iter().find_map(|&(c, _)| {
            let col = column(c).filter(|col| !col.kind.is_key())?;
            Some((col.name, col.indexes.first()?.name))
        });
        if let Some((col, index)) = indexed {
            return Some(format!(
                "a read through the storage-attached index `{index}` on column `{col}`"
            ));
        }
        // "Unknown function" before 5.0.
        let mut calls = Vec::new();
        for c in computed {
            c.selector.native_calls(&mut calls);
        }
        let newer = calls.into_iter().find(
            |c| matches!(c, Selector::Call(f, _) if cassmodel_schema::added_in_cassandra_5(f)),
        );
        if let Some(call) = newer {
            return Some(format!("the function {}", call.describe()));
        }
        table.columns.iter().find_map(|c| c.vector_type_feature())
    }

    /// Whether some partition-key column of `schema` is restricted by `IN`.
    pub(crate) fn in_on_partition_key(&self, table: &TableSchema) -> bool {
        self.restrictions
            .iter()
            .any(|&(c, op)| op == Op::In && table.partition_key.contains(&usize::from(c)))
    }

    /// Whether the statement is a lightweight transaction.
    pub fn is_lwt(&self) -> bool {
        self.if_exists || !self.conditions.is_empty()
    }

    /// Whether the statement may be retried safely.
    pub fn is_idempotent(&self) -> bool {
        !self.is_lwt() && self.sets.iter().all(|(_, op)| op.is_idempotent())
    }
}
