//! `cassmodel pull` of every keyspace the test suite leaves: run by `cargo xtask test` after
//! the suite, it checks for each of them what `tests/pull.rs` checks for the seed models and a
//! hand-written keyspace. The generated module compiles (it is a module of this file),
//! `migrate plan` against the keyspace has nothing to do, `validate` passes, rows written
//! with plain CQL read back through the generated structs equal to what plain CQL returns,
//! and, inserted through them into a copy of the keyspace, equal there to the first's.
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

        /// The round trip of `module`'s tables on `db`'s keyspace; how many tables it checked,
        /// and how many of them it copied.
        async fn check(db: &Db, module: &str) -> (usize, usize) {
            $(if module == stringify!($m) {
                // Each module's round trip in a function of its own, called boxed: as branches
                // of this one, their temporaries would share one stack frame, which overflows a
                // test thread's stack in a debug build once the suite leaves some 70 keyspaces.
                async fn one(db: &Db) -> (usize, usize) {
                    // Each table takes one of the two (a module may need only one).
                    #[allow(unused_imports)]
                    use crate::round_trip::{ByInsert as _, NotCopied as _};
                    let tables = [$(<$m::$t as cassmodel::Table>::schema()),*];
                    crate::round_trip::nothing_to_do(db, &tables).await;
                    crate::round_trip::write_rows_into(db, &tables).await;
                    $(Box::pin(crate::round_trip::rows_match::<$m::$t>(db)).await;)*
                    // Each table's rows read through its struct and inserted into a copy of
                    // the keyspace (a view's and a counter table's are not: `Copied`).
                    let copy = crate::round_trip::copy_keyspace(db).await;
                    let copied: Vec<bool> = vec![$(
                        (&&crate::round_trip::Copied::<$m::$t>::new()).copy(db, &copy).await
                    ),*];
                    crate::round_trip::drop_keyspace(&copy).await;
                    (tables.len(), copied.iter().filter(|c| **c).count())
                }
                return Box::pin(one(db)).await;
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
    let counts: Vec<(usize, usize)> = futures::stream::iter(SUITE)
        .map(|(module, from, cql)| recreated_round_trip(&t.db, module, from, cql))
        .buffer_unordered(4)
        .collect()
        .await;
    let tables: usize = counts.iter().map(|c| c.0).sum();
    let copied: usize = counts.iter().map(|c| c.1).sum();
    println!(
        "{} keyspaces, {tables} tables: plan empty, validate passed, rows equal; {copied} \
         tables copied through their structs, equal",
        SUITE.len()
    );
    assert!(tables > 0, "the suite's keyspaces have no table");
    assert!(copied > 0, "no table of the suite's keyspaces was copied");
    t.drop_all().await;
}

/// Makes keyspace `from` again under a new name, from the `cql` the server described it
/// with, checks `module` on it and drops it; how many tables it checked and copied.
async fn recreated_round_trip(db: &Db, module: &str, from: &str, cql: &str) -> (usize, usize) {
    let ks = support::unique_name("pull_suite");
    let statements = cassmodel_cli::cql_statements(cql);
    round_trip::recreate(db, &statements, from, &ks, module).await;
    let in_ks = db.with_keyspace(&ks).expect("keyspace");
    let tables = check(&in_ks, module).await;
    round_trip::drop_keyspace(&in_ks).await;
    tables
}
