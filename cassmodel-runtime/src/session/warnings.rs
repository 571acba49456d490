//! The warnings Cassandra attaches to its answers (a batch over `batch_size_warn_threshold`, a
//! read over the tombstone warning threshold, an aggregation without a partition key, a
//! replication factor above a data centre's node count, a guardrail): logged as `tracing`
//! warn events with the statement's kind and table, and handed to the handler a program sets
//! with [`Db::on_server_warning`](super::db::Db::on_server_warning).

use std::sync::{Arc, RwLock};

use scylla::response::query_result::QueryResult;
use scylla::statement::prepared::PreparedStatement;

/// A warning the server attached to its answer to one of cassmodel's statements.
///
/// It names the statement by kind and table, never by its values.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerWarning {
    /// What the statement was: `SELECT`, `INSERT`, `UPDATE`, `DELETE`, `BATCH`, or the first
    /// words of a schema statement (`CREATE KEYSPACE`).
    pub statement: String,
    /// `keyspace.table` of the statement, when it names one (a batch: its first statement's).
    pub table: Option<String>,
    /// The server's words.
    pub text: String,
}

impl std::fmt::Display for ServerWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.table {
            Some(t) => write!(f, "{} on `{t}`: {}", self.statement, self.text),
            None => write!(f, "{}: {}", self.statement, self.text),
        }
    }
}

/// A program's handler of server warnings.
pub(crate) type Handler = Arc<dyn Fn(&ServerWarning) + Send + Sync>;

/// The handler shared by every `Db` of one connection (`with_keyspace` and the others keep
/// it), if a program set one.
#[derive(Clone, Default)]
pub(crate) struct Warnings(Arc<RwLock<Option<Handler>>>);

impl Warnings {
    pub(crate) fn set(&self, handler: Handler) {
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(handler);
    }

    /// Reports the warnings of `res`, the answer to `cql` (prepared as `ps`, when it was):
    /// nothing to do, and nothing built, for an answer without warnings.
    #[inline]
    pub(crate) fn check(&self, res: &QueryResult, cql: &str, ps: Option<&PreparedStatement>) {
        if res.warnings().next().is_some() {
            self.report(res, cql, ps);
        }
    }

    #[cold]
    fn report(&self, res: &QueryResult, cql: &str, ps: Option<&PreparedStatement>) {
        let handler = self
            .0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        // Nobody to tell (no handler, no subscriber that wants this warn event): nothing
        // built. Some statements draw a warning on every run (an ANN query above consistency
        // ONE is run at LOCAL_ONE or ONE, and says so), and the strings of an unread warning
        // cost as much as the read's own rows.
        if handler.is_none() && !tracing::enabled!(tracing::Level::WARN) {
            return;
        }
        let statement = statement_kind(cql);
        let table = ps
            .and_then(PreparedStatement::get_table_spec)
            .map(|t| format!("{}.{}", t.ks_name(), t.table_name()));
        for text in res.warnings() {
            let warning = ServerWarning {
                statement: statement.clone(),
                table: table.clone(),
                text: text.to_owned(),
            };
            tracing::warn!(
                statement = %warning.statement,
                table = %warning.table.as_deref().unwrap_or(""),
                warning = %warning.text,
                "Cassandra warned about a statement"
            );
            if let Some(h) = &handler {
                h(&warning);
            }
        }
    }
}

/// The kind of a statement from its text: its first word, or its first two for a schema
/// statement (`CREATE TABLE`), in capitals. (`BATCH` for batches, which have no text.)
fn statement_kind(cql: &str) -> String {
    let mut words = cql.split_whitespace().map(str::to_ascii_uppercase);
    let first = words.next().unwrap_or_default();
    match first.as_str() {
        "CREATE" | "ALTER" | "DROP" | "TRUNCATE" => match words.next() {
            Some(second) if second != "IF" => format!("{first} {second}"),
            _ => first,
        },
        "BEGIN" => "BATCH".to_owned(),
        _ => first,
    }
}

#[cfg(test)]
mod tests {
    use super::statement_kind;

    #[test]
    fn statements_are_named_by_their_first_words() {
        assert_eq!(statement_kind("SELECT a FROM ks.t WHERE k = ?"), "SELECT");
        assert_eq!(statement_kind("insert into ks.t (k) values (?)"), "INSERT");
        assert_eq!(
            statement_kind("CREATE KEYSPACE IF NOT EXISTS ks WITH ..."),
            "CREATE KEYSPACE"
        );
        assert_eq!(statement_kind("  BATCH"), "BATCH");
        assert_eq!(statement_kind(""), "");
    }
}
