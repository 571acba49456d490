//! Connecting: a driver session built from [`ConnectOptions`], wrapped in a [`Db`].

use super::db::Db;
use crate::config::options::ConnectOptions;
use crate::error::{Error, Result};

impl ConnectOptions {
    /// Connects: a driver session with these settings, wrapped in a [`Db`] (with the
    /// keyspace, if one is set).
    ///
    /// The [connect timeout](ConnectOptions::connect_timeout) bounds the whole connection:
    /// the TCP connection, the TLS handshake, the CQL start-up (and login) and the first
    /// schema metadata. Past it, the attempt ends with [`Error::ConnectTimeout`] (a peer that
    /// accepts the connection and never answers, a paused node); any other failure is
    /// [`Error::Connect`], whose hint follows the cause (unreachable, refused credentials,
    /// TLS).
    pub async fn connect(&self) -> Result<Db> {
        let contact_points = || self.get_contact_points().join(",");
        let builder = self.session_builder()?;
        let build = builder.build();
        let session = tokio::time::timeout(self.get_connect_timeout(), build)
            .await
            .map_err(|_| Error::ConnectTimeout {
                contact_points: contact_points(),
                timeout: self.get_connect_timeout(),
            })?
            .map_err(|source| Error::Connect {
                contact_points: contact_points(),
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
