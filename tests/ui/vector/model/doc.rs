// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct Doc {
    #[partition_key]
    shelf: String,
    #[clustering(asc)]
    id: i32,
    #[cass(index)]
    topic: String,
    #[cass(index)]
    embedding: Vector<3>,
    plain: Vector<3>,
}
