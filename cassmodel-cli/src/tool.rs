//! `cassmodel`, the installed command (`cargo install --path cassmodel-cli`): what needs no
//! models. The commands that compare models with a cluster are the migration command of the
//! crate that links them ([`crate::main!`]).
//!
//! ```text
//! cassmodel [connection flags] <check | apply-files --dir DIR | pull [--out FILE | --dir DIR]>
//!
//!   check        connect with the settings and report the cluster: its name, each node
//!                (address, data centre, rack, Cassandra version, connected or not) and the
//!                keyspaces
//!   pull         write the models of the keyspace (--keyspace): a #[derive(CassTable)]
//!                struct per table and a #[derive(CassUdt)] per type, to stdout, a file
//!                (--out) or a file each (--dir); --table to pick tables; --check exits 2
//!                when the files differ from the cluster's schema (see [`crate::pull`])
//!   apply-files  run the migration files of DIR (NNNN_<what>.cql, as `migrate generate`
//!                writes them) in order, each statement after schema agreement on the one
//!                before, and wait for each new index to be queryable on every node
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use cassmodel_runtime::Db;
use cassmodel_runtime::migrate::{LiveSchema, migration_files};
use cassmodel_runtime::scylla::policies::load_balancing::{
    NodeIdentifier, SingleTargetLoadBalancingPolicy,
};
use cassmodel_runtime::scylla::statement::unprepared::Statement;
use clap::{Parser, Subcommand};

use crate::connect::{ConnectArgs, Warned};
use crate::cql_file::cql_statements;
use crate::exit::{Exit, block_on};
use crate::pull::{Output, PullOptions, pull};

#[derive(Debug, Parser)]
#[command(
    name = "cassmodel",
    version,
    about = "cassmodel's command for what needs no models: check a cluster, apply migration files",
    long_about = "cassmodel's command for what needs no models: check that a cluster answers \
                  with the connection settings, and apply the migration files `migrate \
                  generate` writes. Planning, applying and validating the migration of your \
                  models is the one-line `migrate` binary of the crate that holds them \
                  (`cassmodel_cli::main!(your_crate);` in src/bin/migrate.rs).",
    after_help = "Connection settings come from the CASSMODEL_* variables; each flag overrides \
                  its variable. Exit codes: 0 done; 1 error."
)]
struct Tool {
    /// How to reach the cluster: each flag overrides its CASSMODEL_* environment variable.
    #[command(flatten)]
    connect: ConnectArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Connect and report the cluster: its name, each node (address, data centre, rack,
    /// Cassandra version, connected or not) and its keyspaces.
    Check,
    /// Run the migration files of a directory (NNNN_<what>.cql, in number order), each
    /// statement after schema agreement on the one before; wait for new indexes to be
    /// queryable on every node. The statements `migrate generate` writes are idempotent, so
    /// running the files again is harmless.
    ApplyFiles {
        /// The directory of migration files.
        #[arg(long)]
        dir: PathBuf,
        /// How long to wait for each new index to be queryable on every node, in seconds.
        #[arg(long, default_value_t = 120)]
        index_wait_secs: u64,
    },
    /// Write models of the keyspace (--keyspace or CASSMODEL_KEYSPACE) from its schema: a
    /// #[derive(CassTable)] struct per table, a #[derive(CassUdt)] per type. What cannot be
    /// a model is named with the reason (a warning, and in the module's doc comment).
    Pull {
        /// Write the module to this file instead of stdout.
        #[arg(long, conflicts_with = "dir")]
        out: Option<PathBuf>,
        /// Write one file per table and type, and a mod.rs, into this directory.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Only this table (and the types it uses); repeat for several.
        #[arg(long = "table")]
        tables: Vec<String>,
        /// Write nothing; exit 2 when the files of --out or --dir differ from what the
        /// cluster's schema gives (for CI).
        #[arg(long)]
        check: bool,
    },
}

/// The command on the process's arguments; prints to stdout and stderr. The whole `main` of
/// the `cassmodel` binary.
pub fn main() -> ExitCode {
    block_on(|out, err| Box::pin(run(std::env::args_os(), out, err)))
}

/// Runs the command `args` (the first item is the program name), writing the report to `out`
/// and errors to `err`.
pub async fn run<I, T>(args: I, out: &mut (dyn Write + Send), err: &mut (dyn Write + Send)) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let tool = match Tool::try_parse_from(args) {
        Ok(t) => t,
        Err(e) => return crate::migrate::clap_exit(&e, out, err),
    };
    let warned = Warned::default();
    let result = match &tool.command {
        Command::Check => check(&tool, out).await,
        Command::ApplyFiles {
            dir,
            index_wait_secs,
        } => {
            let wait = Duration::from_secs(*index_wait_secs);
            apply_files(&tool, dir, wait, out, &warned).await
        }
        Command::Pull {
            out: file,
            dir,
            tables,
            check,
        } => {
            let output = match (file, dir) {
                (Some(f), _) => Some(Output::File(f.clone())),
                (None, Some(d)) => Some(Output::Dir(d.clone())),
                (None, None) => None,
            };
            match pull_models(&tool, output, tables, *check, out, err).await {
                Ok(exit) => return exit,
                Err(e) => Err(e),
            }
        }
    };
    warned.print(err);
    match result {
        Ok(()) => Exit::Ok,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            Exit::Error
        }
    }
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

async fn connect(tool: &Tool, warned: &Warned) -> Result<Db, Failure> {
    let db = tool.connect.options()?.connect().await?;
    warned.watch(&db);
    Ok(db)
}

/// `check`: the cluster as the driver sees it, and each node's version as the node says.
async fn check(tool: &Tool, out: &mut (dyn Write + Send)) -> Result<(), Failure> {
    let options = tool.connect.options()?;
    let db = options.connect().await?;
    let session = db.session();
    let (name,): (Option<String>,) = session
        .query_unpaged("SELECT cluster_name FROM system.local", &[])
        .await?
        .into_rows_result()?
        .first_row()?;
    writeln!(
        out,
        "cluster `{}`, reached through {}",
        name.unwrap_or_default(),
        options.get_contact_points().join(", ")
    )?;
    let state = session.get_cluster_state();
    let mut version = Statement::new("SELECT release_version FROM system.local");
    version.set_request_timeout(Some(Duration::from_secs(10)));
    for node in state.get_nodes_info() {
        // A node-local table: asked of each node.
        let mut statement = version.clone();
        statement.set_load_balancing_policy(Some(SingleTargetLoadBalancingPolicy::new(
            NodeIdentifier::Node(node.clone()),
            None,
        )));
        let release = match session.query_unpaged(statement, &[]).await {
            Ok(r) => r
                .into_rows_result()
                .ok()
                .and_then(|r| r.first_row::<(Option<String>,)>().ok())
                .and_then(|(v,)| v)
                .map_or_else(
                    || "version unknown".to_owned(),
                    |v| format!("Cassandra {v}"),
                ),
            Err(e) => format!("did not answer: {e}"),
        };
        writeln!(
            out,
            "  node {}  {}/{}  {release}  {}",
            node.address,
            node.datacenter.as_deref().unwrap_or("?"),
            node.rack.as_deref().unwrap_or("?"),
            if node.is_connected() {
                "connected"
            } else {
                "not connected"
            }
        )?;
    }
    let mut keyspaces: Vec<&str> = state
        .keyspaces_iter()
        .map(|(k, _)| k)
        .filter(|k| !k.starts_with("system"))
        .collect();
    keyspaces.sort_unstable();
    writeln!(
        out,
        "keyspaces (system keyspaces left out): {}",
        if keyspaces.is_empty() {
            "none".to_owned()
        } else {
            keyspaces.join(", ")
        }
    )?;
    Ok(())
}

/// `pull`: the keyspace's models to stdout or `output`, or (`check`) compared with `output`.
async fn pull_models(
    tool: &Tool,
    output: Option<Output>,
    tables: &[String],
    check: bool,
    out: &mut (dyn Write + Send),
    err: &mut (dyn Write + Send),
) -> Result<Exit, Failure> {
    let options = tool.connect.options()?;
    let keyspace = options
        .get_keyspace()
        .ok_or("pull reads one keyspace: name it with --keyspace or CASSMODEL_KEYSPACE")?;
    if check && output.is_none() {
        return Err(
            "--check compares the files of --out or --dir with the cluster: give one".into(),
        );
    }
    let db = options.connect().await?;
    let picked = tables
        .iter()
        .fold(PullOptions::new(), |o, t| o.table(t.clone()));
    let pulled = pull(&db, keyspace, &picked).await?;
    for w in &pulled.warnings {
        writeln!(err, "warning: {w}")?;
    }
    match (output, check) {
        (None, _) => out.write_all(pulled.module.as_bytes())?,
        (Some(output), false) => {
            pulled.write(&output)?;
            let n = pulled.files.len() - 1;
            writeln!(
                out,
                "wrote the models of `{keyspace}` ({n} struct{}) to {}",
                if n == 1 { "" } else { "s" },
                match &output {
                    Output::File(f) => f.display().to_string(),
                    Output::Dir(d) => format!("{}/", d.display()),
                }
            )?;
        }
        (Some(output), true) => {
            let differences = pulled.differences(&output);
            if !differences.is_empty() {
                for d in &differences {
                    writeln!(out, "{d}")?;
                }
                writeln!(
                    out,
                    "the models differ from `{keyspace}`: run the same command without --check \
                     to rewrite them"
                )?;
                return Ok(Exit::Pending);
            }
            writeln!(out, "the models match `{keyspace}`")?;
        }
    }
    Ok(Exit::Ok)
}

/// `apply-files`: every statement of every migration file, in order.
async fn apply_files(
    tool: &Tool,
    dir: &Path,
    index_wait: Duration,
    out: &mut (dyn Write + Send),
    warned: &Warned,
) -> Result<(), Failure> {
    let files = migration_files(dir)?;
    if files.is_empty() {
        return Err(format!(
            "{} holds no migration file (NNNN_<what>.cql): write them with `migrate generate \
             --dir {}`",
            dir.display(),
            dir.display()
        )
        .into());
    }
    let db = connect(tool, warned).await?;
    let mut count = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let statements = cql_statements(&text);
        writeln!(
            out,
            "-- {}: {} statement(s)",
            file.display(),
            statements.len()
        )?;
        for statement in statements {
            db.execute_ddl(&statement)
                .await
                .map_err(|e| format!("{}: {e}", file.display()))?;
            db.session().await_schema_agreement().await?;
            if let Some((keyspace, index)) = created_index(&statement, db.keyspace())
                && is_sai(&db, &keyspace, &index).await?
            {
                db.await_indexes(&keyspace, &[index.as_str()], index_wait)
                    .await?;
            }
            writeln!(out, "{statement};")?;
            count += 1;
        }
    }
    writeln!(
        out,
        "-- applied {count} statement(s) from {} file(s)",
        files.len()
    )?;
    Ok(())
}

/// Whether index `keyspace.index` is storage-attached: only those are waited for (a legacy
/// secondary index never shows in `system_views.sai_column_indexes`; reads of it work
/// while it builds).
async fn is_sai(db: &Db, keyspace: &str, index: &str) -> Result<bool, Failure> {
    let live = LiveSchema::read(db, &[keyspace]).await?;
    Ok(live.index(keyspace, index).is_none_or(|(_, i)| i.is_sai()))
}

/// The keyspace and name of the index `statement` creates, if it is a `CREATE [CUSTOM] INDEX`
/// with a name and a table (in `default_keyspace` when the table is not qualified).
fn created_index(statement: &str, default_keyspace: Option<&str>) -> Option<(String, String)> {
    let words = identifiers(statement);
    let upper = |i: usize| {
        words
            .get(i)
            .map(|(w, quoted)| (w.to_ascii_uppercase(), *quoted))
    };
    let mut i = 0;
    if upper(i)? != ("CREATE".into(), false) {
        return None;
    }
    i += 1;
    if upper(i)? == ("CUSTOM".into(), false) {
        i += 1;
    }
    if upper(i)? != ("INDEX".into(), false) {
        return None;
    }
    i += 1;
    if upper(i)? == ("IF".into(), false) {
        i += 3; // IF NOT EXISTS
    }
    let name = words.get(i)?.clone();
    if upper(i + 1)? != ("ON".into(), false) {
        return None;
    }
    let keyspace = match (words.get(i + 2), words.get(i + 3)) {
        (Some(ks), Some((dot, false))) if dot == "." => ks.clone(),
        _ => (default_keyspace?.to_owned(), true),
    };
    Some((fold(keyspace), fold(name)))
}

/// A CQL name as the server stores it: unquoted names are folded to lower case.
fn fold((name, quoted): (String, bool)) -> String {
    if quoted {
        name
    } else {
        name.to_ascii_lowercase()
    }
}

/// The words, quoted names (`(name, true)`, `""` unescaped) and `.`s of a statement, up to
/// its first parenthesis.
fn identifiers(statement: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut chars = statement.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c == '(' {
            break;
        } else if c.is_whitespace() {
            chars.next();
        } else if c == '.' {
            chars.next();
            out.push((".".to_owned(), false));
        } else if c == '"' {
            chars.next();
            let mut name = String::new();
            while let Some(d) = chars.next() {
                if d == '"' {
                    if chars.peek() == Some(&'"') {
                        chars.next();
                    } else {
                        break;
                    }
                }
                name.push(d);
            }
            out.push((name, true));
        } else {
            let mut word = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_alphanumeric() || d == '_' {
                    word.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            if word.is_empty() {
                chars.next();
            } else {
                out.push((word, false));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::created_index;

    #[test]
    fn the_index_a_statement_creates() {
        let idx = |s: &str| created_index(s, Some("dflt"));
        assert_eq!(
            idx(
                "CREATE INDEX IF NOT EXISTS customers_email_idx ON customer.customers (email) USING 'sai'"
            ),
            Some(("customer".into(), "customers_email_idx".into()))
        );
        assert_eq!(
            idx("create custom index \"ByKey\" on \"Shop\".\"Orders\" (keys(m)) using 'sai'"),
            Some(("Shop".into(), "ByKey".into()))
        );
        assert_eq!(
            idx("CREATE INDEX By_Name ON t (name)"),
            Some(("dflt".into(), "by_name".into()))
        );
        assert_eq!(idx("CREATE TABLE ks.t (k int PRIMARY KEY)"), None);
        assert_eq!(idx("CREATE INDEX ON ks.t (v)"), None);
        assert_eq!(created_index("CREATE INDEX i ON t (v)", None), None);
    }
}
