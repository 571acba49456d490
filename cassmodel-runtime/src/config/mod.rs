//! Connection settings: [`ConnectOptions`], and the `CASSMODEL_*` environment variables it
//! reads ([`ENV_VARS`]) with the helpers that parse them, so that a program, its migrations,
//! its tests and a command-line tool of its own reach the same cluster the same way.

pub(crate) mod attempts;
pub(crate) mod env;
pub(crate) mod options;
pub(crate) mod tls;

pub use env::{CONTACT_POINTS_ENV, ENV_VARS, contact_points_from_env, local_contact_point};

/// The parsers of the settings' values, for the command-line crate's flags (each reads a
/// value as its `CASSMODEL_*` variable is read): feature `cli`, no part of the public API.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli {
    pub use super::env::{
        env_var, parse_consistency, parse_duration, parse_serial_consistency, parse_size,
        read_password_file,
    };
}
pub use options::{ConnectOptions, DEFAULT_MAX_REQUEST_SIZE};
