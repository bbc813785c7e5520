//! The TypeScript declarations of the core's types that cross into JavaScript (feature `ts`):
//! the wasm crate writes them, with the simulator's and its own, into
//! `crate/wasm/types.generated.d.ts` (`scripts/types`; a test fails when that file is stale).
//! Each type is declared from its serde shape by `ts-rs`; 64-bit integers are `U64`, decimal
//! strings, as [`crate::exact`] writes them into every document.

use std::any::TypeId;
use std::collections::BTreeMap;
use ts_rs::{Config, TypeVisitor, TS};

/// Declarations in the order first reached, each type once: its doc comment, then
/// `export type Name = …;`, and after it every type it names that is not declared yet.
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

    /// Declares `T` (unless it is already) and every type it names. Panics when another type
    /// has the same name in TypeScript (rename one with `#[ts(rename = "…")]`).
    pub fn add<T: TS + 'static + ?Sized>(&mut self) -> &mut Declarations {
        let name = T::ident(&self.cfg);
        if let Some(&other) = self.names.get(&name) {
            assert!(
                other == TypeId::of::<T>(),
                "two types are named {name} in TypeScript"
            );
        } else {
            self.names.insert(name, TypeId::of::<T>());
            let mut text = T::docs().unwrap_or_default();
            text.push_str("export ");
            text.push_str(&T::decl(&self.cfg));
            self.out.push(text);
            T::visit_dependencies(self);
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

impl TypeVisitor for Declarations {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // A type of ours (a derived one has a file to export to); not a primitive or a wrapper.
        if T::output_path().is_some() {
            self.add::<T>();
        }
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
        .add::<report::Convergence>()
        .add::<live::Freshness>()
        .add::<sweep::Step>()
        .add::<sweep::Verdict>()
        .add::<sweep::Today>()
        .add::<diff::Diff>()
        .add::<rules_diff::RulesDiff>();
}
