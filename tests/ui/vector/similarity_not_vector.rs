// `similarity` belongs to vector indexes, and names one of three functions.
use cassmodel::value::Vector;
use cassmodel::CassTable;

#[derive(CassTable)]
struct Doc {
    #[partition_key]
    id: i32,
    #[cass(index(similarity = "cosine"))]
    topic: String,
    #[cass(index(similarity = "manhattan"))]
    embedding: Vector<3>,
}

fn main() {}
