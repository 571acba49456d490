//! How a drift check runs ([`DriftOptions`]).

use std::sync::Arc;

use crate::progress::{OnProgress, Progress};

/// How a drift check runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DriftOptions {
    /// Token ranges each table's ring is read in (default 64), each claimed through the
    /// record by one process at a time.
    pub ranges: u32,
    /// Ranges read at once (default 4).
    pub ranges_in_flight: usize,
    /// Rows checked at once per range (each a look-up per table; default 32).
    pub rows_in_flight: usize,
    /// Check only this fraction of the ranges (e.g. 0.05), for very large tables.
    pub sample: Option<f64>,
    /// Keys listed per kind of difference and table (default 10).
    pub listed: usize,
    /// Write the repair (default: a dry run, which counts what it would write).
    pub repair: bool,
    /// With `repair`, delete the extra rows too (default: leave them, listed).
    pub delete_extra: bool,
    /// Told each pass's ranges done as they end.
    pub(super) progress: Option<OnProgress>,
}

impl Default for DriftOptions {
    fn default() -> Self {
        DriftOptions {
            ranges: 64,
            ranges_in_flight: 4,
            rows_in_flight: 32,
            sample: None,
            listed: 10,
            repair: false,
            delete_extra: false,
            progress: None,
        }
    }
}

impl DriftOptions {
    /// The defaults: a full check, nothing written.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks only `fraction` (0 to 1) of the ranges.
    pub fn sample(mut self, fraction: f64) -> Self {
        self.sample = Some(fraction.clamp(0.0, 1.0));
        self
    }

    /// Writes the repair: each differing or missing cell gets the winning copy, with its
    /// write time and TTL.
    pub fn repair(mut self) -> Self {
        self.repair = true;
        self
    }

    /// With [`repair`](Self::repair), also deletes the rows no entity has.
    pub fn delete_extra(mut self) -> Self {
        self.delete_extra = true;
        self
    }

    /// Calls `f` with [`Progress::Ranges`] as each pass's ranges end (for a progress bar).
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(OnProgress(Arc::new(f)));
        self
    }
}
