// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct Room {
    #[partition_key]
    room: String,
    #[clustering]
    msg: i32,
    #[cass(static)]
    topic: String,
    text: String,
}
