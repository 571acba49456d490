//! Connecting: a driver session built from [`ConnectOptions`], wrapped in a [`Db`].

use super::db::Db;
use crate::config::options::ConnectOptions;
use crate::error::{Error, Result};

impl ConnectOptions {
    /// Connects: a driver session with these settings, wrapped in a [`Db`] (with the
    /// keyspace, if one is set).
    ///
    /// A failure is [`Error::Connect`], whose hint follows the cause (unreachable, refused
    /// credentials, TLS).
    pub async fn connect(&self) -> Result<Db> {
        let session = self
            .session_builder()?
            .build()
            .await
            .map_err(|source| Error::Connect {
                contact_points: self.get_contact_points().join(","),
                source: Box::new(source),
            })?;
        let db = Db::from_parts(
            std::sync::Arc::new(session),
            None,
            Default::default(),
            self.request_size_limit(),
        );
        match self.get_keyspace() {
            Some(ks) => db.with_keyspace(ks),
            None => Ok(db),
        }
    }
}

impl Db {
    /// Connects to the given `host:port` contact points, with the other settings at their
    /// defaults ([`ConnectOptions::new`]); [`ConnectOptions`] sets credentials, TLS, the local
    /// data centre, time-outs and consistency.
    pub async fn connect(contact_points: &[String]) -> Result<Self> {
        ConnectOptions::new()
            .contact_points(contact_points.iter().cloned())
            .connect()
            .await
    }

    /// Connects with the settings of the environment ([`ConnectOptions::from_env`]: contact
    /// points, credentials, TLS, local data centre, time-outs, consistency, keyspace), to the
    /// local node when `CASSMODEL_CONTACT_POINTS` is unset. (This does not start a node:
    /// `cargo run -p cassmodel-node -- start` does.)
    pub async fn connect_from_env() -> Result<Self> {
        ConnectOptions::from_env()?.connect().await
    }
}
