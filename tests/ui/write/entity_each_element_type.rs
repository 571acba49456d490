// The column that takes each element of a collection has the elements' type: `scores` holds
// `i32`s, and the column is a `String`.
use cassmodel::{CassEntity, CassTable};

include!("model/video.rs");

#[derive(CassTable)]
#[cass(entity = Video)]
struct VideosByTag {
    #[partition_key]
    #[cass(each = scores)]
    tag: String,
    #[clustering]
    video_id: i32,
    title: String,
}

fn main() {}
