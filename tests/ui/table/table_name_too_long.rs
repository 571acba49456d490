// A table name has at most 48 characters (this one has 49).
use cassmodel::CassTable;
use uuid::Uuid;

#[derive(CassTable)]
#[cass(table = "user_profiles_by_country_and_city_and_signup_date")]
struct UserProfile {
    #[partition_key]
    id: Uuid,
    name: String,
}

fn main() {}
