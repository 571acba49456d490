//! Hygiene: the code `#[derive(CassTable)]` and `#[derive(CassUdt)]` generate names every
//! standard item by absolute path, so it compiles in a module that shadows the prelude.

mod shadowed {
    #![allow(dead_code)]

    use cassmodel::value::Timeuuid;
    use cassmodel::{CassTable, CassUdt};

    // Unrelated local items under the prelude's names, in both namespaces where the prelude
    // item has both (a struct named like a variant shadows its constructor too).
    pub struct Result;
    pub struct Option;
    pub struct Vec;
    pub struct String;
    pub struct Box;
    pub struct Some(pub u8);
    pub struct None;
    pub struct Ok;
    pub struct Err;
    #[allow(non_camel_case_types)]
    pub struct usize;
    #[allow(non_camel_case_types)]
    pub struct bool;

    // The shadowing is real: here these names are the local items.
    const _: (
        Result,
        Option,
        Vec,
        String,
        Box,
        Some,
        None,
        Ok,
        Err,
        usize,
        bool,
    ) = (
        Result,
        Option,
        Vec,
        String,
        Box,
        Some(0),
        None,
        Ok,
        Err,
        usize,
        bool,
    );

    #[derive(CassUdt)]
    #[cass(name = "postal_address")]
    pub struct Address {
        pub street: ::std::string::String,
        pub zip: i32,
    }

    #[derive(CassTable)]
    #[cass(table = "letters")]
    pub struct Letter {
        #[partition_key]
        pub sender: ::uuid::Uuid,
        #[clustering(desc)]
        pub sent_at: Timeuuid,
        #[cass(static, index(name = "letters_by_sender"))]
        pub sender_name: ::std::option::Option<::std::string::String>,
        #[cass(name = "dest")]
        pub to: Address,
        #[cass(index(values))]
        pub lines: ::std::vec::Vec<::std::string::String>,
        #[cass(frozen)]
        pub history: ::std::vec::Vec<Address>,
    }
}

use cassmodel::{Table, model::Udt, schema::ColumnKind};
use shadowed::{Address, Letter};

#[test]
fn derives_work_where_the_prelude_is_shadowed() {
    let s = Letter::schema();
    assert_eq!(s.name, "letters");
    let columns: Vec<(&str, String, ColumnKind)> = s
        .columns
        .iter()
        .map(|c| (c.name, c.cql_type.to_string(), c.kind))
        .collect();
    assert_eq!(
        columns,
        [
            ("sender", "uuid".to_owned(), ColumnKind::PartitionKey),
            (
                "sent_at",
                "timeuuid".to_owned(),
                ColumnKind::Clustering(cassmodel::Order::Desc)
            ),
            ("sender_name", "text".to_owned(), ColumnKind::Static),
            ("dest", "postal_address".to_owned(), ColumnKind::Regular),
            ("lines", "list<text>".to_owned(), ColumnKind::Regular),
            (
                "history",
                "frozen<list<frozen<postal_address>>>".to_owned(),
                ColumnKind::Regular
            ),
        ]
    );
    assert!(s.columns[2].nullable);
    let indexes: Vec<(&str, &str, cassmodel::schema::IndexTarget)> = s
        .indexes()
        .map(|(c, i)| (c.name, i.name, i.target))
        .collect();
    assert_eq!(
        indexes,
        [
            (
                "sender_name",
                "letters_by_sender",
                cassmodel::schema::IndexTarget::Column
            ),
            (
                "lines",
                "letters_lines_idx",
                cassmodel::schema::IndexTarget::Values
            ),
        ]
    );

    let u = Address::udt_schema();
    assert_eq!(u.name, "postal_address");
    let fields: Vec<(&str, String)> = u
        .fields
        .iter()
        .map(|f| (f.name, f.cql_type.to_string()))
        .collect();
    assert_eq!(
        fields,
        [("street", "text".to_owned()), ("zip", "int".to_owned())]
    );
}
