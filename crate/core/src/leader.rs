//! [`LeaderInputs`]: everything the leader feeds its decision core (decision-core.md section 7).
//!
//! The central type of the planner: a snapshot is turned into it ([`crate::fleet`]), a what-if
//! scenario changes it ([`crate::scenario`]), and the plan is made of it ([`LeaderInputs::plan`]).

use crate::assign::{plan, Plan};
use crate::records::{LeaseVal, SCHEMA};
use crate::state::{LeaseEntry, SplitState};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Everything the leader feeds `desired_assignment` (decision-core.md section 7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeaderInputs {
    pub members: BTreeSet<String>,
    /// Shared with the fleet it came from until a change needs its own copy.
    pub splits: Arc<BTreeMap<String, SplitState>>,
    pub reserved: BTreeSet<String>,
    pub caps: BTreeMap<String, u32>,
    pub default_cap: u32,
    pub seed: u64,
}

impl LeaderInputs {
    /// These inputs after the fleet carried out `assignment`: every assigned split leased by and
    /// recorded as owned by its member, every other pooled split released (no lease, no owner).
    /// Splits outside the pool (reserved, completed, quarantined, without a spec) are unchanged.
    pub fn owned_as(&self, assignment: &crate::assign::Assignment) -> LeaderInputs {
        let owner_of: BTreeMap<&str, &str> = assignment
            .iter()
            .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
            .collect();
        let mut next = self.clone();
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

    /// The plan for these inputs.
    pub fn plan(&self) -> Plan {
        plan(
            &self.members,
            &self.splits,
            &self.reserved,
            &self.caps,
            self.default_cap,
            self.seed,
        )
    }
}
