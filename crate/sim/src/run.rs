//! One simulation: check the script, load the starting fleet, run the events, and gather the
//! outcome.

use super::engine::Sim;
use super::options::{Options, SimError, ORIGIN};
use super::outcome::{FinalState, Outcome};
use super::script::Script;
use super::start::Start;

/// Simulates `script` from `start` (see the module documentation).
pub fn simulate(start: &Start, script: &Script, opts: &Options) -> Result<Outcome, SimError> {
    script.check(start)?;
    let l = script.config.lease_ms(start.lease_ttl_ms);
    let mut sim = Sim::new(script, opts, start.seed, l);
    sim.load(start);
    let end = ORIGIN.saturating_add(script.until_ms);
    sim.run(end)?;
    sim.now = end;
    Ok(sim.finish())
}

impl Sim<'_> {
    fn finish(mut self) -> Outcome {
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
        let (timeline, splits, figures) = self.rec.finish(self.now);
        Outcome {
            timeline,
            splits,
            figures,
            end,
        }
    }
}
