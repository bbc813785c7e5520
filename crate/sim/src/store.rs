//! The simulated store: both buckets' keys, with the indexes the engine needs.
//!
//! Watchers see the store itself (a zero-latency watch: a worker's view is the store as of the
//! events it has folded, and every event is folded the moment it is written; see `engine.rs`).
//! This module only keeps the data consistent; who is told what is the engine's business.

use super::outcome::SplitList;
use spate_planner_core::{
    records::{AssignmentVal, SCHEMA},
    Rules, SplitState, SplitStatus,
};
use std::collections::{BTreeMap, BTreeSet};

/// When a lease-bucket key was last written, and its revision (a key's expiry event is stale
/// once the revision moved on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyMeta {
    pub written_at: u64,
    pub version: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Presence {
    /// The advertised `max_in_flight` if readable and positive.
    pub cap: Option<u32>,
    pub meta: KeyMeta,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeaderKey {
    pub owner: String,
    pub nonce: String,
    pub generation: u64,
    pub meta: KeyMeta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PlanState {
    pub generation: u64,
    pub open: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AssignRec {
    pub generation: u64,
    pub splits: SplitList,
}

/// What the engine and the indexes need of a split before and after a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Snap {
    pub lease_owner: Option<String>,
    pub owner: Option<String>,
    pub status: SplitStatus,
    pub epoch: u64,
    pub attempts: u32,
    /// What `desired_assignment` reads: assignable, weight (the current owner is
    /// `lease_owner.or(owner)`; 0.3 reads the lease only while it is current).
    pub assignable: bool,
    pub weight: Option<u64>,
    pub lease_current: bool,
}

impl Snap {
    fn of(s: &SplitState) -> Snap {
        Snap {
            lease_owner: s.lease.as_ref().map(|l| l.value.owner.clone()),
            owner: s.progress.owner.clone(),
            status: s.progress.status,
            epoch: s.progress.epoch,
            attempts: s.progress.attempts,
            assignable: s.is_assignable(),
            weight: s.assign_weight(),
            lease_current: s.lease_is_current(),
        }
    }

    /// What `desired_assignment` reads of the split under `rules` (decision-core.md §5 step 3;
    /// decision-core-0.3.md §2: the lease's owner only while it is current, then the record's
    /// owner, `previous` being the records').
    fn facts(&self, rules: Rules) -> (bool, Option<u64>, Option<&String>, Option<&String>) {
        match rules {
            Rules::V0_1 => (self.assignable, self.weight, self.current_owner(), None),
            Rules::V0_3 => (
                self.assignable,
                self.weight,
                self.lease_owner.as_ref().filter(|_| self.lease_current),
                self.owner.as_ref(),
            ),
        }
    }

    fn current_owner(&self) -> Option<&String> {
        self.lease_owner.as_ref().or(self.owner.as_ref())
    }

    fn expired_like(&self) -> bool {
        self.status == SplitStatus::Runnable && self.lease_owner.is_none() && self.owner.is_some()
    }
}

pub(crate) struct Store {
    /// The rules the leader decides by (what `desired_assignment` reads differs).
    pub rules: Rules,
    pub splits: BTreeMap<String, SplitState>,
    /// Present exactly for the splits with a lease. Its `written_at` is the lease's creation or
    /// takeover; a live holder's renewals are in its `Owned::last_ok_write`.
    pub lease_meta: BTreeMap<String, KeyMeta>,
    pub presence: BTreeMap<String, Presence>,
    /// The presence keys, and the positive caps they advertise (the leader's `caps`).
    pub members: BTreeSet<String>,
    pub caps: BTreeMap<String, u32>,
    pub leader: Option<LeaderKey>,
    pub plan: Option<PlanState>,
    pub assign: BTreeMap<String, AssignRec>,
    /// Split -> instances whose `assign.*` record names it.
    pub assigned_to: BTreeMap<String, BTreeSet<String>>,
    pub by_progress_owner: BTreeMap<String, BTreeSet<String>>,
    pub by_lease_owner: BTreeMap<String, BTreeSet<String>>,
    /// Runnable splits with no lease and a recorded owner (claimable only as Expired), by
    /// `(attempts, id)`.
    pub expired_like: BTreeSet<(u32, String)>,
    /// Splits with status runnable.
    pub runnable: usize,
    /// Bumped whenever something `desired_assignment` reads changes (but the records).
    pub input_version: u64,
    /// Bumped whenever an `assign.*` record is written or deleted (0.3's `previous`).
    pub assign_version: u64,
    /// The store's revision counter.
    pub rev: u64,
}

fn add(map: &mut BTreeMap<String, BTreeSet<String>>, k: &str, v: &str) {
    map.entry(k.to_string()).or_default().insert(v.to_string());
}

fn remove(map: &mut BTreeMap<String, BTreeSet<String>>, k: &str, v: &str) {
    if let Some(set) = map.get_mut(k) {
        set.remove(v);
        if set.is_empty() {
            map.remove(k);
        }
    }
}

impl Store {
    pub(crate) fn new(rules: Rules) -> Store {
        Store {
            rules,
            splits: BTreeMap::new(),
            lease_meta: BTreeMap::new(),
            presence: BTreeMap::new(),
            members: BTreeSet::new(),
            caps: BTreeMap::new(),
            leader: None,
            plan: None,
            assign: BTreeMap::new(),
            assigned_to: BTreeMap::new(),
            by_progress_owner: BTreeMap::new(),
            by_lease_owner: BTreeMap::new(),
            expired_like: BTreeSet::new(),
            runnable: 0,
            input_version: 0,
            assign_version: 0,
            rev: 0,
        }
    }

    /// The `assign.*` records as the core reads them (`last_assignees`).
    pub(crate) fn assign_records(&self) -> BTreeMap<String, AssignmentVal> {
        self.assign
            .iter()
            .map(|(m, r)| {
                let val = AssignmentVal {
                    schema: SCHEMA,
                    generation: r.generation,
                    splits: r.splits.to_vec(),
                };
                (m.clone(), val)
            })
            .collect()
    }

    pub(crate) fn next_rev(&mut self) -> u64 {
        self.rev += 1;
        self.rev
    }

    /// Moves `id` in the indexes from what `before` says to what `after` says.
    fn reindex(&mut self, id: &str, before: Option<&Snap>, after: &Snap) {
        let b = before;
        if b.map(|b| &b.owner) != Some(&after.owner) {
            if let Some(o) = b.and_then(|b| b.owner.as_ref()) {
                remove(&mut self.by_progress_owner, o, id);
            }
            if let Some(o) = &after.owner {
                add(&mut self.by_progress_owner, o, id);
            }
        }
        if b.map(|b| &b.lease_owner) != Some(&after.lease_owner) {
            if let Some(o) = b.and_then(|b| b.lease_owner.as_ref()) {
                remove(&mut self.by_lease_owner, o, id);
            }
            if let Some(o) = &after.lease_owner {
                add(&mut self.by_lease_owner, o, id);
            }
        }
        let key = |s: &Snap| s.expired_like().then_some(s.attempts);
        if b.and_then(key) != key(after) {
            if let Some(a) = b.and_then(key) {
                self.expired_like.remove(&(a, id.to_string()));
            }
            if let Some(a) = key(after) {
                self.expired_like.insert((a, id.to_string()));
            }
        }
        let was = b.is_some_and(|b| b.status == SplitStatus::Runnable);
        let is = after.status == SplitStatus::Runnable;
        self.runnable = self.runnable + usize::from(is) - usize::from(was);
        let rules = self.rules;
        if b.map(|b| b.facts(rules)) != Some(after.facts(rules)) {
            self.input_version += 1;
        }
    }

    /// Adds a split that did not exist.
    pub(crate) fn insert_split(&mut self, id: &str, s: SplitState) {
        self.reindex(id, None, &Snap::of(&s));
        self.splits.insert(id.to_string(), s);
    }

    /// Changes one split; returns what it was and is, or `None` if there is no such split.
    pub(crate) fn update_split(&mut self, id: &str, f: impl FnOnce(&mut SplitState)) -> Option<(Snap, Snap)> {
        let s = self.splits.get_mut(id)?;
        let before = Snap::of(s);
        f(s);
        let after = Snap::of(s);
        self.reindex(id, Some(&before), &after);
        Some((before, after))
    }

    /// Writes a presence key; returns whether it is new or advertises another cap.
    pub(crate) fn put_presence(&mut self, name: &str, cap: Option<u32>, now: u64) -> bool {
        let version = self.next_rev();
        let meta = KeyMeta {
            written_at: now,
            version,
        };
        let changed = self.presence.get(name).is_none_or(|p| p.cap != cap);
        self.presence.insert(name.to_string(), Presence { cap, meta });
        if changed {
            self.members.insert(name.to_string());
            match cap.filter(|&c| c > 0) {
                Some(c) => self.caps.insert(name.to_string(), c),
                None => self.caps.remove(name),
            };
            self.input_version += 1;
        }
        changed
    }

    pub(crate) fn delete_presence(&mut self, name: &str) -> bool {
        let had = self.presence.remove(name).is_some();
        if had {
            self.members.remove(name);
            self.caps.remove(name);
            self.input_version += 1;
        }
        had
    }

    /// Writes `assign.{member}`, updating the index by the difference of the two lists (a merge
    /// when both are sorted, as Spate writes them).
    pub(crate) fn put_assign(&mut self, member: &str, rec: AssignRec) {
        self.assign_version += 1;
        let old = self.assign.remove(member).map(|r| r.splits).unwrap_or_default();
        let sorted = |v: &[String]| v.windows(2).all(|w| w[0] < w[1]);
        if !sorted(&old) || !sorted(&rec.splits) {
            for id in old.iter() {
                remove(&mut self.assigned_to, id, member);
            }
            for id in rec.splits.iter() {
                add(&mut self.assigned_to, id, member);
            }
            self.assign.insert(member.to_string(), rec);
            return;
        }
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < rec.splits.len() {
            match (old.get(i), rec.splits.get(j)) {
                (Some(a), Some(b)) if a == b => {
                    i += 1;
                    j += 1;
                }
                (Some(a), Some(b)) if a < b => {
                    remove(&mut self.assigned_to, a, member);
                    i += 1;
                }
                (Some(a), None) => {
                    remove(&mut self.assigned_to, a, member);
                    i += 1;
                }
                (_, Some(b)) => {
                    add(&mut self.assigned_to, b, member);
                    j += 1;
                }
                (None, None) => break,
            }
        }
        self.assign.insert(member.to_string(), rec);
    }

    pub(crate) fn delete_assign(&mut self, member: &str) -> bool {
        match self.assign.remove(member) {
            Some(old) => {
                self.assign_version += 1;
                for id in old.splits.iter() {
                    remove(&mut self.assigned_to, id, member);
                }
                true
            }
            None => false,
        }
    }

    /// The splits whose progress record names one of `owners` (the leader's reserved set).
    pub(crate) fn owned_by_any<'a>(&self, owners: impl Iterator<Item = &'a String>) -> BTreeSet<String> {
        owners
            .filter_map(|o| self.by_progress_owner.get(o))
            .flat_map(|set| set.iter().cloned())
            .collect()
    }
}
