//! The simulated store: both buckets' keys, with the indexes the engine needs.
//!
//! Watchers see the store itself (a zero-latency watch: a worker's view is the store as of the
//! events it has folded, and every event is folded the moment it is written; see `engine.rs`).
//! This module only keeps the data consistent; who is told what is the engine's business.

use crate::records::SplitStatus;
use crate::state::SplitState;
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
    pub splits: Vec<String>,
}

/// What `desired_assignment` reads of one split: assignable, weight, current owner.
type Facts = (bool, Option<u64>, Option<String>);

fn facts(s: &SplitState) -> Facts {
    (
        s.is_assignable(),
        s.assign_weight(),
        s.current_owner().map(str::to_string),
    )
}

#[derive(Default)]
pub(crate) struct Store {
    pub splits: BTreeMap<String, SplitState>,
    /// Present exactly for the splits with a lease.
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
    /// Runnable splits with no lease and a recorded owner (claimable only as Expired).
    pub expired_like: BTreeSet<String>,
    /// Splits with status runnable.
    pub runnable: usize,
    /// Bumped whenever something `desired_assignment` reads changes.
    pub input_version: u64,
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
    pub fn next_rev(&mut self) -> u64 {
        self.rev += 1;
        self.rev
    }

    fn index(&mut self, id: &str, s: &SplitState, on: bool) {
        let runnable = s.progress.status == SplitStatus::Runnable;
        let edit = |map: &mut BTreeMap<String, BTreeSet<String>>, k: &str| {
            if on {
                add(map, k, id)
            } else {
                remove(map, k, id)
            }
        };
        if let Some(o) = &s.progress.owner {
            edit(&mut self.by_progress_owner, o);
        }
        if let Some(l) = &s.lease {
            edit(&mut self.by_lease_owner, &l.value.owner);
        }
        if runnable && s.lease.is_none() && s.progress.owner.is_some() {
            if on {
                self.expired_like.insert(id.to_string());
            } else {
                self.expired_like.remove(id);
            }
        }
        if runnable {
            if on {
                self.runnable += 1;
            } else {
                self.runnable -= 1;
            }
        }
    }

    /// Adds a split that did not exist.
    pub fn insert_split(&mut self, id: &str, s: SplitState) {
        self.index(id, &s, true);
        self.splits.insert(id.to_string(), s);
        self.input_version += 1;
    }

    /// Changes one split; returns it before and after, or `None` if there is no such split.
    pub fn update_split(
        &mut self,
        id: &str,
        f: impl FnOnce(&mut SplitState),
    ) -> Option<(SplitState, SplitState)> {
        let before = self.splits.get(id)?.clone();
        self.index(id, &before, false);
        let s = self.splits.get_mut(id)?;
        f(s);
        let after = s.clone();
        self.index(id, &after, true);
        if facts(&before) != facts(&after) {
            self.input_version += 1;
        }
        Some((before, after))
    }

    /// Writes a presence key; returns whether it is new or advertises another cap.
    pub fn put_presence(&mut self, name: &str, cap: Option<u32>, now: u64) -> bool {
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

    pub fn delete_presence(&mut self, name: &str) -> bool {
        let had = self.presence.remove(name).is_some();
        if had {
            self.members.remove(name);
            self.caps.remove(name);
            self.input_version += 1;
        }
        had
    }

    pub fn put_assign(&mut self, member: &str, rec: AssignRec) {
        self.delete_assign(member);
        for id in &rec.splits {
            add(&mut self.assigned_to, id, member);
        }
        self.assign.insert(member.to_string(), rec);
    }

    pub fn delete_assign(&mut self, member: &str) -> bool {
        match self.assign.remove(member) {
            Some(old) => {
                for id in &old.splits {
                    remove(&mut self.assigned_to, id, member);
                }
                true
            }
            None => false,
        }
    }

    /// The splits whose progress record names one of `owners` (the leader's reserved set).
    pub fn owned_by_any<'a>(&self, owners: impl Iterator<Item = &'a String>) -> BTreeSet<String> {
        owners
            .filter_map(|o| self.by_progress_owner.get(o))
            .flat_map(|set| set.iter().cloned())
            .collect()
    }
}
