//! The key change at its edges: what `status` says after the last step, of one keyspace, of a
//! copy refused, of a holder that stopped; forgetting the records of dropped tables; the
//! progress a log sees from the start; the rate limit, measured.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::*;

/// The test's source table, `sensors` x 400 rows (`reading`).
async fn source_rows(db: &Db, sensors: i32) {
    db.create_table::<v1::Reading>().await.expect("create v1");
    support::insert_all(
        db,
        (0..sensors).flat_map(|s| (0..400).map(move |i| reading(s, i))),
    )
    .await;
}

fn both() -> Models {
    Models::new().table::<v1::Reading>().table::<v2::Reading>()
}

/// The lines of `status` (of the test's keyspace) that name `target`.
fn lines_of<'a>(out: &'a str, target: &str) -> Vec<&'a str> {
    out.lines().filter(|l| l.contains(target)).collect()
}

/// `status --keyspace K` lists the copies of K only; after `drop-source` it says the key
/// change is finished and what remains; the record of a dropped keyspace is forgotten by
/// `forget-copy --dropped`, one whose tables exist only by name.
#[tokio::test(flavor = "multi_thread")]
async fn status_of_one_keyspace_to_the_end_and_forgotten() {
    let t = support::test_db_replicated("keychange_status").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    source_rows(db, 4).await;
    let (exit, out, err) = migrate(db, both(), &["apply"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");

    // Another keyspace with a copy of its own, dropped later.
    let other = support::test_db_replicated("keychange_status_other").await;
    let other_ks = other.keyspace().to_owned();
    source_rows(&other.db, 1).await;
    other
        .db
        .create_table::<v2::Reading>()
        .await
        .expect("create v2");
    copy::backfill::<v2::Reading>(&other.db, &CopyOptions::new().ranges(8))
        .await
        .expect("the other copy");

    let (exit, out, err) = backfill_32_ranges(db, both(), "30").await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    let (exit, out, _) = migrate(db, both(), &["status"]).await;
    assert_eq!(exit, cli::Exit::Ok);
    let target = format!("{ks}.readings_v2");
    assert_eq!(out.lines().count(), 1, "the copies of {ks} only: {out}");
    assert!(out.contains(&format!("{target} <- {ks}.readings")), "{out}");
    assert!(!out.contains(&other_ks), "{out}");

    let (exit, out, err) = migrate(db, both(), &["verify"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    let (exit, out, err) = migrate(db, both(), &["drop-source", &target]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    let (exit, out, _) = migrate(db, both(), &["status"]).await;
    assert_eq!(exit, cli::Exit::Ok);
    assert!(
        out.contains("finished") && out.contains(&format!("{ks}.readings was dropped")),
        "{out}"
    );
    assert!(!out.contains("`drop-source"), "no step left to run: {out}");
    assert!(out.contains("remove #[cass(from = ..)]"), "{out}");

    // The other keyspace dropped: its record stays, marked, until forgotten.
    other.drop_all().await;
    let all = copy::status(db).await.expect("status");
    let stale = all
        .iter()
        .find(|c| c.target == format!("{other_ks}.readings_v2"))
        .expect("the record of the dropped keyspace");
    assert!(!stale.target_exists, "{stale}");
    assert!(stale.to_string().contains("no longer exists"), "{stale}");
    let (exit, out, err) = migrate(db, both(), &["forget-copy", "--dropped"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(out.contains(&format!("{other_ks}.readings_v2")), "{out}");
    assert!(!out.contains(&target), "its tables exist: {out}");
    let all = copy::status(db).await.expect("status");
    assert!(
        all.iter().all(|c| !c.target.starts_with(&other_ks)),
        "forgotten"
    );
    assert!(all.iter().any(|c| c.target == target), "kept");

    // By name: forgotten although its table exists.
    let (exit, out, err) = migrate(db, both(), &["forget-copy", &target]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    let (_, out, _) = migrate(db, both(), &["status"]).await;
    assert!(lines_of(&out, &target).is_empty(), "{out}");
    let (exit, _, err) = migrate(db, both(), &["forget-copy", &target]).await;
    assert_eq!(exit, cli::Exit::Refused, "{err}");
    assert!(err.contains("no copy into"), "{err}");
    let (exit, _, err) = migrate(db, both(), &["forget-copy"]).await;
    assert_eq!(exit, cli::Exit::Error, "a table or --dropped: {err}");
    let (exit, out, _) = migrate(db, both(), &["--help"]).await;
    assert_eq!(exit, cli::Exit::Ok);
    assert!(
        out.contains("forget-copy") && out.contains("3 something refused"),
        "{out}"
    );
    t.drop_all().await;
}

/// A refused backfill exits with the refusals' code (not the code of a connection error), and
/// `status` then names the copy's real source.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_backfill_exits_refused_and_status_names_its_source() {
    let t = support::test_db_replicated("keychange_refused").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    source_rows(db, 2).await;
    db.create_table::<v2::Reading>().await.expect("create v2");
    db.session()
        .query_unpaged(
            format!("INSERT INTO {ks}.readings_v2 (sensor, ts, ts_day, value) VALUES (?, ?, ?, ?)"),
            (77, start(), start().date_naive(), 1.0),
        )
        .await
        .expect("a row of its own");
    let (exit, out, err) = backfill_32_ranges(db, both(), "30").await;
    assert_eq!(exit, cli::Exit::Refused, "{out}{err}");
    assert!(err.contains("already has rows"), "{err}");
    let (exit, out, err) = migrate(db, both(), &["verify"]).await;
    assert_eq!(exit, cli::Exit::Incomplete, "{out}{err}");
    let (_, out, _) = migrate(db, both(), &["status"]).await;
    let target = format!("{ks}.readings_v2");
    let lines = lines_of(&out, &target);
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains(&format!("<- {ks}.readings")), "{out}");
    assert!(!lines[0].contains("0 of 0 ranges"), "{out}");
    let (exit, _, err) = migrate(db, both(), &["drop-source", &target]).await;
    assert_eq!(exit, cli::Exit::Refused, "{err}");
    t.drop_all().await;
}

/// A backfill killed (its future dropped: no renewal any more) with a long lease: a log sees
/// its progress from the start; `status` says its ranges are held by a process not heard from
/// for a while, and when its lease lapses; a backfill started again takes them over long
/// before the lease lapses, saying what it waits for.
#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_holder_is_named_and_taken_over_before_its_lease_lapses() {
    let t = support::test_db_replicated("keychange_stopped").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    source_rows(db, 30).await;
    let (exit, out, err) = migrate(db, both(), &["apply"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    let args = [
        "backfill",
        "--ranges",
        "32",
        "--lease-seconds",
        "90",
        "--rows-per-second",
        "2000",
    ];
    // Killed 2 s after it started, once it holds ranges (the first copy on a node creates
    // the record's tables first).
    let target = format!("{ks}.readings_v2");
    let holds_ranges = async {
        tokio::time::sleep(Duration::from_secs(2)).await;
        for _ in 0..120 {
            let status = copy::status_in(db, &ks).await.expect("status");
            if status
                .iter()
                .any(|c| c.target == target && c.ranges_held > 0)
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!("no range held after 30 s");
    };
    let (exit, _, err) = migrate_until(db, both(), holds_ranges, &args).await;
    assert_eq!(exit, None, "stopped half-way");
    assert!(
        err.contains("readings_v2") && err.contains("ranges"),
        "a first progress line at once: {err:?}"
    );

    // Silent long enough to be told from a holder that renews.
    tokio::time::sleep(Duration::from_secs(7)).await;
    let (_, out, _) = migrate(db, both(), &["status"]).await;
    assert!(!out.contains("being copied now"), "{out}");
    assert!(
        out.contains("held by") && out.contains("last heard") && out.contains("lapses in"),
        "{out}"
    );

    let began = Instant::now();
    let args = ["backfill", "--ranges", "32", "--lease-seconds", "90"];
    let deadline = tokio::time::sleep(Duration::from_secs(45));
    let (exit, out, err) = migrate_until(db, both(), deadline, &args).await;
    assert_eq!(exit, Some(cli::Exit::Ok), "{out}{err}");
    assert!(out.contains("all 32 ranges copied"), "{out}");
    assert!(
        err.contains("waiting for") && err.contains("held by") && err.contains("last heard"),
        "{err}"
    );
    assert!(
        began.elapsed() < Duration::from_secs(45),
        "{:?}",
        began.elapsed()
    );
    let report = copy::verify::<v2::Reading>(db, &VerifyOptions::new())
        .await
        .expect("verify");
    assert!(report.is_clean(), "{report}");
    let (_, out, _) = migrate(db, both(), &["status"]).await;
    assert!(
        out.contains(&format!("{ks}.readings_v2 <- {ks}.readings")),
        "{out}"
    );
    t.drop_all().await;
}

/// `--rows-per-second` holds from the start over every span of 2 s or more, rows in flight
/// included. (Each write takes its turn before it is sent, so the writes sent in any window
/// keep the rate; the rows reported are those whose writes ended, which may bunch after a
/// pause of the node: counted from the start, before which nothing was in flight, they
/// cannot exceed the rows sent.)
#[tokio::test(flavor = "multi_thread")]
async fn the_rate_limit_holds() {
    let t = support::test_db_replicated("keychange_rate").await;
    let db = &t.db;
    source_rows(db, 30).await;
    db.create_table::<v2::Reading>().await.expect("create v2");
    let samples: Arc<Mutex<Vec<(Instant, u64)>>> = Arc::default();
    let seen = Arc::clone(&samples);
    let rate = 2000u32;
    let options = CopyOptions::new()
        .ranges(64)
        .rows_per_second(rate)
        .progress(move |p| {
            if let Ok(mut s) = seen.lock() {
                s.push((Instant::now(), p.rows));
            }
        });
    let report = copy::backfill::<v2::Reading>(db, &options)
        .await
        .expect("backfill");
    assert_eq!(report.rows, 12_000, "{report}");
    let samples = samples.lock().expect("samples").clone();
    // The report when the copy starts: nothing sent yet.
    let (t0, r0) = samples[0];
    assert_eq!(r0, 0);
    let mut spans = 0;
    for (t, rows) in &samples {
        let secs = t.duration_since(t0).as_secs_f64();
        if secs >= 2.0 {
            spans += 1;
            let per_second = *rows as f64 / secs;
            assert!(
                per_second <= f64::from(rate) * 1.05,
                "{rows} rows in the first {secs:.2} s: {per_second:.0} rows/s, with a limit of \
                 {rate}"
            );
        }
    }
    assert!(spans > 10, "{spans} reports 2 s or more after the start");
    let (t1, rows) = samples[samples.len() - 1];
    let overall = rows as f64 / t1.duration_since(t0).as_secs_f64();
    assert!(
        overall >= f64::from(rate) * 0.7,
        "{overall:.0} rows/s in all"
    );
    t.drop_all().await;
}

/// Without a number of ranges, a copy cuts its source into ranges sized from the node's size
/// estimates: a table the estimates do not know yet (written since the node last counted)
/// gets four per range in flight. A process that joins the copy without a number takes the
/// recorded one; one that sets another is refused, with the number to use.
#[tokio::test(flavor = "multi_thread")]
async fn ranges_are_sized_by_the_first_process_and_followed_by_the_others() {
    let t = support::test_db_replicated("keychange_ranges").await;
    let db = &t.db;
    source_rows(db, 3).await;
    let (exit, out, err) = migrate(db, both(), &["apply"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");

    let first = copy::backfill::<v2::Reading>(db, &CopyOptions::new().ranges_in_flight(2))
        .await
        .expect("the first copy");
    assert_eq!((first.rows, first.ranges), (1200, 8), "{first}");
    assert_eq!(first.ranges_copied, 8, "{first}");

    // Eight ranges in flight would size 32: the record's 8 are taken instead.
    let (exit, out, err) = migrate(db, both(), &["backfill", "--quiet"]).await;
    assert_eq!(exit, cli::Exit::Ok, "{out}{err}");
    assert!(out.contains("all 8 ranges copied"), "{out}{err}");

    let (exit, out, err) = migrate(db, both(), &["backfill", "--ranges", "16", "--quiet"]).await;
    assert_eq!(exit, cli::Exit::Refused, "{out}{err}");
    assert!(
        err.contains("was started with 8 ranges, not 16: continue it with 8"),
        "{out}{err}"
    );
    t.drop_all().await;
}
