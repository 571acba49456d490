//! The installed `cassmodel` command (`cassmodel_cli::tool`), on the real node: `check`
//! reports the cluster it reaches, `apply-files` runs migration files in order and can run
//! them again, `pull` writes and checks the models of a keyspace, and `--help` says what it
//! does.

mod support;

use cassmodel_cli::{Exit, tool};

/// Runs `cassmodel <args>`: its exit, output and error output.
async fn cassmodel(args: &[&str]) -> (Exit, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let argv = std::iter::once("cassmodel").chain(args.iter().copied());
    let exit = tool::run(argv, &mut out, &mut err).await;
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (exit, text(out), text(err))
}

/// A new directory `name` under the temporary directory, holding `files` (name, text).
fn files_in(name: &str, files: &[(&str, String)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&dir).expect("dir");
    for (file, text) in files {
        std::fs::write(dir.join(file), text).expect("file");
    }
    dir
}

async fn contact_points() -> String {
    cassmodel_node::cluster_or_local_node()
        .await
        .expect("a node")
        .get_contact_points()
        .join(",")
}

#[tokio::test(flavor = "multi_thread")]
async fn help_lists_the_commands() {
    let (exit, out, err) = cassmodel(&["--help"]).await;
    assert_eq!(exit, Exit::Ok, "{err}");
    for command in [
        "check",
        "apply-files",
        "pull",
        "--contact-points",
        "CASSMODEL_",
    ] {
        assert!(out.contains(command), "{command}: {out}");
    }
    let (exit, _, err) = cassmodel(&["frobnicate"]).await;
    assert_eq!(exit, Exit::Error);
    assert!(
        err.contains("unrecognized subcommand 'frobnicate'"),
        "{err}"
    );
}

/// `check` names the cluster, each node with its Cassandra version, and the keyspaces; an
/// unreachable contact point is an error that says so.
#[tokio::test(flavor = "multi_thread")]
async fn check_reports_the_cluster() {
    let t = support::test_db("tool_check").await;
    let points = contact_points().await;
    let (exit, out, err) = cassmodel(&["--contact-points", &points, "check"]).await;
    assert_eq!(exit, Exit::Ok, "{err}");
    assert!(out.starts_with("cluster `"), "{out}");
    let first = points.split(',').next().unwrap_or_default();
    let node = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("node {first}")))
        .unwrap_or_else(|| panic!("no line for {first}: {out}"));
    let server = support::server(&t.db).await;
    assert!(node.contains(&format!("Cassandra {server}")), "{node}");
    assert!(node.ends_with("connected"), "{node}");
    assert!(out.contains(t.keyspace()), "{out}");

    let (exit, _, err) = cassmodel(&["--contact-points", "127.0.0.1:1", "check"]).await;
    assert_eq!(exit, Exit::Error);
    assert!(
        err.contains("could not connect to Cassandra at 127.0.0.1:1"),
        "{err}"
    );
    t.drop_all().await;
}

/// `apply-files` runs every statement of every file in number order (comments and `;` in
/// literals are not statements), waits for the new index (a read through it works at once),
/// and runs the same files again without harm; a directory without files is an error.
#[tokio::test(flavor = "multi_thread")]
async fn apply_files_runs_migration_files_in_order() {
    let t = support::test_db("tool_files").await;
    let ks = t.keyspace().to_owned();
    let points = contact_points().await;
    // Written out of order: the number decides.
    let dir = files_in(
        &format!("cassmodel_files_{ks}"),
        &[
            (
                "0002_add_colour.cql",
                format!(
                    "-- 0002_add_colour.cql\n\
                     ALTER TABLE {ks}.things ADD IF NOT EXISTS colour text;\n\
                     CREATE INDEX IF NOT EXISTS things_colour_idx ON {ks}.things (colour) USING 'sai';\n"
                ),
            ),
            (
                "0001_create_things.cql",
                format!(
                    "-- 0001_create_things.cql; a comment\n\
                     CREATE TABLE IF NOT EXISTS {ks}.things (id int PRIMARY KEY, name text)\n\
                     WITH comment = 'things; and more';\n"
                ),
            ),
            ("notes.txt", "not a migration".to_owned()),
        ],
    );
    let dir_arg = dir.display().to_string();
    let args = [
        "--contact-points",
        &points,
        "apply-files",
        "--dir",
        &dir_arg,
    ];

    let (exit, out, err) = cassmodel(&args).await;
    // Before Cassandra 5.0, the second file's SAI index is refused by name, after the first
    // file ran.
    let server = support::server(&t.db).await;
    if server < cassmodel::schema::ServerVersion::CASSANDRA_5_0 {
        assert_ne!(exit, Exit::Ok, "{out}");
        assert!(
            err.contains(&format!(
                "a storage-attached index (CREATE INDEX .. USING 'sai') needs Cassandra 5.0 or \
                 later, and the cluster runs Cassandra {server}"
            )),
            "{err}"
        );
        return t.drop_all().await;
    }
    assert_eq!(exit, Exit::Ok, "{err}");
    let ran: Vec<&str> = out.lines().filter(|l| !l.starts_with("--")).collect();
    assert_eq!(
        ran,
        [
            format!(
                "CREATE TABLE IF NOT EXISTS {ks}.things (id int PRIMARY KEY, name text)\n\
                 WITH comment = 'things; and more';"
            )
            .as_str(),
            format!("ALTER TABLE {ks}.things ADD IF NOT EXISTS colour text;").as_str(),
            format!(
                "CREATE INDEX IF NOT EXISTS things_colour_idx ON {ks}.things (colour) USING 'sai';"
            )
            .as_str(),
        ]
        .join("\n")
        .lines()
        .collect::<Vec<_>>(),
        "{out}"
    );
    assert!(
        out.ends_with("-- applied 3 statement(s) from 2 file(s)\n"),
        "{out}"
    );
    let db = &t.db;
    db.execute_ddl(&format!(
        "INSERT INTO {ks}.things (id, name, colour) VALUES (1, 'kettle', 'red')"
    ))
    .await
    .expect("insert");
    let found = support::plain_rows::<(String,)>(
        db,
        format!("SELECT name FROM {ks}.things WHERE colour = 'red'"),
        &[],
    )
    .await;
    assert_eq!(found, [("kettle".to_owned(),)]);

    let (exit, out, err) = cassmodel(&args).await;
    assert_eq!(exit, Exit::Ok, "again: {err}");
    assert!(
        out.ends_with("-- applied 3 statement(s) from 2 file(s)\n"),
        "{out}"
    );

    let empty = std::env::temp_dir().join(format!("cassmodel_no_files_{ks}"));
    let empty_arg = empty.display().to_string();
    let (exit, _, err) = cassmodel(&[
        "--contact-points",
        &points,
        "apply-files",
        "--dir",
        &empty_arg,
    ])
    .await;
    assert_eq!(exit, Exit::Error);
    assert!(err.contains("holds no migration file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    t.drop_all_unmodelled().await;
}

/// `pull --dir` writes a file per table and type and a `mod.rs`; `--check` passes on them
/// (exit 0) and names the file that no longer matches (exit 2); a table that cannot be a
/// model is a warning; a keyspace or table that does not exist is an error.
#[tokio::test(flavor = "multi_thread")]
async fn pull_writes_checks_and_names_what_it_cannot_model() {
    let t = support::test_db("tool_pull").await;
    let ks = t.keyspace().to_owned();
    for cql in [
        format!("CREATE TYPE {ks}.geo (lat double, lon double)"),
        format!(
            "CREATE TABLE {ks}.places (id uuid, at timestamp, spot frozen<geo>, \
             PRIMARY KEY (id, at)) WITH CLUSTERING ORDER BY (at DESC)"
        ),
        format!("CREATE TABLE {ks}.ints (id int PRIMARY KEY, v vector<int, 2>)"),
    ] {
        let made = t.db.execute_ddl(&cql).await;
        // Before Cassandra 5.0 the vector table is refused by name (and pulled on 5.0 only).
        if let Err(e) = &made
            && e.kind() == cassmodel::ErrorKind::Unsupported
            && cql.contains("vector<")
        {
            assert!(e.to_string().starts_with("the vector type"), "{e}");
            return t.drop_all().await;
        }
        made.expect("DDL");
    }
    let points = contact_points().await;
    let dir = std::env::temp_dir().join(format!("cassmodel_pull_{ks}"));
    let dir_arg = dir.display().to_string();
    let base = ["--contact-points", &points, "--keyspace", &ks, "pull"];
    let with = |more: &[&'static str]| -> Vec<String> {
        base.iter()
            .map(|s| s.to_string())
            .chain(["--dir".to_owned(), dir_arg.clone()])
            .chain(more.iter().map(|s| s.to_string()))
            .collect()
    };
    let run = |args: Vec<String>| async move {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cassmodel(&args).await
    };

    let (exit, out, err) = run(with(&[])).await;
    assert_eq!(exit, Exit::Ok, "{err}");
    assert!(out.contains("(2 structs)"), "{out}");
    assert!(
        err.contains("warning: not generated: table `ints`: column `v`: `vector<int, 2>`"),
        "{err}"
    );
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["geo.rs", "mod.rs", "places.rs"]);
    let places = std::fs::read_to_string(dir.join("places.rs")).expect("places.rs");
    for expected in [
        "use super::Geo;",
        "#[cass(table = \"places\")]",
        "#[clustering(desc)]\n    pub at: DateTime<Utc>,",
        "#[cass(frozen)]\n    pub spot: Option<Geo>,",
    ] {
        assert!(places.contains(expected), "{expected}:\n{places}");
    }
    let module = std::fs::read_to_string(dir.join("mod.rs")).expect("mod.rs");
    assert!(
        module.contains("mod places;\npub use places::Places;"),
        "{module}"
    );
    assert!(module.contains("//! - table `ints`"), "{module}");

    let (exit, out, err) = run(with(&["--check"])).await;
    assert_eq!(exit, Exit::Ok, "{err}");
    assert!(out.contains(&format!("the models match `{ks}`")), "{out}");

    std::fs::write(dir.join("places.rs"), places.replace("(desc)", "")).expect("edit");
    let (exit, out, _) = run(with(&["--check"])).await;
    assert_eq!(exit, Exit::Pending, "{out}");
    assert!(
        out.contains("places.rs: differs from the cluster's schema from line")
            && out.contains("the file has `#[clustering]`, the cluster says `#[clustering(desc)]`"),
        "{out}"
    );

    let (exit, _, err) = run(with(&["--table", "nope"])).await;
    assert_eq!(exit, Exit::Error);
    assert!(
        err.contains(&format!(
            "the keyspace `{ks}` has no table `nope`; its tables: ints, places"
        )),
        "{err}"
    );
    let (exit, _, err) = cassmodel(&["--contact-points", &points, "pull"]).await;
    assert_eq!(exit, Exit::Error);
    assert!(err.contains("name it with --keyspace"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    t.drop_all_unmodelled().await;
}

/// A legacy secondary index in a migration file is not waited for as an SAI index would be:
/// it never shows in `system_views.sai_column_indexes`, and waiting for it ran out the whole
/// index wait and failed.
#[tokio::test(flavor = "multi_thread")]
async fn apply_files_does_not_wait_for_a_legacy_index() {
    let t = support::test_db("tool_legacy").await;
    let ks = t.keyspace().to_owned();
    let points = contact_points().await;
    let dir = files_in(
        &format!("cassmodel_legacy_{ks}"),
        &[(
            "0001_things.cql",
            format!(
                "CREATE TABLE {ks}.things (id int PRIMARY KEY, name text);\n\
                 CREATE INDEX things_by_name ON {ks}.things (name);\n"
            ),
        )],
    );
    let dir_arg = dir.display().to_string();
    let args = [
        "--contact-points",
        &points,
        "apply-files",
        "--dir",
        &dir_arg,
        "--index-wait-secs",
        "20",
    ];
    let (exit, out, err) = cassmodel(&args).await;
    assert_eq!(exit, Exit::Ok, "{out}{err}");
    assert!(
        out.ends_with("-- applied 2 statement(s) from 1 file(s)\n"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    t.drop_all_unmodelled().await;
}
