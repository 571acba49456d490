// WRITETIME and TTL of a primary-key column: Cassandra keeps none (the server refuses
// "Cannot use selection function writetime on PRIMARY KEY part sensor").
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
    tags: Vec<String>,
}

#[derive(CassProjection)]
#[cass(table = Reading)]
struct Written {
    #[cass(select = writetime(sensor))]
    sensor_written: i64,
    #[cass(select = ttl(ts))]
    ts_ttl: Option<i32>,
    #[cass(select = writetime(tags))]
    tags_written: i64,
}

fn main() {}
