//! Snapshot tests of the expansion of representative inputs (`src/snapshots/`), so that a
//! refactor of the generator shows whether its output changed, and tests that the model's
//! list of builder methods is exactly what the generators emit.
//!
//! After an intended change: `INSTA_UPDATE=always cargo test -p cassmodel-derive`, then read
//! the diff of `src/snapshots/` (or use `cargo insta review`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;

/// The expansion, formatted as Rust source.
fn pretty(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        // Errors expand to `compile_error!{..}` items, which parse; anything else is a bug.
        Err(e) => panic!("the expansion is not Rust: {e}\n{tokens}"),
    }
}

/// A point-read table: one partition-key column, one descending clustering column.
fn post() -> TokenStream {
    quote! {
        #[cass(table = "posts_facebook")]
        pub struct Post {
            #[partition_key]
            user_id: Uuid,
            #[clustering(desc)]
            post_id: Timeuuid,
            content: String,
        }
    }
}

/// A composite partition key, two clustering columns, a static column, collections, an
/// index and table options.
fn orders() -> TokenStream {
    quote! {
        #[cass(keyspace = "shop", table = "orders_by_day", default_ttl = 86400, comment = "orders")]
        pub struct OrdersByDay {
            #[partition_key]
            day: NaiveDate,
            #[partition_key]
            team: i32,
            #[clustering]
            start: NaiveTime,
            #[clustering(desc)]
            order_id: Uuid,
            #[cass(static)]
            team_name: String,
            #[cass(index(keys))]
            products: BTreeMap<Uuid, i32>,
            tags: Option<BTreeSet<String>>,
            notes: Vec<String>,
            #[cass(name = "select")]
            selection: Option<i64>,
        }
    }
}

/// A bucketed table with declared growth: a month bucket of the first clustering column.
fn bucketed() -> TokenStream {
    quote! {
        #[cass(table = "orders_by_month", expect(rows = 1000, per = "month", horizon = "5 years"))]
        pub struct OrderByMonth {
            #[partition_key]
            customer: Uuid,
            #[clustering(desc)]
            #[cass(bucket(month))]
            at: DateTime<Utc>,
            #[clustering]
            order_id: Uuid,
            #[cass(avg_bytes = 20)]
            status: String,
        }
    }
}

#[test]
fn table_bucketed() {
    insta::assert_snapshot!(pretty(expand::table(bucketed())));
}

/// A counter table.
/// A vector column with an index, one without, and other columns.
fn products() -> TokenStream {
    quote! {
        pub struct Product {
            #[partition_key]
            shop: String,
            #[clustering]
            sku: i32,
            brand: String,
            #[cass(index)]
            embedding: Vector<4>,
            draft: Option<Vector<2>>,
        }
    }
}

fn views() -> TokenStream {
    quote! {
        pub struct PageViews {
            #[partition_key]
            page: String,
            views: Counter,
        }
    }
}

/// A materialized view of `Post`: read only, its key checked against the base's.
fn post_view() -> TokenStream {
    quote! {
        #[cass(table = "posts_by_id", view_of = Post)]
        pub struct PostById {
            #[partition_key]
            post_id: Timeuuid,
            #[clustering]
            user_id: Uuid,
            content: String,
        }
    }
}

#[test]
fn table_view() {
    insta::assert_snapshot!(pretty(expand::table(post_view())));
}

#[test]
fn table_post() {
    insta::assert_snapshot!(pretty(expand::table(post())));
}

#[test]
fn table_orders() {
    insta::assert_snapshot!(pretty(expand::table(orders())));
}

#[test]
fn table_counter() {
    insta::assert_snapshot!(pretty(expand::table(views())));
}

#[test]
fn udt() {
    insta::assert_snapshot!(pretty(expand::udt(quote! {
        #[cass(name = "address_type")]
        pub struct Address {
            street: String,
            #[cass(cql_type = "ascii")]
            zip: String,
            lines: Vec<String>,
        }
    })));
}

#[test]
fn projection() {
    insta::assert_snapshot!(pretty(expand::projection(quote! {
        #[cass(table = Post)]
        pub struct PostContent {
            content: String,
        }
    })));
}

/// Computed fields: read after the columns, each with its compile-time rules.
#[test]
fn projection_computed() {
    insta::assert_snapshot!(pretty(expand::projection(quote! {
        #[cass(table = Post)]
        pub struct PostWritten {
            content: String,
            #[cass(select = writetime(content))]
            content_written: i64,
            #[cass(select = cast(likes as text))]
            r#type: String,
        }
    })));
}

#[test]
fn entity() {
    insta::assert_snapshot!(pretty(expand::entity(quote! {
        #[cass(tables(LikesByUser, LikesByItem))]
        pub struct Like {
            user: Uuid,
            item: Uuid,
        }
    })));
}

/// An entity with an identity table: its changes read the stored entity from it and are
/// decided on it, and each table's key fields are checked to be in it.
#[test]
fn entity_identity() {
    insta::assert_snapshot!(pretty(expand::entity(quote! {
        #[cass(tables(OrderById, OrdersByDate), identity = OrderById)]
        pub struct Order {
            order_id: Uuid,
            delivery_date: NaiveDate,
        }
    })));
}

/// An input with two mistakes: both errors, and the fallback impls so that uses of the
/// struct as a table add none.
#[test]
fn table_with_errors() {
    insta::assert_snapshot!(pretty(expand::table(quote! {
        pub struct Broken {
            #[clustering(sideways)]
            id: Uuid,
            #[cass(nmae = "x")]
            value: String,
        }
    })));
}

/// The method names the generators give each column are the ones the model lists (which the
/// collision check uses), for every kind of column.
#[test]
fn builder_methods_match_the_model() {
    use std::collections::BTreeSet;

    for input in [post(), orders(), views(), products()] {
        let derive: syn::DeriveInput = syn::parse2(input.clone()).expect("an item");
        let mut cx = crate::ctxt::Ctxt::default();
        let table = crate::model::Table::from_input(&mut cx, &derive).expect("a model");
        cx.finish().expect("no errors");
        let vector = table.has_vector();
        let mut listed: BTreeSet<String> = crate::model::BUILDER_METHODS
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        for f in &table.fields {
            listed.extend(f.builder_methods(vector));
        }
        let file: syn::File = syn::parse2(expand::table(input)).expect("Rust");
        let builder = format!("{}Query", derive.ident);
        let mut generated = BTreeSet::new();
        collect_methods(&file.items, &builder, &mut generated);
        assert_eq!(generated, listed, "{}", derive.ident);
    }
}

/// Names of the methods of `impl .. <builder><..> { .. }` blocks, however deep in `const _`.
fn collect_methods(
    items: &[syn::Item],
    builder: &str,
    out: &mut std::collections::BTreeSet<String>,
) {
    for item in items {
        match item {
            syn::Item::Const(c) => {
                if let syn::Expr::Block(b) = &*c.expr {
                    let nested: Vec<syn::Item> = b
                        .block
                        .stmts
                        .iter()
                        .filter_map(|s| match s {
                            syn::Stmt::Item(i) => Some(i.clone()),
                            _ => None,
                        })
                        .collect();
                    collect_methods(&nested, builder, out);
                }
            }
            syn::Item::Impl(i) if i.trait_.is_none() => {
                let syn::Type::Path(p) = &*i.self_ty else {
                    continue;
                };
                if p.path.segments.last().is_some_and(|s| s.ident == builder) {
                    out.extend(i.items.iter().filter_map(|m| match m {
                        syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                        _ => None,
                    }));
                }
            }
            _ => {}
        }
    }
}
