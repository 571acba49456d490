// A table several cases of this folder query, each `include!`ing it: they differ only in their calls.
#[derive(CassTable)]
struct Orders {
    #[partition_key]
    customer_id: Uuid,
    #[clustering(desc)]
    #[cass(bucket(month))]
    submission_time: DateTime<Utc>,
    status: String,
}
