//! Plain transcriptions of `desired_assignment`, kept for tests: Spate 0.1's (decision-core.md
//! section 5) and 0.3's (decision-core-0.3.md section 2, which replaces step 3 with walks 3a and
//! 3b and leaves the other steps as they are).
//!
//! Every step reads as the spec reads; nothing is clever. The improving pass rescans every
//! (from, to, split) triple for every move, which is far too slow for real fleets (seconds at
//! 2,000 splits) but is the yardstick: the production implementation in [`crate::assign`] is
//! proven identical to these by differential property tests.

use crate::assign::Assignment;
use crate::hash;
use crate::records::{LeaseVal, SplitProgressRecord};
use crate::state::SplitState;
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
    let inputs = (members, splits, reserved, caps, default_cap, seed);
    transcribe(inputs, None, stable_hash_str)
}

/// The inputs both releases share: members, splits, reserved, caps, default_cap, seed.
type Inputs<'a> = (
    &'a BTreeSet<String>,
    &'a BTreeMap<String, SplitState>,
    &'a BTreeSet<String>,
    &'a BTreeMap<String, u32>,
    u32,
    u64,
);

/// Steps 0 to 6; step 3 is 0.1's with no `previous`, 0.3's walks 3a and 3b with one.
fn transcribe<'a>(
    (members, splits, reserved, caps, default_cap, seed): Inputs<'a>,
    previous: Option<&'a BTreeMap<String, String>>,
    stable_hash_str: impl Fn(u64, &str) -> u64,
) -> (Assignment, usize) {
    // step 0
    if members.is_empty() {
        return (BTreeMap::new(), 0);
    }
    // step 1
    let mut run = Run {
        members,
        out: members.iter().map(|m| (m.as_str(), Vec::new())).collect(),
        load: members.iter().map(|m| (m.as_str(), 0u64)).collect(),
        caps,
        default_cap,
        seed,
        hash: stable_hash_str,
    };
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
    let unplaced = match previous {
        None => run.sticky(&pool),
        Some(previous) => run.sticky_0_3(&pool, previous),
    };
    run.fill(unplaced);
    let moves = run.improve();
    (run.result(), moves)
}

/// Spate 0.3's `desired_assignment(members, splits, reserved, previous, caps, default_cap,
/// seed)`, transcribed. Also returns the number of improving moves.
pub fn desired_assignment_0_3(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    previous: &BTreeMap<String, String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
) -> (Assignment, usize) {
    let inputs = (members, splits, reserved, caps, default_cap, seed);
    transcribe(inputs, Some(previous), hash::stable_hash_str)
}

/// [`desired_assignment_0_3`] with another string hash, to reach the tie-breaks in tests.
#[allow(clippy::too_many_arguments)]
pub fn desired_assignment_0_3_with_hash(
    members: &BTreeSet<String>,
    splits: &BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    previous: &BTreeMap<String, String>,
    caps: &BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
    stable_hash_str: impl Fn(u64, &str) -> u64,
) -> (Assignment, usize) {
    let inputs = (members, splits, reserved, caps, default_cap, seed);
    transcribe(inputs, Some(previous), stable_hash_str)
}

/// 0.3 section 2.1: the lease counts exactly when it is ahead of the record's epoch, or the
/// record names the lease's owner (whatever the epochs).
fn lease_is_current(lease: &LeaseVal, progress: &SplitProgressRecord) -> bool {
    lease.epoch > progress.epoch || progress.owner.as_deref() == Some(lease.owner.as_str())
}

/// The spec's running state: `out`, `load`, and the inputs the steps read.
struct Run<'a, H> {
    members: &'a BTreeSet<String>,
    out: BTreeMap<&'a str, Vec<(&'a str, u64)>>,
    load: BTreeMap<&'a str, u64>,
    caps: &'a BTreeMap<String, u32>,
    default_cap: u32,
    seed: u64,
    hash: H,
}

impl<'a, H: Fn(u64, &str) -> u64> Run<'a, H> {
    fn cap(&self, m: &str) -> usize {
        self.caps.get(m).copied().unwrap_or(self.default_cap).max(1) as usize
    }

    fn names(&self) -> impl Iterator<Item = &'a str> + 'a {
        self.members.iter().map(|m| m.as_str())
    }

    fn append(&mut self, m: &'a str, id: &'a str, w: u64) {
        self.out.get_mut(m).unwrap().push((id, w));
        let l = self.load.get_mut(m).unwrap();
        *l = l.saturating_add(w);
    }

    /// step 3: sticky. Returns the unplaced splits in order.
    fn sticky(&mut self, pool: &[(&'a str, u64, &'a SplitState)]) -> Vec<(&'a str, u64)> {
        let mut unplaced = Vec::new();
        for &(id, w, s) in pool {
            match s.current_owner().and_then(|o| self.members.get(o)) {
                Some(owner) if self.out[owner.as_str()].len() < self.cap(owner) => self.append(owner, id, w),
                _ => unplaced.push((id, w)),
            }
        }
        unplaced
    }

    /// 0.3: *m has a free lane*: m is a member and `|out[m]| < cap(m)`, as of now.
    fn has_free_lane(&self, m: &str) -> bool {
        self.members.contains(m) && self.out[m].len() < self.cap(m)
    }

    /// 0.3: *place s on m*: append s to `out[m]`, add its weight saturating.
    fn place(&mut self, m: &str, id: &'a str, w: u64) {
        let m: &'a str = self.members.get(m).expect("placed on a member").as_str();
        self.append(m, id, w);
    }

    /// 0.3 step 3: walk 3a, then walk 3b. Returns the unplaced splits in order.
    fn sticky_0_3(
        &mut self,
        pool: &[(&'a str, u64, &'a SplitState)],
        previous: &BTreeMap<String, String>,
    ) -> Vec<(&'a str, u64)> {
        // 3a. Current leases, over the whole pool.
        let mut rest = Vec::new();
        for &(id, w, s) in pool {
            match &s.lease {
                Some(l) if lease_is_current(&l.value, &s.progress) && self.has_free_lane(&l.value.owner) => {
                    self.place(&l.value.owner, id, w)
                }
                _ => rest.push((id, w, s)),
            }
        }
        // 3b. Then previous, then the record's owner.
        let mut unplaced = Vec::new();
        for (id, w, s) in rest {
            if let Some(p) = previous.get(id).filter(|p| self.has_free_lane(p)) {
                self.place(p, id, w);
            } else if let Some(o) = s.progress.owner.as_deref().filter(|o| self.has_free_lane(o)) {
                self.place(o, id, w);
            } else {
                unplaced.push((id, w));
            }
        }
        unplaced
    }

    /// step 4: fill.
    fn fill(&mut self, unplaced: Vec<(&'a str, u64)>) {
        for (id, w) in unplaced {
            let mut target: Option<&str> = None;
            for m in self.names() {
                if self.out[m].len() >= self.cap(m) {
                    continue;
                }
                let key = |x: &str| (self.load[x], (self.hash)(self.seed, x));
                target = match target {
                    None => Some(m),
                    Some(t) if key(m) < key(t) => Some(m),
                    keep => keep, // equal keys: the smaller name, met first, stays
                };
            }
            let Some(t) = target else { break };
            self.append(t, id, w);
        }
    }

    /// The best move of step 5: (gain, hash, from, to, position).
    fn best_move(&self) -> Option<(u128, u64, &'a str, &'a str, usize)> {
        let mut best: Option<(u128, u64, &str, &str, usize)> = None;
        for from in self.names() {
            for to in self.names() {
                if to == from || self.out[to].len() >= self.cap(to) {
                    continue;
                }
                for (pos, &(id, w)) in self.out[from].iter().enumerate() {
                    let admitted = self.load[from] > self.load[to].saturating_add(w);
                    if !admitted {
                        continue;
                    }
                    let gain = w as u128 * (self.load[from] - self.load[to] - w) as u128;
                    let hs = (self.hash)(self.seed, id);
                    if best.is_none_or(|(g, bh, ..)| (gain, hs) > (g, bh)) {
                        best = Some((gain, hs, from, to, pos));
                    }
                }
            }
        }
        best
    }

    /// step 5: improve. Returns the number of moves made.
    fn improve(&mut self) -> usize {
        let mut moves = 0;
        while moves < MAX_IMPROVING_MOVES {
            let Some((_, _, from, to, pos)) = self.best_move() else {
                break;
            };
            let (id, w) = self.out.get_mut(from).unwrap().remove(pos);
            self.out.get_mut(to).unwrap().push((id, w));
            let lf = self.load.get_mut(from).unwrap();
            *lf = lf.saturating_sub(w);
            let lt = self.load.get_mut(to).unwrap();
            *lt = lt.saturating_add(w);
            moves += 1;
        }
        moves
    }

    /// step 6
    fn result(self) -> Assignment {
        self.out
            .into_iter()
            .map(|(m, v)| {
                let mut ids: Vec<String> = v.into_iter().map(|(id, _)| id.to_string()).collect();
                ids.sort();
                (m.to_string(), ids)
            })
            .collect()
    }
}
