// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct GymsByCity {
    #[partition_key]
    country_code: String,
    #[partition_key]
    state: String,
    #[partition_key]
    city: String,
    #[clustering(asc)]
    opening_date: DateTime<Utc>,
    #[clustering(asc)]
    gym_name: String,
}
