//! What-if scenarios (docs/scenario-format.md): fleet changes applied before planning.
//!
//! The same format serves `spate-planner plan --what-if FILE` and the dashboard, so both plan
//! the same inputs. Changes apply in order; each is checked against the fleet as the changes
//! before it left it, and an error names the change (`changes[2].member`).

use crate::fleet::{Fleet, LeaderSettings};
use crate::synth::{runnable_split, LeaderInputs};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// The format tag of this version of the scenario file.
pub const FORMAT: &str = "spate-planner-scenario/1";

/// Most synthetic splits one scenario may add, over all its changes (a memory bound).
pub const MAX_ADDED_SPLITS: u64 = 1_000_000;

/// One fleet change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Change {
    /// A new live member, with its own cap (`max_in_flight`; absent or 0: the default cap).
    AddMember {
        member: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap: Option<u32>,
    },
    /// A member leaves. With `within_rebalance_delay`, it left less than the rebalance delay ago,
    /// so the leader reserves the splits whose `progress.owner` it is. Also takes instances that
    /// already left (owners that are not members), to reserve their splits.
    RemoveMember {
        member: String,
        #[serde(default)]
        within_rebalance_delay: bool,
    },
    /// A member's cap (0: the default cap).
    SetCap { member: String, cap: u32 },
    /// The leader's default cap (its own `max_in_flight`).
    SetDefaultCap { cap: u32 },
    /// Withhold splits from the assignment.
    Reserve { splits: Vec<String> },
    /// Stop withholding splits.
    Release { splits: Vec<String> },
    /// A split's weight (its spec's `weight`).
    SetWeight { split: String, weight: u64 },
    /// `count` new runnable splits of `weight`, ids `{prefix}{n:06}` from 0, owned by `owner`.
    AddSplits {
        count: u64,
        weight: u64,
        #[serde(default = "default_prefix")]
        prefix: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
    },
}

fn default_prefix() -> String {
    "synthetic-".to_string()
}

/// A scenario: settings and changes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Always [`FORMAT`].
    #[serde(default = "format_tag")]
    pub format: String,
    /// The leader's default cap before any change (absent: the caller's, Spate's 8 by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_cap: Option<u32>,
    #[serde(default)]
    pub changes: Vec<Change>,
}

fn format_tag() -> String {
    FORMAT.to_string()
}

/// Why a scenario cannot apply. `path` names the field (`changes[1].member`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// `invalid_scenario`, `unsupported_format`, `unknown_member`, `unknown_split`,
    /// `duplicate_member`, `duplicate_split`, `no_spec`, `too_many_splits`.
    pub code: &'static str,
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "scenario {}: {}", self.path, self.message)
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// Parses a scenario file's text strictly.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        let invalid = |e: serde_json::Error| ScenarioError {
            code: "invalid_scenario",
            path: "$".into(),
            message: format!("not a valid scenario: {e}"),
        };
        // An object, not a JSON array that serde would also accept for a struct.
        let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).map_err(invalid)?;
        let s = Scenario::deserialize(serde_json::Value::Object(obj)).map_err(invalid)?;
        if s.format != FORMAT {
            return Err(ScenarioError {
                code: "unsupported_format",
                path: "format".into(),
                message: format!("format {:?} is not {FORMAT:?}", s.format),
            });
        }
        Ok(s)
    }

    /// The scenario as compact JSON (what the dashboard keeps in its URL).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The leader's inputs for `fleet` after these changes. `default_cap` is the caller's default
    /// (the CLI's `--default-cap`), overridden by the scenario's own `default_cap` field.
    pub fn apply(&self, fleet: &Fleet, default_cap: u32) -> Result<LeaderInputs, ScenarioError> {
        let settings = LeaderSettings {
            default_cap: self.default_cap.unwrap_or(default_cap),
            departed: BTreeSet::new(),
        };
        let mut inputs = fleet.leader_inputs(&settings);
        let known_owners = fleet.departed_owners();
        let mut added = 0u64;
        for (i, change) in self.changes.iter().enumerate() {
            let err = |code, field: &str, message: String| ScenarioError {
                code,
                path: format!("changes[{i}].{field}"),
                message,
            };
            match change {
                Change::AddMember { member, cap } => {
                    if member.is_empty() {
                        return Err(err(
                            "invalid_scenario",
                            "member",
                            "a member name cannot be empty".into(),
                        ));
                    }
                    if !inputs.members.insert(member.clone()) {
                        return Err(err(
                            "duplicate_member",
                            "member",
                            format!("{member:?} is already a member"),
                        ));
                    }
                    set_cap(&mut inputs, member, cap.unwrap_or(0));
                }
                Change::RemoveMember {
                    member,
                    within_rebalance_delay,
                } => {
                    let was_member = inputs.members.remove(member);
                    if !was_member && !known_owners.contains(member) {
                        return Err(err(
                            "unknown_member",
                            "member",
                            format!("{member:?} is neither a member nor an owner of any split"),
                        ));
                    }
                    inputs.caps.remove(member);
                    if *within_rebalance_delay {
                        let owned: Vec<String> = inputs
                            .splits
                            .iter()
                            .filter(|(_, s)| s.progress.owner.as_deref() == Some(member.as_str()))
                            .map(|(id, _)| id.clone())
                            .collect();
                        inputs.reserved.extend(owned);
                    }
                }
                Change::SetCap { member, cap } => {
                    if !inputs.members.contains(member) {
                        return Err(err(
                            "unknown_member",
                            "member",
                            format!("{member:?} is not a member"),
                        ));
                    }
                    set_cap(&mut inputs, member, *cap);
                }
                Change::SetDefaultCap { cap } => inputs.default_cap = *cap,
                Change::Reserve { splits } | Change::Release { splits } => {
                    for (j, id) in splits.iter().enumerate() {
                        if !inputs.splits.contains_key(id) {
                            return Err(err(
                                "unknown_split",
                                &format!("splits[{j}]"),
                                format!("no split {id:?}"),
                            ));
                        }
                        if matches!(change, Change::Reserve { .. }) {
                            inputs.reserved.insert(id.clone());
                        } else {
                            inputs.reserved.remove(id);
                        }
                    }
                }
                Change::SetWeight { split, weight } => {
                    let Some(s) = inputs.splits.get_mut(split) else {
                        return Err(err("unknown_split", "split", format!("no split {split:?}")));
                    };
                    let Some(spec) = s.spec.as_mut() else {
                        return Err(err(
                            "no_spec",
                            "split",
                            format!("split {split:?} has no spec, so no weight"),
                        ));
                    };
                    spec.weight = *weight;
                }
                Change::AddSplits {
                    count,
                    weight,
                    prefix,
                    owner,
                } => {
                    added = added.saturating_add(*count);
                    if added > MAX_ADDED_SPLITS {
                        return Err(err(
                            "too_many_splits",
                            "count",
                            format!("a scenario adds at most {MAX_ADDED_SPLITS} splits in all"),
                        ));
                    }
                    for n in 0..*count {
                        let id = format!("{prefix}{n:06}");
                        if inputs.splits.contains_key(&id) {
                            return Err(err(
                                "duplicate_split",
                                "prefix",
                                format!("split {id:?} already exists: choose another prefix"),
                            ));
                        }
                        inputs.splits.insert(
                            id.clone(),
                            runnable_split(&id, inputs.seed, *weight, owner.as_deref()),
                        );
                    }
                }
            }
        }
        Ok(inputs)
    }
}

fn set_cap(inputs: &mut LeaderInputs, member: &str, cap: u32) {
    if cap > 0 {
        inputs.caps.insert(member.to_string(), cap);
    } else {
        inputs.caps.remove(member);
    }
}
