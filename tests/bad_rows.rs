//! Rows that do not fit their struct give an error that names the table, the column and the
//! expected and actual types; never a panic, never a silently wrong value. Each case builds
//! the mismatch for real on the node with hand-written CQL.

mod support;

use cassmodel::{CassTable, Error, ErrorKind, errors::RowError};

/// The struct as the code expects the table to be.
#[derive(CassTable, Debug, PartialEq)]
#[cass(table = "accounts")]
struct Account {
    #[partition_key]
    id: i32,
    balance: i64,
    owner: Option<String>,
}

#[tokio::test]
async fn null_in_a_non_option_column() {
    let t = support::test_db("bad_null").await;
    t.db.create_table::<Account>().await.expect("create");
    let ks = t.keyspace().to_owned();
    // A row written by another program, without `balance`.
    t.db.execute_ddl(&format!(
        "INSERT INTO {ks}.accounts (id, owner) VALUES (1, 'ann')"
    ))
    .await
    .expect("insert");
    let err = Account::get(&t.db, &1)
        .await
        .expect_err("null balance must not read");
    match &err {
        Error::Row(RowError::Null {
            table,
            column,
            expected,
            rust_type,
        }) => {
            assert_eq!(table, &format!("{ks}.accounts"));
            assert_eq!(column, "balance");
            assert_eq!(expected, "bigint");
            assert_eq!(*rust_type, "i64");
        }
        other => panic!("expected RowError::Null, got {other:?}"),
    }
    // The struct is at fault, not the schema: a kind of its own, not `SchemaMismatch`
    // (which sends the user to migrate).
    assert_eq!(err.kind(), ErrorKind::UnexpectedNull, "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("balance") && msg.contains("make the field an `Option<i64>`"),
        "{msg}"
    );
    // A null in an `Option` column is fine.
    t.db.execute_ddl(&format!(
        "INSERT INTO {ks}.accounts (id, balance) VALUES (2, 5)"
    ))
    .await
    .expect("insert");
    assert_eq!(
        Account::get(&t.db, &2).await.expect("read"),
        Some(Account {
            id: 2,
            balance: 5,
            owner: None
        })
    );
    t.drop_all().await;
}

#[tokio::test]
async fn column_type_differs_from_the_struct() {
    let t = support::test_db("bad_type").await;
    let ks = t.keyspace().to_owned();
    // The live table says `balance` is text; the struct says i64 (bigint).
    t.db.execute_ddl(&format!(
        "CREATE TABLE {ks}.accounts (id int PRIMARY KEY, balance text, owner text)"
    ))
    .await
    .expect("create");
    t.db.execute_ddl(&format!(
        "INSERT INTO {ks}.accounts (id, balance, owner) VALUES (1, 'lots', 'ann')"
    ))
    .await
    .expect("insert");

    let err = Account::get(&t.db, &1).await.expect_err("text is not i64");
    match &err {
        Error::Row(RowError::Type {
            table,
            column,
            expected,
            rust_type,
            actual,
        }) => {
            assert_eq!(table, &format!("{ks}.accounts"));
            assert_eq!(column, "balance");
            assert_eq!(expected, "bigint");
            assert_eq!(*rust_type, "i64");
            assert_eq!(actual, "text");
        }
        other => panic!("expected RowError::Type, got {other:?}"),
    }

    // Writing the struct into that table fails too, naming the column.
    let err =
        t.db.insert(&Account {
            id: 2,
            balance: 10,
            owner: None,
        })
        .await
        .expect_err("i64 cannot be written to text");
    let written_as = |err: &Error| match err {
        Error::Row(RowError::Value {
            table,
            column,
            rust_type,
            ..
        }) => (table.clone(), column.clone(), *rust_type),
        other => panic!("expected RowError::Value, got {other:?}"),
    };
    let expected = (format!("{ks}.accounts"), "balance".to_owned(), "i64");
    assert_eq!(written_as(&err), expected, "{err}");
    assert!(
        err.to_string().contains(&format!("`{ks}.accounts`")),
        "{err}"
    );
    assert!(err.is_schema_mismatch(), "{err}");
    // The same through an UPDATE, whose values are bound by the query builder.
    let err = Account::update()
        .set_balance(&10)
        .id(&2)
        .execute(&t.db)
        .await
        .expect_err("i64 cannot be written to text");
    assert_eq!(written_as(&err), expected, "{err}");
    t.drop_all().await;
}

#[tokio::test]
async fn column_missing_from_the_table() {
    let t = support::test_db("bad_missing").await;
    let ks = t.keyspace().to_owned();
    t.db.execute_ddl(&format!(
        "CREATE TABLE {ks}.accounts (id int PRIMARY KEY, balance bigint)"
    ))
    .await
    .expect("create");
    let err = Account::get(&t.db, &1).await.expect_err("no owner column");
    let msg = err.to_string();
    assert!(matches!(err, Error::Prepare { .. }), "{err:?}");
    assert!(msg.contains("owner") && msg.contains("accounts"), "{msg}");
    t.drop_all().await;
}

/// The struct used with hand-written CQL on the raw driver: columns are matched by name and
/// position, and a mismatch says which.
#[tokio::test]
async fn raw_select_in_another_column_order() {
    let t = support::test_db("bad_order").await;
    t.db.create_table::<Account>().await.expect("create");
    let ks = t.keyspace().to_owned();
    t.db.insert(&Account {
        id: 1,
        balance: 3,
        owner: None,
    })
    .await
    .expect("insert");
    let res =
        t.db.session()
            .query_unpaged(format!("SELECT id, owner, balance FROM {ks}.accounts"), ())
            .await
            .expect("select")
            .into_rows_result()
            .expect("rows");
    let err = Error::from(res.rows::<Account>().expect_err("wrong order"));
    match err {
        Error::Row(RowError::ColumnName {
            position,
            expected,
            actual,
            ..
        }) => {
            assert_eq!(
                (position, expected, actual.as_str()),
                (1, "balance", "owner")
            );
        }
        other => panic!("expected RowError::ColumnName, got {other:?}"),
    }
    t.drop_all().await;
}

/// A user-defined type as the code expects it.
#[derive(cassmodel::CassUdt, Debug, PartialEq)]
#[cass(name = "addr")]
struct Addr {
    street: String,
    zip: i32,
}

#[derive(CassTable, Debug, PartialEq)]
#[cass(table = "homes")]
struct Home {
    #[partition_key]
    id: i32,
    addr: Addr,
}

/// A field of a user-defined type whose type differs on the server: the column's type is
/// `addr` on both sides, so the error is not "expects `addr` but has `addr`", but says which
/// field of which type (named as a type, with its keyspace, not as a table) does not fit.
#[tokio::test]
async fn udt_field_type_differs_from_the_struct() {
    let t = support::test_db("bad_udt").await;
    let ks = t.keyspace().to_owned();
    t.db.execute_ddl(&format!("CREATE TYPE {ks}.addr (street text, zip text)"))
        .await
        .expect("type");
    t.db.execute_ddl(&format!(
        "CREATE TABLE {ks}.homes (id int PRIMARY KEY, addr addr)"
    ))
    .await
    .expect("table");
    t.db.execute_ddl(&format!(
        "INSERT INTO {ks}.homes (id, addr) VALUES (1, {{street: 'Main', zip: '0123'}})"
    ))
    .await
    .expect("insert");

    let err = Home::get(&t.db, &1)
        .await
        .expect_err("a text zip is not i32");
    let field = format!("type `{ks}.addr`, field `zip` (Rust `i32`)");
    match &err {
        Error::Row(RowError::Unreadable {
            table,
            column,
            cql_type,
            reason,
            ..
        }) => {
            assert_eq!(table, &format!("{ks}.homes"));
            assert_eq!(column, "addr");
            assert_eq!(cql_type, "addr");
            assert_eq!(
                reason,
                &format!("{field}: the struct expects CQL type `int`, but the type has `text`")
            );
        }
        other => panic!("expected RowError::Unreadable, got {other:?}"),
    }
    assert!(err.is_schema_mismatch(), "{err}");

    // Writing the struct names the same field, and what the driver refused, in CQL's words.
    let home = Home {
        id: 2,
        addr: Addr {
            street: "Side".into(),
            zip: 7,
        },
    };
    let err =
        t.db.insert(&home)
            .await
            .expect_err("an i32 zip is not text");
    match &err {
        Error::Row(RowError::Value { column, detail, .. }) => {
            assert_eq!(column, "addr");
            assert_eq!(
                detail,
                &format!(
                    "{field}: Rust `i32` cannot be written as CQL `text`: it is written as `int`"
                )
            );
        }
        other => panic!("expected RowError::Value, got {other:?}"),
    }
    t.drop_all().await;
}
