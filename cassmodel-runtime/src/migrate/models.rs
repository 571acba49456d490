//! [`Models`]: the tables and user-defined types a migration manages, and how they are placed
//! in their keyspaces (the [`Target`] a plan is computed from).

use std::collections::{BTreeMap, BTreeSet};

use super::error::MigrationError;
use super::target::{Placed, Target};
use crate::mapping::function::CqlFunction;
use crate::mapping::table::Table;
use crate::mapping::udt::Udt;
use crate::schema::ddl;
use crate::schema::function::{FunctionSchema, UserFunction};
use crate::schema::model::{TableSchema, UdtSchema};
use crate::schema::registry::{registered_functions, registered_tables, registered_udts};

/// The tables and user-defined types a migration manages.
///
/// ```
/// # use cassmodel_runtime as cassmodel;
/// use cassmodel::migrate::Models;
/// // Every derive in the binary:
/// let all = Models::registered();
/// // Or an explicit list (works without the registry):
/// // let some = Models::new().table::<Customer>().table::<Order>().udt::<Address>();
/// # let _ = all;
/// ```
#[derive(Debug, Clone, Default)]
pub struct Models {
    tables: Vec<&'static TableSchema>,
    udts: Vec<&'static UdtSchema>,
    functions: Vec<UserFunction>,
}

impl Models {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every `#[derive(CassTable)]`, `#[derive(CassUdt)]`, `#[derive(CassFunction)]` and
    /// `#[derive(CassAggregate)]` type linked into the binary.
    pub fn registered() -> Self {
        Models {
            tables: registered_tables(),
            udts: registered_udts(),
            functions: registered_functions(),
        }
    }

    /// Adds table `T` (and the user-defined types it uses).
    pub fn table<T: Table>(self) -> Self {
        self.table_schema(T::schema())
    }

    /// Adds a table by its description (a materialized view with its base table).
    pub fn table_schema(mut self, schema: &'static TableSchema) -> Self {
        if let Some(base) = schema.view_of {
            self = self.table_schema(base);
        }
        if !self.tables.iter().any(|t| std::ptr::eq(*t, schema)) {
            self.tables.push(schema);
        }
        self
    }

    /// Adds user-defined type `U`. Types used by a table are added with the table; add a
    /// type here only to create it where no table uses it (in the default keyspace).
    pub fn udt<U: Udt>(mut self) -> Self {
        let schema = U::udt_schema();
        if !self.udts.iter().any(|u| std::ptr::eq(*u, schema)) {
            self.udts.push(schema);
        }
        self
    }

    /// Adds user-defined function or aggregate `F` (an aggregate with its functions), created
    /// in its declared keyspace or the default one.
    pub fn function<F: CqlFunction>(mut self) -> Self {
        let f = F::declaration();
        if !self.functions.contains(&f) {
            self.functions.push(f);
        }
        self
    }

    /// The user-defined functions and aggregates, in the order given.
    pub fn functions(&self) -> &[UserFunction] {
        &self.functions
    }

    /// The tables, in the order given.
    pub fn tables(&self) -> &[&'static TableSchema] {
        &self.tables
    }

    /// The user-defined types given explicitly (or registered), in the order given.
    pub fn udts(&self) -> &[&'static UdtSchema] {
        &self.udts
    }

    /// Places every model in its keyspace: the declared one after `resolve`, or the default.
    /// Two different structs for one table (or type) are an error.
    pub(crate) fn resolve<'a>(
        &self,
        resolve: impl Fn(Option<&'static str>) -> Option<&'a str>,
    ) -> Result<Target, MigrationError> {
        let mut problems = Vec::new();
        let tables = place_tables(&self.tables, &resolve, &mut problems);
        index_name_problems(&tables, &mut problems);
        let udts = place_udts(&tables, &self.udts, resolve(None), &mut problems);
        let functions = place_functions(&self.functions, &resolve, &mut problems);
        if !problems.is_empty() {
            return Err(MigrationError::Models(problems));
        }
        Ok(Target {
            functions,
            tables: tables.into_iter().map(|((ks, _), t)| (ks, t)).collect(),
            udts: udts
                .into_iter()
                .map(|(ks, by_name)| (ks, dependency_order(by_name.into_values().collect())))
                .collect(),
        })
    }
}

/// The columns of view `t` that its base table lacks (by their CQL names; the derive checks
/// the fields and their Rust types).
fn view_problems(t: &TableSchema, base: &TableSchema) -> Vec<String> {
    let mut out = Vec::new();
    for c in &t.columns {
        match base.column_index(c.name).and_then(|i| base.column(i)) {
            None => out.push(format!(
                "view `{}` (struct `{}`) has a column `{}`, which its base table `{}` (struct \
                 `{}`) lacks: a view's columns are its base's, by the same names (give the \
                 field the base field's #[cass(name = \"..\")])",
                t.name, t.rust_name, c.name, base.name, base.rust_name
            )),
            Some(b) if b.cql_type.canonical() != c.cql_type.canonical() => out.push(format!(
                "view `{}` (struct `{}`) has column `{}` as {}, and its base table `{}` as {}: \
                 give the view's field the base field's type",
                t.name, t.rust_name, c.name, c.cql_type, base.name, b.cql_type
            )),
            Some(_) => {}
        }
    }
    out
}

/// The functions and aggregates in their keyspaces: per keyspace, the functions (those of
/// the aggregates too) by name, then the aggregates by name. Two different declarations of
/// one signature are a problem.
fn place_functions<'a>(
    declared: &[UserFunction],
    resolve: &impl Fn(Option<&'static str>) -> Option<&'a str>,
    problems: &mut Vec<String>,
) -> BTreeMap<String, Placed> {
    let mut out: BTreeMap<String, Placed> = BTreeMap::new();
    for &f in declared {
        let Some(ks) = resolve(f.keyspace()) else {
            problems.push(format!(
                "function `{}` (struct `{}`) has no keyspace: give a default keyspace \
                 (`--keyspace`, `Db::with_keyspace`) or annotate the struct with \
                 #[cass(keyspace = \"...\")]",
                f.name(),
                f.rust_name()
            ));
            continue;
        };
        let placed = out.entry(ks.to_owned()).or_default();
        match f {
            UserFunction::Function(f) => placed.add_function(ks, f, problems),
            UserFunction::Aggregate(a) => {
                for f in a.functions() {
                    placed.add_function(ks, f, problems);
                }
                if !placed.aggregates.iter().any(|o| o == &a) {
                    placed.aggregates.push(a);
                }
            }
        }
    }
    for placed in out.values_mut() {
        placed.functions.sort_by_key(|f| (f.name, f.rust_name));
        placed.aggregates.sort_by_key(|a| (a.name, a.rust_name));
    }
    out
}

impl Placed {
    fn add_function(&mut self, ks: &str, f: &'static FunctionSchema, problems: &mut Vec<String>) {
        let same_signature = |o: &&&FunctionSchema| {
            o.name == f.name
                && o.params
                    .iter()
                    .map(|(_, t)| t.canonical())
                    .eq(f.params.iter().map(|(_, t)| t.canonical()))
        };
        match self.functions.iter().find(same_signature) {
            Some(o) if *o != f => problems.push(format!(
                "function `{ks}.{}` is declared by two structs that differ, `{}` and `{}`: keep \
                 one of them in the models",
                f.name, o.rust_name, f.rust_name
            )),
            Some(_) => {}
            None => self.functions.push(f),
        }
    }
}

/// UDTs sorted by name, each after the types it refers to.
fn dependency_order(mut udts: Vec<&'static UdtSchema>) -> Vec<&'static UdtSchema> {
    udts.sort_by_key(|u| u.name);
    let mut out: Vec<&'static UdtSchema> = Vec::new();
    fn visit(u: &'static UdtSchema, all: &[&'static UdtSchema], out: &mut Vec<&'static UdtSchema>) {
        if out.iter().any(|o| o.name == u.name) {
            return;
        }
        for d in u.dependencies() {
            // The dependency as the set knows it (same name), so one definition is used.
            let d = all.iter().find(|a| a.name == d.name).copied().unwrap_or(d);
            visit(d, all, out);
        }
        out.push(u);
    }
    for &u in &udts {
        visit(u, &udts, &mut out);
    }
    out
}

/// Tables by keyspace and name.
type PlacedTables = BTreeMap<(String, String), &'static TableSchema>;

/// Each table in the keyspace `resolve` gives it; a table without one, or described by two
/// structs that differ, is a problem (and so is a view's, by [`view_problems`]).
fn place_tables<'a>(
    given: &[&'static TableSchema],
    resolve: &impl Fn(Option<&'static str>) -> Option<&'a str>,
    problems: &mut Vec<String>,
) -> PlacedTables {
    let mut tables = PlacedTables::new();
    for &t in given {
        let Some(ks) = resolve(t.keyspace) else {
            problems.push(format!(
                "table `{}` (struct `{}`) has no keyspace: give a default keyspace \
                 (`--keyspace`, `Db::with_keyspace`) or annotate the struct with \
                 #[cass(keyspace = \"...\")]",
                t.name, t.rust_name
            ));
            continue;
        };
        if let Some(base) = t.view_of {
            problems.extend(view_problems(t, base));
        }
        let key = (ks.to_owned(), t.name.to_owned());
        match tables.get(&key) {
            Some(other)
                if ddl::create_table_with_types(other, ks)
                    != ddl::create_table_with_types(t, ks) =>
            {
                problems.push(format!(
                    "table `{ks}.{}` is described by two structs that differ, `{}` and \
                     `{}`: keep one of them in the models",
                    t.name, other.rust_name, t.rust_name
                ));
            }
            Some(_) => {}
            None => {
                tables.insert(key, t);
            }
        }
    }
    tables
}

/// Index names are unique per keyspace: a name declared on two tables is a problem.
fn index_name_problems(tables: &PlacedTables, problems: &mut Vec<String>) {
    let mut index_names: BTreeMap<(&str, &str), &'static TableSchema> = BTreeMap::new();
    for ((ks, _), &t) in tables {
        for (_, i) in t.indexes() {
            match index_names.get(&(ks.as_str(), i.name)) {
                Some(other) => problems.push(format!(
                    "index `{ks}.{}` is declared on two tables, `{}` (struct `{}`) and `{}` \
                     (struct `{}`): index names are unique per keyspace, so rename one with \
                     #[cass(index(name = \"...\"))]",
                    i.name, other.name, other.rust_name, t.name, t.rust_name
                )),
                None => {
                    index_names.insert((ks.as_str(), i.name), t);
                }
            }
        }
    }
}

/// The user-defined types by keyspace and name: those the tables use, in their tables'
/// keyspaces, and the others given (with the types they use) in the `default` keyspace; a
/// type described by two structs that differ is a problem.
fn place_udts(
    tables: &PlacedTables,
    given: &[&'static UdtSchema],
    default: Option<&str>,
    problems: &mut Vec<String>,
) -> BTreeMap<String, BTreeMap<String, &'static UdtSchema>> {
    let mut udts: BTreeMap<String, BTreeMap<String, &'static UdtSchema>> = BTreeMap::new();
    let mut add_udt = |ks: &str, u: &'static UdtSchema, problems: &mut Vec<String>| {
        let in_ks = udts.entry(ks.to_owned()).or_default();
        match in_ks.get(u.name) {
            Some(other) if ddl::create_type(other, ks) != ddl::create_type(u, ks) => {
                problems.push(format!(
                    "type `{ks}.{}` is described by two structs that differ, `{}` and `{}`: \
                     keep one of them in the models",
                    u.name, other.rust_name, u.rust_name
                ));
            }
            Some(_) => {}
            None => {
                in_ks.insert(u.name.to_owned(), u);
            }
        }
    };
    let mut used: BTreeSet<&str> = BTreeSet::new();
    for ((ks, _), t) in tables {
        for &u in t.udts() {
            used.insert(u.name);
            add_udt(ks, u, problems);
        }
    }
    if let Some(default) = default {
        for &u in given {
            if !used.contains(u.name) {
                for &d in u.dependencies() {
                    add_udt(default, d, problems);
                }
                add_udt(default, u, problems);
            }
        }
    }
    udts
}
