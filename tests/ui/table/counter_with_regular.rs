// A table with counters has only counters beside its primary key: each regular column is reported.
use cassmodel::CassTable;
use cassmodel::value::Counter;

#[derive(CassTable)]
struct PageStats {
    #[partition_key]
    page: String,
    views: Counter,
    title: String,
    likes: Counter,
    last_visitor: Option<String>,
}

fn main() {}
