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
//! let posts: Vec<Post> = Post::partition(&db, &user_id).await?;
//! let one: Option<Post> = Post::get(&db, &user_id, &post_id).await?;
//! # Ok(()) }
//! ```
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
//! | `#[cass(cql_type = "timeuuid")]` | the CQL type, where the Rust type alone cannot say it (`ascii`, `timeuuid`, `varint`, `frozen<...>`) |
//! | `#[cass(frozen)]` | store a collection or user-defined type frozen (required in a key) |
//!
//! Struct attributes: `#[cass(table = "name", keyspace = "ks", default_ttl = 3600,
//! gc_grace_seconds = 864000, comment = "...", compaction = "LeveledCompactionStrategy")]`.
//! The table name defaults to the struct name in snake_case. Without a keyspace, the table
//! lives in the [`Db`]'s default keyspace.
//!
//! The derive implements [`Table`], scylla's `DeserializeRow` and `SerializeRow` (so the
//! struct also works with hand-written statements on the raw driver), and the methods
//! `get` (by full primary key) and `partition` (by partition key, for tables with
//! clustering columns).
//!
//! Cassandra's rules are compile errors, each on the offending field: a table without a
//! partition key, an `Option`, counter, duration or non-frozen collection in the key,
//! counters beside regular columns, a static column in a table without clustering
//! columns, a field type with no CQL mapping, two fields with the same column name.
//!
//! ## `#[derive(CassUdt)]`
//!
//! Maps a struct to a user-defined type (`CREATE TYPE`). `#[cass(name = "address_type")]`
//! sets the type name (default: snake_case of the struct); fields take `name`, `cql_type` and
//! `frozen`. A UDT is created in the keyspace of each table that uses it, before the table.
//!
//! ## Types
//!
//! See [`CqlMapping`] for the Rust-to-CQL mapping and how to extend it.

pub use cassmodel_derive::{CassProjection, CassTable, CassUdt};
pub use cassmodel_runtime::*;
