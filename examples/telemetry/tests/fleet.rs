//! The rest of the service on a real node: a device's set, map and user-defined type read
//! back; alerts the most severe first; a counter never incremented reads as 0; a time from
//! `Utc::now()` is written as it is and read back to the millisecond.

use std::collections::{BTreeMap, BTreeSet};

use cassmodel::value::Counter;
use cassmodel_node::TestKeyspace;
use chrono::{Duration, SubsecRound, Utc};
use telemetry::fleet::{Alert, Device, DeviceCounts, Location};
use uuid::Uuid;

#[tokio::test]
async fn a_device_reads_back_with_its_set_map_and_location() {
    let ks = TestKeyspace::new("devices")
        .await
        .expect("a Cassandra node");
    let db = ks.db();
    db.create_table::<Device>().await.expect("create");
    let device = Device {
        tenant: "acme".into(),
        device_id: Uuid::new_v4(),
        name: "boiler room".into(),
        tags: BTreeSet::from(["heating".to_owned(), "basement".to_owned()]),
        settings: BTreeMap::from([("interval".to_owned(), "60s".to_owned())]),
        location: Some(Location {
            site: "north".into(),
            floor: -1,
        }),
        installed: None,
    };
    db.insert(&device).await.expect("insert");
    let back = Device::get(db, "acme", &device.device_id)
        .await
        .expect("read");
    assert_eq!(back, Some(device));
}

#[tokio::test]
async fn alerts_come_the_most_severe_first() {
    let ks = TestKeyspace::new("alerts").await.expect("a Cassandra node");
    let db = ks.db();
    db.create_table::<Alert>().await.expect("create");
    let now = Utc::now().trunc_subsecs(3);
    for (severity, minutes) in [(1, 1), (3, 2), (2, 3), (3, 4)] {
        let alert = Alert {
            tenant: "acme".into(),
            severity,
            at: now - Duration::minutes(minutes),
            device_id: Uuid::new_v4(),
            message: format!("level {severity}"),
        };
        db.insert(&alert).await.expect("insert");
    }
    let alerts = Alert::select()
        .tenant("acme")
        .fetch_all(db)
        .await
        .expect("read");
    let order: Vec<(i32, i64)> = alerts
        .iter()
        .map(|a| (a.severity, (now - a.at).num_minutes()))
        .collect();
    assert_eq!(order, [(3, 2), (3, 4), (2, 3), (1, 1)]);
    let severe = Alert::select()
        .tenant("acme")
        .severity(&3)
        .limit(1_usize)
        .fetch_all(db)
        .await
        .expect("read");
    assert_eq!(severe.len(), 1);
}

#[tokio::test]
async fn a_counter_never_incremented_reads_as_zero() {
    let ks = TestKeyspace::new("counts").await.expect("a Cassandra node");
    let db = ks.db();
    db.create_table::<DeviceCounts>().await.expect("create");
    let device = Uuid::new_v4();
    DeviceCounts::update()
        .increment_readings(1)
        .tenant("acme")
        .device_id(&device)
        .execute(db)
        .await
        .expect("increment");
    let counts = DeviceCounts::get(db, "acme", &device)
        .await
        .expect("read")
        .expect("the row");
    assert_eq!((counts.readings, counts.alerts), (Counter(1), Counter(0)));
}

/// `Utc::now()` has digits below the millisecond, which a CQL timestamp cannot hold: the
/// insert writes it truncated; a range with it as a bound keeps exactly the rows the exact
/// value would (the row, stored a fraction of a millisecond earlier, is before `now`); an
/// equality on it finds nothing, and on its millisecond finds the row.
#[tokio::test]
async fn utc_now_is_written_truncated_and_compared_exactly() {
    let ks = TestKeyspace::new("now").await.expect("a Cassandra node");
    let db = ks.db();
    db.create_table::<Alert>().await.expect("create");
    let mut now = Utc::now();
    if now.timestamp_subsec_nanos().is_multiple_of(1_000_000) {
        now += Duration::nanoseconds(1);
    }
    let alert = Alert {
        tenant: "acme".into(),
        severity: 2,
        at: now,
        device_id: Uuid::new_v4(),
        message: "hot".into(),
    };
    db.insert(&alert).await.expect("Utc::now() is written");
    let stored = Alert {
        at: now.trunc_subsecs(3),
        ..alert.clone()
    };
    let read = |at| Alert::get(db, "acme", &2, at, &alert.device_id);
    assert_eq!(read(&now).await.expect("read"), None);
    assert_eq!(read(&stored.at).await.expect("read"), Some(stored.clone()));
    let since_now = Alert::select()
        .tenant("acme")
        .severity(&2)
        .at_ge(&now)
        .fetch_all(db)
        .await
        .expect("read");
    assert_eq!(since_now, vec![]);
    let until_now = Alert::select()
        .tenant("acme")
        .severity(&2)
        .at_le(&now)
        .fetch_all(db)
        .await
        .expect("read");
    assert_eq!(until_now, vec![stored]);
}
