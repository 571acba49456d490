// A table name may hold only ASCII letters, digits and `_`.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "user-profiles")]
struct UserProfile {
    #[partition_key]
    id: Uuid,
    name: String,
}

fn main() {}
