//! The environment variables of the connection settings, and the helpers that read them:
//! what [`ConnectOptions::from_env`](super::ConnectOptions::from_env) and the migration CLI's
//! flags parse, here so that a program of your own reads them the same way.

use std::time::Duration;

use scylla::statement::{Consistency, SerialConsistency};

use crate::error::errors::{Error, Result};

/// The environment variables [`ConnectOptions::from_env`](crate::ConnectOptions::from_env) reads, with what each sets.
///
/// | variable | setting | default |
/// |---|---|---|
/// | `CASSMODEL_CONTACT_POINTS` | [`contact_points`](crate::ConnectOptions::contact_points) | the local node, `127.0.0.1:9042` |
/// | `CASSMODEL_LOCAL_DC` | [`local_dc`](crate::ConnectOptions::local_dc) | none |
/// | `CASSMODEL_USERNAME` | [`credentials`](crate::ConnectOptions::credentials) | none |
/// | `CASSMODEL_PASSWORD` | [`credentials`](crate::ConnectOptions::credentials) | none |
/// | `CASSMODEL_PASSWORD_FILE` | the password, from the first line of a file | none |
/// | `CASSMODEL_TLS_CA` | [`tls_ca`](crate::ConnectOptions::tls_ca) | no TLS |
/// | `CASSMODEL_TLS_CERT`, `CASSMODEL_TLS_KEY` | [`tls_client_cert`](crate::ConnectOptions::tls_client_cert) | none |
/// | `CASSMODEL_CONNECT_TIMEOUT` | [`connect_timeout`](crate::ConnectOptions::connect_timeout) | `5s` |
/// | `CASSMODEL_REQUEST_TIMEOUT` | [`request_timeout`](crate::ConnectOptions::request_timeout) | `30s` |
/// | `CASSMODEL_CONSISTENCY` | [`consistency`](crate::ConnectOptions::consistency) | `LOCAL_QUORUM` |
/// | `CASSMODEL_SERIAL_CONSISTENCY` | [`serial_consistency`](crate::ConnectOptions::serial_consistency) | `LOCAL_SERIAL` |
/// | `CASSMODEL_KEYSPACE` | [`keyspace`](crate::ConnectOptions::keyspace) | none |
/// | `CASSMODEL_MAX_REQUEST_SIZE` | [`max_request_size`](crate::ConnectOptions::max_request_size) | `16MiB` |
pub const ENV_VARS: &[&str] = &[
    CONTACT_POINTS_ENV,
    "CASSMODEL_LOCAL_DC",
    "CASSMODEL_USERNAME",
    "CASSMODEL_PASSWORD",
    "CASSMODEL_PASSWORD_FILE",
    "CASSMODEL_TLS_CA",
    "CASSMODEL_TLS_CERT",
    "CASSMODEL_TLS_KEY",
    "CASSMODEL_CONNECT_TIMEOUT",
    "CASSMODEL_REQUEST_TIMEOUT",
    "CASSMODEL_CONSISTENCY",
    "CASSMODEL_SERIAL_CONSISTENCY",
    "CASSMODEL_KEYSPACE",
    "CASSMODEL_MAX_REQUEST_SIZE",
];

/// Environment variable with the contact points of the cluster to use: comma-separated
/// `host:port` pairs, e.g. `10.0.0.1:9042,10.0.0.2:9042`. Unset means the local node
/// (127.0.0.1 on the port in `CASSMODEL_NODE_PORT`, default 9042).
pub const CONTACT_POINTS_ENV: &str = "CASSMODEL_CONTACT_POINTS";

/// The contact points from [`CONTACT_POINTS_ENV`], or `None` when it is unset or empty.
pub fn contact_points_from_env() -> Option<Vec<String>> {
    let points = split_list(&env_var(CONTACT_POINTS_ENV)?);
    (!points.is_empty()).then_some(points)
}

/// The local node's contact point: `$CASSMODEL_NODE_HOST:$CASSMODEL_NODE_PORT` (default
/// `127.0.0.1:9042`), as `cassmodel-node` starts it.
pub fn local_contact_point() -> String {
    format!(
        "{}:{}",
        env_var("CASSMODEL_NODE_HOST")
            .as_deref()
            .unwrap_or("127.0.0.1"),
        env_var("CASSMODEL_NODE_PORT").as_deref().unwrap_or("9042")
    )
}

/// A variable of the environment, trimmed; `None` when unset or blank.
pub fn env_var(name: &str) -> Option<String> {
    non_empty(&std::env::var(name).ok()?)
}

pub(crate) fn non_empty(v: &str) -> Option<String> {
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_owned())
}

/// A comma-separated list, items trimmed, blanks dropped.
pub(crate) fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The first line of a password file, without its line end.
pub fn read_password_file(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Invalid(format!(
            "cannot read the password file {}: {e}",
            path.display()
        ))
    })?;
    let line = text.lines().next().unwrap_or_default().to_owned();
    if line.is_empty() {
        return Err(Error::Invalid(format!(
            "the password file {} is empty: put the password on its first line",
            path.display()
        )));
    }
    Ok(line)
}

/// `250ms`, `5s`, `2m` or a number of seconds.
pub fn parse_duration(v: &str) -> std::result::Result<Duration, String> {
    let v = v.trim();
    let (num, unit) = match v.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => v.split_at(i),
        None => (v, "s"),
    };
    let n: u64 = num
        .parse()
        .map_err(|_| "expected a duration such as 500ms, 5s or 2m".to_owned())?;
    let d = match unit.trim() {
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" | "min" => Duration::from_secs(n.saturating_mul(60)),
        _ => return Err("expected a duration such as 500ms, 5s or 2m".to_owned()),
    };
    if d.is_zero() {
        return Err("a time-out must be longer than zero".to_owned());
    }
    Ok(d)
}

/// A consistency level by its CQL name, in any case (`LOCAL_QUORUM`, `quorum`, `one`...).
pub fn parse_consistency(v: &str) -> std::result::Result<Consistency, String> {
    Ok(
        match v.trim().to_ascii_uppercase().replace('-', "_").as_str() {
            "ANY" => Consistency::Any,
            "ONE" => Consistency::One,
            "TWO" => Consistency::Two,
            "THREE" => Consistency::Three,
            "QUORUM" => Consistency::Quorum,
            "ALL" => Consistency::All,
            "LOCAL_QUORUM" => Consistency::LocalQuorum,
            "EACH_QUORUM" => Consistency::EachQuorum,
            "LOCAL_ONE" => Consistency::LocalOne,
            "SERIAL" | "LOCAL_SERIAL" => {
                return Err(
                    "SERIAL and LOCAL_SERIAL are serial consistencies: set them as the serial \
                 consistency (CASSMODEL_SERIAL_CONSISTENCY, --serial-consistency)"
                        .into(),
                );
            }
            _ => {
                return Err(
                    "expected one of ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, \
                        EACH_QUORUM, LOCAL_ONE"
                        .into(),
                );
            }
        },
    )
}

/// A size in bytes: a number, or a number with `KiB` or `MiB` (e.g. `16MiB`).
pub fn parse_size(v: &str) -> std::result::Result<usize, String> {
    let v = v.trim();
    let (digits, unit) = match v.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => v.split_at(i),
        None => (v, ""),
    };
    let unit = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1024,
        "mib" => 1024 * 1024,
        _ => return Err("expected a number of bytes, e.g. 16777216 or 16MiB".into()),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|&n| n > 0)
        .ok_or_else(|| "expected a number of bytes, e.g. 16777216 or 16MiB".into())
}

/// `SERIAL` or `LOCAL_SERIAL`, in any case.
pub fn parse_serial_consistency(v: &str) -> std::result::Result<SerialConsistency, String> {
    match v.trim().to_ascii_uppercase().replace('-', "_").as_str() {
        "SERIAL" => Ok(SerialConsistency::Serial),
        "LOCAL_SERIAL" => Ok(SerialConsistency::LocalSerial),
        _ => Err("expected SERIAL or LOCAL_SERIAL".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::attempt::consistency_name;

    #[test]
    fn durations_and_levels() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("1h").is_err());
        assert_eq!(parse_size("16777216"), Ok(16 * 1024 * 1024));
        assert_eq!(parse_size("16MiB"), Ok(16 * 1024 * 1024));
        assert_eq!(parse_size("64 KiB"), Ok(64 * 1024));
        assert!(parse_size("0").is_err());
        assert!(parse_size("16GB").is_err());
        assert!(parse_size("99999999999999999999MiB").is_err());
        assert_eq!(parse_consistency("local_one"), Ok(Consistency::LocalOne));
        assert_eq!(
            parse_consistency("EACH-QUORUM"),
            Ok(Consistency::EachQuorum)
        );
        for name in [
            "ANY",
            "ONE",
            "TWO",
            "THREE",
            "QUORUM",
            "ALL",
            "LOCAL_QUORUM",
            "EACH_QUORUM",
            "LOCAL_ONE",
        ] {
            assert_eq!(parse_consistency(name).map(consistency_name), Ok(name));
        }
        assert_eq!(consistency_name(Consistency::LocalSerial), "LOCAL_SERIAL");
        assert_eq!(
            parse_serial_consistency("Local_Serial"),
            Ok(SerialConsistency::LocalSerial)
        );
    }

    /// The hint of a connection failure names the contact-points variable (error.rs writes
    /// it out: the error layer does not import the settings).
    #[test]
    fn the_connect_hint_names_the_contact_points_variable() {
        let e = Error::Connect {
            contact_points: "127.0.0.1:1".to_owned(),
            source: Box::new(scylla::errors::NewSessionError::EmptyKnownNodesList),
            points: Vec::new(),
            tls: None,
        };
        assert!(e.to_string().contains(CONTACT_POINTS_ENV), "{e}");
    }
}
