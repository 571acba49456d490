// seed G, INVALID on wide: `col1` only; `col1, col2, col4`; anything without both col1 and col2.
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct Wide {
    #[partition_key]
    col1: String,
    #[partition_key]
    col2: String,
    #[clustering]
    col10: String,
    #[clustering]
    col4: String,
    data: String,
}

async fn f(db: &Db) {
    let _ = Wide::select().col1("x").fetch_all(db).await;
    let _ = Wide::select().col1("x").col2("y").col4("q").fetch_all(db).await;
    let _ = Wide::select().col2("y").fetch_all(db).await;
}

fn main() {}
