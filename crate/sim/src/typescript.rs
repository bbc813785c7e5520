//! The TypeScript declarations of the simulator's documents and values (feature `ts`; see the
//! core's `typescript`). The simulation document and the Timeline's summary are written with
//! plain serde (integers as JSON numbers, the few wide ones as decimal strings); the fleet at
//! an instant and the defaults cross through the core's `exact` (64-bit integers as `U64`).

use spate_planner_core::typescript::Declarations;

/// Declares the simulator's documents and values, and every type they name.
pub fn declare(d: &mut Declarations) {
    d.large_int("number")
        .add::<crate::outcome::Document<'static>>()
        .add::<crate::marks::Summary>()
        .add::<crate::section::SectionInput>()
        .add::<crate::table::FigureRow>();
    d.large_int("U64")
        .add::<crate::at::FleetAt<'static>>()
        .add::<crate::defaults::Defaults>();
}
