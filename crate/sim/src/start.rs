//! The fleet a simulation starts from: a loaded snapshot, or a steady synthetic fleet.
//!
//! A snapshot tells the store's state but not the processes' clocks (their heartbeat, reconcile
//! and replan phases, their nonces): the simulator draws those from the script's seed
//! (`docs/simulator.md`, "The starting instant").

use super::options::SimError;
use serde::Serialize;
use spate_planner_core::{
    analyse,
    assign::AssignInputs,
    desired_assignment,
    records::{Finality, LeaseVal, SCHEMA},
    stable_hash_str,
    state::LeaseEntry,
    synth::{runnable_split, SplitMix64},
    Assignment, Fleet, LeaderInputs, Rules, RulesChoice, RulesSource, Scenario, SplitState,
};
use std::collections::{BTreeMap, BTreeSet};

/// The fleet a script starts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum StartFrom {
    /// The snapshot as it is: its queued, withheld and quarantined splits, its leases.
    #[default]
    Snapshot,
    /// The snapshot's fleet settled on its plan ([`Start::planned`]): every member running, each
    /// split of the plan held by its member and published, the rest unowned.
    Planned,
}

/// The state of a job at the simulation's t = 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Start {
    /// The job seed (fingerprint hash), `desired_assignment`'s seed.
    pub seed: u64,
    /// The lease bucket's TTL (0: unknown).
    pub lease_ttl_ms: u64,
    /// The plan record's generation and whether it is still open; `None`: no plan record.
    pub plan: Option<(u64, bool)>,
    /// Live members (a running process each) with the cap their presence advertises (`None`:
    /// none readable, so the leader's default).
    pub members: BTreeMap<String, Option<u32>>,
    /// The leader key: owner and generation.
    pub leader: Option<(String, u64)>,
    pub splits: BTreeMap<String, SplitState>,
    /// For leases held by instances that are not members: the time they have left, in ms.
    pub lease_left_ms: BTreeMap<String, i64>,
    /// `assign.{instance}`: generation and splits.
    pub published: BTreeMap<String, (u64, Vec<String>)>,
    /// The release the store names (decision-core-0.3.md §8), which a simulation follows unless
    /// its script names one.
    pub rules: RulesChoice,
}

impl Start {
    /// The starting state of a loaded snapshot.
    pub fn from_fleet(f: &Fleet) -> Start {
        Start {
            seed: f.seed,
            lease_ttl_ms: f.lease_ttl_ms,
            plan: f
                .plan
                .as_ref()
                .map(|p| (p.generation, p.finality == Finality::Open)),
            members: f
                .members
                .iter()
                .map(|(m, v)| (m.clone(), v.max_in_flight))
                .collect(),
            leader: f.leader.as_ref().map(|l| (l.owner.clone(), l.generation)),
            splits: (*f.splits).clone(),
            lease_left_ms: f
                .info
                .keys()
                .filter_map(|id| f.lease_left_ms(id).map(|l| (id.clone(), l)))
                .collect(),
            published: f
                .published
                .iter()
                .map(|(m, a)| (m.clone(), (a.generation, a.splits.clone())))
                .collect(),
            rules: f.store_rules(),
        }
    }

    /// The starting state a script asks for of a loaded snapshot, by the rules the store names:
    /// the snapshot as it is, or its fleet settled on the plan of the snapshot (no what-if). A
    /// snapshot the core cannot plan is refused with the core's code.
    pub fn of(f: &Fleet, from: StartFrom) -> Result<Start, SimError> {
        Start::with_rules(f, from, f.store_rules())
    }

    /// [`Start::of`] by `rules` (a script's, say: [`super::Script::rules_for`]): the fleet settled
    /// on its plan by those rules, and the simulation's rules unless its script names others.
    pub fn with_rules(f: &Fleet, from: StartFrom, rules: RulesChoice) -> Result<Start, SimError> {
        match from {
            StartFrom::Snapshot => Ok(Start {
                rules,
                ..Start::from_fleet(f)
            }),
            StartFrom::Planned => {
                let scenario = Scenario {
                    rules: Some(rules.rules),
                    ..Scenario::default()
                };
                let a = analyse(f, &scenario).map_err(|e| SimError::new(e.code, "start", e.message))?;
                Ok(Start::planned(f, &a.applied.inputs, &a.assignment, rules))
            }
        }
    }

    /// The fleet settled on a plan: every member of `inputs` running with the cap the leader
    /// gives it, each split of `assignment` held by its member (leased, owner recorded), the
    /// other splits unowned, `assignment` published at the plan's generation, and the fleet's
    /// leader still leading when it is a member (else the first member); simulated by `rules`
    /// (the plan's). A design review's "this fleet in its steady state": what a sweep step
    /// crashes (docs/simulator.md).
    pub fn planned(f: &Fleet, inputs: &LeaderInputs, assignment: &Assignment, rules: RulesChoice) -> Start {
        let generation = f.plan.as_ref().map_or(1, |p| p.generation);
        let mut splits = (*inputs.splits).clone();
        for s in splits.values_mut() {
            s.progress.owner = None;
            s.lease = None;
        }
        for (m, ids) in assignment {
            for id in ids {
                if let Some(s) = splits.get_mut(id) {
                    hold(s, m);
                }
            }
        }
        let leader = match &f.leader {
            Some(l) if inputs.members.contains(&l.owner) => Some((l.owner.clone(), l.generation)),
            _ => inputs.members.first().map(|m| (m.clone(), 1)),
        };
        Start {
            seed: inputs.seed,
            lease_ttl_ms: f.lease_ttl_ms,
            plan: Some((generation, false)),
            members: inputs
                .members
                .iter()
                .map(|m| (m.clone(), Some(inputs.cap_of(m))))
                .collect(),
            leader,
            splits,
            lease_left_ms: BTreeMap::new(),
            published: assignment
                .iter()
                .map(|(m, ids)| (m.clone(), (generation, ids.clone())))
                .collect(),
            rules,
        }
    }

    /// A steady fleet: members `worker-01`.. each with lane budget `cap`, `splits` runnable
    /// splits `part-000000`.. of weight `weight`, each held (leased and recorded) by the member
    /// `desired_assignment` gives it, that assignment published at generation 1, and the first
    /// member leading. Splits beyond the fleet's lanes are queued (runnable, never owned).
    pub fn steady(splits: usize, members: usize, cap: u32, weight: u64) -> Start {
        Start::steady_with(splits, members, cap, |_| weight)
    }

    /// [`Start::steady`] with byte weights as Spate's S3 source makes them (objects packed into
    /// 40-64 MiB splits, one in twelve a big object of its own up to 6 GiB), drawn from `seed`.
    pub fn steady_bytes(splits: usize, members: usize, cap: u32, seed: u64) -> Start {
        const MIB: u64 = 1 << 20;
        let mut rng = SplitMix64::new(seed);
        let weights: Vec<u64> = (0..splits)
            .map(|_| {
                if rng.next_u64() % 12 == 0 {
                    rng.range(64 * MIB, 6 * 1024 * MIB)
                } else {
                    rng.range(40 * MIB, 64 * MIB)
                }
            })
            .collect();
        Start::steady_with(splits, members, cap, |i| weights[i])
    }

    fn steady_with(splits: usize, members: usize, cap: u32, weight: impl Fn(usize) -> u64) -> Start {
        let seed = stable_hash_str(0, "s3://example-bucket/sim/steady@v1");
        let names: Vec<String> = (1..=members.max(1)).map(|i| format!("worker-{i:02}")).collect();
        let mut map: BTreeMap<String, SplitState> = (0..splits)
            .map(|i| {
                let id = format!("part-{i:06}");
                let s = runnable_split(&id, seed, weight(i), None);
                (id, s)
            })
            .collect();
        let member_set: BTreeSet<String> = names.iter().cloned().collect();
        let caps = names.iter().map(|n| (n.clone(), cap)).collect();
        let a = desired_assignment(&AssignInputs::v0_1(
            &member_set,
            &map,
            &BTreeSet::new(),
            &caps,
            cap,
            seed,
        ));
        for (m, ids) in &a {
            for id in ids {
                if let Some(s) = map.get_mut(id) {
                    hold(s, m);
                }
            }
        }
        Start {
            seed,
            lease_ttl_ms: 30_000,
            plan: Some((1, false)),
            members: names.iter().map(|n| (n.clone(), Some(cap))).collect(),
            leader: Some((names[0].clone(), 1)),
            splits: map,
            lease_left_ms: BTreeMap::new(),
            published: a.into_iter().map(|(m, ids)| (m, (1, ids))).collect(),
            // a plan at generation 1 with no elector: a 0.1 worker won the last election
            rules: RulesChoice {
                rules: Rules::V0_1,
                source: RulesSource::NoElector,
            },
        }
    }
}

/// Makes `s` held by `member`: owner recorded, leased, at its epoch (at least 1).
fn hold(s: &mut SplitState, member: &str) {
    s.progress.epoch = s.progress.epoch.max(1);
    s.progress.owner = Some(member.to_string());
    s.lease = Some(LeaseEntry {
        value: LeaseVal {
            schema: SCHEMA,
            owner: member.to_string(),
            nonce: String::new(),
            epoch: s.progress.epoch,
        },
        rev: 1,
    });
}
