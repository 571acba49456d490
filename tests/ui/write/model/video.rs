// An entity the cases of `#[cass(each = ..)]` `include!`: each declares `VideosByTag`, one row
// per element of one of its fields, as its mistake needs.
#[derive(CassEntity)]
#[cass(tables(VideosByTag))]
struct Video {
    video_id: i32,
    title: String,
    tags: Vec<String>,
}
