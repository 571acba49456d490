//! Cassandra's native scalar functions of one column that a projection may read
//! (`#[cass(select = collection_count(tags))]`), and which of them Cassandra 5.0 added.

/// The functions, lower case: the time conversions (every Cassandra since 2.2), then the
/// math, collection and map functions (Cassandra 5.0).
pub const SCALAR_FUNCTIONS: &[&str] = &[
    "todate",
    "totimestamp",
    "tounixtimestamp",
    "abs",
    "exp",
    "log",
    "log10",
    "round",
    "collection_count",
    "collection_min",
    "collection_max",
    "collection_sum",
    "collection_avg",
    "map_keys",
    "map_values",
];

/// Those of [`SCALAR_FUNCTIONS`] that Cassandra 5.0 added: a server before 5.0 answers
/// "Unknown function".
///
/// ```
/// assert!(cassmodel_schema::added_in_cassandra_5("collection_count"));
/// assert!(!cassmodel_schema::added_in_cassandra_5("todate"));
/// ```
pub fn added_in_cassandra_5(function: &str) -> bool {
    SCALAR_FUNCTIONS
        .iter()
        .skip(3)
        .any(|f| f.eq_ignore_ascii_case(function))
}
