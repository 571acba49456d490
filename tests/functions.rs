//! User-defined functions and aggregates declared in the models (`#[derive(CassFunction)]`,
//! `#[derive(CassAggregate)]`): created by the plan, compared by `validate`, replaced when
//! their body changes, called in projections with their types checked at compile time; and
//! arithmetic between selectors. Every value read is compared with what plain CQL returns for
//! the same selector on the node, and with the value computed in Rust.

mod support;

use cassmodel::migrate::{Migrator, Models};
use cassmodel::{CassAggregate, CassFunction, CassProjection, CassTable, Db};

#[derive(CassTable, Debug, Clone, PartialEq)]
#[cass(table = "fn_ratings")]
struct Rating {
    #[partition_key]
    product: i32,
    #[clustering]
    user: i32,
    stars: i32,
    helpful: i64,
    total: i64,
}

/// `rating_ratio(count, total)`: a share, in Java.
#[derive(CassFunction)]
#[cass(returns = f64, body = "return (double) total / count;")]
struct RatingRatio {
    count: i32,
    total: i64,
}

/// The state of the mean: how many values, and their sum.
#[derive(CassFunction)]
#[cass(
    returns = (i32, i64),
    called_on_null_input,
    body = "if (stars != null) { state.setInt(0, state.getInt(0) + 1); \
            state.setLong(1, state.getLong(1) + stars.intValue()); } return state;"
)]
struct MeanState {
    state: (i32, i64),
    stars: i32,
}

/// The mean from the state; null for no value.
#[derive(CassFunction)]
#[cass(
    returns = f64,
    called_on_null_input,
    body = "if (state.getInt(0) == 0) return null; \
            return Double.valueOf((double) state.getLong(1) / state.getInt(0));"
)]
struct MeanFinal {
    state: (i32, i64),
}

/// `mean_stars(stars)`: the aggregate the published keyspace defines.
#[derive(CassAggregate)]
#[cass(state_function = MeanState, final_function = MeanFinal, initial = "(0, 0)")]
struct MeanStars {
    stars: i32,
}

/// Per row: a function of the models and arithmetic between casts (the published queries'
/// `CAST(a AS float) / CAST(b AS float)`).
#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Rating)]
struct RatingRow {
    user: i32,
    #[cass(select = RatingRatio(stars, total))]
    ratio: Option<f64>,
    #[cass(select = cast(helpful as float) / cast(total as float))]
    helpful_share: f32,
    #[cass(select = cast(stars as bigint) * 2 + total)]
    weighted: i64,
}

/// Per partition: the aggregate of the models beside a native one.
#[derive(CassProjection, Debug, Clone, PartialEq)]
#[cass(table = Rating)]
struct ProductStats {
    #[cass(select = MeanStars(stars))]
    mean: Option<f64>,
    #[cass(select = count(stars))]
    ratings: i64,
}

fn rows() -> Vec<Rating> {
    let mut out = Vec::new();
    for product in 1..=3 {
        for user in 1..=(product * 4) {
            out.push(Rating {
                product,
                user,
                stars: (user * 7 + product) % 5 + 1,
                helpful: i64::from(user % 3),
                total: i64::from(user + product),
            });
        }
    }
    out
}

fn models() -> Models {
    Models::new()
        .table::<Rating>()
        .function::<RatingRatio>()
        .function::<MeanStars>()
}

/// One value of plain CQL: `SELECT <selector> FROM <ks>.fn_ratings WHERE <restriction>`.
async fn plain<T>(db: &Db, ks: &str, selector: &str, restriction: &str) -> Vec<T>
where
    T: for<'f, 'm> cassmodel::scylla::deserialize::value::DeserializeValue<'f, 'm>,
{
    let cql = format!("SELECT {selector} FROM {ks}.fn_ratings WHERE {restriction}");
    db.session()
        .query_unpaged(cql.as_str(), ())
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .into_rows_result()
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .rows::<(T,)>()
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .map(|r| r.map(|(v,)| v))
        .collect::<Result<Vec<T>, _>>()
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
}

#[tokio::test]
async fn functions_and_aggregates_are_created_compared_and_read() {
    let t = support::test_db("functions").await;
    let (db, ks) = (&t.db, t.keyspace().to_owned());
    let migrator = Migrator::new(db, models());
    let plan = migrator.plan().await.expect("plan");
    let statements = plan.statements().join("\n");
    for expected in [
        format!("CREATE FUNCTION IF NOT EXISTS {ks}.mean_final (state tuple<int, bigint>)"),
        format!(
            "CREATE FUNCTION IF NOT EXISTS {ks}.mean_state (state tuple<int, bigint>, stars int)"
        ),
        format!("CREATE FUNCTION IF NOT EXISTS {ks}.rating_ratio (count int, total bigint)"),
        format!(
            "CREATE AGGREGATE IF NOT EXISTS {ks}.mean_stars (int) SFUNC mean_state STYPE \
             tuple<int, bigint> FINALFUNC mean_final INITCOND (0, 0)"
        ),
    ] {
        assert!(
            statements.contains(&expected),
            "{expected}\nnot in:\n{statements}"
        );
    }
    // Before `apply`, `validate` names each missing function; after, none.
    let missing = migrator.validate().await.expect_err("nothing created yet");
    for name in ["rating_ratio(int, bigint)", "mean_stars(int)"] {
        assert!(missing.to_string().contains(name), "{name} in: {missing}");
    }
    migrator.apply().await.expect("apply");
    migrator.validate().await.expect("validate after apply");
    assert!(migrator.plan().await.expect("plan").is_empty());

    support::insert_all(db, rows()).await;
    for product in 1..=3 {
        let read: Vec<RatingRow> = Rating::select()
            .product(&product)
            .read_as::<RatingRow>()
            .fetch_all(db)
            .await
            .expect("read RatingRow");
        let all = rows();
        let expected: Vec<&Rating> = all.iter().filter(|r| r.product == product).collect();
        assert_eq!(read.len(), expected.len());
        let restriction = format!("product = {product}");
        let ratios: Vec<Option<f64>> =
            plain(db, &ks, "rating_ratio(stars, total)", &restriction).await;
        let shares: Vec<f32> = plain(
            db,
            &ks,
            "CAST(helpful AS float) / CAST(total AS float)",
            &restriction,
        )
        .await;
        for (((row, r), ratio), share) in read.iter().zip(&expected).zip(ratios).zip(shares) {
            assert_eq!(row.user, r.user);
            assert_eq!(row.ratio, Some(r.total as f64 / f64::from(r.stars)));
            assert_eq!(row.ratio, ratio);
            assert_eq!(row.helpful_share, r.helpful as f32 / r.total as f32);
            assert_eq!(row.helpful_share, share);
            assert_eq!(row.weighted, i64::from(r.stars) * 2 + r.total);
        }
        let stats: ProductStats = Rating::select()
            .product(&product)
            .read_as::<ProductStats>()
            .fetch_first(db)
            .await
            .expect("read ProductStats")
            .expect("one row");
        let stars: Vec<i32> = expected.iter().map(|r| r.stars).collect();
        let mean = f64::from(stars.iter().sum::<i32>()) / stars.len() as f64;
        assert_eq!(stats.mean, Some(mean));
        assert_eq!(stats.ratings, stars.len() as i64);
        let plain_mean: Vec<Option<f64>> = plain(db, &ks, "mean_stars(stars)", &restriction).await;
        assert_eq!(plain_mean, vec![Some(mean)]);
    }
    t.drop_all_unmodelled().await;
}

/// `rating_ratio` with another body: the same signature, so `CREATE OR REPLACE`.
#[derive(CassFunction)]
#[cass(name = "rating_ratio", returns = f64, body = "return (double) total / count / 2;")]
struct HalfRatio {
    count: i32,
    total: i64,
}

/// `rating_ratio` with another result type: refused.
#[derive(CassFunction)]
#[cass(name = "rating_ratio", returns = String, body = "return \"\" + total / count;")]
struct TextRatio {
    count: i32,
    total: i64,
}

#[tokio::test]
async fn a_changed_function_is_replaced_and_a_changed_result_refused() {
    let t = support::test_db("functions_changed").await;
    let (db, ks) = (&t.db, t.keyspace().to_owned());
    Migrator::new(db, Models::new().function::<RatingRatio>())
        .apply()
        .await
        .expect("apply");
    // A function the models do not declare is left alone and listed.
    db.execute_ddl(&format!(
        "CREATE FUNCTION {ks}.by_hand (x int) RETURNS NULL ON NULL INPUT RETURNS int \
         LANGUAGE java AS 'return x;'"
    ))
    .await
    .expect("CREATE FUNCTION by hand");

    let changed = Migrator::new(db, Models::new().function::<HalfRatio>());
    let mismatches = changed.validate().await.expect_err("the body differs");
    assert!(
        mismatches.to_string().contains("rating_ratio(int, bigint)")
            && mismatches
                .to_string()
                .contains("CREATE OR REPLACE FUNCTION"),
        "{mismatches}"
    );
    let plan = changed.plan().await.expect("plan");
    assert_eq!(plan.steps.len(), 1, "{plan}");
    assert!(
        plan.steps[0].cql.starts_with(&format!(
            "CREATE OR REPLACE FUNCTION {ks}.rating_ratio (count int, total bigint)"
        )),
        "{plan}"
    );
    assert!(
        plan.to_string()
            .contains(&format!("function {ks}.by_hand(int)")),
        "{plan}"
    );
    changed.apply().await.expect("apply the new body");
    changed.validate().await.expect("validate");
    let body: Vec<String> = db
        .session()
        .query_unpaged(
            "SELECT body FROM system_schema.functions WHERE keyspace_name = ? \
             AND function_name = 'rating_ratio'",
            (ks.as_str(),),
        )
        .await
        .expect("read the body")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("text")
        .map(|r| r.map(|(b,)| b))
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(body, vec!["return (double) total / count / 2;".to_owned()]);

    let refused = Migrator::new(db, Models::new().function::<TextRatio>())
        .plan()
        .await
        .expect("plan");
    assert!(refused.steps.is_empty(), "{refused}");
    assert_eq!(refused.refused.len(), 1, "{refused}");
    assert!(
        refused.refused[0].problem.contains("result type differs"),
        "{refused}"
    );
    t.drop_all_unmodelled().await;
}

/// On the password-protected node, which runs no user-defined function
/// (`user_defined_functions_enabled: false`): the server refuses `CREATE FUNCTION`, and the
/// plan refuses it first, naming the setting.
#[tokio::test]
async fn functions_are_refused_by_name_where_the_cluster_disables_them() {
    let cfg = support::password_node().await;
    let (user, password) = cassmodel_node::SUPERUSER;
    let db = cassmodel::ConnectOptions::new()
        .contact_points([cfg.contact_point()])
        .credentials(user, password)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("superuser login: {e}"));
    let ks = support::unique_name("fn_off");
    db.create_keyspace(&ks, &cassmodel::Replication::Simple(1))
        .await
        .unwrap_or_else(|e| panic!("CREATE KEYSPACE {ks}: {e}"));
    let db = db.with_keyspace(&ks).expect("keyspace name");
    let server = db
        .execute_ddl(&format!(
            "CREATE FUNCTION {ks}.f (x int) RETURNS NULL ON NULL INPUT RETURNS int \
             LANGUAGE java AS 'return x;'"
        ))
        .await
        .expect_err("the node runs no user-defined function");
    assert!(
        server
            .to_string()
            .contains("user_defined_functions_enabled"),
        "{server}"
    );

    let plan = Migrator::new(&db, Models::new().table::<Rating>().function::<MeanStars>())
        .plan()
        .await
        .expect("plan");
    let names: Vec<&str> = plan.refused.iter().map(|r| r.table.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("{ks}.mean_final(tuple<int, bigint>)"),
            format!("{ks}.mean_state(tuple<int, bigint>, int)"),
            format!("{ks}.mean_stars(int)"),
        ],
        "{plan}"
    );
    for r in &plan.refused {
        assert!(
            r.problem
                .contains("`user_defined_functions_enabled` is false"),
            "{r}"
        );
        assert!(
            r.advice.contains("user_defined_functions_enabled: true"),
            "{r}"
        );
    }
    // The table is planned; nothing is applied while anything is refused.
    assert!(
        plan.statements().iter().any(|s| s.contains("fn_ratings")),
        "{plan}"
    );
    db.execute_ddl(&format!("DROP KEYSPACE {ks}"))
        .await
        .expect("drop");
}
