// `cql_type` must be valid CQL type text: `st` is a typo for `set`, inside `frozen<...>`.
use std::collections::BTreeSet;

use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(cql_type = "frozen<st<text>>")]
    tags: BTreeSet<String>,
}

fn main() {}
