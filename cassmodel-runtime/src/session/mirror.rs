//! The old table of a key change with dual writes (`#[cass(from = .., dual_writes)]`), as the
//! session's cluster metadata describes it: which columns of the new table it has, and which
//! of them form its key. Resolved once per `Db` and table (by the execution layer) and kept
//! in its [`StatementCache`](super::cache::StatementCache).

/// The old table that the writes of a new table also reach.
#[derive(Debug)]
pub(crate) struct MirrorTable {
    /// `keyspace.table`, quoted where needed: what the mirrored statements name.
    pub qualified: String,
    /// `keyspace.table`, for messages.
    pub name: String,
    /// By column of the new table: whether the old table has a column of that name.
    pub present: Vec<bool>,
    /// The new table's columns that form the old table's partition key, in key order.
    pub partition_key: Vec<usize>,
    /// The new table's columns that are the old table's clustering columns, in order.
    pub clustering: Vec<usize>,
}

impl MirrorTable {
    /// Whether column `i` of the new table is a key column of the old one.
    pub(crate) fn is_key(&self, i: usize) -> bool {
        self.partition_key.contains(&i) || self.clustering.contains(&i)
    }
}
