//! A plain transcription of `desired_assignment` (decision-core.md section 5), kept for tests.
//!
//! Every step reads as the spec reads; nothing is clever. The improving pass rescans every
//! (from, to, split) triple for every move, which is far too slow for real fleets (seconds at
//! 2,000 splits) but is the yardstick: the production implementation in [`crate::assign`] is
//! proven identical to this one by differential property tests.

use crate::hash;
use crate::state::SplitState;
use crate::Assignment;
use std::collections::{BTreeMap, BTreeSet};

/// The improving pass's bound on moves.
pub use crate::assign::MAX_IMPROVING_MOVES;

/// The spec's `desired_assignment`, transcribed. Also returns the number of improving moves.
pub fn desired_assignment(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
) -> (Assignment, usize) {
    desired_assignment_with_hash(
        members,
        splits,
        reserved,
        caps,
        default_cap,
        seed,
        hash::stable_hash_str,
    )
}

/// [`desired_assignment`] with another string hash, to reach the tie-breaks in tests.
pub fn desired_assignment_with_hash(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
    stable_hash_str: impl Fn(u64, &str) -> u64,
) -> (Assignment, usize) {
    // step 0
    let mut out: BTreeMap<&str, Vec<(&str, u64)>> =
        members.iter().map(|m| (m.as_str(), Vec::new())).collect();
    if members.is_empty() {
        return (BTreeMap::new(), 0);
    }
    // step 1
    let cap = |m: &str| -> usize { caps.get(m).copied().unwrap_or(default_cap).max(1) as usize };
    let h = |m: &str| stable_hash_str(seed, m);
    let mut load: BTreeMap<&str, u64> = members.iter().map(|m| (m.as_str(), 0u64)).collect();

    // step 2: the pool
    let mut pool: Vec<(&str, u64, &SplitState)> = splits
        .iter()
        .filter(|(id, s)| s.is_assignable() && !reserved.contains(*id))
        .map(|(id, s)| {
            (
                id.as_str(),
                s.spec.as_ref().map(|sp| sp.weight).unwrap_or(0).max(1),
                s,
            )
        })
        .collect();
    pool.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));

    // step 3: sticky
    let mut unplaced = Vec::new();
    for &(id, w, s) in &pool {
        match s.current_owner() {
            Some(owner) if members.contains(owner) && out[owner].len() < cap(owner) => {
                out.get_mut(owner).unwrap().push((id, w));
                let l = load.get_mut(owner).unwrap();
                *l = l.saturating_add(w);
            }
            _ => unplaced.push((id, w)),
        }
    }

    // step 4: fill
    for (id, w) in unplaced {
        let mut target: Option<&str> = None;
        for m in members.iter().map(|m| m.as_str()) {
            if out[m].len() >= cap(m) {
                continue;
            }
            target = match target {
                None => Some(m),
                Some(t) if (load[m], h(m)) < (load[t], h(t)) => Some(m),
                keep => keep, // equal keys: the smaller name, met first, stays
            };
        }
        let Some(t) = target else { break };
        out.get_mut(t).unwrap().push((id, w));
        let l = load.get_mut(t).unwrap();
        *l = l.saturating_add(w);
    }

    // step 5: improve
    let mut moves = 0;
    while moves < MAX_IMPROVING_MOVES {
        // (gain, hash, from, to, position)
        let mut best: Option<(u128, u64, &str, &str, usize)> = None;
        for from in members.iter().map(|m| m.as_str()) {
            for to in members.iter().map(|m| m.as_str()) {
                if to == from || out[to].len() >= cap(to) {
                    continue;
                }
                for (pos, &(id, w)) in out[from].iter().enumerate() {
                    let admitted = load[from] > load[to].saturating_add(w);
                    if !admitted {
                        continue;
                    }
                    let gain = w as u128 * (load[from] - load[to] - w) as u128;
                    let hs = stable_hash_str(seed, id);
                    let better = match best {
                        None => true,
                        Some((g, bh, ..)) => (gain, hs) > (g, bh),
                    };
                    if better {
                        best = Some((gain, hs, from, to, pos));
                    }
                }
            }
        }
        let Some((_, _, from, to, pos)) = best else { break };
        let (id, w) = out.get_mut(from).unwrap().remove(pos);
        out.get_mut(to).unwrap().push((id, w));
        let lf = load.get_mut(from).unwrap();
        *lf = lf.saturating_sub(w);
        let lt = load.get_mut(to).unwrap();
        *lt = lt.saturating_add(w);
        moves += 1;
    }

    // step 6
    let result = out
        .into_iter()
        .map(|(m, v)| {
            let mut ids: Vec<String> = v.into_iter().map(|(id, _)| id.to_string()).collect();
            ids.sort();
            (m.to_string(), ids)
        })
        .collect();
    (result, moves)
}
