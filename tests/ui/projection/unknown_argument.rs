// A selector's argument that is not a field of the table.
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
    #[cass(select = writetime(valeu))]
    value_written: i64,
}

fn main() {}
