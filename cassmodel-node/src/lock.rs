//! Exclusive lock files (std's `File::lock`, an OS-level `flock`), so that concurrent test
//! binaries start exactly one node and download the jars once.
//!
//! The lock is released when the returned `File` is dropped, or when the process dies.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::NodeError;

fn open(path: &Path) -> Result<File, NodeError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| NodeError::io(format!("cannot create {}", dir.display()), e))?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| NodeError::io(format!("cannot open lock file {}", path.display()), e))
}

/// Takes the lock, blocking the thread until it is free.
pub(crate) fn lock_blocking(path: &Path) -> Result<File, NodeError> {
    let file = open(path)?;
    file.lock()
        .map_err(|e| NodeError::io(format!("cannot lock {}", path.display()), e))?;
    Ok(file)
}

/// Takes the lock, polling without blocking the async runtime, for at most `timeout`.
pub(crate) async fn lock_async(path: &Path, timeout: Duration) -> Result<File, NodeError> {
    let file = open(path)?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(TryLockError::WouldBlock) => {
                if start.elapsed() >= timeout {
                    return Err(NodeError::LockTimeout {
                        path: path.to_path_buf(),
                        secs: timeout.as_secs(),
                    });
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(TryLockError::Error(e)) => {
                return Err(NodeError::io(format!("cannot lock {}", path.display()), e));
            }
        }
    }
}
