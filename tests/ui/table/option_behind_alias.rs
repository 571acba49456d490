// An `Option` hidden behind a type alias in the key is caught by the `KeyColumn` bound.
use cassmodel::CassTable;
use uuid::Uuid;

type MaybeId = Option<Uuid>;

#[derive(CassTable)]
struct User {
    #[partition_key]
    id: MaybeId,
    name: String,
}

fn main() {}
