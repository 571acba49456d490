//! Every statement shape the typed API can produce for the seed models is prepared on the
//! real node, and none may be rejected; shapes the API refuses to compile are rejected by the
//! server. This keeps the compile-time rules and Cassandra in agreement.
//!
//! The shapes are enumerated from the same rules the derive encodes as trait bounds:
//! the first `n` key columns (partition key, then clustering columns) by `=` or `IN`, then
//! optionally one range (lower and/or upper bound) on the next clustering column; reads need
//! the whole partition key and may add LIMIT, PER PARTITION LIMIT and a reversed order;
//! deletes need the whole partition key; updates need the whole key and set regular columns;
//! `select_allow_filtering()` may restrict any column by `=`.

#[path = "../examples/models/mod.rs"]
mod models;
mod support;

use cassmodel::__private::query::{Op, SetOp};
use cassmodel::{schema::CqlType, schema::TableSchema};
use cassmodel_runtime::__private::testing::{self as cql, Spec};

/// WHERE clauses the builder accepts: `=`/`IN` prefixes (all `=`, or `IN` at one position),
/// each optionally followed by a range on the next clustering column.
fn where_shapes(t: &TableSchema) -> Vec<Vec<(u16, Op)>> {
    let key: Vec<u16> = t.primary_key().iter().map(|&i| i as u16).collect();
    let np = t.partition_key.len();
    let mut out = Vec::new();
    for n in 0..=key.len() {
        let mut prefixes = vec![key[..n].iter().map(|&c| (c, Op::Eq)).collect::<Vec<_>>()];
        for at in 0..n {
            let mut p = prefixes[0].clone();
            p[at].1 = Op::In;
            prefixes.push(p);
        }
        for p in prefixes {
            out.push(p.clone());
            if n >= np && n < key.len() {
                let c = key[n];
                for (lo, hi) in [
                    (Some(Op::Gt), None),
                    (Some(Op::Ge), None),
                    (None, Some(Op::Lt)),
                    (None, Some(Op::Le)),
                    (Some(Op::Gt), Some(Op::Lt)),
                    (Some(Op::Ge), Some(Op::Le)),
                    (Some(Op::Gt), Some(Op::Le)),
                    (Some(Op::Ge), Some(Op::Lt)),
                ] {
                    let mut r = p.clone();
                    r.extend(lo.map(|o| (c, o)));
                    r.extend(hi.map(|o| (c, o)));
                    out.push(r);
                }
            }
        }
    }
    out
}

/// Whether a WHERE clause gives the whole partition key.
fn partition_given(t: &TableSchema, w: &[(u16, Op)]) -> bool {
    t.partition_key
        .iter()
        .all(|&c| w.iter().any(|&(x, _)| usize::from(x) == c))
}

/// Every statement the typed API can build for `t` (as CQL text).
fn statements(t: &TableSchema, ks: &str) -> Vec<String> {
    let all = t.all_columns();
    let mut out = vec![cql::insert(t, ks), cql::token_range_scan(t, ks, (all, &[]))];
    let full_key_len = t.partition_key.len() + t.clustering.len();
    for w in where_shapes(t) {
        let spec = |f: &dyn Fn(&mut Spec)| {
            let mut s = Spec {
                restrictions: w.clone(),
                ..Spec::default()
            };
            f(&mut s);
            s
        };
        if partition_given(t, &w) {
            for (limit, ppl, reversed) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (true, true, true),
            ] {
                let s = spec(&|s| {
                    s.limit = limit;
                    s.per_partition_limit = ppl;
                    s.reversed = reversed;
                });
                out.push(cql::select(t, ks, (all, &[]), &s));
                // A projection: one regular column, or the first column.
                let one = t.columns.iter().position(|c| !c.kind.is_key()).unwrap_or(0);
                out.push(cql::select(t, ks, (&[one], &[]), &s));
            }
            out.push(cql::delete(t, ks, &spec(&|_| {})));
        }
        let only_eq_or_in = w.iter().all(|&(_, op)| matches!(op, Op::Eq | Op::In));
        let only_eq = w.iter().all(|&(_, op)| op == Op::Eq);
        if w.len() == full_key_len && only_eq_or_in {
            for (i, c) in t.columns.iter().enumerate() {
                if c.kind.is_key() {
                    continue;
                }
                let i = i as u16;
                // Every change the builder offers for this column's type.
                let mut ops = vec![SetOp::Assign];
                match &c.cql_type {
                    CqlType::List(_) => {
                        ops.extend([SetOp::Append, SetOp::Prepend, SetOp::Remove, SetOp::AtKey])
                    }
                    CqlType::Set(_) => ops.extend([SetOp::Append, SetOp::Remove]),
                    CqlType::Map(..) => ops.extend([SetOp::AtKey, SetOp::Append, SetOp::Remove]),
                    _ => {}
                }
                for op in ops {
                    for (ttl, timestamp) in [(false, false), (true, false), (true, true)] {
                        out.push(cql::update(
                            t,
                            ks,
                            &spec(&|s| {
                                s.sets = vec![(i, op)];
                                s.ttl = ttl;
                                s.timestamp = timestamp;
                            }),
                        ));
                    }
                }
                // Lightweight transactions: one row, `=` only, no custom timestamp.
                if only_eq {
                    for cmp in [Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge] {
                        if c.cql_type.is_collection() && cmp != Op::Eq && cmp != Op::Ne {
                            continue;
                        }
                        out.push(cql::update(
                            t,
                            ks,
                            &spec(&|s| {
                                s.sets = vec![(i, SetOp::Assign)];
                                s.conditions = vec![(i, cmp)];
                            }),
                        ));
                    }
                    out.push(cql::update(
                        t,
                        ks,
                        &spec(&|s| {
                            s.sets = vec![(i, SetOp::Assign)];
                            s.if_exists = true;
                            s.ttl = true;
                        }),
                    ));
                    out.push(cql::delete(
                        t,
                        ks,
                        &spec(&|s| s.conditions = vec![(i, Op::Eq)]),
                    ));
                }
            }
            let regular: Vec<(u16, SetOp)> = (0..t.columns.len())
                .filter(|&i| !t.columns[i].kind.is_key())
                .map(|i| (i as u16, SetOp::Assign))
                .collect();
            if !regular.is_empty() {
                out.push(cql::update(t, ks, &spec(&|s| s.sets = regular.clone())));
            }
            if only_eq {
                out.push(cql::delete(t, ks, &spec(&|s| s.if_exists = true)));
            }
        }
        if partition_given(t, &w) {
            out.push(cql::delete(t, ks, &spec(&|s| s.timestamp = true)));
        }
    }
    // select_allow_filtering(): any single column by `=`, but a non-frozen collection.
    for i in (0..t.columns.len()).filter(|&i| !t.columns[i].cql_type.is_collection()) {
        let s = Spec {
            restrictions: vec![(i as u16, Op::Eq)],
            allow_filtering: true,
            ..Spec::default()
        };
        out.push(cql::select(t, ks, (all, &[]), &s));
    }
    out
}

/// Shapes the API does not let one write, each of which the server must refuse.
fn refused(t: &TableSchema, ks: &str) -> Vec<String> {
    let all = t.all_columns();
    let key: Vec<u16> = t.primary_key().iter().map(|&i| i as u16).collect();
    let np = t.partition_key.len();
    let select = |r: Vec<(u16, Op)>| {
        cql::select(
            t,
            ks,
            (all, &[]),
            &Spec {
                restrictions: r,
                ..Spec::default()
            },
        )
    };
    let mut out = Vec::new();
    // A range on a partition-key column.
    out.push(select(vec![(key[0], Op::Gt)]));
    // A clustering column without the partition key.
    if let Some(&c) = t.clustering.first() {
        out.push(select(vec![(c as u16, Op::Eq)]));
    }
    // Part of a composite partition key.
    if np > 1 {
        out.push(select(key[..np - 1].iter().map(|&c| (c, Op::Eq)).collect()));
    }
    // Skipping a clustering column.
    if key.len() >= np + 2 {
        let mut r: Vec<_> = key[..np].iter().map(|&c| (c, Op::Eq)).collect();
        r.push((key[np + 1], Op::Eq));
        out.push(select(r));
        // A restriction after a range.
        let mut r: Vec<_> = key[..np].iter().map(|&c| (c, Op::Eq)).collect();
        r.push((key[np], Op::Gt));
        r.push((key[np + 1], Op::Eq));
        out.push(select(r));
    }
    // A regular column without ALLOW FILTERING.
    if let Some(i) = t.columns.iter().position(|c| !c.kind.is_key()) {
        let mut r: Vec<_> = key[..np].iter().map(|&c| (c, Op::Eq)).collect();
        r.push((i as u16, Op::Eq));
        out.push(select(r));
    }
    // `=` on a non-frozen collection, even with ALLOW FILTERING.
    if let Some(i) = t.columns.iter().position(|c| c.cql_type.is_collection()) {
        out.push(cql::select(
            t,
            ks,
            (all, &[]),
            &Spec {
                restrictions: vec![(i as u16, Op::Eq)],
                allow_filtering: true,
                ..Spec::default()
            },
        ));
    }
    // Updating a key column.
    let mut s = Spec {
        restrictions: key.iter().map(|&c| (c, Op::Eq)).collect(),
        ..Spec::default()
    };
    s.sets = vec![(key[0], SetOp::Assign)];
    out.push(cql::update(t, ks, &s));
    out
}

#[tokio::test]
async fn every_generated_shape_prepares_and_refused_shapes_are_refused() {
    let mut t = support::test_db("shapes").await;
    for ks in models::supermarket::KEYSPACES {
        t.map_keyspace(ks).await;
    }
    models::create_all(&t.db, &cassmodel::Replication::Simple(1))
        .await
        .expect("create the seed models");
    let (mut prepared, mut rejected, mut wrongly_accepted) = (0, Vec::new(), Vec::new());
    for section in &models::SECTIONS {
        for schema in (section.tables)() {
            let ks =
                t.db.resolve_keyspace(schema.keyspace)
                    .expect("keyspace")
                    .to_owned();
            for cql in statements(schema, &ks) {
                match t.db.session().prepare(cql.as_str()).await {
                    Ok(_) => prepared += 1,
                    Err(e) => rejected.push(format!("{cql}\n    -> {e}")),
                }
            }
            for cql in refused(schema, &ks) {
                if t.db.session().prepare(cql.as_str()).await.is_ok() {
                    wrongly_accepted.push(cql);
                }
            }
        }
    }
    println!("{prepared} statement shapes prepared");
    assert!(
        rejected.is_empty(),
        "the server rejected shapes the API allows:\n{}",
        rejected.join("\n")
    );
    assert!(
        wrongly_accepted.is_empty(),
        "the server accepted shapes the API refuses (the rule may be too strict):\n{}",
        wrongly_accepted.join("\n")
    );
    assert!(
        prepared > 1000,
        "only {prepared} shapes: the enumeration is broken"
    );
    t.drop_all().await;
}

/// Two rules the server checks only when a statement runs (its PREPARE succeeds): the API
/// refuses both before sending, and the server refuses them too.
#[tokio::test]
async fn lwt_with_in_or_timestamp_is_refused_by_both() {
    use cassmodel::{Error, query::Cmp};
    use models::likes::Customer;
    let t = support::test_db("shapes_lwt").await;
    t.db.create_table::<Customer>().await.expect("create");
    let ks = t.keyspace().to_owned();

    let server =
        t.db.session()
            .query_unpaged(
                format!("UPDATE {ks}.customer SET first_name = ? WHERE cust_id IN ? IF EXISTS"),
                ("x", vec!["c1"]),
            )
            .await
            .expect_err("the server refuses IN in a conditional update");
    assert!(
        server
            .to_string()
            .contains("IN on the partition key is not supported"),
        "{server}"
    );
    let api = Customer::update()
        .set_first_name("x")
        .cust_id_in(&["c1"])
        .if_exists()
        .execute(&t.db)
        .await
        .expect_err("the API refuses it before sending");
    assert!(matches!(api, Error::Invalid(_)), "{api:?}");
    assert!(api.to_string().contains("cannot use IN"), "{api}");

    let api = Customer::update()
        .set_first_name("x")
        .cust_id("c1")
        .if_first_name(Cmp::Eq, "y")
        .using_timestamp(1)
        .execute(&t.db)
        .await
        .expect_err("the API refuses a custom timestamp on a conditional update");
    assert!(api.to_string().contains("USING TIMESTAMP"), "{api}");
    let server = t
        .db
        .session()
        .prepare(format!(
            "UPDATE {ks}.customer USING TIMESTAMP ? SET first_name = ? WHERE cust_id = ? IF EXISTS"
        ))
        .await
        .expect_err("the server refuses it too");
    assert!(
        server
            .to_string()
            .contains("Cannot provide custom timestamp"),
        "{server}"
    );
    t.drop_all().await;
}
