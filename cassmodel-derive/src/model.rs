//! The description of a table or user-defined type built from the parsed struct.

use cassmodel_schema::{CqlType, IndexOp, IndexTarget, Similarity, field_index_name};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Fields};

use crate::attr::{self, BucketRule, ContainerAttrs, FieldAttrs, Kind, Order, RoutineAttrs};
use crate::ctxt::Ctxt;
use crate::types::{self, Shape};

/// The role of a column in its table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    PartitionKey,
    Clustering(Order),
    Static,
    Regular,
}

impl Role {
    pub fn is_key(self) -> bool {
        matches!(self, Role::PartitionKey | Role::Clustering(_))
    }
}

/// The non-frozen collection a column holds, with its element types: what its update
/// methods (`append_`, `put_`, ...) take.
#[derive(Clone, Copy)]
pub enum Collection<'a> {
    List(&'a syn::Type),
    Set(&'a syn::Type),
    Map(&'a syn::Type, &'a syn::Type),
}

pub struct Field<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    /// Its position among the struct's fields (the column index at run time).
    pub position: u16,
    /// The CQL column (or UDT field) name.
    pub column: String,
    /// Where to point when the name is wrong: the `name = "..."` value or the field.
    pub column_span: Span,
    pub role: Role,
    pub attrs: FieldAttrs,
    /// The secondary indexes on the column (`#[cass(index)]`, in tables), in declaration
    /// order: a map may have one each on its keys, values and entries.
    pub indexes: Vec<FieldIndex>,
    /// `masked = mask_inner(2, 1)`: the column's mask as written (checked by `check`).
    pub mask: Option<FieldMask>,
    /// The field's type without an outer `Option`.
    pub value_ty: &'a syn::Type,
    /// The shape of the field's type (`Option`, a collection, ...) as its syntax tells.
    pub shape: Shape,
    /// Its CQL type as far as the syntax tells (the `cql_type` override, else the Rust type's
    /// shape, `frozen` applied); `None` for a type the syntax does not tell (an alias, a UDT).
    pub cql_type: Option<CqlType>,
    /// The non-frozen collection it holds, as far as its type or `cql_type` tells.
    pub collection: Option<Collection<'a>>,
    /// Whether it is a counter (by its type or its `cql_type`).
    pub counter: bool,
    /// Whether its type is written `String` (key arguments then take `&str`).
    pub is_string: bool,
}

impl Field<'_> {
    /// The target of the field's first index, if it declares one (for messages).
    pub fn index_target(&self) -> Option<IndexTarget> {
        self.indexes.first().map(|ix| self.target_of(ix))
    }

    /// The target of the index `ix` of this field: the given one, else the default for its
    /// type (`values` for a non-frozen collection).
    pub fn target_of(&self, ix: &FieldIndex) -> IndexTarget {
        let given = ix.target.map(|(t, _)| t);
        match &self.cql_type {
            Some(t) => IndexTarget::resolve(given, t),
            None => given.unwrap_or(if self.collection.is_some() {
                IndexTarget::Values
            } else {
                IndexTarget::Column
            }),
        }
    }

    /// The field's index that answers `op` without `ALLOW FILTERING`, if one does.
    pub fn index_for(&self, op: IndexOp) -> Option<&FieldIndex> {
        self.indexes
            .iter()
            .find(|ix| self.target_serves(self.target_of(ix), op))
    }

    /// Whether the field's index answers `op` without `ALLOW FILTERING`. A range needs the
    /// column's CQL type, so it is `false` when the syntax does not tell it.
    pub fn index_serves(&self, op: IndexOp) -> bool {
        self.index_for(op).is_some()
    }

    /// Whether an index on `target` of this field answers `op`.
    fn target_serves(&self, target: IndexTarget, op: IndexOp) -> bool {
        match &self.cql_type {
            Some(t) => target.serves(op, t),
            None => match op {
                IndexOp::Range => false,
                IndexOp::Eq => matches!(target, IndexTarget::Column | IndexTarget::Full),
                _ => IndexTarget::for_op(op) == Some(target),
            },
        }
    }

    /// Whether the column is a `vector<float, N>` (a `Vector<N>` field, or its `cql_type`).
    pub fn is_vector(&self) -> bool {
        matches!(self.cql_type, Some(CqlType::Vector(..)))
            || types::shape(self.value_ty) == types::Shape::Vector
    }

    /// Whether the field is a counter column (by its type or its `cql_type` override).
    pub fn is_counter(&self) -> bool {
        self.counter
    }

    /// Every method the field gives a table's query builder, for the collision check. The
    /// generators name them the same way (`tests` in `generate` hold them to this list). In a
    /// table with a vector column, every other column also has an `ann_<field>` that exists
    /// to say that it is not a vector (`in_vector_table`).
    pub fn builder_methods(&self, in_vector_table: bool) -> Vec<String> {
        let n = self.ident.to_string();
        let with = |suffixes: &[&str]| {
            suffixes
                .iter()
                .map(|s| format!("{n}_{s}"))
                .collect::<Vec<_>>()
        };
        let mut out = vec![format!("order_by_{n}"), format!("set_{n}")];
        // A vector takes no `=`: it has `ann_<n>` instead.
        if !self.is_vector() || self.role.is_key() {
            out.push(n.clone());
        }
        if in_vector_table && !self.is_vector() {
            out.push(format!("ann_{n}"));
        }
        if self.role.is_key() {
            out.extend(with(&["in", "gt", "ge", "lt", "le"]));
            if self.attrs.bucket.is_some() {
                out.push(format!("{n}_range"));
                out.push(format!("{n}_latest"));
            }
            return out;
        }
        out.push(format!("if_{n}"));
        match self.collection {
            None if self.is_vector() => {
                out.extend([format!("ann_{n}"), format!("similarity_{n}")]);
            }
            None => out.extend(with(&["gt", "ge", "lt", "le"])),
            Some(Collection::Map(..)) => {
                out.extend(with(&["contains", "contains_key", "entry"]));
            }
            Some(_) => out.push(format!("{n}_contains")),
        }
        if self.counter {
            out.extend([format!("increment_{n}"), format!("decrement_{n}")]);
        }
        out.extend(match self.collection {
            Some(Collection::List(_)) => vec![
                format!("append_{n}"),
                format!("prepend_{n}"),
                format!("remove_{n}"),
                format!("set_{n}_at"),
            ],
            Some(Collection::Set(_)) => vec![format!("add_{n}"), format!("remove_{n}")],
            Some(Collection::Map(..)) => vec![
                format!("put_{n}"),
                format!("merge_{n}"),
                format!("remove_{n}_keys"),
            ],
            None => Vec::new(),
        });
        out
    }
}

/// Method names every builder has whatever the columns; a column method may not reuse one.
pub const BUILDER_METHODS: &[&str] = &[
    "with_score",
    "count_rows",
    "consistency",
    "serial_consistency",
    "timeout",
    "tracing",
    "idempotent",
    "limit",
    "per_partition_limit",
    "reversed",
    "page_size",
    "read_as",
    "fetch_all",
    "fetch_first",
    "fetch_stream",
    "fetch_page",
    "execute",
    "using_ttl",
    "using_timestamp",
    "if_exists",
];

/// The collection of a field (after an outer `Option`), unless it is frozen or its
/// `cql_type` says it is not a collection. A `Vec` whose `cql_type` is a set is that set, and
/// a `Vec` of pairs `(K, V)` whose `cql_type` is a map that map (the runtime reads and writes
/// them as such).
fn collection<'a>(value_ty: &'a syn::Type, attrs: &FieldAttrs) -> Option<Collection<'a>> {
    let cql = attrs.cql_type.as_ref().map(|t| &t.value);
    if attrs.frozen.is_some() || cql.is_some_and(|t| !t.is_collection()) {
        return None;
    }
    let args = types::type_args(value_ty);
    match types::shape(value_ty) {
        types::Shape::List if matches!(cql, Some(CqlType::Map(..))) => match args.first() {
            Some(syn::Type::Tuple(pair)) if pair.elems.len() == 2 => {
                Some(Collection::Map(&pair.elems[0], &pair.elems[1]))
            }
            _ => None,
        },
        // A `Vec` reads and writes a CQL set too: a set's methods (`add_`, `remove_`).
        types::Shape::List if matches!(cql, Some(CqlType::Set(_))) => {
            args.first().map(|e| Collection::Set(e))
        }
        types::Shape::List => args.first().map(|e| Collection::List(e)),
        types::Shape::Set => args.first().map(|e| Collection::Set(e)),
        types::Shape::Map => match args[..] {
            [k, v, ..] => Some(Collection::Map(k, v)),
            _ => None,
        },
        _ => None,
    }
}

/// The index a field declares, with its name resolved.
pub struct FieldIndex {
    /// The given name, or Cassandra's default `<table>_<column>_idx`.
    pub name: String,
    /// Whether `name = "..."` gave it.
    pub named: bool,
    /// Where to point for the name: the `name = "..."` value, or the whole option.
    pub name_span: Span,
    /// The target given (`keys`, ...) and where; `None`: the default for the column's type.
    pub target: Option<(IndexTarget, Span)>,
    /// The similarity function given (vector columns) and where.
    pub similarity: Option<(Similarity, Span)>,
    /// The whole `index(...)` option.
    pub tokens: TokenStream,
}

pub struct Table<'a> {
    pub ident: &'a syn::Ident,
    pub vis: &'a syn::Visibility,
    pub name: String,
    pub name_span: Span,
    pub attrs: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
    pub krate: syn::Path,
    /// The generated builder's name: `PostQuery` for `Post`.
    pub builder: syn::Ident,
    /// Positions (into `fields`) of the partition-key columns, in key order.
    pub partition_key: Vec<usize>,
    /// Positions of the clustering columns, in key order.
    pub clustering: Vec<usize>,
    /// The bucket column, declared with `#[cass(bucket(..))]` on its source field.
    pub bucket: Option<TableBucket>,
}

/// A bucket column: a partition-key column after the declared ones, computed from a field.
pub struct TableBucket {
    /// The source field's position in `fields`.
    pub source: usize,
    /// The bucket column's index at run time: after every field.
    pub index: u16,
    /// The rule (`None` after an error in it).
    pub rule: Option<BucketRule>,
    /// The column name: the given `name`, else `<source>_<period>` or `<source>_bucket`.
    pub column: String,
    /// Where to point for it: the `name = "..."` value, or the whole option.
    pub span: Span,
}

pub struct Udt<'a> {
    pub ident: &'a syn::Ident,
    pub name: String,
    pub name_span: Span,
    pub fields: Vec<Field<'a>>,
    pub krate: syn::Path,
}

pub struct Entity<'a> {
    pub ident: &'a syn::Ident,
    /// The tables the entity is stored in.
    pub tables: Vec<syn::Path>,
    /// Its identity table (`#[cass(identity = T)]`): keyed by what never changes in the
    /// entity, the table its changes read the stored entity from and are decided on.
    pub identity: Option<syn::Path>,
    /// Its fields, in order: the setters of its update.
    pub fields: Vec<(&'a syn::Ident, &'a syn::Type)>,
    pub vis: &'a syn::Visibility,
    pub krate: syn::Path,
}

pub struct Projection<'a> {
    pub ident: &'a syn::Ident,
    /// The table struct it reads from.
    pub table: syn::Path,
    /// The fields read from columns of the same name.
    pub fields: Vec<Field<'a>>,
    /// The fields read from a selector (`#[cass(select = ..)]`), in field order.
    pub computed: Vec<Computed<'a>>,
    pub krate: syn::Path,
}

/// A projection's field read from a CQL selector over the table's fields.
pub struct Computed<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    /// The selector's alias: the field's name without `r#`.
    pub alias: String,
    /// The function, lower case (CQL's unquoted names are), or `cast`; empty for another
    /// selector (arithmetic, a function of the models, nested calls).
    pub function: String,
    /// What the selector is; `None` for a function cassmodel does not know (reported by the
    /// check).
    pub kind: Option<SelectorKind>,
    /// The table's fields it reads, each once, in order.
    pub args: Vec<syn::Ident>,
    /// The whole selector.
    pub tree: Sel,
}

/// A selector as written: a field, a native function or cast of selectors, a function of the
/// models (by its type), arithmetic between selectors, a number.
pub enum Sel {
    Field(syn::Ident),
    /// A native function (lower case), or `cast` with its type.
    Call {
        function: String,
        span: Span,
        args: Vec<Sel>,
        cast: Option<(String, Span)>,
    },
    /// A function or aggregate of the models, by the path of its struct.
    User {
        path: syn::Path,
        args: Vec<Sel>,
    },
    /// `left op right`.
    Op(Box<Sel>, &'static str, Box<Sel>),
    /// A number, as written (with its sign).
    Number(String),
}

impl Sel {
    /// The selector in CQL's words (for messages).
    pub fn cql(&self) -> String {
        let list = |args: &[Sel]| args.iter().map(Sel::cql).collect::<Vec<_>>().join(", ");
        match self {
            Sel::Field(f) => f.to_string(),
            Sel::Call {
                cast: Some((to, _)),
                args,
                ..
            } => format!("cast({} as {to})", list(args)),
            Sel::Call { function, args, .. } => format!("{function}({})", list(args)),
            Sel::User { path, args } => {
                format!(
                    "{}({})",
                    quote::quote!(#path).to_string().replace(' ', ""),
                    list(args)
                )
            }
            Sel::Op(l, op, r) => format!("{} {op} {}", l.cql(), r.cql()),
            Sel::Number(n) => n.clone(),
        }
    }

    /// Every node, depth first.
    pub fn walk<'s>(&'s self, out: &mut Vec<&'s Sel>) {
        out.push(self);
        match self {
            Sel::Call { args, .. } | Sel::User { args, .. } => {
                for a in args {
                    a.walk(out);
                }
            }
            Sel::Op(l, _, r) => {
                l.walk(out);
                r.walk(out);
            }
            Sel::Field(_) | Sel::Number(_) => {}
        }
    }

    /// Whether a native aggregate is part of it.
    pub fn has_aggregate(&self) -> bool {
        let mut all = Vec::new();
        self.walk(&mut all);
        all.iter().any(|s| {
            matches!(s, Sel::Call { function, .. }
                if SelectorKind::of(function).is_some_and(SelectorKind::is_aggregate))
        })
    }

    /// The functions of the models it calls.
    pub fn user_calls(&self) -> Vec<(&syn::Path, &[Sel])> {
        let mut all = Vec::new();
        self.walk(&mut all);
        all.into_iter()
            .filter_map(|s| match s {
                Sel::User { path, args } => Some((path, args.as_slice())),
                _ => None,
            })
            .collect()
    }
}

/// What a selector's function is, for its rules and its result type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SelectorKind {
    /// `writetime(c)`: a `bigint`, of a single-cell regular or static column.
    WriteTime,
    /// `ttl(c)`: an `int` or null, of a single-cell regular or static column.
    Ttl,
    /// `min`, `max`, `sum`, `avg`: of the rows a read selects, one result row.
    Aggregate,
    /// `count(c)`: a `bigint`, of the rows a read selects, one result row.
    Count,
    /// A native scalar function of one column.
    Scalar,
    /// `cast(c as type)`.
    Cast,
    /// A function or aggregate of the models (`AvgRating(stars)`).
    User,
    /// Arithmetic, nested calls: checked node by node.
    Expression,
}

pub use cassmodel_schema::SCALAR_FUNCTIONS;

impl SelectorKind {
    /// The kind of function `name` (lower case); `None` for one cassmodel does not know.
    pub fn of(name: &str) -> Option<Self> {
        Some(match name {
            "writetime" => SelectorKind::WriteTime,
            "ttl" => SelectorKind::Ttl,
            "min" | "max" | "sum" | "avg" => SelectorKind::Aggregate,
            "count" => SelectorKind::Count,
            "cast" => SelectorKind::Cast,
            _ if SCALAR_FUNCTIONS.contains(&name) => SelectorKind::Scalar,
            _ => return None,
        })
    }

    /// Whether it reduces the rows a read selects to one.
    pub fn is_aggregate(self) -> bool {
        matches!(self, SelectorKind::Aggregate | SelectorKind::Count)
    }
}

impl Computed<'_> {
    /// The selector as the user wrote it, in CQL's words (for messages).
    pub fn cql(&self) -> String {
        self.tree.cql()
    }

    /// Whether it makes one row of all the rows a read selects (a native aggregate in it).
    pub fn is_aggregate(&self) -> bool {
        self.tree.has_aggregate()
    }
}

/// The selector of `#[cass(select = ..)]`; `None` (reported) for an expression that is not
/// one.
fn computed<'a>(
    cx: &mut Ctxt,
    ident: &'a syn::Ident,
    ty: &'a syn::Type,
    expr: &syn::Expr,
) -> Option<Computed<'a>> {
    let tree = selector(cx, expr)?;
    if matches!(tree, Sel::Field(_) | Sel::Number(_)) {
        cx.error(
            expr,
            format_args!(
                "a selector computes a value: write {}; a field named after a column reads \
                 that column without `select`",
                attr::SELECT_FORMS
            ),
        );
        return None;
    }
    let mut nodes = Vec::new();
    tree.walk(&mut nodes);
    let mut args: Vec<syn::Ident> = Vec::new();
    for n in &nodes {
        if let Sel::Field(f) = n
            && !args.contains(f)
        {
            args.push(f.clone());
        }
    }
    // A native function of fields keeps its own kind and rules; anything else is checked
    // node by node.
    let simple = match &tree {
        Sel::Call {
            function, args: a, ..
        } if a.iter().all(|a| matches!(a, Sel::Field(_))) => {
            Some((function.clone(), SelectorKind::of(function)))
        }
        _ => None,
    };
    let (function, kind) = match simple {
        Some(s) => s,
        None => {
            let kind = match &tree {
                Sel::User { .. } => SelectorKind::User,
                _ => SelectorKind::Expression,
            };
            (String::new(), Some(kind))
        }
    };
    let alias = ident.to_string();
    Some(Computed {
        ident,
        ty,
        alias: alias
            .strip_prefix("r#")
            .map_or(alias.clone(), str::to_owned),
        function,
        kind,
        args,
        tree,
    })
}

/// One selector: a field, a number, arithmetic, a call (a native function by its lower-case
/// name, `cast(x as type)`, a function of the models by its struct's path).
fn selector(cx: &mut Ctxt, expr: &syn::Expr) -> Option<Sel> {
    let bad = |cx: &mut Ctxt, at: &dyn quote::ToTokens| {
        cx.error(
            at,
            "this cannot be part of a selector, which is made of the table's fields (by their \
             Rust names), numbers, functions, casts and `+ - * / %`",
        );
    };
    match expr {
        syn::Expr::Paren(p) => selector(cx, &p.expr),
        syn::Expr::Group(g) => selector(cx, &g.expr),
        syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
            p.path.get_ident().cloned().map(Sel::Field)
        }
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => Some(Sel::Number(i.base10_digits().to_owned())),
            syn::Lit::Float(f) => Some(Sel::Number(f.base10_digits().to_owned())),
            _ => {
                bad(cx, expr);
                None
            }
        },
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match selector(cx, &u.expr)? {
            Sel::Number(n) => Some(Sel::Number(format!("-{n}"))),
            _ => {
                cx.error(
                    expr,
                    "write `0 - x` to negate a selector: CQL negates numbers only",
                );
                None
            }
        },
        syn::Expr::Binary(b) => {
            let op = match b.op {
                syn::BinOp::Add(_) => "+",
                syn::BinOp::Sub(_) => "-",
                syn::BinOp::Mul(_) => "*",
                syn::BinOp::Div(_) => "/",
                syn::BinOp::Rem(_) => "%",
                _ => {
                    cx.error(
                        b.op,
                        "a selector's arithmetic is `+`, `-`, `*`, `/` or `%` (Cassandra 4.0 and \
                         later)",
                    );
                    return None;
                }
            };
            let (l, r) = (selector(cx, &b.left), selector(cx, &b.right));
            Some(Sel::Op(Box::new(l?), op, Box::new(r?)))
        }
        syn::Expr::Call(call) => call_selector(cx, call),
        _ => {
            bad(cx, expr);
            None
        }
    }
}

fn call_selector(cx: &mut Ctxt, call: &syn::ExprCall) -> Option<Sel> {
    let syn::Expr::Path(func) = &*call.func else {
        cx.error(
            &call.func,
            "call a function by its name: `max(score)`, `RatingRatio(a, b)`",
        );
        return None;
    };
    let path = &func.path;
    // A native function by its name in any case (`max`, `WRITETIME`); an unknown name in
    // lower case is taken as meant to be native (the check names the forms); any other path
    // names the struct of a function of the models.
    let native = path.get_ident().filter(|i| {
        let name = i.to_string();
        SelectorKind::of(&name.to_lowercase()).is_some()
            || name.starts_with(|c: char| c.is_lowercase())
    });
    let Some(function) = native else {
        let mut args = Vec::new();
        for a in &call.args {
            args.push(selector(cx, a)?);
        }
        return Some(Sel::User {
            path: path.clone(),
            args,
        });
    };
    let name = function.to_string().to_lowercase();
    if name == "cast" {
        let cast = match call.args.first() {
            Some(syn::Expr::Cast(c)) if call.args.len() == 1 => Some(c),
            _ => None,
        };
        let to = cast.and_then(|c| match &*c.ty {
            syn::Type::Path(t) if t.qself.is_none() => t.path.get_ident(),
            _ => None,
        });
        let (Some(c), Some(to)) = (cast, to) else {
            cx.error(
                call,
                "write the cast as `cast(column as type)`, with a selector and a CQL type, e.g. \
                 `cast(score as text)`",
            );
            return None;
        };
        return Some(Sel::Call {
            function: name,
            span: function.span(),
            args: vec![selector(cx, &c.expr)?],
            cast: Some((to.to_string().to_lowercase(), to.span())),
        });
    }
    let mut args = Vec::new();
    for a in &call.args {
        args.push(selector(cx, a)?);
    }
    Some(Sel::Call {
        function: name,
        span: function.span(),
        args,
        cast: None,
    })
}

/// A user-defined function (`#[derive(CassFunction)]`) or aggregate (`#[derive(CassAggregate)]`):
/// its struct's fields are its parameters, in order.
pub struct Routine<'a> {
    pub ident: &'a syn::Ident,
    /// The CQL name: `name = ".."`, else the struct's name in snake case.
    pub name: String,
    pub keyspace: Option<String>,
    /// The parameters: name (without `r#`) and Rust type.
    pub params: Vec<(String, &'a syn::Type, &'a syn::Ident)>,
    pub attrs: RoutineAttrs,
    pub aggregate: bool,
    pub krate: syn::Path,
}

impl<'a> Routine<'a> {
    /// A function's model (`aggregate`: an aggregate's).
    pub fn from_input(cx: &mut Ctxt, input: &'a DeriveInput, aggregate: bool) -> Option<Self> {
        let attrs = attr::routine(cx, &input.attrs, aggregate);
        let derive = if aggregate {
            "CassAggregate"
        } else {
            "CassFunction"
        };
        let named = named_fields(cx, input, derive)?;
        let mut params = Vec::new();
        for f in &named.named {
            let ident = f.ident.as_ref()?;
            if let Some(a) = f.attrs.iter().find(|a| a.path().is_ident("cass")) {
                cx.error(
                    a,
                    format_args!(
                        "a field of a #[derive({derive})] struct is one parameter, named and \
                         typed by the field: remove this attribute"
                    ),
                );
            }
            let name = ident.to_string();
            let name = name.strip_prefix("r#").map_or(name.clone(), str::to_owned);
            params.push((name, &f.ty, ident));
        }
        let name = match &attrs.name {
            Some(n) => n.value.clone(),
            None => snake_case(&input.ident.to_string()),
        };
        Some(Routine {
            ident: &input.ident,
            name,
            keyspace: attrs.keyspace.as_ref().map(|k| k.value.clone()),
            params,
            krate: attrs
                .krate
                .clone()
                .unwrap_or_else(|| syn::parse_quote!(::cassmodel)),
            attrs,
            aggregate,
        })
    }
}

/// `PostsFacebook` -> `posts_facebook`, `HTTPLog` -> `http_log`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            let boundary = match prev {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                _ => false,
            };
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The named fields of a plain struct, or errors saying why the input is not one.
fn named_fields<'a>(
    cx: &mut Ctxt,
    input: &'a DeriveInput,
    derive: &str,
) -> Option<&'a syn::FieldsNamed> {
    let (what, part) = match derive {
        "CassTable" => ("a table", "column"),
        "CassFunction" | "CassAggregate" => ("a function", "parameter"),
        _ => ("a user-defined type", "UDT field"),
    };
    let generics = &input.generics;
    if generics.lifetimes().count() == generics.params.len() && !generics.params.is_empty() {
        cx.error(
            generics,
            format_args!(
                "#[derive({derive})] does not support lifetime parameters: cassmodel reads data into \
                 owned values, so use owned field types (`String` for `&str`, `Vec<u8>` for \
                 `&[u8]`)"
            ),
        );
    } else if !generics.params.is_empty() {
        cx.error(
            generics,
            format_args!(
                "#[derive({derive})] does not support generic parameters: {what} has one fixed \
                 set of column types, so write a struct with concrete field types"
            ),
        );
    }
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => Some(named),
            Fields::Unnamed(f) => {
                cx.error(
                    f,
                    format_args!(
                        "#[derive({derive})] needs named fields, one per {}: write \
                         `struct {} {{ id: Uuid, ... }}`",
                        part, input.ident
                    ),
                );
                None
            }
            Fields::Unit => {
                cx.error(
                    &input.ident,
                    format_args!(
                        "#[derive({derive})] needs named fields, one per {}: write \
                         `struct {} {{ id: Uuid, ... }}`",
                        part, input.ident
                    ),
                );
                None
            }
        },
        Data::Enum(e) => {
            cx.error_at(
                e.enum_token.span(),
                format_args!(
                    "#[derive({derive})] works on structs with named fields, not enums: {what} maps \
                     to a struct with one named field per {part} (to store an enum in a column, \
                     implement `cassmodel::model::CqlMapping` for it)"
                ),
            );
            None
        }
        Data::Union(u) => {
            cx.error_at(
                u.union_token.span(),
                format_args!("#[derive({derive})] works on structs with named fields, not unions"),
            );
            None
        }
    }
}

fn fields<'a>(cx: &mut Ctxt, named: &'a syn::FieldsNamed, kind: Kind) -> Vec<Field<'a>> {
    let mut out = Vec::new();
    for (position, f) in named.named.iter().enumerate() {
        let Some(ident) = &f.ident else { continue };
        let attrs = attr::field(cx, &f.attrs, kind);
        let role = if attrs.partition_key.is_some() {
            Role::PartitionKey
        } else if let Some((o, _)) = &attrs.clustering {
            Role::Clustering(*o)
        } else if attrs.is_static.is_some() {
            Role::Static
        } else {
            Role::Regular
        };
        let (column, column_span) = match &attrs.name {
            Some(n) => (n.value.clone(), n.span),
            None => {
                let s = ident.to_string();
                let s = s.strip_prefix("r#").map_or(s.clone(), str::to_owned);
                (s, ident.span())
            }
        };
        let value_ty = match types::shape(&f.ty) {
            types::Shape::Option => types::first_type_arg(&f.ty).unwrap_or(&f.ty),
            _ => &f.ty,
        };
        let cql_override = attrs.cql_type.as_ref().map(|c| &c.value);
        out.push(Field {
            ident,
            ty: &f.ty,
            position: u16::try_from(position).unwrap_or(u16::MAX),
            column,
            column_span,
            role,
            value_ty,
            shape: types::shape(&f.ty),
            cql_type: types::syntactic_cql_type(&f.ty, cql_override, attrs.frozen.is_some()),
            collection: collection(value_ty, &attrs),
            counter: types::is_counter(&f.ty, cql_override),
            is_string: types::is_string(&f.ty),
            mask: attrs.masked.as_ref().and_then(|e| field_mask(cx, e)),
            attrs,
            indexes: Vec::new(),
        });
    }
    out
}

/// A column's mask as written: the function (`None` for a name Cassandra has no masking
/// function of), its arguments, and where to point.
pub struct FieldMask {
    pub name: String,
    pub function: Option<cassmodel_schema::MaskFunction>,
    pub args: Vec<cassmodel_schema::MaskArg>,
    pub span: Span,
}

impl FieldMask {
    /// The mask, when its function is known.
    pub fn mask(&self) -> Option<cassmodel_schema::Mask> {
        Some(cassmodel_schema::Mask {
            function: self.function?,
            args: self.args.clone(),
        })
    }
}

/// `mask_inner(2, null, "#")` as a [`FieldMask`]: a call of a function by name, each argument
/// `null`, a number, a string or `true`/`false`; `None` (reported) for anything else.
fn field_mask(cx: &mut Ctxt, expr: &syn::Expr) -> Option<FieldMask> {
    use cassmodel_schema::MaskArg;
    let bad = |cx: &mut Ctxt, at: &dyn quote::ToTokens| {
        cx.error(
            at,
            "write the mask as a call of one of Cassandra's masking functions: \
             `masked = mask_null()`, `mask_default()`, `mask_replace(value)`, \
             `mask_inner(begin, end)`, `mask_outer(begin, end)` or `mask_hash()`",
        );
    };
    let syn::Expr::Call(call) = expr else {
        bad(cx, expr);
        return None;
    };
    let func = match &*call.func {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    };
    let Some(func) = func else {
        bad(cx, &call.func);
        return None;
    };
    let mut args = Vec::new();
    for a in &call.args {
        let arg = match a {
            syn::Expr::Path(p) if p.path.is_ident("null") => Some(MaskArg::Null),
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<i64>().ok().map(MaskArg::Int),
                syn::Lit::Str(s) => Some(MaskArg::Text(s.value())),
                syn::Lit::Float(f) => Some(MaskArg::Literal(f.base10_digits().to_owned())),
                syn::Lit::Bool(b) => Some(MaskArg::Literal(b.value.to_string())),
                _ => None,
            },
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i.base10_parse::<i64>().ok().map(|n| MaskArg::Int(-n)),
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Float(f),
                    ..
                }) => Some(MaskArg::Literal(format!("-{}", f.base10_digits()))),
                _ => None,
            },
            _ => None,
        };
        match arg {
            Some(arg) => args.push(arg),
            None => {
                cx.error(
                    a,
                    "a mask's argument is `null`, a number, a string (`\"#\"`) or `true`/`false`",
                );
                return None;
            }
        }
    }
    let name = func.to_string();
    Some(FieldMask {
        function: cassmodel_schema::MaskFunction::from_name(&name),
        name,
        args,
        span: func.span(),
    })
}

fn krate(attrs: &ContainerAttrs) -> syn::Path {
    attrs
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::cassmodel))
}

impl<'a> Table<'a> {
    pub fn from_input(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs, Kind::Table);
        let named = named_fields(cx, input, "CassTable")?;
        let mut fields = fields(cx, named, Kind::Table);
        let (name, name_span) = match &attrs.table {
            Some(t) => (t.value.clone(), t.span),
            None => (snake_case(&input.ident.to_string()), input.ident.span()),
        };
        for f in &mut fields {
            let indexes = f
                .attrs
                .index
                .iter()
                .enumerate()
                .map(|(n, ix)| {
                    let whole = ix
                        .tokens
                        .clone()
                        .into_iter()
                        .next()
                        .map_or(f.column_span, |t| t.span());
                    let mut index = FieldIndex {
                        name: String::new(),
                        named: ix.name.is_some(),
                        name_span: ix.name.as_ref().map_or(whole, |n| n.span),
                        target: ix.target.as_ref().map(|t| (t.value, t.span)),
                        similarity: ix.similarity.as_ref().map(|t| (t.value, t.span)),
                        tokens: ix.tokens.clone(),
                    };
                    index.name = match &ix.name {
                        Some(given) => given.value.clone(),
                        None => field_index_name(&name, &f.column, n, f.target_of(&index)),
                    };
                    index
                })
                .collect();
            f.indexes = indexes;
        }
        let positions = |pred: fn(Role) -> bool| {
            fields
                .iter()
                .enumerate()
                .filter(|(_, f)| pred(f.role))
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        let partition_key = positions(|r| r == Role::PartitionKey);
        let clustering = positions(|r| matches!(r, Role::Clustering(_)));
        let bucket = fields.iter().enumerate().find_map(|(i, f)| {
            let b = f.attrs.bucket.as_ref()?;
            let column = b.name.as_ref().map_or_else(
                || match b.rule {
                    Some(BucketRule::Period(p)) => format!("{}_{}", f.column, p.name()),
                    _ => format!("{}_bucket", f.column),
                },
                |n| n.value.clone(),
            );
            Some(TableBucket {
                source: i,
                index: u16::try_from(fields.len()).unwrap_or(u16::MAX),
                rule: b.rule,
                column,
                span: b.name.as_ref().map_or(b.span, |n| n.span),
            })
        });
        Some(Table {
            ident: &input.ident,
            vis: &input.vis,
            name,
            name_span,
            krate: krate(&attrs),
            attrs,
            builder: quote::format_ident!("{}Query", input.ident),
            fields,
            partition_key,
            clustering,
            bucket,
        })
    }

    /// 1 with a bucket column, else 0: the key states after the declared partition key
    /// are shifted by it.
    pub fn bucketed(&self) -> usize {
        usize::from(self.bucket.is_some())
    }

    /// The key state (number of key columns restricted) once the partition key is given.
    pub fn partition_state(&self) -> usize {
        self.partition_key.len() + self.bucketed()
    }

    /// The key state once the whole primary key is given.
    pub fn full_key_state(&self) -> usize {
        self.partition_key.len() + self.clustering.len() + self.bucketed()
    }

    /// The key state in which key column `i` (into `primary_key()`) is restricted. The
    /// bucket's source (the first clustering column) restricts the bucket and itself at once,
    /// from the state where the declared partition key is given.
    pub fn state_before(&self, i: usize) -> usize {
        let p = self.partition_key.len();
        if self.bucket.is_some() && i > p {
            i + 1
        } else {
            i
        }
    }

    /// The key state after key column `i` is restricted by `=`.
    pub fn state_after(&self, i: usize) -> usize {
        let p = self.partition_key.len();
        if self.bucket.is_some() && i >= p {
            i + 2
        } else {
            i + 1
        }
    }

    /// Whether a column is a vector: the table's builder then has `with_score` and an
    /// `ann_<field>` for every field.
    pub fn has_vector(&self) -> bool {
        self.fields.iter().any(Field::is_vector)
    }

    /// The vector columns, each with whether it has an index, for messages: "`embedding`
    /// (indexed), `draft` (no index)".
    pub fn vector_column_list(&self) -> String {
        self.fields
            .iter()
            .filter(|f| f.is_vector())
            .map(|f| {
                let indexed = if !f.indexes.is_empty() {
                    "indexed"
                } else {
                    "no index"
                };
                format!("`{}` ({indexed})", f.ident)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The partition key for messages: its columns, the bucket by its source.
    pub fn partition_key_names(&self) -> String {
        let mut names: Vec<String> = self
            .partition_key()
            .iter()
            .map(|f| f.column.clone())
            .collect();
        if let Some(b) = &self.bucket {
            names.push(self.bucket_source_note(b));
        }
        names.join(", ")
    }

    /// The primary key for messages, in the order its columns are restricted (a bucket's
    /// source, the first clustering column, is named with the partition key).
    pub fn key_names(&self) -> String {
        let clustering = self.clustering();
        let rest = clustering
            .iter()
            .skip(self.bucketed())
            .map(|f| f.column.as_str());
        std::iter::once(self.partition_key_names())
            .chain(rest.map(str::to_owned))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `submission_time (which gives the bucket submission_time_month)`.
    fn bucket_source_note(&self, b: &TableBucket) -> String {
        format!(
            "{} (which gives the bucket {})",
            self.fields[b.source].column, b.column
        )
    }

    /// Whether field `f` is the bucket's source.
    pub fn is_bucket_source(&self, f: &Field<'_>) -> bool {
        self.bucket
            .as_ref()
            .is_some_and(|b| usize::from(f.position) == b.source)
    }

    /// The partition-key columns, in key order.
    pub fn partition_key(&self) -> Vec<&Field<'a>> {
        self.partition_key
            .iter()
            .map(|&i| &self.fields[i])
            .collect()
    }

    /// The clustering columns, in key order.
    pub fn clustering(&self) -> Vec<&Field<'a>> {
        self.clustering.iter().map(|&i| &self.fields[i]).collect()
    }

    /// The primary key: partition key, then clustering columns.
    pub fn primary_key(&self) -> Vec<&Field<'a>> {
        let mut key = self.partition_key();
        key.extend(self.clustering());
        key
    }

    /// The first non-key counter column: `Some` makes this a counter table.
    pub fn counter_column(&self) -> Option<&Field<'a>> {
        self.fields
            .iter()
            .find(|f| !f.role.is_key() && f.is_counter())
    }

    /// Whether the table has a static column.
    pub fn has_static(&self) -> bool {
        self.fields.iter().any(|f| f.role == Role::Static)
    }

    /// Where to point for an error about the struct as a whole.
    pub fn whole(&self) -> impl ToTokens + '_ {
        self.ident
    }
}

impl<'a> Udt<'a> {
    pub fn from_input(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs, Kind::Udt);
        let named = named_fields(cx, input, "CassUdt")?;
        let fields = fields(cx, named, Kind::Udt);
        let (name, name_span) = match &attrs.name {
            Some(t) => (t.value.clone(), t.span),
            None => (snake_case(&input.ident.to_string()), input.ident.span()),
        };
        Some(Udt {
            ident: &input.ident,
            name,
            name_span,
            krate: krate(&attrs),
            fields,
        })
    }
}

impl<'a> Projection<'a> {
    pub fn from_input(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs, Kind::Projection);
        let named = named_fields(cx, input, "CassProjection")?;
        let (mut fields, mut computed) = (Vec::new(), Vec::new());
        for f in self::fields(cx, named, Kind::Projection) {
            match &f.attrs.select {
                Some(expr) => computed.extend(self::computed(cx, f.ident, f.ty, expr)),
                None => fields.push(f),
            }
        }
        let Some(table) = attrs.of.clone() else {
            cx.error(
                &input.ident,
                format_args!(
                    "name the table this projection reads from: `#[cass(table = Post)]` above \
                     `struct {}`",
                    input.ident
                ),
            );
            return None;
        };
        Some(Projection {
            ident: &input.ident,
            table,
            krate: krate(&attrs),
            fields,
            computed,
        })
    }
}

impl<'a> Entity<'a> {
    pub fn from_input(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Self> {
        let attrs = attr::container(cx, &input.attrs, Kind::Entity);
        let named = named_fields(cx, input, "CassEntity")?;
        let _ = fields(cx, named, Kind::Entity);
        let Some(tables) = attrs.tables.clone() else {
            cx.error(
                &input.ident,
                format_args!(
                    "list the tables `{}` is stored in: `#[cass(tables(TableA, TableB))]`",
                    input.ident
                ),
            );
            return None;
        };
        let fields = named
            .named
            .iter()
            .filter_map(|f| Some((f.ident.as_ref()?, &f.ty)))
            .collect();
        Some(Entity {
            ident: &input.ident,
            tables,
            identity: attrs.identity.clone(),
            fields,
            vis: &input.vis,
            krate: krate(&attrs),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake() {
        assert_eq!(snake_case("PostsFacebook"), "posts_facebook");
        assert_eq!(snake_case("HTTPLog"), "http_log");
        assert_eq!(snake_case("T3"), "t3");
        assert_eq!(snake_case("Order2Items"), "order2_items");
        assert_eq!(snake_case("customer"), "customer");
    }
}
