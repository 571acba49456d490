//! A read's results come without their column descriptions: cassmodel's SELECTs are prepared
//! with the driver's `set_use_cached_result_metadata`, so the server leaves the descriptions
//! out of each result and the driver reads the rows with those the statement was prepared
//! with. Checked on the node: which statements do it (reads of tables without user-defined
//! types; no write, no conditional write, no read of a UDT column), and that their rows stay
//! those plain CQL reads when the table changes under a statement that stays prepared: a
//! column added and written by another client, a column dropped and added again (the server
//! refuses another type for it), and a user-defined type that gains a field.

mod support;

use cassmodel::value::Timeuuid;
use cassmodel::{CassTable, CassUdt, Db, Insert};
use cassmodel_runtime::__private::testing::prepared_statements;
use futures::TryStreamExt;
use uuid::Uuid;

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "rm_events")]
struct Event {
    #[partition_key]
    user_id: Uuid,
    #[clustering(desc)]
    event_id: Timeuuid,
    body: String,
    score: Option<i32>,
    tags: Vec<String>,
}

#[derive(CassUdt, Debug, Clone, PartialEq)]
struct RmAddress {
    street: String,
    city: String,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "rm_people")]
struct Person {
    #[partition_key]
    id: i32,
    name: String,
    #[cass(frozen)]
    home: RmAddress,
}

/// Person 1 and her home.
fn ada() -> Person {
    Person {
        id: 1,
        name: "Ada".into(),
        home: RmAddress {
            street: "1 Loop Road".into(),
            city: "Lovelace".into(),
        },
    }
}

fn user(n: u8) -> Uuid {
    Uuid::from_bytes([n, 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n])
}

fn event_id(n: u8) -> Timeuuid {
    // A version-1 UUID (the version nibble is 1, the variant bits 10).
    Timeuuid::from_bytes([0, 0, 0, n, 0, 0, 0x11, 0xf0, 0x80, 0, 0, 0, 0, 0, 0, 1])
}

/// Three users with four events each; every third score is null.
fn events() -> Vec<Event> {
    let mut out = Vec::new();
    for u in 1..=3u8 {
        for e in 1..=4u8 {
            let n = u * 10 + e;
            out.push(Event {
                user_id: user(u),
                event_id: event_id(n),
                body: format!("event {n} of user {u}"),
                score: (n % 3 != 0).then_some(i32::from(n)),
                tags: vec![format!("t{e}"), "all".into()],
            });
        }
    }
    out
}

type PlainEvent = (Uuid, Timeuuid, String, Option<i32>, Option<Vec<String>>);

/// The rows of `user`'s partition as plain CQL reads them (unprepared: each result brings
/// its own column descriptions), newest first.
async fn plain_partition(db: &Db, ks: &str, user: Uuid) -> Vec<Event> {
    db.session()
        .query_unpaged(
            format!(
                "SELECT user_id, event_id, body, score, tags FROM {ks}.rm_events \
                 WHERE user_id = ?"
            ),
            (user,),
        )
        .await
        .expect("plain read")
        .into_rows_result()
        .expect("rows")
        .rows::<PlainEvent>()
        .expect("typed")
        .map(|r| {
            let (user_id, event_id, body, score, tags) = r.expect("row");
            Event {
                user_id,
                event_id,
                body,
                score,
                tags: tags.unwrap_or_default(),
            }
        })
        .collect()
}

/// Every way cassmodel reads `user`'s partition, each checked against plain CQL's rows
/// (which must not be empty): `fetch_all`, a limit, `get`, `partition`, `count_rows`,
/// `fetch_stream` with small pages, `fetch_first`.
async fn reads_agree(db: &Db, ks: &str, user: Uuid) {
    let plain = plain_partition(db, ks, user).await;
    assert!(!plain.is_empty(), "the plain read found no rows");
    let all = Event::select()
        .user_id(&user)
        .fetch_all(db)
        .await
        .expect("fetch_all");
    assert_eq!(all, plain);
    let latest = Event::select()
        .user_id(&user)
        .limit(2)
        .fetch_all(db)
        .await
        .expect("limit");
    assert_eq!(latest, plain[..2]);
    for row in &plain {
        let got = Event::get(db, &row.user_id, &row.event_id)
            .await
            .expect("get");
        assert_eq!(got.as_ref(), Some(row));
    }
    assert_eq!(Event::partition(db, &user).await.expect("partition"), plain);
    let count = Event::select()
        .user_id(&user)
        .count_rows(db)
        .await
        .expect("count");
    assert_eq!(count, plain.len() as u64);
    let streamed: Vec<Event> = Event::select()
        .user_id(&user)
        .page_size(1)
        .fetch_stream(db)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("stream rows");
    assert_eq!(streamed, plain);
    let first = Event::select()
        .user_id(&user)
        .fetch_first(db)
        .await
        .expect("fetch_first");
    assert_eq!(first.as_ref(), plain.first());
}

async fn cql(db: &Db, text: &str) -> Result<(), String> {
    db.session()
        .query_unpaged(text, ())
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn reads_of_tables_without_udts_leave_the_descriptions_out() {
    let t = support::test_db("result_metadata").await;
    let (db, ks) = (&t.db, t.keyspace().to_owned());
    db.create_table::<Event>().await.expect("create events");
    db.create_table::<Person>().await.expect("create people");
    support::insert_all(db, events()).await;
    let ada = ada();
    db.insert(&ada).await.expect("insert person");

    reads_agree(db, &ks, user(1)).await;
    assert_eq!(Person::get(db, &1).await.expect("get"), Some(ada.clone()));
    // A conditional insert that applies, then one that does not (its result has the row's
    // columns, which the first result did not).
    let new = Event {
        event_id: event_id(99),
        ..events()[0].clone()
    };
    let first = Insert::new(&new).if_not_exists().execute(db).await;
    assert!(first.expect("conditional insert").applied);
    let again = Insert::new(&new)
        .if_not_exists()
        .execute(db)
        .await
        .expect("conditional insert");
    assert_eq!((again.applied, again.current), (false, Some(new)));

    let prepared = prepared_statements(db);
    let mut seen = [0usize; 4];
    for (cql, cached) in &prepared {
        let (kind, expected) = if cql.starts_with("INSERT") {
            (0, false)
        } else if cql.contains("rm_people") {
            (1, false)
        } else if cql.contains("COUNT(*)") {
            (2, true)
        } else {
            (3, true)
        };
        seen[kind] += 1;
        assert_eq!(*cached, expected, "{cql}");
    }
    // The inserts (plain and conditional, of both tables), the UDT read, the count, and the
    // event reads: by the whole key (get), by the partition (fetch_all, partition,
    // fetch_stream), with a limit, and the first row.
    assert!(
        seen[0] >= 3 && seen[1] == 1 && seen[2] == 1 && seen[3] >= 4,
        "{seen:?} of {prepared:#?}"
    );
    t.drop_all().await;
}

#[tokio::test]
async fn a_table_changed_under_prepared_reads_still_reads_its_rows() {
    let t = support::test_db("result_metadata_alter").await;
    let (db, ks) = (&t.db, t.keyspace().to_owned());
    db.create_table::<Event>().await.expect("create");
    support::insert_all(db, events()).await;
    // Every read prepared, with the descriptions of this table.
    reads_agree(db, &ks, user(2)).await;

    // Another client adds a column and writes it: the statements name their columns, so
    // their results keep the columns they were prepared with.
    cql(db, &format!("ALTER TABLE {ks}.rm_events ADD extra text"))
        .await
        .expect("add column");
    cql(
        db,
        &format!(
            "UPDATE {ks}.rm_events SET extra = 'not read' WHERE user_id = {} AND event_id = {}",
            user(2),
            event_id(21)
        ),
    )
    .await
    .expect("write the new column");
    reads_agree(db, &ks, user(2)).await;

    // A column dropped and added again: the server refuses another type for it, so the
    // statement's description of it stays right.
    cql(db, &format!("ALTER TABLE {ks}.rm_events DROP score"))
        .await
        .expect("drop column");
    let retyped = cql(db, &format!("ALTER TABLE {ks}.rm_events ADD score text")).await;
    let refusal = retyped.expect_err("the server let a dropped column come back as text");
    assert!(refusal.contains("score"), "{refusal}");
    cql(db, &format!("ALTER TABLE {ks}.rm_events ADD score int"))
        .await
        .expect("add the column back with its type");
    // Its old values are gone: every score reads null, in both reads.
    let plain = plain_partition(db, &ks, user(2)).await;
    assert!(plain.iter().all(|e| e.score.is_none()), "{plain:?}");
    reads_agree(db, &ks, user(2)).await;
    t.drop_all().await;
}

#[tokio::test]
async fn a_udt_that_gains_a_field_is_read_with_each_results_descriptions() {
    let t = support::test_db("result_metadata_udt").await;
    let (db, ks) = (&t.db, t.keyspace().to_owned());
    db.create_table::<Person>().await.expect("create");
    let ada = ada();
    db.insert(&ada).await.expect("insert");
    assert_eq!(Person::get(db, &1).await.expect("get"), Some(ada.clone()));

    cql(db, &format!("ALTER TYPE {ks}.rm_address ADD zip text"))
        .await
        .expect("alter type");
    cql(
        db,
        &format!(
            "UPDATE {ks}.rm_people SET home = {{street: 'Analytical Way', city: 'London', \
             zip: 'N1'}} WHERE id = 1"
        ),
    )
    .await
    .expect("write the new field");
    let moved = Person {
        home: RmAddress {
            street: "Analytical Way".into(),
            city: "London".into(),
        },
        ..ada
    };
    assert_eq!(Person::get(db, &1).await.expect("get"), Some(moved.clone()));
    assert_eq!(
        Person::select()
            .id(&1)
            .fetch_all(db)
            .await
            .expect("fetch_all"),
        vec![moved]
    );
    let prepared = prepared_statements(db);
    assert!(
        prepared
            .iter()
            .any(|(cql, cached)| cql.starts_with("SELECT") && !cached),
        "{prepared:#?}"
    );
    t.drop_all().await;
}
