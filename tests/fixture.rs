//! `cassmodel_node::TestKeyspace`, the fixture users' integration tests start from: the
//! example of its docs, as a user copies it, and what `drop` leaves; and
//! `TestKeyspace::on_cluster`, whose keyspace keeps three copies of every row on three running
//! nodes. `cargo xtask test` runs that one in its cluster step (the cluster takes
//! 127.0.0.1-3, the single node's address among them, so it cannot run beside the single
//! node's tests).

use std::collections::HashMap;

use cassmodel::{CassTable, Consistency};
use cassmodel_node::TestKeyspace;

#[derive(CassTable, Debug, PartialEq)]
struct Order {
    #[partition_key]
    customer: String,
    #[clustering(desc)]
    number: i32,
    total: f64,
}

// The example of `TestKeyspace`'s docs.
#[tokio::test]
async fn orders_read_back_newest_first() {
    let ks = TestKeyspace::new("orders").await.expect("a Cassandra node");
    let db = ks.db();
    db.create_table::<Order>().await.expect("create");
    for number in 1..=3 {
        let order = Order {
            customer: "ada".into(),
            number,
            total: 9.5,
        };
        db.insert(&order).await.expect("insert");
    }
    let orders = Order::select()
        .customer("ada")
        .fetch_all(db)
        .await
        .expect("read");
    assert_eq!(
        orders.iter().map(|o| o.number).collect::<Vec<_>>(),
        [3, 2, 1]
    );
}

/// Two fixtures of one test name are two keyspaces; `drop` deletes the keyspace.
#[tokio::test]
async fn each_fixture_has_its_keyspace_and_drop_deletes_it() {
    let a = TestKeyspace::new("orders").await.expect("a Cassandra node");
    let b = TestKeyspace::new("orders").await.expect("a Cassandra node");
    assert_ne!(a.name(), b.name());
    a.db().create_table::<Order>().await.expect("create");
    let order = Order {
        customer: "bo".into(),
        number: 1,
        total: 1.0,
    };
    a.db().insert(&order).await.expect("insert");
    b.db().create_table::<Order>().await.expect("create");
    assert!(
        Order::select()
            .customer("bo")
            .fetch_all(b.db())
            .await
            .expect("read")
            .is_empty()
    );
    let name = a.name().to_owned();
    assert!(keyspaces(b.db()).await.contains(&name));
    a.drop().await.expect("drop");
    assert!(!keyspaces(b.db()).await.contains(&name));
    b.drop().await.expect("drop");
}

/// The keyspaces of the cluster `db` is connected to.
async fn keyspaces(db: &cassmodel::Db) -> Vec<String> {
    db.session()
        .query_unpaged("SELECT keyspace_name FROM system_schema.keyspaces", ())
        .await
        .expect("system_schema")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("typed")
        .map(|r| r.expect("row").0)
        .collect()
}

/// A test that panics, or ends without `drop`, leaves no keyspace behind: the fixture drops
/// it when it is dropped.
#[tokio::test]
async fn a_panicking_test_leaves_no_keyspace_behind() {
    let (tx, rx) = std::sync::mpsc::channel();
    // A test of its own, on this runtime's one thread, as `#[tokio::test]` runs one.
    let test = tokio::spawn(async move {
        let ks = TestKeyspace::new("panics").await.expect("a Cassandra node");
        ks.db().create_table::<Order>().await.expect("create");
        tx.send(ks.name().to_owned()).expect("send");
        panic!("an assertion of the test failed");
    })
    .await;
    assert!(test.is_err_and(|e| e.is_panic()), "the test panicked");
    let panicked = rx.recv().expect("the keyspace's name");
    let ended = {
        let ks = TestKeyspace::new("no_drop")
            .await
            .expect("a Cassandra node");
        ks.name().to_owned()
    };
    let probe = TestKeyspace::new("probe").await.expect("a Cassandra node");
    let left = keyspaces(probe.db()).await;
    assert!(left.contains(&probe.name().to_owned()), "{left:?}");
    for name in [panicked, ended] {
        assert!(!left.contains(&name), "{name} left behind: {left:?}");
    }
}

#[tokio::test]
#[ignore = "run by `cargo xtask test` in its cluster step, on the three-node cluster"]
async fn a_fixture_on_the_cluster_keeps_three_copies() {
    let ks = TestKeyspace::on_cluster("orders")
        .await
        .expect("the three-node cluster");
    let db = ks.db();
    let (replication,): (HashMap<String, String>,) = db
        .session()
        .query_unpaged(
            "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?",
            (ks.name(),),
        )
        .await
        .expect("replication")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("one keyspace");
    assert_eq!(
        replication.get("replication_factor").map(String::as_str),
        Some("3"),
        "{replication:?}"
    );
    db.create_table::<Order>().await.expect("create");
    // Written and read at ALL: each of the three replicas took the rows and answered.
    for number in 1..=3 {
        let order = Order {
            customer: "ada".into(),
            number,
            total: 9.5,
        };
        cassmodel::Insert::new(&order)
            .with_options(|o| o.consistency = Some(Consistency::All))
            .execute(db)
            .await
            .expect("insert at ALL");
    }
    let orders = Order::select()
        .customer("ada")
        .consistency(Consistency::All)
        .fetch_all(db)
        .await
        .expect("read at ALL");
    assert_eq!(
        orders.iter().map(|o| o.number).collect::<Vec<_>>(),
        [3, 2, 1]
    );
    let nodes = db.session().get_cluster_state().get_nodes_info().len();
    assert_eq!(nodes, 3, "the fixture's connection sees the three nodes");
    ks.drop().await.expect("drop");
}
