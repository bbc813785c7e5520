//! `step()` in the order of timing.md §2.5, and leader election (§4).

use super::engine::{Desired, MemoKey, Sim};
use super::outcome::{Record, SplitList, What};
use super::queue::Item;
use spate_planner_core::{
    assign::{last_assignees, plan, AssignInputs},
    Rules,
};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

impl Sim<'_> {
    /// One `step` of worker `w` (§2.5): prune departed, stop if finished or parting, elect,
    /// publish, claims and revocations, forced drains, terminal check.
    pub(crate) fn step(&mut self, w: &str) {
        // Each step is work the budget counts (checked after the delivery that caused it).
        self.events += 1;
        self.prune(w);
        let Some(wk) = self.workers.get(w) else {
            return;
        };
        if wk.finished || wk.parting {
            return;
        }
        if self.store.leader.is_none() && !wk.leading {
            self.try_elect(w);
        }
        if self.workers.get(w).is_some_and(|wk| wk.leading) {
            self.publish(w);
        }
        self.reconcile_assignment(w);
        self.service_revocations(w);
        self.terminal_check(w);
        self.refresh_due(w);
        self.maybe_start_plan(w);
    }

    /// Create-if-absent on `leader`; the winner dirties, fences the plan to the new generation
    /// and wants a planner run (§4; 0.3: only over an open plan). In one step nobody else can
    /// have written the key.
    fn try_elect(&mut self, w: &str) {
        let target = self.store.plan.map_or(1, |p| p.generation.saturating_add(1));
        let open = self.store.plan.is_none_or(|p| p.open);
        let plans = self.timing.plans_on_election(open);
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        self.leader = Some(w.to_string());
        wk.leading = true;
        wk.generation = target;
        wk.dirty = true;
        wk.plan_now = plans;
        let nonce = wk.nonce.clone();
        self.put_leader(w, &nonce, target);
        self.rec.log(
            self.now,
            What::LeaderElected {
                member: w.to_string(),
                generation: target,
            },
        );
        self.rec.figures.elections += 1;
        self.rec.leadership(self.now, true);
        if self.store.plan.is_some() {
            self.put_plan(target);
            self.rec.log(
                self.now,
                What::PlanWritten {
                    member: w.to_string(),
                    generation: target,
                },
            );
        }
    }

    /// `publish_assignments` (§5.2): in a step with `assign_dirty`, write every member's record
    /// whose splits or generation differ, then delete the records of instances neither present
    /// nor departed.
    fn publish(&mut self, w: &str) {
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        if !wk.dirty {
            return;
        }
        wk.dirty = false;
        if self.store.plan.is_none() || self.store.members.is_empty() {
            return;
        }
        let (gen, default_cap) = (wk.generation, wk.cfg.k);
        let departed: BTreeSet<String> = wk.departed.keys().cloned().collect();
        let reserved = self.store.owned_by_any(departed.iter());
        let desired = self.desired(reserved, default_cap);
        let records: Vec<Record> = desired
            .iter()
            .filter(|(m, ids)| {
                self.store
                    .assign
                    .get(*m)
                    .is_none_or(|r| r.generation != gen || r.splits != **ids)
            })
            .map(|(m, ids)| Record {
                member: m.clone(),
                splits: ids.clone(),
            })
            .collect();
        if !records.is_empty() {
            // Each written record costs the budget one unit per split it lists.
            self.events += records.iter().map(|r| r.splits.len() as u64).sum::<u64>();
            self.rec.figures.publishes += 1;
            for r in &records {
                self.put_assign(&r.member, gen, r.splits.clone());
            }
            self.rec.log(
                self.now,
                What::Published {
                    leader: w.to_string(),
                    generation: gen,
                    records,
                },
            );
        }
        let stale: Vec<String> = self
            .store
            .assign
            .keys()
            .filter(|i| !self.store.members.contains(*i) && !departed.contains(*i))
            .cloned()
            .collect();
        for i in stale {
            self.delete_assign(&i);
            self.rec.log(
                self.now,
                What::AssignDeleted {
                    leader: w.to_string(),
                    member: i,
                },
            );
        }
    }

    /// `desired_assignment` of the current store, by the fleet's rules (0.3: with `previous`,
    /// `last_assignees` of the `assign.*` records). The fast engine reuses the last result when
    /// nothing it reads has changed (the store's input version, the records under 0.3, the
    /// reserved set, the cap).
    pub(crate) fn desired(&mut self, reserved: BTreeSet<String>, default_cap: u32) -> Rc<Desired> {
        // A plan costs the budget one unit per member and per split it places, and for each
        // improving move one unit per 16 members (a move scans the heaviest members for the best
        // pair; 16 measured: a 1,000-start run then costs what its time is worth in units).
        let compute = |s: &Self, reserved: &BTreeSet<String>| {
            let previous = match s.timing.rules() {
                Rules::V0_1 => BTreeMap::new(),
                Rules::V0_3 => last_assignees(&s.store.assign_records(), &s.store.members),
            };
            let p = plan(&AssignInputs {
                rules: s.timing.rules(),
                members: &s.store.members,
                splits: &s.store.splits,
                reserved,
                previous: &previous,
                caps: &s.store.caps,
                default_cap,
                seed: s.job_seed,
            });
            let m = s.store.members.len() as u64;
            let cost = m + s.store.splits.len() as u64 + p.explain.moves.len() as u64 * m.div_ceil(16);
            let a: Desired = p
                .assignment
                .into_iter()
                .map(|(m, ids)| (m, SplitList::new(ids)))
                .collect();
            (Rc::new(a), cost)
        };
        if self.naive {
            let (a, cost) = compute(self, &reserved);
            self.events += cost;
            return a;
        }
        let key = MemoKey {
            version: self.store.input_version,
            assign_version: match self.timing.rules() {
                Rules::V0_1 => 0,
                Rules::V0_3 => self.store.assign_version,
            },
            reserved,
            default_cap,
        };
        if let Some((k, a)) = &self.memo {
            if *k == key {
                return a.clone();
            }
        }
        let (a, cost) = compute(self, &key.reserved);
        self.events += cost;
        self.memo = Some((key, a.clone()));
        a
    }

    /// Terminal check (§2.5 step 8): a final plan with nothing runnable left.
    fn terminal_check(&mut self, w: &str) {
        let done = self.store.plan.is_some_and(|p| !p.open) && self.store.runnable == 0;
        if let (true, Some(wk)) = (done, self.workers.get_mut(w)) {
            wk.finished = true;
            if !self.rec.job_finished {
                self.rec.job_finished = true;
                self.rec.log(self.now, What::JobFinished);
            }
        }
    }

    /// Keeps the fast engine's deadline index in step with `w`'s revocations.
    pub(crate) fn refresh_due(&mut self, w: &str) {
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        let next = wk.next_deadline();
        if wk.due_at != next {
            if let Some(old) = wk.due_at {
                self.due.remove(&(old, w.to_string()));
            }
            if let Some(t) = next {
                self.due.insert((t, w.to_string()));
            }
            wk.due_at = next;
        }
    }

    /// `maybe_start_plan`: a leader that wants a planner run starts one (before its next wait).
    fn maybe_start_plan(&mut self, w: &str) {
        let Some(wk) = self.workers.get_mut(w) else {
            return;
        };
        if wk.leading && wk.plan_now && !wk.planner_running {
            wk.plan_now = false;
            wk.planner_running = true;
            let item = Item::Planner {
                worker: w.to_string(),
                inc: wk.inc,
            };
            self.queue.push(self.now.saturating_add(self.dp.planner_ms), item);
        }
    }
}
