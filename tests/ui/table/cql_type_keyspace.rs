// `cql_type`: a user-defined type is named without a keyspace.
use cassmodel::{CassTable, CassUdt};
use uuid::Uuid;

#[derive(CassUdt)]
struct Addr {
    street: String,
}

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(cql_type = "ks.addr")]
    home: Addr,
}

fn main() {}
