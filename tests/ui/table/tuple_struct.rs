// `#[derive(CassTable)]` needs named fields, not a tuple struct.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User(Uuid, String);

fn main() {}
