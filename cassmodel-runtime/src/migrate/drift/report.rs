//! What a drift check found, and what its repair wrote.

use std::fmt;

/// What the drift check of an entity's tables found ([`check_entity`](super::check_entity)).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct DriftReport {
    /// The entity's Rust name.
    pub entity: String,
    /// Entities read: rows of the identity table.
    pub entities: u64,
    /// Each table of the entity, the identity table first.
    pub tables: Vec<TableDrift>,
    /// Whether only some token ranges were read.
    pub sampled: bool,
    /// Whether the repair was asked for (the tables were written); else the counts of
    /// what it would write.
    pub repaired: bool,
}

impl DriftReport {
    /// No row missing, extra or different in any table.
    pub fn is_clean(&self) -> bool {
        self.tables.iter().all(TableDrift::is_clean)
    }
}

/// What the check found in one table of the entity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct TableDrift {
    /// `keyspace.table`.
    pub table: String,
    /// Rows of this table read by token range.
    pub rows: u64,
    /// Rows an entity should have here that are not here.
    pub missing: u64,
    /// Rows here that no entity has (its identity row is missing, or its key fields say
    /// another key: a stale row under an old key).
    pub extra: u64,
    /// Rows here with at least one cell that is not the winner's (another value, or another
    /// TTL).
    pub different: u64,
    /// Cells that are not the winner's.
    pub cells_different: u64,
    /// The first keys of each: missing, extra and different (with the columns that differ).
    pub first_missing: Vec<String>,
    /// See [`first_missing`](Self::first_missing).
    pub first_extra: Vec<String>,
    /// See [`first_missing`](Self::first_missing).
    pub first_different: Vec<String>,
    /// Why the extra rows of this table were not looked for, if they were not: it lacks a
    /// field of the identity table's key, so its rows cannot be traced to an entity.
    pub extra_unchecked: Option<String>,
    /// Rows written by the repair (a missing row, or a row's cells that differed); with a
    /// dry run, the rows it would write.
    pub written: u64,
    /// Extra rows deleted by the repair (only with `delete_extra`); with a dry run, the rows
    /// it would delete.
    pub deleted: u64,
}

impl TableDrift {
    /// No row missing, extra or different.
    pub fn is_clean(&self) -> bool {
        self.missing == 0 && self.extra == 0 && self.different == 0
    }
}

impl fmt::Display for DriftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sampled = if self.sampled { " (sampled)" } else { "" };
        let state = if self.is_clean() { "agree" } else { "drift" };
        writeln!(
            f,
            "{}{sampled}: {} entities, its tables {state}",
            self.entity, self.entities
        )?;
        for t in &self.tables {
            write!(f, "{t}")?;
            let (verb_w, verb_d) = if self.repaired {
                ("written", "deleted")
            } else {
                ("to write", "to delete")
            };
            if t.written > 0 || t.deleted > 0 {
                writeln!(
                    f,
                    "    repair: {} rows {verb_w}, {} rows {verb_d}",
                    t.written, t.deleted
                )?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for TableDrift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  {}: {} rows; {} missing, {} extra, {} different ({} cells)",
            self.table, self.rows, self.missing, self.extra, self.different, self.cells_different
        )?;
        for (what, keys) in [
            ("missing", &self.first_missing),
            ("extra", &self.first_extra),
            ("different", &self.first_different),
        ] {
            for k in keys {
                writeln!(f, "    {what}: {k}")?;
            }
        }
        if let Some(why) = &self.extra_unchecked {
            writeln!(f, "    extra rows not looked for: {why}")?;
        }
        Ok(())
    }
}
