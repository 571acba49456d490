// Selectors cassmodel cannot read: an unknown function, a similarity without an ANN search,
// two arguments, a cast to what is not a CQL type, a value instead of a call, an argument
// that is neither a field nor a number, an operator CQL lacks.
use cassmodel::{CassProjection, CassTable, Db};

#[derive(CassTable)]
#[cass(table = "readings")]
struct Reading {
    #[partition_key]
    sensor: i32,
    value: f64,
    other: f64,
}

#[derive(CassProjection)]
#[cass(table = Reading)]
struct Bad {
    #[cass(select = median(value))]
    a: f64,
    #[cass(select = similarity_cosine(value))]
    b: f32,
    #[cass(select = writetime(value, other))]
    c: i64,
    #[cass(select = cast(value as number))]
    d: String,
    #[cass(select = value)]
    e: f64,
    #[cass(select = abs(value + "one"))]
    f: f64,
    #[cass(select = value ^ other)]
    h: f64,
    #[cass(selekt = abs(value))]
    g: f64,
}

// With the errors above, a read of the projection adds none of its own.
async fn read(db: &Db) {
    let _ = Reading::select().sensor(&1).read_as::<Bad>().fetch_all(db).await;
}

fn main() {}
