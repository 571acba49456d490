// seed G, INVALID: `mainland = 'northamerica' AND uid < 5` (skips state).
use cassmodel::{CassTable, Db};

#[derive(CassTable)]
struct UsersByMainland {
    #[partition_key]
    mainland: String,
    #[clustering]
    state: String,
    #[clustering]
    uid: i32,
    name: String,
    zip: i32,
}

async fn f(db: &Db) {
    let _ = UsersByMainland::select().mainland("northamerica").uid_lt(&5).fetch_all(db).await;
}

fn main() {}
