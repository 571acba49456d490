//! The data models our users start from (the seed articles), one module per section, as
//! `#[derive(CassTable)]` structs. The demo (`examples/demo.rs`) creates them, writes the
//! articles' sample rows and prints them back; the integration tests create them on a real
//! node and compare the server's schema with the articles' CQL.
//!
//! Shared by the demo and the tests with `#[path = "../examples/models/mod.rs"] mod models;`.

#![allow(dead_code)] // each user of this module uses a different part of it

pub mod docs;
pub mod ebay;
pub mod gyms;
pub mod keys;
pub mod likes;
pub mod social;
pub mod supermarket;

use cassmodel::{Db, Replication, Result, schema::TableSchema};

/// A model section: its tables, how to create them, and its demo.
pub struct Section {
    /// The section's letter and title in seed-models.md.
    pub title: &'static str,
    /// The schemas of its tables.
    pub tables: fn() -> Vec<&'static TableSchema>,
}

/// Every section, in the order of seed-models.md.
pub const SECTIONS: [Section; 7] = [
    social::SECTION,
    gyms::SECTION,
    likes::SECTION,
    docs::SECTION,
    supermarket::SECTION,
    ebay::SECTION,
    keys::SECTION,
];

/// Creates every keyspace (with `replication`) and every table of every section. `db`'s
/// default keyspace holds the tables that do not name one; the supermarket's `customer` and
/// `order_delivery` keyspaces are created under their names after `Db::map_keyspace`, if any.
pub async fn create_all(db: &Db, replication: &Replication) -> Result<()> {
    if let Some(ks) = db.keyspace() {
        db.create_keyspace(ks, replication).await?;
    }
    for ks in supermarket::KEYSPACES {
        db.create_keyspace(ks, replication).await?;
    }
    social::create(db).await?;
    gyms::create(db).await?;
    likes::create(db).await?;
    docs::create(db).await?;
    supermarket::create(db).await?;
    ebay::create(db).await?;
    keys::create(db).await?;
    Ok(())
}

/// A fixed timestamp: `2024-MM-DD hh:mm` UTC, for sample data that reads the same on every run.
pub fn at(month: u32, day: u32, hour: u32, minute: u32) -> chrono::DateTime<chrono::Utc> {
    use chrono::TimeZone;
    chrono::Utc
        .with_ymd_and_hms(2024, month, day, hour, minute, 0)
        .single()
        .unwrap_or_default()
}

/// A version-1 (time-based) UUID for a fixed instant, as a CQL `timeuuid`; `seq` tells apart
/// ids of the same instant.
pub fn timeuuid(t: chrono::DateTime<chrono::Utc>, seq: u16) -> cassmodel::value::Timeuuid {
    let ts = uuid::Timestamp::from_unix(
        uuid::NoContext,
        t.timestamp().unsigned_abs(),
        t.timestamp_subsec_nanos(),
    );
    let node = [0x02, 0x42, 0xac, 0x11, (seq >> 8) as u8, seq as u8];
    cassmodel::value::Timeuuid::from(uuid::Uuid::new_v1(ts, &node))
}

/// A readable, fixed UUID for sample data (`n` in the last bytes).
pub fn id(n: u128) -> uuid::Uuid {
    uuid::Uuid::from_u128(0x5eed_0000_0000_4000_8000_0000_0000_0000 | n)
}
