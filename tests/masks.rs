//! Masked columns (Cassandra 5.0 dynamic data masking): declared on the field, created with
//! the table, compared by `validate` and `plan` with `system_schema.column_masks`, changed
//! by `plan`, and dropped only when named (`allow_unmask`, `--allow-unmask`); and read by a
//! role without `UNMASK` (masked values) and with it.

mod support;
use support::migrator;

use cassmodel::migrate::Models;
use cassmodel::{ConnectOptions, Db, Replication};
use cassmodel_node::{NodeConfig, SUPERUSER};

mod v1 {
    use cassmodel::CassTable;

    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "masked_customers")]
    pub struct Customer {
        #[partition_key]
        pub id: i32,
        #[cass(masked = mask_inner(1, null))]
        pub name: String,
        #[cass(masked = mask_default())]
        pub age: i32,
        #[cass(masked = mask_replace("hidden"))]
        pub email: String,
        #[cass(masked = mask_null())]
        pub phone: Option<String>,
        pub note: String,
    }
}

mod v2 {
    use cassmodel::CassTable;

    /// `name` masked otherwise, `email` no more, `note` masked now.
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "masked_customers")]
    pub struct Customer {
        #[partition_key]
        pub id: i32,
        #[cass(masked = mask_outer(2, 1, "#"))]
        pub name: String,
        #[cass(masked = mask_default())]
        pub age: i32,
        pub email: String,
        #[cass(masked = mask_null())]
        pub phone: Option<String>,
        #[cass(masked = mask_inner(null, 2))]
        pub note: String,
    }
}

mod adopted {
    use cassmodel::CassTable;

    /// `masked_customers` as models written without its masks (a keyspace adopted as it is).
    #[derive(CassTable, Debug, Clone, PartialEq)]
    #[cass(table = "masked_customers")]
    pub struct Customer {
        #[partition_key]
        pub id: i32,
        pub name: String,
        pub age: i32,
        pub email: String,
        pub phone: Option<String>,
        pub note: String,
    }
}

/// `(column, function, argument values)` of a mask in `system_schema.column_masks`.
type MaskRow = (String, String, Option<Vec<Option<String>>>);

/// The masks of `masked_customers` in `ks`.
async fn masks(db: &Db, ks: &str) -> Vec<MaskRow> {
    let mut out: Vec<MaskRow> = support::plain_rows(
        db,
        "SELECT column_name, function_name, function_argument_values \
             FROM system_schema.column_masks WHERE keyspace_name = ? AND table_name = ?",
        (ks, "masked_customers"),
    )
    .await;
    out.sort();
    out
}

#[tokio::test]
async fn masks_are_created_validated_changed_and_dropped() {
    let t = support::test_db("masks_plan").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    let m1 = migrator(db, Models::new().table::<v1::Customer>());
    if support::refused_before_cassandra_5(db, &m1).await {
        return t.drop_all().await;
    }
    m1.apply().await.expect("v1");
    m1.validate().await.expect("v1 validates");
    assert!(m1.plan().await.expect("plan").is_empty());
    let found = masks(db, &ks).await;
    let functions: Vec<(&str, &str)> = found
        .iter()
        .map(|(c, f, _)| (c.as_str(), f.as_str()))
        .collect();
    assert_eq!(
        functions,
        [
            ("age", "mask_default"),
            ("email", "mask_replace"),
            ("name", "mask_inner"),
            ("phone", "mask_null")
        ]
    );

    // The next model: the plan changes, adds and drops masks (the drop allowed by name), and
    // nothing else.
    let m2 = migrator(db, Models::new().table::<v2::Customer>()).allow_unmask(
        &ks,
        "masked_customers",
        "email",
    );
    let mismatches = m2.validate().await.expect_err("v2 does not match yet");
    let text = mismatches.to_string();
    assert!(text.contains("email") && text.contains("note"), "{text}");
    let plan = m2.plan().await.expect("plan");
    assert_eq!(
        plan.statements(),
        [
            format!(
                "ALTER TABLE {ks}.masked_customers ALTER name MASKED WITH mask_outer(2, 1, '#')"
            ),
            format!("ALTER TABLE {ks}.masked_customers ALTER email DROP MASKED"),
            format!("ALTER TABLE {ks}.masked_customers ALTER note MASKED WITH mask_inner(null, 2)"),
        ]
    );
    m2.apply().await.expect("v2");
    m2.validate().await.expect("v2 validates");
    assert!(m2.plan().await.expect("plan").is_empty());
    let functions: Vec<String> = masks(db, &ks)
        .await
        .into_iter()
        .map(|(c, f, _)| format!("{c} {f}"))
        .collect();
    assert_eq!(
        functions,
        [
            "age mask_default",
            "name mask_outer",
            "note mask_inner",
            "phone mask_null"
        ]
    );
    t.drop_all().await;
}

async fn login(cfg: &NodeConfig, user: &str, password: &str, ks: &str) -> Db {
    ConnectOptions::new()
        .contact_points([cfg.contact_point()])
        .credentials(user, password)
        .keyspace(ks)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("login as {user}: {e}"))
}

#[tokio::test]
async fn a_role_without_unmask_reads_masked_values() {
    let cfg = support::password_node().await;
    let ks = support::unique_name("masks_roles");
    let role = support::unique_name("reader");
    let password = support::unique_name("secret");
    let admin = login(&cfg, SUPERUSER.0, SUPERUSER.1, "system").await;
    admin
        .create_keyspace(&ks, &Replication::Simple(1))
        .await
        .expect("keyspace");
    let admin = admin.with_keyspace(&ks).expect("keyspace name");
    let m = migrator(&admin, Models::new().table::<v1::Customer>());
    if support::refused_before_cassandra_5(&admin, &m).await {
        let drop = format!("DROP KEYSPACE {ks}");
        return admin.execute_ddl(&drop).await.expect("drop the keyspace");
    }
    m.apply().await.expect("create");
    let ada = v1::Customer {
        id: 1,
        name: "Ada Lovelace".into(),
        age: 36,
        email: "ada@example.org".into(),
        phone: Some("555 0100".into()),
        note: "first programmer".into(),
    };
    admin.insert(&ada).await.expect("insert");
    for cql in [
        format!("CREATE ROLE {role} WITH LOGIN = true AND PASSWORD = '{password}'"),
        format!("GRANT SELECT ON KEYSPACE {ks} TO {role}"),
    ] {
        admin
            .execute_ddl(&cql)
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
    }

    let reader = login(&cfg, &role, &password, &ks).await;
    let masked = v1::Customer::get(&reader, &1)
        .await
        .expect("read as the reader")
        .expect("the row");
    assert_eq!(
        masked,
        v1::Customer {
            id: 1,
            name: "A***********".into(),
            age: 0,
            email: "hidden".into(),
            phone: None,
            note: "first programmer".into(),
        }
    );
    // The superuser sees the values.
    assert_eq!(
        v1::Customer::get(&admin, &1).await.expect("read"),
        Some(ada.clone())
    );

    let grant = format!("GRANT UNMASK ON KEYSPACE {ks} TO {role}");
    admin
        .execute_ddl(&grant)
        .await
        .unwrap_or_else(|e| panic!("{grant}: {e}"));
    let clear = v1::Customer::get(&reader, &1)
        .await
        .expect("read")
        .expect("the row");
    assert_eq!(clear, ada);

    for cql in [format!("DROP KEYSPACE {ks}"), format!("DROP ROLE {role}")] {
        admin
            .execute_ddl(&cql)
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
    }
}

#[tokio::test]
async fn a_mask_the_models_do_not_declare_is_dropped_only_when_named() {
    let t = support::test_db("masks_adopted").await;
    let db = &t.db;
    let ks = t.keyspace().to_owned();
    let masked = migrator(db, Models::new().table::<v1::Customer>());
    if support::refused_before_cassandra_5(db, &masked).await {
        return t.drop_all().await;
    }
    masked.apply().await.expect("the masked table");

    // Models without the masks: no statement exposes a column.
    let adopted = migrator(db, Models::new().table::<adopted::Customer>());
    let plan = adopted.plan().await.expect("plan");
    assert!(
        plan.statements().iter().all(|s| !s.contains("DROP MASKED")),
        "a plan without an opt-in drops masks:\n{plan}"
    );
    // Each mask is refused by name, with the two ways out: declare it, or expose by name.
    let refused: Vec<&str> = plan
        .refused
        .iter()
        .filter_map(|r| r.column.as_deref())
        .collect();
    assert_eq!(refused, ["name", "age", "email", "phone"], "{plan}");
    let email = plan.refused[2].to_string();
    assert!(
        email.contains("cluster: email text MASKED WITH mask_replace('hidden')")
            && email.contains("#[cass(masked = mask_replace(\"hidden\"))]")
            && email.contains(&format!("--allow-unmask {ks}.masked_customers.email")),
        "{email}"
    );
    adopted
        .apply()
        .await
        .expect_err("refused: nothing is applied");
    // `validate` says what each side has.
    let text = adopted
        .validate()
        .await
        .expect_err("masks differ")
        .to_string();
    assert!(
        text.contains(
            "`email`: the models expect `email text (no mask)`, the cluster has `email text \
             MASKED WITH mask_replace('hidden')`"
        ),
        "{text}"
    );
    assert_eq!(masks(db, &ks).await.len(), 4, "every mask is still there");

    // One column named: its mask alone is planned to be dropped, the others still refused.
    let one = adopted
        .clone()
        .allow_unmask(&ks, "masked_customers", "email");
    let plan = one.plan().await.expect("plan");
    assert_eq!(
        plan.statements(),
        [format!(
            "ALTER TABLE {ks}.masked_customers ALTER email DROP MASKED"
        )]
    );
    assert_eq!(plan.refused.len(), 3, "{plan}");

    // The migration command: refused without the flag, planned with it.
    let email = format!("{ks}.masked_customers.email");
    let (exit, out) = cli(&["plan", "--keyspace", &ks]).await;
    assert_eq!(exit, cassmodel_cli::Exit::Refused, "{out}");
    let (exit, out) = cli(&["plan", "--keyspace", &ks, "--allow-unmask", &email]).await;
    assert_eq!(
        exit,
        cassmodel_cli::Exit::Refused,
        "three masks still refused: {out}"
    );
    assert!(
        out.contains("-- 1. EXPOSES DATA: drop the mask mask_replace('hidden') of column email"),
        "{out}"
    );

    // Every column named: the masks are dropped, and the plan's text says so loudly.
    let unmask_all = ["name", "age", "phone"]
        .into_iter()
        .fold(one, |m, c| m.allow_unmask(&ks, "masked_customers", c));
    let plan = unmask_all.plan().await.expect("plan");
    assert!(plan.refused.is_empty(), "{plan}");
    assert_eq!(plan.steps.len(), 4, "{plan}");
    assert!(plan.steps.iter().all(|s| s.exposes_data()), "{plan}");
    let text = plan.to_string();
    assert!(
        text.starts_with("-- WARNING: step(s) 1, 2, 3, 4 drop a column's mask")
            && text.contains(&format!(
                "-- 3. EXPOSES DATA: drop the mask mask_replace('hidden') of column email of \
                 {ks}.masked_customers (allowed by name)"
            )),
        "{text}"
    );
    unmask_all.apply().await.expect("the masks dropped");
    unmask_all.validate().await.expect("the cluster matches");
    assert_eq!(masks(db, &ks).await, Vec::<MaskRow>::new());
    t.drop_all().await;
}

/// The migration command of the adopted models (`migrate <args>`), on the test's node.
async fn cli(args: &[&str]) -> (cassmodel_cli::Exit, String) {
    support::migrate_command(Models::new().table::<adopted::Customer>(), args).await
}
