//! What the server and the driver say reaches the user: the warnings Cassandra attaches to
//! its answers (as `tracing` warn events and through `Db::on_server_warning`), and each
//! attempt of a failed request (`Error::attempts`, a `tracing` debug event per retried one),
//! and a `tracing` span per statement a call runs. On the real node.

mod support;

use std::sync::{Arc, Mutex};

use cassmodel::{
    Batch, CassTable, Consistency, Insert, Table, errors::Answer, errors::ServerWarning, scylla,
};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "notes")]
struct Note {
    #[partition_key]
    page: i32,
    #[clustering]
    line: i32,
    text: String,
}

/// A probe's samples, one partition per day: a read over buckets.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "samples")]
struct Sample {
    #[partition_key]
    probe: i32,
    #[clustering]
    #[cass(bucket(day))]
    at: chrono::DateTime<chrono::Utc>,
    value: f64,
}

fn note(page: i32, line: i32, len: usize) -> Note {
    Note {
        page,
        line,
        text: "n".repeat(len),
    }
}

/// A `tracing` subscriber writing every event at `level` and above into a buffer, as a
/// program's `tracing_subscriber::fmt()` would print them.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Installs it for this thread (the tests run on a current-thread runtime) until the
    /// guard is dropped.
    fn install(&self, level: tracing::Level) -> tracing::subscriber::DefaultGuard {
        self.install_with(level, tracing_subscriber::fmt::format::FmtSpan::NONE)
    }

    /// [`install`](Self::install), also writing a line when a span closes, with its fields.
    fn install_with(
        &self,
        level: tracing::Level,
        spans: tracing_subscriber::fmt::format::FmtSpan,
    ) -> tracing::subscriber::DefaultGuard {
        let writer = self.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(level)
            .with_ansi(false)
            .with_span_events(spans)
            .with_writer(move || writer.clone())
            .finish();
        tracing::subscriber::set_default(subscriber)
    }

    /// The fields of each `statement` span closed so far (`kind="select" ... rows=3`), and
    /// forgets every line.
    fn take_statements(&self) -> Vec<String> {
        self.take_lines()
            .lines()
            .filter(|l| l.contains(" close ") || l.ends_with(" close"))
            .filter_map(|l| {
                let fields = l.split_once("statement{")?.1;
                Some(fields.split_once('}')?.0.to_owned())
            })
            .collect()
    }

    /// The lines written so far by cassmodel (not the driver), and forgets them.
    fn take_ours(&self) -> Vec<String> {
        self.take_lines()
            .lines()
            .filter(|l| l.contains("cassmodel_runtime"))
            .map(str::to_owned)
            .collect()
    }

    /// Everything written so far, and forgets it.
    fn take_lines(&self) -> String {
        let bytes = std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// A batch over `batch_size_warn_threshold` (5 KiB) and a read over the tombstone warning
/// threshold (1,000) each give their warning to the handler and as a warn event naming the
/// statement and the table (the batch's size is also said before it is sent); ordinary
/// requests give none.
#[tokio::test]
async fn server_warnings_reach_tracing_and_the_handler() {
    let t = support::test_db("warnings").await;
    t.db.create_table::<Note>().await.expect("create table");
    let table = format!("{}.notes", t.keyspace());
    let captured = Captured::default();
    let _guard = captured.install(tracing::Level::WARN);
    let seen: Arc<Mutex<Vec<ServerWarning>>> = Arc::default();
    let kept = Arc::clone(&seen);
    t.db.on_server_warning(move |w| kept.lock().expect("lock").push(w.clone()));
    let take = || std::mem::take(&mut *seen.lock().expect("lock"));

    // Ordinary requests: an insert, a read, a small batch.
    t.db.insert(&note(1, 1, 100)).await.expect("insert");
    let back = Note::select()
        .page(&1)
        .fetch_all(&t.db)
        .await
        .expect("read");
    assert_eq!(back, vec![note(1, 1, 100)]);
    Batch::logged()
        .insert(&note(2, 1, 10))
        .insert(&note(3, 1, 10))
        .execute(&t.db)
        .await
        .expect("small batch");
    assert_eq!(take(), Vec::new(), "no warning for ordinary requests");
    assert_eq!(captured.take_ours(), Vec::<String>::new());

    // A logged batch of two partitions, 8 KiB in all.
    let (a, b) = (note(4, 1, 4096), note(5, 1, 4096));
    Batch::logged()
        .insert(&a)
        .insert(&b)
        .execute(&t.db)
        .await
        .expect("large batch");
    let warnings = take();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    assert_eq!(w.statement, "BATCH");
    assert_eq!(w.table.as_deref(), Some(table.as_str()));
    assert!(
        w.text.contains("exceeding specified threshold of 5120"),
        "{w:?}"
    );
    // Said before sending, then the server's own warning.
    let lines = captured.take_ours();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for part in [
        " WARN ",
        "a batch over 2 partitions holds",
        "above Cassandra's default batch_size_warn_threshold (5 KiB)",
        "write a large fan-out",
    ] {
        assert!(lines[0].contains(part), "{part:?} not in {}", lines[0]);
    }
    for part in [
        " WARN ",
        "Cassandra warned about a statement",
        "statement=BATCH",
        &format!("table={table}"),
        "exceeding specified threshold of 5120",
    ] {
        assert!(lines[1].contains(part), "{part:?} not in {}", lines[1]);
    }
    // No bound value is in either event: the 4 KiB text is not.
    for line in &lines {
        assert!(!line.contains(&"n".repeat(64)), "{line}");
    }

    // 1,100 rows of one partition deleted one by one, then the partition read: the read
    // passes over 1,100 row tombstones.
    for line in 0..1_100 {
        t.db.insert(&note(6, line, 1)).await.expect("insert");
    }
    for line in 0..1_100 {
        Note::delete()
            .page(&6)
            .line(&line)
            .execute(&t.db)
            .await
            .expect("delete");
    }
    assert_eq!(take(), Vec::new(), "writes and deletes warn of nothing");
    let back = Note::select()
        .page(&6)
        .fetch_all(&t.db)
        .await
        .expect("read");
    assert!(back.is_empty());
    let warnings = take();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].statement, "SELECT");
    assert_eq!(warnings[0].table.as_deref(), Some(table.as_str()));
    assert!(warnings[0].text.contains("tombstone"), "{:?}", warnings[0]);
    let lines = captured.take_ours();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("statement=SELECT"), "{}", lines[0]);
    assert!(lines[0].contains("tombstone"), "{}", lines[0]);
}

/// A request the node refuses as `Unavailable` is retried by the driver on the next node of
/// its plan (none here): the error keeps the attempt (node, answer, time), its kind is the
/// server's, and the retry decision is a `tracing` debug event.
#[tokio::test]
async fn each_attempt_is_kept_and_a_retry_is_a_debug_event() {
    let mut t = support::test_db("attempts").await;
    // Seven replicas wanted on fewer nodes: ALL cannot be met.
    let db = t.with_replicas(7).await;
    db.create_table::<Note>().await.expect("create table");
    let captured = Captured::default();
    let _guard = captured.install(tracing::Level::DEBUG);
    let err = Insert::new(&note(1, 1, 10))
        .with_options(|o| o.consistency = Some(Consistency::All))
        .execute(&db)
        .await
        .expect_err("ALL of seven replicas");
    assert!(err.is_unavailable(), "{err}");
    let attempts = err.attempts();
    assert!(!attempts.is_empty(), "{err}");
    let first = &attempts[0];
    let points = cassmodel_node::cluster_or_local_node()
        .await
        .expect("a node")
        .get_contact_points()
        .to_vec();
    let node = first.node.to_string();
    assert!(points.contains(&node), "{node} not in {points:?}");
    assert!(first.took.is_some_and(|t| t.as_secs() < 5), "{attempts:?}");
    assert!(
        matches!(
            &first.answer,
            Answer::Server {
                error: scylla::errors::DbError::Unavailable { required: 7, .. },
                ..
            }
        ),
        "{attempts:?}"
    );
    let lines = captured.take_ours();
    let retried: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("DEBUG") && l.contains("a request's attempt failed"))
        .collect();
    assert!(!retried.is_empty(), "{lines:?}");
    assert!(
        retried[0].contains(&format!("node={node}")),
        "{}",
        retried[0]
    );
    assert!(retried[0].contains("RetryNextTarget"), "{}", retried[0]);
}

/// Each call runs inside one `statement` span (debug, target `cassmodel`) with its kind,
/// keyspace, table and consistency, and when it ends the rows it returned, the driver's
/// retries or its error: read with a subscriber as a program installs one.
#[tokio::test]
async fn each_statement_has_a_span_with_its_table_rows_and_error() {
    let mut t = support::test_db("spans").await;
    let ks = t.keyspace().to_owned();
    let captured = Captured::default();
    let _guard = captured.install_with(
        tracing::Level::DEBUG,
        tracing_subscriber::fmt::format::FmtSpan::CLOSE,
    );
    let db = &t.db;
    db.create_table::<Note>().await.expect("create table");
    let ddl = captured.take_statements();
    assert!(!ddl.is_empty(), "no span for CREATE TABLE");
    assert!(
        ddl.iter()
            .all(|s| s.contains("kind=\"ddl\"") && s.contains("cql=")),
        "{ddl:?}"
    );
    assert!(ddl.iter().any(|s| s.contains("CREATE TABLE")), "{ddl:?}");

    for line in 1..=3 {
        db.insert(&note(1, line, 10)).await.expect("insert");
    }
    let spans = captured.take_statements();
    let table = format!("keyspace=\"{ks}\" table=\"notes\"");
    assert_eq!(spans.len(), 3, "{spans:?}");
    for s in &spans {
        assert!(
            s.starts_with("kind=\"insert\"") && s.contains(&table),
            "{s}"
        );
        // The session's default consistency (cassmodel's: LOCAL_QUORUM unless set).
        assert!(s.contains("consistency=\"LOCAL_QUORUM\""), "{s}");
        assert!(!s.contains("error="), "{s}");
    }

    let rows = Note::select().page(&1).fetch_all(db).await.expect("read");
    assert_eq!(rows.len(), 3);
    let first = Note::select()
        .page(&1)
        .consistency(Consistency::One)
        .fetch_first(db)
        .await
        .expect("first");
    assert!(first.is_some());
    let none = Note::get(db, &2, &1).await.expect("get");
    assert!(none.is_none());
    let counted = Note::select().page(&1).count_rows(db).await.expect("count");
    assert_eq!(counted, 3);
    Note::update()
        .page(&1)
        .line(&1)
        .set_text(&"changed".to_owned())
        .execute(db)
        .await
        .expect("update");
    Note::delete()
        .page(&1)
        .line(&2)
        .execute(db)
        .await
        .expect("delete");
    let spans = captured.take_statements();
    let expected = [
        ("select", "rows=3"),
        ("select", "rows=1"),
        ("select", "rows=0"),
        ("count", "rows=1"),
        ("update", ""),
        ("delete", ""),
    ];
    assert_eq!(spans.len(), expected.len(), "{spans:?}");
    for (s, (kind, rows)) in spans.iter().zip(expected) {
        assert!(s.starts_with(&format!("kind=\"{kind}\"")), "{s}");
        assert!(s.contains(&table) && s.contains(rows), "{s}");
    }
    assert!(spans[1].contains("consistency=\"ONE\""), "{}", spans[1]);
    // Each statement's shape: what it restricts, without the values.
    let shapes = [
        "WHERE page = ?",
        "WHERE page = ?",
        "WHERE page = ? AND line = ?",
        "WHERE page = ?",
        "WHERE page = ? AND line = ?",
        "WHERE page = ? AND line = ?",
    ];
    for (s, shape) in spans.iter().zip(shapes) {
        assert!(s.contains(&format!("shape=\"{shape}\"")), "{s}");
    }

    // A read over buckets: its shape, and how many buckets it read.
    db.create_table::<Sample>().await.expect("create table");
    let day = |d: u32| {
        chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 12, d, 12, 0, 0)
            .single()
            .expect("a date")
    };
    for d in [1, 3] {
        let r = Sample {
            probe: 7,
            at: day(d),
            value: f64::from(d),
        };
        db.insert(&r).await.expect("insert");
    }
    captured.take_statements();
    let read = Sample::select()
        .probe(&7)
        .at_range(day(1)..day(4))
        .fetch_all(db)
        .await
        .expect("range");
    assert_eq!(read.len(), 2);
    let spans = captured.take_statements();
    assert_eq!(spans.len(), 1, "{spans:?}");
    assert!(
        spans[0].starts_with("kind=\"select buckets\"")
            && spans[0].contains("shape=\"WHERE probe = ? AND at_day = ? AND at >= ? AND at < ?\"")
            && spans[0].contains("buckets=4")
            && spans[0].contains("rows=2"),
        "{}",
        spans[0]
    );

    // A refused request: its error, and the driver's retry, in its span.
    let few = t.with_replicas(7).await;
    few.create_table::<Note>().await.expect("create table");
    captured.take_statements();
    let err = Insert::new(&note(1, 1, 10))
        .with_options(|o| o.consistency = Some(Consistency::All))
        .execute(&few)
        .await
        .expect_err("ALL of seven replicas");
    let spans = captured.take_statements();
    assert_eq!(spans.len(), 1, "{spans:?}");
    assert!(
        spans[0].contains("consistency=\"ALL\"")
            && spans[0].contains("retries=1")
            && spans[0].contains(&format!("error={err}")),
        "{}",
        spans[0]
    );
}

/// The statements cassmodel writes itself go through the same door as a query's: a
/// migration's reads of the live schema and partition sizing's reads of the system tables
/// each run in a `statement` span of their kind, with their CQL, and a refused one's error is
/// in its span as the error the caller gets.
#[tokio::test]
async fn the_runtimes_own_statements_have_spans_too() {
    let t = support::test_db("own_spans").await;
    let ks = t.keyspace().to_owned();
    let db = &t.db;
    db.create_table::<Note>().await.expect("create table");
    let captured = Captured::default();
    let _guard = captured.install_with(
        tracing::Level::DEBUG,
        tracing_subscriber::fmt::format::FmtSpan::CLOSE,
    );
    let live = cassmodel::migrate::LiveSchema::read(db, &[&ks])
        .await
        .expect("live schema");
    assert!(
        live.keyspaces.contains_key(&ks),
        "{:?}",
        live.keyspaces.keys()
    );
    let spans = captured.take_statements();
    let schema: Vec<&String> = spans
        .iter()
        .filter(|s| s.starts_with("kind=\"schema\""))
        .collect();
    assert!(schema.len() >= 5, "{spans:?}");
    assert!(
        schema
            .iter()
            .any(|s| s.contains("cql=\"SELECT") && s.contains("system_schema.columns")),
        "{schema:?}"
    );

    cassmodel::sizing::live(db, Note::schema(), true)
        .await
        .expect("sizing");
    let spans = captured.take_statements();
    let sizing: Vec<&String> = spans
        .iter()
        .filter(|s| s.starts_with("kind=\"sizing\""))
        .collect();
    assert!(
        sizing.iter().any(|s| s.contains("system.table_estimates")),
        "{spans:?}"
    );
    assert!(
        sizing.iter().any(|s| s.contains("GROUP BY")),
        "the count of each partition's rows: {spans:?}"
    );

    // A refused statement of its own: the error the caller gets, in its span.
    let missing = db.with_keyspace("no_such_keyspace_here").expect("a name");
    let err = cassmodel::sizing::live(&missing, Note::schema(), true)
        .await
        .expect_err("no such keyspace");
    let spans = captured.take_statements();
    assert!(
        spans
            .iter()
            .any(|s| s.starts_with("kind=\"sizing\"") && s.contains(&format!("error={err}"))),
        "{err}: {spans:?}"
    );
}

/// The warn events of [`Captured`] whose text has `words`, waited for (at most 30 s: the
/// driver reads the schema again when the cluster announces the change, and cassmodel looks
/// at what it read every second).
async fn warned(captured: &Captured, words: &str) -> Vec<String> {
    let mut seen = String::new();
    for _ in 0..60 {
        seen.push_str(&captured.take_lines());
        let lines: Vec<String> = seen
            .lines()
            .filter(|l| l.contains(" WARN ") && l.contains(words))
            .map(str::to_owned)
            .collect();
        if !lines.is_empty() {
            return lines;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    panic!("no warning with `{words}` in 30 s; written: {seen}");
}

/// Runs `alter` from the test's session, then returns the warn events with `words`
/// ([`warned`]).
async fn alter_and_wait(
    db: &cassmodel::Db,
    captured: &Captured,
    alter: &str,
    words: &str,
) -> Vec<String> {
    db.session()
        .query_unpaged(alter, ())
        .await
        .expect("alter table");
    warned(captured, words).await
}

/// A change to the columns of a table the program has prepared statements on is a warn event
/// naming the table, the statements and the columns (Cassandra forgets the statements, and the
/// driver prepares them again); a statement that names a column that is gone is one more,
/// naming it. Reads and writes go on working after a column is added.
#[tokio::test]
async fn a_column_change_under_prepared_statements_is_a_warning() {
    let t = support::test_db("schema_watch").await;
    let ks = t.keyspace().to_owned();
    let captured = Captured::default();
    let _guard = captured.install(tracing::Level::WARN);
    let db = &t.db;
    db.create_table::<Note>().await.expect("create table");
    db.insert(&note(1, 1, 10)).await.expect("insert");
    let rows = Note::select().page(&1).fetch_all(db).await.expect("read");
    assert_eq!(rows, [note(1, 1, 10)]);
    assert!(
        !captured.take_lines().contains(" WARN "),
        "a warning before any change"
    );

    // The watch looks at the driver's schema every second: this lets it see the table as
    // it was before the change.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    // Another program adds a column (this session's DDL has the driver read the schema again
    // at once; another program's change reaches it at its next schema tick, within 60 s).
    let lines = alter_and_wait(
        db,
        &captured,
        &format!("ALTER TABLE {ks}.notes ADD extra int"),
        "the columns of a table changed",
    )
    .await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    let line = &lines[0];
    println!("{line}");
    for field in [
        format!("keyspace=\"{ks}\""),
        "table=\"notes\"".to_owned(),
        "statements=2".to_owned(),
        "added=[\"extra\"]".to_owned(),
        "dropped=[]".to_owned(),
        "prepares each of this program's statements on it again".to_owned(),
    ] {
        assert!(line.contains(&field), "`{field}` not in {line}");
    }
    assert!(!line.contains("no longer has"), "{line}");
    // The driver prepared them again: both still run.
    db.insert(&note(1, 2, 10)).await.expect("insert after ADD");
    let rows = Note::select().page(&1).fetch_all(db).await.expect("read");
    assert_eq!(rows, [note(1, 1, 10), note(1, 2, 10)]);

    // Then a column the model reads and writes is dropped.
    let broken = alter_and_wait(
        db,
        &captured,
        &format!("ALTER TABLE {ks}.notes DROP text"),
        "names a column the table no longer has",
    )
    .await;
    assert_eq!(broken.len(), 2, "{broken:?}");
    assert!(
        broken.iter().any(|l| l.contains("statement=\"INSERT INTO"))
            && broken.iter().any(|l| l.contains("statement=\"SELECT")),
        "{broken:?}"
    );
    assert!(
        broken.iter().all(|l| l.contains("columns=[\"text\"]")),
        "{broken:?}"
    );
    let err = db
        .insert(&note(1, 3, 10))
        .await
        .expect_err("the INSERT names a dropped column");
    println!("{}\nthe insert after DROP: {err}", broken.join("\n"));
    assert!(
        err.to_string().contains("Undefined column name text"),
        "{err}"
    );
}
