//! The checks on data and schema rather than on the node: rows that drifted from their
//! struct, hostile identifiers and values, and migrations killed half-way.

use std::collections::BTreeMap;
use std::time::Duration;

use cassmodel::migrate::{Migrator, Models};
use cassmodel::{CassTable, Db, Error, ErrorKind, errors::RowError};

use crate::checks::connect;
use crate::env::{Env, Outcome};

/// The struct as the code has it; the table was created by another program, differently.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_drift")]
pub struct Drift {
    #[partition_key]
    id: i32,
    amount: i64,
    label: Option<String>,
}

/// Rows another program wrote into tables that differ from their struct, and a column
/// dropped while the program runs: every read and write gives a typed error naming
/// `keyspace.table` and the column (a schema mismatch, by `ErrorKind`); nothing panics, and
/// the same `Db` keeps working on a table that fits.
pub async fn drift(env: &Env) -> Result<Outcome, String> {
    let admin = connect(env, None).await?;
    let ks_type = env.keyspace.clone();
    let ks_null = format!("{}_drift", env.keyspace);
    admin
        .create_keyspace(&ks_null, &env.replication)
        .await
        .map_err(|e| e.to_string())?;
    for cql in [
        format!("CREATE TABLE {ks_type}.chaos_drift (id int PRIMARY KEY, amount text, label text)"),
        format!("INSERT INTO {ks_type}.chaos_drift (id, amount, label) VALUES (1, 'lots', 'a')"),
        format!(
            "CREATE TABLE {ks_null}.chaos_drift (id int PRIMARY KEY, amount bigint, label text)"
        ),
        format!("INSERT INTO {ks_null}.chaos_drift (id, label) VALUES (3, 'no amount')"),
        format!("INSERT INTO {ks_null}.chaos_drift (id, amount) VALUES (4, 7)"),
    ] {
        admin
            .execute_ddl(&cql)
            .await
            .map_err(|e| format!("{cql}: {e}"))?;
    }
    let in_type = admin.with_keyspace(&ks_type).map_err(|e| e.to_string())?;
    let in_null = admin.with_keyspace(&ks_null).map_err(|e| e.to_string())?;
    let (t_type, t_null) = (
        format!("{ks_type}.chaos_drift"),
        format!("{ks_null}.chaos_drift"),
    );
    let mut results: Vec<(&str, Result<(), String>)> = Vec::new();
    // Each case runs in a task: a panic is counted as a failure, not a crash of the suite.
    let read = get_drift(&in_type, 1).await?;
    results.push((
        "text read as i64: RowError::Type",
        expect(&read, &t_type, "amount", |r| {
            matches!(r, RowError::Type { .. })
        }),
    ));
    let row = Drift {
        id: 2,
        amount: 5,
        label: None,
    };
    let write = spawn({
        let db = in_type.clone();
        async move { db.insert(&row).await }
    })
    .await?;
    results.push((
        "i64 written to text: RowError::Value",
        expect(&write, &t_type, "amount", |r| {
            matches!(r, RowError::Value { .. })
        }),
    ));
    let null = get_drift(&in_null, 3).await?;
    results.push((
        "null in an i64 field: RowError::Null, ErrorKind::UnexpectedNull",
        match &null {
            Err(e) if e.kind() != ErrorKind::UnexpectedNull => {
                Err(format!("kind {:?}, not UnexpectedNull: {e}", e.kind()))
            }
            _ => expect(&null, &t_null, "amount", |r| {
                matches!(r, RowError::Null { .. })
            }),
        },
    ));
    let fine = get_drift(&in_null, 4).await?;
    results.push((
        "a fitting row still reads",
        match fine {
            Ok(Some(d)) if d.amount == 7 && d.label.is_none() => Ok(()),
            other => Err(format!("{other:?}")),
        },
    ));
    // A column dropped under the running program: its prepared read no longer fits.
    admin
        .execute_ddl(&format!("ALTER TABLE {t_null} DROP label"))
        .await
        .map_err(|e| e.to_string())?;
    let dropped = get_drift(&in_null, 4).await?;
    results.push((
        "a column dropped while running: schema mismatch naming it",
        match &dropped {
            Err(e) if e.kind() == ErrorKind::SchemaMismatch && e.to_string().contains("label") => {
                Ok(())
            }
            other => Err(format!("{other:?}")),
        },
    ));
    let failed: Vec<String> = results
        .iter()
        .filter_map(|(name, r)| r.as_ref().err().map(|e| format!("{name}: got {e}")))
        .collect();
    let _ = admin
        .execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks_null}"))
        .await;
    Ok(Outcome {
        name: "drift",
        ok: failed.is_empty(),
        figures: if failed.is_empty() {
            format!(
                "{} of {} drift cases gave their typed error naming the table and column ({}); \
                 no panic",
                results.len(),
                results.len(),
                results
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        } else {
            failed.join("; ")
        },
    })
}

/// `Drift::get`, in a task ([`spawn`]).
async fn get_drift(db: &Db, id: i32) -> Result<cassmodel::Result<Option<Drift>>, String> {
    let db = db.clone();
    spawn(async move { Drift::get(&db, &id).await }).await
}

/// Runs `f` in a task, so that a panic is an error of the check.
async fn spawn<T: Send + 'static>(
    f: impl std::future::Future<Output = T> + Send + 'static,
) -> Result<T, String> {
    tokio::spawn(f)
        .await
        .map_err(|e| format!("a request panicked: {e}"))
}

/// `Ok` when `r` is a row error matching `kind` on `table`'s `column`.
fn expect<T: std::fmt::Debug>(
    r: &cassmodel::Result<T>,
    table: &str,
    column: &str,
    kind: impl Fn(&RowError) -> bool,
) -> Result<(), String> {
    match r {
        Err(e @ Error::Row(row)) if kind(row) => {
            let msg = e.to_string();
            if msg.contains(&format!("`{table}`")) && msg.contains(column) {
                Ok(())
            } else {
                Err(format!("a message without the table or column: {msg}"))
            }
        }
        other => Err(format!("{other:?}")),
    }
}

/// Identifiers that are CQL reserved words or need quoting, for the hostile check.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_select")]
pub struct Hostile {
    #[partition_key]
    #[cass(name = "select")]
    key: String,
    #[clustering]
    #[cass(name = "Order")]
    order: i32,
    #[cass(name = "from")]
    text: String,
    #[cass(name = "where")]
    number: f64,
    big: i64,
    data: Vec<u8>,
    tags: Vec<String>,
    meta: BTreeMap<String, String>,
    maybe: Option<String>,
}

/// Strings a hand-built CQL statement would choke on.
const HOSTILE_TEXT: &[&str] = &[
    "",
    " ",
    "'",
    "''",
    "\"",
    "'; DROP TABLE chaos_select; --",
    "\u{0}",
    "a\u{0}b",
    "\\",
    "\n\r\t",
    "😀 emoji",
    "שלום RTL",
    "\u{FEFF}BOM",
    "?",
    ":name",
    "$$",
    "%s %d",
    "NULL",
];

/// Reserved words and quoted names as table and column names, and hostile values (quotes, NUL,
/// emoji, injection attempts, NaN, infinities, -0.0, integer extremes, empty and large
/// collections, a 1 MiB string): all written and read back bit-for-bit. Values the server or
/// cassmodel must refuse (an empty or 70,000-byte partition key, a 17 MiB blob) give typed
/// errors, and the table is unharmed. A timestamp key with digits below the millisecond is
/// written truncated to its millisecond: found by it, and not by the exact value.
pub async fn hostile(env: &Env) -> Result<Outcome, String> {
    let db = connect(env, None).await?;
    db.create_table::<Hostile>()
        .await
        .map_err(|e| e.to_string())?;
    db.create_table::<Stamped>()
        .await
        .map_err(|e| e.to_string())?;
    let numbers = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        f64::MIN_POSITIVE,
        f64::MAX,
    ];
    let bigs = [i64::MIN, i64::MAX, 0, -1];
    let mut rows = Vec::new();
    for (i, text) in HOSTILE_TEXT.iter().enumerate() {
        let n = i32::try_from(i).unwrap_or_default();
        rows.push(Hostile {
            // A partition key may not be empty (refused below), so each has a prefix.
            key: format!("k{i}:{text}"),
            order: n,
            text: (*text).repeat(3),
            number: numbers[i % numbers.len()],
            big: bigs[i % bigs.len()],
            data: text.as_bytes().to_vec(),
            tags: if i % 2 == 0 {
                Vec::new()
            } else {
                HOSTILE_TEXT.iter().map(|s| (*s).to_owned()).collect()
            },
            meta: HOSTILE_TEXT
                .iter()
                .take(i)
                .map(|s| ((*s).to_owned(), (*s).repeat(2)))
                .collect(),
            maybe: (i % 3 != 0).then(|| (*text).to_owned()),
        });
    }
    // One large value: a 1 MiB string of multi-byte characters.
    rows.push(Hostile {
        key: "large".into(),
        order: -1,
        text: "é".repeat(512 * 1024),
        number: 1.5,
        big: 1,
        data: vec![0xff; 1024 * 1024],
        tags: vec!["x".repeat(60_000); 4],
        meta: BTreeMap::new(),
        maybe: None,
    });
    for row in &rows {
        db.insert(row)
            .await
            .map_err(|e| format!("insert of {:?}: {e}", row.key))?;
    }
    let mut differing = 0;
    for row in &rows {
        let back = Hostile::get(&db, &row.key, &row.order)
            .await
            .map_err(|e| format!("read of {:?}: {e}", row.key))?;
        if !back.as_ref().is_some_and(|b| same(b, row)) {
            differing += 1;
        }
    }
    // Refusals: an empty key and a key over 65,535 bytes (the server), a 17 MiB value
    // (cassmodel, before sending).
    let mut refusals = Vec::new();
    let empty_key = Hostile {
        key: String::new(),
        ..rows[1].clone()
    };
    match db.insert(&empty_key).await {
        Err(e) if e.kind() == ErrorKind::InvalidRequest => refusals.push("empty partition key"),
        other => return Err(format!("an empty key: {other:?}")),
    }
    let long_key = Hostile {
        key: "k".repeat(70_000),
        ..rows[1].clone()
    };
    match db.insert(&long_key).await {
        Err(e) if e.kind() == ErrorKind::InvalidRequest => refusals.push("key over 64 KiB"),
        other => return Err(format!("a 70,000-byte key: {other:?}")),
    }
    let huge = Hostile {
        key: "huge".into(),
        data: vec![1; 17 * 1024 * 1024],
        ..rows[1].clone()
    };
    match db.insert(&huge).await {
        Err(Error::RequestTooLarge { .. }) => refusals.push("17 MiB write"),
        other => return Err(format!("a 17 MiB write: {:?}", other.map(|_| ()))),
    }
    let sub_ms =
        chrono::DateTime::from_timestamp(1_700_000_000, 123_456_789).ok_or("a timestamp")?;
    let millis =
        chrono::DateTime::from_timestamp(1_700_000_000, 123_000_000).ok_or("a timestamp")?;
    db.insert(&Stamped { at: sub_ms })
        .await
        .map_err(|e| format!("a sub-millisecond timestamp: {e}"))?;
    let by_exact = Stamped::get(&db, &sub_ms).await;
    let by_millis = Stamped::get(&db, &millis).await;
    let truncated = matches!(
        (&by_exact, &by_millis),
        (Ok(None), Ok(Some(Stamped { at }))) if *at == millis
    );
    if !truncated {
        return Err(format!(
            "a sub-millisecond timestamp key: by the exact value {by_exact:?}, by its \
             millisecond {by_millis:?}"
        ));
    }
    let cql = format!("SELECT COUNT(*) FROM {}.\"chaos_select\"", env.keyspace);
    let (count,) = crate::cluster::rows_of(&db, &cql, ())
        .await?
        .single_row::<(i64,)>()
        .map_err(|e| e.to_string())?;
    let ok = differing == 0 && refusals.len() == 3 && count == rows.len() as i64;
    Ok(Outcome {
        name: "hostile",
        ok,
        figures: format!(
            "table and columns named select, Order, from, where; {} rows of hostile values \
             (quotes, NUL, emoji, RTL, injection text, NaN, ±inf, -0.0, i64 extremes, empty and \
             large collections, 1 MiB text): {differing} read back different; refused with \
             typed errors: {}; {count} rows in the table afterwards; a sub-millisecond \
             timestamp key written truncated (found by its millisecond, not by the exact value)",
            rows.len(),
            refusals.join(", ")
        ),
    })
}

/// A table keyed by a timestamp, for the sub-millisecond value written truncated.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_stamped")]
pub struct Stamped {
    #[partition_key]
    at: chrono::DateTime<chrono::Utc>,
}

/// Equal, with floats compared by their bits (NaN equals itself, -0.0 differs from 0.0).
fn same(a: &Hostile, b: &Hostile) -> bool {
    a.number.to_bits() == b.number.to_bits()
        && Hostile {
            number: 0.0,
            ..a.clone()
        } == Hostile {
            number: 0.0,
            ..b.clone()
        }
}

/// The models of the migration check, before and after.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_orders")]
pub struct OrderV1 {
    #[partition_key]
    customer: i32,
    #[clustering(desc)]
    placed: i32,
    total: i64,
}

/// The same table with a new column and an index, and a second table.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_orders")]
pub struct OrderV2 {
    #[partition_key]
    customer: i32,
    #[clustering(desc)]
    placed: i32,
    total: i64,
    #[cass(index)]
    status: Option<String>,
    note: Option<String>,
}

/// The second table of the new models.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "chaos_orders_by_status")]
pub struct OrderByStatus {
    #[partition_key]
    status: String,
    #[clustering]
    customer: i32,
    #[clustering]
    placed: i32,
}

/// The second version of the migration check's models.
fn v2_models() -> Models {
    Models::new().table::<OrderV2>().table::<OrderByStatus>()
}

/// Migrations cut short: for each of 8 rounds, in a keyspace of its own, the models' first
/// version is applied, then the second version's apply is killed (its task aborted, requests
/// in flight) after 0 to 700 ms; the same apply run again must complete, and `validate`
/// pass. Then, four times, two applies of the second version run at once on a fresh keyspace.
pub async fn migration(env: &Env) -> Result<Outcome, String> {
    let admin = connect(env, None).await?;
    let mut steps_before_kill = Vec::new();
    let mut rerun_steps = Vec::new();
    // On the cluster, where each step waits for the schema to agree on three nodes: 4 kills
    // 500 ms apart (0-1,500 ms). 8 kills 100 ms apart (0-700 ms) all fell there before the
    // first or second step (8 applies, 105 s).
    let (rounds, every_ms): (u64, u64) = if env.nodes.len() > 1 {
        (4, 500)
    } else {
        (8, 100)
    };
    for round in 0..rounds {
        let ks = format!("{}_mig{round}", env.keyspace);
        let db = admin.with_keyspace(&ks).map_err(|e| e.to_string())?;
        let v1 = Models::new().table::<OrderV1>();
        Migrator::new(&db, v1)
            .replication(env.replication.clone())
            .apply()
            .await
            .map_err(|e| format!("round {round}, first version: {e}"))?;
        let v2 = Migrator::new(&db, v2_models()).replication(env.replication.clone());
        let total = v2.plan().await.map_err(|e| e.to_string())?.steps.len();
        let killed = {
            let v2 = v2.clone();
            tokio::spawn(async move { v2.apply().await })
        };
        tokio::time::sleep(Duration::from_millis(round * every_ms)).await;
        killed.abort();
        let _ = killed.await;
        let left = v2.plan().await.map_err(|e| e.to_string())?.steps.len();
        steps_before_kill.push(total - left.min(total));
        let report = v2
            .apply()
            .await
            .map_err(|e| format!("round {round}, apply after the kill: {e}"))?;
        rerun_steps.push(report.applied.len() + report.already_applied.len());
        v2.validate()
            .await
            .map_err(|e| format!("round {round}, validate after the rerun: {e}"))?;
        let _ = admin
            .execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
            .await;
    }
    // Two processes' worth of applies at once, from nothing, in 4 fresh keyspaces.
    let mut concurrent = Vec::new();
    let mut failures = Vec::new();
    for pair in 0..4 {
        let ks = format!("{}_migc{pair}", env.keyspace);
        let db = admin.with_keyspace(&ks).map_err(|e| e.to_string())?;
        let v2 = Migrator::new(&db, v2_models()).replication(env.replication.clone());
        let (a, b) = tokio::join!(v2.apply(), v2.apply());
        match (a, b) {
            (Ok(a), Ok(b)) => concurrent.push(format!(
                "{}+{} run/{}+{} found",
                a.applied.len(),
                b.applied.len(),
                a.already_applied.len(),
                b.already_applied.len()
            )),
            (a, b) => failures.push(format!("{:?} / {:?}", a.err(), b.err())),
        }
        if let Err(e) = v2.validate().await {
            failures.push(format!("validate: {e}"));
        }
        let _ = admin
            .execute_ddl(&format!("DROP KEYSPACE IF EXISTS {ks}"))
            .await;
    }
    let ok = failures.is_empty();
    Ok(Outcome {
        name: "migrate",
        ok,
        figures: format!(
            "{rounds} applies killed after 0-{} ms, having run {steps_before_kill:?} of their \
             steps; each rerun completed ({rerun_steps:?} steps run or found applied) and \
             validate passed; 4 pairs of concurrent applies on new keyspaces: {}",
            (rounds - 1) * every_ms,
            if ok {
                format!("{} statements, validate passed", concurrent.join(", "))
            } else {
                format!("FAILED: {}", failures.join("; "))
            },
        ),
    })
}
