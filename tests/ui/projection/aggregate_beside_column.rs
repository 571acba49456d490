// An aggregate beside a plain column or a function of one row: the row's field would hold
// only the first row's value.
use cassmodel::{CassProjection, CassTable};
use chrono::{DateTime, Utc};

#[derive(CassTable)]
#[cass(table = "readings")]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering(desc)]
    ts: DateTime<Utc>,
    value: f64,
}

#[derive(CassProjection)]
#[cass(table = Reading)]
struct Stats {
    #[cass(select = max(value))]
    high: Option<f64>,
    ts: DateTime<Utc>,
    #[cass(select = writetime(value))]
    written: i64,
}

fn main() {}
