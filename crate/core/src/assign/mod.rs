//! `desired_assignment` (decision-core.md section 5; Spate 0.3: decision-core-0.3.md section 2):
//! the production implementation of both rule sets.
//!
//! The two releases differ only in the sticky step: 0.1 keeps a split with its current owner (the
//! lease's, else the record's) while that member has a free lane; 0.3 first walks the whole pool
//! keeping each split whose lease is *current* with the lease's owner, then gives what is left to
//! its `previous` assignee, else its record's owner ([`passes::sticky`], [`passes::rest`]). The
//! pool, the fill and the improving passes are the same code for both.
//!
//! It computes exactly the result of the plain transcriptions in `reference.rs` (feature
//! `conformance`) (the differential property tests in `tests/assignment.rs` check this), but the
//! improving pass does not rescan every (from, to, split) triple per move. It rests on three
//! facts of the rules:
//!
//! 1. **The best target is the lightest free member.** For a fixed split in `from`, the gain
//!    `w * (load(from) - load(to) - w)` grows as `load(to)` shrinks, and equal loads fall back to
//!    the scan order (`to` by name). So every move's `to` is `T`, the member with a free lane that
//!    minimises `(load, name)`. (`from == T` admits nothing: no free member is lighter.)
//! 2. **Per `from`, only two weight classes can win.** With `D = load(from) - load(T)`, a split
//!    of weight `w` is admitted iff `w < D` (the saturating sum only saturates when `w >= D`),
//!    and `w * (D - w)` is a parabola peaking at `D/2`. The best split of `from` is the heaviest
//!    with `w <= D/2` or the lightest with `D/2 < w < D`; within one weight the larger split
//!    hash wins, then the earlier position. Each member's splits are kept sorted by
//!    `(weight, hash descending, position)`, so each lookup is two binary searches.
//! 3. **Heavier members first, and stop early.** No split of `from` can gain more than
//!    `floor(D/2) * ceil(D/2)`, which falls with `load(from)`; scanning members by load
//!    descending stops once that bound is below the best gain found.
//!
//! Ties are resolved by the spec's scan order (from by name, to by name, position in `out[from]`),
//! which the comparison key below encodes in full, so even colliding split hashes give the
//! reference's answer. Positions are tracked by a sequence number given at each append, whose
//! order is the order of `out[from]` (removal keeps the others' order, a move appends).
//!
//! The passes are in [`passes`] (pool, sticky, fill) and [`improve`] (the improving pass and
//! its index), the result's types in [`explain`]; this module states the API and assembles the
//! result.
//!
//! Cost: O(n log n) for the pool and the first two passes, then O(m' log n) per improving move,
//! where m' is the number of members scanned before the bound stops the scan.

mod explain;
mod improve;
mod passes;
mod previous;

pub use explain::{Assignment, Explain, Pass, Placement, Plan, MAX_IMPROVING_MOVES};
pub use previous::last_assignees;

use crate::hash::stable_hash_str;
use crate::rules::Rules;
use crate::state::SplitState;
use foldhash::HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// Each member's index among `names` (a lookup table for the walks over every split).
pub(crate) fn member_index<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    names.enumerate().map(|(i, n)| (n, i)).collect()
}

/// No `previous` (0.1 reads none; 0.3 with nothing published).
static NO_PREVIOUS: BTreeMap<String, String> = BTreeMap::new();

/// What `desired_assignment` reads (decision-core.md section 5; 0.3 section 2 adds `previous`),
/// and which release's rules decide.
#[derive(Clone, Copy, Debug)]
pub struct AssignInputs<'a> {
    pub rules: Rules,
    pub members: &'a BTreeSet<String>,
    pub splits: &'a BTreeMap<String, SplitState>,
    pub reserved: &'a BTreeSet<String>,
    /// Split id -> the instance the leader's last publish named for it ([`last_assignees`]).
    /// Read by 0.3 only.
    pub previous: &'a BTreeMap<String, String>,
    pub caps: &'a BTreeMap<String, u32>,
    pub default_cap: u32,
    pub seed: u64,
}

impl<'a> AssignInputs<'a> {
    /// Spate 0.1's inputs (its `desired_assignment` signature), decided by its rules.
    pub fn v0_1(
        members: &'a BTreeSet<String>,
        splits: &'a BTreeMap<String, SplitState>,
        reserved: &'a BTreeSet<String>,
        caps: &'a BTreeMap<String, u32>,
        default_cap: u32,
        seed: u64,
    ) -> AssignInputs<'a> {
        AssignInputs {
            rules: Rules::V0_1,
            members,
            splits,
            reserved,
            previous: &NO_PREVIOUS,
            caps,
            default_cap,
            seed,
        }
    }
}

/// The desired assignment: one entry per member, each a sorted list of split ids.
///
/// Call it with the leader's inputs (section 7 of the spec, or a loaded snapshot). Pure and
/// deterministic: the same inputs give the same result on every target.
pub fn desired_assignment(inputs: &AssignInputs) -> Assignment {
    plan(inputs).assignment
}

/// [`desired_assignment`] with its [`Explain`].
pub fn plan(inputs: &AssignInputs) -> Plan {
    plan_with_hash(inputs, stable_hash_str)
}

/// [`plan`] with another string hash in place of [`stable_hash_str`]. For tests only: a
/// degenerate hash (say, one that takes few values) makes every tie-break of the spec reachable,
/// which 64-bit hashes of distinct ids never are.
#[doc(hidden)]
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn plan_with_hash(i: &AssignInputs, hash: impl Fn(u64, &str) -> u64) -> Plan {
    let names: Vec<&str> = i.members.iter().map(String::as_str).collect();
    let member = member_index(names.iter().copied());
    let mut lanes = passes::Lanes::new(&names, i.caps, i.default_cap);
    let pool = passes::pool(i.rules, i.splits, i.reserved, &member);
    let mut placed = passes::sticky(&pool, &mut lanes);
    if i.rules == Rules::V0_3 {
        passes::rest(&pool, &mut placed, &mut lanes, i.previous, &member);
    }
    let member_hash: Vec<u64> = names.iter().map(|n| hash(i.seed, n)).collect();
    let queue = passes::fill(&pool, &mut placed, &mut lanes, &member_hash);
    let improved = improve::improve(&pool, &mut placed, &mut lanes, &names, |id| hash(i.seed, id));
    assemble(
        &names,
        i.splits.len(),
        &pool,
        &placed,
        improved,
        queue,
        lanes.load,
    )
}

/// Step 6: each member's list sorted by id, and the explanation.
fn assemble(
    names: &[&str],
    n_splits: usize,
    pool: &[passes::Pooled],
    placed: &[Option<passes::Slot>],
    improved: improve::Improved,
    queue: Vec<String>,
    loads: Vec<u64>,
) -> Plan {
    let mut lists: Vec<Vec<(usize, &str)>> = vec![Vec::new(); names.len()];
    let mut placements = vec![None; n_splits];
    for (i, slot) in placed.iter().enumerate() {
        if let Some(slot) = *slot {
            lists[slot.member].push((pool[i].ord, pool[i].id));
            let last_move = improved.last_move[i];
            placements[pool[i].ord] = Some(Placement {
                member: slot.member,
                pass: if last_move.is_some() {
                    Pass::Improve
                } else {
                    slot.first
                },
                first_pass: slot.first,
                last_move,
            });
        }
    }
    let assignment = names
        .iter()
        .zip(lists)
        .map(|(n, mut ids)| {
            ids.sort_unstable_by_key(|e| e.0); // input order is id order
            (
                n.to_string(),
                ids.into_iter().map(|(_, id)| id.to_string()).collect(),
            )
        })
        .collect();
    Plan {
        assignment,
        explain: Explain {
            members: names.iter().map(|n| n.to_string()).collect(),
            placements,
            moves: improved.moves,
            bound_hit: improved.bound_hit,
            improvable: improved.improvable,
            queue,
            loads,
        },
    }
}
