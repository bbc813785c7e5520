//! What-if scenarios (docs/scenario-format.md): fleet changes applied before planning.
//!
//! The same format serves `spate-planner plan --what-if FILE` and the dashboard, so both plan
//! the same inputs. The empty scenario is the leader's next decision as the store shows it: its
//! own cap, and the splits of recently departed instances withheld. Changes apply in order; each
//! is checked against the fleet as the changes before it left it, and an error names the change
//! (`changes[2].member`). Applying is in [`apply`]; each change applies itself there.

mod apply;

use crate::codes::ErrorCode;
use crate::exact::wide;
use serde::{Deserialize, Serialize};
use std::fmt;

pub use apply::{Applied, Departed, DepartedState, Origin};

/// The format tag of this version of the scenario file.
pub const FORMAT: &str = "spate-planner-scenario/1";

/// Most synthetic splits one scenario may add, over all its changes (a memory bound).
pub const MAX_ADDED_SPLITS: u64 = 1_000_000;

/// Spate's default rebalance delay, in ms.
pub const SPATE_REBALANCE_DELAY_MS: u64 = 20_000;

/// Spate's default reconcile interval, in ms (the leader republishes at least this often).
pub const SPATE_RECONCILE_INTERVAL_MS: u64 = 30_000;

/// How a member leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Departure {
    /// It crashed and the leader has just seen its presence go: its splits keep
    /// `progress.owner` and are withheld for the rebalance delay.
    Crash,
    /// It crashed longer than the rebalance delay ago: its splits are free to move.
    CrashAfterDelay,
    /// It shut down gracefully: it released what it held first (owner cleared, lease gone), so
    /// nothing of that is withheld; the next claim of each is `released`.
    Graceful,
}

/// One fleet change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Change {
    /// A change whose `op` this planner does not know, kept as written (the whole object): it
    /// is refused when the scenario is applied (code `unknown_op`) and the others still apply.
    /// Read and written only through [`Scenario`]'s `changes` (see `ops`).
    #[serde(skip)]
    Unknown(serde_json::Map<String, serde_json::Value>),
    /// A new live member, with its own cap (`max_in_flight`; absent or 0: the default cap).
    /// An instance that departed recently comes back: its window is cancelled at once.
    AddMember {
        member: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap: Option<u32>,
    },
    /// A member leaves, as `departure` says. The older field `within_rebalance_delay` (true:
    /// `crash`; false or absent: `crash_after_delay`) keeps old scenarios meaning what they meant.
    RemoveMember {
        member: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        departure: Option<Departure>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        within_rebalance_delay: Option<bool>,
    },
    /// Stop withholding the splits of a recently departed instance (its delay is over).
    ReleaseDeparted { member: String },
    /// A member's cap (0: the default cap).
    SetCap { member: String, cap: u32 },
    /// The leader's default cap (its own `max_in_flight`).
    SetDefaultCap { cap: u32 },
    /// Withhold splits from the assignment.
    Reserve { splits: Vec<String> },
    /// Stop withholding splits.
    Release { splits: Vec<String> },
    /// A split's weight (its spec's `weight`).
    SetWeight {
        split: String,
        #[serde(deserialize_with = "wide::u64")]
        weight: u64,
    },
    /// `count` new runnable splits of `weight`, ids `{prefix}{n:06}` from 0, owned by `owner`.
    AddSplits {
        #[serde(deserialize_with = "wide::u64")]
        count: u64,
        #[serde(deserialize_with = "wide::u64")]
        weight: u64,
        #[serde(default = "default_prefix")]
        prefix: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
    },
}

/// The ops of [`Change`], as the scenario format writes them.
pub const OPS: [&str; 9] = [
    "add_member",
    "remove_member",
    "release_departed",
    "set_cap",
    "set_default_cap",
    "reserve",
    "release",
    "set_weight",
    "add_splits",
];

/// A scenario's `changes` read one by one: a change whose `op` is a string that is not one of
/// [`OPS`] is kept as [`Change::Unknown`]; every other change is read strictly (an unknown field
/// or a bad value fails the whole scenario, naming the change). Written back as read.
mod ops {
    use super::{Change, OPS};
    use serde::de::{Deserialize, Deserializer, Error};
    use serde::ser::{SerializeSeq, Serializer};
    use serde_json::Value;

    fn read(at: usize, v: Value) -> Result<Change, String> {
        if let Value::Object(m) = &v {
            if let Some(Value::String(op)) = m.get("op") {
                if !OPS.contains(&op.as_str()) {
                    return Ok(Change::Unknown(m.clone()));
                }
            }
        }
        Change::deserialize(v).map_err(|e| format!("changes[{at}]: {e}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Change>, D::Error> {
        Vec::<Value>::deserialize(d)?
            .into_iter()
            .enumerate()
            .map(|(at, v)| read(at, v).map_err(D::Error::custom))
            .collect()
    }

    pub fn serialize<S: Serializer>(changes: &[Change], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(changes.len()))?;
        for c in changes {
            match c {
                Change::Unknown(raw) => seq.serialize_element(raw)?,
                known => seq.serialize_element(known)?,
            }
        }
        seq.end()
    }
}

fn default_prefix() -> String {
    "synthetic-".to_string()
}

/// A scenario: settings and changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Always [`FORMAT`].
    #[serde(default = "format_tag")]
    pub format: String,
    /// The leader's default cap before any change (absent: the leader's own, from the store).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_cap: Option<u32>,
    /// The leader's rebalance delay in ms (absent: Spate's 20 s). 0 models a leader configured
    /// with no delay: nothing is withheld.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "wide::opt_u64"
    )]
    pub rebalance_delay_ms: Option<u64>,
    #[serde(default, with = "ops")]
    pub changes: Vec<Change>,
}

fn format_tag() -> String {
    FORMAT.to_string()
}

/// Why a scenario cannot apply. `path` names the field (`changes[1].member`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub code: ErrorCode,
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "scenario {}: {}", self.path, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// A change of a scenario that does not apply, left out of the plan, and why (its error's code,
/// path and message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refused {
    /// Its index in the scenario's `changes`.
    pub index: u32,
    pub code: ErrorCode,
    pub path: String,
    pub message: String,
}

impl Refused {
    fn of(at: usize, e: ScenarioError) -> Refused {
        Refused {
            index: crate::exact::count(at),
            code: e.code,
            path: e.path,
            message: e.message,
        }
    }

    /// The refusal as the error a strict reading stops at.
    pub fn error(&self) -> ScenarioError {
        ScenarioError {
            code: self.code,
            path: self.path.clone(),
            message: self.message.clone(),
        }
    }
}

impl Scenario {
    /// Parses a scenario file's text strictly. Empty text is the empty scenario.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.trim().is_empty() {
            return Ok(Scenario::default());
        }
        let invalid = |e: serde_json::Error| ScenarioError {
            code: ErrorCode::InvalidScenario,
            path: "$".into(),
            message: format!("not a valid scenario: {e}"),
        };
        // An object, not a JSON array that serde would also accept for a struct.
        let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).map_err(invalid)?;
        let s = Scenario::deserialize(serde_json::Value::Object(obj)).map_err(invalid)?;
        if s.format != FORMAT {
            return Err(ScenarioError {
                code: ErrorCode::UnsupportedFormat,
                path: "format".into(),
                message: format!("format {:?} is not {FORMAT:?}", s.format),
            });
        }
        Ok(s)
    }

    /// The scenario as compact JSON (what the dashboard keeps in its URL).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// The scenario's baseline: its settings, none of its changes (what a what-if is compared
    /// with).
    pub fn baseline(&self) -> Scenario {
        Scenario {
            changes: Vec::new(),
            ..self.clone()
        }
    }

    /// The rebalance delay this scenario plans with.
    pub fn rebalance_delay_ms(&self) -> u64 {
        self.rebalance_delay_ms.unwrap_or(SPATE_REBALANCE_DELAY_MS)
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            format: format_tag(),
            default_cap: None,
            rebalance_delay_ms: None,
            changes: Vec::new(),
        }
    }
}
