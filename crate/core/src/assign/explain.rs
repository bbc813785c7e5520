//! What a plan is: the [`Assignment`] and its [`Explain`] (how each split was placed, by which
//! [`Pass`], the improving moves in order), the result the passes build.

use serde::Serialize;
use std::collections::BTreeMap;

/// A desired assignment: every member to its sorted split ids (one entry per member).
pub type Assignment = BTreeMap<String, Vec<String>>;

/// The improving pass's bound on moves (decision-core.md section 5, pass 3).
pub const MAX_IMPROVING_MOVES: usize = 4096;

/// The pass that put a split where the plan leaves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    /// Kept by its current owner (0.1: pass 1; 0.3: walk 3a, a current lease's owner).
    Sticky,
    /// 0.3 walk 3b: kept by its `previous` assignee.
    Previous,
    /// 0.3 walk 3b: kept by the owner its progress record names.
    RecordOwner,
    /// Given to the lightest free member (pass 2).
    Fill,
    /// Moved by an improving move (pass 3).
    Improve,
}

/// One improving move, in the order the leader makes them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImprovingMove {
    pub split: String,
    pub weight: u64,
    pub from: String,
    pub to: String,
    /// `w * (load(from) - load(to) - w)` before the move.
    pub gain: u128,
}

/// How one assigned split was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// The member it ends on, as an index into [`Explain::members`].
    pub member: usize,
    /// The pass that placed it there (`Improve` when an improving move was its last step).
    pub pass: Pass,
    /// The pass that first placed it (sticky or fill).
    pub first_pass: Pass,
    /// Index in [`Explain::moves`] of the last improving move of this split, if any.
    pub last_move: Option<usize>,
}

/// Why the plan is what it is. Beside the plan, never changing it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Explain {
    /// The members by name (the order of [`Placement::member`] and [`Explain::loads`]).
    pub members: Vec<String>,
    /// One entry per input split, in the input map's (id) order: how it was placed, or `None`
    /// when it is not assigned (not assignable, reserved, or queued).
    pub placements: Vec<Option<Placement>>,
    /// The improving moves in order.
    pub moves: Vec<ImprovingMove>,
    /// Whether the improving pass stopped at [`MAX_IMPROVING_MOVES`].
    pub bound_hit: bool,
    /// When the bound was hit: whether another improving move was still available (the result
    /// is then not a local optimum, and the next leader round will move more).
    pub improvable: bool,
    /// Pooled splits left unassigned because every lane was full, in pool order.
    pub queue: Vec<String>,
    /// Each member's final weight load (the leader's running saturating sums), by member index.
    pub loads: Vec<u64>,
}

impl Explain {
    /// Each member's load by name.
    pub fn loads_by_name(&self) -> BTreeMap<String, u64> {
        self.members
            .iter()
            .cloned()
            .zip(self.loads.iter().copied())
            .collect()
    }
}

/// A plan: the assignment and its explanation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub assignment: Assignment,
    pub explain: Explain,
}
