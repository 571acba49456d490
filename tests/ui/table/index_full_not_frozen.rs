// `full` indexes a frozen collection as a whole; this list is not frozen.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Playlist {
    #[partition_key]
    id: Uuid,
    #[cass(index(full))]
    songs: Vec<String>,
}

fn main() {}
