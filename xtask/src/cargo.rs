//! The cargo that runs this command (`$CARGO`), for every step that runs cargo again.

use std::process::Command;

/// `cargo`, as the one that runs the xtask.
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}
