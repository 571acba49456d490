//! The Cassandra version a cluster runs: the oldest `release_version` among its nodes
//! (`system.local` of the node that answers, `system.peers` for the others). Read when a
//! feature that an older Cassandra lacks is refused (the error path only, never on the hot
//! path) and by the migrator before it plans; kept by the [`Db`](super::db::Db) once read.

use std::fmt;

use scylla::client::session::Session;

use crate::config::attempts;
use crate::error::errors::{Error, Result};

/// A Cassandra release, `major.minor.patch` (`4.1.10`, `5.0.8`); ordered by its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServerVersion {
    /// `4` of `4.1.10`.
    pub major: u32,
    /// `1` of `4.1.10`.
    pub minor: u32,
    /// `10` of `4.1.10` (0 when the release names none).
    pub patch: u32,
}

impl ServerVersion {
    /// The first release with storage-attached and vector indexes, the vector type and
    /// dynamic data masking.
    pub const CASSANDRA_5_0: ServerVersion = ServerVersion {
        major: 5,
        minor: 0,
        patch: 0,
    };

    /// Reads `4.1.10`, `5.0.8`, `5.0-beta1` or `5.1-SNAPSHOT` (what follows the numbers is
    /// left out); `None` for text that does not start with `major.minor`.
    ///
    /// ```
    /// use cassmodel_runtime::ServerVersion;
    /// let v = ServerVersion::parse("4.1.10").unwrap();
    /// assert!(v < ServerVersion::CASSANDRA_5_0);
    /// assert_eq!(ServerVersion::parse("5.0-beta1").unwrap(), ServerVersion::CASSANDRA_5_0);
    /// assert_eq!(ServerVersion::parse("five"), None);
    /// ```
    pub fn parse(text: &str) -> Option<ServerVersion> {
        let numbers = text
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .next()
            .unwrap_or_default();
        let mut parts = numbers.split('.').map(str::parse::<u32>);
        let major = parts.next()?.ok()?;
        let minor = parts.next()?.ok()?;
        let patch = match parts.next() {
            Some(p) => p.ok()?,
            None => 0,
        };
        Some(ServerVersion {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// What DDL text `cql` (a migration file, a statement by hand) uses that Cassandra 5.0
/// added, in words: read from the text, for its error only.
pub(crate) fn ddl_feature(cql: &str) -> Option<&'static str> {
    let upper = cql.to_ascii_uppercase();
    let compact: String = upper.split_whitespace().collect();
    if compact.contains("USING'SAI'") || upper.contains("STORAGEATTACHEDINDEX") {
        Some("a storage-attached index (CREATE INDEX .. USING 'sai')")
    } else if compact.contains("VECTOR<") {
        Some("the vector type (vector<float, n>)")
    } else if upper.contains("MASKED WITH") || upper.contains("DROP MASKED") {
        Some("dynamic data masking (MASKED WITH)")
    } else {
        None
    }
}

/// The oldest release among the nodes `session` knows of, or `None` when no node tells one
/// that [`ServerVersion::parse`] reads.
pub(crate) async fn read(session: &Session) -> Result<Option<ServerVersion>> {
    let mut oldest: Option<ServerVersion> = None;
    for cql in [
        "SELECT release_version FROM system.local",
        "SELECT release_version FROM system.peers",
    ] {
        let rows = session
            .query_unpaged(cql, &[])
            .await
            .map_err(|e| Error::execute(session, cql, e, attempts::take()))?
            .into_rows_result()
            .map_err(|e| Error::Driver(Box::new(e)))?;
        for row in rows
            .rows::<(Option<String>,)>()
            .map_err(|e| Error::Driver(Box::new(e)))?
        {
            let (text,) = row.map_err(|e| Error::Driver(Box::new(e)))?;
            if let Some(v) = text.as_deref().and_then(ServerVersion::parse) {
                oldest = Some(oldest.map_or(v, |o| o.min(v)));
            }
        }
    }
    Ok(oldest)
}

#[cfg(test)]
mod tests {
    use super::ServerVersion;

    #[test]
    fn ddl_that_needs_cassandra_5_is_told_by_its_text() {
        use super::ddl_feature;
        let sai = Some("a storage-attached index (CREATE INDEX .. USING 'sai')");
        assert_eq!(ddl_feature("CREATE INDEX i ON ks.t (c) USING 'sai'"), sai);
        assert_eq!(ddl_feature("create index i on ks.t (c) using  'SAI'"), sai);
        assert_eq!(
            ddl_feature("CREATE TABLE t (id int PRIMARY KEY, v vector <float, 3>)"),
            Some("the vector type (vector<float, n>)")
        );
        assert_eq!(
            ddl_feature("ALTER TABLE t ALTER c MASKED WITH mask_default()"),
            Some("dynamic data masking (MASKED WITH)")
        );
        assert_eq!(
            ddl_feature("CREATE TABLE t (id int PRIMARY KEY, s text)"),
            None
        );
    }

    #[test]
    fn releases_read_and_order_by_their_numbers() {
        let v = |s| ServerVersion::parse(s).expect(s);
        assert_eq!(
            v("4.1.10"),
            ServerVersion {
                major: 4,
                minor: 1,
                patch: 10
            }
        );
        assert!(v("4.1.10") < v("5.0.0"));
        assert!(v("4.1.9") < v("4.1.10"));
        assert_eq!(v("5.0-SNAPSHOT"), v("5.0"));
        assert_eq!(v("5.0.8").to_string(), "5.0.8");
        for bad in ["", "5", "x.1", "5.x", "5..1"] {
            assert_eq!(ServerVersion::parse(bad), None, "{bad}");
        }
    }
}
