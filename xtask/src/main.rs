//! Project commands, run with `cargo xtask <command>` (an alias in `.cargo/config.toml`).
//!
//! - `test`: the whole suite, as CI runs it: formatting, clippy, a local Cassandra node
//!   (started once, unless `CASSMODEL_CONTACT_POINTS` names a cluster), every test of the
//!   workspace (unit, integration on the node, compile-fail, doc), rustdoc without warnings,
//!   and the demo; then chaos, the three-node cluster, and the parts of the suite that apply
//!   to Cassandra 4.1 on a 4.1 node (`ON_CASSANDRA_4_1`). A node this command started is
//!   stopped at the end. `test --cassandra 4.1.10`: the checks, then every test of the
//!   workspace on a node of that version (127.0.0.5, its own work dir).
//! - `demo`: the seed-model demo (`cargo run --example demo`).
//! - `node <start|stop|reset|status|logs>`: the local node.
//! - `chaos [--only load,pause,crash] [--ops N]`: the reliability checks on the local node
//!   (load, a 10 s SIGSTOP, a kill -9 and restart), one line each, written into
//!   RELIABILITY.md; `test` runs them too, last, without writing the file.
//! - `pull-suite`: tests/pull_suite.rs on the keyspaces tests left in `target/pull-dump`
//!   (`test` runs the suite with `CASSMODEL_PULL_DUMP` set, then this).
//! - `compile-bench`: what `#[derive(CassTable)]` costs a user's build, against the scylla
//!   driver's own derives (see `compile_bench.rs` and BENCHMARKS.md).
//! - `figures [--check]`: the figures atop BENCHMARKS.md and in README.md, written (or
//!   checked) from `benches/results/*.csv` (see `figures.rs`).

mod cargo;
mod compile_bench;
mod figures;
mod pull_suite;
mod results;

use std::io::{BufRead, BufReader};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use cargo::cargo;

/// Runs a command, echoing its output, and says whether it succeeded.
fn run(step: &str, cmd: &mut Command) -> bool {
    eprintln!("\n==> {step}");
    let start = Instant::now();
    let ok = cmd.status().is_ok_and(|s| s.success());
    eprintln!(
        "<== {step}: {} in {:.0?}",
        if ok { "ok" } else { "FAILED" },
        start.elapsed()
    );
    ok
}

/// Test counts summed over `cargo test`'s "test result:" lines, and the lines that said what
/// failed (a test's `... FAILED`, a check's `FAIL` line, a command's `FAILED: why`), printed
/// again at the end of the run.
#[derive(Default)]
struct Counts {
    passed: u64,
    failed: u64,
    ignored: u64,
    failures: Vec<String>,
}

impl Counts {
    fn add_line(&mut self, line: &str) {
        if line
            .split_whitespace()
            .any(|w| matches!(w.trim_end_matches(':'), "FAIL" | "FAILED"))
        {
            self.failures.push(line.trim().to_owned());
        }
        let Some(rest) = line.trim().strip_prefix("test result: ") else {
            return;
        };
        for part in rest.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(what), Some(n)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(n) = n
                .trim_start_matches(|c: char| !c.is_ascii_digit())
                .parse::<u64>()
            else {
                continue;
            };
            match what {
                "passed" => self.passed += n,
                "failed" => self.failed += n,
                "ignored" => self.ignored += n,
                _ => {}
            }
        }
    }
}

/// Runs a command, echoing its output (stdout and stderr, each to its own), noting in `counts`
/// the lines that say what failed, and says whether it succeeded.
fn run_noted(step: &str, cmd: &mut Command, counts: &mut Counts) -> bool {
    eprintln!("\n==> {step}");
    let start = Instant::now();
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let Ok(mut child) = child else {
        eprintln!("cannot run {step}");
        return false;
    };
    let errors = child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            let mut noted = Counts::default();
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("{line}");
                noted.add_line(&line);
            }
            noted.failures
        })
    });
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            counts.add_line(&line);
        }
    }
    if let Some(Ok(lines)) = errors.map(std::thread::JoinHandle::join) {
        counts.failures.extend(lines);
    }
    let ok = child.wait().is_ok_and(|s| s.success());
    eprintln!(
        "<== {step}: {} in {:.0?}",
        if ok { "ok" } else { "FAILED" },
        start.elapsed()
    );
    ok
}

/// `cargo test <args>` with extra environment variables, echoing its output and counting its
/// results. The steps after the first name `--workspace` with their `--test`s: cargo then
/// resolves the dependencies' features for the whole workspace, as the first step did, and
/// runs the test binaries it built; without it the root package's features alone build other
/// ones (30-40 s a step).
fn cargo_test(step: &str, args: &[&str], envs: &[(&str, &str)], counts: &mut Counts) -> bool {
    run_noted(
        step,
        cargo().arg("test").args(args).envs(envs.iter().copied()),
        counts,
    )
}

fn node_config() -> Result<cassmodel_node::NodeConfig, String> {
    cassmodel_node::NodeConfig::try_from_env().map_err(|e| e.to_string())
}

fn block_on<F: std::future::Future>(f: F) -> Result<F::Output, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(|rt| rt.block_on(f))
        .map_err(|e| format!("cannot start a tokio runtime: {e}"))
}

/// Whether `CASSMODEL_CONTACT_POINTS` names a cluster (then the project's own nodes do not run).
fn cluster_configured() -> bool {
    std::env::var("CASSMODEL_CONTACT_POINTS").is_ok_and(|v| !v.trim().is_empty())
}

/// Starts the local node unless a cluster is configured; returns whether this call started it.
fn start_node() -> Result<bool, String> {
    if cluster_configured() {
        eprintln!("using the cluster in CASSMODEL_CONTACT_POINTS; no local node");
        return Ok(false);
    }
    start("local Cassandra node", &node_config()?)
}

/// Starts (or reuses) the node of `cfg`; returns whether this call started it.
fn start(what: &str, cfg: &cassmodel_node::NodeConfig) -> Result<bool, String> {
    eprintln!("\n==> {what} on {}", cfg.contact_point());
    let start = Instant::now();
    match block_on(cassmodel_node::ensure_running(cfg))? {
        Ok(cassmodel_node::Started::Reused) => {
            eprintln!(
                "<== reusing the node that answers on {}",
                cfg.contact_point()
            );
            Ok(false)
        }
        Ok(cassmodel_node::Started::StartedNow { pid }) => {
            eprintln!("<== started pid {pid} in {:.0?}", start.elapsed());
            Ok(true)
        }
        Err(e) => Err(format!("the {what} did not start: {e}")),
    }
}

/// Whether the TLS files of the node of `cfg` are in this checkout: a node reused on its
/// address but started from another work dir has them there, and every TLS test would fail
/// on a missing file instead of saying why.
fn tls_files_here(cfg: &cassmodel_node::NodeConfig) -> Result<(), String> {
    let ca = cfg.tls_files().ca;
    if ca.exists() {
        return Ok(());
    }
    Err(format!(
        "the node answering on {} was not started from this checkout: its TLS files are not \
         in {} (stop that node, then run again)",
        cfg.contact_point(),
        ca.parent().unwrap_or(&ca).display()
    ))
}

fn stop(what: &str, cfg: &cassmodel_node::NodeConfig) {
    match block_on(cassmodel_node::stop(cfg)).and_then(|r| r.map_err(|e| e.to_string())) {
        Ok(true) => eprintln!("stopped the {what} this run started"),
        Ok(false) => {}
        Err(e) => eprintln!("could not stop the {what}: {e}"),
    }
}

/// fmt, clippy and the build of every test: the first steps of every `test` run.
fn checks_and_build(failed: &mut Vec<&str>) {
    if !run(
        "cargo fmt --check",
        cargo().args(["fmt", "--all", "--", "--check"]),
    ) {
        failed.push("fmt");
    }
    if !run(
        "cargo clippy",
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ]),
    ) {
        failed.push("clippy");
    }
    // Build everything before starting the node, so the node does not sit idle during the
    // compile (it uses about 1.5 GB).
    if !run(
        "cargo build --tests",
        cargo().args(["test", "--workspace", "--all-features", "--no-run"]),
    ) {
        failed.push("build");
    }
}

fn test(version: Option<&str>) -> ExitCode {
    if let Some(version) = version {
        return test_on_version(version);
    }
    let mut failed: Vec<&str> = Vec::new();
    checks_and_build(&mut failed);
    let started = match start_node() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            failed.push("node");
            false
        }
    };
    // The password-protected node (127.0.0.4) of tests/password_node.rs, started here rather
    // than by the test, so that it is stopped at the end.
    let password_cfg = node_config().map(|c| c.password_protected());
    let password_started = match password_cfg.as_ref().map_err(Clone::clone).and_then(|cfg| {
        let started = start("password-protected node", cfg)?;
        tls_files_here(cfg)?;
        Ok(started)
    }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            failed.push("password node");
            false
        }
    };
    let mut counts = Counts::default();
    if !failed.contains(&"node") {
        // Each test leaves what `cassmodel pull` writes for its keyspaces in `dump`; the pull
        // round trip of tests/pull_suite.rs checks them after the suite.
        let dump = pull_suite::dump_dir();
        let dump_env = match &dump {
            Ok(dir) => vec![("CASSMODEL_PULL_DUMP", dir.display().to_string())],
            Err(e) => {
                eprintln!("{e}");
                failed.push("pull round trip");
                Vec::new()
            }
        };
        let envs: Vec<(&str, &str)> = dump_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        if !cargo_test(
            "cargo test --workspace",
            &[
                "--workspace",
                "--all-features",
                "--no-fail-fast",
                "--",
                "--skip",
                PULL_SUITE_TEST,
            ],
            &envs,
            &mut counts,
        ) {
            failed.push("tests");
        }
        if let Ok(dir) = &dump
            && !pull_round_trip(dir, &mut counts)
        {
            failed.push("pull round trip");
        }
        // Without the `tls` feature, TLS settings must be refused, not ignored: the runtime's
        // unit tests once more without features.
        if !cargo_test(
            "cassmodel-runtime's unit tests without features (TLS settings refused)",
            &["-p", "cassmodel-runtime", "--lib"],
            &[],
            &mut counts,
        ) {
            failed.push("tests without features");
        }
        // The test support connects with the environment's settings: the same tests pass on a
        // node that requires a login, given nothing but these variables.
        if let Ok(cfg) = &password_cfg
            && !failed.contains(&"password node")
        {
            let point = cfg.contact_point();
            let (user, password) = cassmodel_node::SUPERUSER;
            let tls = cfg.tls_files();
            let (ca, cert, key) = (
                tls.ca.display().to_string(),
                tls.client_cert.display().to_string(),
                tls.client_key.display().to_string(),
            );
            if !cargo_test(
                "tests/writes.rs on the password-protected node over TLS \
                 (CASSMODEL_USERNAME/PASSWORD, CASSMODEL_TLS_CA/CERT/KEY)",
                &["--workspace", "--all-features", "--test", "writes"],
                &[
                    ("CASSMODEL_CONTACT_POINTS", point.as_str()),
                    ("CASSMODEL_USERNAME", user),
                    ("CASSMODEL_PASSWORD", password),
                    ("CASSMODEL_TLS_CA", ca.as_str()),
                    ("CASSMODEL_TLS_CERT", cert.as_str()),
                    ("CASSMODEL_TLS_KEY", key.as_str()),
                ],
                &mut counts,
            ) {
                failed.push("tests with a password");
            }
        }
        if !run(
            "demo",
            cargo().args(["run", "--quiet", "--example", "demo"]),
        ) {
            failed.push("demo");
        }
        // Last: it pauses and kills the node (and starts it again).
        if cluster_configured() {
            eprintln!(
                "\nchaos, cluster checks and Cassandra 4.1 skipped: they run the project's own \
                 nodes, not the cluster in CASSMODEL_CONTACT_POINTS"
            );
        } else {
            // `SINGLE_NODE_CHECKS`: the others run on the cluster only here.
            let single = ["--only".to_owned(), SINGLE_NODE_CHECKS.to_owned()];
            if !run_noted("chaos (pause, kill -9)", &mut chaos(&single), &mut counts) {
                failed.push("chaos");
            }
            failed.extend(cluster_suite(started, &mut counts));
            // The parts of the suite that apply to Cassandra 4.1, on a 4.1 node beside the
            // local one (`cargo xtask test --cassandra 4.1.10` runs the whole suite there).
            let mut on_4_1 = vec!["--workspace", "--all-features"];
            for t in ON_CASSANDRA_4_1 {
                on_4_1.extend(["--test", t]);
            }
            failed.extend(on_other_version(CASSANDRA_4_1, &on_4_1, &mut counts));
        }
    }
    if !run(
        "cargo doc",
        cargo()
            .args(["doc", "--workspace", "--all-features", "--no-deps"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    ) {
        failed.push("doc");
    }
    if !install_cli() {
        failed.push("cargo install cassmodel-cli");
    }
    // Packed and checked (manifests, files, the versions of path dependencies), not verified
    // by a build of each crate from its package: that rebuilds the dependencies per crate with
    // its own features (286 s, a seventh of the suite); `cargo xtask package` does it.
    if !run("cargo package --no-verify", &mut package(false)) {
        failed.push("package");
    }
    if started && let Ok(cfg) = node_config() {
        // Stopped already for the cluster, unless that step did not run.
        stop("local node", &cfg);
    }
    if password_started && let Ok(cfg) = &password_cfg {
        stop("password-protected node", cfg);
    }
    summary(&failed, &counts)
}

/// The checks of `chaos` on the single node in `cargo xtask test`: all but `copy`,
/// `counters`, `migrate` and `load`, which the cluster step runs with faults of its own
/// besides (a node killed; `migrate`'s applies killed while three nodes agree on the schema).
/// `cargo xtask chaos` runs every check on the single node.
const SINGLE_NODE_CHECKS: &str = "drift,hostile,pause,crash";

/// The Cassandra 4.1 release the suite runs on besides the default one (5.0).
const CASSANDRA_4_1: &str = "4.1.10";

/// The test files of the suite's Cassandra 4.1 part in `cargo xtask test` (about two
/// minutes): what 5.0 added, refused by name (`versions`, `indexes`, `vector`, `computed`,
/// `cli_tool`); writes, reads, buckets, static columns, reads' results without their column
/// descriptions and the server's errors; migrations, views and `analyze --live`. The whole suite on 4.1 (`cargo xtask test --cassandra
/// 4.1.10`, about eight minutes more) is run by hand; `masks` needs the password-protected
/// node's address, which the 5.0 one holds during `test`.
const ON_CASSANDRA_4_1: &[&str] = &[
    "versions",
    "indexes",
    "vector",
    "computed",
    "cli_tool",
    "writes",
    "queries",
    "buckets",
    "static_rows",
    "result_metadata",
    "errors",
    "migrations",
    "views",
    "sizing_live",
];

/// `cargo test <args>` against a node of Cassandra `version` beside the local one
/// ([`cassmodel_node::NodeConfig::of_version`]: its own address, JMX port and work dir),
/// started for this and stopped after. Returns the steps that failed.
fn on_other_version(version: &str, args: &[&str], counts: &mut Counts) -> Vec<&'static str> {
    let cfg = match node_config() {
        Ok(c) => c.of_version(version),
        Err(e) => {
            eprintln!("{e}");
            return vec!["other version"];
        }
    };
    let what = format!("Cassandra {version} node");
    let started = match start(&what, &cfg) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return vec!["other version"];
        }
    };
    let point = cfg.contact_point();
    // The node's settings too, for the tests that start or reuse a node of their own from
    // the environment (cassmodel-node's tests): this one.
    let (host, jmx, dir) = (
        cfg.host.to_string(),
        cfg.jmx_port.to_string(),
        cfg.work_dir.display().to_string(),
    );
    // tests/masks.rs starts the password-protected node of these settings when none answers:
    // stopped after, when the tests started it.
    let password = cfg.password_protected();
    let password_was_running = cassmodel_node::running_pid(&password).is_some();
    let mut failed = Vec::new();
    if !cargo_test(
        &format!("cargo test {} on Cassandra {version}", args.join(" ")),
        args,
        &[
            ("CASSMODEL_CONTACT_POINTS", point.as_str()),
            ("CASSMODEL_CASSANDRA_VERSION", version),
            ("CASSMODEL_NODE_HOST", host.as_str()),
            ("CASSMODEL_NODE_JMX_PORT", jmx.as_str()),
            ("CASSMODEL_NODE_DIR", dir.as_str()),
        ],
        counts,
    ) {
        failed.push("tests on the other version");
    }
    if started {
        stop(&what, &cfg);
    }
    if !password_was_running {
        stop(&format!("password-protected {what}"), &password);
    }
    failed
}

/// `cargo xtask test --cassandra <version>`: the checks and the build, then every test of the
/// workspace against a node of that version (the chaos checks and the cluster run on the
/// default version only).
fn test_on_version(version: &str) -> ExitCode {
    let mut failed: Vec<&str> = Vec::new();
    checks_and_build(&mut failed);
    let mut counts = Counts::default();
    failed.extend(on_other_version(
        version,
        &[
            "--workspace",
            "--all-features",
            "--no-fail-fast",
            "--",
            "--skip",
            PULL_SUITE_TEST,
        ],
        &mut counts,
    ));
    summary(&failed, &counts)
}

/// The end of a `test` run: the steps that failed and what said so, then the test counts.
fn summary(failed: &[&str], counts: &Counts) -> ExitCode {
    if failed.is_empty() {
        eprintln!("\nall steps passed");
    } else {
        eprintln!("\nFAILED steps: {}", failed.join(", "));
        // What said so, again: the output of a long run is often read from its end.
        for line in &counts.failures {
            eprintln!("  {line}");
        }
    }
    // The closing line: test counts over the whole suite.
    println!(
        "{} passed, {} failed, {} skipped",
        counts.passed, counts.failed, counts.ignored
    );
    exit(failed.is_empty())
}

/// The crates not published (the project's own tools, and the example of a user's crate).
const UNPUBLISHED: [&str; 3] = ["cassmodel-reliability", "xtask", "telemetry"];

/// `cargo package` of every published crate, in dependency order; with `verify`, each
/// verified by building it from its package with the others from a local registry, as a user
/// of crates.io would get them. `--allow-dirty`: the suite writes RELIABILITY.md before this
/// step.
fn package(verify: bool) -> Command {
    let mut cmd = cargo();
    cmd.args(["package", "--workspace", "--allow-dirty"]);
    if verify {
        forget_packaged_sources();
    } else {
        cmd.arg("--no-verify");
    }
    for crate_name in UNPUBLISHED {
        cmd.args(["--exclude", crate_name]);
    }
    cmd
}

/// Removes what earlier `cargo package` runs left of the workspace's crates in cargo's
/// registry caches. `cargo package --workspace` verifies each crate against the others
/// through a registry in `target/package/tmp-registry`, and cargo keeps what it extracts from
/// there under `$CARGO_HOME/registry/src/-<hash of that path>/<crate>-<version>/`; as the
/// versions do not change between commits, a second run from the same directory would verify
/// against the sources of the first (seen: a `use` of an item added since, unresolved). Only
/// those local registries (named `-<hash>`, unlike crates.io's `index.crates.io-..`) and only
/// the workspace's crates (`cassmodel-*`) are touched. The crates built from that registry are
/// kept as registry crates are, by name and version alone, in `target/debug`: their
/// fingerprints go too (the workspace's own crates are rebuilt once after).
fn forget_packaged_sources() {
    let fingerprints = std::path::Path::new("target")
        .join("debug")
        .join(".fingerprint");
    if let Ok(entries) = std::fs::read_dir(&fingerprints) {
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("cassmodel")
                && let Err(e) = std::fs::remove_dir_all(entry.path())
            {
                eprintln!("could not remove {}: {e}", entry.path().display());
            }
        }
    }
    let Some(home) = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))
    else {
        return;
    };
    for kind in ["src", "cache"] {
        let Ok(registries) = std::fs::read_dir(home.join("registry").join(kind)) else {
            continue;
        };
        for registry in registries.flatten() {
            if !registry.file_name().to_string_lossy().starts_with('-') {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(registry.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                if !entry.file_name().to_string_lossy().starts_with("cassmodel") {
                    continue;
                }
                let path = entry.path();
                let removed = if path.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
                if let Err(e) = removed {
                    eprintln!("could not remove {}: {e}", path.display());
                }
            }
        }
    }
}

/// The test of tests/pull_suite.rs, which runs after the suite, on what it left.
const PULL_SUITE_TEST: &str = "every_keyspace_the_suite_leaves_round_trips";

/// tests/pull_suite.rs on the keyspaces the suite left in `dump`.
fn pull_round_trip(dump: &std::path::Path, counts: &mut Counts) -> bool {
    let written = match pull_suite::write(dump) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("the pull round trip's suite: {e}");
            return false;
        }
    };
    let file = written.file.display().to_string();
    cargo_test(
        &format!(
            "cassmodel pull round trip of the {} distinct keyspaces of the {} the suite left",
            written.distinct, written.dumped
        ),
        &[
            "--workspace",
            "--all-features",
            "--test",
            "pull_suite",
            "--",
            "--ignored",
            "--nocapture",
            PULL_SUITE_TEST,
        ],
        &[("CASSMODEL_PULL_SUITE", file.as_str())],
        counts,
    )
}

/// `cargo install --path cassmodel-cli` (a debug build, into `target/cli-install`, reusing the
/// workspace's build), then the installed `cassmodel --help`, which must list its commands.
fn install_cli() -> bool {
    let root = std::path::Path::new("target").join("cli-install");
    if !run(
        "cargo install --path cassmodel-cli",
        cargo()
            .args([
                "install",
                "--path",
                "cassmodel-cli",
                "--debug",
                "--locked",
                "--force",
                "--target-dir",
                "target",
                "--root",
            ])
            .arg(&root),
    ) {
        return false;
    }
    let help = Command::new(root.join("bin").join("cassmodel"))
        .arg("--help")
        .output();
    match help {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            let listed = ["check", "apply-files"].iter().all(|c| text.contains(c));
            if !listed {
                eprintln!("the installed `cassmodel --help` lists no check/apply-files:\n{text}");
            }
            listed
        }
        Ok(o) => {
            eprintln!(
                "the installed `cassmodel --help` failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            false
        }
        Err(e) => {
            eprintln!("cannot run the installed `cassmodel`: {e}");
            false
        }
    }
}

/// The three-node cluster on 127.0.0.1-3 (which the single node's address is part of): the
/// single node is stopped (and started again at the end if it ran before this step), the
/// cluster checks and the chaos checks run on the cluster (`chaos --cluster`, which starts
/// it), then tests/migrations.rs, tests/key_change.rs, tests/views.rs and tests/fixture.rs
/// (their keyspaces replicated three times) with the cluster's three
/// contact points;
/// the cluster is stopped, and the same addresses take the cluster in two data centres
/// (127.0.0.1-2 in dc1, 127.0.0.3 in dc2) for its checks and tests/writes.rs with the local
/// data centre dc1. A single node that ran before the test run (`started_by_run`
/// false) is started again. Returns the steps that failed.
fn cluster_suite(started_by_run: bool, counts: &mut Counts) -> Vec<&'static str> {
    let mut failed = Vec::new();
    let Ok(single) = node_config() else {
        return vec!["cluster"];
    };
    let single_was_running = cassmodel_node::running_pid(&single).is_some();
    stop("local node (its address is the cluster's first)", &single);
    let one_dc = cassmodel_node::cluster_nodes(&single);
    failed.extend(on_cluster(
        &one_dc,
        Step {
            name: "cluster checks and chaos on the three-node cluster",
            // 500 operations per task in the load check (of 2,000 by default), as on two
            // data centres: 32,000 operations, a third of its 128 s before.
            args: &["--cluster", "--ops", "500"],
            failed: "cluster",
        },
        // tests/writes.rs runs on the cluster in two data centres below (two of its nodes in
        // the local one).
        Step {
            name: "tests/migrations.rs, tests/key_change.rs, tests/views.rs and tests/fixture.rs \
                   on the three-node cluster",
            args: &[
                "--workspace",
                "--all-features",
                "--no-fail-fast",
                "--test",
                "migrations",
                "--test",
                "key_change",
                "--test",
                "views",
                "--test",
                "fixture",
                // `fixture`'s test of `on_cluster` is ignored elsewhere: it needs this cluster.
                "--",
                "--include-ignored",
            ],
            failed: "tests on the cluster",
        },
        &[],
        counts,
    ));
    // The same addresses in two data centres: the data-centre checks, then those whose
    // outcome depends on where replicas are (the load check with 500 operations per task),
    // then tests/writes.rs with the local data centre dc1.
    let two_dcs = cassmodel_node::cluster_nodes_in(&single, cassmodel_node::Topology::TwoDcs);
    failed.extend(on_cluster(
        &two_dcs,
        Step {
            name: "cluster checks on the cluster in two data centres",
            // 250 operations per task in its load check: the same mix and concurrency as on
            // one data centre, at LOCAL_QUORUM, in half the time.
            args: &["--cluster", "--two-dcs", "--ops", "250"],
            failed: "two data centres",
        },
        Step {
            name: "tests/writes.rs on the cluster in two data centres, local data centre dc1",
            args: &["--workspace", "--all-features", "--test", "writes"],
            failed: "tests on two data centres",
        },
        &[("CASSMODEL_LOCAL_DC", "dc1")],
        counts,
    ));
    if single_was_running
        && !started_by_run
        && let Err(e) = start("local node, running before the cluster", &single)
    {
        eprintln!("{e}");
    }
    failed
}

/// A step of [`on_cluster`]: its name, its arguments, and the name it fails under.
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    failed: &'static str,
}

/// On the cluster of `nodes`: its checks (`chaos` with `checks.args`, which starts it), then,
/// if every node runs, `cargo test` with `tests.args`, the cluster's contact points and
/// `env`; then the cluster is stopped. Returns the steps that failed.
fn on_cluster(
    nodes: &[cassmodel_node::NodeConfig],
    checks: Step,
    tests: Step,
    env: &[(&str, &str)],
    counts: &mut Counts,
) -> Vec<&'static str> {
    let mut failed = Vec::new();
    let args: Vec<String> = checks.args.iter().map(|a| (*a).to_owned()).collect();
    if !run_noted(checks.name, &mut chaos(&args), counts) {
        failed.push(checks.failed);
    }
    if nodes
        .iter()
        .all(|n| cassmodel_node::running_pid(n).is_some())
    {
        let points = cassmodel_node::contact_points(nodes).join(",");
        let mut envs = vec![("CASSMODEL_CONTACT_POINTS", points.as_str())];
        envs.extend_from_slice(env);
        if !cargo_test(tests.name, tests.args, &envs, counts) {
            failed.push(tests.failed);
        }
    }
    match block_on(cassmodel_node::stop_cluster(nodes)) {
        Ok(Ok(n)) => eprintln!("stopped {n} cluster node(s)"),
        Ok(Err(e)) => eprintln!("could not stop the cluster: {e}"),
        Err(e) => eprintln!("{e}"),
    }
    failed
}

/// `cargo run -p cassmodel-reliability -- args`: the chaos checks (see reliability/src/main.rs).
fn chaos(args: &[String]) -> Command {
    let mut cmd = cargo();
    cmd.args([
        "run",
        "--quiet",
        "--all-features",
        "-p",
        "cassmodel-reliability",
        "--",
    ])
    .args(args);
    cmd
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("test") => match args.get(1..).unwrap_or_default() {
            [] => test(None),
            [flag, version] if flag == "--cassandra" => test(Some(version)),
            _ => {
                eprintln!("usage: cargo xtask test [--cassandra <version>, e.g. 4.1.10]");
                ExitCode::FAILURE
            }
        },
        Some("demo") => exit(run(
            "demo",
            cargo().args(["run", "--quiet", "--example", "demo"]),
        )),
        Some("compile-bench") => compile_bench::main(&args[1..]),
        Some("figures") => figures::main(&args[1..]),
        Some("pull-suite") => exit(pull_round_trip(
            &pull_suite::dump_path(),
            &mut Counts::default(),
        )),
        Some("package") => exit(run("cargo package", &mut package(true))),
        Some("chaos") => {
            let mut rest: Vec<String> = args[1..].to_vec();
            if !rest.iter().any(|a| a == "--write") {
                rest.extend(["--write".to_owned(), "RELIABILITY.md".to_owned()]);
            }
            exit(run("chaos", &mut chaos(&rest)))
        }
        Some("node") => exit(run(
            "cassmodel-node",
            cargo()
                .args(["run", "--quiet", "-p", "cassmodel-node", "--"])
                .args(&args[1..]),
        )),
        Some("cluster") => exit(run(
            "cassmodel-node cluster",
            cargo()
                .args(["run", "--quiet", "-p", "cassmodel-node", "--", "cluster"])
                .args(&args[1..]),
        )),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n\
                 commands:\n  \
                 test    the whole suite (fmt, clippy, tests on a local Cassandra node, docs, demo)\n          \
                 (--cassandra 4.1.10: every test on a node of that version, on 127.0.0.5)\n  \
                 demo    start or reuse the local node and run the seed-model demo\n  \
                 node    start | stop | reset | status | logs: the local Cassandra node\n  \
                 cluster [--two-dcs] start | stop | reset | status | logs: three nodes on 127.0.0.1-3\n          \
                 (stop the node first; --two-dcs: 127.0.0.1-2 in dc1, 127.0.0.3 in dc2)\n  \
                 chaos   load, pause (SIGSTOP) and kill -9 checks on the local node (--cluster: on the\n          \
                 cluster, with the schema, quorum, routing and unavailable checks; --cluster --two-dcs:\n          \
                 on the cluster in two data centres); writes RELIABILITY.md\n  \
                 compile-bench   compile time of 50 derived tables against scylla's own derives\n  \
                 figures         [--check] the figures atop BENCHMARKS.md and in README.md, from\n                  \
                 benches/results/*.csv\n  \
                 package         cargo package of every published crate, each verified by a build\n  \
                 pull-suite      the pull round trip of the keyspaces tests left in target/pull-dump\n                  \
                 (run tests with CASSMODEL_PULL_DUMP=$PWD/target/pull-dump; `test` does both)"
            );
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Counts;

    #[test]
    fn counts_results_and_notes_what_failed() {
        let mut c = Counts::default();
        for line in [
            "test result: ok. 12 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out",
            "test copy::resumes ... FAILED",
            "test copy::fresh ... ok",
            "counters FAIL error: a worker failed: timed out (93s)",
            "copy    ok   120000 rows, 0 failed and retried",
            "chaos FAILED: the cluster did not start: no answer",
            "Compiling failure-detector v0.1.0",
        ] {
            c.add_line(line);
        }
        assert_eq!((c.passed, c.failed, c.ignored), (12, 1, 2));
        assert_eq!(
            c.failures,
            [
                "test copy::resumes ... FAILED",
                "counters FAIL error: a worker failed: timed out (93s)",
                "chaos FAILED: the cluster did not start: no answer",
            ]
        );
    }
}
