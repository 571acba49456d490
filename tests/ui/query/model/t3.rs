// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct T3 {
    #[partition_key]
    id1: i32,
    #[partition_key]
    id2: i32,
    #[clustering]
    c1: String,
    #[clustering]
    c2: String,
    k: i32,
    v: String,
}
