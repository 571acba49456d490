//! Models of a keyspace's tables and types, written by `cassmodel pull` from the
//! cluster's `system_schema`; `cassmodel pull --check` tells when they no longer match.
//!
//! Needs the crates `cassmodel`, `uuid`, `chrono`.
//!
//! Not generated (the cluster keeps them as they are):
//! - table `int_vectors`: column `v`: `vector<int, 3>`: cassmodel's `Vector<N>` holds `vector<float, N>` only (the type vector search uses)

use cassmodel::value::{Counter, Decimal, Duration, Timeuuid, Varint, Vector};
use cassmodel::{CassTable, CassUdt};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;
use uuid::Uuid;

/// The user-defined type `geo`.
#[derive(Debug, Clone, PartialEq, CassUdt)]
#[cass(name = "geo")]
pub struct Geo {
    pub lat: Option<f64>,
    pub lon: Option<f64>,
}

/// The user-defined type `address`.
#[derive(Debug, Clone, PartialEq, CassUdt)]
#[cass(name = "address")]
pub struct Address {
    pub street: Option<String>,
    #[cass(name = "Zip Code")]
    pub zip_code: Option<String>,
    #[cass(frozen)]
    pub location: Option<Geo>,
    #[cass(frozen)]
    pub tags: Option<BTreeSet<String>>,
}

/// The user-defined type `contact`.
#[derive(Debug, Clone, PartialEq, CassUdt)]
#[cass(name = "contact")]
pub struct Contact {
    #[cass(cql_type = "ascii")]
    pub kind: Option<String>,
    pub from: Option<String>,
    pub at: Option<DateTime<Utc>>,
    #[cass(cql_type = "list<text>")]
    pub phones: Option<Vec<String>>,
}

/// A row of the table `Events`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(
    table = "Events",
    default_ttl = 86400,
    gc_grace_seconds = 3600,
    comment = "events, newest first",
    compaction = "LeveledCompactionStrategy"
)]
pub struct Events {
    #[partition_key]
    #[cass(name = "Tenant")]
    pub tenant: String,
    #[partition_key]
    #[cass(name = "userId")]
    pub user_id: Uuid,
    #[partition_key]
    pub bucket: i32,
    #[clustering(desc)]
    pub at: Timeuuid,
    #[clustering]
    pub order: i32,
    #[clustering(desc)]
    #[cass(cql_type = "ascii")]
    pub kind: String,
    #[cass(static)]
    pub note: Option<String>,
    pub payload: Option<Vec<u8>>,
    #[cass(index)]
    pub select: Option<String>,
    #[cass(name = "self")]
    pub self_: Option<String>,
    pub r#type: Option<String>,
}

/// A row of the table `every_type`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "every_type")]
pub struct EveryType {
    #[partition_key]
    pub id: Uuid,
    #[cass(cql_type = "ascii")]
    pub a: Option<String>,
    pub addr: Option<Address>,
    pub addrs: Vec<Address>,
    pub b: Option<Vec<u8>>,
    pub bi: Option<i64>,
    pub bo: Option<bool>,
    pub contacts: BTreeMap<String, Contact>,
    pub d: Option<NaiveDate>,
    pub dbl: Option<f64>,
    pub dec: Option<Decimal>,
    pub dur: Option<Duration>,
    #[cass(index(name = "emb_ann", similarity = "dot_product"))]
    pub emb: Option<Vector<3>>,
    pub f: Option<f32>,
    #[cass(frozen)]
    pub fl: Option<Vec<i32>>,
    #[cass(frozen)]
    pub home: Option<Address>,
    pub i: Option<i32>,
    pub ip: Option<IpAddr>,
    pub l: Vec<i32>,
    #[cass(cql_type = "list<ascii>")]
    pub la: Vec<String>,
    #[cass(
        index,
        index(keys, name = "by_map_keys"),
        index(entries, name = "every_type_m_entries")
    )]
    pub m: BTreeMap<String, i32>,
    #[cass(cql_type = "map<double, text>")]
    pub md: Vec<(f64, String)>,
    pub nested: Vec<BTreeMap<String, BTreeSet<i32>>>,
    #[cass(index)]
    pub s: BTreeSet<String>,
    #[cass(cql_type = "set<float>")]
    pub sf: Vec<f32>,
    pub si: Option<i16>,
    #[cass(index)]
    pub t: Option<String>,
    pub ti: Option<i8>,
    pub tm: Option<NaiveTime>,
    pub ts: Option<DateTime<Utc>>,
    pub tu: Option<Timeuuid>,
    #[allow(clippy::type_complexity)]
    pub tup: Option<(Option<i32>, Option<String>, Option<Vec<String>>)>,
    /// Not declared here: the index `vc_folded` on `vc` (options the derive does not declare: {'case_sensitive': 'false'}); the cluster keeps it, `migrate plan` lists it as not managed.
    pub vc: Option<String>,
    pub vi: Option<Varint>,
}

/// A row of the table `frozen_keys`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "frozen_keys")]
pub struct FrozenKeys {
    #[partition_key]
    #[cass(frozen)]
    pub k: Vec<i32>,
    #[partition_key]
    #[cass(frozen)]
    pub a: Address,
    #[clustering]
    pub t: (Option<i32>, Option<String>),
    /// Not declared here: the index `legacy_v` on `v` (a legacy secondary index: cassmodel declares storage-attached (SAI) indexes only); the cluster keeps it, `migrate plan` lists it as not managed.
    pub v: Option<String>,
}

/// A row of the table `page_counts`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "page_counts")]
pub struct PageCounts {
    #[partition_key]
    pub page: String,
    #[clustering(desc)]
    pub day: NaiveDate,
    pub clicks: Option<Counter>,
    pub views: Option<Counter>,
}

/// A row of the table `readings`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "readings")]
pub struct Readings {
    #[partition_key]
    pub sensor: i32,
    #[clustering(desc)]
    pub ts: i64,
    pub note: Option<String>,
    pub site: Option<String>,
    pub value: Option<f64>,
}

/// A row of the table `readings_by_site`.
#[derive(Debug, Clone, PartialEq, CassTable)]
#[cass(table = "readings_by_site", view_of = Readings, all_columns)]
pub struct ReadingsBySite {
    #[partition_key]
    pub site: String,
    #[clustering]
    pub sensor: i32,
    #[clustering(desc)]
    pub ts: i64,
    pub note: Option<String>,
    pub value: Option<f64>,
}
