// A batch takes complete statements.
use cassmodel::{Batch, CassTable};

#[derive(CassTable)]
struct T2 {
    #[partition_key]
    id: i32,
    #[clustering]
    c: String,
    v: String,
}

fn f() {
    let _ = Batch::logged().add(T2::update().set_v("x").id(&1));
}

fn main() {}
