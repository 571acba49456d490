// SAI indexes neither durations nor blobs.
use cassmodel::CassTable;
use cassmodel::value::Duration;
use uuid::Uuid;

#[derive(CassTable)]
struct Track {
    #[partition_key]
    id: Uuid,
    #[cass(index)]
    length: Duration,
    #[cass(index)]
    cover: Vec<u8>,
}

fn main() {}
