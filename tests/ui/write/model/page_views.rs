// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
}
