// Generic code that inserts rows needs the bound `T: Insertable` (which is enough: see
// `insert_generic` in tests/views.rs); `T: Table` alone is not, and the error says to add it.
use cassmodel::{Db, Table};

async fn f<T: Table>(db: &Db, rows: &[T]) {
    for row in rows {
        let _ = db.insert(row).await;
    }
}

fn main() {}
