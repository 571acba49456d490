use cassmodel_node::TestKeyspace;
use chrono::{Duration, Utc};
use telemetry::Reading;

#[tokio::test]
async fn the_latest_readings_come_newest_first() {
    // A keyspace of its own on the local node (started if none runs), dropped at the end.
    let ks = TestKeyspace::new("readings").await.expect("a node");
    let db = ks.db();
    db.create_table::<Reading>().await.expect("create");
    let now = Utc::now();
    for minutes in [30, 20, 10] {
        let at = now - Duration::minutes(minutes);
        let reading = Reading {
            sensor: "s1".into(),
            at,
            celsius: 21.5,
        };
        db.insert(&reading).await.expect("insert");
    }
    // The latest 2 readings of the last day, newest first.
    let latest = Reading::select()
        .sensor("s1")
        .at_latest(2, now - Duration::days(1)..)
        .fetch_all(db)
        .await
        .expect("read");
    let ages: Vec<i64> = latest.iter().map(|r| (now - r.at).num_minutes()).collect();
    assert_eq!(ages, [10, 20]);
}
