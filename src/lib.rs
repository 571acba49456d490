//! # cassmodel
//!
//! A typed data-access layer for Apache Cassandra and ScyllaDB. Annotate a struct, and
//! cassmodel generates the table's DDL, prepared statements and query methods, and refuses
//! at compile time the data models Cassandra would refuse at run time.
//!
//! ```no_run
//! use cassmodel::{CassTable, Db, Replication};
//! use cassmodel::value::Timeuuid;
//! use uuid::Uuid;
//!
//! /// The latest posts of a user, newest first.
//! #[derive(CassTable, Debug)]
//! #[cass(table = "posts_facebook")]
//! struct Post {
//!     #[partition_key]
//!     user_id: Uuid,
//!     #[clustering(desc)]
//!     post_id: Timeuuid,
//!     content: String,
//! }
//!
//! # async fn run() -> cassmodel::Result<()> {
//! let db = Db::connect_from_env().await?.with_keyspace("social")?;
//! db.create_keyspace("social", &Replication::Simple(1)).await?;
//! db.create_table::<Post>().await?;
//! let user_id = Uuid::new_v4();
//! let post_id = Timeuuid::from(uuid::Uuid::now_v1(&[1, 2, 3, 4, 5, 6]));
//! db.insert(&Post { user_id, post_id, content: "hello".into() }).await?;
//! // The latest 20 posts of the user: one partition, newest first, no sort.
//! let latest: Vec<Post> = Post::select().user_id(&user_id).limit(20).fetch_all(&db).await?;
//! let one: Option<Post> = Post::get(&db, &user_id, &post_id).await?;
//! # Ok(()) }
//! ```
//!
//! ## The journey, and where each step is documented
//!
//! This page is the reference of the derives and the API; the guide (`docs/guide/` in the
//! repository, an mdBook: getting started, modelling, queries, writes, migrations, testing,
//! ...) walks through each step with samples that run.
//!
//! 1. **A node to work against**: your cluster (`CASSMODEL_CONTACT_POINTS` and the other
//!    [`config::ENV_VARS`], or [`ConnectOptions`]), or a local Cassandra 5.0 node without
//!    Docker: the `cassmodel-node` crate, whose `TestKeyspace` (a dev-dependency: a fresh
//!    keyspace on a node started or reused in one call, dropped with it) your integration
//!    tests start from, and whose `cassmodel-node start` command runs the node by hand.
//! 2. **Models**: [`#[derive(CassTable)]`](#derivecasstable) per query table, with
//!    [`CassProjection`](#derivecassprojection) for partial and computed reads,
//!    [`CassUdt`](#derivecassudt) for user-defined types and `CassEntity` for one struct
//!    written to several tables. A model Cassandra would refuse does not compile.
//! 3. **Schema**: [`migrate::Migrator`] plans, applies and validates the keyspace against
//!    the models (CLI: the `cassmodel-cli` crate); `cassmodel pull` writes the models of a
//!    keyspace you already have.
//! 4. **Queries**: the typed builders below; a query Cassandra would refuse does not
//!    compile, and the message names the column to give.
//! 5. **Growth**: [`sizing`] estimates a partition's size from declared expectations and
//!    the live table, and time buckets (`#[cass(bucket(..))]`) split a growing partition.
//! 6. **Changing a key**: [`migrate::copy`] copies a table to its new key online, with dual
//!    writes, a resumable backfill and a verification, before the old table is dropped.
//! 7. **In production**: errors that name the node and what it answered ([`Error::attempts`],
//!    [`ErrorKind`]), server warnings, and a `tracing` span per statement
//!    ([When the cluster is degraded](#when-the-cluster-is-degraded)).
//!
//! ## Queries that Cassandra serves from one partition, and nothing else
//!
//! `T::select()`, `T::delete()` and `T::update()` start a typed builder (`PostQuery`). Its
//! methods are named after the columns and must follow Cassandra's rules, or the code does
//! not compile:
//!
//! 1. every partition-key column, in declared order, by `=` (`.user_id(&v)`) or `IN`
//!    (`.user_id_in(&[a, b])`);
//! 2. then a prefix of the clustering columns, in declared order, by `=` or `IN`;
//! 3. then optionally one range on the next clustering column: `_gt`, `_ge`, `_lt`, `_le`
//!    (a lower and an upper bound may both be given); nothing after it.
//!
//! ```compile_fail
//! # use cassmodel::{CassTable, Db}; use uuid::Uuid; use cassmodel::value::Timeuuid;
//! # #[derive(CassTable)] struct Post { #[partition_key] user_id: Uuid, #[clustering(desc)] post_id: Timeuuid, content: String }
//! # async fn f(db: &Db, post_id: Timeuuid) {
//! // error: `post`: give `user_id` first, by `=` or `IN`
//! Post::select().post_id(&post_id).fetch_all(db).await;
//! # }
//! ```
//!
//! Reads end with `fetch_all` (every row, paged), `fetch_first` (adds `LIMIT 1`),
//! `fetch_stream` (one page at a time, constant memory) or `fetch_page` (one page and an
//! opaque [`PagingState`] to resume from, for web APIs), or `count_rows` (`SELECT COUNT(*)`
//! with the same restrictions: the server counts, a `u64` comes back). On a bucketed table
//! (`#[cass(bucket(..))]`), `<source>_range(from..to)` reads a range over its buckets and
//! `<source>_latest(n, horizon..)` the latest `n` rows back from now (see [`BucketRead`](query::BucketRead)).
//! Before that: `limit(n)`,
//! `per_partition_limit(n)`, `reversed()` (a reverse scan: explicit on purpose),
//! `order_by_<first clustering column>(Order)`, `read_as::<P>()` for a projection
//! (`#[derive(CassProjection)]`), and per-query options (`consistency`, `serial_consistency`,
//! `timeout`, `page_size`, `tracing`, `idempotent`).
//!
//! Deletes take the partition key and optionally a clustering prefix and a range (a range
//! delete). Updates take `set_<column>(&v)` for regular columns and the whole primary key.
//!
//! ## Queries on indexed columns
//!
//! A field with `#[cass(index)]` (a storage-attached index) can be queried with no key column
//! (across partitions) or after the whole partition key, each restriction only where its index
//! answers it: `col(v)`, ranges (`col_gt(v)`, ...) on ordered types (numbers, dates, times,
//! timestamps, timeuuids, inet), `col_contains(v)` on a list, set or map indexed on its values,
//! `col_contains_key(k)` with `index(keys)`, `col_entry(k, v)` with `index(entries)`. A map
//! may carry all three (`#[cass(index(keys), index(values), index(entries))]`): the first
//! index of a column is named `<table>_<column>_idx`, the next ones
//! `<table>_<column>_<target>_idx`, unless `name = ".."` names them. A column takes one index
//! per target.
//!
//! ```no_run
//! # use cassmodel::{CassTable, Db}; use std::collections::{HashMap, HashSet};
//! #[derive(CassTable)]
//! struct Item {
//!     #[partition_key]
//!     shop: String,
//!     #[clustering]
//!     sku: i32,
//!     #[cass(index)]
//!     stock: i32,
//!     #[cass(index)]
//!     tags: HashSet<String>,
//!     #[cass(index(keys))]
//!     attrs: HashMap<String, String>,
//! }
//! # async fn f(db: &Db) -> cassmodel::Result<()> {
//! // Across partitions, two indexes combined: WHERE tags CONTAINS ? AND stock < ?
//! let low = Item::select().tags_contains("fresh").stock_lt(&5).fetch_all(db).await?;
//! // Within one partition: WHERE shop = ? AND attrs CONTAINS KEY ?
//! let sized = Item::select().shop("north").attrs_contains_key("size").fetch_all(db).await?;
//! # Ok(()) }
//! ```
//!
//! ```compile_fail
//! # use cassmodel::{CassTable, Db}; use std::collections::HashMap;
//! # #[derive(CassTable)] struct Item { #[partition_key] shop: String, #[cass(index)] attrs: HashMap<String, String> }
//! # async fn f(db: &Db) {
//! // error: `item`: `CONTAINS KEY` on `attrs` needs an index on its keys: add
//! // `#[cass(index(keys))]` on `attrs`
//! Item::select().attrs_contains_key("size").fetch_all(db).await;
//! # }
//! ```
//!
//! ## Vector search
//!
//! A [`value::Vector<N>`] field is a `vector<float, N>` column (Cassandra 5.0), written and
//! read back exactly. With `#[cass(index)]` it gets an SAI vector index (similarity function
//! `cosine`, or `index(similarity = "dot_product")` / `"euclidean"`) and a typed nearest-
//! neighbour query, `ann_<field>(&query)`: `ORDER BY <col> ANN OF ? LIMIT ?`, with no key column
//! or after the whole partition key, and with indexed-column restrictions. It needs
//! `.limit(k)` (at most 1000), is read in one request (`fetch_all`, `fetch_first`), and
//! `.with_score()` reads each row as [`Scored`](query::Scored) with its similarity (`(1 + cosine) / 2`, ...).
//!
//! ```no_run
//! # use cassmodel::{CassProjection, CassTable, Db, query::Scored};
//! use cassmodel::value::Vector;
//!
//! #[derive(CassTable)]
//! struct Doc {
//!     #[partition_key]
//!     shelf: String,
//!     #[clustering]
//!     id: i32,
//!     #[cass(index)]
//!     topic: String,
//!     #[cass(index(similarity = "dot_product"))]
//!     embedding: Vector<3>,
//! }
//!
//! #[derive(CassProjection)]
//! #[cass(table = Doc)]
//! struct DocId {
//!     shelf: String,
//!     id: i32,
//! }
//!
//! # async fn f(db: &Db) -> cassmodel::Result<()> {
//! let q = Vector::new([0.6, 0.8, 0.0]);
//! // The 10 nearest documents on a topic, across shelves, with their similarity.
//! let near: Vec<Scored<DocId>> = Doc::select()
//!     .topic("rust")
//!     .ann_embedding(&q)
//!     .limit(10)
//!     .read_as::<DocId>()
//!     .with_score()
//!     .fetch_all(db)
//!     .await?;
//! // The 3 nearest in one shelf.
//! let shelf = Doc::select().shelf("a").ann_embedding(&q).limit(3).fetch_all(db).await?;
//! # Ok(()) }
//! ```
//!
//! ### The similarity to a query vector, in any read
//!
//! `similarity_<field>(function, &query)` reads each row with `similarity_<function>(<col>,
//! ?)` before its columns, as [`Scored`](query::Scored): with or without a vector search, on a column with
//! or without an index, by any of the three functions ([`Similarity`](schema::Similarity)). The score is an `f32`,
//! or an `Option<f32>` for an `Option<Vector<N>>` field (`None` for a row without a vector).
//! Several scores nest, the last one called outside. The query vector has the column's
//! dimension (checked at compile time, as `ann_<field>`'s), and a vector the function cannot
//! compare (a NaN, a zero vector for cosine) is refused before it is sent.
//!
//! ```no_run
//! # use cassmodel::{CassProjection, CassTable, Db, query::Scored, schema::Similarity};
//! # use cassmodel::value::Vector;
//! # #[derive(CassTable)]
//! # struct Doc {
//! #     #[partition_key] shelf: String, #[clustering] id: i32,
//! #     #[cass(index)] topic: String,
//! #     #[cass(index(similarity = "dot_product"))] embedding: Vector<3>,
//! # }
//! # #[derive(CassProjection)] #[cass(table = Doc)] struct DocId { shelf: String, id: i32 }
//! # async fn f(db: &Db) -> cassmodel::Result<()> {
//! let q = Vector::new([0.6, 0.8, 0.0]);
//! // Every document of a shelf, in clustering order, with its cosine similarity to `q`:
//! // SELECT similarity_cosine(embedding, ?), shelf, id FROM doc WHERE shelf = ?
//! let scored: Vec<Scored<DocId>> = Doc::select()
//!     .shelf("a")
//!     .read_as::<DocId>()
//!     .similarity_embedding(Similarity::Cosine, &q)
//!     .fetch_all(db)
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! A search without an index, without a limit, with a query vector of another dimension,
//! paged, reversed or after `select_allow_filtering()` does not compile:
//!
//! ```compile_fail
//! # use cassmodel::{CassTable, Db}; use cassmodel::value::Vector;
//! # #[derive(CassTable)] struct Doc { #[partition_key] id: i32, #[cass(index)] embedding: Vector<3> }
//! # async fn f(db: &Db) {
//! // error: a vector search needs a limit: add `.limit(k)` (at most 1000) before reading it
//! Doc::select().ann_embedding(&Vector::new([1.0, 0.0, 0.0])).fetch_all(db).await;
//! # }
//! ```
//!
//! ## Static columns
//!
//! A partition that has static values and no clustering rows yet (only `set_<static>` was
//! written) is returned by Cassandra as one row whose clustering columns are null. It is not
//! a row of the table, so reads of rows (`fetch_*`, `partition`, `get`, streams and pages)
//! skip it. Its static values are read with a projection of the partition key and the static
//! columns (`.read_as::<P>()`), which every partition has, rows or not: add
//! `.per_partition_limit(1)` (or `fetch_first`) to read them once per partition. One
//! consequence: `fetch_first` across partitions with `LIMIT 1` returns `None` if the first
//! partition the server returns holds only static values.
//!
//! Scans are possible only through calls that say what they cost:
//! `T::scan_full_table(&db, splits)` (token ranges) and `T::select_allow_filtering()`.
//!
//! Every statement shape is prepared once per [`Db`] and reused; no CQL text is built per
//! call, and values (limits included) are always bound.
//!
//! The builder terminals that page or write (`fetch_stream`, `fetch_page`, `execute`,
//! [`Batch::execute`], ...) return a [`QueryFuture`](query::QueryFuture): one boxed, `Send` future whose type
//! names only what it yields, so the builder's state and the driver's futures stay out of the
//! types your crate checks. The hot calls, [`Db::insert`], `T::get`, and the reads of a few
//! rows, `fetch_all` and `fetch_first`, return an unboxed `impl Future + Send` (no
//! allocation of their own). Either way a query the compiler refuses is refused once. The
//! builder itself is generated as thin typed methods over generic runtime code: 50 derived
//! tables compile faster than the same tables with the scylla driver's own row derives (see
//! `BENCHMARKS.md`, `cargo xtask compile-bench`).
//!
//! ## Writes
//!
//! ```no_run
//! # use cassmodel::{Batch, CassTable, query::Cmp, Db, Insert}; use uuid::Uuid;
//! # use std::collections::BTreeMap; use cassmodel::value::Counter;
//! # #[derive(CassTable)] struct Slot { #[partition_key] day: i32, #[clustering] start: i32, holder: Option<Uuid> }
//! # #[derive(CassTable)] struct Basket { #[partition_key] customer: Uuid, products: BTreeMap<Uuid, i32> }
//! # #[derive(CassTable)] struct Views { #[partition_key] page: String, views: Counter }
//! # async fn f(db: &Db, me: Uuid, product: Uuid, slot: Slot) -> cassmodel::Result<()> {
//! // Upsert a row; `None` fields are left unset (no tombstone). TTL, write time, IF NOT EXISTS:
//! db.insert(&slot).await?;
//! let outcome = Insert::new(&slot).if_not_exists().using_ttl(600).execute(db).await?;
//!
//! // Reserve a slot only if it is free (a lightweight transaction), for 10 minutes:
//! let outcome = Slot::update()
//!     .set_holder(&me)
//!     .day(&1).start(&9)
//!     .if_holder(Cmp::Eq, &None::<Uuid>)
//!     .using_ttl(600)
//!     .execute(db)
//!     .await?;
//! if !outcome.applied {
//!     println!("taken by {:?}", outcome.current.and_then(|s| s.holder));
//! }
//!
//! // Change one entry of a map without rewriting it; count with a counter:
//! Basket::update().put_products(&product, &2).customer(&me).execute(db).await?;
//! Views::update().increment_views(1).page("home").execute(db).await?;
//!
//! // Several statements, all or none:
//! Batch::logged()
//!     .insert(&slot)
//!     .add(Basket::update().remove_products_keys(&[product]).customer(&me))
//!     .execute(db)
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! The compiler enforces Cassandra's write rules: key columns cannot be set; an update of a
//! regular column names the whole primary key, one of static columns only the partition key;
//! counters are only incremented (no insert, TTL, write time or condition on a counter table);
//! counter and other statements do not share a batch. What only the values can tell (an LWT
//! batch spanning partitions, `IN` in an LWT) is refused before anything is sent.
//!
//! `#[derive(CassEntity)]` declares one entity stored in several query tables
//! (`#[cass(tables(ByUser, ByItem))]` on the entity, `#[cass(entity = Like)]` on each table):
//! `like.save(&db)` and `like.delete(&db)` write every table in one logged batch, and a table
//! named on one side but not the other is a compile error.
//!
//! ## `#[derive(CassTable)]`
//!
//! Field attributes:
//!
//! | attribute | meaning |
//! |---|---|
//! | `#[partition_key]` | part of the partition key; several fields make a composite key, in field order |
//! | `#[clustering]`, `#[clustering(asc)]`, `#[clustering(desc)]` | a clustering column, in field order, with its clustering order |
//! | `#[cass(static)]` | a static column (one value per partition; needs a clustering column) |
//! | `#[cass(name = "col")]` | the column name (default: the field name) |
//! | `#[cass(cql_type = "timeuuid")]` | the CQL type, where the Rust type alone cannot say it (`ascii`, `timeuuid`, `varint`, `frozen<...>`, a `Vec` as a `set<...>`, a `Vec` of pairs as a `map<...>`: see [`CqlMapping`](model::CqlMapping)) |
//! | `#[cass(frozen)]` | store a collection or user-defined type frozen (required in a key) |
//! | `#[cass(index)]`, `#[cass(index(name = "by_email"))]` | a storage-attached (SAI) secondary index on the column, see below; a map may have one on each of `keys`, `values` and `entries` (`index(keys), index(entries)`) |
//! | `#[cass(index(similarity = "dot_product"))]` | on a [`value::Vector`] field: the vector index's similarity function (`cosine`, the default, `dot_product`, `euclidean`) |
//! | `#[cass(masked = mask_inner(1, null))]` | a masked column (Cassandra 5.0, `dynamic_data_masking_enabled` on the server): roles without the `UNMASK` permission read the masked value; see below |
//!
//! Options combine in one attribute: `#[cass(static, index)]`.
//!
//! ### Masked columns
//!
//! `masked = ` one of Cassandra's six masking functions: `mask_null()` (null: the field must
//! be an `Option`), `mask_default()` (a fixed value of the type: `****`, 0, ...),
//! `mask_replace(value)`, `mask_inner(begin, end)` and `mask_outer(begin, end)` (the
//! characters but the first `begin` and last `end`, or those, replaced by `*`, or by a third
//! argument `"#"`; `null` for none; text columns only), `mask_hash()` (a hash; blob columns
//! only: Cassandra masks a column only with a function of its type). The table is created with
//! `MASKED WITH ..`; `validate` compares the masks with `system_schema.column_masks`, and
//! `plan` adds them and replaces one function by another (`ALTER TABLE .. ALTER col MASKED
//! WITH ..`). Dropping a mask (`DROP MASKED`) exposes the column to every role without
//! `UNMASK`: a mask the field does not declare is refused until the column is named with
//! [`Migrator::allow_unmask`](migrate::Migrator::allow_unmask) (CLI `--allow-unmask
//! ks.table.column`), and the plan's text marks the step. A function that does not exist,
//! or arguments it does not take, do not compile.
//!
//! ```
//! # use cassmodel::CassTable;
//! #[derive(CassTable)]
//! struct Patient {
//!     #[partition_key]
//!     id: i32,
//!     #[cass(masked = mask_inner(1, null))] // "Ada Lovelace" -> "A***********"
//!     name: String,
//!     #[cass(masked = mask_default())]      // 0
//!     age: i32,
//!     #[cass(masked = mask_null())]         // None
//!     phone: Option<String>,
//! }
//! ```
//!
//! ### Materialized views
//!
//! `#[cass(view_of = Base)]` on a `#[derive(CassTable)]` struct declares a materialized view
//! of `Base`'s table: the same columns (fields of the same names and types), keyed again. It
//! is read like a table (`select()`, `get`, `partition`, the key-prefix rules of its own key)
//! and never written: `db.insert(&view_row)`, `View::update()` and `View::delete()` do not
//! compile, and the message names the base table to write instead. Cassandra's rules are
//! checked at compile time against the base's fields: every primary-key column of the base is
//! in the view's primary key, at most one other column joins it, each field is a field of the
//! base, the base is a table (not a view, not a counter table); a view has no keyspace,
//! table options, static columns, indexes, masks or buckets of its own.
//! `#[cass(view_of = Base, all_columns)]` declares a view of every column (`SELECT *`, which
//! gains the columns later added to the base): its struct has every field of the base.
//!
//! ```
//! # use cassmodel::CassTable;
//! #[derive(CassTable)]
//! struct Reading {
//!     #[partition_key]
//!     sensor: i32,
//!     #[clustering(desc)]
//!     ts: i64,
//!     site: String,
//!     value: f64,
//! }
//!
//! /// `SELECT .. WHERE site = ?`: the readings of a site, kept by the server.
//! #[derive(CassTable)]
//! #[cass(table = "readings_by_site", view_of = Reading)]
//! struct BySite {
//!     #[partition_key]
//!     site: String,
//!     #[clustering]
//!     sensor: i32,
//!     #[clustering(desc)]
//!     ts: i64,
//!     value: f64,
//! }
//! ```
//!
//! Creating a view is opt-in: the server says materialized views are experimental, and
//! creates them only when its `cassandra.yaml` sets `materialized_views_enabled: true`
//! (the project's nodes do); each write to the base then reads before it writes, on every
//! replica, and a view on a cluster is updated after the base, not with it. The plan creates
//! the view (`CREATE MATERIALIZED VIEW .. WHERE k IS NOT NULL AND ..`) only with
//! [`Migrator::create_views`](migrate::Migrator::create_views) (CLI `--create-views`), else it
//! refuses; `validate` compares it with `system_schema.views` and its columns; a view that
//! differs is refused, or dropped and created again with
//! [`Migrator::allow_drop_view`](migrate::Migrator::allow_drop_view) (CLI
//! `--allow-drop-view ks.view`), which also drops a view no model declares. cassmodel's own
//! alternative, written by the application and not experimental: an entity written to
//! several tables (`#[derive(CassEntity)]`).
//!
//! ### Secondary indexes
//!
//! `#[cass(index)]` declares an SAI index (`CREATE INDEX IF NOT EXISTS <name> ON
//! <ks>.<table> (<target>) USING 'sai'`), part of the table's DDL
//! ([`Db::create_table`], [`TableSchema::create_cql`](schema::TableSchema::create_cql)) and of migrations (an index
//! added to a model is created on the existing table; see [`migrate`]). The name defaults
//! to `<table>_<column>_idx`, as Cassandra names it; `index(name = "...")` gives another
//! (ASCII letters, digits, `_`; unique in the keyspace). For a collection, the part to index
//! is one of:
//!
//! | option | indexes | query it serves | default for |
//! |---|---|---|---|
//! | `index` | the value | `WHERE col = ?` | every column that is not a collection |
//! | `index(values)` | the elements of a list or set, the values of a map | `WHERE col CONTAINS ?` | a non-frozen list, set or map |
//! | `index(keys)` | the keys of a map | `WHERE col CONTAINS KEY ?` | |
//! | `index(entries)` | the entries of a map | `WHERE col[?] = ?` | |
//! | `index(full)` | a frozen collection as a whole | `WHERE col = ?` | a frozen list, set or map (the only target it takes) |
//!
//! `index(keys, name = "baskets_by_product")` gives both. One index per field.
//!
//! ```
//! use std::collections::{BTreeMap, BTreeSet};
//! use cassmodel::{CassTable, schema::IndexTarget, Table};
//! use uuid::Uuid;
//!
//! #[derive(CassTable)]
//! #[cass(table = "customers")]
//! struct Customer {
//!     #[partition_key]
//!     id: Uuid,
//!     #[cass(index)] // customers_email_idx, on `email`
//!     email: String,
//!     #[cass(index)] // customers_tags_idx, on `values(tags)`
//!     tags: BTreeSet<String>,
//!     #[cass(index(keys, name = "customers_by_product"))]
//!     basket: BTreeMap<Uuid, i32>,
//! }
//!
//! let ddl = Customer::schema().create_cql("shop");
//! assert_eq!(
//!     ddl[1..],
//!     [
//!         "CREATE INDEX IF NOT EXISTS customers_email_idx ON shop.customers (email) USING 'sai'",
//!         "CREATE INDEX IF NOT EXISTS customers_tags_idx ON shop.customers (values(tags)) USING 'sai'",
//!         "CREATE INDEX IF NOT EXISTS customers_by_product ON shop.customers (keys(basket)) USING 'sai'",
//!     ]
//! );
//! let (_, by_product) = Customer::schema().indexes().nth(2).unwrap();
//! assert_eq!(by_product.target, IndexTarget::Keys);
//! ```
//!
//! What Cassandra refuses is a compile error on the `index` option, quoting the server: an
//! index on the only partition-key column (`WHERE id = ?` needs none) or in a counter table,
//! `keys`/`entries` on anything but a map, `full` on anything but a frozen collection,
//! `values`/`keys`/`entries` on a frozen collection, durations and blobs (SAI indexes
//! neither), a name that is not a legal index name or is used twice in the struct. Where the
//! field's syntax does not show its CQL type (a type alias), the migration plan refuses the
//! index instead, before it reaches the server.
//!
//! Indexed columns get typed restrictions (see "Queries on indexed columns" above); a vector
//! column with an index gets vector search (`index(similarity = "...")`, see "Vector search").
//!
//! Struct attributes: `#[cass(table = "name", keyspace = "ks", default_ttl = 3600,
//! gc_grace_seconds = 864000, comment = "...", compaction = "LeveledCompactionStrategy")]`.
//! The table name defaults to the struct name in snake_case. Without a keyspace, the table
//! lives in the [`Db`]'s default keyspace.
//!
//! ### Key changes: `from`, `with`, `dual_writes`, `offline`
//!
//! Cassandra cannot change a primary key in place: a new key (a bucket, another clustering
//! column or order, a column moved into the partition key) or an incompatible column type is a
//! new table, filled from the old one. Declare it on the new struct:
//!
//! | attribute | meaning |
//! |---|---|
//! | `#[cass(from = "old_table")]`, `#[cass(from = OldModel)]` | the rows come from `old_table` of the same keyspace, or from the table of the struct `OldModel`; columns copied by name; a bucket column is computed from its source |
//! | `#[cass(from = OldModel, with = convert)]` | the rows are `convert(old_row)`, a `fn(OldModel) -> NewModel` or `-> Result<NewModel, E>` (`E: Display`); a row whose conversion fails is reported with its key, not copied |
//! | `#[cass(from = .., dual_writes)]` | every insert, update, delete and batch of this table also reaches the old one, at the same write time (not with `with`: a function converts one way only) |
//! | `#[cass(from = .., offline)]` | a counter table, copied with every writer of the old table stopped: each old row's counts are added to the same row of the new table (copied by name: no `with`, no `dual_writes`); a counter table without `offline` is a compile error that says why |
//!
//! ```
//! use cassmodel::{CassTable, Table};
//! use chrono::{DateTime, Utc};
//!
//! #[derive(CassTable)]
//! #[cass(table = "readings")]
//! struct Reading {
//!     #[partition_key]
//!     sensor: i32,
//!     #[clustering(desc)]
//!     ts: DateTime<Utc>,
//!     value: f64,
//! }
//!
//! /// The same rows, one partition per sensor and day.
//! #[derive(CassTable)]
//! #[cass(table = "readings_v2", from = "readings", dual_writes)]
//! struct ReadingV2 {
//!     #[partition_key]
//!     sensor: i32,
//!     #[clustering(desc)]
//!     #[cass(bucket(day))]
//!     ts: DateTime<Utc>,
//!     value: f64,
//! }
//!
//! let from = ReadingV2::schema().source.as_ref().map(|s| (s.table, s.dual_writes));
//! assert_eq!(from, Some(("readings", true)));
//! ```
//!
//! The release sequence, which `migrate plan` prints with the table names filled in:
//!
//! 1. `migrate apply` creates the new table;
//! 2. release the application with the new struct (`dual_writes`): it writes both tables,
//!    so this release and the one before can run side by side, and a rollback loses nothing;
//! 3. `migrate backfill` copies the old rows (resumable, shared by any number of processes;
//!    each cell keeps its write time and TTL, so a newer write or delete always wins);
//! 4. `migrate verify`: rows missing, different, extra;
//! 5. release the application reading the new table (still writing both);
//! 6. release it writing the new table alone (remove `dual_writes` and the old struct);
//! 7. `migrate drop-source ks.new_table` drops the old table, only after a clean verify.
//!
//! **Lightweight transactions** hold on one partition of one table, so with `dual_writes` a
//! condition (`if_not_exists`, `update().if_..`, a conditional batch) is decided on the new
//! table only; when it applies, its writes reach the old table unconditionally, at the same
//! write time. During the migration, no release may still run conditions on the old table.
//! A write that has no row-for-row equivalent in the old table (deleting a whole day bucket
//! the old table has no column for) is refused with
//! [`Error::DualWrite`] before anything is sent; so is any write
//! once the old table has been dropped (remove `dual_writes`). Details and the library calls:
//! [`migrate::copy`].
//!
//! **Counter tables** cannot be copied beside live writes: a counter takes no write time (a
//! copied count cannot lose to a newer one), and an increment applied twice counts twice.
//! Declared `offline`, they are copied with the application's writes to the old table
//! stopped, in six steps: 1. `apply`; 2. stop every write to the old table; 3. `backfill`
//! into the new table, which must be empty when the copy starts; 4. `verify`; 5. release
//! the application reading and writing the new table; 6. `drop-source`. The copy resumes as
//! the online one does: a range claimed before (its process died, a write failed) is
//! repaired, each new row read at consistency ALL and only the difference from the old row
//! added, so it ends exact however often it was interrupted; rows `verify` finds different
//! (the old table was written after all) mark their ranges for the next `backfill` to repair.
//!
//! ```
//! use cassmodel::value::Counter;
//! use cassmodel::{CassTable, Table};
//!
//! #[derive(CassTable)]
//! #[cass(table = "page_views")]
//! struct PageViews {
//!     #[partition_key]
//!     site: String,
//!     #[clustering]
//!     page: String,
//!     views: Counter,
//! }
//!
//! /// One partition per page.
//! #[derive(CassTable)]
//! #[cass(table = "page_views_v2", from = PageViews, offline)]
//! struct PageViewsV2 {
//!     #[partition_key]
//!     site: String,
//!     #[partition_key]
//!     page: String,
//!     views: Counter,
//! }
//!
//! assert!(PageViewsV2::schema().source.is_some_and(|s| s.offline));
//! ```
//!
//! The derive implements [`Table`], scylla's `DeserializeRow` and `SerializeRow` (so the
//! struct also works with hand-written statements on the raw driver), the query builder
//! described above, and the shorthands `get` (by full primary key) and `partition` (by
//! partition key, for tables with clustering columns).
//!
//! ## `#[derive(CassProjection)]`
//!
//! Reads some columns of a table into a smaller struct, checked at compile time: each field
//! must be a field of the table struct, with the same type.
//!
//! ```
//! # use cassmodel::{CassTable, CassProjection}; use uuid::Uuid;
//! # #[derive(CassTable)] struct Post { #[partition_key] user_id: Uuid, content: String }
//! #[derive(CassProjection)]
//! #[cass(table = Post)]
//! struct PostContent {
//!     content: String,
//! }
//! // Post::select().user_id(&u).limit(20).read_as::<PostContent>().fetch_all(&db)
//! ```
//!
//! ### Computed fields
//!
//! A field may instead read a CQL selector over the table's fields, with
//! `#[cass(select = ..)]` (selected `AS` the field's name, after the plain columns):
//!
//! | selector | reads | field type |
//! |---|---|---|
//! | `writetime(column)` | the cell's write time, microseconds since the epoch | `i64` (`Option<i64>` if the cell can be null) |
//! | `ttl(column)` | the seconds the cell has left, null without a TTL | `Option<i32>` |
//! | `cast(column as text)` | the value cast to a CQL native type | the Rust type of that CQL type |
//! | `todate(ts)`, `totimestamp(..)`, `tounixtimestamp(..)`, `abs(..)`, `exp`, `log`, `log10`, `round`, `collection_count(..)`, `collection_min`/`max`/`sum`/`avg`, `map_keys`, `map_values` | Cassandra's native function of the column | the Rust type of its result |
//! | `min(column)`, `max(..)`, `sum(..)`, `avg(..)`, `count(..)` | an aggregate of the rows the read selects: one row | `Option<T>` for `min`/`max` (null when no row), `T` for `sum`/`avg`, `i64` for `count` |
//! | `RatingRatio(a, b)` | a function or aggregate of the models ([`CassFunction`], [`CassAggregate`]) of fields | its result type, or an `Option` of it |
//! | `cast(a as float) / cast(b as float)`, `a * 2 + b` | arithmetic between selectors and numbers (`+ - * / %`, Cassandra 4.0 and later) | CQL's result type |
//!
//! Checked at compile time: each argument is a field of the table; `writetime` and `ttl`
//! only of a column of one cell (Cassandra keeps none for a key column, a counter, and one
//! per element of a non-frozen collection); the field type of `writetime`, `ttl` and
//! `count`; a projection with an aggregate holds only aggregates. The type of every other
//! result is checked when the read is first prepared, with the field named. Aggregates are
//! reads like any other: the partition key is given, then a prefix of the clustering
//! columns and at most one range; not over a range of buckets, which is one query per
//! bucket (a compile error says so).
//!
//! ```
//! # use cassmodel::{CassTable, CassProjection}; use chrono::{DateTime, Utc};
//! # #[derive(CassTable)] struct Reading { #[partition_key] sensor: i32, #[clustering(desc)] ts: DateTime<Utc>, value: f64, note: Option<String> }
//! #[derive(CassProjection)]
//! #[cass(table = Reading)]
//! struct Written {
//!     ts: DateTime<Utc>,
//!     #[cass(select = writetime(value))]
//!     value_written: i64,
//!     #[cass(select = ttl(note))]
//!     note_ttl: Option<i32>,
//! }
//!
//! #[derive(CassProjection)]
//! #[cass(table = Reading)]
//! struct Stats {
//!     #[cass(select = max(value))]
//!     high: Option<f64>,
//!     #[cass(select = avg(value))]
//!     mean: f64,
//!     #[cass(select = count(note))]
//!     notes: i64,
//! }
//! # async fn run(db: &cassmodel::Db) -> cassmodel::Result<()> {
//! // SELECT ts, WRITETIME(value) AS value_written, TTL(note) AS note_ttl FROM .. WHERE sensor = ?
//! let written = Reading::select().sensor(&7).read_as::<Written>().fetch_all(db).await?;
//! // SELECT max(value) AS high, avg(value) AS mean, count(note) AS notes FROM .. WHERE sensor = ?
//! let stats = Reading::select().sensor(&7).read_as::<Stats>().fetch_first(db).await?;
//! # Ok(()) }
//! ```
//!
//! Cassandra's rules are compile errors, each on the offending field: a table without a
//! partition key, an `Option`, counter, duration or non-frozen collection in the key,
//! counters beside regular columns, a static column in a table without clustering
//! columns, a field type with no CQL mapping, two fields with the same column name, an
//! index Cassandra would refuse.
//!
//! ## `#[derive(CassUdt)]`
//!
//! Maps a struct to a user-defined type (`CREATE TYPE`). `#[cass(name = "address_type")]`
//! sets the type name (default: snake_case of the struct); fields take `name`, `cql_type` and
//! `frozen`. A UDT is created in the keyspace of each table that uses it, before the table.
//! A field that is a collection or another type is frozen in the type (`frozen<list<text>>`),
//! unless a collection field declares its type: `#[cass(cql_type = "list<text>")]` keeps it
//! non-frozen, as in a type made by hand that way (such a type can only be used frozen).
//!
//! ## `#[derive(CassFunction)]` and `#[derive(CassAggregate)]`
//!
//! Declare a user-defined function or aggregate of the models; the struct's fields are its
//! parameters, in order, and its name is the struct's in snake case (`name = ".."` sets
//! it). A projection calls one by its struct's name (`#[cass(select = RatingRatio(stars,
//! total))]`), its arguments' types, its result's and its place among aggregates checked at
//! compile time. Migrations create each in its keyspace (`keyspace = ".."`, or the default),
//! replace one whose body changed, and refuse one whose result type changed, or all where
//! the cluster runs none (`user_defined_functions_enabled`, named in the refusal). See the
//! guide's chapter on projections.
//!
//! | derive | options |
//! |---|---|
//! | `CassFunction` | `returns = RustType` and `body = ".."` (required), `language = "java"` (the default), `called_on_null_input` (else a null argument gives null without running the body) |
//! | `CassAggregate` | `state_function = Fn` (required: its first field the state, of the type it returns, then the aggregate's fields), `final_function = Fn` (one field, the state), `initial = "(0, 0)"` (a CQL literal) |
//!
//! ```
//! # use cassmodel::{CassAggregate, CassFunction};
//! #[derive(CassFunction)]
//! #[cass(returns = i64, called_on_null_input, body = "return state + (x == null ? 0 : x);")]
//! struct AddUp {
//!     state: i64,
//!     x: i32,
//! }
//!
//! /// `total(int) SFUNC add_up STYPE bigint INITCOND 0`
//! #[derive(CassAggregate)]
//! #[cass(state_function = AddUp, initial = "0")]
//! struct Total {
//!     x: i32,
//! }
//! ```
//!
//! ## Types
//!
//! See [`CqlMapping`](model::CqlMapping) for the Rust-to-CQL mapping and how to extend it.
//!
//! ## Connecting, and the cargo features
//!
//! [`ConnectOptions`] holds every connection setting (contact points, local data centre,
//! credentials, TLS, time-outs, consistency, keyspace); [`Db::connect_from_env`] reads them from
//! the `CASSMODEL_*` variables in [`config::ENV_VARS`]. Cargo features (none is on by
//! default; on docs.rs each item a feature adds says so):
//!
//! - `tls`: TLS connections (the scylla driver's rustls 0.23 support), set with
//!   [`ConnectOptions::tls_ca`] and [`ConnectOptions::tls_client_cert`] or
//!   `CASSMODEL_TLS_CA`, `CASSMODEL_TLS_CERT`, `CASSMODEL_TLS_KEY`. Without it, TLS settings
//!   are refused with an error.
//! - `num-bigint`: `num_bigint::BigInt` (0.4) as a `varint` column ([`CqlMapping`](model::CqlMapping)).
//! - `bigdecimal`: `bigdecimal::BigDecimal` (0.4) as a `decimal` column.
//! - `time`: the `time` crate's (0.3) `Date`, `Time` and `OffsetDateTime` as `date`, `time`
//!   and `timestamp` columns (chrono's types need no feature).
//!
//! A local data centre ([`ConnectOptions::local_dc`]) that no node of the cluster is in is
//! refused by `connect` ([`Error::UnknownLocalDc`], [`ErrorKind::Configuration`]), naming the
//! cluster's data centres.
//!
//! ## When the cluster is degraded
//!
//! A failed request keeps every attempt the driver made ([`Error::attempts`]: each node, its
//! answer, how long it took), and [`Error::kind`] follows the most telling answer: with two of
//! three nodes down, a coordinator's `Unavailable` rather than the next node's broken
//! connection pool. The warnings Cassandra attaches to an answer (a large batch, a read over
//! many tombstones) are `tracing` warn events and reach [`Db::on_server_warning`].
//!
//! Each call that runs statements runs inside one `tracing` span, `statement` (debug level,
//! target `cassmodel`), with its `kind`, `keyspace`, `table` and `consistency`, and when it
//! ends the `rows` it returned, the driver's `retries` and its `error`: install a subscriber
//! (e.g. `tracing_subscriber::fmt()` with `cassmodel=debug` and `FmtSpan::CLOSE`) to see them.
//!
//! ```no_run
//! # use cassmodel::{CassTable, Db, ErrorKind};
//! # #[derive(CassTable)] #[cass(table = "readings")]
//! # struct Reading { #[partition_key] sensor: i32, value: i32 }
//! # async fn f(db: &Db, r: &Reading) {
//! db.on_server_warning(|w| eprintln!("Cassandra warns about {w}"));
//! match db.insert(r).await {
//!     Ok(()) => {}
//!     Err(e) if e.kind() == ErrorKind::Unavailable => {
//!         for a in e.attempts() {
//!             eprintln!("{} ({:?}) answered {:?}", a.node, a.datacenter, a.answer);
//!         }
//!     }
//!     Err(e) => eprintln!("{e}"),
//! }
//! # }
//! ```
//!
//! The migration command-line tool is the `cassmodel-cli` crate: a one-line `bin` of yours
//! (`cassmodel_cli::main!(your_crate);` in `src/bin/migrate.rs`) for the migrations of your
//! models, and the installable `cassmodel` command for what needs no models.

// docs.rs (`--cfg docsrs`, nightly): each item a cargo feature adds says which.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The root holds what most files that use cassmodel name: the derives, the connection, the
// errors, and the few types a query or a write spells out. The rest is grouped by role, as
// the scylla driver groups its API: `query`, `write`, `model`, `schema`, `errors`, `value`.
// ARCHITECTURE.md lists each root name with the reason it is there.
pub use cassmodel_derive::{
    CassAggregate, CassEntity, CassFunction, CassProjection, CassTable, CassUdt,
};
pub use cassmodel_runtime::{
    Batch, ConnectOptions, Consistency, Db, Error, ErrorKind, Insert, Order, Outcome, Page,
    PagingState, QueryOptions, Replication, Result, SerialConsistency, Table,
};

/// Re-export of the scylla driver, so users and generated code name the same version.
pub use cassmodel_runtime::scylla;

pub use cassmodel_runtime::{config, sizing, value};

/// Migrations: plan, apply and validate a keyspace against the models, and copy a table to
/// a new key online (feature `migrate`, on by default; a service that only queries can
/// leave it out with `default-features = false`).
#[cfg(feature = "migrate")]
#[cfg_attr(docsrs, doc(cfg(feature = "migrate")))]
pub mod migrate {
    pub use cassmodel_runtime::migrate::*;
}

/// Reads: what a query builder returns, its states and its comparisons.
///
/// A builder (`T::select()`, `T::update()`, `T::delete()`) is typed by a [`kind`](query::kind)
/// (what the statement does) and a [`state`](query::state) (what it has been given so far):
/// rustc names them in its messages when a call is out of order.
pub mod query {
    pub use cassmodel_runtime::{
        BucketRange, BucketRead, BucketStream, Cmp, LatestRange, QueryFuture, RowCount, RowStream,
        Scored, kind, state,
    };
}

/// Writes beyond [`Db::insert`]: the kinds of insert, counters, batches,
/// entities and the views a write may not target.
pub mod write {
    pub use cassmodel_runtime::{
        BaseOf, CounterStatement, Counters, EntityWithIdentity, FromEntity, FromEntityEach,
        IfNotExists, InsertKind, InsertRow, Insertable, InsertableRows, Inserts, Plain, Regular,
        RegularStatement, TimestampAllowed, Writable, Writes,
    };
}

/// The traits the derives implement and the Rust-to-CQL type mapping
/// ([`CqlMapping`](model::CqlMapping)), for code generic over models and for new column types.
pub mod model {
    pub use cassmodel_runtime::{
        BindAs, BucketSource, CqlFunction, CqlMapping, KeyColumn, KeyElement, Projection, Udt,
    };
}

/// What a model describes (its table, columns, indexes, user-defined types and functions),
/// as [`Table::schema`] returns it, and the server's version.
pub mod schema {
    pub use cassmodel_runtime::{
        AggregateSchema, BucketDef, BucketRule, ColumnDef, ColumnKind, CqlType, FunctionSchema,
        Growth, IndexDef, IndexTarget, NativeType, Period, ServerVersion, Similarity, SourceDef,
        Span, TableOptions, TableSchema, UdtSchema, UserFunction,
    };
}

/// What an [`Error`] keeps: each attempt and its answer, the row that could not
/// be read or written, and the server's warnings.
pub mod errors {
    pub use cassmodel_runtime::{Answer, Attempt, RowError, ServerWarning};
}

/// What generated code calls (`::cassmodel::__private::<purpose>::..`): not a public API.
///
/// Hidden from the docs only, not from rustc: rustc names an item in a message (`required by
/// a bound in ..`) by its path through modules that are not `doc(hidden)`, and this is that
/// path. (The runtime's own `__private` is hidden.)
#[cfg_attr(doc, doc(hidden))]
pub mod __private {
    #[cfg(feature = "migrate")]
    pub use cassmodel_runtime::__private::copy;
    pub use cassmodel_runtime::__private::{bucket, driver, function, query, std, table, udt};
}

/// What a file of models and queries needs, in one import: the derive macros, the
/// connection, its result and error, the [`Table`] trait (whose `schema()` and
/// constants a user calls), and the two enums a model or a keyspace spells out.
///
/// ```no_run
/// use cassmodel::prelude::*;
/// use uuid::Uuid;
///
/// #[derive(CassTable)]
/// struct Visit {
///     #[partition_key]
///     page: String,
///     #[clustering(desc)]
///     at: chrono::DateTime<chrono::Utc>,
///     visitor: Uuid,
/// }
///
/// # async fn f() -> Result<()> {
/// let db = Db::connect_from_env().await?.with_keyspace("site")?;
/// db.create_keyspace("site", &Replication::Simple(1)).await?;
/// db.create_table::<Visit>().await?;
/// let latest: Vec<Visit> = Visit::select().page("/").limit(10).fetch_all(&db).await?;
/// # Ok(()) }
/// ```
pub mod prelude {
    pub use cassmodel_derive::{
        CassAggregate, CassEntity, CassFunction, CassProjection, CassTable, CassUdt,
    };
    pub use cassmodel_runtime::{Db, Error, ErrorKind, Order, Replication, Result, Table};
}

/// The guide's chapters (`docs/guide/src/`, an mdBook): each Rust block of a chapter is a
/// doc-test of this crate, compiled by `cargo test --doc`, and run where it touches the
/// database (on a local node or the cluster of `CASSMODEL_CONTACT_POINTS`, in a keyspace of
/// its own). `tests/guide.rs` checks that every chapter of `SUMMARY.md` is included here.
#[cfg(doctest)]
pub mod guide {
    #[doc = include_str!("../docs/guide/src/getting-started.md")]
    pub struct GettingStarted;
    #[doc = include_str!("../docs/guide/src/modelling.md")]
    pub struct Modelling;
    #[doc = include_str!("../docs/guide/src/queries.md")]
    pub struct Queries;
    #[doc = include_str!("../docs/guide/src/projections.md")]
    pub struct Projections;
    #[doc = include_str!("../docs/guide/src/writes.md")]
    pub struct Writes;
    #[doc = include_str!("../docs/guide/src/entities.md")]
    pub struct Entities;
    #[doc = include_str!("../docs/guide/src/indexes.md")]
    pub struct Indexes;
    #[doc = include_str!("../docs/guide/src/views.md")]
    pub struct Views;
    #[doc = include_str!("../docs/guide/src/sizing.md")]
    pub struct Sizing;
    #[doc = include_str!("../docs/guide/src/migrations.md")]
    pub struct Migrations;
    #[doc = include_str!("../docs/guide/src/key-changes.md")]
    pub struct KeyChanges;
    #[doc = include_str!("../docs/guide/src/adopting.md")]
    pub struct Adopting;
    #[doc = include_str!("../docs/guide/src/errors.md")]
    pub struct Errors;
    #[doc = include_str!("../docs/guide/src/connecting.md")]
    pub struct Connecting;
    #[doc = include_str!("../docs/guide/src/tracing.md")]
    pub struct Tracing;
    #[doc = include_str!("../docs/guide/src/testing.md")]
    pub struct Testing;
    #[doc = include_str!("../docs/guide/src/versions.md")]
    pub struct Versions;
}
