//! `src/bin/migrate.rs` run as a user runs it (`cargo run --bin migrate -- ...`): it sees the
//! library's models, prints their schema, plans and applies them on a fresh keyspace and
//! validates it; a migration binary that does not name the library refuses every command
//! that needs models, with its own exit code and the fix.

use std::process::{Command, Output};

use cassmodel_node::TestKeyspace;

fn run(binary: &str, args: &[&str]) -> Output {
    Command::new(binary)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {binary}: {e}"))
}

fn migrate(args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_migrate"), args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_binary_prints_the_schema_of_the_librarys_models() {
    let out = migrate(&["schema", "--keyspace", "telemetry"]);
    let schema = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{schema}{}", text(&out.stderr));
    for object in [
        "TYPE IF NOT EXISTS telemetry.location",
        "TABLE IF NOT EXISTS telemetry.alerts",
        "TABLE IF NOT EXISTS telemetry.device_counts",
        "TABLE IF NOT EXISTS telemetry.devices",
        "TABLE IF NOT EXISTS telemetry.readings",
    ] {
        assert!(
            schema.contains(&format!("CREATE {object}")),
            "{object}: {schema}"
        );
    }
}

#[test]
fn the_binary_says_its_version() {
    let out = migrate(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim(), "migrate 0.1.0 (cassmodel-cli)");
}

#[tokio::test]
async fn plan_apply_and_validate_a_fresh_keyspace() {
    let ks = TestKeyspace::new("migrate")
        .await
        .expect("a Cassandra node");
    let name = ks.name();
    let plan = migrate(&["plan", "--keyspace", name]);
    let planned = text(&plan.stdout);
    // 2: statements to run.
    assert_eq!(
        plan.status.code(),
        Some(2),
        "{planned}{}",
        text(&plan.stderr)
    );
    assert!(
        planned.contains(&format!("CREATE TABLE IF NOT EXISTS {name}.readings")),
        "{planned}"
    );
    let apply = migrate(&["apply", "--keyspace", name]);
    assert_eq!(
        apply.status.code(),
        Some(0),
        "{}{}",
        text(&apply.stdout),
        text(&apply.stderr)
    );
    let validate = migrate(&["validate", "--keyspace", name]);
    assert_eq!(
        validate.status.code(),
        Some(0),
        "{}",
        text(&validate.stderr)
    );
    assert!(text(&validate.stdout).contains("the cluster matches the models"));
    let again = migrate(&["plan", "--keyspace", name]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));
}

/// Every command that needs the models refuses to run, rather than find nothing to do: a
/// `validate` in CI would otherwise pass forever. The message names the crate `cargo run`
/// runs the binary of.
#[test]
fn a_binary_without_the_models_refuses_and_says_the_fix() {
    for command in [
        "plan",
        "apply",
        "validate",
        "schema",
        "analyze",
        "generate --dir m",
    ] {
        let args: Vec<&str> = command
            .split(' ')
            .chain(["--keyspace", "telemetry"])
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_migrate_without_models"))
            .args(&args)
            // As `cargo run --bin migrate_without_models` sets it.
            .env("CARGO_PKG_NAME", "telemetry")
            .output()
            .expect("run");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(6), "{command}: {err}");
        assert!(text(&out.stdout).is_empty(), "{command}");
        assert!(err.contains("holds no model"), "{command}: {err}");
        assert!(
            err.contains("    cassmodel_cli::main!(telemetry);"),
            "{command}: {err}"
        );
    }
    let unnamed = Command::new(env!("CARGO_BIN_EXE_migrate_without_models"))
        .arg("plan")
        .env_remove("CARGO_PKG_NAME")
        .output()
        .expect("run");
    assert_eq!(unnamed.status.code(), Some(6));
    assert!(text(&unnamed.stderr).contains("cassmodel_cli::main!(your_crate);"));
}
