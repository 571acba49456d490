//! What Cassandra 5.0 added (storage-attached and vector indexes, the vector type, masked
//! columns), on whichever Cassandra the suite runs against (`CASSMODEL_CASSANDRA_VERSION`,
//! `cargo xtask test --cassandra 4.1.10`). Before 5.0: `plan`, `apply` and `validate` refuse
//! the models with an error that names each use and the server's version, and create
//! nothing; the calls that use them fail with [`ErrorKind::Unsupported`], naming the feature
//! and the version, never the server's syntax error; what 4.1 has works beside them. On 5.0
//! and later: the same models migrate and the same calls return the rows written.

mod support;
use support::migrator;

use cassmodel::migrate::{MigrationError, Models};
use cassmodel::value::Vector;
use cassmodel::{CassTable, Db, ErrorKind, schema::ServerVersion, schema::Similarity};

/// A table 4.1 has, with an index 4.1 lacks.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "ver_shelves")]
struct Shelf {
    #[partition_key]
    shelf: String,
    #[clustering(asc)]
    id: i32,
    #[cass(index)]
    topic: String,
}

/// A vector column and its index.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "ver_docs")]
struct VecDoc {
    #[partition_key]
    shelf: String,
    #[clustering(asc)]
    id: i32,
    #[cass(index(similarity = "euclidean"))]
    embedding: Vector<3>,
}

/// A masked column.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "ver_customers")]
struct Customer {
    #[partition_key]
    id: i32,
    #[cass(masked = mask_inner(1, null))]
    name: String,
}

/// Nothing 4.1 lacks.
#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "ver_plain")]
struct Plain {
    #[partition_key]
    id: i32,
    #[clustering(desc)]
    at: i64,
    note: Option<String>,
}

fn five_zero_models() -> Models {
    Models::new()
        .table::<Shelf>()
        .table::<VecDoc>()
        .table::<Customer>()
        .table::<Plain>()
}

/// The release the node that answers tells, read with plain CQL.
async fn release_version(db: &Db) -> String {
    let (v,): (String,) =
        support::plain_row(db, "SELECT release_version FROM system.local", ()).await;
    v
}

async fn tables_in(db: &Db, ks: &str) -> Vec<String> {
    let rows: Vec<(String,)> = support::plain_rows(
        db,
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?",
        (ks,),
    )
    .await;
    rows.into_iter().map(|(t,)| t).collect()
}

#[tokio::test]
async fn what_cassandra_5_added_is_refused_by_name_before_5_and_works_after() {
    let t = support::test_db("versions").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();

    // The version the Db reads is the node's release (the oldest of the nodes: the suite's
    // nodes all run one release).
    let release = release_version(db).await;
    let server = support::server(db).await;
    assert_eq!(Some(server), ServerVersion::parse(&release), "{release}");
    eprintln!("server: Cassandra {server} (release_version {release})");

    let q = [0.5f32, -0.25, 1.0];
    let plain = Plain {
        id: 1,
        at: 7,
        note: Some("on any version".into()),
    };
    let shelf = Shelf {
        shelf: "a".into(),
        id: 1,
        topic: "cql".into(),
    };
    let doc = VecDoc {
        shelf: "a".into(),
        id: 1,
        embedding: Vector::from(q),
    };

    if server < ServerVersion::CASSANDRA_5_0 {
        // plan, validate and apply refuse, naming each use and the version; nothing is made.
        let m = migrator(db, five_zero_models());
        let refused = |e: MigrationError| {
            let text = e.to_string();
            assert!(
                matches!(e, MigrationError::Unsupported { .. }),
                "not Unsupported: {text}"
            );
            for expected in [
                format!("the cluster runs Cassandra {server}"),
                "Cassandra 5.0".to_owned(),
                format!(
                    "table `{ks}.ver_shelves`: the storage-attached index (SAI) `ver_shelves_topic_idx` on column `topic`"
                ),
                format!(
                    "table `{ks}.ver_docs`: the vector type of column `embedding` (vector<float, 3>)"
                ),
                format!(
                    "table `{ks}.ver_docs`: the vector index `ver_docs_embedding_idx` on column `embedding`"
                ),
                format!(
                    "table `{ks}.ver_customers`: the mask of column `name` (dynamic data masking, MASKED WITH mask_inner(1, null))"
                ),
            ] {
                assert!(
                    text.contains(&expected),
                    "{expected:?} missing from:\n{text}"
                );
            }
            assert!(!text.contains("ver_plain"), "{text}");
        };
        refused(m.plan().await.expect_err("plan"));
        refused(m.validate().await.expect_err("validate"));
        refused(m.apply().await.expect_err("apply"));
        assert_eq!(tables_in(db, &ks).await, Vec::<String>::new());

        // What 4.1 has migrates and works beside them.
        let report = migrator(db, Models::new().table::<Plain>())
            .apply()
            .await
            .expect("a table without 5.0 features");
        assert_eq!(report.applied.len(), 1, "{report:?}");
        db.insert(&plain).await.expect("insert");
        let got = Plain::select().id(&1).fetch_all(db).await.expect("read");
        assert_eq!(got, std::slice::from_ref(&plain));

        // At the call: a read through an index the server cannot have (the table made by
        // hand, without its index).
        db.execute_ddl(&format!(
            "CREATE TABLE {ks}.ver_shelves (shelf text, id int, topic text, \
             PRIMARY KEY (shelf, id))"
        ))
        .await
        .expect("the table by hand");
        db.insert(&shelf).await.expect("insert a shelf");
        let rows = Shelf::select()
            .shelf("a")
            .fetch_all(db)
            .await
            .expect("by key");
        assert_eq!(rows, std::slice::from_ref(&shelf));
        let unsupported = |e: cassmodel::Error, feature: &str| {
            let text = e.to_string();
            assert_eq!(e.kind(), ErrorKind::Unsupported, "{text}");
            assert!(
                text.starts_with(&format!(
                    "{feature} needs Cassandra 5.0 or later, and the cluster runs Cassandra {server}"
                )),
                "{text}"
            );
        };
        unsupported(
            Shelf::select()
                .topic("cql")
                .fetch_all(db)
                .await
                .expect_err("SAI read"),
            "a read through the storage-attached index `ver_shelves_topic_idx` on column `topic`",
        );
        // The vector table cannot exist before 5.0: a search, a similarity and a write.
        unsupported(
            VecDoc::select()
                .ann_embedding(&q)
                .limit(3)
                .fetch_all(db)
                .await
                .expect_err("ANN"),
            "a vector search (ORDER BY embedding ANN OF ?)",
        );
        unsupported(
            VecDoc::select()
                .shelf("a")
                .similarity_embedding(Similarity::Cosine, &q)
                .fetch_all(db)
                .await
                .expect_err("similarity"),
            "the similarity function similarity_cosine(embedding, ?)",
        );
        unsupported(
            db.insert(&doc).await.expect_err("a vector write"),
            "the vector type of column `embedding` (vector<float, 3>)",
        );
    } else {
        // The same models migrate (each index and the mask among the steps) and the same
        // calls return the rows written.
        let m = migrator(db, five_zero_models());
        let plan = m.plan().await.expect("plan");
        let cql = plan.cql();
        for expected in [
            "ver_shelves_topic_idx ON",
            "ver_docs_embedding_idx ON",
            "vector<float, 3>",
            "MASKED WITH mask_inner(1, null)",
        ] {
            assert!(cql.contains(expected), "{expected:?} missing from:\n{cql}");
        }
        m.apply().await.expect("apply");
        m.validate().await.expect("validate");
        db.insert(&plain).await.expect("insert");
        db.insert(&shelf).await.expect("insert a shelf");
        db.insert(&doc).await.expect("insert a doc");
        let got = Plain::select().id(&1).fetch_all(db).await.expect("read");
        assert_eq!(got, [plain]);
        let got = Shelf::select()
            .topic("cql")
            .fetch_all(db)
            .await
            .expect("SAI");
        assert_eq!(got, [shelf]);
        let got = VecDoc::select()
            .ann_embedding(&q)
            .limit(3)
            .fetch_all(db)
            .await
            .expect("ANN");
        assert_eq!(got, std::slice::from_ref(&doc));
        let got = VecDoc::select()
            .shelf("a")
            .similarity_embedding(Similarity::Cosine, &q)
            .fetch_all(db)
            .await
            .expect("similarity");
        assert_eq!(got.len(), 1);
        assert!((got[0].score - 1.0).abs() < 1e-6, "{}", got[0].score);
        assert_eq!(got[0].row, doc);
    }
    t.drop_all().await;
}
