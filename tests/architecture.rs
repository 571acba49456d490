//! The guard of the module structure (ARCHITECTURE.md): in every crate of the workspace, no
//! files import each other in a circle, and in the runtime and the derive no module imports
//! a layer above its own.
//!
//! An import is any path that names another module of the same crate: `crate::a::B`,
//! `super::B`, `self::a::B` or a child module's name, in a `use` item (at any depth: inside
//! functions, inline modules and tests too) or written out in code or a type. It points at
//! the file of the deepest module the path names; `crate::B` (an item the crate root
//! re-exports) points at `lib.rs`, which imports every module, so it is a circle too. Doc
//! comments are not code and do not count.
//!
//! And the runtime has one door to the driver: only `session/` and `exec/` use the driver's
//! session, and only `session/` and `exec/send.rs` send requests with it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The layers of `cassmodel-runtime`, bottom first: a file may import files of its own layer
/// (without a circle) and of the layers below, never above. Every file is under one prefix.
const RUNTIME_LAYERS: &[(&str, &[&str])] = &[
    ("L0 ground", &["error/", "schema/", "config/"]),
    ("L1 values", &["mapping/"]),
    ("L2 statements", &["statement/"]),
    ("L3 session", &["session/"]),
    ("L4 execution", &["exec/"]),
    (
        "L5 features",
        &["query/", "sizing.rs", "progress.rs", "migrate/"],
    ),
    ("face", &["lib.rs"]),
];

/// The layers of `cassmodel-derive`: the pipeline parse -> model -> checks -> generation.
const DERIVE_LAYERS: &[(&str, &[&str])] = &[
    ("parse", &["ctxt.rs", "attr.rs", "types.rs"]),
    ("model", &["model.rs"]),
    ("checks and generation", &["check.rs", "generate/"]),
    ("expansion", &["expand.rs"]),
    ("face", &["lib.rs", "tests.rs"]),
];

/// One crate's files and the imports between them (by path relative to `src/`).
#[derive(Default)]
struct Graph {
    /// `file -> (imported file -> the paths that import it)`.
    edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

/// The module tree of one crate: module path -> the file it is written in.
struct Modules {
    files: BTreeMap<Vec<String>, String>,
}

impl Modules {
    /// The file of the deepest module that `path` (absolute, from the crate root) names.
    fn file_of(&self, path: &[String]) -> &str {
        (0..=path.len())
            .rev()
            .find_map(|n| self.files.get(&path[..n]))
            .map_or("lib.rs", String::as_str)
    }

    fn is_module(&self, path: &[String]) -> bool {
        self.files.contains_key(path)
    }
}

/// Reads the module tree from a crate root (`lib.rs` or `main.rs`), following `mod` items.
fn module_tree(src: &Path, root: &str) -> Modules {
    fn walk(
        src: &Path,
        file: &str,
        module: Vec<String>,
        items: &[syn::Item],
        dir: &Path,
        out: &mut BTreeMap<Vec<String>, String>,
    ) {
        out.insert(module.clone(), file.to_owned());
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            let mut child = module.clone();
            child.push(m.ident.to_string());
            match &m.content {
                Some((_, inner)) => {
                    walk(src, file, child, inner, &dir.join(m.ident.to_string()), out)
                }
                None => {
                    let name = m.ident.to_string();
                    let candidates = [
                        dir.join(format!("{name}.rs")),
                        dir.join(&name).join("mod.rs"),
                    ];
                    let Some(path) = candidates.iter().find(|p| src.join(p).exists()) else {
                        panic!("{file}: `mod {name};` has no file under {}", dir.display());
                    };
                    let text = read(&src.join(path));
                    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"));
                    let rel = path.to_string_lossy().replace('\\', "/");
                    walk(src, &rel, child, &parsed.items, &dir.join(&name), out);
                }
            }
        }
    }
    let text = read(&src.join(root));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{root}: {e}"));
    let mut files = BTreeMap::new();
    walk(
        src,
        root,
        Vec::new(),
        &parsed.items,
        Path::new(""),
        &mut files,
    );
    Modules { files }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Collects the imports of one file: every `use` tree and every path in code.
struct Imports<'m> {
    modules: &'m Modules,
    file: String,
    /// The module the visitor is in (the file's, then inline modules).
    module: Vec<String>,
    found: Vec<(String, String)>,
}

impl Imports<'_> {
    /// Resolves a path's segments as written in module `self.module`; records it when it
    /// names a module of this crate in another file.
    fn record(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let (mut at, rest) = match first.as_str() {
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (self.module.clone(), &segments[1..]),
            "super" => {
                let mut at = self.module.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop();
                    rest = &rest[1..];
                }
                (at, rest)
            }
            _ => {
                let mut child = self.module.clone();
                child.push(first.clone());
                if !self.modules.is_module(&child) {
                    return; // another crate, a local item or a generic
                }
                (self.module.clone(), segments)
            }
        };
        for s in rest {
            if s == "super" {
                at.pop();
                continue;
            }
            let mut next = at.clone();
            next.push(s.clone());
            if !self.modules.is_module(&next) {
                break;
            }
            at = next;
        }
        let target = self.modules.file_of(&at).to_owned();
        if target != self.file {
            self.found.push((target, segments.join("::")));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.record(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.record(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.record(&prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Imports<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        if u.leading_colon.is_none() {
            self.use_tree(&mut prefix, &u.tree);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }

    /// Macro bodies are tokens, not syntax: paths in them are found by their `a::b` shape.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn scan(tokens: proc_macro2::TokenStream, out: &mut Vec<Vec<String>>) {
            let mut path: Vec<String> = Vec::new();
            let mut colons = 0;
            let flush = |path: &mut Vec<String>, out: &mut Vec<Vec<String>>| {
                if path.len() > 1 {
                    out.push(std::mem::take(path));
                }
                path.clear();
            };
            for t in tokens {
                match t {
                    proc_macro2::TokenTree::Ident(i) if path.is_empty() || colons == 2 => {
                        path.push(i.to_string());
                        colons = 0;
                    }
                    proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' && !path.is_empty() => {
                        colons += 1;
                        if colons > 2 {
                            flush(&mut path, out);
                            colons = 0;
                        }
                    }
                    proc_macro2::TokenTree::Group(g) => {
                        flush(&mut path, out);
                        colons = 0;
                        scan(g.stream(), out);
                    }
                    other => {
                        flush(&mut path, out);
                        colons = 0;
                        if let proc_macro2::TokenTree::Ident(i) = other {
                            path.push(i.to_string());
                        }
                    }
                }
            }
            flush(&mut path, out);
        }
        let mut found = Vec::new();
        scan(m.tokens.clone(), &mut found);
        for path in found {
            self.record(&path);
        }
        syn::visit::visit_macro(self, m);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(&segments);
        }
        syn::visit::visit_path(self, p);
    }
}

/// The import graph of the crate whose root is `src/<root>`.
fn graph(src: &Path, root: &str) -> Graph {
    let modules = module_tree(src, root);
    let mut g = Graph::default();
    let files: BTreeSet<(String, Vec<String>)> = modules
        .files
        .iter()
        .map(|(m, f)| (f.clone(), m.clone()))
        .collect();
    let mut seen = BTreeSet::new();
    for (file, module) in files {
        // A file holds its own module and its inline ones: visited once, from the outermost.
        if !seen.insert(file.clone()) {
            continue;
        }
        let parsed = syn::parse_file(&read(&src.join(&file))).expect("parsed above");
        let mut v = Imports {
            modules: &modules,
            file: file.clone(),
            module,
            found: Vec::new(),
        };
        v.visit_file(&parsed);
        let out = g.edges.entry(file).or_default();
        for (target, path) in v.found {
            out.entry(target).or_default().insert(path);
        }
    }
    g
}

/// The circles of a graph: its strongly connected components of more than one file.
fn circles(g: &Graph) -> Vec<Vec<String>> {
    // Tarjan's algorithm, iteratively small: the graphs have a few dozen files.
    struct State<'g> {
        g: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn connect<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let targets: Vec<&'g str> =
            s.g.edges
                .get(v)
                .map(|t| t.keys().map(String::as_str).collect())
                .unwrap_or_default();
        for w in targets {
            if !s.index.contains_key(w) {
                connect(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out
}

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate root of the workspace's packages: `(package dir, root file)`.
fn crate_roots() -> Vec<(PathBuf, &'static str)> {
    let manifest = read(&workspace().join("Cargo.toml"));
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("the workspace lists its members");
    let mut out = Vec::new();
    for member in members.split(',').map(|m| m.trim().trim_matches('"')) {
        if member.is_empty() {
            continue;
        }
        let dir = workspace().join(member);
        for root in ["lib.rs", "main.rs"] {
            if dir.join("src").join(root).exists() {
                out.push((dir.clone(), root));
            }
        }
    }
    out
}

fn describe(g: &Graph, circle: &[String]) -> String {
    let mut out = format!("circle: {}\n", circle.join(", "));
    for from in circle {
        for (to, paths) in g.edges.get(from).into_iter().flatten() {
            if circle.contains(to) {
                let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                out.push_str(&format!("  {from} -> {to}: {}\n", paths.join(", ")));
            }
        }
    }
    out
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut problems = Vec::new();
    let roots = crate_roots();
    assert!(roots.len() >= 8, "the workspace's crates: {roots:?}");
    for (dir, root) in roots {
        let g = graph(&dir.join("src"), root);
        for c in circles(&g) {
            problems.push(format!("{} ({root}): {}", dir.display(), describe(&g, &c)));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The layer of `file` in `layers` (its index), by the longest prefix.
fn layer_of(layers: &[(&str, &[&str])], file: &str) -> Option<usize> {
    layers
        .iter()
        .enumerate()
        .flat_map(|(i, (_, prefixes))| prefixes.iter().map(move |p| (i, *p)))
        .filter(|(_, p)| file == *p || (p.ends_with('/') && file.starts_with(p)))
        .max_by_key(|(_, p)| p.len())
        .map(|(i, _)| i)
}

fn check_layers(package: &str, layers: &[(&str, &[&str])]) -> Vec<String> {
    let g = graph(&workspace().join(package).join("src"), "lib.rs");
    let mut problems = Vec::new();
    for (from, targets) in &g.edges {
        let Some(a) = layer_of(layers, from) else {
            problems.push(format!(
                "{package}/src/{from} is in no layer: add it to the table in tests/architecture.rs \
                 and ARCHITECTURE.md"
            ));
            continue;
        };
        for (to, paths) in targets {
            let b = layer_of(layers, to).unwrap_or(usize::MAX);
            if b > a && b != usize::MAX {
                let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                problems.push(format!(
                    "{package}/src/{from} ({}) imports {to} ({}), a layer above: {}",
                    layers[a].0,
                    layers[b].0,
                    paths.join(", ")
                ));
            }
        }
    }
    problems
}

#[test]
fn the_runtime_imports_only_downwards() {
    let problems = check_layers("cassmodel-runtime", RUNTIME_LAYERS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_derive_imports_only_downwards() {
    let problems = check_layers("cassmodel-derive", DERIVE_LAYERS);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The guard sees what it must: a circle and an upward import written into a scratch crate
/// are reported, with the paths that make them.
#[test]
fn the_guard_finds_circles_and_upward_imports() {
    let dir = std::env::temp_dir().join(format!("cassmodel-architecture-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("high")).expect("scratch dir");
    let files = [
        ("lib.rs", "mod low;\nmod high;\npub use high::Top;\n"),
        (
            "low.rs",
            "pub struct Low;\nmacro_rules! m { () => { $crate::high::inner::Inner } }\n",
        ),
        (
            "high/mod.rs",
            "pub mod inner;\npub struct Top(super::low::Low);\n",
        ),
        (
            "high/inner.rs",
            "pub struct Inner;\nmod t { use super::super::Top; }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).expect("scratch file");
    }
    let g = graph(&src, "lib.rs");
    let found = circles(&g);
    let expected = ["high/inner.rs", "high/mod.rs", "low.rs"].map(str::to_owned);
    assert_eq!(found, [expected.to_vec()], "{:?}", g.edges);
    assert!(
        g.edges["low.rs"].contains_key("high/inner.rs"),
        "{:?}",
        g.edges
    );
    assert!(
        g.edges["lib.rs"].contains_key("high/mod.rs"),
        "{:?}",
        g.edges
    );
    let layers: &[(&str, &[&str])] = &[("low", &["low.rs"]), ("high", &["high/", "lib.rs"])];
    let upward: Vec<(&String, &String)> = g
        .edges
        .iter()
        .flat_map(|(from, t)| t.keys().map(move |to| (from, to)))
        .filter(|(from, to)| layer_of(layers, to) > layer_of(layers, from))
        .collect();
    assert_eq!(upward.len(), 1, "{upward:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The driver's methods that send a request: called only by `exec/send.rs` (and `session/`).
const REQUESTS: &[&str] = &[
    "execute_unpaged",
    "query_unpaged",
    "execute_iter",
    "query_iter",
    "execute_single_page",
    "query_single_page",
    "batch",
    "prepare",
];

/// What `file` (of the runtime, relative to `src/`) does against the one door: a use of the
/// driver's session outside `session/` and `exec/`, or a request sent outside `session/` and
/// `exec/send.rs` (a request method called on `session()` or `session`, or one whose name
/// only the driver's session has). Read from the file's tokens: code and macro bodies count,
/// comments do not.
fn door_problems(file: &str, text: &str) -> Vec<String> {
    use proc_macro2::{Delimiter, TokenStream, TokenTree};
    fn walk(stream: TokenStream, out: &mut Vec<(String, String)>) {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        let ident = |i: usize| match tokens.get(i) {
            Some(TokenTree::Ident(id)) => Some(id.to_string()),
            _ => None,
        };
        let dot =
            |i: usize| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == '.');
        let empty_call = |i: usize| {
            matches!(tokens.get(i), Some(TokenTree::Group(g))
                if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty())
        };
        // Whether the dot at `d` follows `session` or `session()` (reported there).
        let on_session = |d: usize| {
            (d >= 1 && ident(d - 1).as_deref() == Some("session"))
                || (d >= 2 && empty_call(d - 1) && ident(d - 2).as_deref() == Some("session"))
        };
        for (i, t) in tokens.iter().enumerate() {
            if let TokenTree::Group(g) = t {
                walk(g.stream(), out);
                continue;
            }
            let Some(name) = ident(i) else { continue };
            if name == "session" && i > 0 && dot(i - 1) && empty_call(i + 1) {
                out.push(("session".into(), ".session()".into()));
            }
            if name == "session" {
                let after = if empty_call(i + 1) { i + 2 } else { i + 1 };
                if dot(after)
                    && let Some(m) = ident(after + 1).filter(|m| REQUESTS.contains(&m.as_str()))
                {
                    out.push(("request".into(), format!("session.{m}(..)")));
                }
            } else if i > 0
                && dot(i - 1)
                && REQUESTS[..6].contains(&name.as_str())
                && !on_session(i - 1)
            {
                out.push(("request".into(), format!(".{name}(..)")));
            }
        }
    }
    let stream: TokenStream = text.parse().unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut found = Vec::new();
    walk(stream, &mut found);
    let in_session = file.starts_with("session/");
    let in_exec = file.starts_with("exec/");
    found
        .into_iter()
        .filter_map(|(what, call)| match what.as_str() {
            "session" if !(in_session || in_exec) => Some(format!(
                "cassmodel-runtime/src/{file} uses the driver's session (`{call}`): send its \
                 statements through exec/send.rs"
            )),
            "request" if !(in_session || file == "exec/send.rs") => Some(format!(
                "cassmodel-runtime/src/{file} sends a request itself (`{call}`): send it \
                 through exec/send.rs, which maps its errors, checks its warnings and opens its span"
            )),
            _ => None,
        })
        .collect()
}

/// Every `.rs` file under `dir`, relative to `root`.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let rel = path.strip_prefix(root).expect("under the root");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn the_runtime_sends_every_request_through_one_door() {
    let src = workspace().join("cassmodel-runtime/src");
    let mut files = Vec::new();
    rust_files(&src, &src, &mut files);
    assert!(files.len() > 50, "the runtime's files: {files:?}");
    assert!(files.iter().any(|f| f == "exec/send.rs"), "{files:?}");
    let problems: Vec<String> = files
        .iter()
        .flat_map(|f| door_problems(f, &read(&src.join(f))))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The door's guard sees a session used in a feature, a request sent in the execution layer
/// beside the door (also through a binding and in a macro body), and nothing in a comment or
/// in the door itself.
#[test]
fn the_door_guard_finds_requests_outside_the_door() {
    let feature = "/// db.session().execute_unpaged(ps, v)\n\
                   fn f(db: &Db) { let s = db.session(); }";
    assert_eq!(door_problems("migrate/x.rs", feature).len(), 1);
    let beside = "fn f(db: &Db) { let session = db.session(); session.batch(&b, v); }\n\
                  macro_rules! m { ($db:expr) => { $db.pager.execute_iter(ps, ()) } }\n\
                  fn g(db: &Db) { db.session()\n    .prepare(cql); }";
    let found = door_problems("exec/read.rs", beside);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(door_problems("exec/send.rs", beside).is_empty());
    assert!(door_problems("session/db.rs", beside).is_empty());
    assert!(door_problems("exec/read.rs", "// session.batch(b, v)\nfn f() {}").is_empty());
}
