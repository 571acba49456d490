// WRITETIME and TTL of a counter column: Cassandra keeps none.
use cassmodel::value::Counter;
use cassmodel::{CassProjection, CassTable};

#[derive(CassTable)]
#[cass(table = "page_views")]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
}

#[derive(CassProjection)]
#[cass(table = PageViews)]
struct ViewsWritten {
    #[cass(select = writetime(views))]
    views_written: i64,
    #[cass(select = ttl(views))]
    views_ttl: Option<i32>,
}

fn main() {}
