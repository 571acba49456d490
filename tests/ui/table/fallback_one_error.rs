// One mistake in the attributes is one error: the derive still implements the traits other code
// uses (inserting the row, reading it as a table), so those uses add none.
use cassmodel::{CassTable, Db, Insert};
use uuid::Uuid;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: Uuid,
    #[cass(nmae = "full_name")]
    name: String,
}

async fn f(db: &Db, u: &User) {
    let _ = db.insert(u).await;
    let _ = Insert::new(u).using_ttl(60).execute(db).await;
    let _ = cassmodel::Batch::logged().insert(u).execute(db).await;
}

fn main() {}
