//! The write half of a table's query builder: `update()` setters (plain, collections,
//! counters), lightweight-transaction conditions, TTL and write time, and the terminal
//! `execute` of updates and deletes, each bound by Cassandra's rules:
//!
//! - key columns cannot be set; counters are only incremented or decremented;
//! - an update that sets a regular column names the whole primary key; one that sets only
//!   static columns names the partition key (or the whole key);
//! - a counter table takes no TTL, no write time and no condition.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Type};

use super::query::{imp, marker};
use crate::model::{Field, Role, Table};
use crate::types::{self, Shape};

/// What the write generator needs from the query generator.
pub struct Ctx<'t> {
    pub krate: &'t syn::Path,
    pub q: &'t Ident,
    pub table: &'t str,
    /// The states in which the whole partition key is given.
    pub np: usize,
    pub nk: usize,
    pub key_order: &'t str,
    pub pk_list: &'t str,
    pub full_key: &'t Ident,
    pub partition_given: &'t Ident,
}

pub struct Generated {
    pub traits: Vec<TokenStream>,
    pub impls: Vec<TokenStream>,
    pub items: TokenStream,
}

/// The collection a field holds, with its element types, if its type says so.
pub enum Collection<'a> {
    List(&'a Type),
    Set,
    Map(&'a Type, &'a Type),
}

/// The field's type without an outer `Option`.
pub fn value_type<'a>(f: &Field<'a>) -> &'a Type {
    match types::shape(f.ty) {
        Shape::Option => types::first_type_arg(f.ty).unwrap_or(f.ty),
        _ => f.ty,
    }
}

pub fn collection<'a>(f: &Field<'a>) -> Option<Collection<'a>> {
    if f.attrs.frozen.is_some()
        || f.attrs
            .cql_type
            .as_ref()
            .is_some_and(|t| !t.value.is_collection())
    {
        return None;
    }
    let ty = value_type(f);
    match types::shape(ty) {
        Shape::List => types::first_type_arg(ty).map(Collection::List),
        Shape::Set => Some(Collection::Set),
        Shape::Map => {
            let mut args = types::type_args(ty).into_iter();
            match (args.next(), args.next()) {
                (Some(k), Some(v)) => Some(Collection::Map(k, v)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The builder methods a column's write side adds (for the name-collision check).
pub fn write_methods(f: &Field<'_>) -> Vec<String> {
    let n = f.ident.to_string();
    let mut out = vec![format!("set_{n}")];
    if f.role.is_key() {
        return out;
    }
    out.push(format!("if_{n}"));
    if f.is_counter() {
        out.extend([format!("increment_{n}"), format!("decrement_{n}")]);
    }
    match collection(f) {
        Some(Collection::List(_)) => out.extend([
            format!("append_{n}"),
            format!("prepend_{n}"),
            format!("remove_{n}"),
            format!("set_{n}_at"),
        ]),
        Some(Collection::Set) => out.extend([format!("add_{n}"), format!("remove_{n}")]),
        Some(Collection::Map(..)) => out.extend([
            format!("put_{n}"),
            format!("merge_{n}"),
            format!("remove_{n}_keys"),
        ]),
        None => {}
    }
    out
}

/// A `set_<column>` that exists only to fail with `bound`'s message (key columns, counters).
fn refused_setter(krate: &syn::Path, f: &Field<'_>, bound: &Ident) -> TokenStream {
    let (set, ty) = (format_ident!("set_{}", f.ident), f.ty);
    quote_spanned! {f.ident.span()=>
        #[doc(hidden)]
        pub fn #set(self, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized)) -> Self
        where
            S: #bound,
        {
            let _ = value;
            self
        }
    }
}

pub fn generate(t: &Table<'_>, cx: &Ctx<'_>) -> Generated {
    let krate = cx.krate;
    let p = super::private(krate);
    let st = quote!(#krate::state);
    let kd = quote!(#krate::kind);
    let q = cx.q;
    let ident = t.ident;
    let table = cx.table;
    let (np, nk) = (cx.np, cx.nk);
    let counter_table = t.counter_column().is_some();

    let mut traits = Vec::new();
    let mut impls = Vec::new();
    let mut setters = Vec::new();
    let mut conditions = Vec::new();

    let no_lwt = format_ident!("__NoLwtOnCounter");
    let no_ttl = format_ident!("__NoTtlOnCounter");
    let static_key = format_ident!("__StaticKey");
    let nothing_set = format_ident!("__NothingSet");
    traits.push(marker(
        &no_lwt,
        &format!(
            "`{table}` is a counter table: counters take no condition (lightweight transaction)"
        ),
        "condition on a counter table",
        "Cassandra refuses IF on counter updates; a counter only moves by increments",
    ));
    traits.push(marker(
        &no_ttl,
        &format!("`{table}` is a counter table: counters take no TTL and no custom write time"),
        "TTL or write time on a counter table",
        "Cassandra refuses USING TTL and USING TIMESTAMP on counter updates",
    ));
    traits.push(marker(
        &static_key,
        &format!(
            "`{table}`: an update of static columns names the partition key ({}), or the whole \
             primary key ({})",
            cx.pk_list, cx.key_order
        ),
        "key incomplete",
        "a static column holds one value per partition, so the partition key identifies it",
    ));
    traits.push(marker(
        &nothing_set,
        &format!("`{table}`: this update sets nothing: give at least one `set_<column>(..)`"),
        "nothing to update",
        "an UPDATE needs a SET clause; to remove a row, use `delete()`",
    ));
    if !counter_table {
        impls.push(quote!(impl<X> #no_lwt for X {}));
        impls.push(quote!(impl<X> #no_ttl for X {}));
    }
    impls.push(imp(&static_key, quote!(#st::Key<#np>)));
    if nk != np {
        impls.push(imp(&static_key, quote!(#st::Key<#nk>)));
    }

    for (idx, f) in t.fields.iter().enumerate() {
        let idx = idx as u16;
        let name = f.ident;
        let col = &f.column;
        let ty = f.ty;
        let span = f.ident.span();
        let set = format_ident!("set_{}", name);
        if f.role.is_key() {
            let no_set = format_ident!("__NoSet_{}", name);
            traits.push(marker(
                &no_set,
                &format!("`{table}`: `{col}` is part of the primary key and cannot be updated"),
                "primary-key column",
                "a row's key is its identity: to move a row, insert it under the new key and delete the old one",
            ));
            setters.push(refused_setter(krate, f, &no_set));
            continue;
        }
        // The kind after a change of this column: static columns keep a static-only update.
        let (next, bound) = if f.role == Role::Static {
            (
                quote!(#q<'a, S, <#kd::Update<W, L> as #p::AfterStaticSet>::Next, R>),
                quote!(where #kd::Update<W, L>: #p::AfterStaticSet),
            )
        } else {
            (quote!(#q<'a, S, #kd::Update<2, L>, R>), quote!())
        };
        let set_op = |op: TokenStream,
                      values: TokenStream,
                      doc: String,
                      method: Ident,
                      params: TokenStream| {
            quote_spanned! {span=>
                #[doc = #doc]
                pub fn #method(self, #params) -> #next #bound {
                    #q { inner: self.inner.set(#idx, #p::SetOp::#op, #values), _state: #p::PhantomData }
                }
            }
        };
        let one = |v: TokenStream| quote!([::core::option::Option::Some(#v), ::core::option::Option::None]);
        let two = |a: TokenStream, b: TokenStream| quote!([::core::option::Option::Some(#a), ::core::option::Option::Some(#b)]);
        let vt = value_type(f);
        if f.is_counter() {
            let no_set = format_ident!("__NoSetCounter_{}", name);
            traits.push(marker(
                &no_set,
                &format!(
                    "`{table}`: `{col}` is a counter: it can only be incremented or decremented, \
                     not set"
                ),
                "set on a counter",
                &format!("use `.increment_{name}(n)` or `.decrement_{name}(n)`"),
            ));
            setters.push(refused_setter(krate, f, &no_set));
            let n = quote!(#p::Bound::Counter(n));
            setters.push(set_op(
                quote!(Increment),
                one(n.clone()),
                format!("`{col} = {col} + n` (not idempotent: a retry may count twice)"),
                format_ident!("increment_{}", name),
                quote!(n: ::core::primitive::i64),
            ));
            setters.push(set_op(
                quote!(Decrement),
                one(n),
                format!("`{col} = {col} - n` (not idempotent: a retry may count twice)"),
                format_ident!("decrement_{}", name),
                quote!(n: ::core::primitive::i64),
            ));
        } else {
            let v = quote!(#krate::BindAs::<#ty>::__bound(value));
            setters.push(set_op(
                quote!(Assign),
                one(v),
                format!("`SET {col} = ?`"),
                set.clone(),
                quote!(value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized)),
            ));
        }
        let whole = quote!(#krate::BindAs::<#vt>::__bound(value));
        let whole_param = quote!(value: &'a (impl #krate::BindAs<#vt> + ?::core::marker::Sized));
        // The collection operations of this column: (change, values, doc, method, params).
        let elem_param =
            |t: &Type| quote!(value: &'a (impl #krate::BindAs<#t> + ?::core::marker::Sized));
        let ops: Vec<(TokenStream, TokenStream, String, String, TokenStream)> = match collection(f)
        {
            Some(Collection::List(elem)) => {
                let at = two(
                    quote!(#p::Bound::Index(index)),
                    quote!(#krate::BindAs::<#elem>::__bound(value)),
                );
                let at_params = elem_param(elem);
                vec![
                    (
                        quote!(Append),
                        one(whole.clone()),
                        format!("`{col} = {col} + ?`: appends the elements (not idempotent)"),
                        format!("append_{name}"),
                        whole_param.clone(),
                    ),
                    (
                        quote!(Prepend),
                        one(whole.clone()),
                        format!("`{col} = ? + {col}`: prepends the elements (not idempotent)"),
                        format!("prepend_{name}"),
                        whole_param.clone(),
                    ),
                    (
                        quote!(Remove),
                        one(whole.clone()),
                        format!("`{col} = {col} - ?`: removes every occurrence of the elements"),
                        format!("remove_{name}"),
                        whole_param.clone(),
                    ),
                    (
                        quote!(AtKey),
                        at,
                        format!("`{col}[index] = ?`: replaces one element (the index must exist)"),
                        format!("set_{name}_at"),
                        quote!(index: ::core::primitive::i32, #at_params),
                    ),
                ]
            }
            Some(Collection::Set) => vec![
                (
                    quote!(Append),
                    one(whole.clone()),
                    format!("`{col} = {col} + ?`: adds the elements"),
                    format!("add_{name}"),
                    whole_param.clone(),
                ),
                (
                    quote!(Remove),
                    one(whole.clone()),
                    format!("`{col} = {col} - ?`: removes the elements"),
                    format!("remove_{name}"),
                    whole_param.clone(),
                ),
            ],
            Some(Collection::Map(k, v)) => {
                let put = two(
                    quote!(#krate::BindAs::<#k>::__bound(key)),
                    quote!(#krate::BindAs::<#v>::__bound(value)),
                );
                let value_param = elem_param(v);
                vec![
                    (
                        quote!(AtKey),
                        put,
                        format!("`{col}[key] = value`: puts one entry"),
                        format!("put_{name}"),
                        quote!(key: &'a (impl #krate::BindAs<#k> + ?::core::marker::Sized), #value_param),
                    ),
                    (
                        quote!(Append),
                        one(whole.clone()),
                        format!("`{col} = {col} + ?`: puts every entry of the map"),
                        format!("merge_{name}"),
                        whole_param.clone(),
                    ),
                    (
                        quote!(Remove),
                        one(quote!(#p::bound_list(keys))),
                        format!("`{col} = {col} - ?`: removes the entries with these keys"),
                        format!("remove_{name}_keys"),
                        quote!(keys: &'a [impl #krate::BindAs<#k> + ::core::marker::Send]),
                    ),
                ]
            }
            None => Vec::new(),
        };
        for (op, values, doc, method, params) in ops {
            setters.push(set_op(op, values, doc, format_ident!("{}", method), params));
        }
        let if_col = format_ident!("if_{}", name);
        let doc = format!(
            "`IF {col} <cmp> ?`: a lightweight transaction that applies only if the condition holds"
        );
        conditions.push(quote_spanned! {span=>
            #[doc = #doc]
            pub fn #if_col(self, cmp: #krate::Cmp, value: &'a (impl #krate::BindAs<#ty> + ?::core::marker::Sized))
                -> #q<'a, S, <K as #p::WriteKind>::Conditional, R>
            where
                S: #no_lwt,
            {
                #q {
                    inner: self.inner.condition(#idx, #p::Op::from(cmp), #krate::BindAs::<#ty>::__bound(value)),
                    _state: #p::PhantomData,
                }
            }
        });
    }

    let full_key = cx.full_key;
    let partition_given = cx.partition_given;
    // Statements of a counter table go in counter batches, all others in logged/unlogged ones.
    let class = if counter_table {
        quote!(#krate::CounterStatement)
    } else {
        quote!(#krate::RegularStatement)
    };
    let outcome = quote!(#p::QueryFuture<'d, #krate::Outcome<#ident>>);
    let items = quote! {
        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, const W: ::core::primitive::u8, const L: ::core::primitive::bool, R> #q<'a, S, #kd::Update<W, L>, R> {
            #(#setters)*

            /// `USING TTL seconds`: the written cells expire after that long.
            pub fn using_ttl(self, seconds: ::core::primitive::i32) -> Self
            where
                S: #no_ttl,
            {
                self.__map(|q| q.ttl(seconds))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, K: #p::WriteKind, R> #q<'a, S, K, R> {
            #(#conditions)*

            /// `IF EXISTS`: a lightweight transaction that applies only if the row exists.
            pub fn if_exists(self) -> #q<'a, S, <K as #p::WriteKind>::Conditional, R>
            where
                S: #no_lwt,
            {
                #q { inner: self.inner.if_exists(), _state: #p::PhantomData }
            }

            /// `USING TIMESTAMP micros`: the write time, in microseconds since the epoch.
            pub fn using_timestamp(self, micros: ::core::primitive::i64) -> Self
            where
                S: #no_ttl,
            {
                self.__map(|q| q.timestamp(micros))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R> #q<'a, S, #kd::Update<2>, R> {
            /// Runs the update.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, ()>
            where
                S: #full_key,
                'a: 'd,
            {
                #p::Box::pin(#p::execute::<#ident>(db, self.inner, "update"))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R> #q<'a, S, #kd::Update<2, true>, R> {
            /// Runs the lightweight transaction: the outcome says whether it applied and
            /// carries the current row when it did not.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #outcome
            where
                S: #full_key,
                'a: 'd,
            {
                #p::Box::pin(#p::execute_lwt::<#ident>(db, self.inner, "update"))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R> #q<'a, S, #kd::Update<1>, R> {
            /// Runs the update of static columns.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, ()>
            where
                S: #static_key,
                'a: 'd,
            {
                #p::Box::pin(#p::execute::<#ident>(db, self.inner, "update"))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R> #q<'a, S, #kd::Update<1, true>, R> {
            /// Runs the lightweight transaction on static columns.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #outcome
            where
                S: #static_key,
                'a: 'd,
            {
                #p::Box::pin(#p::execute_lwt::<#ident>(db, self.inner, "update"))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, const L: ::core::primitive::bool, R> #q<'a, S, #kd::Update<0, L>, R> {
            /// An update must set something first.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, ()>
            where
                S: #nothing_set,
                'a: 'd,
            {
                #p::Box::pin(#p::execute::<#ident>(db, self.inner, "update"))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R> #q<'a, S, #kd::Delete, R> {
            /// Runs the delete.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #p::QueryFuture<'d, ()>
            where
                S: #partition_given,
                'a: 'd,
            {
                #p::Box::pin(#p::execute::<#ident>(db, self.inner, "delete"))
            }
        }

        #[allow(private_bounds, private_interfaces)]
        impl<'a, S, R> #q<'a, S, #kd::Delete<true>, R> {
            /// Runs the conditional delete (the whole primary key is needed): the outcome says
            /// whether it applied and carries the current row when it did not.
            pub fn execute<'d>(self, db: &'d #krate::Db) -> #outcome
            where
                S: #full_key,
                'a: 'd,
            {
                #p::Box::pin(#p::execute_lwt::<#ident>(db, self.inner, "delete"))
            }
        }

        #[allow(private_bounds)]
        impl<'a, S: #full_key, const L: ::core::primitive::bool, R> #class<'a> for #q<'a, S, #kd::Update<2, L>, R> {
            fn into_entry(self) -> #p::Box<dyn #p::BatchEntry + 'a> {
                #p::query_entry::<#ident>(self.inner, "update")
            }
        }

        #[allow(private_bounds)]
        impl<'a, S: #static_key, const L: ::core::primitive::bool, R> #class<'a> for #q<'a, S, #kd::Update<1, L>, R> {
            fn into_entry(self) -> #p::Box<dyn #p::BatchEntry + 'a> {
                #p::query_entry::<#ident>(self.inner, "update")
            }
        }

        #[allow(private_bounds)]
        impl<'a, S: #partition_given, const L: ::core::primitive::bool, R> #class<'a> for #q<'a, S, #kd::Delete<L>, R> {
            fn into_entry(self) -> #p::Box<dyn #p::BatchEntry + 'a> {
                #p::query_entry::<#ident>(self.inner, "delete")
            }
        }
    };
    Generated {
        traits,
        impls,
        items,
    }
}
