// A user-defined type name may hold only ASCII letters, digits and `_`.
use cassmodel::CassUdt;

#[derive(CassUdt)]
#[cass(name = "postal.address")]
struct Address {
    street: String,
}

fn main() {}
