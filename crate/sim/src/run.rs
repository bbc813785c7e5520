//! One simulation: check the script, load the starting fleet, run the events, and gather the
//! outcome.

use super::engine::Sim;
use super::options::{Options, SimError, ORIGIN};
use super::outcome::{Figures, FinalState, Outcome, Stuck};
use super::script::Script;
use super::start::Start;
use super::timing::Timing;
use spate_planner_core::{RulesChoice, SplitState, SplitStatus};
use std::collections::{BTreeMap, BTreeSet};

/// Simulates `script` from `start` (see the module documentation).
/// The rules are the script's (`rules`), else the ones the starting fleet names
/// ([`Start::rules`]).
pub fn simulate(start: &Start, script: &Script, opts: &Options) -> Result<Outcome, SimError> {
    script.check(start)?;
    let rules = script.rules.map_or(start.rules, RulesChoice::user);
    let l = script.config.lease_ms(start.lease_ttl_ms);
    let mut sim = Sim::new(script, opts, start.seed, l, Timing(rules.rules));
    sim.load(start);
    let end = ORIGIN.saturating_add(script.until_ms);
    sim.run(end)?;
    sim.now = end;
    Ok(sim.finish(rules))
}

impl Sim<'_> {
    fn finish(mut self, rules: RulesChoice) -> Outcome {
        if let Some(l) = self.leader.clone() {
            self.prune(&l);
        }
        let leader = self.workers.values().find(|w| w.leading);
        let end = FinalState {
            members: self
                .store
                .presence
                .iter()
                .map(|(m, p)| (m.clone(), p.cap))
                .collect(),
            lanes: self.workers.iter().map(|(m, w)| (m.clone(), w.cfg.k)).collect(),
            leader: leader.map(|w| w.name.clone()),
            default_cap: leader.map(|w| w.cfg.k),
            reserved: leader
                .map(|w| self.store.owned_by_any(w.departed.keys()))
                .unwrap_or_default(),
            splits: self.store.splits.clone(),
            holders: self.holder.clone(),
            published: self
                .store
                .assign
                .iter()
                .map(|(m, r)| (m.clone(), (r.generation, r.splits.to_vec())))
                .collect(),
        };
        let parked = std::mem::take(&mut self.rec.parked);
        let (timeline, splits, mut figures) = std::mem::take(&mut self.rec).finish(self.now);
        self.why_not_recovered(&mut figures, &end, &parked);
        Outcome {
            rules,
            timeline,
            splits,
            figures,
            end,
        }
    }

    /// Reads why each taken split that does not run at the end does not (see [`Stuck`]).
    fn why_not_recovered(&mut self, f: &mut Figures, end: &FinalState, parked: &BTreeSet<String>) {
        if f.not_recovered.is_empty() {
            return;
        }
        let stuck: BTreeSet<&str> = f.not_recovered.iter().map(|n| n.split.as_str()).collect();
        let mut at = End {
            end,
            parked,
            assigned: BTreeMap::new(),
            held: BTreeMap::new(),
        };
        if end.leader.is_some() {
            let desired = self.desired(end.reserved.clone(), end.default_cap.unwrap_or(0));
            for (m, ids) in desired.iter() {
                for id in ids.iter().filter(|id| stuck.contains(id.as_str())) {
                    at.assigned.insert(id.clone(), m.clone());
                }
            }
        }
        for h in end.holders.values() {
            *at.held.entry(h.clone()).or_default() += 1;
        }
        for n in &mut f.not_recovered {
            if let Some(s) = end.splits.get(&n.split) {
                (n.reason, n.member) = at.reason(&n.split, s);
            }
            n.words = n.reason.words(n.member.as_deref());
        }
    }
}

/// The end of a run as the reasons read it: the final state, the member the leader's current
/// assignment gives each stuck split, and how many splits each live process holds.
struct End<'a> {
    end: &'a FinalState,
    /// The splits the claim race parked.
    parked: &'a BTreeSet<String>,
    assigned: BTreeMap<String, String>,
    held: BTreeMap<String, u64>,
}

impl End<'_> {
    /// Why split `id` does not run, in [`Stuck`]'s order: its record (parked by the race or
    /// quarantined), its lease, the leader,
    /// the reserved set, its spec, the assignment.
    fn reason(&self, id: &str, s: &SplitState) -> (Stuck, Option<String>) {
        if s.progress.status == SplitStatus::Quarantined {
            let race = self.parked.contains(id);
            return (
                if race {
                    Stuck::ParkedByRace
                } else {
                    Stuck::Quarantined
                },
                None,
            );
        }
        if let Some(l) = &s.lease {
            let owner = &l.value.owner;
            return match self.end.lanes.contains_key(owner) {
                true => self.to(owner),
                false => (Stuck::LeasedByGone, Some(owner.clone())),
            };
        }
        if self.end.leader.is_none() {
            return (Stuck::NoLeader, None);
        }
        if self.end.reserved.contains(id) {
            return (Stuck::Withheld, s.progress.owner.clone());
        }
        if s.spec.is_none() {
            return (Stuck::NoSpec, None);
        }
        match self.assigned.get(id) {
            Some(m) => self.to(m),
            None => (Stuck::NoFreeLane, None),
        }
    }

    /// A live member is to take it: pending, unless its process holds all its lanes.
    fn to(&self, m: &str) -> (Stuck, Option<String>) {
        let held = self.held.get(m).copied().unwrap_or(0);
        let full = self.end.lanes.get(m).is_some_and(|&k| held >= u64::from(k));
        (
            if full { Stuck::MemberFull } else { Stuck::Pending },
            Some(m.to_string()),
        )
    }
}
