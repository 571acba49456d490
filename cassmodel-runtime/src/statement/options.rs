//! Per-query options: consistency, timeouts, paging, tracing, retries.

use std::time::Duration;

use scylla::statement::prepared::PreparedStatement;
use scylla::statement::{Consistency, SerialConsistency};

/// Per-query options. Unset options keep the session's defaults; reads and plain writes are
/// idempotent by default (safe for the driver to retry), lightweight transactions, counter
/// updates and list appends/prepends are not.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct QueryOptions {
    /// Consistency level.
    pub consistency: Option<Consistency>,
    /// Serial consistency level (for lightweight transactions).
    pub serial_consistency: Option<Option<SerialConsistency>>,
    /// Client-side timeout.
    pub timeout: Option<Duration>,
    /// Rows per page when paging.
    pub page_size: Option<i32>,
    /// Request tracing.
    pub tracing: bool,
    /// Overrides whether the statement may be retried.
    pub idempotent: Option<bool>,
    /// The write time given to the request (the protocol's default timestamp): set by dual
    /// writes, so that both tables hold the same write time.
    pub(crate) write_time: Option<i64>,
}

impl QueryOptions {
    pub(crate) fn is_default(&self) -> bool {
        self.consistency.is_none()
            && self.serial_consistency.is_none()
            && self.timeout.is_none()
            && self.page_size.is_none()
            && !self.tracing
            && self.idempotent.is_none()
            && self.write_time.is_none()
    }

    /// `None` when the cached statement can run as it is, otherwise a copy with these
    /// options applied.
    pub(crate) fn apply(&self, ps: &PreparedStatement) -> Option<PreparedStatement> {
        if self.is_default() {
            return None;
        }
        let mut p = ps.clone();
        if let Some(c) = self.consistency {
            p.set_consistency(c);
        }
        if let Some(sc) = self.serial_consistency {
            p.set_serial_consistency(sc);
        }
        if let Some(t) = self.timeout {
            p.set_request_timeout(Some(t));
        }
        if let Some(n) = self.page_size {
            p.set_page_size(n);
        }
        if self.tracing {
            p.set_tracing(true);
        }
        if let Some(i) = self.idempotent {
            p.set_is_idempotent(i);
        }
        if self.write_time.is_some() {
            p.set_timestamp(self.write_time);
        }
        Some(p)
    }
}
