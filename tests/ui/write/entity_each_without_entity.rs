// `#[cass(each = ..)]` takes the elements of a collection of the entity a table is built from:
// this table names none.
use cassmodel::CassTable;

#[derive(CassTable)]
struct VideosByTag {
    #[partition_key]
    #[cass(each = tags)]
    tag: String,
    #[clustering]
    video_id: i32,
}

fn main() {}
