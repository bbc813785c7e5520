//! A worker's duties inside `step`: claims and quarantines (§6.1, §6.5), revocations (§6.2),
//! forced drains (§6.3) and releases (§6.4).

use super::config::Chance;
use super::draw::{below, sample};
use super::engine::Sim;
use super::outcome::{Phase, ReleaseReason, What};
use super::queue::{Cmd, Item};
use super::worker::{Owned, Revocation};
use spate_planner_core::{
    claim_candidates,
    claims::{ClaimAction, ClaimCandidate},
    ClaimKind, SplitState, SplitStatus,
};
use std::collections::BTreeMap;

impl Sim<'_> {
    /// §2.5 step 6: claim candidates (when `owned < K` or a scan is pending), in their order:
    /// quarantines always, claims only of assigned splits while `owned < K`; then revocations.
    /// The fast engine skips it when nothing it depends on changed since it last ran.
    pub(crate) fn reconcile_assignment(&mut self, w: &str) {
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        if !self.naive && !wk.claims_dirty && !wk.scan_pending {
            return;
        }
        wk.claims_dirty = false;
        if wk.owned.len() < wk.cfg.k as usize || wk.scan_pending {
            wk.scan_pending = false;
            // The evaluation reads every assigned split: one unit of the budget each.
            self.events += wk.assignment.as_ref().map_or(0, |a| a.len() as u64);
            for c in self.candidates(w) {
                let Some(wk) = self.workers.get(w) else {
                    return;
                };
                match c.action {
                    ClaimAction::Quarantine => self.quarantine(w, &c.id),
                    ClaimAction::Claim => {
                        if wk.assigned(&c.id) && wk.owned.len() < wk.cfg.k as usize {
                            self.claim(w, &c.id, c.kind);
                        }
                    }
                }
            }
            // Its own claims and quarantines are already accounted for: evaluating again now
            // would find nothing new (claims only fill lanes; the rest stay gated).
            if let Some(wk) = self.workers.get_mut(w) {
                wk.claims_dirty = false;
            }
        }
        self.revocations(w);
    }

    /// `claim_candidates` for `w`. The fast engine passes only the splits that can yield an
    /// action: its assigned ones, the leases in its own name, and the expired ones at the
    /// quarantine threshold, less those the function skips at once (not runnable, or under a
    /// foreign lease). It judges each split alone, so a subset gives the same candidates for
    /// those splits, in the same order.
    fn candidates(&self, w: &str) -> Vec<ClaimCandidate> {
        let Some(wk) = self.workers.get(w) else {
            return Vec::new();
        };
        let owned = |id: &str| wk.owned.contains_key(id);
        let (rules, run) = (self.timing.rules(), self.timing.run(&wk.nonce));
        if self.naive {
            return claim_candidates(rules, &self.store.splits, owned, w, run, wk.cfg.a);
        }
        let splits = &self.store.splits;
        let mut sub: BTreeMap<String, SplitState> = BTreeMap::new();
        // A split that is not runnable, or under another instance's lease, can give no
        // candidate (decision-core.md §6 skips it first): it is not copied.
        let mut take = |id: &String| {
            if !owned(id) && !sub.contains_key(id) {
                if let Some(s) = splits.get(id) {
                    let foreign = s.lease.as_ref().is_some_and(|l| l.value.owner != w);
                    if s.progress.status == SplitStatus::Runnable && !foreign {
                        sub.insert(id.clone(), s.clone());
                    }
                }
            }
        };
        // Assigned and not owned: a merge of two sorted sequences.
        let mut held = wk.owned.keys().peekable();
        for id in wk.assignment.iter().flat_map(|a| a.iter()) {
            while held.next_if(|h| *h < id).is_some() {}
            if held.peek() != Some(&id) {
                take(id);
            }
        }
        // Leases in its name that it does not hold (a predecessor's: Reclaim candidates). Every
        // held split is leased in its name, so there are some only when the counts differ.
        let mine = self.store.by_lease_owner.get(w);
        if mine.is_some_and(|m| m.len() != wk.owned.len()) {
            mine.into_iter().flatten().for_each(&mut take);
        }
        let from = (wk.cfg.a.saturating_sub(1), String::new());
        for (_, id) in self.store.expired_like.range(from..) {
            take(id);
        }
        claim_candidates(rules, &sub, owned, w, run, wk.cfg.a)
    }

    /// A claim (§6.1): lease write, then record CAS (`epoch + 1`, `owner = self`, an attempt
    /// for Reclaim and Expired). The view is the store, so the CAS wins, Expired is never
    /// downgraded, and 0.3's re-check of the read record finds what the candidate saw.
    fn claim(&mut self, w: &str, id: &str, kind: ClaimKind) {
        let Some(s) = self.store.splits.get(id) else {
            return;
        };
        let lease_owner = s.lease.as_ref().map(|l| l.value.owner.as_str());
        let lease_ok = self.timing.may_write_lease(lease_owner, w, kind);
        let Some(nonce) = self.workers.get(w).map(|wk| wk.nonce.clone()) else {
            return;
        };
        if !lease_ok {
            return;
        }
        // A lease create (none there) opens the claim race's window; an update does not (§6.7 A7).
        let creates = s.lease.is_none();
        let epoch = s.progress.epoch.saturating_add(1);
        let attempts = s
            .progress
            .attempts
            .saturating_add(u32::from(kind.consumes_attempt()));
        self.put_lease(id, w, &nonce, epoch);
        self.put_progress(id, w, |p| {
            p.epoch = epoch;
            p.owner = Some(w.to_string());
            p.attempts = attempts;
        });
        let token = self.token();
        let now = self.now;
        if let Some(wk) = self.workers.get_mut(w) {
            let owned = Owned {
                last_ok_write: now,
                epoch,
                token,
                since: now,
                last_commit: now,
            };
            wk.owned.insert(id.to_string(), owned);
        }
        self.holder.insert(id.to_string(), w.to_string());
        self.count_claim(w, id, kind, attempts);
        self.rec.set_phase(id, now, Phase::Running, Some(w));
        self.begin_tenancy(w, id, token, None);
        if creates {
            if let Some(peer) = self.racing_peer(w, id, epoch, attempts) {
                self.park_by_race(w, &peer, id);
            }
        }
    }

    /// The claim race (timing.md §6.7; timing-0.3.md §6.7): after `w`'s claim of `id` created
    /// its lease and wrote `epoch` and `attempts`, each live peer that is not parting or
    /// finished (its step would not scan, A3) and whose cap the record meets (`attempts + 1 ≥
    /// A`, A3-A4, A8) folds the record before the lease with probability `p`, one draw per peer
    /// labelled by the split, the claim's epoch and the peer. The first in name order of those
    /// that do parks it (the others' CAS would lose to its write, A5).
    fn racing_peer(&self, w: &str, id: &str, epoch: u64, attempts: u32) -> Option<String> {
        let p = self.race.per_billion();
        if p == 0 {
            return None;
        }
        let next = u64::from(attempts) + 1;
        self.workers
            .values()
            .filter(|o| o.name != w && !o.parting && !o.finished && next >= u64::from(o.cfg.a))
            .find(|o| {
                let label = format!("race/{id}/{epoch}/{}", o.name);
                below(self.seed, &label, u64::from(Chance::SCALE)) < u64::from(p)
            })
            .map(|o| o.name.clone())
    }

    /// `by` parks `id` at the claim's instant, its CAS made against claimant `w`'s record (A5):
    /// `epoch + 1`, quarantined, no owner, `attempts + 1`. The higher epoch fences `w`, which
    /// writes nothing (A6): its lease stays until it expires, `L` after the claim, for nobody
    /// renews a split it does not hold. The split never runs again.
    fn park_by_race(&mut self, w: &str, by: &str, id: &str) {
        let Some(s) = self.store.splits.get(id) else {
            return;
        };
        let epoch = s.progress.epoch.saturating_add(1);
        let attempts = s.progress.attempts.saturating_add(1);
        let what = What::ParkedByRace {
            member: w.to_string(),
            by: by.to_string(),
            split: id.to_string(),
            attempt: attempts,
        };
        self.rec.log(self.now, what);
        self.put_progress(id, by, |p| {
            p.epoch = epoch;
            p.status = SplitStatus::Quarantined;
            p.owner = None;
            p.attempts = attempts;
        });
        self.schedule_lease_expiry(id, self.now);
        let f = &mut self.rec.figures;
        f.attempts_burned += 1;
        f.splits_parked_by_race += 1;
        self.rec.parked.insert(id.to_string());
        self.rec.set_phase(id, self.now, Phase::Quarantined, None);
    }

    fn count_claim(&mut self, w: &str, id: &str, kind: ClaimKind, attempt: u32) {
        let f = &mut self.rec.figures;
        f.claims += 1;
        f.attempts_burned += u64::from(kind.consumes_attempt());
        let prev = self.rec.tracks.get(id).and_then(|t| t.last_holder.clone());
        if prev.is_some_and(|p| p != w) {
            self.rec.figures.moves += 1;
        }
        let what = What::Claim {
            member: w.to_string(),
            split: id.to_string(),
            kind,
            attempt,
        };
        self.rec.log(self.now, what);
    }

    /// Quarantine (§6.5): CAS `epoch + 1`, quarantined, no owner, `attempts + 1`; a lease in
    /// this worker's name (a Reclaim candidate) is deleted.
    fn quarantine(&mut self, w: &str, id: &str) {
        let Some(s) = self.store.splits.get(id) else {
            return;
        };
        let epoch = s.progress.epoch.saturating_add(1);
        let attempts = s.progress.attempts.saturating_add(1);
        let leased = s.lease.is_some();
        self.put_progress(id, w, |p| {
            p.epoch = epoch;
            p.status = SplitStatus::Quarantined;
            p.owner = None;
            p.attempts = attempts;
        });
        if leased {
            self.delete_lease(id, Some(w));
        }
        let f = &mut self.rec.figures;
        f.attempts_burned += 1;
        f.splits_quarantined += 1;
        self.rec.log(
            self.now,
            What::Quarantine {
                member: w.to_string(),
                split: id.to_string(),
                attempt: attempts,
            },
        );
        self.rec.set_phase(id, self.now, Phase::Quarantined, None);
    }

    /// §6.2: revoke owned splits missing from the observed assignment (a cancelled entry keeps
    /// its `started`); cancel live revocations of splits assigned back. No record: nothing.
    fn revocations(&mut self, w: &str) {
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        let Some(assigned) = &wk.assignment else {
            return;
        };
        let mut acts = Vec::new();
        // Owned and assigned are both sorted: walk them together.
        let mut a = assigned.iter().peekable();
        for id in wk.owned.keys() {
            while a.next_if(|x| *x < id).is_some() {}
            let in_assignment = a.peek() == Some(&id);
            let revocation = if wk.revocations.is_empty() {
                None
            } else {
                wk.revocations.get(id).map(|r| r.cancelled)
            };
            match (revocation, in_assignment) {
                (None, false) | (Some(true), false) => acts.push((id.clone(), true)),
                (Some(false), true) => acts.push((id.clone(), false)),
                _ => {}
            }
        }
        for (id, revoke) in acts {
            if revoke {
                self.revoke(w, &id);
            } else {
                self.cancel_revocation(w, &id);
            }
        }
    }

    fn revoke(&mut self, w: &str, id: &str) {
        let token = self.token();
        let now = self.now;
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        let inc = wk.inc;
        let r = wk.revocations.entry(id.to_string()).or_insert(Revocation {
            started: now,
            cancelled: false,
            last_progress: now,
            token,
        });
        r.cancelled = false;
        r.token = token;
        self.rec.log(
            now,
            What::RevokeRequested {
                member: w.to_string(),
                split: id.to_string(),
            },
        );
        self.rec.set_phase(id, now, Phase::Draining, Some(w));
        let (at, cmd) = if self.dp.decline {
            (
                now,
                Cmd::Decline {
                    split: id.to_string(),
                    token,
                },
            )
        } else {
            let label = format!("drain/{w}/{id}/{token}");
            let d = sample(self.seed, &label, &self.dp.drain_ms);
            (
                now.saturating_add(d),
                Cmd::DrainDone {
                    split: id.to_string(),
                    token,
                },
            )
        };
        let item = Item::Command {
            worker: w.to_string(),
            inc,
            cmd,
        };
        self.queue.push(at, item);
    }

    fn cancel_revocation(&mut self, w: &str, id: &str) {
        let now = self.now;
        if let Some(r) = self.workers.get_mut(w).and_then(|wk| wk.revocations.get_mut(id)) {
            r.cancelled = true;
            r.last_progress = now;
        }
        self.rec.log(
            now,
            What::RevokeCancelled {
                member: w.to_string(),
                split: id.to_string(),
            },
        );
        self.rec.set_phase(id, now, Phase::Running, Some(w));
    }

    /// §6.3: force every live revocation `X` after it started and every cancelled one `X` after
    /// its last progress.
    pub(crate) fn service_revocations(&mut self, w: &str) {
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        let now = self.now;
        let x = wk.cfg.x;
        let overdue: Vec<String> = wk
            .revocations
            .iter()
            .filter(|(_, r)| {
                let base = if r.cancelled { r.last_progress } else { r.started };
                now.saturating_sub(base) >= x
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in overdue {
            self.release(w, &id, ReleaseReason::Forced);
        }
    }

    /// A release (§6.4): record CAS `owner = null` (epoch, attempts, status kept), then the
    /// guarded lease delete. Forced and declined releases replay the uncommitted tail.
    pub(crate) fn release(&mut self, w: &str, id: &str, reason: ReleaseReason) {
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        let Some(o) = wk.owned.get(id) else {
            return;
        };
        let forced = matches!(reason, ReleaseReason::Forced | ReleaseReason::Declined);
        let tail_from = match (self.dp.commit_interval_ms, wk.revocations.get(id)) {
            (Some(_), _) => o.last_commit,
            (None, Some(r)) => r.started,
            (None, None) => self.now,
        };
        let replayed = if forced {
            self.now.saturating_sub(tail_from)
        } else {
            0
        };
        self.put_progress(id, w, |p| p.owner = None);
        self.delete_lease(id, Some(w));
        self.drop_split(w, id);
        if forced {
            self.rec.figures.forced_drains += 1;
            self.rec.figures.replayed_ms += replayed;
        }
        let what = What::Released {
            member: w.to_string(),
            split: id.to_string(),
            reason,
            replayed_ms: replayed,
        };
        self.rec.log(self.now, what);
        self.rec.set_phase(id, self.now, Phase::Idle, None);
    }

    /// `w` stops holding `id` locally: its tenancy ends (its running time counts toward the
    /// split's completion), any revocation is settled.
    pub(crate) fn drop_split(&mut self, w: &str, id: &str) {
        let now = self.now;
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        if let Some(o) = wk.owned.remove(id) {
            if let Some(r) = self.remaining.get_mut(id) {
                *r = r.saturating_sub(now.saturating_sub(o.since));
            }
        }
        wk.revocations.remove(id);
        if self.holder.get(id).is_some_and(|h| h == w) {
            self.holder.remove(id);
        }
        self.touch(w);
        self.refresh_due(w);
    }

    /// The data plane starts reading a split: completion and commits are scheduled.
    /// `first_commit` overrides the first commit's time (phases of splits held at t = 0).
    pub(crate) fn begin_tenancy(&mut self, w: &str, id: &str, token: u64, first_commit: Option<u64>) {
        let Some(inc) = self.workers.get(w).map(|wk| wk.inc) else {
            return;
        };
        let now = self.now;
        if let Some(d) = self.dp.run_ms {
            let seed = self.seed;
            let left = *self
                .remaining
                .entry(id.to_string())
                .or_insert_with(|| sample(seed, &format!("run/{id}"), &d));
            let cmd = Cmd::Complete {
                split: id.to_string(),
                token,
            };
            self.queue.push(
                now.saturating_add(left),
                Item::Command {
                    worker: w.to_string(),
                    inc,
                    cmd,
                },
            );
        }
        if let Some(c) = self.dp.commit_interval_ms {
            let at = first_commit.unwrap_or(now.saturating_add(c));
            let cmd = Cmd::Commit {
                split: id.to_string(),
                token,
            };
            self.queue.push(
                at,
                Item::Command {
                    worker: w.to_string(),
                    inc,
                    cmd,
                },
            );
        }
    }
}
