// A field of a user-defined type cannot be a counter.
use cassmodel::CassUdt;
use cassmodel::value::Counter;

#[derive(CassUdt)]
struct Stats {
    name: String,
    hits: Counter,
}

fn main() {}
