//! The starting instant: the store from the snapshot, and a running process per member with
//! clocks drawn from the seed (`docs/simulator.md`, "The starting instant").
//!
//! Each member has run for a while: it has made `r0` heartbeats, its next one is due within the
//! current jittered interval, its presence (and leader key) were written at its last heartbeat,
//! and each split lease it holds was claimed between 3 and 6 heartbeats ago and renewed since by
//! the renewal gate (0.1) or at every heartbeat (0.3). Reconcile and replan phases are uniform
//! over their periods (0.3: the reconcile's current jittered one).

use super::draw::{below, ceil_ms, nonce};
use super::engine::Sim;
use super::options::ORIGIN;
use super::outcome::{Phase, SplitList};
use super::queue::{Item, LeaseKey, TimerKind};
use super::start::Start;
use super::store::{AssignRec, KeyMeta, LeaderKey, PlanState};
use super::worker::{Owned, Worker};
use spate_planner_core::{jitter, SplitStatus};
use std::time::Duration;

impl Sim<'_> {
    pub(crate) fn load(&mut self, start: &Start) {
        for (id, s) in &start.splits {
            self.store.insert_split(id, s.clone());
            if s.lease.is_some() {
                let version = self.store.next_rev();
                let meta = KeyMeta {
                    written_at: ORIGIN,
                    version,
                };
                self.store.lease_meta.insert(id.clone(), meta);
            }
        }
        self.store.plan = start
            .plan
            .map(|(generation, open)| PlanState { generation, open });
        for (m, (generation, splits)) in &start.published {
            // A record is a set: kept sorted (Spate writes it so), duplicates dropped.
            let mut ids = splits.clone();
            ids.sort_unstable();
            ids.dedup();
            let rec = AssignRec {
                generation: *generation,
                splits: SplitList::new(ids),
            };
            self.store.put_assign(m, rec);
        }
        for (m, cap) in &start.members {
            self.start_member(m, *cap);
        }
        self.load_leader(start);
        self.load_orphans(start);
        self.load_departed(start);
        self.load_tracks();
        // t = 0 is a watch event: every process steps once.
        let names: Vec<String> = self.workers.keys().cloned().collect();
        for w in &names {
            self.touch(w);
        }
        self.delivery();
        for (i, e) in self.script.events.iter().enumerate() {
            self.queue.push(ORIGIN.saturating_add(e.at_ms), Item::Script(i));
        }
    }

    /// Heartbeat times of `wk` going back: `[last, one before, ...]` (`n` of them), given that
    /// the next is at `next` after `r0` rounds.
    fn past_beats(&self, wk: &Worker, next: u64, n: u64) -> Vec<u64> {
        let mut beats = Vec::new();
        let mut t = next;
        for k in 0..n {
            t = t.saturating_sub(ceil_ms(jitter(wk.seed, wk.round - k, self.r)));
            beats.push(t);
        }
        beats
    }

    fn start_member(&mut self, name: &str, cap: Option<u32>) {
        let override_cap = self.cfg.members.get(name).and_then(|m| m.max_in_flight);
        let cfg = self
            .cfg
            .proc_cfg(name, if override_cap.is_some() { None } else { cap });
        let adv = if override_cap.is_some() { Some(cfg.k) } else { cap };
        let mut wk = Worker::new(name, nonce(self.seed, name, 0), 0, cfg, adv);
        wk.round = 8 + below(self.seed, &format!("round/{name}"), 10_000);
        let interval = ceil_ms(jitter(wk.seed, wk.round, self.r));
        let next_hb = ORIGIN + 1 + below(self.seed, &format!("heartbeat/{name}"), interval);
        let beats = self.past_beats(&wk, next_hb, 7);
        let (wk_seed, round) = (wk.seed, wk.round);
        if let Some(rec) = self.store.assign.get(name) {
            wk.assignment = Some(rec.splits.clone());
            wk.max_gen_seen = rec.generation;
        }
        self.incarnations.insert(name.to_string(), 0);
        self.workers.insert(name.to_string(), wk);
        self.store.put_presence(name, adv, beats[0]);
        self.hold_initial(name, &beats);
        let period = self.timing.reconcile_gap(wk_seed, round, cfg.c);
        let rec = ORIGIN + 1 + below(self.seed, &format!("reconcile/{name}"), period);
        let replan = ORIGIN + 1 + below(self.seed, &format!("replan/{name}"), cfg.q);
        self.arm(name, TimerKind::Heartbeat, next_hb);
        self.arm(name, TimerKind::Reconcile, rec);
        self.arm(name, TimerKind::Replan, replan);
    }

    /// The leases `name` holds at t = 0: claimed between its 6th and 3rd last heartbeat, then
    /// renewed at every heartbeat at least `R` after the last write (0.1's renewal gate), or at
    /// every heartbeat (0.3).
    fn hold_initial(&mut self, name: &str, beats: &[u64]) {
        let ids: Vec<String> = self
            .store
            .by_lease_owner
            .get(name)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        let (lo, hi) = (beats[6], beats[3]);
        for id in ids {
            let claimed = lo + below(self.seed, &format!("claimed/{name}/{id}"), hi - lo + 1);
            let mut last = claimed;
            for &b in beats.iter().rev().filter(|&&b| b > claimed) {
                if self.timing.renews(Duration::from_millis(b - last), self.r) {
                    last = b;
                }
            }
            let epoch = self.store.splits.get(&id).map_or(0, |s| s.progress.epoch);
            let token = self.token();
            let owned = Owned {
                last_ok_write: last,
                epoch,
                token,
                since: ORIGIN,
                last_commit: ORIGIN,
            };
            if let Some(wk) = self.workers.get_mut(name) {
                wk.owned.insert(id.clone(), owned);
            }
            self.holder.insert(id.clone(), name.to_string());
            let first_commit = self
                .dp
                .commit_interval_ms
                .map(|c| ORIGIN + 1 + below(self.seed, &format!("commit/{id}"), c));
            self.begin_tenancy(name, &id, token, first_commit);
        }
    }

    /// The leader key: renewed by its owner if that is a member, else left to expire at a time
    /// drawn in `(0, L]`.
    fn load_leader(&mut self, start: &Start) {
        let Some((owner, generation)) = &start.leader else {
            self.rec.leadership(ORIGIN, false);
            return;
        };
        let version = self.store.next_rev();
        let (written_at, live) = match self.workers.get_mut(owner) {
            Some(wk) => {
                wk.leading = true;
                self.leader = Some(owner.clone());
                wk.generation = *generation;
                (
                    self.store
                        .presence
                        .get(owner)
                        .map_or(ORIGIN, |p| p.meta.written_at),
                    true,
                )
            }
            None => (
                ORIGIN + 1 + below(self.seed, "leader-expiry", self.l) - self.l,
                false,
            ),
        };
        self.store.leader = Some(LeaderKey {
            owner: owner.clone(),
            nonce: self
                .workers
                .get(owner)
                .map_or_else(String::new, |w| w.nonce.clone()),
            generation: *generation,
            meta: KeyMeta { written_at, version },
        });
        if !live {
            self.rec.leadership(ORIGIN, false);
            let at = self.expiry_time(written_at);
            self.queue.push(
                at,
                Item::Expire {
                    key: LeaseKey::Leader,
                    version,
                },
            );
        }
    }

    /// Leases of instances that are not members expire after the time the snapshot gives them.
    fn load_orphans(&mut self, start: &Start) {
        let orphans: Vec<String> = self
            .store
            .lease_meta
            .keys()
            .filter(|id| !self.holder.contains_key(*id))
            .cloned()
            .collect();
        for id in orphans {
            let left = start
                .lease_left_ms
                .get(&id)
                .copied()
                .unwrap_or(0)
                .clamp(0, self.l as i64) as u64;
            self.schedule_lease_expiry(&id, ORIGIN + left - self.l);
        }
    }

    /// An `assign.{X}` record with no presence means X left less than the rebalance delay ago
    /// (decision-core.md §7): every member saw it go at one time drawn in `(-D, 0]`.
    fn load_departed(&mut self, start: &Start) {
        let gone: Vec<String> = start
            .published
            .keys()
            .filter(|m| !start.members.contains_key(*m))
            .cloned()
            .collect();
        for x in gone {
            let d = self.cfg.rebalance_delay_ms;
            let since = ORIGIN - below(self.seed, &format!("departed/{x}"), d);
            for wk in self.workers.values_mut() {
                if wk.cfg.d > 0 {
                    wk.departed.insert(x.clone(), since);
                }
            }
        }
    }

    fn load_tracks(&mut self) {
        let rows: Vec<(String, Phase, Option<String>, u64)> = self
            .store
            .splits
            .iter()
            .map(|(id, s)| {
                let holder = self.holder.get(id).cloned();
                let phase = match (s.progress.status, &holder) {
                    (SplitStatus::Completed, _) => Phase::Completed,
                    (SplitStatus::Quarantined, _) => Phase::Quarantined,
                    (SplitStatus::Runnable, Some(_)) => Phase::Running,
                    (SplitStatus::Runnable, None) => Phase::Idle,
                };
                (id.clone(), phase, holder, s.assign_weight().unwrap_or(1))
            })
            .collect();
        for (id, phase, holder, weight) in rows {
            self.rec.add_split(&id, ORIGIN, phase, holder.as_deref(), weight);
        }
    }
}
