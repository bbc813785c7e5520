//! `desired_assignment` (decision-core.md section 5): the production implementation.
//!
//! It computes exactly the result of the plain transcription in [`crate::reference`] (the
//! differential property tests in `tests/assignment.rs` check this), but the improving pass does
//! not rescan every (from, to, split) triple per move. It rests on three facts of the rules:
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
//! Cost: O(n log n) for the pool and the first two passes, then O(m' log n) per improving move,
//! where m' is the number of members scanned before the bound stops the scan.

use crate::hash::stable_hash_str;
use crate::state::SplitState;
use crate::Assignment;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

pub use crate::reference::MAX_IMPROVING_MOVES;

/// The pass that put a split where the plan leaves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pass {
    /// Kept by its current owner (pass 1).
    Sticky,
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

/// The desired assignment: one entry per member, each a sorted list of split ids.
///
/// Call it with the leader's inputs (section 7 of the spec, or a loaded snapshot). Pure and
/// deterministic: the same inputs give the same result on every target.
pub fn desired_assignment(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
) -> Assignment {
    plan(members, splits, reserved, caps, default_cap, seed).assignment
}

/// A split in a member's improve index: ordered by weight, then hash descending, then position.
type Entry = (u64, Reverse<u64>, u64, usize);

/// Comparison key of a candidate move, larger is better:
/// gain, split hash, then the earlier `from` name, then the earlier position.
type MoveKey = (u128, u64, Reverse<usize>, Reverse<u64>);

struct Pooled<'a> {
    id: &'a str,
    /// Position of the split in the input map, i.e. in id order.
    ord: usize,
    w: u64,
    owner: Option<usize>,
}

/// [`desired_assignment`] with its [`Explain`].
pub fn plan(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
) -> Plan {
    plan_with_hash(
        members,
        splits,
        reserved,
        caps,
        default_cap,
        seed,
        stable_hash_str,
    )
}

/// [`plan`] with another string hash in place of [`stable_hash_str`]. For tests only: a
/// degenerate hash (say, one that takes few values) makes every tie-break of the spec reachable,
/// which 64-bit hashes of distinct ids never are.
#[doc(hidden)]
pub fn plan_with_hash(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
    hash: impl Fn(u64, &str) -> u64,
) -> Plan {
    let names: Vec<&str> = members.iter().map(String::as_str).collect();
    let m = names.len(); // with no members everything pooled is queued and the result is empty
    let index_of = |name: &str| names.binary_search(&name).ok();
    let cap: Vec<usize> = names
        .iter()
        .map(|n| caps.get(*n).copied().unwrap_or(default_cap).max(1) as usize)
        .collect();
    let mut load = vec![0u64; m];
    let mut count = vec![0usize; m];

    // Pool: weight descending, then id ascending (the map already yields ids ascending and the
    // sort is stable).
    let mut pool: Vec<Pooled> = splits
        .iter()
        .enumerate()
        .filter(|(_, (id, s))| s.is_assignable() && !reserved.contains(*id))
        .map(|(ord, (id, s))| Pooled {
            id: id.as_str(),
            ord,
            w: s.assign_weight().unwrap_or(1),
            owner: s.current_owner().and_then(index_of),
        })
        .collect();
    pool.sort_by_key(|p| Reverse(p.w));

    // where[i] = (member, first pass, sequence number) for pool index i.
    let mut placed: Vec<Option<(usize, Pass, u64)>> = vec![None; pool.len()];
    let mut seq = 0u64;

    // Pass 1: sticky.
    let mut unplaced = Vec::new();
    for (i, p) in pool.iter().enumerate() {
        match p.owner {
            Some(o) if count[o] < cap[o] => {
                count[o] += 1;
                load[o] = load[o].saturating_add(p.w);
                placed[i] = Some((o, Pass::Sticky, seq));
                seq += 1;
            }
            _ => unplaced.push(i),
        }
    }

    // Pass 2: fill, lightest free member by (load, member hash, name).
    let mh: Vec<u64> = names.iter().map(|n| hash(seed, n)).collect();
    let mut fillable: BTreeSet<(u64, u64, usize)> = (0..m)
        .filter(|&j| count[j] < cap[j])
        .map(|j| (load[j], mh[j], j))
        .collect();
    let mut queue = Vec::new();
    for (k, &i) in unplaced.iter().enumerate() {
        let Some((_, _, t)) = fillable.pop_first() else {
            queue.extend(unplaced[k..].iter().map(|&q| pool[q].id.to_string()));
            break;
        };
        count[t] += 1;
        load[t] = load[t].saturating_add(pool[i].w);
        placed[i] = Some((t, Pass::Fill, seq));
        seq += 1;
        if count[t] < cap[t] {
            fillable.insert((load[t], mh[t], t));
        }
    }

    // Pass 3: improve.
    let mut held: Vec<Vec<Entry>> = vec![Vec::new(); m];
    let mut split_hash = vec![0u64; pool.len()];
    for (i, slot) in placed.iter().enumerate() {
        if let Some((j, _, s)) = *slot {
            split_hash[i] = hash(seed, pool[i].id);
            held[j].push((pool[i].w, Reverse(split_hash[i]), s, i));
        }
    }
    for v in &mut held {
        v.sort_unstable();
    }
    let mut free: BTreeSet<(u64, usize)> = (0..m)
        .filter(|&j| count[j] < cap[j])
        .map(|j| (load[j], j))
        .collect();
    let mut heaviest: BTreeSet<(Reverse<u64>, usize)> = (0..m).map(|j| (Reverse(load[j]), j)).collect();
    let mut last_move: Vec<Option<usize>> = vec![None; pool.len()];
    let mut moves: Vec<ImprovingMove> = Vec::new();

    let find_best = |held: &[Vec<Entry>],
                     free: &BTreeSet<(u64, usize)>,
                     heaviest: &BTreeSet<(Reverse<u64>, usize)>|
     -> Option<(MoveKey, usize, usize, usize)> {
        let &(lt, t) = free.first()?;
        let mut best: Option<(MoveKey, usize, usize, usize)> = None; // (key, from, to, entry pos)
        for &(Reverse(lf), f) in heaviest {
            if lf <= lt || lf - lt < 2 {
                break; // no split of weight >= 1 is admitted here or below
            }
            let d = lf - lt;
            let half = d / 2;
            let bound = half as u128 * (d - half) as u128;
            if let Some((k, ..)) = &best {
                if bound < k.0 {
                    break;
                }
            }
            if f == t {
                continue;
            }
            let v = &held[f];
            let Some(&(w_max, ..)) = v.last() else { continue };
            if w_max <= half {
                // Common case: every split of `from` is at most d/2, so the heaviest class wins
                // here, with gain w_max * (d - w_max). Skip the search when it cannot beat the best.
                let gain = w_max as u128 * (d - w_max) as u128;
                if best.as_ref().is_some_and(|(k, ..)| gain < k.0) {
                    continue;
                }
            }
            // Heaviest weight <= d/2: the start of its class.
            let upto = v.partition_point(|e| e.0 <= half);
            let mut consider = |pos: usize| {
                let (w, Reverse(hs), s, _) = v[pos];
                let key: MoveKey = (w as u128 * (d - w) as u128, hs, Reverse(f), Reverse(s));
                if best.as_ref().is_none_or(|(k, ..)| key > *k) {
                    best = Some((key, f, t, pos));
                }
            };
            if upto > 0 {
                let w_lo = v[upto - 1].0;
                consider(v.partition_point(|e| e.0 < w_lo));
            }
            // Lightest weight in (d/2, d): already the start of its class.
            if upto < v.len() && v[upto].0 < d {
                consider(upto);
            }
        }
        best
    };

    while moves.len() < MAX_IMPROVING_MOVES {
        let Some((key, f, t, pos)) = find_best(&held, &free, &heaviest) else {
            break;
        };
        let (w, hs, _, i) = held[f].remove(pos);
        let entry = (w, hs, seq, i);
        seq += 1;
        let at = held[t].partition_point(|e| *e < entry);
        held[t].insert(at, entry);

        for j in [f, t] {
            heaviest.remove(&(Reverse(load[j]), j));
            if count[j] < cap[j] {
                free.remove(&(load[j], j));
            }
        }
        load[f] -= w; // the move was admitted: load(f) > load(t) + w
        load[t] += w;
        count[f] -= 1;
        count[t] += 1;
        for j in [f, t] {
            heaviest.insert((Reverse(load[j]), j));
            if count[j] < cap[j] {
                free.insert((load[j], j));
            }
        }
        placed[i] = placed[i].map(|(_, first, _)| (t, first, entry.2));
        last_move[i] = Some(moves.len());
        moves.push(ImprovingMove {
            split: pool[i].id.to_string(),
            weight: w,
            from: names[f].to_string(),
            to: names[t].to_string(),
            gain: key.0,
        });
    }
    let bound_hit = moves.len() >= MAX_IMPROVING_MOVES;
    let improvable = bound_hit && find_best(&held, &free, &heaviest).is_some();

    // Step 6: each member's list sorted by id (input order is id order).
    let mut lists: Vec<Vec<(usize, &str)>> = vec![Vec::new(); m];
    let mut placements = vec![None; splits.len()];
    for (i, slot) in placed.iter().enumerate() {
        if let Some((j, first, _)) = *slot {
            lists[j].push((pool[i].ord, pool[i].id));
            placements[pool[i].ord] = Some(Placement {
                member: j,
                pass: if last_move[i].is_some() {
                    Pass::Improve
                } else {
                    first
                },
                first_pass: first,
                last_move: last_move[i],
            });
        }
    }
    let assignment = names
        .iter()
        .zip(lists)
        .map(|(n, mut ids)| {
            ids.sort_unstable_by_key(|e| e.0);
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
            moves,
            bound_hit,
            improvable,
            queue,
            loads: load,
        },
    }
}
