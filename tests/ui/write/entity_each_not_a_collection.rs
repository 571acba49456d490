// `#[cass(each = ..)]` takes one row per element of one of the entity's collections: `title`
// is a `String`.
use cassmodel::{CassEntity, CassTable};

include!("model/video.rs");

#[derive(CassTable)]
#[cass(entity = Video)]
struct VideosByTag {
    #[partition_key]
    #[cass(each = title)]
    tag: String,
    #[clustering]
    video_id: i32,
    tags: Vec<String>,
}

fn main() {}
