// A user-defined type has no keys: `#[partition_key]` on a field of a `#[derive(CassUdt)]`.
use cassmodel::CassUdt;

#[derive(CassUdt)]
struct Address {
    #[partition_key]
    street: String,
    city: String,
}

fn main() {}
