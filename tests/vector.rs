//! Vector search on the node: `vector<float, N>` columns written and read back exactly, SAI
//! indexes with each similarity function (created by the migrator, checked by `validate`),
//! and typed ANN queries whose top-k order is the order computed by brute force here:
//! across partitions, within one, with an indexed-column filter and a clustering range, with
//! scores and projections; similarities read beside the columns (`similarity_<field>`),
//! with or without a vector search or an index, equal to the same selectors in plain CQL.

mod support;

use cassmodel::migrate::{Migrator, Models};
use cassmodel::value::Vector;
use cassmodel::{Batch, CassProjection, CassTable, Replication, query::Scored, schema::Similarity};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "vec_docs")]
struct Doc {
    #[partition_key]
    shelf: String,
    #[clustering(asc)]
    id: i32,
    #[cass(index)]
    topic: String,
    /// Cosine (the default similarity).
    #[cass(index)]
    embedding: Vector<4>,
    /// Euclidean; absent on some rows.
    #[cass(index(similarity = "euclidean"))]
    place: Option<Vector<2>>,
    /// Dot product, on unit vectors.
    #[cass(index(name = "docs_by_unit", similarity = "dot_product"))]
    unit: Vector<3>,
    /// No index: stored and read back, never searched.
    raw: Vector<5>,
}

#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Doc)]
struct DocId {
    shelf: String,
    id: i32,
}

/// A deterministic pseudo-random stream (xorshift), so that the data has no ties to speak of.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        // 24 bits of mantissa: exact in an f32.
        (self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    fn vector<const N: usize>(&mut self) -> [f32; N] {
        std::array::from_fn(|_| self.next())
    }
}

fn unit<const N: usize>(v: [f32; N]) -> [f32; N] {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.map(|x| x / norm)
}

fn docs() -> Vec<Doc> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    for shelf in 0..4 {
        for id in 0..25 {
            out.push(Doc {
                shelf: format!("shelf{shelf}"),
                id,
                topic: ["rust", "cql", "jvm"][(id % 3) as usize].to_owned(),
                embedding: Vector::new(rng.vector()),
                place: (id % 4 != 0).then(|| Vector::new(rng.vector())),
                unit: Vector::new(unit(rng.vector())),
                raw: Vector::new(rng.vector()),
            });
        }
    }
    out
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum()
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt())
}

fn euclidean_similarity(a: &[f32], b: &[f32]) -> f64 {
    let d2: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).powi(2))
        .sum();
    1.0 / (1.0 + d2)
}

/// The keys of the `k` rows of `rows` (filtered by `keep`) with the highest `score`, best first.
fn brute_force(
    rows: &[Doc],
    keep: impl Fn(&Doc) -> bool,
    score: impl Fn(&Doc) -> Option<f64>,
    k: usize,
) -> Vec<(String, i32)> {
    let mut scored: Vec<(f64, &Doc)> = rows
        .iter()
        .filter(|d| keep(d))
        .filter_map(|d| Some((score(d)?, d)))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let top: Vec<_> = scored
        .iter()
        .take(k)
        .map(|(_, d)| (d.shelf.clone(), d.id))
        .collect();
    // The next score must differ from the last one taken, or the top k is not one answer.
    if let (Some(last), Some(next)) = (scored.get(k - 1), scored.get(k)) {
        assert!(
            (last.0 - next.0).abs() > 1e-6,
            "the test data has a tie at rank {k}"
        );
    }
    assert_eq!(top.len(), k, "brute force found fewer than {k} rows");
    top
}

fn keys(rows: &[Doc]) -> Vec<(String, i32)> {
    rows.iter().map(|d| (d.shelf.clone(), d.id)).collect()
}

#[tokio::test]
async fn vector_search_orders_like_brute_force() {
    let t = support::test_db("vector").await;
    let db = &t.db;
    let models = || Models::new().table::<Doc>();
    let m = Migrator::new(db, models()).replication(Replication::Simple(1));
    if support::refused_before_cassandra_5(db, &m).await {
        return t.drop_all().await;
    }
    m.apply().await.expect("migrate");
    m.validate().await.expect("validate after apply");

    // The similarity functions as created (what `validate` compared).
    let ks = t.keyspace().to_owned();
    let options = support::index_options(db, &ks, "vec_docs", "similarity_function").await;
    assert_eq!(
        options,
        [
            ("docs_by_unit".to_owned(), Some("dot_product".to_owned())),
            ("vec_docs_embedding_idx".to_owned(), None),
            (
                "vec_docs_place_idx".to_owned(),
                Some("euclidean".to_owned())
            ),
            ("vec_docs_topic_idx".to_owned(), None),
        ]
    );

    let all = docs();
    for d in &all {
        db.insert(d).await.expect("insert");
    }

    // Written and read back exactly.
    for d in [&all[0], &all[37], &all[99]] {
        let back = Doc::get(db, &d.shelf, &d.id)
            .await
            .expect("get")
            .expect("row");
        assert_eq!(&back, d);
    }

    let mut rng = Rng(42);
    let q: Vector<4> = Vector::new(rng.vector());

    // Across partitions.
    let got = Doc::select()
        .ann_embedding(&q)
        .limit(7)
        .fetch_all(db)
        .await
        .expect("ann");
    let want = brute_force(
        &all,
        |_| true,
        |d| Some(cosine(&d.embedding[..], &q[..])),
        7,
    );
    assert_eq!(keys(&got), want, "top 7 across partitions");
    for d in &got {
        assert!(all.contains(d), "a row read back differs: {d:?}");
    }

    // Cassandra runs a vector search at ONE or LOCAL_ONE, and says so on each one asked at
    // another level (the driver's default, LOCAL_QUORUM, here); asked at LOCAL_ONE, it does
    // not (README, "Server warnings").
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = told.clone();
    db.on_server_warning(move |w| kept.lock().expect("lock").push(w.text.clone()));
    let top_k = |told: &std::sync::Mutex<Vec<String>>| {
        let told = told.lock().expect("lock");
        told.iter()
            .filter(|t| t.starts_with("Top-K queries"))
            .count()
    };
    let again = Doc::select().ann_embedding(&q).limit(7).fetch_all(db).await;
    assert_eq!(keys(&again.expect("ann")), want, "the same search again");
    assert_eq!(top_k(&told), 1, "{:?}", told.lock().expect("lock"));
    let at_one = Doc::select()
        .ann_embedding(&q)
        .limit(7)
        .consistency(cassmodel::Consistency::LocalOne)
        .fetch_all(db)
        .await;
    assert_eq!(keys(&at_one.expect("ann")), want, "the search at LOCAL_ONE");
    assert_eq!(top_k(&told), 1, "{:?}", told.lock().expect("lock"));

    // Within one partition, and with a clustering range after the partition key.
    let got = Doc::select()
        .shelf("shelf2")
        .ann_embedding(&q)
        .limit(5)
        .fetch_all(db)
        .await
        .expect("ann in a partition");
    let want = brute_force(
        &all,
        |d| d.shelf == "shelf2",
        |d| Some(cosine(&d.embedding[..], &q[..])),
        5,
    );
    assert_eq!(keys(&got), want, "top 5 in shelf2");
    let got = Doc::select()
        .shelf("shelf2")
        .id_ge(&10)
        .ann_embedding(&q)
        .limit(4)
        .fetch_all(db)
        .await
        .expect("ann in a slice");
    let want = brute_force(
        &all,
        |d| d.shelf == "shelf2" && d.id >= 10,
        |d| Some(cosine(&d.embedding[..], &q[..])),
        4,
    );
    assert_eq!(keys(&got), want, "top 4 in shelf2, id >= 10");

    // With an indexed-column filter, before or after the search.
    let want = brute_force(
        &all,
        |d| d.topic == "cql",
        |d| Some(cosine(&d.embedding[..], &q[..])),
        6,
    );
    let got = Doc::select()
        .topic("cql")
        .ann_embedding(&q)
        .limit(6)
        .fetch_all(db)
        .await
        .expect("ann with a filter");
    assert_eq!(keys(&got), want, "top 6 on topic cql");
    let got = Doc::select()
        .ann_embedding(&q)
        .topic("cql")
        .limit(6)
        .fetch_all(db)
        .await
        .expect("filter after ann");
    assert_eq!(keys(&got), want, "top 6 on topic cql, filter given last");

    // Scores, on a projection: `(1 + cosine) / 2`, best first.
    let scored: Vec<Scored<DocId>> = Doc::select()
        .ann_embedding(&q)
        .limit(5)
        .read_as::<DocId>()
        .with_score()
        .fetch_all(db)
        .await
        .expect("scored");
    assert_eq!(scored.len(), 5);
    for s in &scored {
        let d = all
            .iter()
            .find(|d| d.shelf == s.row.shelf && d.id == s.row.id)
            .expect("a known row");
        let expected = (1.0 + cosine(&d.embedding[..], &q[..])) / 2.0;
        assert!(
            (f64::from(s.score) - expected).abs() < 1e-5,
            "score {} of {:?}, expected {expected}",
            s.score,
            s.row
        );
    }
    assert!(scored.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(
        scored
            .iter()
            .map(|s| (s.row.shelf.clone(), s.row.id))
            .collect::<Vec<_>>(),
        brute_force(
            &all,
            |_| true,
            |d| Some(cosine(&d.embedding[..], &q[..])),
            5
        )
    );

    // The first row only, scored, as a whole row; a query vector given as an array.
    let first = Doc::select()
        .ann_embedding(&[0.5, -0.5, 0.5, -0.5])
        .limit(1)
        .with_score()
        .fetch_first(db)
        .await
        .expect("first")
        .expect("a row");
    let best = brute_force(
        &all,
        |_| true,
        |d| Some(cosine(&d.embedding[..], &[0.5, -0.5, 0.5, -0.5])),
        1,
    );
    assert_eq!((first.row.shelf.clone(), first.row.id), best[0]);

    // Euclidean, on an optional column: rows without a value are never returned.
    let p = Vector::new([0.25, -0.1]);
    let got = Doc::select()
        .ann_place(&p)
        .limit(8)
        .fetch_all(db)
        .await
        .expect("euclidean");
    let want = brute_force(
        &all,
        |_| true,
        |d| d.place.map(|v| euclidean_similarity(&v[..], &p[..])),
        8,
    );
    assert_eq!(keys(&got), want, "top 8 by euclidean distance");
    let scored = Doc::select()
        .ann_place(&p)
        .limit(3)
        .read_as::<DocId>()
        .with_score()
        .fetch_all(db)
        .await
        .expect("euclidean scores");
    for s in &scored {
        let d = all
            .iter()
            .find(|d| d.shelf == s.row.shelf && d.id == s.row.id)
            .expect("a known row");
        let expected = euclidean_similarity(&d.place.expect("a place")[..], &p[..]);
        assert!((f64::from(s.score) - expected).abs() < 1e-5);
    }

    // Dot product on unit vectors.
    let u = Vector::new(unit([0.3, 0.9, -0.2]));
    let got = Doc::select()
        .ann_unit(&u)
        .limit(6)
        .fetch_all(db)
        .await
        .expect("dot product");
    let want = brute_force(&all, |_| true, |d| Some(dot(&d.unit[..], &u[..])), 6);
    assert_eq!(keys(&got), want, "top 6 by dot product");

    // The model now asks for another similarity than the live index has: `validate` says
    // so, and the migrator refuses to leave the old index in place silently.
    db.execute_ddl(&format!("DROP INDEX {ks}.docs_by_unit"))
        .await
        .expect("drop index");
    db.execute_ddl(&format!(
        "CREATE INDEX docs_by_unit ON {ks}.vec_docs (unit) USING 'sai' \
         WITH OPTIONS = {{'similarity_function': 'COSINE'}}"
    ))
    .await
    .expect("recreate as cosine");
    let err = m.validate().await.expect_err("a different similarity");
    let text = err.to_string();
    assert!(
        text.contains("docs_by_unit") && text.contains("dot_product"),
        "{text}"
    );
    t.drop_all().await;
}

/// `SELECT similarity_<function>(v, ?), ..` in plain CQL on `vec_docs`, each score as the
/// driver reads a float (`Option<f32>`: null for a row without a vector).
async fn plain_similarities(
    db: &cassmodel::Db,
    selectors: &str,
    vectors: Vec<Vec<f32>>,
    shelf: Option<&str>,
) -> Vec<(Vec<Option<f32>>, String, i32)> {
    let ks = db.keyspace().expect("a keyspace");
    let filter = if shelf.is_some() {
        " WHERE shelf = ?"
    } else {
        ""
    };
    let cql = format!("SELECT {selectors}, shelf, id FROM {ks}.vec_docs{filter}");
    let prepared = db.session().prepare(cql.clone()).await.expect("prepare");
    let mut values: Vec<scylla::value::CqlValue> = vectors
        .into_iter()
        .map(|v| {
            scylla::value::CqlValue::Vector(
                v.into_iter().map(scylla::value::CqlValue::Float).collect(),
            )
        })
        .collect();
    values.extend(shelf.map(|s| scylla::value::CqlValue::Text(s.to_owned())));
    let mut pager = db
        .session()
        .execute_iter(prepared, values)
        .await
        .expect(&cql)
        .rows_stream::<scylla::value::Row>()
        .expect("rows");
    let mut out = Vec::new();
    while let Some(row) = futures::StreamExt::next(&mut pager).await {
        let mut columns = row.expect("a row").columns;
        let id = match columns.pop() {
            Some(Some(scylla::value::CqlValue::Int(i))) => i,
            other => panic!("id: {other:?}"),
        };
        let shelf = match columns.pop() {
            Some(Some(scylla::value::CqlValue::Text(s))) => s,
            other => panic!("shelf: {other:?}"),
        };
        let scores = columns
            .into_iter()
            .map(|c| match c {
                None => None,
                Some(scylla::value::CqlValue::Float(f)) => Some(f),
                other => panic!("score: {other:?}"),
            })
            .collect();
        out.push((scores, shelf, id));
    }
    out.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    out
}

/// Similarities of a query vector read beside the columns of any read, without a vector
/// search (`similarity_<field>(function, &query)`): on a column without an index, on an
/// optional column (`None` where the row has no vector), two at once, after a vector search
/// beside its own score, through the pager, and counted; each equal to the same selector in
/// plain CQL and to the value computed here.
#[tokio::test]
async fn similarities_read_beside_the_columns_equal_plain_cql() {
    let t = support::test_db("similarity").await;
    let db = &t.db;
    let m = Migrator::new(db, Models::new().table::<Doc>()).replication(Replication::Simple(1));
    if support::refused_before_cassandra_5(db, &m).await {
        return t.drop_all().await;
    }
    m.apply().await.expect("migrate");
    let all = docs();
    for d in &all {
        db.insert(d).await.expect("insert");
    }
    let doc = |shelf: &str, id: i32| {
        all.iter()
            .find(|d| d.shelf == shelf && d.id == id)
            .expect("a known row")
    };
    let close = |got: f32, want: f64| (f64::from(got) - want).abs() < 1e-5;
    let mut rng = Rng(7);
    let r: [f32; 5] = rng.vector();

    // On `raw`, which has no index: one partition, Euclidean.
    let got: Vec<Scored<DocId>> = Doc::select()
        .shelf("shelf1")
        .read_as::<DocId>()
        .similarity_raw(Similarity::Euclidean, &r)
        .fetch_all(db)
        .await
        .expect("similarity of raw");
    assert_eq!(got.len(), 25);
    let plain = plain_similarities(
        db,
        "similarity_euclidean(raw, ?)",
        vec![r.to_vec()],
        Some("shelf1"),
    )
    .await;
    assert_eq!(
        got.iter()
            .map(|s| (vec![Some(s.score)], s.row.shelf.clone(), s.row.id))
            .collect::<Vec<_>>(),
        plain
    );
    for s in &got {
        let want = euclidean_similarity(&doc(&s.row.shelf, s.row.id).raw[..], &r);
        assert!(close(s.score, want), "{} vs {want}", s.score);
    }

    // On an optional column, whole rows: `None` exactly where the row has no vector.
    let p = Vector::new([0.25, -0.1]);
    let got: Vec<Scored<Doc, Option<f32>>> = Doc::select()
        .shelf("shelf2")
        .similarity_place(Similarity::Cosine, &p)
        .fetch_all(db)
        .await
        .expect("similarity of place");
    assert_eq!(got.len(), 25);
    assert_eq!(got.iter().filter(|s| s.score.is_none()).count(), 7);
    for s in &got {
        assert_eq!(&s.row, doc("shelf2", s.row.id));
        match (s.score, s.row.place) {
            (None, None) => {}
            (Some(score), Some(v)) => {
                assert!(close(score, (1.0 + cosine(&v[..], &p[..])) / 2.0));
            }
            other => panic!("score and place disagree: {other:?}"),
        }
    }
    let plain = plain_similarities(
        db,
        "similarity_cosine(place, ?)",
        vec![p.to_vec()],
        Some("shelf2"),
    )
    .await;
    assert_eq!(
        got.iter()
            .map(|s| (vec![s.score], s.row.shelf.clone(), s.row.id))
            .collect::<Vec<_>>(),
        plain
    );

    // Two at once, the last one outside; through the pager (pages of 10), partition by
    // partition.
    let q: [f32; 4] = rng.vector();
    let u = unit(rng.vector::<3>());
    let mut rows: Vec<Scored<Scored<DocId>>> = Vec::new();
    for shelf in ["shelf0", "shelf1", "shelf2", "shelf3"] {
        let stream = Doc::select()
            .shelf(shelf)
            .read_as::<DocId>()
            .similarity_embedding(Similarity::Cosine, &q)
            .similarity_unit(Similarity::DotProduct, &u)
            .page_size(10)
            .fetch_stream(db)
            .await
            .expect("stream");
        let part: Vec<_> = futures::TryStreamExt::try_collect(stream)
            .await
            .expect("rows");
        rows.extend(part);
    }
    assert_eq!(rows.len(), 100);
    let mut got: Vec<_> = rows
        .iter()
        .map(|s| {
            (
                vec![Some(s.score), Some(s.row.score)],
                s.row.row.shelf.clone(),
                s.row.row.id,
            )
        })
        .collect();
    got.sort_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)));
    let plain = plain_similarities(
        db,
        "similarity_dot_product(unit, ?), similarity_cosine(embedding, ?)",
        vec![u.to_vec(), q.to_vec()],
        None,
    )
    .await;
    assert_eq!(got, plain);
    for s in &rows {
        let d = doc(&s.row.row.shelf, s.row.row.id);
        assert!(close(s.score, (1.0 + dot(&d.unit[..], &u)) / 2.0));
        assert!(close(
            s.row.score,
            (1.0 + cosine(&d.embedding[..], &q)) / 2.0
        ));
    }

    // After a vector search on `embedding`, the similarity of `raw` beside the search's own
    // score (`with_score`, outside): the search's order, both scores right.
    let got: Vec<Scored<Scored<DocId>>> = Doc::select()
        .ann_embedding(&q)
        .limit(5)
        .read_as::<DocId>()
        .similarity_raw(Similarity::Euclidean, &r)
        .with_score()
        .fetch_all(db)
        .await
        .expect("search with two scores");
    assert_eq!(
        got.iter()
            .map(|s| (s.row.row.shelf.clone(), s.row.row.id))
            .collect::<Vec<_>>(),
        brute_force(&all, |_| true, |d| Some(cosine(&d.embedding[..], &q)), 5)
    );
    for s in &got {
        let d = doc(&s.row.row.shelf, s.row.row.id);
        assert!(close(s.score, (1.0 + cosine(&d.embedding[..], &q)) / 2.0));
        assert!(close(s.row.score, euclidean_similarity(&d.raw[..], &r)));
    }

    // `read_as` after a score reads the projection alone.
    let plain_rows = Doc::select()
        .shelf("shelf0")
        .similarity_raw(Similarity::DotProduct, &r)
        .read_as::<DocId>()
        .fetch_all(db)
        .await
        .expect("read_as drops the score");
    assert_eq!(plain_rows.len(), 25);

    // A count ignores the score; a vector cosine cannot compare is refused before it is
    // sent, naming the function.
    let counted = Doc::select()
        .shelf("shelf3")
        .similarity_raw(Similarity::Euclidean, &r)
        .count_rows(db)
        .await
        .expect("count");
    assert_eq!(counted, 25);
    let err = Doc::select()
        .shelf("shelf3")
        .similarity_embedding(Similarity::Cosine, &[0.0; 4])
        .fetch_all(db)
        .await
        .expect_err("a zero vector has no cosine");
    let text = err.to_string();
    assert!(
        text.contains("every component is zero") && text.contains("similarity_cosine"),
        "{text}"
    );
    t.drop_all().await;
}

/// A table with a vector index of each similarity function, and a vector without one.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "vec_edges")]
struct Edge {
    #[partition_key]
    id: i32,
    #[cass(index)]
    cos: Vector<3>,
    #[cass(index(similarity = "dot_product"))]
    dot: Vector<3>,
    #[cass(index(similarity = "euclidean"))]
    euc: Option<Vector<3>>,
    /// No index: any bit pattern is stored and read back.
    raw: Vector<3>,
}

const FINE: Vector<3> = Vector::new([0.6, 0.8, 0.0]);

fn edge(id: i32) -> Edge {
    Edge {
        id,
        cos: FINE,
        dot: FINE,
        euc: Some(FINE),
        raw: FINE,
    }
}

/// Every vector a vector index cannot take is refused before the request (insert, update,
/// batch, ANN query vector), naming the table, the column, the rule and the component, and
/// nothing is written; the same vectors round-trip bit for bit in a column without an index,
/// and the rules of cosine alone (zero and vanishing vectors) do not touch the other
/// functions' columns.
#[tokio::test]
async fn vectors_an_index_cannot_take_are_refused_before_they_are_sent() {
    let t = support::test_db("vector_edges").await;
    let db = &t.db;
    let m = Migrator::new(db, Models::new().table::<Edge>()).replication(Replication::Simple(1));
    if support::refused_before_cassandra_5(db, &m).await {
        return t.drop_all().await;
    }
    m.apply().await.expect("migrate");
    let table = format!("{}.vec_edges", t.keyspace());

    let tiny = 2f32.powi(-75);
    let nan_payload = f32::from_bits(0xffc0_1234);
    // (vector, the rule's words, whether only cosine refuses it)
    let hostile: [([f32; 3], &str, bool); 9] = [
        ([f32::NAN, 0.0, 1.0], "component 0 is NaN", false),
        ([1.0, nan_payload, 0.0], "component 1 is NaN", false),
        ([1.0, 0.0, f32::INFINITY], "component 2 is inf", false),
        ([f32::NEG_INFINITY, 1.0, 0.0], "component 0 is -inf", false),
        ([1.0, f32::MAX, 0.0], "magnitude at most 1e17", false),
        ([1.0, 0.0, -1.5e17], "component 2 is -1.5e17", false),
        ([0.0, 0.0, 0.0], "every component is zero", true),
        ([0.0, -0.0, 0.0], "every component is zero", true),
        (
            [tiny, -tiny, f32::from_bits(1)],
            "squared length is zero",
            true,
        ),
    ];

    let mut id = 0;
    let mut next_id = || {
        id += 1;
        id
    };
    for (v, rule, cosine_only) in hostile {
        let v = Vector::new(v);
        for column in ["cos", "dot", "euc"] {
            let row = {
                let mut r = edge(next_id());
                match column {
                    "cos" => r.cos = v,
                    "dot" => r.dot = v,
                    _ => r.euc = Some(v),
                }
                r
            };
            let refuses = column == "cos" || !cosine_only;
            let check = |what: &str, err: cassmodel::Error| {
                let (tab, col, detail) = support::refused(&err);
                assert_eq!((tab, col), (table.as_str(), column), "{what}: {err}");
                assert!(detail.contains(rule), "{what} {v:?} on {column}: {detail}");
            };

            // Insert.
            match db.insert(&row).await {
                Err(e) if refuses => check("insert", e),
                Err(e) => panic!("insert {v:?} on {column}: {e}"),
                Ok(()) if refuses => panic!("insert {v:?} on {column} was not refused"),
                Ok(()) => {
                    let back = Edge::get(db, &row.id).await.expect("get").expect("row");
                    assert_eq!(back, row, "{column} takes {v:?}");
                    continue;
                }
            }
            assert_eq!(Edge::get(db, &row.id).await.expect("get"), None, "written");

            // Update of a written row: refused, the row unchanged.
            let id = row.id;
            let some_v = Some(v);
            db.insert(&edge(id)).await.expect("insert a fine row");
            let update = || {
                let u = Edge::update().id(&id);
                match column {
                    "cos" => u.set_cos(&v),
                    "dot" => u.set_dot(&v),
                    _ => u.set_euc(&some_v),
                }
            };
            check("update", update().execute(db).await.expect_err("update"));
            check(
                "batch update",
                Batch::logged()
                    .add(update())
                    .execute(db)
                    .await
                    .expect_err("batch update"),
            );
            let mut other = row.clone();
            other.id = next_id();
            check(
                "batch insert",
                Batch::unlogged()
                    .insert(&other)
                    .execute(db)
                    .await
                    .expect_err("batch insert"),
            );
            assert_eq!(
                Edge::get(db, &id).await.expect("get"),
                Some(edge(id)),
                "a refused update changed the row"
            );
            assert_eq!(Edge::get(db, &other.id).await.expect("get"), None);

            // The same vector as an ANN query vector.
            let q = Edge::select();
            let q = match column {
                "cos" => q.ann_cos(&v),
                "dot" => q.ann_dot(&v),
                _ => q.ann_euc(&v),
            };
            check("ann", q.limit(3).fetch_all(db).await.expect_err("ann"));
        }
    }

    // Without an index, every one of them round-trips bit for bit.
    for (v, _, _) in hostile {
        let mut row = edge(next_id());
        row.raw = Vector::new(v);
        db.insert(&row)
            .await
            .expect("an unindexed column takes any vector");
        let back = Edge::get(db, &row.id).await.expect("get").expect("row");
        assert_eq!(
            back.raw.map(f32::to_bits),
            v.map(f32::to_bits),
            "{v:?} read back as {:?}",
            back.raw
        );
    }
    // And a search with a fine vector still works.
    let found = Edge::select()
        .ann_cos(&FINE)
        .limit(3)
        .fetch_all(db)
        .await
        .expect("ann");
    assert!(!found.is_empty());
    t.drop_all().await;
}
