//! Where the records of the copies live (a module of its own, which imports nothing, so that
//! the plan names it without depending on the record).

/// The keyspace of the records of every copy.
pub const RECORD_KEYSPACE: &str = "cassmodel_migrations";
