//! The types behind cargo features (`num-bigint`, `bigdecimal`, `time`): edge values, in key
//! and regular columns, written and read back equal on the node, and read equal by a plain
//! CQL cast to text; a timestamp with digits below the millisecond written truncated to its
//! millisecond.
#![cfg(all(feature = "num-bigint", feature = "bigdecimal", feature = "time"))]

mod support;

use std::str::FromStr;

use bigdecimal::BigDecimal;
use cassmodel::{CassTable, Db};
use num_bigint::BigInt;
use time::{Date, Month, OffsetDateTime, Time, UtcOffset};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "feature_types")]
struct Holding {
    #[partition_key]
    id: BigInt,
    #[clustering]
    day: Date,
    amount: BigDecimal,
    at: Time,
    seen: OffsetDateTime,
    maybe: Option<BigDecimal>,
}

fn big(s: &str) -> BigInt {
    BigInt::from_str(s).expect("an integer")
}

fn dec(s: &str) -> BigDecimal {
    BigDecimal::from_str(s).expect("a decimal")
}

fn date(y: i32, m: Month, d: u8) -> Date {
    Date::from_calendar_date(y, m, d).expect("a date")
}

fn rows() -> Vec<Holding> {
    let epoch = OffsetDateTime::UNIX_EPOCH;
    let ist = UtcOffset::from_hms(5, 30, 0).expect("an offset");
    vec![
        Holding {
            id: big("0"),
            day: date(1970, Month::January, 1),
            amount: dec("0"),
            at: Time::MIDNIGHT,
            seen: epoch,
            maybe: None,
        },
        Holding {
            id: big("-1"),
            day: Date::MIN,
            amount: dec("-0.000000000000000000000000000001"),
            at: Time::from_hms_nano(23, 59, 59, 999_999_999).expect("a time"),
            seen: OffsetDateTime::new_utc(Date::MIN, Time::MIDNIGHT),
            maybe: Some(dec("1e30")),
        },
        Holding {
            id: big("1606938044258990275541962092341162602522202993782792835301376"),
            day: Date::MAX,
            amount: dec("123456789012345678901234567890.123456789"),
            at: Time::from_hms_milli(12, 0, 0, 1).expect("a time"),
            seen: OffsetDateTime::new_utc(
                Date::MAX,
                Time::from_hms_milli(23, 59, 59, 999).expect("a time"),
            ),
            maybe: Some(dec("-7")),
        },
        Holding {
            id: big("-9223372036854775809"),
            day: date(2026, Month::November, 27),
            amount: dec("9223372036854775808"),
            at: Time::from_hms(0, 0, 1).expect("a time"),
            // Another offset: stored as its instant, read back in UTC, equal.
            seen: OffsetDateTime::new_in_offset(
                date(2026, Month::November, 27),
                Time::from_hms_milli(10, 30, 0, 250).expect("a time"),
                ist,
            ),
            maybe: Some(dec("0.1")),
        },
    ]
}

/// `id`, `amount` and `maybe` of every row as the server prints them (`CAST(.. AS text)`).
async fn as_text(db: &Db, ks: &str) -> Vec<(String, String, Option<String>)> {
    let mut rows: Vec<(String, String, Option<String>)> = support::plain_rows(db, format!(
                "SELECT CAST(id AS text), CAST(amount AS text), CAST(maybe AS text) FROM {ks}.feature_types"
            ),
            ()).await;
    rows.sort();
    rows
}

#[tokio::test]
async fn edge_values_read_back_equal() {
    let t = support::test_db("feature_types").await;
    let db = &t.db;
    db.create_table::<Holding>().await.expect("create");
    let written = rows();
    for r in &written {
        db.insert(r).await.expect("insert");
    }
    for r in &written {
        let back = Holding::get(db, &r.id, &r.day)
            .await
            .expect("read")
            .expect("the row");
        assert_eq!(&back, r);
        assert_eq!(back.seen.offset(), UtcOffset::UTC);
    }
    // The server holds the very numbers, not a rounding of them.
    let mut expected: Vec<(String, String, Option<String>)> = written
        .iter()
        .map(|r| {
            (
                r.id.to_string(),
                r.amount.to_string(),
                r.maybe.as_ref().map(ToString::to_string),
            )
        })
        .collect();
    expected.sort();
    let server = as_text(db, t.keyspace()).await;
    assert_eq!(server.len(), 4);
    for ((id, amount, maybe), (eid, eamount, emaybe)) in server.iter().zip(&expected) {
        assert_eq!(id, eid);
        assert_eq!(dec(amount), dec(eamount), "{amount} vs {eamount}");
        assert_eq!(maybe.as_deref().map(dec), emaybe.as_deref().map(dec));
    }
    t.drop_all().await;
}

#[tokio::test]
async fn a_timestamp_below_the_millisecond_is_written_truncated() {
    let t = support::test_db("feature_types_ms").await;
    let db = &t.db;
    db.create_table::<Holding>().await.expect("create");
    let mut r = rows().remove(0);
    // Before the epoch: truncated towards the past, as a `DateTime<Utc>` is.
    r.seen = OffsetDateTime::UNIX_EPOCH - time::Duration::microseconds(1_500);
    db.insert(&r).await.expect("written truncated");
    let back = Holding::get(db, &r.id, &r.day)
        .await
        .expect("read")
        .expect("the row");
    assert_eq!(
        back.seen,
        OffsetDateTime::UNIX_EPOCH - time::Duration::milliseconds(2)
    );
    t.drop_all().await;
}
