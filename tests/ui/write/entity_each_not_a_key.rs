// The column that takes each element is part of the primary key: else every element's row has
// the same key, and each overwrites the one before.
use cassmodel::{CassEntity, CassTable};

include!("model/video.rs");

#[derive(CassTable)]
#[cass(entity = Video)]
struct VideosByTag {
    #[partition_key]
    video_id: i32,
    #[cass(each = tags)]
    tag: String,
}

fn main() {}
