//! A password-protected node: `PasswordAuthenticator` and `CassandraAuthorizer` on 127.0.0.4,
//! started by the project like the main node (`NodeConfig::password_protected`). The same
//! connection settings work from code (`ConnectOptions`), from the environment's variables and
//! from the migration CLI's flags; refused or missing credentials are typed authentication
//! errors whose message says what to set and never shows the password.
//!
//! (`cargo xtask test` also runs `tests/writes.rs` against this node with nothing but
//! `CASSMODEL_CONTACT_POINTS`, `CASSMODEL_USERNAME` and `CASSMODEL_PASSWORD` set: the test
//! support connects with the environment's settings.)

mod support;

use cassmodel::migrate::Models;
use cassmodel::{CassTable, ConnectOptions, Db, ErrorKind, Replication};
use cassmodel_cli as cli;
use cassmodel_node::{NodeConfig, SUPERUSER};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "accounts")]
struct Account {
    #[partition_key]
    id: i32,
    owner: String,
    balance: i64,
}

/// A session of the superuser.
async fn admin(cfg: &NodeConfig) -> Db {
    ConnectOptions::new()
        .contact_points([cfg.contact_point()])
        .credentials(SUPERUSER.0, SUPERUSER.1)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("superuser login: {e}"))
}

/// As the superuser: a keyspace of this test and a new login role with all permissions on it;
/// returns the keyspace, the role and its password.
async fn app_role(cfg: &NodeConfig) -> (String, String, String) {
    let admin = admin(cfg).await;
    let ks = support::unique_name("pw");
    let role = support::unique_name("app");
    let password = support::unique_name("secret");
    admin
        .create_keyspace(&ks, &Replication::Simple(1))
        .await
        .unwrap_or_else(|e| panic!("CREATE KEYSPACE {ks}: {e}"));
    for cql in [
        format!("CREATE ROLE {role} WITH LOGIN = true AND PASSWORD = '{password}'"),
        format!("GRANT ALL PERMISSIONS ON KEYSPACE {ks} TO {role}"),
    ] {
        admin
            .execute_ddl(&cql)
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
    }
    (ks, role, password)
}

async fn write_and_read(db: &Db, id: i32) {
    let row = Account {
        id,
        owner: format!("owner {id}"),
        balance: 100 * i64::from(id),
    };
    db.insert(&row)
        .await
        .unwrap_or_else(|e| panic!("insert: {e}"));
    let back = Account::get(db, &id)
        .await
        .unwrap_or_else(|e| panic!("get: {e}"));
    assert_eq!(back, Some(row));
}

/// The environment's variables of a login to `point` as `role` in keyspace `ks`.
fn login_vars(point: &str, role: &str, password: &str, ks: &str) -> Vec<(&'static str, String)> {
    vec![
        ("CASSMODEL_CONTACT_POINTS", point.to_owned()),
        ("CASSMODEL_USERNAME", role.to_owned()),
        ("CASSMODEL_PASSWORD", password.to_owned()),
        ("CASSMODEL_KEYSPACE", ks.to_owned()),
    ]
}

/// The settings `vars` give as environment variables (looked up from the list: a test must
/// not change the process environment other tests read).
fn options_from_vars(vars: &[(&str, String)]) -> cassmodel::Result<ConnectOptions> {
    ConnectOptions::new().apply_env(&|name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    })
}

/// Runs the migration CLI for `Account` with `args`: its exit, output and error output.
async fn migrate(args: Vec<String>) -> (cli::Exit, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let exit = cli::run(args, Models::new().table::<Account>(), &mut out, &mut err).await;
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (exit, text(out), text(err))
}

/// The same settings from code, from environment variables and from CLI flags all log in and
/// work; the CLI's `apply` creates the table as the application's role.
#[tokio::test]
async fn the_same_settings_work_from_code_environment_and_cli() {
    let cfg = support::password_node().await;
    let (ks, role, password) = app_role(&cfg).await;
    let point = cfg.contact_point();

    // The migration CLI, with --username and --password-file: creates the table.
    let pw_file = std::env::temp_dir().join(format!("{ks}.password"));
    std::fs::write(&pw_file, format!("{password}\n")).expect("password file");
    let pw_arg = pw_file.display().to_string();
    let cli_args = |verb: &str, pw: &str| {
        vec![
            "migrate".to_owned(),
            "--contact-points".into(),
            point.clone(),
            "--username".into(),
            role.clone(),
            "--password-file".into(),
            pw.to_owned(),
            "--keyspace".into(),
            ks.clone(),
            verb.into(),
        ]
    };
    for verb in ["apply", "validate"] {
        let (exit, out, err) = migrate(cli_args(verb, &pw_arg)).await;
        assert_eq!(exit, cli::Exit::Ok, "migrate {verb}: {out}\n{err}");
    }

    // Code.
    let from_code = ConnectOptions::new()
        .contact_points([point.clone()])
        .credentials(role.clone(), password.clone())
        .keyspace(ks.clone())
        .connect()
        .await
        .unwrap_or_else(|e| panic!("login from code: {e}"));
    assert_eq!(from_code.keyspace(), Some(ks.as_str()));
    write_and_read(&from_code, 1).await;

    // The environment's variables (looked up from a map: a test must not change the process
    // environment other tests read).
    let mut vars = login_vars(&point, &role, &password, &ks);
    vars.push(("CASSMODEL_CONSISTENCY", "ONE".to_owned()));
    let from_env = options_from_vars(&vars)
        .unwrap_or_else(|e| panic!("settings from the environment: {e}"))
        .connect()
        .await
        .unwrap_or_else(|e| panic!("login from the environment's settings: {e}"));
    write_and_read(&from_env, 2).await;
    assert_eq!(
        Account::get(&from_code, &2)
            .await
            .expect("get")
            .map(|a| a.balance),
        Some(200),
        "both connections see the same rows"
    );

    // A wrong password file: the CLI fails with the credentials hint, not the password.
    std::fs::write(&pw_file, "not-the-password\n").expect("password file");
    let (exit, _, err) = migrate(cli_args("validate", &pw_arg)).await;
    assert_eq!(exit, cli::Exit::Error, "{err}");
    assert!(err.contains("refused the credentials"), "{err}");
    assert!(
        !err.contains("not-the-password"),
        "the password is printed: {err}"
    );
    assert!(!err.contains("start a local node"), "{err}");
    let _ = std::fs::remove_file(&pw_file);

    from_code
        .execute_ddl(&format!("DROP KEYSPACE {ks}"))
        .await
        .unwrap_or_else(|e| panic!("DROP KEYSPACE {ks}: {e}"));
    admin(&cfg)
        .await
        .execute_ddl(&format!("DROP ROLE {role}"))
        .await
        .unwrap_or_else(|e| panic!("DROP ROLE {role}: {e}"));
}

/// A wrong password and no credentials at all are both `ErrorKind::Authentication`, with a hint
/// that names the settings; neither message shows the password.
#[tokio::test]
async fn refused_credentials_are_typed_and_never_printed() {
    let cfg = support::password_node().await;
    let wrong = "wrong-Pa55word";
    let err = ConnectOptions::new()
        .contact_points([cfg.contact_point()])
        .credentials(SUPERUSER.0, wrong)
        .connect()
        .await
        .expect_err("a wrong password must not log in");
    assert_eq!(err.kind(), ErrorKind::Authentication, "{err}");
    assert!(err.is_authentication());
    let msg = err.to_string();
    assert!(msg.contains("CASSMODEL_USERNAME"), "{msg}");
    assert!(!msg.contains(wrong), "the password is printed: {msg}");
    assert!(
        !format!("{err:?}").contains(wrong),
        "the password is in Debug: {err:?}"
    );

    let err = ConnectOptions::new()
        .contact_points([cfg.contact_point()])
        .connect()
        .await
        .expect_err("no credentials must not log in");
    assert_eq!(err.kind(), ErrorKind::Authentication, "{err}");
    assert!(err.to_string().contains("credentials"), "{err}");
}

/// Every connection of `role` open on the node, from `system_views.clients`: whether it uses
/// TLS, and the protocol.
#[cfg(feature = "tls")]
async fn connections_of(db: &Db, role: &str) -> Vec<(bool, Option<String>)> {
    use futures::TryStreamExt;
    let cql = "SELECT username, ssl_enabled, ssl_protocol FROM system_views.clients";
    let rows: Vec<(Option<String>, Option<bool>, Option<String>)> = db
        .session()
        .query_iter(cql, ())
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .rows_stream()
        .expect("client rows")
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"));
    rows.into_iter()
        .filter(|(user, _, _)| user.as_deref() == Some(role))
        .map(|(_, ssl, protocol)| (ssl.unwrap_or(false), protocol))
        .collect()
}

/// TLS (feature `tls`): the node also takes TLS connections, with a client certificate signed
/// by its authority. The same settings from code, from the environment's variables and from
/// the CLI's flags connect over TLS, and the node lists every connection of the role as TLS.
#[cfg(feature = "tls")]
#[tokio::test]
async fn tls_settings_work_from_code_environment_and_cli() {
    let cfg = support::password_node().await;
    let tls = cfg.tls_files();
    let (ks, role, password) = app_role(&cfg).await;
    let point = cfg.contact_point();
    let path = |p: &std::path::Path| p.display().to_string();

    // Code.
    let from_code = ConnectOptions::new()
        .contact_points([point.clone()])
        .credentials(role.clone(), password.clone())
        .tls_ca(&tls.ca)
        .tls_client_cert(&tls.client_cert, &tls.client_key)
        .keyspace(ks.clone())
        .connect()
        .await
        .unwrap_or_else(|e| panic!("TLS from code: {e}"));
    from_code
        .create_table::<Account>()
        .await
        .unwrap_or_else(|e| panic!("CREATE TABLE over TLS: {e}"));
    write_and_read(&from_code, 1).await;

    // The environment's variables.
    let mut vars = login_vars(&point, &role, &password, &ks);
    vars.extend([
        ("CASSMODEL_TLS_CA", path(&tls.ca)),
        ("CASSMODEL_TLS_CERT", path(&tls.client_cert)),
        ("CASSMODEL_TLS_KEY", path(&tls.client_key)),
    ]);
    let from_env = options_from_vars(&vars)
        .unwrap_or_else(|e| panic!("TLS settings from the environment: {e}"))
        .connect()
        .await
        .unwrap_or_else(|e| panic!("TLS from the environment's settings: {e}"));
    write_and_read(&from_env, 2).await;

    // Every connection of the role, from both, is a TLS one.
    let admin = admin(&cfg).await;
    let conns = connections_of(&admin, &role).await;
    assert!(
        conns.len() >= 2,
        "expected the connections of both sessions, got {conns:?}"
    );
    assert!(
        conns
            .iter()
            .all(|(ssl, p)| *ssl && p.as_deref().is_some_and(|p| p.starts_with("TLS"))),
        "a connection of {role} is not TLS: {conns:?}"
    );

    // The CLI's flags.
    let pw_file = std::env::temp_dir().join(format!("{ks}.tls.password"));
    std::fs::write(&pw_file, format!("{password}\n")).expect("password file");
    let args = [
        "migrate",
        "--contact-points",
        &point,
        "--username",
        &role,
        "--password-file",
        &path(&pw_file),
        "--tls-ca",
        &path(&tls.ca),
        "--tls-cert",
        &path(&tls.client_cert),
        "--tls-key",
        &path(&tls.client_key),
        "--keyspace",
        &ks,
        "validate",
    ]
    .map(str::to_owned);
    let (exit, out, err) = migrate(args.to_vec()).await;
    assert_eq!(
        exit,
        cli::Exit::Ok,
        "migrate validate over TLS: {out}\n{err}"
    );
    let _ = std::fs::remove_file(&pw_file);

    from_code
        .execute_ddl(&format!("DROP KEYSPACE {ks}"))
        .await
        .unwrap_or_else(|e| panic!("DROP KEYSPACE {ks}: {e}"));
    admin
        .execute_ddl(&format!("DROP ROLE {role}"))
        .await
        .unwrap_or_else(|e| panic!("DROP ROLE {role}: {e}"));
}

/// A node certificate not signed by the given authority, and a TLS connection without the
/// client certificate the node requires, are refused with a hint that names the setting to fix
/// (and never fall back to plain text).
#[cfg(feature = "tls")]
#[tokio::test]
async fn refused_tls_handshakes_say_what_to_fix() {
    let cfg = support::password_node().await;
    let tls = cfg.tls_files();
    let base = || {
        ConnectOptions::new()
            .contact_points([cfg.contact_point()])
            .credentials(SUPERUSER.0, SUPERUSER.1)
            .connect_timeout(std::time::Duration::from_secs(3))
    };

    let err = base()
        .tls_ca(&tls.untrusted_ca)
        .tls_client_cert(&tls.client_cert, &tls.client_key)
        .connect()
        .await
        .expect_err("a node certificate from another authority must be refused");
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("not signed by the certificate authority given"),
        "{msg}"
    );
    assert!(msg.contains("CASSMODEL_TLS_CA"), "{msg}");

    let err = base()
        .tls_ca(&tls.ca)
        .connect()
        .await
        .expect_err("a TLS connection without a client certificate must be refused");
    let msg = err.to_string();
    assert!(msg.contains("requires a client certificate"), "{msg}");
    assert!(msg.contains("CASSMODEL_TLS_CERT"), "{msg}");

    let err = base()
        .tls_ca(&tls.ca)
        .tls_client_cert(&tls.untrusted_client_cert, &tls.untrusted_client_key)
        .connect()
        .await
        .expect_err("a client certificate from an authority the node does not trust");
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    let msg = err.to_string();
    assert!(msg.contains("The node refused this client"), "{msg}");
    assert!(msg.contains("CASSMODEL_TLS_CERT"), "{msg}");
}

/// A node that requires a client certificate refuses a client without one after the handshake
/// finished on the client's side (TLS 1.3): the node's alert and the end of the connection
/// race the driver's first request, and the reset of a request written too early drops the
/// alert (47 times in 300 connects in one run on a 2-core machine). Whichever the driver
/// sees, the error is the same and names the setting to give. 100 connects take under a
/// second.
#[cfg(feature = "tls")]
#[tokio::test]
async fn a_missing_client_certificate_is_named_every_time() {
    let cfg = support::password_node().await;
    let tls = cfg.tls_files();
    let mut messages = std::collections::BTreeSet::new();
    for _ in 0..100 {
        let err = ConnectOptions::new()
            .contact_points([cfg.contact_point()])
            .credentials(SUPERUSER.0, SUPERUSER.1)
            .connect_timeout(std::time::Duration::from_secs(5))
            .tls_ca(&tls.ca)
            .connect()
            .await
            .expect_err("a TLS connection without a client certificate must be refused");
        assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
        messages.insert(err.to_string());
    }
    for msg in &messages {
        assert!(msg.contains("requires a client certificate"), "{msg}");
        assert!(msg.contains("CASSMODEL_TLS_CERT"), "{msg}");
        assert!(!msg.contains("Start a local node"), "{msg}");
    }
    assert_eq!(messages.len(), 1, "one wording per failure: {messages:#?}");
}

/// TLS to a node whose CQL port has no TLS (the project's plain local node) is refused, never
/// downgraded, with a hint that says the port speaks no TLS.
#[cfg(feature = "tls")]
#[tokio::test]
async fn tls_to_a_port_without_tls_is_refused() {
    let plain =
        NodeConfig::try_from_env().unwrap_or_else(|e| panic!("CASSMODEL_* environment: {e}"));
    if let Err(e) = cassmodel_node::ensure_running(&plain).await {
        panic!(
            "the local node on {} did not start: {e}",
            plain.contact_point()
        );
    }
    let tls = support::password_node().await.tls_files();
    let err = ConnectOptions::new()
        .contact_points([plain.contact_point()])
        .tls_ca(&tls.ca)
        .connect_timeout(std::time::Duration::from_secs(3))
        .connect()
        .await
        .expect_err("TLS to a plain port must fail");
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("did not answer the TLS handshake with TLS"),
        "{msg}"
    );
}

/// A listener on a free loopback port that accepts connections and never answers (a hung
/// process, a port that is not a node's), holding each connection open; or, with `close`,
/// one that closes each connection as soon as it accepts it (as a node that takes only TLS
/// closes a plain client's).
async fn silent_peer(close: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("bind a loopback port: {e}"));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("the listener's address: {e}"))
        .to_string();
    tokio::spawn(async move {
        let mut held = Vec::new();
        // Bounded: a test connects a few times at most.
        for _ in 0..64 {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            if !close {
                held.push(socket);
            }
        }
    });
    addr
}

/// How long a connect to `addr` with `options` took, and its error.
async fn timed_connect(options: ConnectOptions) -> (std::time::Duration, cassmodel::Error) {
    let start = std::time::Instant::now();
    let err = options
        .connect()
        .await
        .expect_err("a peer that never answers cannot give a session");
    (start.elapsed(), err)
}

/// The connect timeout bounds the whole connection: a peer that accepts the TCP connection and
/// never answers ends the attempt within the timeout and a second, with a timeout error
/// naming the address, without TLS and (feature `tls`) with it (where the handshake is what
/// waits).
#[tokio::test]
async fn a_silent_peer_ends_the_connect_on_time() {
    use std::time::Duration;
    let timeout = Duration::from_secs(2);
    let addr = silent_peer(false).await;
    let plain = ConnectOptions::new()
        .contact_points([addr.clone()])
        .connect_timeout(timeout);
    #[cfg_attr(not(feature = "tls"), allow(unused_mut))]
    let mut cases = vec![("plain", plain)];
    #[cfg(feature = "tls")]
    {
        let tls = support::password_node().await.tls_files();
        let options = ConnectOptions::new()
            .contact_points([addr.clone()])
            .tls_ca(&tls.ca)
            .tls_client_cert(&tls.client_cert, &tls.client_key)
            .connect_timeout(timeout);
        cases.push(("tls", options));
    }
    for (what, options) in cases {
        let (took, err) = timed_connect(options).await;
        assert!(
            took < timeout + Duration::from_secs(1),
            "{what}: gave up after {took:?}: {err}"
        );
        assert_eq!(err.kind(), ErrorKind::Timeout, "{what}: {err}");
        let msg = err.to_string();
        assert!(msg.contains(&addr), "{what}: {msg}");
        assert!(
            msg.contains("within the connect timeout of 2 s"),
            "{what}: {msg}"
        );
    }
}

/// A plain client that a node closes the connection on (as a node that accepts only TLS
/// does) is told that something answered there and that it may want TLS, not to start a
/// node.
#[tokio::test]
async fn a_peer_that_closes_a_plain_client_suggests_tls() {
    let addr = silent_peer(true).await;
    let (_, err) = timed_connect(
        ConnectOptions::new()
            .contact_points([addr.clone()])
            .connect_timeout(std::time::Duration::from_secs(3)),
    )
    .await;
    assert_eq!(err.kind(), ErrorKind::Connection, "{err}");
    let msg = err.to_string();
    assert!(!msg.contains("Start a local node"), "{msg}");
    assert!(
        msg.contains("accepted the connection there and then closed it"),
        "{msg}"
    );
    assert!(msg.contains("CASSMODEL_TLS_CA"), "{msg}");
}
