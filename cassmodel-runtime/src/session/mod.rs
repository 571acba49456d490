//! Session layer: a connection to a cluster ([`db`]: the driver's session, the keyspaces
//! tables live in), its prepared statements ([`cache`]), connecting from the settings
//! ([`connect`]), waiting for new indexes ([`index_ready`]), the old table that a key
//! change's dual writes also reach ([`mirror`]), the server's warnings ([`warnings`]), the
//! `tracing` span of each statement ([`trace`]), the Cassandra version the cluster runs
//! ([`version`]) and the warnings for schema changes that reach prepared statements
//! ([`schema_watch`]).

pub(crate) mod cache;
pub(crate) mod connect;
pub(crate) mod db;
pub(crate) mod index_ready;
pub(crate) mod mirror;
pub(crate) mod schema_watch;
pub(crate) mod trace;
pub(crate) mod version;
pub(crate) mod warnings;
