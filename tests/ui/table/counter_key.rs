// A counter cannot be part of the primary key.
use cassmodel::CassTable;
use cassmodel::value::Counter;

#[derive(CassTable)]
struct Votes {
    #[partition_key]
    votes: Counter,
    #[clustering]
    poll: String,
}

fn main() {}
