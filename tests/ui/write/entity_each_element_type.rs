// The column that takes each element of a collection has the elements' type: `tags` holds
// `String`s, and the column is an `i64`.
use cassmodel::{CassEntity, CassTable};

include!("model/video.rs");

#[derive(CassTable)]
#[cass(entity = Video)]
struct VideosByTag {
    #[partition_key]
    #[cass(each = tags)]
    tag: i64,
    #[clustering]
    video_id: i32,
    title: String,
}

fn main() {}
