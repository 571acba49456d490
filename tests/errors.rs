//! Typed errors: a caller tells a timeout, an unavailable replica set, a schema mismatch, an
//! invalid request and a connection failure apart with `Error::kind()` (or the `is_*`
//! methods), without downcasting the driver's errors. Each failure is produced for real on the
//! node.

mod support;

use std::time::Duration;

use cassmodel::{Batch, CassTable, Consistency, Db, Error, ErrorKind, Insert};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "readings")]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering]
    seq: i32,
    value: String,
}

fn reading(sensor: i32, seq: i32) -> Reading {
    Reading {
        sensor,
        seq,
        value: format!("{sensor}-{seq}-{}", "x".repeat(200)),
    }
}

#[tokio::test]
async fn a_table_not_created_is_a_schema_mismatch() {
    let t = support::test_db("err_schema").await;
    let err = Reading::get(&t.db, &1, &1)
        .await
        .expect_err("the table does not exist");
    assert_eq!(err.kind(), ErrorKind::SchemaMismatch, "{err}");
    assert!(err.is_schema_mismatch());
    assert!(!err.is_invalid_request() && !err.is_timeout());
    // The message names the keyspace and the table.
    let msg = err.to_string();
    assert!(msg.contains(&format!("{}.readings", t.keyspace())), "{msg}");
    t.drop_all().await;
}

#[tokio::test]
async fn too_few_replicas_is_unavailable() {
    let mut t = support::test_db("err_unavailable").await;
    // Seven replicas wanted: more than this node (or a three-node cluster) has, so neither
    // ALL (7) nor a quorum (4) can be met and the coordinator refuses before trying.
    let db = t.with_replicas(7).await;
    let ks = db.keyspace().expect("keyspace").to_owned();
    db.create_table::<Reading>().await.expect("create table");
    let row = reading(1, 1);
    let err = Insert::new(&row)
        .with_options(|o| o.consistency = Some(Consistency::All))
        .execute(&db)
        .await
        .expect_err("ALL with seven replicas on fewer nodes");
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.is_unavailable());
    assert!(err.to_string().contains(&format!("{ks}.readings")), "{err}");
    // One node tried: the answer in cassmodel's words, as when several are.
    let msg = err.to_string();
    assert!(
        msg.contains("failed: Unavailable: ALL needs 7 replicas alive, "),
        "{msg}"
    );
    assert!(!msg.contains("Database returned an error"), "{msg}");
    // At ONE the same write goes through: the kind told the caller what to change.
    Insert::new(&row)
        .with_options(|o| o.consistency = Some(Consistency::One))
        .execute(&db)
        .await
        .expect("ONE is met by the live replicas");
    let back = Reading::select()
        .sensor(&1)
        .seq(&1)
        .consistency(Consistency::One)
        .fetch_first(&db)
        .await
        .expect("read at ONE");
    assert_eq!(back, Some(row.clone()));
    // The default consistency (LOCAL_QUORUM: 4 of 7) cannot be met either.
    let err = Reading::get(&db, &1, &1)
        .await
        .expect_err("LOCAL_QUORUM of seven replicas on fewer nodes");
    assert!(err.is_unavailable(), "{err}");
    t.drop_all().await;
}

#[tokio::test]
async fn a_client_timeout_is_a_timeout() {
    let t = support::test_db("err_timeout").await;
    t.db.create_table::<Reading>().await.expect("create");
    // A partition large enough that reading it takes well over a millisecond.
    let rows: Vec<Reading> = (0..3000).map(|i| reading(7, i)).collect();
    support::insert_all(&t.db, rows).await;
    let all = Reading::select()
        .sensor(&7)
        .fetch_all(&t.db)
        .await
        .expect("read");
    assert_eq!(all.len(), 3000);
    let err = Reading::select()
        .sensor(&7)
        .page_size(5000)
        .timeout(Duration::from_micros(1))
        .fetch_all(&t.db)
        .await
        .expect_err("3,000 rows cannot arrive within a microsecond");
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    assert!(err.is_timeout() && !err.is_unavailable());
    t.drop_all().await;
}

#[tokio::test]
async fn a_refused_value_is_an_invalid_request() {
    let t = support::test_db("err_invalid").await;
    t.db.create_table::<Reading>().await.expect("create");
    let row = reading(1, 1);
    let err = Insert::new(&row)
        .using_ttl(-5)
        .execute(&t.db)
        .await
        .expect_err("a negative TTL");
    assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{err}");
    assert!(err.is_invalid_request() && !err.is_schema_mismatch());
    assert!(
        err.to_string()
            .contains(&format!("{}.readings", t.keyspace())),
        "{err}"
    );
    t.drop_all().await;
}

#[tokio::test]
async fn nothing_listening_is_a_connection_error() {
    // A loopback port nothing listens on: refused at once.
    let err = Db::connect(&["127.0.0.1:1".to_owned()])
        .await
        .expect_err("nothing listens on port 1");
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    assert!(!err.is_authentication() && !err.is_timeout());
    // The hint fits the cause: start a node or point at one.
    assert!(err.to_string().contains("cassmodel-node"), "{err}");
    // Several contact points, none reachable: each with its own reason (the driver keeps the
    // last one's only).
    let err = Db::connect(&[
        "127.0.0.1:1".to_owned(),
        "127.0.0.3:2".to_owned(),
        "no-such-host.invalid:9042".to_owned(),
    ])
    .await
    .expect_err("nothing listens there");
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    let text = err.to_string();
    for part in [
        "each contact point: 127.0.0.1:1: connection refused",
        "; 127.0.0.3:2: connection refused",
        "; no-such-host.invalid:9042: the name does not resolve",
    ] {
        assert!(text.contains(part), "{part:?} not in {text}");
    }
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "blobs")]
struct Blob {
    #[partition_key]
    id: i32,
    data: Vec<u8>,
}

/// A column whose type has no size bound before it is written (a varint): an insert writes
/// it apart first to learn its size.
#[derive(CassTable, Debug, PartialEq)]
#[cass(table = "big_numbers")]
struct BigNumber {
    #[partition_key]
    id: i32,
    n: cassmodel::value::Varint,
}

const MIB: usize = 1024 * 1024;

/// A write larger than the server takes in one request (16 MiB by default) is refused by
/// cassmodel before it is sent, naming the table and the limit; one just under the limit is
/// written. A lowered limit refuses a write the server would take, which shows the refusal is
/// cassmodel's.
#[tokio::test]
async fn a_write_over_the_request_limit_is_refused_before_sending() {
    let t = support::test_db("err_too_large").await;
    t.db.create_table::<Blob>().await.expect("create");
    let table = format!("{}.blobs", t.keyspace());
    let too_large = |err: &Error| match err {
        Error::RequestTooLarge {
            table: t,
            bytes,
            limit,
        } => {
            assert_eq!(t, &table, "{err}");
            assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{err}");
            assert!(
                err.to_string().contains("native_transport_max_frame_size"),
                "{err}"
            );
            (*bytes, *limit)
        }
        other => panic!("expected Error::RequestTooLarge, got {other:?}"),
    };
    assert_eq!(t.db.max_request_size(), 16 * MIB);

    let big = Blob {
        id: 1,
        data: vec![7; 17 * MIB],
    };
    let (bytes, limit) = too_large(&t.db.insert(&big).await.expect_err("17 MiB"));
    assert!(bytes > 17 * MIB && limit == 16 * MIB, "{bytes} {limit}");
    let err = Blob::update()
        .set_data(&big.data)
        .id(&1)
        .execute(&t.db)
        .await
        .expect_err("17 MiB");
    too_large(&err);
    // Three rows of 6 MiB: each fits, the batch does not.
    let rows: Vec<Blob> = (2..5)
        .map(|id| Blob {
            id,
            data: vec![1; 6 * MIB],
        })
        .collect();
    let batch = rows.iter().fold(Batch::logged(), |b, r| b.insert(r));
    let (bytes, _) = too_large(&batch.execute(&t.db).await.expect_err("18 MiB"));
    assert!(bytes > 18 * MIB, "{bytes}");
    for id in 1..5 {
        assert_eq!(Blob::get(&t.db, &id).await.expect("read"), None, "row {id}");
    }

    // Just under the limit: written and read back whole.
    let under = Blob {
        id: 5,
        data: vec![9; 16 * MIB - 1024],
    };
    t.db.insert(&under).await.expect("under the limit");
    assert_eq!(Blob::get(&t.db, &5).await.expect("read"), Some(under));
    // The first `db.insert` of a table prepares its statement; every later one takes another
    // path (the driver's request future, mapped): refused the same way there.
    let (bytes, _) = too_large(&t.db.insert(&big).await.expect_err("17 MiB, again"));
    assert!(bytes > 17 * MIB, "{bytes}");
    assert_eq!(Blob::get(&t.db, &1).await.expect("read"), None);

    // A lowered limit refuses 2 MiB, which the server takes from the default `Db`.
    let small = t.db.with_max_request_size(MIB);
    let two = Blob {
        id: 6,
        data: vec![3; 2 * MIB],
    };
    let (_, limit) = too_large(&small.insert(&two).await.expect_err("over 1 MiB"));
    assert_eq!(limit, MIB);
    assert_eq!(Blob::get(&t.db, &6).await.expect("read"), None);
    t.db.insert(&two)
        .await
        .expect("2 MiB under the default limit");
    assert_eq!(Blob::get(&t.db, &6).await.expect("read"), Some(two));

    // A value without a size bound (a varint of 2 MiB): refused the same way, by its size
    // as written; written under the default limit.
    t.db.create_table::<BigNumber>().await.expect("create");
    let number = BigNumber {
        id: 1,
        n: cassmodel::value::Varint::from_signed_bytes_be(vec![0x35; 2 * MIB]),
    };
    let refused = small
        .insert(&number)
        .await
        .expect_err("a 2 MiB varint over 1 MiB");
    let Error::RequestTooLarge {
        table: t_name,
        bytes,
        limit,
    } = &refused
    else {
        panic!("expected Error::RequestTooLarge, got {refused:?}");
    };
    assert_eq!(
        t_name,
        &format!("{}.big_numbers", t.keyspace()),
        "{refused}"
    );
    assert!(*bytes > 2 * MIB && *limit == MIB, "{refused}");
    assert_eq!(BigNumber::get(&t.db, &1).await.expect("read"), None);
    t.db.insert(&number)
        .await
        .expect("2 MiB under the default limit");
    assert_eq!(BigNumber::get(&t.db, &1).await.expect("read"), Some(number));
    t.drop_all().await;
}
