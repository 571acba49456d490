// The field types of WRITETIME (bigint), TTL (int or null) and count (bigint).
use cassmodel::{CassProjection, CassTable};

#[derive(CassTable)]
#[cass(table = "readings")]
struct Reading {
    #[partition_key]
    sensor: i32,
    value: f64,
}

#[derive(CassProjection)]
#[cass(table = Reading)]
struct Written {
    #[cass(select = writetime(value))]
    value_written: i32,
    #[cass(select = ttl(value))]
    value_ttl: i32,
}

#[derive(CassProjection)]
#[cass(table = Reading)]
struct Counted {
    #[cass(select = count(value))]
    values: u64,
}

fn main() {}
