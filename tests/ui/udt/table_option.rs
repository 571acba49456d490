// `table = ...` is a `#[derive(CassTable)]` option, unknown on a `#[derive(CassUdt)]` struct.
use cassmodel::CassUdt;

#[derive(CassUdt)]
#[cass(table = "addresses")]
struct Address {
    street: String,
    city: String,
}

fn main() {}
