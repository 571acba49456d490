// A user-defined type needs at least one field.
use cassmodel::CassUdt;

#[derive(CassUdt)]
struct Nothing {}

fn main() {}
