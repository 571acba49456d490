// `#[derive(CassTable)]` needs named fields, not a unit struct.
use cassmodel::CassTable;

#[derive(CassTable)]
struct Marker;

fn main() {}
