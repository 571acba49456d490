// `all_columns` is a view's: a table selects nothing.
use cassmodel::CassTable;

#[derive(CassTable)]
#[cass(all_columns)]
struct Reading {
    #[partition_key]
    sensor: i32,
    value: f64,
}

#[derive(CassTable)]
#[cass(view_of = Reading, all_columns = true)]
struct BySensor {
    #[partition_key]
    sensor: i32,
    value: f64,
}

fn main() {}
