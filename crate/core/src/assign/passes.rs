//! The pool and the passes before the improving one: sticky (0.3: walks 3a and 3b), then fill.

use super::explain::Pass;
use crate::rules::Rules;
use crate::state::SplitState;
use foldhash::{HashMap, HashSet};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

/// No member (see [`Pooled::owner`]).
const NO_MEMBER: u32 = u32::MAX;

/// One pooled split.
pub(super) struct Pooled<'a> {
    pub id: &'a str,
    /// Position of the split in the input map, i.e. in id order.
    pub ord: usize,
    pub w: u64,
    /// The member index the sticky pass keeps it with, or [`NO_MEMBER`]: 0.1, its current
    /// owner; 0.3, its lease's owner when the lease is current (walk 3a).
    owner: u32,
    pub s: &'a SplitState,
}

impl Pooled<'_> {
    pub(super) fn owner(&self) -> Option<usize> {
        (self.owner != NO_MEMBER).then_some(self.owner as usize)
    }
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
    pub(super) fn new(names: &[&str], caps: &BTreeMap<String, u32>, default_cap: u32) -> Lanes {
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

    pub(super) fn free(&self, j: usize) -> bool {
        self.count[j] < self.cap[j]
    }

    /// Appends a split of weight `w` to member `j`; returns its sequence number.
    pub(super) fn append(&mut self, j: usize, w: u64) -> u64 {
        self.count[j] += 1;
        self.load[j] = self.load[j].saturating_add(w);
        self.seq()
    }

    /// A fresh sequence number (an append to some member's list).
    pub(super) fn seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }
}

/// The pool: assignable, unreserved splits by weight descending, then id ascending.
pub(super) fn pool<'a>(
    rules: Rules,
    splits: &'a BTreeMap<String, SplitState>,
    reserved: &BTreeSet<String>,
    member: &HashMap<&str, usize>,
) -> Vec<Pooled<'a>> {
    let reserved: HashSet<&str> = reserved.iter().map(String::as_str).collect();
    let mut pool: Vec<Pooled> = splits
        .iter()
        .enumerate()
        .filter(|(_, (id, s))| s.is_assignable() && !reserved.contains(id.as_str()))
        .map(|(ord, (id, s))| Pooled {
            id: id.as_str(),
            ord,
            w: s.assign_weight().unwrap_or(1),
            owner: sticky_owner(rules, s)
                .and_then(|o| member.get(o))
                .map_or(NO_MEMBER, |&j| j as u32),
            s,
        })
        .collect();
    // The map yields ids ascending and the sort is stable.
    pool.sort_by_key(|p| Reverse(p.w));
    pool
}

/// Who the sticky pass keeps a split with: 0.1, its current owner; 0.3, its lease's owner when
/// the lease is current.
fn sticky_owner(rules: Rules, s: &SplitState) -> Option<&str> {
    match rules {
        Rules::V0_1 => s.current_owner(),
        Rules::V0_3 => s
            .lease
            .as_ref()
            .filter(|_| s.lease_is_current())
            .map(|l| l.value.owner.as_str()),
    }
}

/// 0.1 pass 1, 0.3 walk 3a: in pool order, a split whose sticky owner ([`Pooled::owner`]) has
/// a free lane stays with it.
pub(super) fn sticky(pool: &[Pooled], lanes: &mut Lanes) -> Vec<Option<Slot>> {
    pool.iter()
        .map(|p| match p.owner() {
            Some(o) if lanes.free(o) => Some(Slot {
                member: o,
                first: Pass::Sticky,
                seq: lanes.append(o, p.w),
            }),
            _ => None,
        })
        .collect()
}

/// 0.3 walk 3b: the splits walk 3a left, in pool order, go to their `previous` assignee if it
/// has a free lane, else to their record's owner if that one has.
pub(super) fn rest(
    pool: &[Pooled],
    placed: &mut [Option<Slot>],
    lanes: &mut Lanes,
    previous: &BTreeMap<String, String>,
    member: &HashMap<&str, usize>,
) {
    for (p, slot) in pool.iter().zip(placed.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        let before = previous.get(p.id).and_then(|m| member.get(m.as_str()));
        let recorded = p.s.progress.owner.as_deref().and_then(|m| member.get(m));
        let target = [(before, Pass::Previous), (recorded, Pass::RecordOwner)]
            .into_iter()
            .find_map(|(m, pass)| m.copied().filter(|&m| lanes.free(m)).map(|m| (m, pass)));
        if let Some((m, first)) = target {
            *slot = Some(Slot {
                member: m,
                first,
                seq: lanes.append(m, p.w),
            });
        }
    }
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
