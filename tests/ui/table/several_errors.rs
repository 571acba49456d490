// Several mistakes in one struct are all reported at once.
use cassmodel::CassTable;
use cassmodel::value::Counter;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "user-stats")]
struct UserStats {
    #[partition_key]
    id: Option<Uuid>,
    #[cass(static)]
    visits: Counter,
}

fn main() {}
