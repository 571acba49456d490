//! TLS for [`ConnectOptions`](crate::ConnectOptions): the driver's rustls support, behind the
//! `tls` feature.

use std::path::{Path, PathBuf};

use scylla::client::session_builder::SessionBuilder;

use crate::error::{Error, Result};

/// Adds TLS to the session when a CA file is given. (TLS is not built in yet: any TLS setting
/// is refused, so that a connection never silently goes out in plain text.)
pub(crate) fn configure(
    builder: SessionBuilder,
    ca: Option<&Path>,
    client: Option<&(PathBuf, PathBuf)>,
) -> Result<SessionBuilder> {
    if ca.is_some() || client.is_some() {
        return Err(Error::Invalid(
            "TLS settings are given (CASSMODEL_TLS_*, --tls-*, or ConnectOptions::tls_ca), but \
             this cassmodel has no TLS support yet: connect through a TLS-terminating proxy, or \
             build the session yourself (`SessionBuilder::tls_context`) and wrap it with \
             `Db::new`"
                .into(),
        ));
    }
    Ok(builder)
}
