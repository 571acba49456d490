//! A partition with static values and no clustering rows yet: Cassandra returns it as one
//! row whose clustering columns are null. Reads of rows skip it (it is not a row of the
//! table); a projection of the partition key and static columns reads the static values.

mod support;

use cassmodel::value::Timeuuid;
use cassmodel::{CassProjection, CassTable, PagingState};
use futures::TryStreamExt;

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "static_rooms")]
struct Message {
    #[partition_key]
    room: String,
    /// A regular column before the clustering one: the reader must still see the row as
    /// static-only, not as a null in `body`.
    body: String,
    #[clustering(desc)]
    at: Timeuuid,
    #[cass(static)]
    title: String,
}

#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Message)]
struct RoomTitle {
    room: String,
    title: String,
}

fn at(n: u8) -> Timeuuid {
    // A version-1 UUID (the version nibble is 1, the variant bits 10).
    Timeuuid::from_bytes([0, 0, 0, n, 0, 0, 0x11, 0xf0, 0x80, 0, 0, 0, 0, 0, 0, 1])
}

#[tokio::test]
async fn static_only_partitions_are_not_rows() {
    let t = support::test_db("static_rows").await;
    let db = &t.db;
    db.create_table::<Message>().await.expect("create");
    // "empty": only its static value; "busy": a static value and two rows.
    for room in ["empty", "busy"] {
        Message::update()
            .room(room)
            .set_title(&format!("{room} room"))
            .execute(db)
            .await
            .expect("static value");
    }
    for n in [1, 2] {
        db.insert(&Message {
            room: "busy".into(),
            body: format!("hello {n}"),
            at: at(n),
            title: "busy room".into(),
        })
        .await
        .expect("insert");
    }
    // What the server returns: one row for "empty", with a null clustering column.
    let raw: Vec<(String, Option<Timeuuid>, Option<String>)> = support::plain_rows(
        db,
        format!(
            "SELECT room, at, title FROM {}.static_rooms WHERE room = 'empty'",
            t.keyspace()
        ),
        (),
    )
    .await;
    assert_eq!(raw, [("empty".into(), None, Some("empty room".into()))]);

    // Reads of rows: none in "empty", by every terminal.
    assert_eq!(
        Message::partition(db, "empty").await.expect("partition"),
        []
    );
    let q = || Message::select().room("empty");
    assert_eq!(q().fetch_all(db).await.expect("all"), []);
    assert_eq!(q().fetch_first(db).await.expect("first"), None);
    assert_eq!(q().limit(5).fetch_all(db).await.expect("limit"), []);
    let streamed: Vec<Message> = q()
        .fetch_stream(db)
        .await
        .expect("stream")
        .try_collect()
        .await
        .expect("stream rows");
    assert_eq!(streamed, []);
    let page = q()
        .fetch_page(db, PagingState::start())
        .await
        .expect("page");
    assert!(page.rows.is_empty() && page.next.is_none());

    // Across partitions: the rows of "busy" only, newest first.
    let rows = Message::select()
        .room_in(&["empty".to_owned(), "busy".to_owned()])
        .fetch_all(db)
        .await
        .expect("in");
    let bodies: Vec<&str> = rows.iter().map(|m| m.body.as_str()).collect();
    assert_eq!(bodies, ["hello 2", "hello 1"]);
    assert!(rows.iter().all(|m| m.title == "busy room"));

    // The static values: a projection of the partition key and the static column.
    let title = Message::select()
        .room("empty")
        .read_as::<RoomTitle>()
        .fetch_first(db)
        .await
        .expect("title")
        .expect("the static value");
    assert_eq!(title.title, "empty room");
    let titles = Message::select()
        .room_in(&["empty".to_owned(), "busy".to_owned()])
        .per_partition_limit(1)
        .read_as::<RoomTitle>()
        .fetch_all(db)
        .await
        .expect("titles");
    let mut titles: Vec<String> = titles.into_iter().map(|t| t.title).collect();
    titles.sort();
    assert_eq!(titles, ["busy room", "empty room"]);
    t.drop_all().await;
}

#[test]
fn errors_name_the_exported_types() {
    use cassmodel_runtime::__private::testing::rust_name;
    assert_eq!(
        rust_name(std::any::type_name::<Option<Timeuuid>>()),
        "Option<cassmodel::value::Timeuuid>"
    );
    assert_eq!(
        rust_name(std::any::type_name::<cassmodel::value::Vector<3>>()),
        "cassmodel::value::Vector<3>"
    );
}
