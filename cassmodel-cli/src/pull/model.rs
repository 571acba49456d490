//! What to generate for a keyspace, every fact resolved once: each type's and table's
//! struct, each field with its attributes, and each thing of the keyspace that cannot be
//! written as a model, with the reason. [`super::render`] only prints it.

use std::collections::{BTreeMap, BTreeSet};

use cassmodel_runtime::migrate::{LiveIndex, LiveKeyspace, LiveTable, LiveType, LiveView};
use cassmodel_runtime::{ColumnKind, CqlType, IndexTarget, Order, Similarity};
use cassmodel_schema::{default_index_name, field_index_name};

use super::names::{field_ident, type_ident, unique, unique_snake};
use super::types::{IMPORTED, RustType, Uses, rust_type, too_complex};

/// `gc_grace_seconds` of a table created without it.
const DEFAULT_GC_GRACE: i32 = 864_000;
/// The compaction of a table created without one (Cassandra 4.x and 5.0 `cassandra.yaml`).
const DEFAULT_COMPACTION: &str = "SizeTieredCompactionStrategy";
/// The package of Cassandra's own compaction classes, which the derive names by short name.
const COMPACTION_PACKAGE: &str = "org.apache.cassandra.db.compaction.";
/// Option keys of an SAI index that the derive declares.
const DECLARED_INDEX_OPTIONS: &[&str] = &["target", "class_name", "similarity_function"];

/// A keyspace's models.
#[derive(Debug, Default)]
pub(super) struct Module {
    /// User-defined types, dependencies first.
    pub udts: Vec<Item>,
    /// Tables, by name.
    pub tables: Vec<Item>,
    /// What the keyspace has that is not generated, one sentence each.
    pub skipped: Vec<String>,
    /// Every `use` the items need.
    pub uses: Uses,
}

/// One struct: a table's or a type's.
#[derive(Debug)]
pub(super) struct Item {
    /// The struct's name.
    pub ident: String,
    /// The table's or type's name in CQL.
    pub name: String,
    /// Struct-level `#[cass(..)]` options after the name (`default_ttl = 3600`, ...).
    pub options: Vec<String>,
    pub fields: Vec<Field>,
    /// The structs of the user-defined types it uses.
    pub uses_udts: BTreeSet<String>,
    /// The `use` items of its fields.
    pub uses: Uses,
    /// Doc lines: what the cluster has on it that the model does not declare.
    pub notes: Vec<String>,
}

/// One field.
#[derive(Debug)]
pub(super) struct Field {
    /// As written, `r#type` for a keyword.
    pub ident: String,
    /// `#[partition_key]`, `#[clustering(desc)]`, ... (table fields only).
    pub key: Option<&'static str>,
    /// `#[cass(..)]` options: `name = "..."`, `cql_type = "..."`, `frozen`, `static`,
    /// `index(..)`.
    pub options: Vec<String>,
    /// Its Rust type as written.
    pub ty: String,
    /// Whether clippy's `type_complexity` lint is allowed on it (a long tuple type).
    pub complex: bool,
    /// Doc lines: what the cluster has on this column that the model does not declare.
    pub notes: Vec<String>,
}

/// The models of `keyspace`: every type and table, or the tables named in `tables` and the
/// types they use.
pub(super) fn module(keyspace: &LiveKeyspace, tables: &[String]) -> Result<Module, String> {
    let mut out = Module::default();
    let picked: Vec<&LiveTable> = if tables.is_empty() {
        keyspace.tables.values().collect()
    } else {
        tables
            .iter()
            .map(|t| {
                keyspace.tables.get(t).ok_or_else(|| {
                    format!(
                        "the keyspace `{}` has no table `{t}`; its tables: {}",
                        keyspace.name,
                        keyspace
                            .tables
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let udt_order = udts_in_order(keyspace, &picked);
    // The views of the tables picked (tables and views share one namespace).
    let views: Vec<&LiveView> = keyspace
        .views
        .values()
        .filter(|v| picked.iter().any(|t| t.name == v.base_table))
        .collect();
    let names = struct_names(
        udt_order.iter().map(|t| t.name.as_str()),
        picked
            .iter()
            .map(|t| t.name.as_str())
            .chain(views.iter().map(|v| v.name.as_str())),
    );
    let udt_idents: BTreeMap<String, String> = udt_order
        .iter()
        .map(|t| (t.name.clone(), names[&(true, t.name.clone())].clone()))
        .collect();
    for t in &udt_order {
        match udt_item(t, &udt_idents) {
            Ok(item) => out.udts.push(item),
            Err(why) => out.skipped.push(format!("type `{}`: {why}", t.name)),
        }
    }
    for t in picked {
        let ident = names[&(false, t.name.clone())].clone();
        match table_item(t, ident, &udt_idents) {
            Ok(item) => out.tables.push(item),
            Err(why) => out.skipped.push(format!("table `{}`: {why}", t.name)),
        }
    }
    for v in views {
        let ident = names[&(false, v.name.clone())].clone();
        let base = names[&(false, v.base_table.clone())].clone();
        if !out.tables.iter().any(|t| t.ident == base) {
            out.skipped.push(format!(
                "materialized view `{}`: its base table `{}` is not generated",
                v.name, v.base_table
            ));
            continue;
        }
        match view_item(v, ident, &base, &udt_idents) {
            Ok(item) => out.tables.push(item),
            Err(why) => out
                .skipped
                .push(format!("materialized view `{}`: {why}", v.name)),
        }
    }
    // A type or table that uses a type that was not generated cannot be either, nor what
    // uses it in turn.
    loop {
        let missing: BTreeSet<String> = udt_order
            .iter()
            .map(|t| &udt_idents[&t.name])
            .filter(|i| !out.udts.iter().any(|u| &&u.ident == i))
            .cloned()
            .collect();
        let before = out.udts.len() + out.tables.len();
        for items in [&mut out.udts, &mut out.tables] {
            items.retain(|item| {
                let Some(lacking) = item.uses_udts.intersection(&missing).next() else {
                    return true;
                };
                out.skipped.push(format!(
                    "`{}`: it uses the type struct `{lacking}`, which is not generated",
                    item.name
                ));
                false
            });
        }
        if out.udts.len() + out.tables.len() == before {
            break;
        }
    }
    for item in out.udts.iter().chain(&out.tables) {
        out.uses.extend(&item.uses);
    }
    Ok(out)
}

/// The user-defined types the tables use (with the types those use), or every type of the
/// keyspace when all tables are picked; dependencies first, then by name.
fn udts_in_order<'a>(keyspace: &'a LiveKeyspace, tables: &[&LiveTable]) -> Vec<&'a LiveType> {
    let mut wanted: Vec<&str> = if tables.len() == keyspace.tables.len() {
        keyspace.types.keys().map(String::as_str).collect()
    } else {
        tables
            .iter()
            .flat_map(|t| t.columns.iter())
            .flat_map(|c| c.cql_type.udt_names())
            .collect()
    };
    wanted.sort_unstable();
    wanted.dedup();
    let mut out: Vec<&LiveType> = Vec::new();
    fn visit<'a>(ks: &'a LiveKeyspace, name: &str, out: &mut Vec<&'a LiveType>, depth: usize) {
        let Some(t) = ks.types.get(name) else { return };
        if out.iter().any(|o| o.name == name) || depth > ks.types.len() {
            return;
        }
        for (_, ft, _) in &t.fields {
            for dep in ft.udt_names() {
                visit(ks, dep, out, depth + 1);
            }
        }
        if !out.iter().any(|o| o.name == name) {
            out.push(t);
        }
    }
    for name in wanted {
        visit(keyspace, name, &mut out, 0);
    }
    out
}

/// A struct name for every type (`(true, name)`) and table (`(false, name)`), unique, and
/// none a name the module imports: a clash gets `Type` or `Table` after it.
fn struct_names<'a>(
    udts: impl Iterator<Item = &'a str>,
    tables: impl Iterator<Item = &'a str>,
) -> BTreeMap<(bool, String), String> {
    let mut taken: BTreeSet<String> = IMPORTED.iter().map(|s| (*s).to_owned()).collect();
    taken.extend(["String", "Vec", "Option", "Box", "Result", "Self"].map(str::to_owned));
    let mut out = BTreeMap::new();
    for (is_udt, name) in udts.map(|n| (true, n)).chain(tables.map(|n| (false, n))) {
        let base = type_ident(name);
        let suffix = if is_udt { "Type" } else { "Table" };
        let ident = unique(base.clone(), &mut taken, |n| match n {
            1 => format!("{base}{suffix}"),
            n => format!("{base}{suffix}{n}"),
        });
        out.insert((is_udt, name.to_owned()), ident);
    }
    out
}

fn udt_item(t: &LiveType, udts: &BTreeMap<String, String>) -> Result<Item, String> {
    let mut item = Item {
        ident: udts[&t.name].clone(),
        name: t.name.clone(),
        options: Vec::new(),
        fields: Vec::new(),
        uses_udts: BTreeSet::new(),
        uses: Uses::new(),
        notes: Vec::new(),
    };
    let mut idents = BTreeSet::new();
    for (name, cql_type, text) in &t.fields {
        let mut f = field(
            name,
            cql_type,
            text,
            Of::TypeField,
            udts,
            &mut item,
            &mut idents,
        )
        .map_err(|why| format!("field `{name}`: {why}"))?;
        f.key = None;
        item.fields.push(f);
    }
    Ok(item)
}

/// A materialized view as a table struct with `view_of = Base` (and `all_columns` for a
/// view of every column, `SELECT *`): its columns as the cluster has them (fields named as
/// the base's, which the derive matches by name); a view that selects rows by more than its
/// key columns being not null cannot be declared.
fn view_item(
    v: &LiveView,
    ident: String,
    base: &str,
    udts: &BTreeMap<String, String>,
) -> Result<Item, String> {
    if !v.selects_rows_by_key_only() {
        return Err(format!(
            "it selects rows `WHERE {}`, and a declared view selects every row whose key \
             columns are not null",
            v.where_clause
        ));
    }
    let mut item = table_item(&v.table, ident, udts)?;
    item.options = vec![format!("view_of = {base}")];
    // `SELECT *`: its fields are every column of its base (the view has them all).
    if v.include_all_columns {
        item.options.push("all_columns".to_owned());
    }
    Ok(item)
}

fn table_item(
    t: &LiveTable,
    ident: String,
    udts: &BTreeMap<String, String>,
) -> Result<Item, String> {
    if t.compact_storage {
        return Err(
            "a COMPACT STORAGE table, which cassmodel does not model (Cassandra 4.0 and \
                    later cannot create one either: `ALTER TABLE .. DROP COMPACT STORAGE` first)"
                .to_owned(),
        );
    }
    let mut item = Item {
        ident,
        name: t.name.clone(),
        options: table_options(t),
        fields: Vec::new(),
        uses_udts: BTreeSet::new(),
        uses: Uses::new(),
        notes: Vec::new(),
    };
    let mut idents = BTreeSet::new();
    for c in &t.columns {
        let (key, nullable) = match c.kind {
            ColumnKind::PartitionKey => (Some("partition_key"), false),
            ColumnKind::Clustering(Order::Asc) => (Some("clustering"), false),
            ColumnKind::Clustering(Order::Desc) => (Some("clustering(desc)"), false),
            ColumnKind::Static | ColumnKind::Regular => (None, true),
        };
        let mut f = field(
            &c.name,
            &c.cql_type,
            &c.type_text,
            Of::Column { nullable },
            udts,
            &mut item,
            &mut idents,
        )
        .map_err(|why| format!("column `{}`: {why}", c.name))?;
        f.key = key;
        if c.kind == ColumnKind::Static {
            f.options.push("static".to_owned());
        }
        if let Some(m) = &c.mask {
            f.options.push(format!("masked = {}", m.rust_form()));
        }
        item.fields.push(f);
    }
    indexes(t, &mut item);
    Ok(item)
}

/// What a generated field stands for.
#[derive(Clone, Copy)]
enum Of {
    /// A table's column; a key column is never null.
    Column { nullable: bool },
    /// A user-defined type's field (nullable, a collection too): the derive freezes its type
    /// as a collection element ([`CqlType::frozen_for_nesting`]) unless the field declares it.
    TypeField,
}

/// The field for a column or UDT field `name` of type `t` (`text` as `system_schema` has
/// it). A nullable column that is not a collection is an `Option`, a collection column that
/// is not frozen is not (Cassandra stores an empty one as null, which reads back empty); a
/// type's field always is (in a frozen value a null collection and an empty one differ).
fn field(
    name: &str,
    t: &CqlType,
    text: &str,
    of: Of,
    udts: &BTreeMap<String, String>,
    item: &mut Item,
    idents: &mut BTreeSet<String>,
) -> Result<Field, String> {
    let (inner, frozen) = match t {
        CqlType::Frozen(inner) if !matches!(**inner, CqlType::Tuple(_)) => (&**inner, true),
        t => (t, false),
    };
    let RustType {
        text: ty, implied, ..
    } = rust_type(inner, udts, &mut item.uses)?;
    item.uses_udts.extend(
        t.udt_names()
            .into_iter()
            .filter_map(|n| udts.get(n).cloned()),
    );
    let implied = match of {
        _ if frozen => implied.frozen(),
        Of::TypeField => implied.frozen_for_nesting(),
        Of::Column { .. } => implied,
    };
    let optional = match of {
        Of::TypeField => true,
        Of::Column { nullable } => nullable && (frozen || !inner.is_collection()),
    };
    let (base, renamed) = field_ident(name);
    let ident = unique_snake(base.clone(), idents);
    let mut options = Vec::new();
    if renamed || ident != base {
        options.push(format!("name = {name:?}"));
    }
    if implied.canonical() != t.canonical() {
        options.push(format!("cql_type = {text:?}"));
    } else if frozen {
        options.push("frozen".to_owned());
    }
    let ty = if optional {
        format!("Option<{ty}>")
    } else {
        ty
    };
    Ok(Field {
        ident,
        key: None,
        options,
        complex: too_complex(&ty),
        ty,
        notes: Vec::new(),
    })
}

/// `default_ttl`, `gc_grace_seconds`, `comment` and `compaction` where the table's differ
/// from a new table's.
fn table_options(t: &LiveTable) -> Vec<String> {
    let o = &t.options;
    let mut out = Vec::new();
    if o.default_ttl != 0 {
        out.push(format!("default_ttl = {}", o.default_ttl));
    }
    if o.gc_grace_seconds != DEFAULT_GC_GRACE {
        out.push(format!("gc_grace_seconds = {}", o.gc_grace_seconds));
    }
    if !o.comment.is_empty() {
        out.push(format!("comment = {:?}", o.comment));
    }
    let class = o
        .compaction_class
        .strip_prefix(COMPACTION_PACKAGE)
        .unwrap_or(&o.compaction_class);
    if !class.is_empty() && class != DEFAULT_COMPACTION {
        out.push(format!("compaction = {class:?}"));
    }
    out
}

/// Each SAI index as an `index(..)` option of its column's field; any other index, and an
/// SAI index with options the derive does not declare, as a note on the field (or in
/// `skipped` when its target is no column).
fn indexes(t: &LiveTable, item: &mut Item) {
    let mut located: Vec<(&LiveIndex, Option<(IndexTarget, usize)>)> = t
        .indexes
        .iter()
        .map(|i| {
            let names = t.columns.iter().map(|c| c.name.as_str());
            (i, target_column(names, i.target()))
        })
        .collect();
    // A field's first index without a name gets Cassandra's default one: the index that has
    // it goes first.
    located.sort_by_key(|(i, at)| {
        at.is_none_or(|(_, pos)| i.name != default_index_name(&t.name, &t.columns[pos].name))
    });
    // How many indexes each field declares so far: the name the derive gives depends on it.
    let mut declared = vec![0; t.columns.len()];
    for (i, at) in located {
        let Some((target, pos)) = at else {
            item.notes.push(format!(
                "Not declared here: the index `{}` on `{}`, which is not one column; the \
                 cluster keeps it, `migrate plan` lists it as not managed.",
                i.name,
                i.target()
            ));
            continue;
        };
        let c = &t.columns[pos];
        let f = &mut item.fields[pos];
        if let Some(why) = undeclared(i) {
            f.notes.push(format!(
                "Not declared here: the index `{}` on `{}` ({why}); the cluster keeps it, \
                 `migrate plan` lists it as not managed.",
                i.name,
                i.target()
            ));
            continue;
        }
        let mut args = Vec::new();
        if target != IndexTarget::default_for(&c.cql_type)
            && let Some(m) = target.modifier()
        {
            args.push(m.to_owned());
        }
        if i.name != field_index_name(&t.name, &c.name, declared[pos], target) {
            args.push(format!("name = {:?}", i.name));
        }
        declared[pos] += 1;
        if let Some(s) = i.similarity()
            && s != Similarity::default()
        {
            args.push(format!("similarity = {:?}", s.name()));
        }
        f.options.push(if args.is_empty() {
            "index".to_owned()
        } else {
            format!("index({})", args.join(", "))
        });
    }
}

/// Why the derive cannot declare index `i`, if it cannot.
fn undeclared(i: &LiveIndex) -> Option<String> {
    if !i.is_sai() {
        return Some(format!(
            "a {} index: cassmodel declares storage-attached (SAI) indexes only",
            if i.kind == "CUSTOM" {
                format!("custom `{}`", i.class())
            } else {
                "legacy secondary".to_owned()
            }
        ));
    }
    let other: Vec<String> = i
        .options
        .iter()
        .filter(|(k, _)| !DECLARED_INDEX_OPTIONS.contains(&k.as_str()))
        .map(|(k, v)| format!("'{k}': '{v}'"))
        .collect();
    if i.similarity().is_none() && i.options.contains_key("similarity_function") {
        return Some("a similarity function cassmodel does not know".to_owned());
    }
    (!other.is_empty()).then(|| {
        format!(
            "options the derive does not declare: {{{}}}",
            other.join(", ")
        )
    })
}

/// The target and the position of the column an index's stored `target` names: the one
/// whose [`IndexTarget::cql`] (what the plan compares too) is that text.
fn target_column<'a>(
    columns: impl Iterator<Item = &'a str>,
    target: &str,
) -> Option<(IndexTarget, usize)> {
    const TARGETS: [IndexTarget; 5] = [
        IndexTarget::Column,
        IndexTarget::Keys,
        IndexTarget::Values,
        IndexTarget::Entries,
        IndexTarget::Full,
    ];
    columns.enumerate().find_map(|(pos, column)| {
        TARGETS
            .into_iter()
            .find(|t| t.cql(column) == target)
            .map(|t| (t, pos))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyspace() -> LiveKeyspace {
        let mut k = LiveKeyspace::default();
        k.name = "ks".into();
        k
    }

    fn udt(name: &str, fields: &[(&str, &str)]) -> LiveType {
        let mut t = LiveType::default();
        t.name = name.into();
        t.fields = fields
            .iter()
            .map(|(f, ty)| ((*f).into(), ty.parse().expect("a type"), (*ty).into()))
            .collect();
        t
    }

    /// What cannot be a model is named with the reason: a COMPACT STORAGE table, a view, a
    /// type with a vector of ints, and the type that uses that type.
    #[test]
    fn what_cannot_be_modelled_is_named() {
        let mut k = keyspace();
        let mut old = LiveTable::default();
        old.name = "old".into();
        old.compact_storage = true;
        k.tables.insert("old".into(), old);
        let mut view = cassmodel_runtime::migrate::LiveView::default();
        view.name = "by_email".into();
        view.base_table = "old".into();
        k.views.insert("by_email".into(), view);
        for t in [
            udt("inner", &[("v", "vector<int, 2>")]),
            udt("outer", &[("i", "frozen<inner>"), ("n", "int")]),
            udt("other", &[("n", "int")]),
        ] {
            k.types.insert(t.name.clone(), t);
        }
        let m = module(&k, &[]).expect("a module");
        let names: Vec<&str> = m.udts.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["other"]);
        assert!(m.tables.is_empty());
        let whats: Vec<&str> = m
            .skipped
            .iter()
            .map(|s| s.split(':').next().unwrap_or(s))
            .collect();
        assert_eq!(
            whats,
            [
                "type `inner`",
                "table `old`",
                "materialized view `by_email`",
                "`outer`"
            ]
        );
        assert!(m.skipped[2].ends_with("its base table `old` is not generated"));
        assert!(m.skipped[3].ends_with("it uses the type struct `Inner`, which is not generated"));
        assert!(m.skipped[1].contains("a COMPACT STORAGE table"));
        assert!(module(&k, &["nope".into()]).is_err());
    }

    #[test]
    fn targets() {
        let columns = ["email", "basket", "My \"Col\"", "Mixed"];
        let of = |target: &str| target_column(columns.into_iter(), target);
        assert_eq!(of("email"), Some((IndexTarget::Column, 0)));
        assert_eq!(of("keys(basket)"), Some((IndexTarget::Keys, 1)));
        assert_eq!(
            of("values(\"My \"\"Col\"\"\")"),
            Some((IndexTarget::Values, 2))
        );
        assert_eq!(of("\"Mixed\""), Some((IndexTarget::Column, 3)));
        assert_eq!(of("keys(nope)"), None);
    }
}
