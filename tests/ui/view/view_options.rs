// A view lives in its base's keyspace and has none of a table's options, static columns,
// counters, indexes, masks or buckets of its own; each is one error, all reported at once.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Reading {
    #[partition_key]
    sensor: i32,
    #[clustering]
    ts: i64,
    site: String,
    email: String,
}

#[derive(CassTable)]
#[cass(view_of = Reading, keyspace = "other", default_ttl = 60, comment = "x")]
struct BySite {
    #[partition_key]
    site: String,
    #[clustering]
    sensor: i32,
    #[clustering]
    ts: i64,
    #[cass(index)]
    email: String,
}

#[derive(CassTable)]
#[cass(view_of = Reading)]
struct ByEmail {
    #[partition_key]
    email: String,
    #[clustering]
    sensor: i32,
    #[clustering]
    ts: i64,
    #[cass(masked = mask_default())]
    site: String,
}

fn main() {}
