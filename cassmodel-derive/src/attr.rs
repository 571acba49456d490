//! Parsing of cassmodel's attributes into plain values, with spans for later errors.
//!
//! Field attributes: `#[partition_key]`, `#[clustering]`, `#[clustering(asc|desc)]`,
//! `#[cass(name = "...", cql_type = "...", frozen, static, index)]` (`index` also as
//! `index(keys|values|entries|full, name = "...")`).
//! Struct attributes: `#[cass(table = "...", keyspace = "...", default_ttl = N,
//! gc_grace_seconds = N, comment = "...", compaction = "...", crate = "...")]` on tables,
//! `#[cass(name = "...", crate = "...")]` on user-defined types.

use cassmodel_schema::{CqlType, IndexTarget, ParseError, Period, Similarity, Span as TimeSpan};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, LitInt, LitStr};

use crate::ctxt::Ctxt;

/// A parsed value and the tokens to point at when it is wrong.
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// Clustering order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Asc,
    Desc,
}

/// Which derive is parsing: some options belong to one only.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Table,
    Udt,
    Projection,
    Entity,
}

#[derive(Default)]
pub struct FieldAttrs {
    /// The `#[partition_key]` attribute, if present.
    pub partition_key: Option<TokenStream>,
    /// The `#[clustering]` attribute and its order.
    pub clustering: Option<(Order, TokenStream)>,
    /// The `static` option.
    pub is_static: Option<Span>,
    pub name: Option<Spanned<String>>,
    pub cql_type: Option<Spanned<CqlType>>,
    pub frozen: Option<Span>,
    /// The `index` options, in order (a map may have one on each of its parts).
    pub index: Vec<IndexAttr>,
    /// `avg_bytes = N`: the average size of the column's values, for the size analysis.
    pub avg_bytes: Option<Spanned<u32>>,
    /// `bucket(month)`, `bucket(width = 1000)`, with an optional `name = "..."`.
    pub bucket: Option<BucketAttr>,
    /// On a projection's field: `select = writetime(body)`, the CQL selector it reads.
    pub select: Option<syn::Expr>,
    /// `masked = mask_inner(2, 1)`: the column's mask (resolved by the model).
    pub masked: Option<syn::Expr>,
    /// `each = tags`: in a table built from an entity, the column takes each element of the
    /// entity's collection `tags` (one row per element).
    pub each: Option<syn::Ident>,
}

/// The forms of a projection field's `select`.
pub const SELECT_FORMS: &str = "`#[cass(select = writetime(column))]`, `ttl(column)`, \
    `cast(column as text)`, a native function such as `todate(column)`, or an aggregate: \
    `min(column)`, `max(..)`, `sum(..)`, `avg(..)`, `count(..)`; a function or aggregate of the \
    models by its struct's name, `AvgRating(stars)`; arithmetic between selectors, \
    `cast(a as float) / cast(b as float)`";

/// How a bucket is computed from its source field.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BucketRule {
    Period(Period),
    Width(u64),
}

/// The `bucket(...)` option of a field.
pub struct BucketAttr {
    /// The whole option.
    pub span: Span,
    /// `None` after an error (already reported).
    pub rule: Option<BucketRule>,
    pub name: Option<Spanned<String>>,
}

/// Every form of the `bucket` option.
pub const BUCKET_FORMS: &str = "`bucket(day)`, `bucket(week)`, `bucket(month)` or `bucket(year)` \
    on a `DateTime<Utc>` or `NaiveDate` field, `bucket(width = 1000)` on an integer field, \
    optionally with `name = \"column\"`";

/// `expect(rows = N)` or `expect(rows = N, per = "month", horizon = "5 years")` on a table.
pub struct ExpectAttr {
    /// The whole option.
    pub span: Span,
    /// Rows per partition, or per period with `per`.
    pub rows: Option<u64>,
    pub per: Option<Spanned<Period>>,
    pub horizon: Option<Spanned<TimeSpan>>,
    /// Whether a part of it was wrong (already reported): nothing more is said about it.
    pub broken: bool,
}

/// `index`, `index(name = "...")`, `index(keys)`, ... on a field.
pub struct IndexAttr {
    /// The whole option, to point at for errors about the index as a whole.
    pub tokens: TokenStream,
    /// `name = "..."`.
    pub name: Option<Spanned<String>>,
    /// `keys`, `values`, `entries` or `full`.
    pub target: Option<Spanned<IndexTarget>>,
    /// `similarity = "cosine" | "dot_product" | "euclidean"` (vector columns).
    pub similarity: Option<Spanned<Similarity>>,
}

#[derive(Default)]
pub struct ContainerAttrs {
    pub table: Option<Spanned<String>>,
    pub name: Option<Spanned<String>>,
    pub keyspace: Option<Spanned<String>>,
    pub default_ttl: Option<u32>,
    pub gc_grace_seconds: Option<u32>,
    pub comment: Option<String>,
    pub compaction: Option<Spanned<String>>,
    pub krate: Option<syn::Path>,
    /// The table struct a projection reads from.
    pub of: Option<syn::Path>,
    /// The entities a table is built from (`entity = Like`).
    pub entities: Vec<syn::Path>,
    /// The tables an entity is stored in (`tables(A, B)`).
    pub tables: Option<Vec<syn::Path>>,
    /// The entity's identity table, one of its tables (`identity = A`).
    pub identity: Option<syn::Path>,
    /// How the partitions grow (`expect(...)`).
    pub expect: Option<ExpectAttr>,
    /// Where the rows of a new table are copied from, after a key change (`from = ...`).
    pub from: Option<FromAttr>,
    /// The conversion of a source model's rows (`with = path::to::fn`).
    pub with: Option<syn::Path>,
    /// `dual_writes`: every write also reaches the table of `from` (where it stands).
    pub dual_writes: Option<Span>,
    /// `offline`: the rows of `from` (a counter table) are copied with its writers stopped.
    pub offline: Option<Span>,
    /// `view_of = Base`: the struct is a materialized view of `Base`'s table.
    pub view_of: Option<syn::Path>,
    /// `all_columns`: the view selects every column of its base (`SELECT *`).
    pub all_columns: Option<Span>,
}

/// `from = "table"` (the rows of that table, columns matched by name) or `from = OldModel`
/// (the table of that struct; with `with = f`, its rows converted by `f`).
pub enum FromAttr {
    /// A table of the same keyspace, by name.
    Table(Spanned<String>),
    /// The table of a `#[derive(CassTable)]` struct.
    Model(syn::Path),
}

/// Stores `value` in `slot` unless it is already set, in which case the repeat is an error.
fn set_once<T>(cx: &mut Ctxt, slot: &mut Option<T>, value: T, at: Span, what: &str) {
    if slot.is_some() {
        cx.error_at(at, format_args!("{what} is given twice: remove one"));
    } else {
        *slot = Some(value);
    }
}

fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<(String, Span)> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok((lit.value(), lit.span()))
}

fn number(meta: &ParseNestedMeta<'_>) -> syn::Result<u32> {
    let lit: LitInt = meta.value()?.parse()?;
    lit.base10_parse()
}

fn path_name(meta: &ParseNestedMeta<'_>) -> String {
    path_name_of(&meta.path)
}

fn path_name_of(path: &syn::Path) -> String {
    path.get_ident()
        .map_or_else(|| path.to_token_stream().to_string(), ToString::to_string)
}

/// `text` with each collection that the parser refuses as an element wrapped in `frozen<...>`,
/// if that makes it a CQL type.
fn freeze_nested(text: &str) -> Option<String> {
    let mut fixed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    for _ in 0..8 {
        let e = match fixed.parse::<CqlType>() {
            Ok(t) => return Some(t.to_string()),
            Err(e) => e,
        };
        // The parser says "`list<int>` cannot be an element of a list: ...".
        let (inner, _) = e
            .message
            .strip_prefix('`')?
            .split_once("` cannot be an element of")?;
        let inner: String = inner.chars().filter(|c| !c.is_whitespace()).collect();
        if !inner.contains('<') {
            return None;
        }
        let at = 1 + fixed.get(1..)?.find(&inner)?;
        fixed.replace_range(at..at + inner.len(), &format!("frozen<{inner}>"));
    }
    None
}

/// The message for `cql_type` text that is not a CQL type, with the fix for the usual
/// mistakes: a keyspace-qualified type name, a misspelled `list`/`set`/`map`/...
fn bad_cql_type(text: &str, e: &ParseError) -> String {
    const WITH_PARAMS: [&str; 6] = ["list", "set", "map", "tuple", "frozen", "vector"];
    // `ks.addr`: drop every `word.` and see whether the rest is a type.
    if text.contains('.') {
        let mut fixed = String::new();
        let mut word = String::new();
        for c in text.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                if c != '.' {
                    fixed.push_str(&word);
                    fixed.push(c);
                }
                word.clear();
            }
        }
        fixed.push_str(&word);
        if fixed.parse::<CqlType>().is_ok() {
            return format!(
                "`{text}` names a keyspace, but a table can only use user-defined types of its \
                 own keyspace: write `cql_type = \"{fixed}\"`"
            );
        }
    }
    // `lst<int>`: an unknown name followed by `<`. The six names start with six different
    // letters, so the first letter tells which one was meant.
    let mut heads: Vec<&str> = text.split('<').collect();
    heads.pop();
    for head in heads {
        let word = head
            .trim_end()
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next();
        let Some(word) = word.filter(|w| !w.is_empty()) else {
            continue;
        };
        if WITH_PARAMS.iter().any(|k| k.eq_ignore_ascii_case(word)) {
            continue;
        }
        let fix = WITH_PARAMS
            .iter()
            .find(|k| k.chars().next() == word.chars().next().map(|c| c.to_ascii_lowercase()))
            .map(|k| text.replacen(word, k, 1))
            .filter(|fixed| fixed.parse::<CqlType>().is_ok());
        return match fix {
            Some(fixed) => format!(
                "`{text}` is not a CQL type: `{word}` takes no `<...>`; write \
                 `cql_type = \"{fixed}\"`"
            ),
            None => format!(
                "`{text}` is not a CQL type: `{word}` takes no `<...>`; the types that do are \
                 `list`, `set`, `map`, `tuple`, `frozen` and `vector`, e.g. \
                 `cql_type = \"list<int>\"`"
            ),
        };
    }
    // `list<list<int>>`: a collection inside a collection must be frozen.
    if let Some(fixed) = freeze_nested(text) {
        return format!(
            "`{text}` is not a CQL type: a collection inside a collection must be frozen; \
             write `cql_type = \"{fixed}\"`"
        );
    }
    // The parser's message says the fix when it knows one (`write `frozen<...>``).
    let e = e.to_string();
    if e.contains("write") {
        format!("`{text}` is not a CQL type: {e}")
    } else {
        format!(
            "`{text}` is not a CQL type: {e}; write e.g. `cql_type = \"timeuuid\"` or \
             `cql_type = \"frozen<list<int>>\"`"
        )
    }
}

const FIELD_OPTIONS: &str = "`name = \"column_name\"`, `cql_type = \"timeuuid\"`, `frozen`, `static`, \
    `index`, `avg_bytes = 120`, `bucket(month)`, `masked = mask_inner(2, 1)` or `each = \
    collection_field`";
/// Every form of the `expect` option.
pub const EXPECT_FORMS: &str = "`expect(rows = 5000)` (rows per partition) or \
    `expect(rows = 1000, per = \"month\", horizon = \"5 years\")` (rows added per day, week, \
    month or year, kept that long)";
/// Every form of the `index` option.
const INDEX_FORMS: &str = "`#[cass(index)]`, `#[cass(index(name = \"by_email\"))]`, for a \
    collection the part to index: `index(values)`, `index(keys)` or `index(entries)` (maps), \
    `index(full)` (frozen collections), for a vector its similarity function: \
    `index(similarity = \"dot_product\")`";
const TABLE_OPTIONS: &str = "`table = \"name\"`, `keyspace = \"ks\"`, `default_ttl = 3600`, \
    `gc_grace_seconds = 864000`, `comment = \"...\"`, `compaction = \"LeveledCompactionStrategy\"`, \
    `entity = EntityStruct`, `expect(rows = 1000, per = \"month\", horizon = \"5 years\")`, \
    `from = \"old_table\"`, `from = OldModel`, `with = convert_fn`, `dual_writes`, `offline`, \
    `view_of = BaseTableStruct`, `all_columns` (with `view_of`) or `crate = \"path\"`";
const UDT_OPTIONS: &str = "`name = \"type_name\"` or `crate = \"path\"`";
const PROJECTION_OPTIONS: &str = "`table = TableStruct` or `crate = \"path\"`";
const ENTITY_OPTIONS: &str = "`tables(TableA, TableB)`, `identity = TableA` or `crate = \"path\"`";

/// An option written alone (`dual_writes`, `offline`), never with a value.
fn bare(meta: &ParseNestedMeta<'_>, name: &str) -> syn::Result<()> {
    if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        return Err(meta.error(format_args!("write `{name}` alone, without a value")));
    }
    Ok(())
}

/// `X` or `"X"` after `=`.
fn path_value(meta: &ParseNestedMeta<'_>, form: &str) -> syn::Result<syn::Path> {
    if !meta.input.peek(syn::Token![=]) {
        return Err(meta.error(format_args!("write `{form}`")));
    }
    let v = meta.value()?;
    if v.peek(LitStr) {
        v.parse::<LitStr>()?.parse()
    } else {
        v.parse()
    }
}

/// `= N` with a whole number above zero, or an error saying so (`form` is the correct form);
/// `None` after an error.
fn positive(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    form: &str,
) -> syn::Result<Option<(u64, Span)>> {
    let name = path_name(meta);
    if !meta.input.peek(syn::Token![=]) {
        cx.error_at(meta.path.span(), format_args!("write `{form}`"));
        return Ok(None);
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    let span = expr.span();
    let n = match &expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        _ => None,
    };
    match n {
        Some(n) if n > 0 => Ok(Some((n, span))),
        _ => {
            let what = match &expr {
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
                    "a negative number".to_owned()
                }
                _ => format!("`{}`", expr.to_token_stream()),
            };
            cx.error_at(
                span,
                format_args!(
                    "`{name}` must be a whole number above zero, e.g. `{form}`, not {what}"
                ),
            );
            Ok(None)
        }
    }
}

/// The span of an option's `(...)`, or an error giving its `forms` (and the option's value
/// skipped) when it has none.
fn parenthesized(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    forms: &str,
) -> syn::Result<Option<Span>> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_at(meta.path.span(), format_args!("write {forms}"));
        skip_value(meta)?;
        return Ok(None);
    }
    let group: proc_macro2::Group = meta.input.fork().parse()?;
    Ok(Some(group.span()))
}

/// The `bucket(...)` option of a field.
fn bucket_option(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<BucketAttr>> {
    let Some(span) = parenthesized(cx, meta, BUCKET_FORMS)? else {
        return Ok(None);
    };
    let mut out = BucketAttr {
        span,
        rule: None,
        name: None,
    };
    let mut seen = false;
    meta.parse_nested_meta(|inner| {
        let at = inner.path.span();
        let word = path_name(&inner);
        let rule = if inner.path.is_ident("name") {
            let (value, span) = string(&inner)?;
            set_once(
                cx,
                &mut out.name,
                Spanned { value, span },
                at,
                "the bucket `name`",
            );
            return Ok(());
        } else if inner.path.is_ident("width") {
            positive(cx, &inner, "width = 1000")?.map(|(n, _)| BucketRule::Width(n))
        } else {
            match word.parse::<Period>() {
                Ok(p) => Some(BucketRule::Period(p)),
                _ => {
                    cx.error_at(
                        at,
                        format_args!("unknown bucket `{word}`: write {BUCKET_FORMS}"),
                    );
                    skip_value(&inner)?;
                    None
                }
            }
        };
        if seen {
            cx.error_at(
                at,
                "give one bucket rule, e.g. `bucket(month)` or `bucket(width = 1000)`",
            );
        } else {
            seen = true;
            out.rule = rule;
        }
        Ok(())
    })?;
    if !seen {
        cx.error_at(
            out.span,
            format_args!("`bucket(...)` needs a rule: write {BUCKET_FORMS}"),
        );
    }
    Ok(Some(out))
}

/// The `expect(...)` option of a table.
fn expect_option(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<ExpectAttr>> {
    let Some(span) = parenthesized(cx, meta, EXPECT_FORMS)? else {
        return Ok(None);
    };
    let mut out = ExpectAttr {
        span,
        rows: None,
        per: None,
        horizon: None,
        broken: false,
    };
    let errors = cx.count();
    meta.parse_nested_meta(|inner| {
        let at = inner.path.span();
        if inner.path.is_ident("rows") {
            if let Some((n, _)) = positive(cx, &inner, "rows = 1000")? {
                set_once(cx, &mut out.rows, n, at, "`rows`");
            }
        } else if inner.path.is_ident("per") {
            let (text, span) = string(&inner)?;
            match text.parse::<Period>() {
                Ok(value) => set_once(cx, &mut out.per, Spanned { value, span }, at, "`per`"),
                Err(e) => cx.error_at(
                    span,
                    format_args!("{e}: write e.g. `per = \"month\"` (rows added per month)"),
                ),
            }
        } else if inner.path.is_ident("horizon") {
            let (text, span) = string(&inner)?;
            match text.parse::<TimeSpan>() {
                Ok(value) => set_once(
                    cx,
                    &mut out.horizon,
                    Spanned { value, span },
                    at,
                    "`horizon`",
                ),
                Err(e) => cx.error_at(
                    span,
                    format_args!("`horizon`: {e} (how long rows are kept)"),
                ),
            }
        } else {
            cx.error_at(
                at,
                format_args!(
                    "unknown option `{}` in `expect(...)`: write {EXPECT_FORMS}",
                    path_name(&inner)
                ),
            );
            skip_value(&inner)?;
        }
        Ok(())
    })?;
    out.broken = cx.count() > errors;
    if out.rows.is_none() && !out.broken {
        cx.error_at(
            out.span,
            format_args!("`expect(...)` needs `rows`: write {EXPECT_FORMS}"),
        );
    }
    Ok(Some(out))
}

/// Reports an option `#[cass(...)]` does not know, with the options it does, and skips the
/// option's value (if any) so that parsing goes on and every error is reported.
fn unknown_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    on: &str,
    expected: &str,
) -> syn::Result<()> {
    cx.error_at(
        meta.path.span(),
        format_args!(
            "unknown option `{}` in #[cass(...)] on {on}: expected {expected}",
            path_name(meta)
        ),
    );
    skip_value(meta)
}

/// Skips an option's `= value`, if it has one, so that parsing goes on after an error.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    }
    Ok(())
}

/// Parses the attributes of one field.
pub fn field(cx: &mut Ctxt, attrs: &[Attribute], kind: Kind) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        let path = attr.path();
        let ours = ["partition_key", "clustering", "cass"]
            .iter()
            .any(|n| path.is_ident(n));
        if kind == Kind::Projection && path.is_ident("cass") {
            projection_field(cx, attr, &mut out);
            continue;
        }
        if matches!(kind, Kind::Projection | Kind::Entity) && ours {
            cx.error(
                attr,
                "fields of a projection or an entity take no key attributes: each field names \
                 the field of the same name in the table structs (a projection's field may \
                 instead read a selector: `#[cass(select = writetime(column))]`); remove this \
                 attribute",
            );
            continue;
        }
        if path.is_ident("partition_key") || path.is_ident("clustering") {
            if kind == Kind::Udt {
                cx.error(
                    attr,
                    format_args!(
                        "`#[{}]` on a field of a user-defined type: a UDT has no keys, so remove \
                         it (keys belong to the fields of a #[derive(CassTable)] struct)",
                        path_name_of(path)
                    ),
                );
                continue;
            }
            key_attr(cx, attr, &mut out);
        } else if path.is_ident("cass") {
            cass_field(cx, attr, kind, &mut out);
        }
    }
    out
}

/// `#[cass(...)]` on a field of a table or a user-defined type, option by option.
fn cass_field(cx: &mut Ctxt, attr: &Attribute, kind: Kind, out: &mut FieldAttrs) {
    let res = attr.parse_nested_meta(|meta| {
        if column_option(cx, &meta, out)?
            || (kind == Kind::Table && table_field_option(cx, &meta, out)?)
        {
            return Ok(());
        }
        let opts = if kind == Kind::Table {
            FIELD_OPTIONS
        } else {
            "`name = \"field_name\"`, `cql_type = \"...\"` or `frozen`"
        };
        unknown_option(cx, &meta, "a field", opts)
    });
    if let Err(e) = res {
        cx.push(e);
    }
}

/// A field's `name`, `cql_type` and `frozen`; `false` when `meta` is none of them.
fn column_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    out: &mut FieldAttrs,
) -> syn::Result<bool> {
    let at = meta.path.span();
    if meta.path.is_ident("name") {
        let (v, span) = string(meta)?;
        set_once(cx, &mut out.name, Spanned { value: v, span }, at, "`name`");
    } else if meta.path.is_ident("cql_type") {
        let (v, span) = string(meta)?;
        match v.parse::<CqlType>() {
            Ok(t) => set_once(
                cx,
                &mut out.cql_type,
                Spanned { value: t, span },
                at,
                "`cql_type`",
            ),
            Err(e) => cx.error_at(span, bad_cql_type(&v, &e)),
        }
    } else if meta.path.is_ident("frozen") {
        set_once(cx, &mut out.frozen, at, at, "`frozen`");
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// A table field's `static`, `index`, `bucket`, `masked` and `avg_bytes`; `false` for others.
fn table_field_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    out: &mut FieldAttrs,
) -> syn::Result<bool> {
    let at = meta.path.span();
    if meta.path.is_ident("static") {
        set_once(cx, &mut out.is_static, at, at, "`static`");
    } else if meta.path.is_ident("index") {
        if let Some(index) = index_option(cx, meta)? {
            out.index.push(index);
        }
    } else if meta.path.is_ident("bucket") {
        if let Some(b) = bucket_option(cx, meta)? {
            set_once(cx, &mut out.bucket, b, at, "`bucket`");
        }
    } else if meta.path.is_ident("masked") {
        let expr: syn::Expr = meta.value()?.parse()?;
        set_once(cx, &mut out.masked, expr, at, "`masked`");
    } else if meta.path.is_ident("each") {
        let field: syn::Ident = meta.value()?.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "write `each = field`, the entity's collection field whose elements this \
                 column takes (one row per element)",
            )
        })?;
        set_once(cx, &mut out.each, field, at, "`each`");
    } else if meta.path.is_ident("avg_bytes") {
        if let Some((value, span)) = positive(cx, meta, "avg_bytes = 120")? {
            match u32::try_from(value) {
                Ok(value) => set_once(
                    cx,
                    &mut out.avg_bytes,
                    Spanned { value, span },
                    at,
                    "`avg_bytes`",
                ),
                Err(_) => cx.error_at(
                    span,
                    "`avg_bytes` is over 4 GB, more than Cassandra stores in a cell: give the \
                     average size of one value in bytes",
                ),
            }
        }
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// `#[cass(select = <selector>)]` on a projection's field: the selector as an expression
/// (resolved by the model).
fn projection_field(cx: &mut Ctxt, attr: &Attribute, out: &mut FieldAttrs) {
    let res = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("select") {
            let expr: syn::Expr = meta.value()?.parse()?;
            let at = meta.path.span();
            set_once(cx, &mut out.select, expr, at, "`select`");
            Ok(())
        } else {
            unknown_option(cx, &meta, "a projection's field", SELECT_FORMS)
        }
    });
    if let Err(e) = res {
        cx.push(e);
    }
}

/// The `index` option: `index`, or `index(...)` with a target and/or a name. `None` (after
/// an error) when it is not one of these forms.
fn index_option(cx: &mut Ctxt, meta: &ParseNestedMeta<'_>) -> syn::Result<Option<IndexAttr>> {
    let path = &meta.path;
    if meta.input.peek(syn::Token![=]) {
        cx.error_at(
            path.span(),
            format_args!("`index` takes no `=`: write {INDEX_FORMS}"),
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let mut out = IndexAttr {
        tokens: path.to_token_stream(),
        name: None,
        target: None,
        similarity: None,
    };
    if !meta.input.peek(syn::token::Paren) {
        return Ok(Some(out));
    }
    let group: proc_macro2::Group = meta.input.fork().parse()?;
    out.tokens = quote!(#path #group);
    meta.parse_nested_meta(|inner| index_part(cx, &inner, &mut out))?;
    Ok(Some(out))
}

/// One option inside `index(...)`: `name`, `similarity`, the part indexed, or an unknown one.
fn index_part(cx: &mut Ctxt, inner: &ParseNestedMeta<'_>, out: &mut IndexAttr) -> syn::Result<()> {
    let at = inner.path.span();
    let target = match path_name(inner).as_str() {
        "keys" => Some(IndexTarget::Keys),
        "values" => Some(IndexTarget::Values),
        "entries" => Some(IndexTarget::Entries),
        "full" => Some(IndexTarget::Full),
        _ => None,
    };
    if inner.path.is_ident("name") {
        let (value, span) = string(inner)?;
        set_once(
            cx,
            &mut out.name,
            Spanned { value, span },
            at,
            "the index `name`",
        );
    } else if inner.path.is_ident("similarity") {
        let (name, span) = string(inner)?;
        match Similarity::from_name(&name) {
            Some(value) => set_once(
                cx,
                &mut out.similarity,
                Spanned { value, span },
                at,
                "the index `similarity`",
            ),
            None => cx.error_at(
                span,
                format_args!(
                    "unknown similarity function \"{name}\": write `similarity = \"cosine\"` \
                     (the default), `\"dot_product\"` or `\"euclidean\"`"
                ),
            ),
        }
    } else if let Some(value) = target {
        match &out.target {
            Some(first) => cx.error_at(
                at,
                format_args!(
                    "give one part of the column to index, not `{}` and `{value}`: one index \
                     per field, e.g. `index({})`",
                    first.value, first.value
                ),
            ),
            None => out.target = Some(Spanned { value, span: at }),
        }
    } else {
        cx.error_at(
            at,
            format_args!(
                "unknown index option `{}`: write {INDEX_FORMS}",
                path_name(inner)
            ),
        );
        skip_value(inner)?;
    }
    Ok(())
}

fn key_attr(cx: &mut Ctxt, attr: &Attribute, out: &mut FieldAttrs) {
    let is_pk = attr.path().is_ident("partition_key");
    let tokens = attr.to_token_stream();
    if is_pk {
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            cx.error(
                attr,
                "`#[partition_key]` takes no arguments: write `#[partition_key]`",
            );
        }
        if out.partition_key.is_some() {
            cx.error(attr, "`#[partition_key]` is given twice: remove one");
        } else if out.clustering.is_some() {
            cx.error(
                attr,
                "a field is either part of the partition key or a clustering column, not both: \
                 keep `#[partition_key]` or `#[clustering]`",
            );
        } else {
            out.partition_key = Some(tokens);
        }
        return;
    }
    let mut order = Order::Asc;
    if let syn::Meta::List(_) = attr.meta {
        let mut seen = false;
        let res = attr.parse_nested_meta(|meta| {
            let o = if meta.path.is_ident("asc") {
                Order::Asc
            } else if meta.path.is_ident("desc") {
                Order::Desc
            } else {
                return Err(meta.error(format_args!(
                    "unknown clustering order `{}`: write `#[clustering(asc)]` or `#[clustering(desc)]`",
                    path_name(&meta)
                )));
            };
            if seen {
                return Err(meta.error(
                    "give one clustering order: `#[clustering(asc)]` or `#[clustering(desc)]`",
                ));
            }
            seen = true;
            order = o;
            Ok(())
        });
        if let Err(e) = res {
            cx.push(e);
        }
    } else if let syn::Meta::NameValue(_) = attr.meta {
        cx.error(
            attr,
            "write `#[clustering]`, `#[clustering(asc)]` or `#[clustering(desc)]`",
        );
    }
    if out.clustering.is_some() {
        cx.error(attr, "`#[clustering]` is given twice: remove one");
    } else if out.partition_key.is_some() {
        cx.error(
            attr,
            "a field is either part of the partition key or a clustering column, not both: \
             keep `#[partition_key]` or `#[clustering]`",
        );
    } else {
        out.clustering = Some((order, tokens));
    }
}

/// Parses the attributes of the struct itself.
pub fn container(cx: &mut Ctxt, attrs: &[Attribute], kind: Kind) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs {
        if !attr.path().is_ident("cass") {
            continue;
        }
        let res = attr.parse_nested_meta(|meta| container_option(cx, &meta, kind, &mut out));
        if let Err(e) = res {
            cx.push(e);
        }
    }
    out
}

/// One option of `#[cass(...)]` on the struct: the derive's own, `crate`, or an unknown one.
fn container_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    kind: Kind,
    out: &mut ContainerAttrs,
) -> syn::Result<()> {
    let known = if kind == Kind::Table {
        table_schema_option(cx, meta, out)?
            || table_model_option(cx, meta, out)?
            || table_copy_option(cx, meta, out)?
    } else {
        other_container_option(cx, meta, kind, out)?
    };
    if known {
        Ok(())
    } else if meta.path.is_ident("crate") {
        crate_option(cx, meta, out)
    } else {
        unknown_container_option(cx, meta, kind)
    }
}

/// A table's name, keyspace and CQL options; `false` when `meta` is none of them.
fn table_schema_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    out: &mut ContainerAttrs,
) -> syn::Result<bool> {
    let at = meta.path.span();
    let is = |n: &str| meta.path.is_ident(n);
    match () {
        _ if is("table") => {
            let (value, span) = string(meta)?;
            set_once(cx, &mut out.table, Spanned { value, span }, at, "`table`");
        }
        _ if is("keyspace") => {
            let (value, span) = string(meta)?;
            set_once(
                cx,
                &mut out.keyspace,
                Spanned { value, span },
                at,
                "`keyspace`",
            );
        }
        _ if is("default_ttl") => {
            let n = number(meta)?;
            set_once(cx, &mut out.default_ttl, n, at, "`default_ttl`");
        }
        _ if is("gc_grace_seconds") => {
            let n = number(meta)?;
            set_once(cx, &mut out.gc_grace_seconds, n, at, "`gc_grace_seconds`");
        }
        _ if is("comment") => {
            let (v, _) = string(meta)?;
            set_once(cx, &mut out.comment, v, at, "`comment`");
        }
        _ if is("compaction") => {
            let (value, span) = string(meta)?;
            set_once(
                cx,
                &mut out.compaction,
                Spanned { value, span },
                at,
                "`compaction`",
            );
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// A table's entities, view and expected growth; `false` when `meta` is none of them.
fn table_model_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    out: &mut ContainerAttrs,
) -> syn::Result<bool> {
    let at = meta.path.span();
    let is = |n: &str| meta.path.is_ident(n);
    match () {
        _ if is("entity") => {
            out.entities
                .push(path_value(meta, "#[cass(entity = EntityStruct)]")?);
        }
        _ if is("view_of") => {
            let path = path_value(meta, "#[cass(view_of = BaseTableStruct)]")?;
            set_once(cx, &mut out.view_of, path, at, "`view_of`");
        }
        // Taken as meant before a value is refused, so that no other error follows from its
        // absence.
        _ if is("all_columns") => {
            set_once(cx, &mut out.all_columns, at, at, "`all_columns`");
            bare(meta, "all_columns")?;
        }
        _ if is("expect") => {
            if let Some(e) = expect_option(cx, meta)? {
                set_once(cx, &mut out.expect, e, at, "`expect`");
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Where a table's rows are copied from and how; `false` when `meta` is none of these options.
fn table_copy_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    out: &mut ContainerAttrs,
) -> syn::Result<bool> {
    let at = meta.path.span();
    let is = |n: &str| meta.path.is_ident(n);
    match () {
        _ if is("from") => {
            let form = "`from = \"old_table\"` or `from = OldModel`";
            if !meta.input.peek(syn::Token![=]) {
                return Err(meta.error(format_args!("write {form}")));
            }
            let v = meta.value()?;
            let from = if v.peek(LitStr) {
                let lit: LitStr = v.parse()?;
                FromAttr::Table(Spanned {
                    value: lit.value(),
                    span: lit.span(),
                })
            } else {
                FromAttr::Model(v.parse()?)
            };
            set_once(cx, &mut out.from, from, at, "`from`");
        }
        _ if is("with") => {
            let path = path_value(meta, "#[cass(with = convert_fn)]")?;
            set_once(cx, &mut out.with, path, at, "`with`");
        }
        // Taken as meant before a value is refused, so that no other error follows from its
        // absence.
        _ if is("dual_writes") => {
            set_once(cx, &mut out.dual_writes, at, at, "`dual_writes`");
            bare(meta, "dual_writes")?;
        }
        _ if is("offline") => {
            set_once(cx, &mut out.offline, at, at, "`offline`");
            bare(meta, "offline")?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The options of a projection, an entity or a user-defined type; `false` for any other.
fn other_container_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    kind: Kind,
    out: &mut ContainerAttrs,
) -> syn::Result<bool> {
    let at = meta.path.span();
    let is = |n: &str| meta.path.is_ident(n);
    match kind {
        Kind::Projection if is("table") => {
            let path = path_value(meta, "#[cass(table = TableStruct)]")?;
            set_once(cx, &mut out.of, path, at, "`table`");
        }
        Kind::Entity if is("tables") => {
            let mut list = Vec::new();
            meta.parse_nested_meta(|t| {
                list.push(t.path.clone());
                Ok(())
            })?;
            if list.is_empty() {
                cx.error_at(at, "list the tables: `#[cass(tables(TableA, TableB))]`");
            }
            set_once(cx, &mut out.tables, list, at, "`tables`");
        }
        Kind::Entity if is("identity") => {
            let path = path_value(meta, "#[cass(identity = TableA)]")?;
            set_once(cx, &mut out.identity, path, at, "`identity`");
        }
        Kind::Udt if is("name") => {
            let (value, span) = string(meta)?;
            set_once(cx, &mut out.name, Spanned { value, span }, at, "`name`");
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `crate = "path"` on any derive's struct: the path the generated code names cassmodel by.
fn crate_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    out: &mut ContainerAttrs,
) -> syn::Result<()> {
    let at = meta.path.span();
    let (v, span) = string(meta)?;
    match syn::parse_str::<syn::Path>(&v) {
        Ok(p) => set_once(cx, &mut out.krate, p, at, "`crate`"),
        Err(_) => cx.error_at(
            span,
            format_args!("`{v}` is not a path: write e.g. `crate = \"::cassmodel\"`"),
        ),
    }
    Ok(())
}

/// Reports an option the struct's derive does not know, with the options it does.
fn unknown_container_option(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta<'_>,
    kind: Kind,
) -> syn::Result<()> {
    let (what, opts) = match kind {
        Kind::Table => ("#[derive(CassTable)]", TABLE_OPTIONS),
        Kind::Udt => ("#[derive(CassUdt)]", UDT_OPTIONS),
        Kind::Projection => ("#[derive(CassProjection)]", PROJECTION_OPTIONS),
        Kind::Entity => ("#[derive(CassEntity)]", ENTITY_OPTIONS),
    };
    unknown_option(cx, meta, &format!("a {what} struct"), opts)
}

/// The struct attributes of `#[derive(CassFunction)]` and `#[derive(CassAggregate)]`.
#[derive(Default)]
pub struct RoutineAttrs {
    pub name: Option<Spanned<String>>,
    pub keyspace: Option<Spanned<String>>,
    pub krate: Option<syn::Path>,
    /// A function's `returns = f32`.
    pub returns: Option<syn::Type>,
    /// A function's `body = ".."`.
    pub body: Option<Spanned<String>>,
    /// A function's `language = "java"`.
    pub language: Option<Spanned<String>>,
    /// A function's `called_on_null_input`.
    pub called_on_null_input: Option<Span>,
    /// An aggregate's `state_function = StateFn`.
    pub state_function: Option<syn::Path>,
    /// An aggregate's `final_function = FinalFn`.
    pub final_function: Option<syn::Path>,
    /// An aggregate's `initial = "(0, 0)"`.
    pub initial: Option<Spanned<String>>,
}

const FUNCTION_OPTIONS: &str = "`returns = RustType`, `body = \"..\"`, `language = \"java\"`, \
    `called_on_null_input`, `name = \"..\"`, `keyspace = \"..\"` or `crate = \"path\"`";
const AGGREGATE_OPTIONS: &str = "`state_function = StateFn`, `final_function = FinalFn`, \
    `initial = \"(0, 0)\"`, `name = \"..\"`, `keyspace = \"..\"` or `crate = \"path\"`";

/// Parses the attributes of a function's (`aggregate`: an aggregate's) struct.
pub fn routine(cx: &mut Ctxt, attrs: &[Attribute], aggregate: bool) -> RoutineAttrs {
    let mut out = RoutineAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("cass")) {
        let res = attr.parse_nested_meta(|meta| {
            let at = meta.path.span();
            let is = |n: &str| meta.path.is_ident(n);
            let text = |meta: &ParseNestedMeta<'_>| -> syn::Result<Spanned<String>> {
                let (value, span) = string(meta)?;
                Ok(Spanned { value, span })
            };
            match () {
                _ if is("name") => set_once(cx, &mut out.name, text(&meta)?, at, "`name`"),
                _ if is("keyspace") => {
                    set_once(cx, &mut out.keyspace, text(&meta)?, at, "`keyspace`")
                }
                _ if is("crate") => {
                    let path = path_value(&meta, "crate = \"::cassmodel\"")?;
                    set_once(cx, &mut out.krate, path, at, "`crate`");
                }
                _ if !aggregate && is("returns") => {
                    let ty: syn::Type = meta.value()?.parse()?;
                    set_once(cx, &mut out.returns, ty, at, "`returns`");
                }
                _ if !aggregate && is("body") => {
                    set_once(cx, &mut out.body, text(&meta)?, at, "`body`")
                }
                _ if !aggregate && is("language") => {
                    set_once(cx, &mut out.language, text(&meta)?, at, "`language`")
                }
                _ if !aggregate && is("called_on_null_input") => {
                    set_once(
                        cx,
                        &mut out.called_on_null_input,
                        at,
                        at,
                        "`called_on_null_input`",
                    );
                    bare(&meta, "called_on_null_input")?;
                }
                _ if aggregate && is("state_function") => {
                    let path = path_value(&meta, "#[cass(state_function = StateFn)]")?;
                    set_once(cx, &mut out.state_function, path, at, "`state_function`");
                }
                _ if aggregate && is("final_function") => {
                    let path = path_value(&meta, "#[cass(final_function = FinalFn)]")?;
                    set_once(cx, &mut out.final_function, path, at, "`final_function`");
                }
                _ if aggregate && is("initial") => {
                    set_once(cx, &mut out.initial, text(&meta)?, at, "`initial`")
                }
                _ => {
                    let (what, opts) = if aggregate {
                        ("a #[derive(CassAggregate)] struct", AGGREGATE_OPTIONS)
                    } else {
                        ("a #[derive(CassFunction)] struct", FUNCTION_OPTIONS)
                    };
                    unknown_option(cx, &meta, what, opts)?;
                }
            }
            Ok(())
        });
        if let Err(e) = res {
            cx.push(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> String {
        let e = text.parse::<CqlType>().unwrap_err();
        bad_cql_type(text, &e)
    }

    #[test]
    fn bad_cql_type_fixes() {
        assert!(message("ks.addr").ends_with("write `cql_type = \"addr\"`"));
        assert!(message("frozen<ks.addr>").ends_with("write `cql_type = \"frozen<addr>\"`"));
        assert!(message("lst<int>").ends_with("write `cql_type = \"list<int>\"`"));
        assert!(message("array<int>").contains("`list`, `set`, `map`"));
        assert!(
            message("list<list<list<int>>>")
                .ends_with("write `cql_type = \"list<frozen<list<frozen<list<int>>>>>\"`")
        );
        assert!(
            message("map<text,set<int>>")
                .ends_with("write `cql_type = \"map<text, frozen<set<int>>>\"`")
        );
        assert!(message("list<int").contains("is not a CQL type"));
    }
}
