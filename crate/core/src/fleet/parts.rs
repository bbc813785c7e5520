//! The parts of a fleet that do not depend on the moment: the plan, seed, leader, published
//! assignment and joined splits. A snapshot joins them once; a live job keeps them and updates
//! only what a changed key touches ([`Parts::update`]), joining everything again only when the
//! seed may change. Members (their time left) and the warnings are assembled at each moment
//! ([`Parts::fleet`]).

use super::join::{self, Buckets, Joined};
use super::model::{Fleet, Member, Meta, SeedSource, Warning, Warnings};
use super::read::{self, LeaseItem, Records, Side, StateItem, StateRecords};
use super::version;
use crate::records::{AssignmentVal, LeaderVal, LeaseVal, PlanRecord};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A fleet's parts that a change of one key touches only in part.
#[derive(Clone, Debug)]
pub(crate) struct Parts {
    plan: Option<PlanRecord>,
    seed: u64,
    seed_source: SeedSource,
    leader: Option<LeaderVal>,
    published: Arc<BTreeMap<String, AssignmentVal>>,
    joined: Joined,
}

fn buckets(meta: &Meta) -> Buckets<'_> {
    (meta.state_bucket.as_str(), meta.lease_bucket.as_str())
}

impl Parts {
    /// Joins the records read by kind.
    pub(super) fn join(
        state: StateRecords,
        leases: BTreeMap<String, (LeaseVal, u64, i64)>,
        leader: Option<LeaderVal>,
        meta: &Meta,
    ) -> Parts {
        let (seed, seed_source) = join::seed(&state, &meta.state_bucket, &mut Warnings::default());
        let joined = join::splits(state.progress, state.specs, leases, seed, buckets(meta));
        Parts {
            plan: state.plan,
            seed,
            seed_source,
            leader,
            published: Arc::new(state.published),
            joined,
        }
    }

    /// Joins a live job's records (kept: they are read, not moved).
    pub(crate) fn of_records(records: &Records, meta: &Meta) -> Parts {
        let (state_items, lease_items) = records.clone().into_items();
        let state = read::state_records(state_items);
        let lease = read::lease_records(lease_items, meta.lease_ttl_ms, meta.taken_at_ms);
        Parts::join(state, lease.leases, lease.leader, meta)
    }

    /// The fleet at `meta`'s moment: these parts, with `members`, and the warnings of the
    /// records (state bucket first, each in key order) before the join's.
    pub(crate) fn fleet<'a>(
        &self,
        meta: &Meta,
        members: BTreeMap<String, Member>,
        record_warnings: impl Iterator<Item = &'a Warning>,
        probes_0_3: Vec<String>,
    ) -> Fleet {
        let mut warnings = Warnings(record_warnings.cloned().collect());
        if self.plan.is_none() {
            join::no_plan_warning(&meta.state_bucket, &mut warnings);
        }
        let (plan, leader) = (self.plan.as_ref(), self.leader.as_ref());
        version::check_elector(plan, leader, buckets(meta), &mut warnings);
        warnings.0.extend(self.joined.warnings().cloned());
        Fleet {
            job: meta.job.clone(),
            source: meta.source.clone(),
            taken_at_ms: meta.taken_at_ms,
            state_bucket: meta.state_bucket.clone(),
            lease_bucket: meta.lease_bucket.clone(),
            lease_ttl_ms: meta.lease_ttl_ms,
            state_revision: meta.state_revision,
            lease_revision: meta.lease_revision,
            plan: self.plan.clone(),
            seed: self.seed,
            seed_source: self.seed_source,
            leader: self.leader.clone(),
            members,
            splits: Arc::clone(&self.joined.splits),
            info: Arc::clone(&self.joined.info),
            published: Arc::clone(&self.published),
            orphan_specs: self.joined.orphan_specs(),
            foreign: self.joined.foreign(),
            probes_0_3,
            warnings: warnings.0,
        }
    }

    /// Takes in the change of `key` (its record as `records` holds it now, or none). False when
    /// these parts cannot take it in alone (the seed may change): join everything again.
    pub(crate) fn update(&mut self, records: &Records, side: Side, key: &str, meta: &Meta) -> bool {
        match side {
            Side::State => self.update_state(records, key, meta),
            Side::Lease => {
                if let Some(id) = key.strip_prefix("split.") {
                    self.rejoin(records, id, meta);
                } else if key == "leader" {
                    self.leader = match records.lease_item(key) {
                        Some(LeaseItem::Leader(l)) => Some(l.clone()),
                        _ => None,
                    };
                }
                true
            }
        }
    }

    fn update_state(&mut self, records: &Records, key: &str, meta: &Meta) -> bool {
        let split = key.strip_prefix("split.").or_else(|| key.strip_prefix("spec."));
        if let Some(id) = split {
            // without a plan, the seed is the split records' most common fp
            if self.seed_source != SeedSource::Plan {
                return false;
            }
            self.rejoin(records, id, meta);
        } else if let Some(x) = key.strip_prefix("assign.") {
            let value = match records.state_item(key) {
                Some(StateItem::Assign(a)) => Some(a.clone()),
                _ => None,
            };
            join::set_entry(Arc::make_mut(&mut self.published), x, value);
        } else if key == "plan" {
            match (records.state_item(key), &self.plan) {
                (Some(StateItem::Plan(p)), Some(was)) if p.fingerprint == was.fingerprint => {
                    self.plan = Some(p.clone());
                }
                _ => return false,
            }
        }
        true
    }

    /// Joins split `id` again from its records.
    fn rejoin(&mut self, records: &Records, id: &str, meta: &Meta) {
        let progress = match records.state_item(&format!("split.{id}")) {
            Some(StateItem::Progress(p, rev)) => Some((p.clone(), *rev)),
            _ => None,
        };
        let spec = match records.state_item(&format!("spec.{id}")) {
            Some(StateItem::Spec(s)) => Some(s.clone()),
            _ => None,
        };
        let lease = match records.lease_item(&format!("split.{id}")) {
            Some(LeaseItem::Lease(v, rev, created)) => Some((v.clone(), *rev, *created)),
            _ => None,
        };
        let joined = join::join_one(id, (progress, spec, lease), self.seed, buckets(meta));
        self.joined.set(id, joined);
    }
}
