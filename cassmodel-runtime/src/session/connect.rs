//! Connecting: a driver session built from [`ConnectOptions`], wrapped in a [`Db`].

use std::collections::BTreeMap;
use std::time::Duration;

use scylla::client::session::Session;

use super::db::Db;
use crate::config::options::{ConnectOptions, with_port};
use crate::error::errors::{Error, Result};

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
            .map_err(|source| (contact_points(), source));
        let session = match session {
            Ok(session) => session,
            Err((contact_points, source)) => {
                // Why each contact point failed, when none could be reached: the driver
                // keeps the last one's reason only.
                let tls = tls_failure(self, &source).await;
                let points = if tls.is_none() && crate::error::hint::unreachable(&source) {
                    probe(self.get_contact_points(), self.get_connect_timeout()).await
                } else {
                    Vec::new()
                };
                return Err(Error::Connect {
                    contact_points,
                    source: Box::new(source),
                    points,
                    tls,
                });
            }
        };
        if let Some(dc) = self.get_local_dc() {
            check_local_dc(&session, dc, &contact_points())?;
        }
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

/// Refuses a local data centre that no node of the cluster is in: with it, the driver's
/// plan of every request would be empty ("Load balancing policy returned an empty plan").
fn check_local_dc(session: &Session, dc: &str, contact_points: &str) -> Result<()> {
    let state = session.get_cluster_state();
    let mut datacenters: BTreeMap<String, usize> = BTreeMap::new();
    for node in state.get_nodes_info() {
        if let Some(d) = &node.datacenter {
            *datacenters.entry(d.clone()).or_default() += 1;
        }
    }
    if datacenters.contains_key(dc) {
        return Ok(());
    }
    let suggestion = datacenters
        .keys()
        .find(|d| d.eq_ignore_ascii_case(dc))
        .cloned();
    Err(Error::UnknownLocalDc {
        given: dc.to_owned(),
        contact_points: contact_points.to_owned(),
        datacenters: datacenters.into_iter().collect(),
        suggestion,
    })
}

/// The TLS failure of a failed connection, as [`Error::Connect`] says it: the one in the
/// driver's error, or, when the driver's error lost it (the node closed the connection during
/// its set-up, the alert unseen), the one a handshake of cassmodel's own to each contact point
/// finds (all at once, each bounded by the connect timeout and 3 s). A node that answered (a
/// refused login) has no TLS failure to look for.
#[cfg(feature = "tls")]
async fn tls_failure(
    options: &ConnectOptions,
    source: &scylla::errors::NewSessionError,
) -> Option<String> {
    if let Some(e) = crate::error::hint::tls_failure(source) {
        return Some(crate::error::hint::tls_message(e));
    }
    if !options.uses_tls() || !crate::error::hint::closed_by_peer(source) {
        return None;
    }
    let limit = options.get_connect_timeout().min(Duration::from_secs(3));
    let checks = options.get_contact_points().iter().map(|point| async move {
        let addr = tokio::net::lookup_host(&*with_port(point))
            .await
            .ok()?
            .next()?;
        let options = options.clone();
        tokio::task::spawn_blocking(move || options.tls_handshake_failure(addr, limit))
            .await
            .ok()
            .flatten()
    });
    let found = futures::future::join_all(checks).await;
    found
        .into_iter()
        .flatten()
        .next()
        .map(|e| crate::error::hint::tls_message(&e))
}

/// Without the `tls` feature there is no TLS failure.
#[cfg(not(feature = "tls"))]
async fn tls_failure(_: &ConnectOptions, _: &scylla::errors::NewSessionError) -> Option<String> {
    None
}

/// Each contact point's own reason when none could be reached: its name resolved, then a
/// TCP connection tried (at most `limit`, all points at once).
async fn probe(points: &[String], limit: Duration) -> Vec<(String, String)> {
    let limit = limit.min(Duration::from_secs(3));
    let checks = points.iter().map(|point| async move {
        let target = with_port(point);
        let reason = match tokio::net::lookup_host(&*target).await {
            Err(e) => format!("the name does not resolve ({e})"),
            Ok(mut addrs) => match addrs.next() {
                None => "the name resolves to no address".to_owned(),
                Some(addr) => {
                    // The address, when the point is a name.
                    let at = if addr.to_string() == target {
                        String::new()
                    } else {
                        format!(" ({addr})")
                    };
                    let tcp = tokio::net::TcpStream::connect(addr);
                    match tokio::time::timeout(limit, tcp).await {
                        Err(_) => format!(
                            "no answer to a TCP connection within {} s{at} (a host that is \
                             down, or a firewall)",
                            limit.as_secs_f64()
                        ),
                        Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                            format!("connection refused{at} (nothing listens on that port)")
                        }
                        Ok(Err(e)) => format!("{e}{at}"),
                        Ok(Ok(_)) => {
                            format!("accepts TCP connections{at}; the CQL connection failed")
                        }
                    }
                }
            },
        };
        (point.clone(), reason)
    });
    futures::future::join_all(checks).await
}
