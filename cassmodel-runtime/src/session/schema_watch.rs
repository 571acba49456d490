//! Warnings for the schema changes that reach a program's prepared statements.
//!
//! When the columns of a table change (`ALTER TABLE .. ADD`, `DROP`, `RENAME`), or the table
//! is dropped, Cassandra forgets every statement prepared on it. The scylla driver finds out
//! when a node answers a statement's next run with UNPREPARED: it prepares the statement again
//! on that connection and runs it, below every hook a client has (no retry-policy or history
//! call). A statement that names a column the table no longer has fails there.
//!
//! The driver re-reads a keyspace's schema when the cluster announces a change to it, and
//! publishes a new [`ClusterState`]. A task per [`Db`](super::db::Db) (spawned when the `Db` is
//! made inside a tokio runtime, ended when the `Db` is dropped) looks at the published state
//! every [`WATCH_EVERY`]; when it is a new one, it compares, for each table this `Db` has
//! prepared statements on, the table's columns before and after, and logs a `tracing` warn
//! event (target `cassmodel`) for each table whose columns changed, each table that is gone and
//! each statement that names a column that is gone. Nothing runs on the statements' path.
//!
//! The schema is what the driver reads (`SessionBuilder::fetch_schema_metadata`, on by
//! default): a session that does not read it gets no warnings.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Weak};
use std::time::Duration;

use scylla::client::session::Session;
use scylla::cluster::ClusterState;
use scylla::cluster::metadata::Table;
use scylla::statement::prepared::PreparedStatement;

/// How often the published schema is looked at.
pub(crate) const WATCH_EVERY: Duration = Duration::from_secs(1);

/// What the watch needs of a `Db`: its session, and the statements prepared on it.
pub(crate) trait Watched: Send + Sync + 'static {
    fn session(&self) -> &Session;
    fn prepared(&self) -> Vec<Arc<PreparedStatement>>;
}

/// Starts watching `db` if a tokio runtime runs this thread; the task ends when `db` is gone.
pub(crate) fn spawn<W: Watched>(db: Weak<W>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let Some(first) = db.upgrade().map(|d| d.session().get_cluster_state()) else {
        return;
    };
    runtime.spawn(async move {
        let mut last = first;
        loop {
            tokio::time::sleep(WATCH_EVERY).await;
            let Some(db) = db.upgrade() else { return };
            let now = db.session().get_cluster_state();
            if !Arc::ptr_eq(&now, &last) {
                for change in changes(&last, &now, &db.prepared()) {
                    change.warn();
                }
                last = now;
            }
        }
    });
}

/// What became of one table that prepared statements run on.
#[derive(Debug)]
pub(crate) struct TableChange {
    keyspace: String,
    table: String,
    /// The statements prepared on it.
    statements: usize,
    /// Its columns' changes; `None`: the table is gone.
    columns: Option<Columns>,
    /// Each statement that names a column that is gone (its CQL), with those columns.
    broken: Vec<(String, Vec<String>)>,
}

/// The columns a table gained, lost, or has with another type or role.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Columns {
    added: Vec<String>,
    dropped: Vec<String>,
    changed: Vec<String>,
}

impl Columns {
    fn is_empty(&self) -> bool {
        self.added.is_empty() && self.dropped.is_empty() && self.changed.is_empty()
    }
}

/// The columns of `after` against `before`, each list in name order.
fn diff<V: PartialEq>(before: &HashMap<String, V>, after: &HashMap<String, V>) -> Columns {
    let mut c = Columns::default();
    for (name, old) in before {
        match after.get(name) {
            None => c.dropped.push(name.clone()),
            Some(new) if new != old => c.changed.push(name.clone()),
            Some(_) => {}
        }
    }
    c.added = after
        .keys()
        .filter(|n| !before.contains_key(*n))
        .cloned()
        .collect();
    for list in [&mut c.added, &mut c.dropped, &mut c.changed] {
        list.sort();
    }
    c
}

/// A table or materialized view of `state`, if the driver knows it.
fn table<'s>(state: &'s ClusterState, keyspace: &str, name: &str) -> Option<&'s Table> {
    let ks = state.get_keyspace(keyspace)?;
    ks.tables
        .get(name)
        .or_else(|| ks.views.get(name).map(|v| &v.view_metadata))
}

/// The changes from `before` to `after` that reach `statements`: per table they run on, in
/// name order.
pub(crate) fn changes(
    before: &ClusterState,
    after: &ClusterState,
    statements: &[Arc<PreparedStatement>],
) -> Vec<TableChange> {
    let mut by_table: BTreeMap<(&str, &str), Vec<&PreparedStatement>> = BTreeMap::new();
    for ps in statements {
        if let Some(spec) = ps.get_table_spec() {
            by_table
                .entry((spec.ks_name(), spec.table_name()))
                .or_default()
                .push(ps);
        }
    }
    let mut out = Vec::new();
    for ((keyspace, name), statements) in by_table {
        let Some(old) = table(before, keyspace, name) else {
            continue;
        };
        let columns = match table(after, keyspace, name) {
            Some(new) if new == old => continue,
            Some(new) => Some(diff(&old.columns, &new.columns)),
            // Known before (so the session reads the schema), not now: dropped.
            None => None,
        };
        if columns.as_ref().is_some_and(Columns::is_empty) {
            // The table changed in what no statement depends on (its key order, partitioner).
            continue;
        }
        let gone: &[String] = columns.as_ref().map_or(&[], |c| &c.dropped);
        let broken = statements
            .iter()
            .filter_map(|ps| {
                let result = ps.get_current_result_set_col_specs();
                let named: BTreeSet<String> = ps
                    .get_variable_col_specs()
                    .iter()
                    .chain(result.get().iter())
                    .map(|c| c.name())
                    .filter(|n| gone.iter().any(|g| g == n))
                    .map(str::to_owned)
                    .collect();
                (!named.is_empty())
                    .then(|| (ps.get_statement().to_owned(), named.into_iter().collect()))
            })
            .collect();
        out.push(TableChange {
            keyspace: keyspace.to_owned(),
            table: name.to_owned(),
            statements: statements.len(),
            columns,
            broken,
        });
    }
    out
}

impl TableChange {
    /// Logs it: one warn event for the table, one more for each statement it breaks.
    fn warn(&self) {
        let (keyspace, table, statements) = (&self.keyspace, &self.table, self.statements);
        match &self.columns {
            None => tracing::warn!(
                target: "cassmodel",
                keyspace,
                table,
                statements,
                "a table this program has prepared statements on was dropped: their next run \
                 fails"
            ),
            Some(c) => tracing::warn!(
                target: "cassmodel",
                keyspace,
                table,
                statements,
                added = ?c.added,
                dropped = ?c.dropped,
                changed = ?c.changed,
                "the columns of a table changed: Cassandra forgot the statements prepared on \
                 it, and the driver prepares each of this program's statements on it again at \
                 its next run (one more round trip per statement and connection)"
            ),
        }
        for (statement, columns) in &self.broken {
            tracing::warn!(
                target: "cassmodel",
                keyspace,
                table,
                statement = statement.as_str(),
                columns = ?columns,
                "a prepared statement names a column the table no longer has: its next run \
                 fails. Deploy the models without the column before dropping it"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(c: &[(&str, &str)]) -> HashMap<String, String> {
        c.iter()
            .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
            .collect()
    }

    #[test]
    fn the_diff_names_added_dropped_and_changed_columns_in_order() {
        let before = cols(&[("id", "int"), ("b", "text"), ("a", "text"), ("n", "int")]);
        let after = cols(&[("id", "int"), ("z", "int"), ("c", "text"), ("n", "bigint")]);
        let d = diff(&before, &after);
        assert_eq!(d.added, ["c", "z"]);
        assert_eq!(d.dropped, ["a", "b"]);
        assert_eq!(d.changed, ["n"]);
        assert!(!d.is_empty());
    }

    #[test]
    fn the_same_columns_are_no_change() {
        let before = cols(&[("id", "int"), ("b", "text")]);
        assert!(diff(&before, &before.clone()).is_empty());
    }
}
