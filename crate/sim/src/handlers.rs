//! The loop's other arms (timing.md §2.2-2.4): timers, expiries, data-plane commands and
//! planner runs. Each handler runs its own work, then one `step` of its worker.

use super::draw::ceil_ms;
use super::engine::Sim;
use super::outcome::{Phase, ReleaseReason, What};
use super::queue::{Cmd, Item, LeaseKey, TimerKind};
use spate_planner_core::{jitter, SplitStatus};
use std::time::Duration;

impl Sim<'_> {
    /// A timer of incarnation `inc` of `w`, if still current.
    pub(crate) fn timer(&mut self, w: &str, inc: u32, kind: TimerKind) {
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        let scheduled = match kind {
            TimerKind::Heartbeat => wk.next_hb,
            TimerKind::Reconcile => wk.next_rec,
            TimerKind::Replan => wk.next_replan,
        };
        if wk.inc != inc || scheduled != self.now {
            return;
        }
        match kind {
            TimerKind::Heartbeat => self.heartbeat(w),
            TimerKind::Reconcile => self.reconcile_tick(w),
            TimerKind::Replan => self.replan_tick(w),
        }
        self.step(w);
    }

    /// Arms `w`'s timer `kind` at `t`.
    pub(crate) fn arm(&mut self, w: &str, kind: TimerKind, t: u64) {
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        match kind {
            TimerKind::Heartbeat => wk.next_hb = t,
            TimerKind::Reconcile => wk.next_rec = t,
            TimerKind::Replan => wk.next_replan = t,
        }
        let item = Item::Timer {
            worker: w.to_string(),
            inc: wk.inc,
            kind,
        };
        self.queue.push(t, item);
    }

    /// `heartbeat()` (§2.4): presence, leader key, due split leases (0.1: the renewal gate `R`;
    /// 0.3: every one), self-fence at `L`; then re-arm at `now + jitter(seed, round, R)`.
    fn heartbeat(&mut self, w: &str) {
        let now = self.now;
        let (r, l) = (self.r, Duration::from_millis(self.l));
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        wk.round += 1;
        let (cap, leading, nonce, gen) = (wk.cap_adv, wk.leading, wk.nonce.clone(), wk.generation);
        let record = self.trace_renewals || self.naive;
        let timing = self.timing;
        let mut renewed = Vec::new();
        for (id, o) in wk.owned.iter_mut() {
            if timing.renews(Duration::from_millis(now - o.last_ok_write), r) {
                o.last_ok_write = now;
                if record {
                    renewed.push(id.clone());
                }
            }
        }
        let next = now.saturating_add(ceil_ms(jitter(wk.seed, wk.round, r)));
        self.put_presence(w, cap);
        self.rec.log(
            now,
            What::PresenceWritten {
                member: w.to_string(),
                cap,
            },
        );
        if leading {
            self.put_leader(w, &nonce, gen);
        }
        for id in &renewed {
            self.renew_lease(id, w);
        }
        self.self_fence(w, l);
        self.arm(w, TimerKind::Heartbeat, next);
    }

    /// Drops, without writing, every owned split not written for `L` (§2.4 step 4). With store
    /// ops taking no time a live worker always renews in time, so this never fires; it is here
    /// so that the rule is modelled rather than assumed.
    fn self_fence(&mut self, w: &str, l: Duration) {
        let now = self.now;
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        let starved: Vec<(String, u64)> = wk
            .owned
            .iter()
            .filter(|(_, o)| Duration::from_millis(now - o.last_ok_write) >= l)
            .map(|(id, o)| (id.clone(), o.last_ok_write))
            .collect();
        for (id, o_last) in starved {
            self.drop_split(w, &id);
            self.rec.log(
                now,
                What::Lost {
                    member: w.to_string(),
                    split: id.clone(),
                },
            );
            self.rec.set_phase(&id, now, Phase::Idle, None);
            self.schedule_lease_expiry(&id, o_last);
        }
    }

    /// Reconcile (§3.3): the listing equals the view here, so what remains is `assign_dirty`.
    /// The next tick: 0.1 `C` later; 0.3 `jitter(seed⋘32, round, C)` later (the listing takes
    /// no time, so 0.3's step at its completion is this tick's).
    fn reconcile_tick(&mut self, w: &str) {
        let timing = self.timing;
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        let next = self
            .now
            .saturating_add(timing.reconcile_gap(wk.seed, wk.round, wk.cfg.c));
        if wk.leading {
            wk.dirty = true;
        }
        if self.trace_renewals {
            let member = w.to_string();
            self.rec.log(self.now, What::Reconciled { member });
        }
        self.arm(w, TimerKind::Reconcile, next);
    }

    /// Replan tick (§2.2): a leader with an open plan (or none) wants a planner run.
    fn replan_tick(&mut self, w: &str) {
        let open = self.store.plan.is_none_or(|p| p.open);
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        if wk.leading && open {
            wk.plan_now = true;
        }
        let next = self.now.saturating_add(wk.cfg.q);
        if self.trace_renewals {
            let member = w.to_string();
            self.rec.log(self.now, What::ReplanTick { member });
        }
        self.arm(w, TimerKind::Replan, next);
    }

    /// A planner run lands (§5.1): the plan record is written (the splits it creates are the
    /// script's `add_splits`), then a step.
    pub(crate) fn planner_done(&mut self, w: &str, inc: u32) {
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        if wk.inc != inc {
            return;
        }
        wk.planner_running = false;
        let (leading, gen) = (wk.leading, wk.generation);
        if leading && self.store.plan.is_some() {
            self.put_plan(gen);
            self.rec.log(
                self.now,
                What::PlanWritten {
                    member: w.to_string(),
                    generation: gen,
                },
            );
        }
        self.step(w);
    }

    /// A lease-bucket key's life ends `L` (+ detection) after its last write, unless rewritten.
    pub(crate) fn expire(&mut self, key: LeaseKey, version: u64) {
        match key {
            LeaseKey::Leader => {
                let Some(k) = self.store.leader.as_ref().filter(|k| k.meta.version == version) else {
                    return;
                };
                let owner = k.owner.clone();
                self.delete_leader();
                self.rec.log(self.now, What::LeaderKeyExpired { owner });
            }
            LeaseKey::Worker(name) => {
                if self
                    .store
                    .presence
                    .get(&name)
                    .is_some_and(|p| p.meta.version == version)
                {
                    self.delete_presence(&name);
                    self.rec.log(self.now, What::PresenceExpired { member: name });
                }
            }
            LeaseKey::Split(id) => {
                if self
                    .store
                    .lease_meta
                    .get(&id)
                    .is_none_or(|m| m.version != version)
                {
                    return;
                }
                let owner = self
                    .store
                    .splits
                    .get(&id)
                    .and_then(|s| s.lease.as_ref())
                    .map(|l| l.value.owner.clone());
                self.delete_lease(&id, None);
                let owner = owner.unwrap_or_default();
                self.rec.log(self.now, What::LeaseExpired { split: id, owner });
            }
        }
    }

    /// Schedules the expiry of split `id`'s lease, last written at `written_at` (its writer
    /// stopped renewing it).
    pub(crate) fn schedule_lease_expiry(&mut self, id: &str, written_at: u64) {
        if let Some(m) = self.store.lease_meta.get(id).copied() {
            let at = self.expiry_time(written_at);
            let key = LeaseKey::Split(id.to_string());
            self.queue.push(
                at,
                Item::Expire {
                    key,
                    version: m.version,
                },
            );
        }
    }

    pub(crate) fn expiry_time(&self, written_at: u64) -> u64 {
        written_at
            .saturating_add(self.l)
            .saturating_add(self.cfg.detection_ms)
    }

    /// Serves `w`'s commands of this instant in order, then one step (§2.3).
    pub(crate) fn serve_commands(&mut self, w: &str, cmds: Vec<(u32, Cmd)>) {
        let mut served = false;
        for (inc, cmd) in cmds {
            if self.workers.get(w).is_some_and(|wk| wk.inc == inc) {
                served = true;
                self.command(w, cmd);
            }
        }
        if served {
            self.step(w);
        }
    }

    fn command(&mut self, w: &str, cmd: Cmd) {
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        match cmd {
            Cmd::DrainDone { split, token } => {
                if wk.revocations.get(&split).is_some_and(|r| r.token == token) {
                    self.commit(w, &split);
                    self.release(w, &split, ReleaseReason::Drained);
                }
            }
            Cmd::Decline { split, token } => match wk.revocations.get(&split) {
                Some(r) if r.token == token && !r.cancelled => {
                    self.release(w, &split, ReleaseReason::Declined)
                }
                Some(r) if r.token == token => {
                    if let Some(wk) = self.workers.get_mut(w) {
                        wk.revocations.remove(&split);
                    }
                    self.refresh_due(w);
                    self.rec.log(
                        self.now,
                        What::DeclineForgotten {
                            member: w.to_string(),
                            split,
                        },
                    );
                }
                _ => {}
            },
            Cmd::Complete { split, token } => {
                if wk.owned.get(&split).is_some_and(|o| o.token == token) {
                    self.complete(w, &split);
                }
            }
            Cmd::Commit { split, token } => {
                let inc = wk.inc;
                if wk.owned.get(&split).is_some_and(|o| o.token == token) {
                    self.commit(w, &split);
                    if let Some(c) = self.dp.commit_interval_ms {
                        let cmd = Cmd::Commit { split, token };
                        let item = Item::Command {
                            worker: w.to_string(),
                            inc,
                            cmd,
                        };
                        self.queue.push(self.now.saturating_add(c), item);
                    }
                }
            }
        }
    }

    /// An ordinary commit: the progress record is rewritten (owner and status unchanged), and a
    /// cancelled revocation's `last_progress` is re-stamped (§6.3).
    fn commit(&mut self, w: &str, id: &str) {
        let now = self.now;
        self.put_progress(id, w, |_| {});
        if let Some(wk) = self.workers.get_mut(w) {
            if let Some(o) = wk.owned.get_mut(id) {
                o.last_commit = now;
            }
            if let Some(r) = wk.revocations.get_mut(id) {
                r.last_progress = now;
            }
        }
        self.refresh_due(w);
    }

    /// The completing commit (§6.4): status completed, then the lease deleted.
    fn complete(&mut self, w: &str, id: &str) {
        self.put_progress(id, w, |p| {
            p.status = SplitStatus::Completed;
            p.completed = true;
        });
        self.delete_lease(id, Some(w));
        self.drop_split(w, id);
        self.rec.log(
            self.now,
            What::Completed {
                member: w.to_string(),
                split: id.to_string(),
            },
        );
        self.rec.set_phase(id, self.now, Phase::Completed, None);
    }
}
