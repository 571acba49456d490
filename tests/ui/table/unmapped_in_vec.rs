// A collection of a type with no CQL mapping.
use cassmodel::CassTable;

struct Money(i64);

#[derive(CassTable)]
struct Account {
    #[partition_key]
    id: i32,
    payments: Vec<Money>,
}

fn main() {}
