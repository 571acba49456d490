// `#[derive(CassTable)]` does not support a generic type parameter.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct Entry<T> {
    #[partition_key]
    id: Uuid,
    value: T,
}

fn main() {}
