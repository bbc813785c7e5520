//! Store writes and what every watcher folds from them (timing.md §2.6, §3.2, §6.1, §6.5, §6.6).
//!
//! Each function writes one key, applies the per-observer effects at once, and queues one watch
//! event. In the fast engine it also marks the workers whose next step the write may change.

use super::engine::{touch_in, Sim};
use super::outcome::{Phase, SplitList, What};
use super::store::{AssignRec, KeyMeta, LeaderKey, PlanState, Snap};
use spate_planner_core::{
    records::{LeaseVal, SplitProgressRecord, SCHEMA},
    state::LeaseEntry,
    SplitState, SplitStatus,
};

impl Sim<'_> {
    pub(crate) fn delivery(&mut self) {
        self.pending += 1;
    }

    /// Sets `assign_dirty` on the leader (the flag matters only while leading; winning an
    /// election sets it anyway).
    pub(crate) fn dirty_leader(&mut self) {
        let Some(l) = self.leader.take() else {
            return;
        };
        if let Some(wk) = self.workers.get_mut(&l) {
            wk.dirty = true;
        }
        self.mark(&l);
        self.leader = Some(l);
    }

    pub(crate) fn put_presence(&mut self, name: &str, cap: Option<u32>) {
        let new = !self.store.presence.contains_key(name);
        if self.store.put_presence(name, cap, self.now) {
            self.dirty_leader();
        }
        if new {
            // Its watch event makes every worker's next step cancel the departure.
            for wk in self.workers.values_mut() {
                wk.departed.remove(name);
            }
        }
        self.delivery();
    }

    /// A presence key goes (expiry or explicit delete): every other worker records the departure
    /// if it has not already (§3.2), and the leader is dirtied.
    pub(crate) fn delete_presence(&mut self, name: &str) {
        if !self.store.delete_presence(name) {
            return;
        }
        self.dirty_leader();
        let (now, last) = (self.now, self.last_delivery);
        for wk in self.workers.values_mut().filter(|w| w.name != name) {
            let d = wk.cfg.d;
            // An entry the last delivery's step would have pruned is not "already recorded".
            let stale = wk
                .departed
                .get(name)
                .is_some_and(|&since| d == 0 || last.saturating_sub(since) >= d);
            if stale || !wk.departed.contains_key(name) {
                wk.departed.insert(name.to_string(), now);
            }
        }
        self.delivery();
    }

    pub(crate) fn put_leader(&mut self, owner: &str, nonce: &str, generation: u64) {
        let version = self.store.next_rev();
        self.store.leader = Some(LeaderKey {
            owner: owner.to_string(),
            nonce: nonce.to_string(),
            generation,
            meta: KeyMeta {
                written_at: self.now,
                version,
            },
        });
        self.delivery();
    }

    /// The leader key goes: every worker's next step tries to elect (§4).
    pub(crate) fn delete_leader(&mut self) {
        if self.store.leader.take().is_none() {
            return;
        }
        let names: Vec<String> = self.workers.keys().cloned().collect();
        for w in names {
            self.mark(&w);
        }
        self.delivery();
    }

    pub(crate) fn put_plan(&mut self, generation: u64) {
        let open = self.store.plan.is_none_or(|p| p.open);
        self.store.plan = Some(PlanState { generation, open });
        self.delivery();
    }

    pub(crate) fn put_assign(&mut self, member: &str, generation: u64, splits: SplitList) {
        if let Some(wk) = self.workers.get_mut(member) {
            if generation >= wk.max_gen_seen {
                wk.max_gen_seen = generation;
                wk.assignment = Some(splits.clone());
            }
        }
        self.store.put_assign(member, AssignRec { generation, splits });
        self.touch(member);
        self.delivery();
    }

    /// An `assign.*` record deleted; under 0.3 its delete event dirties the leader (§2.6).
    pub(crate) fn delete_assign(&mut self, member: &str) {
        if self.store.delete_assign(member) {
            if self.timing.assign_delete_dirties() {
                self.dirty_leader();
            }
            if let Some(wk) = self.workers.get_mut(member) {
                wk.assignment = None;
            }
            self.touch(member);
            self.delivery();
        }
    }

    /// A new lease, or a takeover of one (Reclaim's CAS-update).
    pub(crate) fn put_lease(&mut self, id: &str, owner: &str, nonce: &str, epoch: u64) {
        let rev = self.store.next_rev();
        let lease = LeaseEntry {
            value: LeaseVal {
                schema: SCHEMA,
                owner: owner.to_string(),
                nonce: nonce.to_string(),
                epoch,
            },
            rev,
        };
        let Some((before, _)) = self.store.update_split(id, |s| s.lease = Some(lease)) else {
            return;
        };
        self.store.lease_meta.insert(
            id.to_string(),
            KeyMeta {
                written_at: self.now,
                version: rev,
            },
        );
        if before.lease_owner.as_deref() != Some(owner) {
            self.dirty_leader();
        }
        // A put with a foreign nonce fences the holder (§6.6).
        self.fence_holder(id, |w| w.nonce != nonce);
        self.touch_split(id, &before);
        self.delivery();
    }

    /// A renewal by the holder: same owner, nonce and epoch, so it folds nothing (§2.6). The
    /// holder's `last_ok_write` is the lease's last write time (revisions are only compared, so a
    /// renewal does not take one). The naive engine delivers it as a watch event; the fast engine
    /// knows the steps it would cause change nothing.
    pub(crate) fn renew_lease(&mut self, id: &str, member: &str) {
        if self.trace_renewals {
            self.rec.log(
                self.now,
                What::LeaseRenewed {
                    member: member.to_string(),
                    split: id.to_string(),
                },
            );
        }
        if self.naive {
            self.delivery();
        }
    }

    /// A lease deleted (by `by`, or by expiry when `None`).
    pub(crate) fn delete_lease(&mut self, id: &str, by: Option<&str>) {
        let Some((before, _)) = self.store.update_split(id, |s| s.lease = None) else {
            return;
        };
        if before.lease_owner.is_none() {
            return;
        }
        self.store.lease_meta.remove(id);
        self.dirty_leader();
        self.fence_holder(id, |w| by != Some(w.name.as_str()));
        self.scan_check(id);
        self.touch_split(id, &before);
        self.delivery();
    }

    /// A progress record written by `by`.
    pub(crate) fn put_progress(&mut self, id: &str, by: &str, f: impl FnOnce(&mut SplitProgressRecord)) {
        let rev = self.store.next_rev();
        let Some((before, after)) = self.store.update_split(id, |s| {
            f(&mut s.progress);
            s.progress_rev = rev;
        }) else {
            return;
        };
        let (b, a) = (&before, &after);
        if b.owner != a.owner || b.status != a.status {
            self.dirty_leader();
        }
        let epoch = a.epoch;
        self.fence_holder(id, |w| {
            w.name != by && w.owned.get(id).is_some_and(|o| o.epoch < epoch)
        });
        self.scan_check(id);
        // An ordinary commit changes nothing a claim or revocation reads.
        if (&b.owner, b.status, b.epoch, b.attempts) != (&a.owner, a.status, a.epoch, a.attempts) {
            self.touch_split(id, &before);
        }
        if b.status == SplitStatus::Runnable && a.status != SplitStatus::Runnable && self.store.runnable == 0
        {
            self.touch_all();
        }
        self.delivery();
    }

    /// A planner run lands a split: spec, then progress record (two writes, §5.1).
    pub(crate) fn land_split(&mut self, id: &str, s: SplitState) {
        self.store.insert_split(id, s);
        self.dirty_leader();
        self.delivery();
        self.scan_check(id);
        self.touch_split_id(id);
        self.delivery();
    }

    /// A live holder of `id` for which `cond` holds loses it without writing anything.
    fn fence_holder(&mut self, id: &str, cond: impl Fn(&super::worker::Worker) -> bool) {
        let Some(h) = self.holder.get(id).cloned() else {
            return;
        };
        if self.workers.get(&h).is_some_and(cond) {
            self.drop_split(&h, id);
            self.rec.log(
                self.now,
                What::Lost {
                    member: h.clone(),
                    split: id.to_string(),
                },
            );
            self.rec.set_phase(id, self.now, Phase::Idle, None);
        }
    }

    /// A lease deleted or a progress record arriving for a runnable split at
    /// `attempts + 1 >= A` forces a quarantine scan on every worker (§6.5).
    fn scan_check(&mut self, id: &str) {
        let Some(s) = self.store.splits.get(id) else {
            return;
        };
        if s.progress.status != SplitStatus::Runnable {
            return;
        }
        let next = u64::from(s.progress.attempts) + 1;
        if next < u64::from(self.min_attempts) {
            return;
        }
        let hit: Vec<String> = self
            .workers
            .values_mut()
            .filter(|w| next >= u64::from(w.cfg.a))
            .map(|w| {
                w.scan_pending = true;
                w.name.clone()
            })
            .collect();
        for w in hit {
            self.touch(&w);
        }
    }

    /// Marks the workers whose claims may depend on split `id`: those assigned it, its holder,
    /// and the instances its lease names (before and after).
    fn touch_split(&mut self, id: &str, before: &Snap) {
        if let Some(o) = &before.lease_owner {
            self.touch(o);
        }
        self.touch_split_id(id);
    }

    fn touch_split_id(&mut self, id: &str) {
        let (workers, marked, naive) = (&mut self.workers, &mut self.marked, self.naive);
        for w in self.store.assigned_to.get(id).into_iter().flatten() {
            touch_in(workers, marked, naive, w);
        }
        if let Some(h) = self.holder.get(id) {
            touch_in(workers, marked, naive, h);
        }
        if let Some(l) = self.store.splits.get(id).and_then(|s| s.lease.as_ref()) {
            touch_in(workers, marked, naive, &l.value.owner);
        }
    }
}
