//! The layout of every crate of the workspace (core, sim, wasm, cli; docs/architecture.md): no
//! import loop between its files, none between its folders, and no module importing through
//! the crate root.
//!
//! Each file's imports are read with `syn`: its `use` declarations, every path in its code
//! (`crate::a::b`, `super::x`, `child::f`, a name a `use` brought in) and the paths in its macro
//! calls. A `pub use` is a re-export, not a use: a name is followed through re-exports to the
//! file that defines it, so a folder's `mod.rs` that only declares and re-exports its files
//! adds no edge. Then:
//! - **files**: the graph of files (an edge from a file to each file defining something it
//!   names) has no cycle;
//! - **folders**: at every level of the module tree, the modules side by side (a file, or a
//!   folder counted as a whole with everything in it) import each other in one direction only;
//! - **the crate root** (`lib.rs`, `main.rs`) re-exports, and no module names an item through it;
//! - **the CLI's commands**: each file of `crate/cli/src/commands/` (one per subcommand) imports
//!   nothing from another: what two commands share lives beside the folder.
//!
//! `cargo test -p spate-planner --test layout -- --nocapture` also prints each crate's top-level
//! modules by layer (each imports only from the layers below it), as docs/architecture.md draws
//! them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use syn::visit::Visit;
use syn::{Item, UseTree, Visibility};

type ModPath = Vec<String>;

/// file -> file -> the import paths that make the edge.
type Edges = BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>>;

/// One module: a file, or an inline `mod x { … }` inside one.
#[derive(Default)]
struct Module {
    file: usize,
    children: BTreeSet<String>,
    /// Names this module defines (functions, types, constants, macros, …).
    items: BTreeSet<String>,
    /// Names a `use` brings in: name -> (the module it was written in, its path as written).
    aliases: BTreeMap<String, (ModPath, ModPath)>,
    /// `use x::*`: (the module it was written in, x as written).
    globs: Vec<(ModPath, ModPath)>,
}

/// A name written in a file: the module it is written in and its path.
struct Reference {
    ctx: ModPath,
    path: ModPath,
}

struct Crate {
    name: &'static str,
    src: PathBuf,
    files: Vec<PathBuf>,
    /// Each file's module path.
    file_mods: Vec<ModPath>,
    modules: BTreeMap<ModPath, Module>,
    refs: Vec<Vec<Reference>>,
}

/// A resolved name: the file defining it, and whether the way there went through a name the
/// crate root defines or re-exports.
struct Found {
    file: usize,
    via_root: bool,
}

impl Crate {
    fn read(name: &'static str, dir: &str, root_file: &str) -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(dir)
            .join("src");
        let mut c = Crate {
            name,
            src: src.clone(),
            files: Vec::new(),
            file_mods: Vec::new(),
            modules: BTreeMap::new(),
            refs: Vec::new(),
        };
        c.add_file(src.join(root_file), Vec::new(), src);
        c
    }

    fn add_file(&mut self, path: PathBuf, module: ModPath, child_dir: PathBuf) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = self.files.len();
        self.files.push(path);
        self.file_mods.push(module.clone());
        let mut refs = References {
            ctx: module.clone(),
            out: Vec::new(),
        };
        refs.visit_file(&ast);
        self.refs.push(refs.out);
        self.modules.insert(
            module.clone(),
            Module {
                file,
                ..Module::default()
            },
        );
        self.add_items(file, &module, &ast.items, &child_dir);
    }

    fn add_items(&mut self, file: usize, module: &ModPath, items: &[Item], child_dir: &Path) {
        for item in items {
            let name = match item {
                Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let mut sub = module.clone();
                    sub.push(name.clone());
                    self.module(module).children.insert(name.clone());
                    match &m.content {
                        Some((_, inner)) => {
                            self.modules.insert(
                                sub.clone(),
                                Module {
                                    file,
                                    ..Module::default()
                                },
                            );
                            self.add_items(file, &sub, inner, &child_dir.join(&name));
                        }
                        None => {
                            let flat = child_dir.join(format!("{name}.rs"));
                            let (path, dir) = if let Some(p) = path_attribute(&m.attrs) {
                                let file = self.files[file].parent().expect("a folder").join(p);
                                let dir = file.with_extension("");
                                (file, dir)
                            } else if flat.exists() {
                                (flat, child_dir.join(&name))
                            } else {
                                (child_dir.join(&name).join("mod.rs"), child_dir.join(&name))
                            };
                            self.add_file(path, sub, dir);
                        }
                    }
                    continue;
                }
                Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, Vec::new(), &mut leaves);
                    for (path, name) in leaves {
                        let m = self.module(module);
                        match name {
                            Some(n) if n != "_" => {
                                m.aliases.insert(n, (module.clone(), path));
                            }
                            Some(_) => {}
                            None => m.globs.push((module.clone(), path)),
                        }
                    }
                    continue;
                }
                Item::Fn(f) => &f.sig.ident,
                Item::Struct(s) => &s.ident,
                Item::Enum(e) => &e.ident,
                Item::Union(u) => &u.ident,
                Item::Const(c) => &c.ident,
                Item::Static(s) => &s.ident,
                Item::Type(t) => &t.ident,
                Item::Trait(t) => &t.ident,
                Item::Macro(m) => match &m.ident {
                    Some(i) => i,
                    None => continue,
                },
                _ => continue,
            };
            self.module(module).items.insert(name.to_string());
        }
    }

    fn module(&mut self, m: &ModPath) -> &mut Module {
        self.modules.get_mut(m).expect("declared before its items")
    }

    /// The absolute path of `path` as written in module `ctx`, or None when it names nothing of
    /// this crate (another crate, std, a local variable, a generic parameter, `Self`).
    fn absolute(&self, ctx: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        if depth > 16 {
            return None;
        }
        let (first, rest) = path.split_first()?;
        match first.as_str() {
            "crate" => Some(rest.to_vec()),
            "self" | "super" => {
                let mut base = ctx.clone();
                let mut segs = path;
                while let Some((s, r)) = segs.split_first() {
                    match s.as_str() {
                        "self" => {}
                        "super" => {
                            base.pop()?;
                        }
                        _ => break,
                    }
                    segs = r;
                }
                base.extend(segs.iter().cloned());
                Some(base)
            }
            _ => {
                let m = &self.modules[ctx];
                let here =
                    m.children.contains(first) || m.items.contains(first) || m.aliases.contains_key(first);
                let by_glob = || {
                    m.globs.iter().any(|(gctx, g)| {
                        self.absolute(gctx, g, depth + 1)
                            .map(|mut full| {
                                full.push(first.clone());
                                self.resolve(&full, depth + 1).is_some()
                            })
                            .unwrap_or(false)
                    })
                };
                (here || by_glob()).then(|| ctx.iter().chain(path).cloned().collect())
            }
        }
    }

    /// The file that defines what the absolute path names, following `use`s (re-exports and
    /// imports alike) to it.
    fn resolve(&self, full: &[String], depth: usize) -> Option<Found> {
        if depth > 16 {
            return None;
        }
        let mut cur: ModPath = Vec::new();
        for (i, seg) in full.iter().enumerate() {
            let m = &self.modules[&cur];
            if m.children.contains(seg) {
                cur.push(seg.clone());
                continue;
            }
            let at_root = cur.is_empty();
            if m.items.contains(seg) {
                return Some(Found {
                    file: m.file,
                    via_root: at_root,
                });
            }
            if let Some((actx, apath)) = m.aliases.get(seg) {
                let mut target = self.absolute(actx, apath, depth + 1)?;
                target.extend(full[i + 1..].iter().cloned());
                return self.resolve(&target, depth + 1).map(|f| Found {
                    via_root: f.via_root || at_root,
                    ..f
                });
            }
            return m.globs.iter().find_map(|(gctx, g)| {
                let mut target = self.absolute(gctx, g, depth + 1)?;
                target.extend(full[i..].iter().cloned());
                self.resolve(&target, depth + 1)
            });
        }
        Some(Found {
            file: self.modules[&cur].file,
            via_root: false,
        })
    }

    /// Each file's imports: file -> file -> the paths that make the edge.
    fn edges(&self) -> (Edges, Vec<String>) {
        let mut edges = Edges::new();
        let mut through_root = Vec::new();
        for (from, refs) in self.refs.iter().enumerate() {
            for r in refs {
                let Some(found) = self
                    .absolute(&r.ctx, &r.path, 0)
                    .and_then(|a| self.resolve(&a, 0))
                else {
                    continue;
                };
                let text = r.path.join("::");
                if found.via_root && from != 0 {
                    through_root.push(format!("{} names {text} through the crate root", self.rel(from)));
                }
                if found.file != from {
                    edges
                        .entry(from)
                        .or_default()
                        .entry(found.file)
                        .or_default()
                        .insert(text);
                }
            }
        }
        (edges, through_root)
    }

    fn rel(&self, file: usize) -> String {
        let p = &self.files[file];
        p.strip_prefix(&self.src).unwrap_or(p).display().to_string()
    }
}

/// `#[path = "…"]` on a module declaration.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Each leaf of a `use` tree: its path and the name it brings in (None: a glob).
fn use_leaves(tree: &UseTree, prefix: ModPath, out: &mut Vec<(ModPath, Option<String>)>) {
    let with = |s: String| {
        let mut p = prefix.clone();
        if s != "self" {
            p.push(s);
        }
        p
    };
    match tree {
        UseTree::Path(p) => use_leaves(&p.tree, with(p.ident.to_string()), out),
        UseTree::Name(n) => {
            let path = with(n.ident.to_string());
            let name = path.last().cloned();
            out.push((path, name));
        }
        UseTree::Rename(r) => out.push((with(r.ident.to_string()), Some(r.rename.to_string()))),
        UseTree::Glob(_) => out.push((prefix, None)),
        UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix.clone(), out);
            }
        }
    }
}

/// Collects every name a file's code writes, with the module it is written in.
struct References {
    ctx: ModPath,
    out: Vec<Reference>,
}

impl References {
    fn push(&mut self, path: ModPath) {
        if !path.is_empty() {
            self.out.push(Reference {
                ctx: self.ctx.clone(),
                path,
            });
        }
    }

    /// The paths in a macro's tokens: `a::b::c` sequences and single names.
    fn scan(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::TokenTree;
        let mut path: ModPath = Vec::new();
        let mut colons = 0;
        for t in tokens {
            match t {
                TokenTree::Ident(i) if path.is_empty() || colons == 2 => {
                    path.push(i.to_string());
                    colons = 0;
                }
                TokenTree::Punct(p) if p.as_char() == ':' && !path.is_empty() && colons < 2 => colons += 1,
                other => {
                    self.push(std::mem::take(&mut path));
                    colons = 0;
                    match other {
                        TokenTree::Group(g) => self.scan(g.stream()),
                        TokenTree::Ident(i) => path.push(i.to_string()),
                        _ => {}
                    }
                }
            }
        }
        self.push(path);
    }
}

impl<'ast> Visit<'ast> for References {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            self.ctx.push(m.ident.to_string());
            for i in items {
                self.visit_item(i);
            }
            self.ctx.pop();
        }
    }

    /// A `use` is an import of what it names (a `pub use` only re-exports: whoever names the
    /// item through it is followed to its file instead). Naming a module is no import by
    /// itself: the paths through it in the code are.
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if matches!(u.vis, Visibility::Inherited) {
            let mut leaves = Vec::new();
            use_leaves(&u.tree, Vec::new(), &mut leaves);
            for (path, name) in leaves {
                if name.is_some() {
                    self.push(path);
                }
            }
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            self.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }

    /// `pub(crate)`, `pub(super)`, `pub(in a::b)` say who may see an item, not what it uses.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.scan(m.tokens.clone());
    }
}

/// A cycle in `graph`, if there is one, as its nodes in order.
fn find_cycle<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(
        n: &N,
        graph: &BTreeMap<N, BTreeSet<N>>,
        done: &mut BTreeSet<N>,
        stack: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            return Some(stack[at..].to_vec());
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.clone());
        for next in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, graph, done, stack) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.clone());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}

/// Each node's layer: 0 imports nothing here, n imports from layer n-1 at most.
fn layers(graph: &BTreeMap<String, BTreeSet<String>>, nodes: &BTreeSet<String>) -> BTreeMap<String, usize> {
    fn layer(
        n: &String,
        graph: &BTreeMap<String, BTreeSet<String>>,
        memo: &mut BTreeMap<String, usize>,
    ) -> usize {
        if let Some(&l) = memo.get(n) {
            return l;
        }
        let l = graph
            .get(n)
            .into_iter()
            .flatten()
            .map(|d| layer(d, graph, memo) + 1)
            .max()
            .unwrap_or(0);
        memo.insert(n.clone(), l);
        l
    }
    let mut memo = BTreeMap::new();
    nodes
        .iter()
        .map(|n| (n.clone(), layer(n, graph, &mut memo)))
        .collect()
}

/// What is wrong with one crate's layout (empty: nothing), and its top-level layers.
fn check(c: &Crate) -> (Vec<String>, String) {
    let (edges, mut problems) = c.edges();
    let files: BTreeMap<usize, BTreeSet<usize>> = edges
        .iter()
        .map(|(a, bs)| (*a, bs.keys().copied().collect()))
        .collect();
    if let Some(cycle) = find_cycle(&files) {
        let mut msg = format!("{}: an import loop between files:", c.name);
        for (i, a) in cycle.iter().enumerate() {
            let b = &cycle[(i + 1) % cycle.len()];
            let why: Vec<_> = edges[a][b].iter().take(3).cloned().collect();
            let _ = write!(msg, "\n  {} -> {} ({})", c.rel(*a), c.rel(*b), why.join(", "));
        }
        problems.push(msg);
    }
    // Side by side at each level: the modules (files or whole folders) under one parent.
    let mut levels: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut why: BTreeMap<(ModPath, String, String), String> = BTreeMap::new();
    for (a, bs) in &edges {
        for b in bs.keys() {
            let (pa, pb) = (&c.file_mods[*a], &c.file_mods[*b]);
            let k = pa.iter().zip(pb).take_while(|(x, y)| x == y).count();
            if k < pa.len() && k < pb.len() {
                let (na, nb) = (pa[k].clone(), pb[k].clone());
                why.entry((pa[..k].to_vec(), na.clone(), nb.clone()))
                    .or_insert_with(|| format!("{} -> {}", c.rel(*a), c.rel(*b)));
                levels
                    .entry(pa[..k].to_vec())
                    .or_default()
                    .entry(na)
                    .or_default()
                    .insert(nb);
            }
        }
    }
    for (parent, graph) in &levels {
        if let Some(cycle) = find_cycle(graph) {
            let mut msg = format!(
                "{}: an import loop between the modules of {}:",
                c.name,
                if parent.is_empty() {
                    "src/".into()
                } else {
                    parent.join("/") + "/"
                }
            );
            for (i, a) in cycle.iter().enumerate() {
                let b = &cycle[(i + 1) % cycle.len()];
                let _ = write!(
                    msg,
                    "\n  {a} -> {b} (e.g. {})",
                    why[&(parent.clone(), a.clone(), b.clone())]
                );
            }
            problems.push(msg);
        }
    }
    let top: BTreeSet<String> = c.modules[&Vec::new()].children.clone();
    let mut text = format!("{} (bottom first):", c.name);
    if problems.is_empty() {
        let by_module = layers(levels.get(&Vec::new()).unwrap_or(&BTreeMap::new()), &top);
        let mut by_layer: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for (m, l) in &by_module {
            by_layer.entry(*l).or_default().push(m);
        }
        for (l, ms) in by_layer {
            let _ = write!(text, "\n  {l}: {}", ms.join(" "));
        }
    }
    (problems, text)
}

fn crates() -> Vec<Crate> {
    vec![
        Crate::read("core", "core", "lib.rs"),
        Crate::read("sim", "sim", "lib.rs"),
        Crate::read("wasm", "wasm", "lib.rs"),
        Crate::read("cli", "cli", "main.rs"),
    ]
}

#[test]
fn no_import_loop_in_any_crate() {
    let mut problems = Vec::new();
    for c in crates() {
        assert!(c.files.len() > 3, "{}: read only {} files", c.name, c.files.len());
        let (p, layers) = check(&c);
        println!("{layers}");
        problems.extend(p);
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

#[test]
fn no_command_imports_another() {
    let cli = Crate::read("cli", "cli", "main.rs");
    let command = |f: usize| match cli.file_mods[f].as_slice() {
        [first, name, ..] if first == "commands" => Some(name.clone()),
        _ => None,
    };
    let commands: BTreeSet<String> = (0..cli.files.len()).filter_map(command).collect();
    assert!(commands.len() > 10, "read only {} commands", commands.len());
    let (edges, _) = cli.edges();
    let mut problems = Vec::new();
    for (a, bs) in &edges {
        for (b, why) in bs {
            if let (Some(x), Some(y)) = (command(*a), command(*b)) {
                if x != y {
                    let why: Vec<_> = why.iter().take(3).cloned().collect();
                    problems.push(format!("{} -> {} ({})", cli.rel(*a), cli.rel(*b), why.join(", ")));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "a command imports another:\n{}",
        problems.join("\n")
    );
}
