//! [`LeaderInputs`]: everything the leader feeds its decision core (decision-core.md section 7).
//!
//! The central type of the planner: a snapshot is turned into it ([`crate::fleet`]), a what-if
//! scenario changes it ([`crate::scenario`]), and the plan is made of it ([`LeaderInputs::plan`]).

use crate::assign::{plan, AssignInputs, Plan};
use crate::records::{LeaseVal, SCHEMA};
use crate::rules::Rules;
use crate::state::{LeaseEntry, SplitState};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Everything the leader feeds `desired_assignment` (decision-core.md section 7; 0.3 section 6),
/// and the release whose rules it decides by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderInputs {
    pub rules: Rules,
    pub members: BTreeSet<String>,
    /// Shared with the fleet it came from until a change needs its own copy.
    pub splits: Arc<BTreeMap<String, SplitState>>,
    pub reserved: BTreeSet<String>,
    /// 0.3's `previous`: split id -> the instance the last publish named (`last_assignees` of
    /// the `assign.*` records and the members). 0.1 reads none.
    pub previous: Arc<BTreeMap<String, String>>,
    pub caps: BTreeMap<String, u32>,
    pub default_cap: u32,
    pub seed: u64,
}

impl LeaderInputs {
    /// These inputs after the fleet carried out `assignment`: every assigned split leased by and
    /// recorded as owned by its member, every other pooled split released (no lease, no owner),
    /// and `assignment` published (so it is 0.3's `previous`). Splits outside the pool
    /// (reserved, completed, quarantined, without a spec) are unchanged.
    pub fn owned_as(&self, assignment: &crate::assign::Assignment) -> LeaderInputs {
        let owner_of: BTreeMap<&str, &str> = assignment
            .iter()
            .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
            .collect();
        let mut next = self.clone();
        next.previous = Arc::new(
            owner_of
                .iter()
                .map(|(id, m)| (id.to_string(), m.to_string()))
                .collect(),
        );
        for (id, s) in Arc::make_mut(&mut next.splits).iter_mut() {
            if !s.is_assignable() || self.reserved.contains(id) {
                continue;
            }
            match owner_of.get(id.as_str()) {
                Some(&m) => {
                    if s.current_owner() != Some(m) {
                        s.progress.epoch = s.progress.epoch.saturating_add(1);
                    }
                    s.progress.owner = Some(m.to_string());
                    let rev = s.lease.as_ref().map_or(0, |l| l.rev).saturating_add(1);
                    s.lease = Some(LeaseEntry {
                        value: LeaseVal {
                            schema: SCHEMA,
                            owner: m.to_string(),
                            nonce: "planned".into(),
                            epoch: s.progress.epoch,
                        },
                        rev,
                    });
                }
                None => {
                    s.progress.owner = None;
                    s.lease = None;
                }
            }
        }
        next
    }

    /// A member's lane budget as the leader counts it: `max(1, own cap or the default cap)`.
    pub fn cap_of(&self, member: &str) -> u32 {
        self.caps.get(member).copied().unwrap_or(self.default_cap).max(1)
    }

    /// What `desired_assignment` reads of these inputs.
    pub fn assign_inputs(&self) -> AssignInputs<'_> {
        AssignInputs {
            rules: self.rules,
            members: &self.members,
            splits: &self.splits,
            reserved: &self.reserved,
            previous: &self.previous,
            caps: &self.caps,
            default_cap: self.default_cap,
            seed: self.seed,
        }
    }

    /// The plan for these inputs, by their rules.
    pub fn plan(&self) -> Plan {
        plan(&self.assign_inputs())
    }
}
