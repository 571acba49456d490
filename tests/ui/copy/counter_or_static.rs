// A counter table cannot be copied online (the error names `offline`); a table with static
// columns cannot be copied yet.
use cassmodel::CassTable;
use cassmodel::value::Counter;

#[derive(CassTable)]
#[cass(table = "votes_v2", from = "votes")]
struct Votes {
    #[partition_key]
    poll: String,
    #[clustering]
    option: String,
    votes: Counter,
}

#[derive(CassTable)]
#[cass(table = "slots_v2", from = "slots")]
struct Slots {
    #[partition_key]
    day: i32,
    #[clustering]
    slot: i32,
    #[cass(static)]
    note: Option<String>,
}

fn main() {}
