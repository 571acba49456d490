//! `cassmodel pull` of every keyspace the test suite leaves: run by `cargo xtask test` after
//! the suite, it checks for each of them what `tests/pull.rs` checks for the seed models and a
//! hand-written keyspace. The generated module compiles (it is a module of this file),
//! `migrate plan` against the keyspace has nothing to do, `validate` passes, and rows written
//! with plain CQL read back through the generated structs equal to what plain CQL returns.
//!
//! How it gets them: with `CASSMODEL_PULL_DUMP` set, every test's `drop_all` (tests/support)
//! leaves, before dropping a keyspace, the module `pull` writes for it, the server's
//! `DESCRIBE KEYSPACE` and the table structs. `cargo xtask test` then writes a file of the
//! distinct ones (`suite! { .. }` below) and points `CASSMODEL_PULL_SUITE` at it; this test
//! recreates each keyspace from its `DESCRIBE` under a new name and checks it. Outside
//! `cargo xtask test` the suite is empty (`tests/pull/suite_empty.rs`) and the test, ignored,
//! fails if run: it has nothing to check.

#[path = "pull/round_trip.rs"]
mod round_trip;
mod support;

use cassmodel::Db;
use futures::StreamExt;

/// `suite! { m0: "<keyspace>" => include_str!("<keyspace>.cql") => [Struct, ..]; .. }`: for
/// each module (declared beside the invocation) the keyspace it was pulled from, the CQL
/// that made that keyspace, and its table structs.
macro_rules! suite {
    ($($m:ident: $ks:literal => $cql:expr => [$($t:ident),* $(,)?];)*) => {
        /// (module, keyspace the suite made, the CQL that made it).
        const SUITE: &[(&str, &str, &str)] = &[$((stringify!($m), $ks, $cql)),*];

        /// The round trip of `module`'s tables on `db`'s keyspace; how many tables it checked.
        async fn check(db: &Db, module: &str) -> usize {
            $(if module == stringify!($m) {
                let tables = [$(<$m::$t as cassmodel::Table>::schema()),*];
                // Boxed: the futures of this many branches would not fit a test thread's stack.
                Box::pin(crate::round_trip::nothing_to_do(db, &tables)).await;
                Box::pin(crate::round_trip::write_rows_into(db, &tables)).await;
                $(Box::pin(crate::round_trip::rows_match::<$m::$t>(db)).await;)*
                return tables.len();
            })*
            panic!("no module {module} in the suite (keyspace {:?})", db.keyspace())
        }
    };
}

include!(env!("CASSMODEL_PULL_SUITE"));

#[tokio::test]
#[ignore = "run by `cargo xtask test` after the whole suite, on the keyspaces it left"]
async fn every_keyspace_the_suite_leaves_round_trips() {
    assert!(
        !SUITE.is_empty(),
        "no keyspace to check: `cargo xtask test` runs this test after the suite, with \
         CASSMODEL_PULL_SUITE naming the keyspaces it left"
    );
    let t = support::test_db("pull_suite").await;
    // A few at a time: most of the time goes to the server's schema changes.
    let tables: Vec<usize> = futures::stream::iter(SUITE)
        .map(|(module, from, cql)| recreated_round_trip(&t.db, module, from, cql))
        .buffer_unordered(4)
        .collect()
        .await;
    let tables: usize = tables.iter().sum();
    println!(
        "{} keyspaces, {tables} tables: plan empty, validate passed, rows equal",
        SUITE.len()
    );
    assert!(tables > 0, "the suite's keyspaces have no table");
    t.drop_all().await;
}

/// Makes keyspace `from` again under a new name, from the `cql` the server described it
/// with, checks `module` on it and drops it; how many tables it checked.
async fn recreated_round_trip(db: &Db, module: &str, from: &str, cql: &str) -> usize {
    let ks = support::unique_name("pull_suite");
    for statement in cassmodel_cli::cql_statements(cql) {
        // The keyspace as one node holds it: the replication is no part of the models.
        let statement = if statement.starts_with("CREATE KEYSPACE ") {
            format!(
                "CREATE KEYSPACE {ks} WITH replication = \
                 {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
            )
        } else {
            statement.replace(from, &ks)
        };
        db.execute_ddl(&statement)
            .await
            .unwrap_or_else(|e| panic!("{module} ({from}): {statement}: {e}"));
    }
    let in_ks = db.with_keyspace(&ks).expect("keyspace");
    let tables = check(&in_ks, module).await;
    db.execute_ddl(&format!("DROP KEYSPACE {ks}"))
        .await
        .unwrap_or_else(|e| panic!("DROP KEYSPACE {ks}: {e}"));
    tables
}
