//! The pool and the first two passes of `desired_assignment`: sticky, then fill.

use super::Pass;
use crate::state::SplitState;
use foldhash::HashSet;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// One pooled split.
pub(super) struct Pooled<'a> {
    pub id: &'a str,
    /// Position of the split in the input map, i.e. in id order.
    pub ord: usize,
    pub w: u64,
    /// Its current owner's member index, if the owner is a member.
    pub owner: Option<usize>,
}

/// Where a pooled split is: its member, the pass that first placed it, and its sequence number
/// (the order of appends, which is the order of `out[member]`).
#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub member: usize,
    pub first: Pass,
    pub seq: u64,
}

/// Per member: lane budget, lanes used and running load; and the append counter.
pub(super) struct Lanes {
    pub cap: Vec<usize>,
    pub count: Vec<usize>,
    pub load: Vec<u64>,
    next_seq: u64,
}

impl Lanes {
    /// `cap(m) = max(1, caps[m] or default_cap)`, nothing used yet.
    pub fn new(names: &[&str], caps: &BTreeMap<String, u32>, default_cap: u32) -> Lanes {
        let cap: Vec<usize> = names
            .iter()
            .map(|n| caps.get(*n).copied().unwrap_or(default_cap).max(1) as usize)
            .collect();
        Lanes {
            count: vec![0; cap.len()],
            load: vec![0; cap.len()],
            cap,
            next_seq: 0,
        }
    }

    pub fn free(&self, j: usize) -> bool {
        self.count[j] < self.cap[j]
    }

    /// Appends a split of weight `w` to member `j`; returns its sequence number.
    pub fn append(&mut self, j: usize, w: u64) -> u64 {
        self.count[j] += 1;
        self.load[j] = self.load[j].saturating_add(w);
        self.seq()
    }

    /// A fresh sequence number (an append to some member's list).
    pub fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }
}

/// The pool: assignable, unreserved splits by weight descending, then id ascending.
pub(super) fn pool<'a>(
    splits: &'a BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    names: &[&str],
) -> Vec<Pooled<'a>> {
    let member = super::member_index(names.iter().copied());
    let reserved: HashSet<&str> = reserved.iter().map(String::as_str).collect();
    let mut pool: Vec<Pooled> = splits
        .iter()
        .enumerate()
        .filter(|(_, (id, s))| s.is_assignable() && !reserved.contains(id.as_str()))
        .map(|(ord, (id, s))| Pooled {
            id: id.as_str(),
            ord,
            w: s.assign_weight().unwrap_or(1),
            owner: s.current_owner().and_then(|o| member.get(o).copied()),
        })
        .collect();
    // The map yields ids ascending and the sort is stable.
    pool.sort_by_key(|p| Reverse(p.w));
    pool
}

/// Pass 1: in pool order, a split whose owner is a member with a free lane stays with it.
pub(super) fn sticky(pool: &[Pooled], lanes: &mut Lanes) -> Vec<Option<Slot>> {
    pool.iter()
        .map(|p| match p.owner {
            Some(o) if lanes.free(o) => Some(Slot {
                member: o,
                first: Pass::Sticky,
                seq: lanes.append(o, p.w),
            }),
            _ => None,
        })
        .collect()
}

/// Pass 2: each unplaced split, in pool order, goes to the free member that minimises
/// `(load, member hash, name)`. When no lane is free the rest is the queue (returned).
pub(super) fn fill(
    pool: &[Pooled],
    placed: &mut [Option<Slot>],
    lanes: &mut Lanes,
    member_hash: &[u64],
) -> Vec<String> {
    let mut fillable: BTreeSet<(u64, u64, usize)> = (0..lanes.cap.len())
        .filter(|&j| lanes.free(j))
        .map(|j| (lanes.load[j], member_hash[j], j))
        .collect();
    let unplaced: Vec<usize> = (0..pool.len()).filter(|&i| placed[i].is_none()).collect();
    for (k, &i) in unplaced.iter().enumerate() {
        let Some((_, _, t)) = fillable.pop_first() else {
            return unplaced[k..].iter().map(|&q| pool[q].id.to_string()).collect();
        };
        placed[i] = Some(Slot {
            member: t,
            first: Pass::Fill,
            seq: lanes.append(t, pool[i].w),
        });
        if lanes.free(t) {
            fillable.insert((lanes.load[t], member_hash[t], t));
        }
    }
    Vec::new()
}
