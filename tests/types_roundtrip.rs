//! Every CQL native type, collection, tuple, frozen value and UDT that `CqlMapping` covers,
//! written and read back on a real node, with the column types the server reports.

mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use cassmodel::value::{Counter, Date, Decimal, Duration, Time, Timestamp, Timeuuid, Varint};
use cassmodel::{CassTable, CassUdt};
use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use uuid::Uuid;

#[derive(CassUdt, Debug, Clone, PartialEq)]
struct Point {
    x: f64,
    y: f64,
    label: Option<String>,
}

#[derive(CassUdt, Debug, Clone, PartialEq)]
struct Shape {
    name: String,
    points: Vec<Point>,
    #[cass(name = "order")]
    draw_order: i32,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "all_types")]
struct AllTypes {
    #[partition_key]
    id: i32,
    #[clustering]
    #[cass(name = "select")]
    reserved_word: String,
    #[cass(cql_type = "ascii")]
    ascii: String,
    text: String,
    tiny: i8,
    small: i16,
    int: i32,
    big: i64,
    varint: Varint,
    float: f32,
    double: f64,
    decimal: Decimal,
    flag: bool,
    uuid: Uuid,
    timeuuid: Timeuuid,
    #[cass(cql_type = "timeuuid")]
    timeuuid_as_uuid: Uuid,
    #[cass(cql_type = "timeuuid")]
    maybe_timeuuid: Option<Uuid>,
    timestamp: Timestamp,
    chrono_ts: DateTime<Utc>,
    date: Date,
    chrono_date: NaiveDate,
    time: Time,
    chrono_time: NaiveTime,
    duration: Duration,
    inet4: IpAddr,
    inet6: IpAddr,
    blob: Vec<u8>,
    list: Vec<i32>,
    nested: Vec<Vec<String>>,
    set: BTreeSet<String>,
    hash_set: HashSet<i64>,
    map: BTreeMap<String, i32>,
    hash_map: HashMap<Uuid, Vec<u8>>,
    #[cass(frozen)]
    frozen_list: Vec<String>,
    tuple: (i32, String, Option<bool>),
    shape: Shape,
    #[cass(frozen)]
    frozen_shape: Shape,
    shapes: Vec<Shape>,
    maybe: Option<String>,
    #[cass(name = "camelCase")]
    camel: i32,
}

#[derive(CassTable, Debug, Clone, PartialEq)]
struct PageViews {
    #[partition_key]
    page: String,
    views: Counter,
}

fn sample() -> AllTypes {
    let shape = Shape {
        name: "tri".into(),
        points: vec![
            Point {
                x: 0.0,
                y: 0.0,
                label: None,
            },
            Point {
                x: 1.5,
                y: -2.0,
                label: Some("b".into()),
            },
        ],
        draw_order: 3,
    };
    AllTypes {
        id: 1,
        reserved_word: "from".into(),
        ascii: "plain ascii".into(),
        text: "ünïcødé ✓".into(),
        tiny: -8,
        small: 1234,
        int: -123_456,
        big: 9_007_199_254_740_993,
        varint: Varint::from_signed_bytes_be(vec![
            0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]),
        float: 1.25,
        double: -2.5e300,
        decimal: Decimal::from_signed_be_bytes_and_exponent(vec![0x30, 0x39], 3),
        flag: true,
        uuid: Uuid::from_u128(0x1234),
        timeuuid: Timeuuid::from(
            Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000001").expect("uuid"),
        ),
        timeuuid_as_uuid: Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000002").expect("uuid"),
        maybe_timeuuid: Some(
            Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000003").expect("uuid"),
        ),
        timestamp: Timestamp(1_700_000_000_123),
        chrono_ts: Utc
            .with_ymd_and_hms(2024, 2, 29, 23, 59, 59)
            .single()
            .expect("date"),
        date: Date((1u32 << 31) + 19_000),
        chrono_date: NaiveDate::from_ymd_opt(1969, 7, 20).expect("date"),
        time: Time(3_600_000_000_123),
        chrono_time: NaiveTime::from_hms_nano_opt(13, 14, 15, 16).expect("time"),
        duration: Duration {
            months: 1,
            days: 2,
            nanoseconds: 3_000_000_004,
        },
        inet4: IpAddr::V4(Ipv4Addr::new(10, 1, 2, 3)),
        inet6: IpAddr::V6(Ipv6Addr::LOCALHOST),
        blob: vec![0, 1, 2, 255],
        list: vec![3, 1, 2, 1],
        nested: vec![vec!["a".into()], vec![], vec!["b".into(), "c".into()]],
        set: ["x".to_owned(), "y".to_owned()].into(),
        hash_set: [1, 2, 3].into(),
        map: [("one".to_owned(), 1), ("two".to_owned(), 2)].into(),
        hash_map: [(Uuid::from_u128(7), vec![7u8])].into(),
        frozen_list: vec!["f".into()],
        tuple: (42, "answer".into(), None),
        shape: shape.clone(),
        frozen_shape: shape.clone(),
        shapes: vec![shape],
        maybe: None,
        camel: 5,
    }
}

#[tokio::test]
async fn every_type_round_trips() {
    let t = support::test_db("types").await;
    t.db.create_table::<AllTypes>().await.expect("create");
    let row = sample();
    t.db.insert(&row).await.expect("insert");
    let back = AllTypes::get(&t.db, &1, "from")
        .await
        .expect("read")
        .expect("row");
    assert_eq!(back, row);

    // The server's types for a few columns whose CQL type the Rust type alone does not say.
    let ks = t.keyspace().to_owned();
    let types: BTreeMap<String, String> = support::plain_rows::<(String, String)>(
        &t.db,
        "SELECT column_name, type FROM system_schema.columns \
             WHERE keyspace_name = ? AND table_name = 'all_types'",
        (ks.as_str(),),
    )
    .await
    .into_iter()
    .collect();
    for (col, ty) in [
        ("ascii", "ascii"),
        ("timeuuid_as_uuid", "timeuuid"),
        ("select", "text"),
        ("camelCase", "int"),
        ("nested", "list<frozen<list<text>>>"),
        ("frozen_list", "frozen<list<text>>"),
        ("tuple", "frozen<tuple<int, text, boolean>>"),
        ("shape", "shape"),
        ("frozen_shape", "frozen<shape>"),
        ("shapes", "list<frozen<shape>>"),
        ("hash_map", "map<uuid, blob>"),
        ("duration", "duration"),
        ("varint", "varint"),
        ("tiny", "tinyint"),
        ("small", "smallint"),
    ] {
        assert_eq!(types.get(col).map(String::as_str), Some(ty), "column {col}");
    }
    t.drop_all().await;
}

/// Counter columns read back through the struct (they are written with UPDATE; typed counter
/// writes come with the write API).
#[tokio::test]
async fn counter_table() {
    let t = support::test_db("counter").await;
    t.db.create_table::<PageViews>().await.expect("create");
    let ks = t.keyspace().to_owned();
    for _ in 0..3 {
        t.db.execute_ddl(&format!(
            "UPDATE {ks}.page_views SET views = views + 2 WHERE page = 'home'"
        ))
        .await
        .expect("increment");
    }
    let row = PageViews::get(&t.db, "home")
        .await
        .expect("read")
        .expect("row");
    assert_eq!(row.views, Counter(6));
    t.drop_all().await;
}

/// Timestamps at every place a value is written: a clustering column, an `Option` field and
/// a list.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "instants")]
struct Instants {
    #[partition_key]
    id: i32,
    #[clustering]
    at: DateTime<Utc>,
    later: Option<DateTime<Utc>>,
    history: Vec<DateTime<Utc>>,
}

/// A CQL timestamp holds milliseconds: a `DateTime<Utc>` with digits below the millisecond
/// (`Utc::now()`) is written truncated to its millisecond at every place a value is written
/// (a key, an `Option`, a list); a read by the exact value finds no row (no stored timestamp
/// has those digits), by the truncated one finds it. With `strict_timestamps(true)` the same
/// writes are refused, naming the table, the column and the fix, and nothing is written; reads
/// are never refused.
#[tokio::test]
async fn sub_millisecond_datetime_is_truncated_when_written_and_refused_when_strict() {
    use chrono::SubsecRound;

    let t = support::test_db("sub_ms").await;
    t.db.create_table::<Instants>().await.expect("create");
    let ks = t.keyspace().to_owned();
    let exact =
        Utc.with_ymd_and_hms(2026, 11, 23, 10, 0, 0).unwrap() + chrono::Duration::milliseconds(123);
    let fine = exact + chrono::Duration::microseconds(456);
    let row = Instants {
        id: 1,
        at: fine,
        later: Some(fine),
        history: vec![fine, exact + chrono::Duration::seconds(1)],
    };
    t.db.insert(&row).await.expect("written truncated");
    let truncated = Instants {
        id: 1,
        at: exact,
        later: Some(exact),
        history: vec![exact, exact + chrono::Duration::seconds(1)],
    };
    assert_eq!(fine.trunc_subsecs(3), exact);
    assert_eq!(
        Instants::get(&t.db, &1, &exact).await.expect("read"),
        Some(truncated.clone())
    );
    // No stored timestamp equals `fine`: the read finds nothing, and is not refused.
    assert_eq!(Instants::get(&t.db, &1, &fine).await.expect("read"), None);
    assert_eq!(
        Instants::select()
            .id(&1)
            .at(&fine)
            .fetch_all(&t.db)
            .await
            .expect("read"),
        vec![]
    );

    cassmodel::value::strict_timestamps(true);
    let refused_column = |err: &cassmodel::Error| {
        let (table, column, detail) = support::refused(err);
        assert_eq!(table, format!("{ks}.instants"), "{err}");
        assert!(detail.contains("trunc_subsecs(3)"), "{err}");
        assert!(detail.contains("10:00:00.123456"), "{err}");
        assert!(detail.contains("strict_timestamps"), "{err}");
        column.to_owned()
    };
    let whole = Instants {
        id: 2,
        ..truncated.clone()
    };
    let cases = [
        (
            "at",
            Instants {
                at: fine,
                ..whole.clone()
            },
        ),
        (
            "later",
            Instants {
                later: Some(fine),
                ..whole.clone()
            },
        ),
        (
            "history",
            Instants {
                history: vec![exact, fine],
                ..whole.clone()
            },
        ),
    ];
    let mut columns = Vec::new();
    for (_, bad) in &cases {
        let err = t.db.insert(bad).await.expect_err("strict: refused");
        columns.push(refused_column(&err));
    }
    // A read is still not refused.
    let read = Instants::get(&t.db, &1, &fine).await;
    cassmodel::value::strict_timestamps(false);
    assert_eq!(columns, ["at", "later", "history"]);
    assert_eq!(read.expect("a read is never refused"), None);
    // Nothing of the refused writes was written.
    assert_eq!(Instants::partition(&t.db, &2).await.expect("read"), vec![]);
    t.drop_all().await;
}

/// Times of day at every place a value is written: a clustering column, an `Option` of
/// chrono's `NaiveTime`, and a list.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "times_of_day")]
struct TimesOfDay {
    #[partition_key]
    id: i32,
    #[clustering]
    at: Time,
    chrono_at: Option<NaiveTime>,
    more: Vec<Time>,
}

/// A CQL time is a time of day (0 to 86,399,999,999,999 ns): Cassandra stores -1 or 24:00
/// and then no read of the row succeeds, so such a value, and chrono's leap second, are
/// refused when bound, naming the table, the column and the range; nothing is written, and
/// the last nanosecond of the day round-trips.
#[tokio::test]
async fn time_outside_one_day_is_refused() {
    const DAY: i64 = 86_400_000_000_000;
    let t = support::test_db("time_of_day").await;
    t.db.create_table::<TimesOfDay>().await.expect("create");
    let ks = t.keyspace().to_owned();
    let last = TimesOfDay {
        id: 1,
        at: Time(DAY - 1),
        chrono_at: NaiveTime::from_hms_nano_opt(23, 59, 59, 999_999_999),
        more: vec![Time(0), Time(DAY - 1)],
    };
    t.db.insert(&last)
        .await
        .expect("the last nanosecond of a day");
    assert_eq!(
        TimesOfDay::get(&t.db, &1, &last.at).await.expect("read"),
        Some(last.clone())
    );

    let refused_as = |err: &cassmodel::Error, column: &str, why: &str| {
        let (table, refused_column, detail) = support::refused(err);
        assert_eq!(table, format!("{ks}.times_of_day"), "{err}");
        assert_eq!(refused_column, column, "{err}");
        assert!(detail.contains(why), "{err}");
    };
    let (out_of_day, leap) = (
        "0 (00:00:00) to 86399999999999",
        NaiveTime::from_hms_milli_opt(23, 59, 59, 1_500),
    );
    let cases = [
        ("at", out_of_day, 2, Time(-1), None, vec![]),
        ("at", out_of_day, 3, Time(DAY), None, vec![]),
        (
            "more",
            out_of_day,
            4,
            Time(1),
            None,
            vec![Time(2), Time(i64::MAX)],
        ),
        ("chrono_at", "leap second", 5, Time(1), leap, vec![]),
    ];
    for (column, why, id, at, chrono_at, more) in cases {
        let row = TimesOfDay {
            id,
            at,
            chrono_at,
            more,
        };
        let err = t.db.insert(&row).await.expect_err("out of a day");
        refused_as(&err, column, why);
        assert_eq!(
            TimesOfDay::partition(&t.db, &id).await.expect("read"),
            vec![],
            "partition {id}: nothing written"
        );
    }
    // A key value bound by a read is refused the same way.
    let err = TimesOfDay::get(&t.db, &1, &Time(DAY))
        .await
        .expect_err("24:00 as a key");
    refused_as(&err, "at", out_of_day);
    t.drop_all().await;
}

/// Column `column` of row `id` of `ks.literals`, as the driver reads it.
async fn read_back(
    db: &cassmodel::Db,
    ks: &str,
    column: &str,
    id: usize,
) -> Option<cassmodel::scylla::value::CqlValue> {
    let select = format!("SELECT {column} FROM {ks}.literals WHERE id = {id}");
    let (back,) = support::plain_row(db, select.as_str(), ()).await;
    back
}

/// Every kind of value, written as the CQL literal cassmodel prints in its reports and
/// messages (`analyze --live`, a key change's verify), inserted with that text and read back
/// by the driver: the same value, so each literal is valid CQL and exact (a float's digits, a
/// decimal's scale, `NaN` and the infinities, the dates and timestamps outside the years 1 to
/// 9999 written as numbers, a text's quotes, a UDT's quoted field names).
#[tokio::test]
async fn cql_literals_read_back_as_the_same_values() {
    use cassmodel::scylla::frame::response::result::{ColumnType, NativeType};
    use cassmodel::scylla::value::CqlValue as V;
    use cassmodel_runtime::__private::testing::cql_literal;

    let t = support::test_db("literals").await;
    let ks = t.keyspace().to_owned();
    t.db.execute_ddl(&format!(
        "CREATE TYPE {ks}.lit_addr (street text, \"zipCode\" int, \"order\" list<int>)"
    ))
    .await
    .expect("type");
    let table =
        t.db.execute_ddl(&format!(
            "CREATE TABLE {ks}.literals (id int PRIMARY KEY, a ascii, t text, b boolean, bl blob, \
         d date, dec decimal, dbl double, dur duration, f float, i int, big bigint, \
         s smallint, ti tinyint, vi varint, ts timestamp, tm time, u uuid, tu timeuuid, \
         ip inet, l list<int>, st set<text>, m map<float, int>, \
         tup frozen<tuple<int, text, boolean>>, ad frozen<lit_addr>, v vector<float, 2>)"
        ))
        .await;
    // The vector type came with Cassandra 5.0: before, the table is refused by name.
    let server = support::server(&t.db).await;
    if server < cassmodel::schema::ServerVersion::CASSANDRA_5_0 {
        let e = table.expect_err("a vector column before 5.0");
        assert_eq!(e.kind(), cassmodel::ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().starts_with("the vector type"), "{e}");
        return t.drop_all().await;
    }
    table.expect("table");

    let epoch_day = 1u32 << 31;
    let varint = |n: i128| V::Varint(Varint::from_signed_bytes_be(n.to_be_bytes().to_vec()));
    let decimal = |n: i128, scale| {
        V::Decimal(Decimal::from_signed_be_bytes_and_exponent(
            n.to_be_bytes().to_vec(),
            scale,
        ))
    };
    let duration = |months, days, nanoseconds| {
        V::Duration(Duration {
            months,
            days,
            nanoseconds,
        })
    };
    let text = |s: &str| V::Text(s.to_owned());
    let cases: Vec<(&str, V)> = vec![
        ("a", V::Ascii("it's".into())),
        ("a", V::Ascii(String::new())),
        ("t", text("O'Brien, Jr. ''")),
        ("t", text("ünïcødé ✓")),
        ("b", V::Boolean(false)),
        ("bl", V::Blob(vec![])),
        ("bl", V::Blob(vec![0xca, 0xfe, 0x00])),
        ("d", V::Date(Date(epoch_day))),
        ("d", V::Date(Date(epoch_day + 19_783))),
        ("d", V::Date(Date(epoch_day - 719_162))), // 0001-01-01
        ("d", V::Date(Date(epoch_day - 719_163))), // the day before: a number
        ("d", V::Date(Date(epoch_day + 2_932_897))), // 10000-01-01: a number
        ("d", V::Date(Date(0))),
        ("d", V::Date(Date(u32::MAX))),
        ("dec", decimal(12345, 2)),
        ("dec", decimal(-5, 3)),
        ("dec", decimal(150, 2)),
        ("dec", decimal(0, 2)),
        ("dec", decimal(12, -3)),
        ("dec", decimal(1, 40)),
        ("dec", decimal(i128::MIN, 7)),
        ("dbl", V::Double(1.5)),
        ("dbl", V::Double(-0.0)),
        ("dbl", V::Double(0.1)),
        ("dbl", V::Double(f64::NAN)),
        ("dbl", V::Double(f64::INFINITY)),
        ("dbl", V::Double(f64::NEG_INFINITY)),
        ("dbl", V::Double(f64::MAX)),
        ("dbl", V::Double(f64::MIN_POSITIVE)),
        ("dbl", V::Double(5e-324)),
        ("dbl", V::Double(1e10)),
        ("dur", duration(1, 2, 3)),
        ("dur", duration(0, 0, 0)),
        ("dur", duration(-14, -1, -5_400_000_000_001)),
        ("dur", duration(i32::MAX, i32::MAX, i64::MAX)),
        ("dur", duration(i32::MIN + 1, i32::MIN + 1, i64::MIN + 1)),
        ("f", V::Float(0.1)),
        ("f", V::Float(-0.0)),
        ("f", V::Float(f32::NAN)),
        ("f", V::Float(f32::NEG_INFINITY)),
        ("f", V::Float(f32::MAX)),
        ("f", V::Float(1e-40)),
        ("i", V::Int(i32::MIN)),
        ("big", V::BigInt(i64::MAX)),
        ("s", V::SmallInt(i16::MIN)),
        ("ti", V::TinyInt(i8::MIN)),
        ("vi", varint(i128::MIN)),
        ("vi", varint(i128::MAX)),
        ("vi", varint(0)),
        ("ts", V::Timestamp(Timestamp(0))),
        ("ts", V::Timestamp(Timestamp(1_709_287_200_123))),
        ("ts", V::Timestamp(Timestamp(-1))),
        ("ts", V::Timestamp(Timestamp(253_402_300_799_999))), // 9999-12-31T23:59:59.999Z
        ("ts", V::Timestamp(Timestamp(253_402_300_800_000))), // a number
        ("ts", V::Timestamp(Timestamp(i64::MIN))),
        ("ts", V::Timestamp(Timestamp(i64::MAX))),
        ("tm", V::Time(Time(0))),
        ("tm", V::Time(Time(86_399_999_999_999))),
        ("tm", V::Time(Time(37_845_000_000_123))),
        (
            "u",
            V::Uuid(Uuid::from_u128(0xda70_0000_1111_4222_8333_4444_5555_6666)),
        ),
        (
            "tu",
            V::Timeuuid(Timeuuid::from(
                Uuid::parse_str("8e14e760-7fa8-11eb-bc66-000000000001").expect("uuid"),
            )),
        ),
        ("ip", V::Inet(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)))),
        ("ip", V::Inet(IpAddr::V6(Ipv6Addr::LOCALHOST))),
        (
            "ip",
            V::Inet(IpAddr::V6(Ipv6Addr::new(
                0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329,
            ))),
        ),
        ("l", V::List(vec![V::Int(2), V::Int(1), V::Int(2)])),
        ("st", V::Set(vec![text("a'"), text("b")])),
        (
            "m",
            // In the server's order of float keys.
            V::Map(vec![
                (V::Float(f32::NEG_INFINITY), V::Int(1)),
                (V::Float(-0.0), V::Int(2)),
                (V::Float(0.0), V::Int(3)),
                (V::Float(1.5), V::Int(4)),
                (V::Float(f32::INFINITY), V::Int(5)),
                (V::Float(f32::NAN), V::Int(6)),
            ]),
        ),
        (
            "tup",
            V::Tuple(vec![Some(V::Int(1)), None, Some(V::Boolean(true))]),
        ),
        (
            "ad",
            V::UserDefinedType {
                keyspace: ks.clone(),
                name: "lit_addr".into(),
                fields: vec![
                    ("street".into(), Some(text("Main's"))),
                    ("zipCode".into(), None),
                    ("order".into(), Some(V::List(vec![V::Int(1)]))),
                ],
            },
        ),
        ("v", V::Vector(vec![V::Float(0.5), V::Float(-1.0)])),
    ];
    let same = |a: &V, b: &V| a == b || cql_literal(a, None) == cql_literal(b, None);
    let mut failures = Vec::new();
    for (id, (column, value)) in cases.iter().enumerate() {
        let literal = cql_literal(value, None);
        let insert = format!("INSERT INTO {ks}.literals (id, {column}) VALUES ({id}, {literal})");
        if let Err(e) = t.db.session().query_unpaged(insert.as_str(), ()).await {
            failures.push(format!("{insert}: {e}"));
            continue;
        }
        match read_back(&t.db, &ks, column, id).await {
            // NaN equals nothing: the same literal is the same value there.
            Some(back) if same(&back, value) => {}
            other => failures.push(format!("{literal} in `{column}` read back as {other:?}")),
        }
    }
    // An empty value (no literal of its own) by its type.
    let int = ColumnType::Native(NativeType::Int);
    let empty = cql_literal(&V::Empty, Some(&int));
    let insert = format!("INSERT INTO {ks}.literals (id, i) VALUES (1000, {empty})");
    t.db.session()
        .query_unpaged(insert.as_str(), ())
        .await
        .unwrap_or_else(|e| panic!("{insert}: {e}"));
    let back = read_back(&t.db, &ks, "i", 1000).await;
    assert_eq!(back, Some(V::Empty), "{empty}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    t.drop_all().await;
}

/// Maps with float keys and sets of floats, which no map or set type of Rust holds (`f32` and
/// `f64` are neither `Hash` nor `Ord`): a `Vec` of pairs with `cql_type = "map<..>"`, a `Vec`
/// with `cql_type = "set<..>"`.
#[derive(CassTable, Debug, Clone)]
#[cass(table = "float_keys")]
struct FloatKeys {
    #[partition_key]
    id: i32,
    #[cass(cql_type = "map<float, int>")]
    scores: Option<Vec<(f32, i32)>>,
    #[cass(cql_type = "map<double, text>")]
    weights: Vec<(f64, String)>,
    #[cass(cql_type = "frozen<map<float, int>>")]
    frozen: Vec<(f32, i32)>,
    #[cass(cql_type = "set<double>")]
    levels: Option<Vec<f64>>,
}

/// The entries of a map with float keys, bit for bit (`NaN` equals nothing, `-0.0` equals
/// `0.0`).
fn bits<V: Clone>(entries: &[(f32, V)]) -> Vec<(u32, V)> {
    entries
        .iter()
        .map(|(k, v)| (k.to_bits(), v.clone()))
        .collect()
}

/// A `Vec<(f32, i32)>` field with `cql_type = "map<float, int>"` creates the column, writes
/// it and reads it back exactly, edge values included, in the server's order of the keys
/// (`-Infinity` < `-0.0` < `0.0` < ... < `Infinity` < `NaN`, Java's `Float.compare`), one
/// entry per key; the map methods of the builder take the key and value types.
#[tokio::test]
async fn a_vec_of_pairs_is_a_map_with_float_keys() {
    let t = support::test_db("float_keys").await;
    t.db.create_table::<FloatKeys>().await.expect("create");
    let in_server_order: Vec<(f32, i32)> = vec![
        (f32::NEG_INFINITY, 1),
        (f32::MIN, 2),
        (-1.5, 3),
        (-0.0, 4),
        (0.0, 5),
        (1e-45, 6), // the least subnormal
        (f32::MIN_POSITIVE, 7),
        (0.1, 8),
        (f32::MAX, 9),
        (f32::INFINITY, 10),
        (f32::NAN, 11),
    ];
    let mut shuffled = in_server_order.clone();
    shuffled.reverse();
    shuffled.swap(2, 7);
    let doubles = vec![
        (f64::NEG_INFINITY, "-inf".to_owned()),
        (-0.0, "minus zero".to_owned()),
        (5e-324, "least".to_owned()),
        (0.1, "a tenth".to_owned()),
        (f64::NAN, "nan".to_owned()),
    ];
    let row = FloatKeys {
        id: 1,
        scores: Some(shuffled.clone()),
        weights: doubles.clone(),
        frozen: shuffled,
        levels: Some(vec![f64::NAN, 2.5, -0.0, 2.5, f64::NEG_INFINITY]),
    };
    t.db.insert(&row).await.expect("insert");
    let back = FloatKeys::get(&t.db, &1).await.expect("read").expect("row");
    assert_eq!(
        back.scores.as_deref().map(bits),
        Some(bits(&in_server_order))
    );
    assert_eq!(bits(&back.frozen), bits(&in_server_order));
    let weight_bits = |w: &[(f64, String)]| {
        w.iter()
            .map(|(k, v)| (k.to_bits(), v.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(weight_bits(&back.weights), weight_bits(&doubles));
    let level_bits = |l: &[f64]| l.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        back.levels.as_deref().map(level_bits),
        Some(level_bits(&[f64::NEG_INFINITY, -0.0, 2.5, f64::NAN])),
        "a set: in order, each value once"
    );

    // One entry per key: a key given twice keeps its last value.
    let twice = FloatKeys {
        id: 2,
        scores: Some(vec![(1.5, 1), (f32::NAN, 2), (1.5, 3), (f32::NAN, 4)]),
        weights: vec![],
        frozen: vec![(2.5, 1), (2.5, 2)],
        levels: None,
    };
    t.db.insert(&twice).await.expect("insert");
    let back = FloatKeys::get(&t.db, &2).await.expect("read").expect("row");
    assert_eq!(
        back.scores.as_deref().map(bits),
        Some(bits(&[(1.5, 3), (f32::NAN, 4)]))
    );
    assert_eq!(bits(&back.frozen), bits(&[(2.5, 2)]));
    // An empty non-frozen map is stored as null: `None` for an `Option`, empty for a `Vec`;
    // an empty frozen one stays empty.
    assert_eq!(back.weights, vec![]);
    let empty = FloatKeys {
        id: 3,
        scores: Some(vec![]),
        weights: vec![],
        frozen: vec![],
        levels: Some(vec![]),
    };
    t.db.insert(&empty).await.expect("insert");
    let back_empty = FloatKeys::get(&t.db, &3).await.expect("read").expect("row");
    assert_eq!(
        (
            back_empty.scores,
            back_empty.weights,
            back_empty.frozen,
            back_empty.levels
        ),
        (None, vec![], vec![], None)
    );
    let (frozen_empty,): (i64,) = support::plain_row(
        &t.db,
        format!(
            "SELECT COUNT(*) FROM {}.float_keys WHERE id = 3 AND frozen = {{}} \
                     ALLOW FILTERING",
            t.keyspace()
        ),
        (),
    )
    .await;
    assert_eq!(frozen_empty, 1, "the frozen map is empty, not null");

    // The builder's map methods: put one entry, merge entries, remove keys.
    FloatKeys::update()
        .put_scores(&f32::NAN, &20)
        .id(&2)
        .execute(&t.db)
        .await
        .expect("put");
    FloatKeys::update()
        .merge_weights(&vec![
            (0.5, "half".to_owned()),
            (-0.0, "minus zero".to_owned()),
        ])
        .id(&2)
        .execute(&t.db)
        .await
        .expect("merge");
    FloatKeys::update()
        .remove_scores_keys(&[1.5])
        .id(&2)
        .execute(&t.db)
        .await
        .expect("remove");
    // And a set's: add values, remove values.
    FloatKeys::update()
        .add_levels(&vec![1.0, f64::INFINITY, 1.0])
        .id(&2)
        .execute(&t.db)
        .await
        .expect("add");
    FloatKeys::update()
        .remove_levels(&vec![f64::INFINITY])
        .id(&2)
        .execute(&t.db)
        .await
        .expect("remove");
    let back = FloatKeys::get(&t.db, &2).await.expect("read").expect("row");
    assert_eq!(
        back.scores.as_deref().map(bits),
        Some(bits(&[(f32::NAN, 20)]))
    );
    assert_eq!(
        weight_bits(&back.weights),
        weight_bits(&[(-0.0, "minus zero".to_owned()), (0.5, "half".to_owned())])
    );
    assert_eq!(back.levels, Some(vec![1.0]));
    FloatKeys::update()
        .remove_scores_keys(&[f32::NAN])
        .id(&2)
        .execute(&t.db)
        .await
        .expect("remove");
    let back = FloatKeys::get(&t.db, &2).await.expect("read").expect("row");
    assert_eq!(
        back.scores.map(|s| bits(&s)),
        None,
        "the map's last key removed"
    );
    t.drop_all().await;
}
