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
            // The driver panics on a page size below 1.
            p.set_page_size(n.max(1));
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

/// A number of rows, as `limit`, `per_partition_limit`, `page_size` and a bucketed column's
/// `<column>_latest` take it: any integer type a program holds (`u32` and `usize` from a
/// request or a collection's length, `u64`, `i32`, ...).
///
/// CQL counts are 32-bit: a count above `i32::MAX` is taken as `i32::MAX` (every row there
/// is, in practice). A limit of 0 or less is refused by the server (`LIMIT must be strictly
/// positive`, [`ErrorKind::InvalidRequest`](crate::ErrorKind)); a page size below 1 reads
/// one row per page.
///
/// ```
/// use cassmodel_runtime::RowCount;
/// let from_a_request: u32 = 20;
/// let from_a_vec: usize = 3;
/// assert_eq!(from_a_request.rows(), 20);
/// assert_eq!(from_a_vec.rows(), 3);
/// assert_eq!(u64::MAX.rows(), i32::MAX);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number of rows",
    label = "expected an integer here",
    note = "a count of rows is any integer type: `u32`, `usize`, `u64`, `i32`, ..."
)]
pub trait RowCount: Copy {
    /// The count as CQL binds it: `i32`, saturated.
    fn rows(self) -> i32;
}

macro_rules! row_count {
    ($($t:ty),*) => {$(
        impl RowCount for $t {
            #[inline]
            fn rows(self) -> i32 {
                i32::try_from(self).unwrap_or(if self > <$t>::default() { i32::MAX } else { i32::MIN })
            }
        }
    )*};
}

row_count!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize
);
