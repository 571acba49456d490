// seed G: `WHERE key_part_two = 9` needs ALLOW FILTERING, which is only behind select_allow_filtering().
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct KeyParts {
    #[partition_key]
    key_part_one: String,
    #[clustering]
    key_part_two: i32,
    data: String,
}

async fn f(db: &Db) {
    let _ = KeyParts::select().key_part_two(&9).fetch_all(db).await;
}

fn main() {}
