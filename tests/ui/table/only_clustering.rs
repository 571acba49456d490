// A table needs a partition key: clustering columns alone are not enough.
use cassmodel::CassTable;
use cassmodel::value::Timeuuid;

#[derive(CassTable)]
struct Event {
    #[clustering]
    at: Timeuuid,
    what: String,
}

fn main() {}
