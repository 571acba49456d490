//! The DDL each kind of model generates, checked as text (no database needed). The same
//! models are created on a real node in `tests/seed_models.rs`.

use std::collections::{BTreeSet, HashMap};

use cassmodel::value::{Counter, Timeuuid};
use cassmodel::{CassTable, CassUdt, Table};
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "posts_facebook")]
struct Post {
    #[partition_key]
    user_id: Uuid,
    #[clustering(desc)]
    post_id: Timeuuid,
    content: String,
}

#[derive(CassUdt)]
struct Address {
    street_name: String,
    city: String,
}

#[derive(CassUdt)]
#[cass(name = "person")]
struct Person {
    name: String,
    home: Address,
    #[cass(frozen)]
    old: Vec<Address>,
    // A collection in a type is frozen, unless its type is declared: then as written (a type
    // made by hand with a non-frozen one, as `cassmodel pull` writes it).
    nicknames: Vec<String>,
    #[cass(cql_type = "list<text>")]
    phones: Vec<String>,
}

#[derive(CassTable)]
#[cass(
    keyspace = "shop",
    default_ttl = 86400,
    comment = "it's a test",
    compaction = "LeveledCompactionStrategy"
)]
struct Everything {
    #[partition_key]
    a: String,
    #[partition_key]
    r#order: i32,
    #[clustering]
    c: i64,
    #[clustering(desc)]
    #[cass(frozen)]
    d: Vec<i32>,
    #[cass(static)]
    s: Option<String>,
    #[cass(name = "Mixed", cql_type = "ascii", index)]
    mixed: String,
    #[cass(index)]
    tags: BTreeSet<String>,
    #[cass(index(keys, name = "everything_by_product"))]
    products: HashMap<Uuid, i32>,
    #[cass(name = "select", index)]
    select: Option<String>,
    #[cass(cql_type = "frozen<person>")]
    who: Person,
    pair: (i32, String),
}

#[derive(CassTable)]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
}

#[test]
fn post() {
    assert_eq!(
        Post::schema().create_cql("ks"),
        [
            "CREATE TABLE IF NOT EXISTS ks.posts_facebook (user_id uuid, post_id timeuuid, \
         content text, PRIMARY KEY (user_id, post_id)) WITH CLUSTERING ORDER BY (post_id DESC)"
        ]
    );
}

#[test]
fn everything() {
    let s = Everything::schema();
    assert_eq!(s.name, "everything");
    assert_eq!(s.keyspace, Some("shop"));
    assert_eq!(
        s.create_cql("shop"),
        vec![
            "CREATE TYPE IF NOT EXISTS shop.address (street_name text, city text)".to_owned(),
            "CREATE TYPE IF NOT EXISTS shop.person (name text, home frozen<address>, old frozen<list<frozen<address>>>, nicknames frozen<list<text>>, phones list<text>)".to_owned(),
            "CREATE TABLE IF NOT EXISTS shop.everything (a text, \"order\" int, c bigint, \
             d frozen<list<int>>, s text STATIC, \"Mixed\" ascii, tags set<text>, \
             products map<uuid, int>, \"select\" text, who frozen<person>, pair tuple<int, text>, \
             PRIMARY KEY ((a, \"order\"), c, d)) WITH CLUSTERING ORDER BY (c ASC, d DESC) \
             AND default_time_to_live = 86400 AND comment = 'it''s a test' AND \
             compaction = {'class': 'LeveledCompactionStrategy'}"
                .to_owned(),
            "CREATE INDEX IF NOT EXISTS \"everything_Mixed_idx\" ON shop.everything (\"Mixed\") USING 'sai'"
                .to_owned(),
            "CREATE INDEX IF NOT EXISTS everything_tags_idx ON shop.everything (values(tags)) USING 'sai'"
                .to_owned(),
            "CREATE INDEX IF NOT EXISTS everything_by_product ON shop.everything (keys(products)) USING 'sai'"
                .to_owned(),
            "CREATE INDEX IF NOT EXISTS everything_select_idx ON shop.everything (\"select\") USING 'sai'"
                .to_owned(),
        ]
    );
}

#[test]
fn counter_table() {
    assert!(PageViews::schema().is_counter_table());
    assert_eq!(
        PageViews::schema().create_cql("ks"),
        ["CREATE TABLE IF NOT EXISTS ks.page_views (page text, views counter, PRIMARY KEY (page))"]
    );
}
