//! The TypeScript declarations of the core's types that cross into JavaScript (feature `ts`):
//! the wasm crate writes them, with the simulator's and its own, into
//! `crate/wasm/types.generated.d.ts` (`scripts/types`; a test fails when that file is stale).
//! Each type is declared from its serde shape by `ts-rs`; 64-bit integers are `U64`, decimal
//! strings, as [`crate::exact`] writes them into every document.

use std::any::TypeId;
use std::collections::BTreeMap;
use ts_rs::{Config, TypeVisitor, TS};

/// Declarations, each type once: each root added, then the types it names that were not
/// declared before it, by name.
pub struct Declarations {
    cfg: Config,
    /// Each name declared, and the Rust type it declares.
    names: BTreeMap<String, TypeId>,
    out: Vec<String>,
}

impl Declarations {
    /// No declaration yet; 64-bit integers as `large_int` (`U64`, or `number` for a document
    /// written without [`crate::exact`]).
    pub fn new(large_int: &str) -> Declarations {
        Declarations {
            cfg: Config::new().with_large_int(large_int),
            names: BTreeMap::new(),
            out: Vec::new(),
        }
    }

    /// 64-bit integers as `large_int` in the declarations added from now on.
    pub fn large_int(&mut self, large_int: &str) -> &mut Declarations {
        self.cfg = Config::new().with_large_int(large_int);
        self
    }

    /// Declares `T` (unless it is already), then every type it names, directly or through
    /// others, that is not declared yet, in the order of their names (so the file is the same
    /// whatever order the derives visit fields in). Panics when two types have the same name in
    /// TypeScript (rename one with `#[ts(rename = "…")]`).
    pub fn add<T: TS + 'static + ?Sized>(&mut self) -> &mut Declarations {
        let mut reached = Reached {
            cfg: &self.cfg,
            found: BTreeMap::new(),
        };
        reached.visit::<T>();
        let mut found = reached.found;
        let root = T::ident(&self.cfg);
        let first = found.remove(&root).map(|d| (root, d));
        for (name, (id, text)) in first.into_iter().chain(found) {
            match self.names.get(&name) {
                Some(&other) => assert!(other == id, "two types are named {name} in TypeScript"),
                None => {
                    self.names.insert(name, id);
                    self.out.push(text);
                }
            }
        }
        self
    }

    /// Every declaration, one after another.
    pub fn text(&self) -> String {
        let mut text = self.out.join("\n");
        text.push('\n');
        text
    }
}

/// The types one root names, directly or through others, each once with its declaration: its
/// doc comment, then `export type Name = …;`.
struct Reached<'a> {
    cfg: &'a Config,
    found: BTreeMap<String, (TypeId, String)>,
}

impl TypeVisitor for Reached<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // A type of ours (a derived one has a file to export to); not a primitive or a wrapper.
        if T::output_path().is_none() {
            return;
        }
        let name = T::ident(self.cfg);
        if let Some((other, _)) = self.found.get(&name) {
            assert!(
                *other == TypeId::of::<T>(),
                "two types are named {name} in TypeScript"
            );
            return;
        }
        let mut text = T::docs().unwrap_or_default();
        text.push_str("export ");
        text.push_str(&T::decl(self.cfg));
        self.found.insert(name, (TypeId::of::<T>(), text));
        T::visit_dependencies(self);
    }
}

/// Declares the documents and values the core hands to JavaScript (through [`crate::exact`]),
/// and the scenario it reads; with them every type they name.
pub fn declare(d: &mut Declarations) {
    use crate::{diff, live, report, review, rules_diff, scenario, sweep};
    d.large_int("U64")
        .add::<review::FleetInfo<'static>>()
        .add::<scenario::Scenario>()
        .add::<scenario::Change>()
        .add::<review::PlanDocument<'static>>()
        .add::<review::ClaimsDocument<'static>>()
        .add::<review::SplitLine<'static>>()
        .add::<live::LiveEvent>()
        .add::<review::IncidentView>()
        .add::<review::MomentFigures>()
        .add::<report::Convergence>()
        .add::<live::Freshness>()
        .add::<sweep::Step>()
        .add::<sweep::Verdict>()
        .add::<sweep::Today>()
        .add::<diff::Diff>()
        .add::<rules_diff::RulesDiff>();
}
