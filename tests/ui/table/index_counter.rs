// Cassandra indexes no column of a counter table.
use cassmodel::CassTable;
use cassmodel::value::Counter;

#[derive(CassTable)]
struct PageViews {
    #[partition_key]
    site: String,
    #[clustering]
    #[cass(index)]
    page: String,
    views: Counter,
}

fn main() {}
