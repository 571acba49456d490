// `#[derive(CassTable)]` does not support a lifetime parameter.
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
struct User<'a> {
    #[partition_key]
    id: Uuid,
    name: &'a str,
}

fn main() {}
