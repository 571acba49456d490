//! Materialized views (`#[cass(view_of = ..)]`): created by the plan only when allowed,
//! validated against `system_schema.views`, read through the typed builder and equal to
//! plain CQL on the view, refused (or dropped and built again, when allowed) when the
//! cluster's view differs, and listed (or dropped, when allowed) when no model declares it.
//! A write to a view is a compile error: `tests/ui/view/`.

mod support;
use support::replicated_migrator as migrator;

use std::time::{Duration, Instant};

use cassmodel::migrate::{Change, Models, Unmanaged};
use cassmodel::{Batch, CassTable, Db, Insert, write::Insertable};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "view_readings")]
pub struct Reading {
    #[partition_key]
    pub sensor: i32,
    #[clustering(desc)]
    pub ts: i64,
    pub site: String,
    pub value: f64,
    pub note: Option<String>,
}

mod v1 {
    use cassmodel::CassTable;

    /// The readings of a site: every key column of the base, and `site` before them.
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "view_readings_by_site", view_of = super::Reading)]
    pub struct BySite {
        #[partition_key]
        pub site: String,
        #[clustering]
        pub sensor: i32,
        #[clustering(desc)]
        pub ts: i64,
        pub value: f64,
    }
}

mod v2 {
    use cassmodel::CassTable;

    /// The same view with one more column: Cassandra cannot alter a view.
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "view_readings_by_site", view_of = super::Reading)]
    pub struct BySite {
        #[partition_key]
        pub site: String,
        #[clustering]
        pub sensor: i32,
        #[clustering(desc)]
        pub ts: i64,
        pub value: f64,
        pub note: Option<String>,
    }
}

/// A base and its view of every column (`SELECT *`, which gains every column added to its
/// base), as a published keyspace declares them, and the view with its columns listed.
mod star {
    use cassmodel::CassTable;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "star_readings")]
    pub struct Reading {
        #[partition_key]
        pub sensor: i32,
        #[clustering(desc)]
        pub ts: i64,
        pub site: String,
        pub value: f64,
    }

    /// The view of every column.
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "star_readings_by_site", view_of = Reading, all_columns)]
    pub struct BySite {
        #[partition_key]
        pub site: String,
        #[clustering]
        pub sensor: i32,
        #[clustering(desc)]
        pub ts: i64,
        pub value: f64,
    }

    /// The same columns, listed: not a view of every column.
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "star_readings_by_site", view_of = Reading)]
    pub struct Listed {
        #[partition_key]
        pub site: String,
        #[clustering]
        pub sensor: i32,
        #[clustering(desc)]
        pub ts: i64,
        pub value: f64,
    }

    /// The base with a column more, and its view of every column with it.
    pub mod noted {
        use cassmodel::CassTable;

        #[derive(CassTable, Debug, Clone, PartialEq)]
        #[cass(table = "star_readings")]
        pub struct Reading {
            #[partition_key]
            pub sensor: i32,
            #[clustering(desc)]
            pub ts: i64,
            pub site: String,
            pub value: f64,
            pub note: Option<String>,
        }

        #[derive(CassTable, Debug, Clone, PartialEq)]
        #[cass(table = "star_readings_by_site", view_of = Reading, all_columns)]
        pub struct BySite {
            #[partition_key]
            pub site: String,
            #[clustering]
            pub sensor: i32,
            #[clustering(desc)]
            pub ts: i64,
            pub value: f64,
            pub note: Option<String>,
        }
    }
}

/// `CREATE MATERIALIZED VIEW` of `star_readings_by_site` in `ks` as a published keyspace
/// creates it: `SELECT *`.
fn star_view(ks: &str) -> String {
    format!(
        "CREATE MATERIALIZED VIEW {ks}.star_readings_by_site AS SELECT * FROM \
         {ks}.star_readings WHERE site IS NOT NULL AND sensor IS NOT NULL AND ts IS NOT NULL \
         PRIMARY KEY (site, sensor, ts) WITH CLUSTERING ORDER BY (sensor ASC, ts DESC)"
    )
}

/// The columns of `star_readings_by_site` in `system_schema.columns`, sorted, and whether
/// `system_schema.views` says it selects every column of its base.
async fn star_view_columns(db: &Db, ks: &str) -> (Vec<String>, bool) {
    let session = db.session();
    let mut columns: Vec<String> = session
        .query_unpaged(
            "SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND \
             table_name = ?",
            (ks, "star_readings_by_site"),
        )
        .await
        .expect("system_schema.columns")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("typed")
        .map(|r| r.expect("row").0)
        .collect();
    columns.sort();
    let (all,): (bool,) = session
        .query_unpaged(
            "SELECT include_all_columns FROM system_schema.views WHERE keyspace_name = ? AND \
             view_name = ?",
            (ks, "star_readings_by_site"),
        )
        .await
        .expect("system_schema.views")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("one view");
    (columns, all)
}

/// The columns of `star_readings_by_site`, sorted, with `note` or without.
fn star_columns(noted: bool) -> Vec<String> {
    let columns = ["note", "sensor", "site", "ts", "value"];
    let skip = usize::from(!noted);
    columns[skip..].iter().map(|c| (*c).to_owned()).collect()
}

/// A row written to the noted base reads back through its view of every column, with the
/// base's new column (polled: on a cluster the view follows its base).
async fn noted_row_reads_through_the_view(db: &Db) {
    let row = star::noted::Reading {
        sensor: 7,
        ts: 1_000,
        site: "north".into(),
        value: 1.5,
        note: Some("checked".into()),
    };
    db.insert(&row).await.expect("insert into the base");
    let (rows, waited) = read_until(
        || async {
            star::noted::BySite::select()
                .site("north")
                .fetch_all(db)
                .await
                .expect("read the view")
        },
        |rows| !rows.is_empty(),
    )
    .await;
    assert_eq!(
        rows,
        [star::noted::BySite {
            site: "north".into(),
            sensor: 7,
            ts: 1_000,
            value: 1.5,
            note: Some("checked".into()),
        }],
        "after {waited:?}"
    );
}

const SITES: [&str; 3] = ["north", "south", "east"];

/// 3 sites x 4 sensors x 10 times; sensor `s` is at site `s % 3`.
fn readings() -> Vec<Reading> {
    let mut out = Vec::new();
    for sensor in 0..12 {
        for ts in 0..10 {
            out.push(Reading {
                sensor,
                ts: 1_000 + ts,
                site: SITES[(sensor % 3) as usize].to_owned(),
                value: f64::from(sensor) * 10.0 + ts as f64 / 4.0,
                note: (ts % 3 == 0).then(|| format!("n{sensor}-{ts}")),
            });
        }
    }
    out
}

/// The rows of the view for `site`, read with plain CQL, in the view's order.
async fn plain_rows(db: &Db, ks: &str, site: &str) -> Vec<(String, i32, i64, f64)> {
    support::plain_rows::<(String, i32, i64, f64)>(
        db,
        format!("SELECT site, sensor, ts, value FROM {ks}.view_readings_by_site WHERE site = ?"),
        (site,),
    )
    .await
}

/// Waits until the view holds `n` rows for every site (a view built from existing rows is
/// built in the background): at most 60 s, polled every 200 ms.
async fn await_view(db: &Db, ks: &str, n: usize) {
    let (counts, waited) = read_until(
        || async {
            let mut counts = Vec::new();
            for site in SITES {
                counts.push(plain_rows(db, ks, site).await.len());
            }
            counts
        },
        |counts| counts.iter().all(|&c| c == n),
    )
    .await;
    assert!(
        counts.iter().all(|&c| c == n),
        "the view holds {counts:?} rows per site after {waited:?}, expected {n} each"
    );
}

/// What `read` returns once `done` holds of it, or after 60 s (a view is built in the
/// background), with how long it waited.
async fn read_until<T, F: Future<Output = T>>(
    mut read: impl FnMut() -> F,
    done: impl Fn(&T) -> bool,
) -> (T, Duration) {
    let start = Instant::now();
    loop {
        let value = read().await;
        if done(&value) || start.elapsed() > Duration::from_secs(60) {
            return (value, start.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The tests of this file one at a time: each creates, alters and builds views, and on the
/// three-node cluster of a two-core machine four of them at once kept the nodes from agreeing
/// on a schema within the driver's 60 s.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test]
async fn a_view_is_created_when_allowed_validated_and_read_like_a_table() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let t = support::test_db_replicated("views_read").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    // The view brings its base table into the models.
    let models = Models::new().table::<v1::BySite>();
    let names: Vec<&str> = models.tables().iter().map(|t| t.name).collect();
    assert_eq!(names, ["view_readings", "view_readings_by_site"]);

    // Without the opt-in, the plan creates the table and refuses the view.
    let m = migrator(db, models.clone());
    let plan = m.plan().await.expect("plan");
    assert_eq!(plan.steps.len(), 1, "{plan}");
    assert_eq!(plan.refused.len(), 1, "{plan}");
    let refusal = plan.refused[0].to_string();
    assert!(
        refusal.contains("creating views is not enabled")
            && refusal.contains("materialized_views_enabled"),
        "{refusal}"
    );
    let text = m.validate().await.expect_err("no view yet").to_string();
    assert!(text.contains("view_readings_by_site"), "{text}");

    // With it: the table, then the view, exactly.
    let m = m.create_views(true);
    let plan = m.plan().await.expect("plan");
    assert_eq!(
        plan.statements(),
        [
            format!(
                "CREATE TABLE IF NOT EXISTS {ks}.view_readings (sensor int, ts bigint, site text, \
                 value double, note text, PRIMARY KEY (sensor, ts)) WITH CLUSTERING ORDER BY \
                 (ts DESC)"
            ),
            format!(
                "CREATE MATERIALIZED VIEW IF NOT EXISTS {ks}.view_readings_by_site AS SELECT \
                 site, sensor, ts, value FROM {ks}.view_readings WHERE site IS NOT NULL AND \
                 sensor IS NOT NULL AND ts IS NOT NULL PRIMARY KEY (site, sensor, ts) WITH \
                 CLUSTERING ORDER BY (sensor ASC, ts DESC)"
            ),
        ]
    );
    m.apply().await.expect("apply");
    m.validate().await.expect("the view validates");
    assert!(m.plan().await.expect("plan").is_empty());
    // What the server keeps of it.
    let (base, all): (String, bool) = support::plain_row(
        db,
        "SELECT base_table_name, include_all_columns FROM system_schema.views \
             WHERE keyspace_name = ? AND view_name = ?",
        (&ks, "view_readings_by_site"),
    )
    .await;
    assert_eq!((base.as_str(), all), ("view_readings", false));

    // Rows written to the base, typed and in plain CQL, read back through the view.
    let rows = readings();
    support::insert_all(db, rows.clone()).await;
    await_view(db, &ks, 40).await;
    for site in SITES {
        let typed = v1::BySite::select()
            .site(site)
            .fetch_all(db)
            .await
            .expect("typed read of the view");
        let plain = plain_rows(db, &ks, site).await;
        let typed_tuples: Vec<_> = typed
            .iter()
            .map(|r| (r.site.clone(), r.sensor, r.ts, r.value))
            .collect();
        assert_eq!(typed_tuples, plain, "site {site}");
        assert_eq!(typed.len(), 40, "site {site}");
        // The same rows as written, in the view's order: sensor ascending, ts descending.
        let mut expected: Vec<_> = rows
            .iter()
            .filter(|r| r.site == site)
            .map(|r| (r.site.clone(), r.sensor, r.ts, r.value))
            .collect();
        expected.sort_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)));
        assert_eq!(typed_tuples, expected, "site {site}");
        assert_eq!(
            v1::BySite::partition(db, site).await.expect("partition"),
            typed
        );
    }
    // A row, and a slice of one sensor's rows.
    let one = v1::BySite::get(db, "south", &4, &1_003)
        .await
        .expect("get")
        .expect("the row exists");
    assert_eq!(one.value, 40.75);
    let slice = v1::BySite::select()
        .site("south")
        .sensor(&4)
        .ts_gt(&1_006)
        .fetch_all(db)
        .await
        .expect("range");
    let times: Vec<i64> = slice.iter().map(|r| r.ts).collect();
    assert_eq!(times, [1_009, 1_008, 1_007]);
    // A write to the base moves the row in the view (on one node at once; on a cluster the
    // view follows the base: polled, at most 30 s).
    db.insert(&Reading {
        site: "west".into(),
        ..rows[0].clone()
    })
    .await
    .expect("update the base");
    let start = Instant::now();
    let moved = loop {
        let moved = v1::BySite::select()
            .site("west")
            .fetch_all(db)
            .await
            .expect("read");
        if !moved.is_empty() || start.elapsed() > Duration::from_secs(30) {
            break moved;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!((moved[0].sensor, moved[0].ts), (0, 1_000));
    t.drop_all().await;
}

/// Generic code that inserts rows: the bound `T: Insertable` is all that `db.insert`,
/// `Insert::new` and a batch's `insert` ask for (issue 66: since views, `db.insert` also
/// asked for `Writable`, and this failed to compile with "`T` is a materialized view").
async fn insert_generic<T: Insertable>(db: &Db, rows: &[T]) {
    let (first, rest) = rows.split_first().expect("rows");
    db.insert(first).await.expect("db.insert");
    let (second, rest) = rest.split_first().expect("rows");
    Insert::new(second).execute(db).await.expect("Insert::new");
    let (few, rest) = rest.split_at(8);
    let batch = few.iter().fold(Batch::unlogged(), |b, row| b.insert(row));
    batch.execute(db).await.expect("batch");
    for row in rest {
        db.insert(row).await.expect("db.insert");
    }
}

#[tokio::test]
async fn a_view_that_differs_is_refused_or_built_again_and_an_undeclared_one_is_listed() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let t = support::test_db_replicated("views_change").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    apply_views(db, Models::new().table::<v1::BySite>(), "v1").await;
    insert_generic(db, &readings()).await;
    await_view(db, &ks, 40).await;

    // v2 adds a column: refused, with the way out.
    let m2 = migrator(db, Models::new().table::<v2::BySite>()).create_views(true);
    let plan = m2.plan().await.expect("plan");
    assert!(plan.steps.is_empty(), "{plan}");
    let refusal = plan.refused[0].to_string();
    assert!(
        refusal.contains("the columns differ") && refusal.contains("--allow-drop-view"),
        "{refusal}"
    );
    let text = m2.validate().await.expect_err("v2 differs").to_string();
    assert!(text.contains("view_readings_by_site"), "{text}");

    // Allowed: dropped and created again, then built from the base's rows.
    let m2 = m2.allow_drop_view(&ks, "view_readings_by_site");
    let plan = m2.plan().await.expect("plan");
    let changes: Vec<&Change> = plan.steps.iter().map(|s| &s.change).collect();
    assert!(
        matches!(
            changes.as_slice(),
            [Change::DropView { .. }, Change::CreateView { .. }]
        ),
        "{plan}"
    );
    assert_eq!(
        plan.statements()[0],
        format!("DROP MATERIALIZED VIEW IF EXISTS {ks}.view_readings_by_site")
    );
    m2.apply().await.expect("v2");
    m2.validate().await.expect("v2 validates");
    await_view(db, &ks, 40).await;
    // The rebuilt view's new column, read until it holds the base's notes: a view is built
    // in the background on each replica, and its row count (what `await_view` waits for) can
    // be complete before every replica a read asks has the new column's values (seen once on
    // the three-node cluster right after its chaos step: ten rows, every note `None`).
    let expected = [
        Some("n2-9"),
        None,
        None,
        Some("n2-6"),
        None,
        None,
        Some("n2-3"),
        None,
        None,
        Some("n2-0"),
    ];
    let (notes, waited) = read_until(
        || async {
            let rows = v2::BySite::select()
                .site("east")
                .sensor(&2)
                .fetch_all(db)
                .await
                .expect("read v2");
            rows.into_iter().map(|r| r.note).collect::<Vec<_>>()
        },
        |notes| notes.iter().map(Option::as_deref).eq(expected),
    )
    .await;
    let notes: Vec<Option<&str>> = notes.iter().map(Option::as_deref).collect();
    assert_eq!(notes, expected, "the rebuilt view's notes after {waited:?}");

    // Models without the view: listed, left alone; dropped only when allowed.
    let base_only = migrator(db, Models::new().table::<Reading>());
    let plan = base_only.plan().await.expect("plan");
    assert!(plan.is_empty(), "{plan}");
    assert!(
        plan.unmanaged.iter().any(|u| matches!(
            u,
            Unmanaged::View { view, base, .. } if view == "view_readings_by_site" && base == "view_readings"
        )),
        "{plan}"
    );
    let dropping = base_only.allow_drop_view(&ks, "view_readings_by_site");
    let plan = dropping.plan().await.expect("plan");
    assert_eq!(
        plan.statements(),
        [format!(
            "DROP MATERIALIZED VIEW IF EXISTS {ks}.view_readings_by_site"
        )]
    );
    dropping.apply().await.expect("drop the view");
    let left: Vec<(String,)> = support::plain_rows(
        db,
        "SELECT view_name FROM system_schema.views WHERE keyspace_name = ?",
        (&ks,),
    )
    .await;
    assert!(left.is_empty(), "{left:?}");
    t.drop_all().await;
}

#[tokio::test]
async fn a_published_select_star_view_is_declared_with_all_columns() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let t = support::test_db_replicated("views_star").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    migrator(db, Models::new().table::<star::Reading>())
        .apply()
        .await
        .expect("the base");
    db.execute_ddl(&star_view(&ks))
        .await
        .expect("the published view");

    // Models that list the view's columns: the cluster's view selects `*`, and gains what
    // is added to its base, which a listed view does not.
    let listed = migrator(db, Models::new().table::<star::Listed>());
    let text = listed
        .validate()
        .await
        .expect_err("a listed view is not a view of every column")
        .to_string();
    assert!(
        text.contains(
            "the cluster's view selects every column of its base (`SELECT *`: it gains the \
             columns added to the base), the model's lists its columns"
        ) && text.contains(
            "fix: declare a view of every column on `Listed`: #[cass(view_of = Reading, \
             all_columns)]; or allow the plan to drop the view"
        ),
        "{text}"
    );

    // Declared as it is: nothing to do.
    let every = migrator(db, Models::new().table::<star::BySite>());
    every.validate().await.expect("the view of every column");
    assert!(every.plan().await.expect("plan").is_empty());

    // A column added to the base by hand: the view has it too, and the models without it
    // still match (the base's column is left alone, the view's is the base's).
    db.execute_ddl(&format!("ALTER TABLE {ks}.star_readings ADD note text"))
        .await
        .expect("ALTER TABLE ADD");
    let (columns, all) = star_view_columns(db, &ks).await;
    assert_eq!((columns, all), (star_columns(true), true));
    every
        .validate()
        .await
        .expect("the view of every column, with the base's new column");
    let noted = migrator(db, Models::new().table::<star::noted::BySite>());
    assert!(noted.plan().await.expect("plan").is_empty());
    noted
        .validate()
        .await
        .expect("the models with the new column");
    noted_row_reads_through_the_view(db).await;
    t.drop_all().await;
}

#[tokio::test]
async fn a_view_of_every_column_is_created_as_select_star_and_gains_the_base_columns() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let t = support::test_db_replicated("views_star_made").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    apply_views(db, Models::new().table::<star::Listed>(), "the listed view").await;

    // The cluster's view lists its columns, the model's selects `*`: refused, with the fix.
    let every = migrator(db, Models::new().table::<star::BySite>()).create_views(true);
    let plan = every.plan().await.expect("plan");
    assert!(plan.steps.is_empty(), "{plan}");
    let refusal = plan.refused[0].to_string();
    assert!(
        refusal.contains(
            "the cluster's view lists its columns, the model's selects every column of its \
             base (`SELECT *`, `all_columns`)"
        ) && refusal.contains("instead: remove `all_columns` from `BySite`")
            && refusal.contains(&format!("--allow-drop-view {ks}.star_readings_by_site")),
        "{refusal}"
    );
    every.validate().await.expect_err("the view differs");

    // Built again as a view of every column.
    let every = every.allow_drop_view(&ks, "star_readings_by_site");
    let plan = every.plan().await.expect("plan");
    assert_eq!(
        plan.statements(),
        [
            format!("DROP MATERIALIZED VIEW IF EXISTS {ks}.star_readings_by_site"),
            format!(
                "CREATE MATERIALIZED VIEW IF NOT EXISTS {ks}.star_readings_by_site AS SELECT * \
                 FROM {ks}.star_readings WHERE site IS NOT NULL AND sensor IS NOT NULL AND ts \
                 IS NOT NULL PRIMARY KEY (site, sensor, ts) WITH CLUSTERING ORDER BY (sensor \
                 ASC, ts DESC)"
            ),
        ]
    );
    every.apply().await.expect("the view of every column");
    every.validate().await.expect("it matches");
    assert_eq!(
        star_view_columns(db, &ks).await,
        (star_columns(false), true)
    );

    // A column added to the base model: the plan adds it to the base alone, and the view
    // gains it.
    let noted = migrator(db, Models::new().table::<star::noted::BySite>());
    let plan = noted.plan().await.expect("plan");
    assert_eq!(
        plan.statements(),
        [format!(
            "ALTER TABLE {ks}.star_readings ADD IF NOT EXISTS note text"
        )]
    );
    noted.apply().await.expect("the new column");
    noted.validate().await.expect("the view has it");
    assert_eq!(star_view_columns(db, &ks).await.0, star_columns(true));
    noted_row_reads_through_the_view(db).await;
    t.drop_all().await;
}

/// Applies `models`, views created, or fails the test with `what`.
async fn apply_views(db: &Db, models: Models, what: &str) {
    migrator(db, models)
        .create_views(true)
        .apply()
        .await
        .expect(what);
}
