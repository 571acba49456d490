// `offline` is how a counter table is copied, and only a counter table: it needs the table
// the rows come from, takes no value, and rules out dual writes and a conversion function.
use cassmodel::CassTable;
use cassmodel::value::Counter;

#[derive(CassTable)]
#[cass(table = "likes_v2", offline)]
struct Likes {
    #[partition_key]
    post: i64,
    likes: Counter,
}

#[derive(CassTable)]
#[cass(table = "posts_v2", from = "posts", offline)]
struct Post {
    #[partition_key]
    id: i64,
    title: String,
}

#[derive(CassTable)]
#[cass(table = "clicks_v2", from = "clicks", offline, dual_writes)]
struct Clicks {
    #[partition_key]
    page: String,
    clicks: Counter,
}

#[derive(CassTable)]
#[cass(table = "old_hits")]
struct OldHits {
    #[partition_key]
    page: String,
    hits: Counter,
}

fn same(old: OldHits) -> Hits {
    Hits { page: old.page, hits: old.hits }
}

#[derive(CassTable)]
#[cass(table = "hits", from = OldHits, with = same, offline)]
struct Hits {
    #[partition_key]
    page: String,
    hits: Counter,
}

#[derive(CassTable)]
#[cass(table = "shares_v2", from = "shares", offline = true)]
struct Shares {
    #[partition_key]
    post: i64,
    shares: Counter,
}

fn main() {}
