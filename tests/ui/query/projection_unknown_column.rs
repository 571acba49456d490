// A projection must name fields of its table, with the same types.
use cassmodel::{CassProjection, CassTable};
use uuid::Uuid;

#[derive(CassTable)]
struct Post {
    #[partition_key]
    user_id: Uuid,
    content: String,
}

#[derive(CassProjection)]
#[cass(table = Post)]
struct Wrong {
    contnt: String,
}

#[derive(CassProjection)]
#[cass(table = Post)]
struct WrongType {
    content: i32,
}

fn main() {}
