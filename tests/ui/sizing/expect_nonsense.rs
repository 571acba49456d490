use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(expect(rows = 0))]
struct ZeroRows {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(expect(rows = -5, per = "month", horizon = "1 year"))]
struct NegativeRows {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(expect(rows = 100, per = "fortnight", horizon = "1 year"))]
struct UnknownUnit {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(expect(rows = 100, per = "day", horizon = "0 years"))]
struct ZeroHorizon {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(expect(rows = 100, per = "day", horizon = "10 eons"))]
struct UnknownHorizonUnit {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(expect(per = "day", horizon = "1 year"))]
struct NoRows {
    #[partition_key]
    id: Uuid,
}

#[derive(CassTable)]
#[cass(expect(rows = 10, size = 3))]
struct UnknownOption {
    #[partition_key]
    id: Uuid,
}

fn main() {}
