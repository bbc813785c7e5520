//! The script's events: crashes, graceful stops, starts and restarts, cap changes, splits
//! landing, failures (timing.md §2.1, §3.2, §6.4).

use super::draw::{ceil_ms, nonce};
use super::engine::Sim;
use super::outcome::{Phase, ReleaseReason, What};
use super::queue::{Item, LeaseKey, TimerKind};
use super::script::Op;
use super::worker::Worker;
use spate_planner_core::{jitter, synth::runnable_split, SplitStatus};

impl Sim<'_> {
    pub(crate) fn script_event(&mut self, i: usize) {
        let script = self.script;
        let Some(e) = script.events.get(i) else {
            return;
        };
        self.rec.first_event(self.now);
        let ignored = |reason: &str| What::Ignored {
            index: i,
            reason: reason.to_string(),
        };
        match &e.op {
            Op::Crash { member } if self.workers.contains_key(member) => {
                self.rec.take_member(member);
                self.crash(member)
            }
            Op::Stop { member } if self.workers.contains_key(member) => {
                self.rec.take_member(member);
                self.stop(member)
            }
            Op::SetCap { member, cap } if self.workers.contains_key(member) => self.set_cap(member, *cap),
            Op::Crash { .. } | Op::Stop { .. } | Op::SetCap { .. } => {
                self.rec.log(self.now, ignored("the member is not running"))
            }
            Op::Start { member, cap } => self.start(member, *cap),
            Op::CrashLeader => match self.workers.values().find(|w| w.leading) {
                Some(w) => {
                    let name = w.name.clone();
                    self.rec.take_member(&name);
                    self.crash(&name)
                }
                None => self.rec.log(self.now, ignored("no process leads")),
            },
            Op::AddSplits {
                count,
                weight,
                prefix,
            } => self.add_splits(*count, *weight, prefix),
            Op::Fail { split } => match self.holder.get(split).cloned() {
                Some(w) => {
                    self.rec.take_split(split);
                    self.fail(&w, split)
                }
                None => self.rec.log(self.now, ignored("no live process holds the split")),
            },
        }
    }

    /// The process dies: nothing is written; its presence, leader key and split leases expire
    /// `L` (+ detection) after their own last writes (§3.2).
    pub(crate) fn crash(&mut self, w: &str) {
        if self.workers.contains_key(w) {
            self.rec.log(
                self.now,
                What::Crashed {
                    member: w.to_string(),
                },
            );
            self.die(w);
        }
    }

    /// The process ends without writing anything.
    fn die(&mut self, w: &str) {
        let Some(wk) = self.workers.remove(w) else {
            return;
        };
        self.marked.remove(w);
        if let Some(t) = wk.due_at {
            self.due.remove(&(t, w.to_string()));
        }
        if let Some(p) = self.store.presence.get(w) {
            let (at, version) = (self.expiry_time(p.meta.written_at), p.meta.version);
            self.queue.push(
                at,
                Item::Expire {
                    key: LeaseKey::Worker(w.to_string()),
                    version,
                },
            );
        }
        if wk.leading {
            self.leader = None;
            if let Some(k) = self.store.leader.as_ref().filter(|k| k.owner == w) {
                let (at, version) = (self.expiry_time(k.meta.written_at), k.meta.version);
                self.queue.push(
                    at,
                    Item::Expire {
                        key: LeaseKey::Leader,
                        version,
                    },
                );
            }
            self.rec.leadership(self.now, false);
        }
        for (id, o) in &wk.owned {
            if let Some(r) = self.remaining.get_mut(id) {
                *r = r.saturating_sub(self.now.saturating_sub(o.since));
            }
            if self.holder.get(id).is_some_and(|h| h == w) {
                self.holder.remove(id);
            }
            self.rec.set_phase(id, self.now, Phase::Idle, None);
            self.schedule_lease_expiry(id, o.last_ok_write);
        }
    }

    /// Graceful shutdown (§3.2): release every held split, then part: give up leadership,
    /// delete the presence key, and exit. Under 0.1 a process holding nothing sends no release:
    /// it just exits and its keys expire; 0.3's always departs.
    fn stop(&mut self, w: &str) {
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        self.rec.log(
            self.now,
            What::Stopped {
                member: w.to_string(),
            },
        );
        if wk.owned.is_empty() && !self.timing.idle_stop_departs() {
            self.die(w);
            return;
        }
        let held: Vec<String> = wk.owned.keys().cloned().collect();
        for id in held {
            self.release(w, &id, ReleaseReason::Departure);
        }
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        wk.parting = true;
        if wk.leading {
            wk.leading = false;
            self.leader = None;
            if self.store.leader.as_ref().is_some_and(|k| k.owner == w) {
                self.delete_leader();
            }
            self.rec.log(
                self.now,
                What::LeaderResigned {
                    member: w.to_string(),
                },
            );
            self.rec.leadership(self.now, false);
        }
        self.delete_presence(w);
        self.rec.log(
            self.now,
            What::PresenceDeleted {
                member: w.to_string(),
            },
        );
        self.step(w);
        if let Some(wk) = self.workers.remove(w) {
            if let Some(t) = wk.due_at {
                self.due.remove(&(t, w.to_string()));
            }
        }
        self.marked.remove(w);
    }

    /// A new process (§2.1): presence created (or CAS-overwritten over a predecessor's), the
    /// view read, one step, then the timers armed: heartbeat `jitter(seed, 0, R)`, reconcile
    /// `C` (0.3: `spread(seed, C)`), replan `Q` from now. A running process of the same id is
    /// crashed first.
    fn start(&mut self, w: &str, cap: Option<u32>) {
        if self.workers.contains_key(w) {
            self.crash(w);
        }
        let inc = self.incarnations.get(w).map_or(1, |i| i + 1);
        self.incarnations.insert(w.to_string(), inc);
        let cfg = self.cfg.proc_cfg(w, cap);
        let mut wk = Worker::new(w, nonce(self.seed, w, inc), inc, cfg, Some(cfg.k));
        if let Some(rec) = self.store.assign.get(w) {
            wk.assignment = Some(rec.splits.clone());
            wk.max_gen_seen = rec.generation;
        }
        let first_hb = ceil_ms(jitter(wk.seed, 0, self.r));
        let first_rec = self.timing.first_reconcile(wk.seed, cfg.c);
        let nonce = wk.nonce.clone();
        self.workers.insert(w.to_string(), wk);
        if self.store.plan.is_none() {
            self.put_plan(0);
        }
        self.put_presence(w, Some(cfg.k));
        let (member, now) = (w.to_string(), self.now);
        self.rec.log(
            now,
            What::Started {
                member: member.clone(),
                nonce,
                cap: cfg.k,
            },
        );
        self.rec.log(
            now,
            What::PresenceWritten {
                member,
                cap: Some(cfg.k),
            },
        );
        self.touch(w);
        self.step(w);
        self.arm(w, TimerKind::Heartbeat, now.saturating_add(first_hb));
        self.arm(w, TimerKind::Reconcile, now.saturating_add(first_rec));
        self.arm(w, TimerKind::Replan, now.saturating_add(cfg.q));
    }

    /// The member's `max_in_flight` changes and its presence advertises it at once.
    fn set_cap(&mut self, w: &str, cap: u32) {
        let k = self.cfg.proc_cfg(w, Some(cap)).k;
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        wk.cfg.k = k;
        wk.cap_adv = Some(k);
        self.put_presence(w, Some(k));
        self.rec.log(
            self.now,
            What::CapSet {
                member: w.to_string(),
                cap: k,
            },
        );
        self.touch(w);
    }

    /// A planner run lands new runnable splits (spec, then progress record, each).
    fn add_splits(&mut self, count: u64, weight: u64, prefix: &str) {
        for n in 0..count {
            let id = format!("{prefix}{n:06}");
            if self.store.splits.contains_key(&id) {
                continue;
            }
            let s = runnable_split(&id, self.job_seed, weight, None);
            self.rec
                .add_split(&id, self.now, Phase::Idle, None, weight.max(1));
            self.land_split(&id, s);
        }
        self.rec.log(
            self.now,
            What::SplitsAdded {
                count,
                prefix: prefix.to_string(),
            },
        );
    }

    /// The holder fails the split (§6.4): `attempts + 1`, no owner; at `A` also quarantined
    /// with `epoch + 1`; the lease deleted.
    fn fail(&mut self, w: &str, id: &str) {
        let Some(a) = self.workers.get(w).map(|wk| wk.cfg.a) else {
            return;
        };
        let Some(s) = self.store.splits.get(id) else {
            return;
        };
        let attempts = s.progress.attempts.saturating_add(1);
        let quarantined = attempts >= a;
        let epoch = s.progress.epoch.saturating_add(u64::from(quarantined));
        self.put_progress(id, w, |p| {
            p.attempts = attempts;
            p.owner = None;
            p.epoch = epoch;
            if quarantined {
                p.status = SplitStatus::Quarantined;
            }
        });
        self.delete_lease(id, Some(w));
        self.drop_split(w, id);
        let f = &mut self.rec.figures;
        f.attempts_burned += 1;
        f.splits_quarantined += u64::from(quarantined);
        let what = What::Failed {
            member: w.to_string(),
            split: id.to_string(),
            attempt: attempts,
            quarantined,
        };
        self.rec.log(self.now, what);
        let phase = if quarantined {
            Phase::Quarantined
        } else {
            Phase::Idle
        };
        self.rec.set_phase(id, self.now, phase, None);
        self.step(w);
    }
}
