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
use crate::json;
use crate::rules::Rules;
use serde::{Deserialize, Serialize};
use std::fmt;

pub use apply::{Applied, Departed, DepartedState, Origin};

/// The format tag of this version of the scenario file.
pub const FORMAT: &str = "spate-planner-scenario/1";

/// Most synthetic splits one scenario may add, over all its changes (a memory bound).
pub const MAX_ADDED_SPLITS: u64 = 1_000_000;

/// The longest scenario text read, in bytes (a memory bound: what a person or a page writes is
/// far shorter; a `reserve` of 100,000 splits is about 2 MiB).
pub const MAX_SCENARIO_BYTES: usize = 4 << 20;

/// Most changes one scenario may hold.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) const MAX_CHANGES: usize = 10_000;

/// The longest name a scenario may introduce (`add_member`'s member, `add_splits`' owner), in
/// bytes: an instance id, as the simulator's scripts bound it.
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) const MAX_NAME_BYTES: usize = 128;

/// The longest `add_splits` prefix, in bytes: every added split's id repeats it, so it
/// multiplies by the count.
pub const MAX_PREFIX_BYTES: usize = 64;

/// Spate's default rebalance delay, in ms.
pub const SPATE_REBALANCE_DELAY_MS: u64 = 20_000;

/// Spate's default reconcile interval, in ms (the leader republishes at least this often).
pub const SPATE_RECONCILE_INTERVAL_MS: u64 = 30_000;

/// How a member leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Departure {
    /// It crashed and the leader has just seen its presence go: its splits keep
    /// `progress.owner` and are withheld for the rebalance delay.
    Crash,
    /// It crashed longer than the rebalance delay ago: its splits are free to move.
    CrashAfterDelay,
    /// It stopped gracefully: it released what it held first (owner cleared, lease gone), so
    /// nothing of that is withheld; the next claim of each is `released`.
    Graceful,
}

/// One fleet change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Change {
    /// A change whose `op` this planner does not know, kept as written (the whole object): it
    /// is refused when the scenario is applied (code `unknown_op`) and the others still apply.
    /// Read and written only through [`Scenario`]'s `changes` (see `ops`).
    #[serde(skip)]
    Unknown(serde_json::Map<String, serde_json::Value>),
    /// A change this planner cannot read (a known `op` with a missing, unknown or ill-typed
    /// field; or not an object with a string `op`), kept as written with why: it is refused when
    /// the scenario is applied (code `invalid_change`) and the others still apply, as a change
    /// that does not apply. Read and written only through [`Scenario`]'s `changes`.
    #[serde(skip)]
    Unreadable { raw: serde_json::Value, message: String },
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
        #[cfg_attr(feature = "ts", ts(type = "U64 | number"))]
        weight: u64,
    },
    /// `count` new runnable splits of `weight`, ids `{prefix}{n:06}` from 0, owned by `owner`.
    AddSplits {
        #[serde(deserialize_with = "wide::u64")]
        #[cfg_attr(feature = "ts", ts(type = "U64 | number"))]
        count: u64,
        #[serde(deserialize_with = "wide::u64")]
        #[cfg_attr(feature = "ts", ts(type = "U64 | number"))]
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
/// [`OPS`] is kept as [`Change::Unknown`], one that cannot be read as its op says (or is not an
/// object with a string `op`) as [`Change::Unreadable`]; both are refused when the scenario is
/// applied, so one bad change never hides the others. Written back as read.
mod ops {
    use super::{Change, OPS};
    use serde::de::{Deserialize, Deserializer};
    use serde::ser::{SerializeSeq, Serializer};
    use serde_json::Value;

    fn read(v: Value) -> Change {
        let unreadable = |raw: Value, why: String| Change::Unreadable {
            raw,
            message: format!("not a change this planner can read: {why}"),
        };
        match &v {
            Value::Object(m) => match m.get("op") {
                Some(Value::String(op)) if !OPS.contains(&op.as_str()) => Change::Unknown(m.clone()),
                Some(Value::String(_)) => match Change::deserialize(v.clone()) {
                    Ok(c) => c,
                    Err(e) => unreadable(v, crate::json::message(&e)),
                },
                _ => unreadable(v, "its `op` is missing or not a string".into()),
            },
            _ => unreadable(v, "a change is an object with an `op`".into()),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Change>, D::Error> {
        Ok(Vec::<Value>::deserialize(d)?.into_iter().map(read).collect())
    }

    pub(super) fn serialize<S: Serializer>(changes: &[Change], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(changes.len()))?;
        for c in changes {
            match c {
                Change::Unknown(raw) => seq.serialize_element(raw)?,
                Change::Unreadable { raw, .. } => seq.serialize_element(raw)?,
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    #[cfg_attr(feature = "ts", ts(type = "U64 | number"))]
    pub rebalance_delay_ms: Option<u64>,
    /// The release whose rules decide: `"0.1"` (also `"0.2"`) or `"0.3"` (absent: the rules the
    /// store names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(type = "Rules | \"0.2\""))]
    pub rules: Option<Rules>,
    /// The workers' `max_attempts` (absent: Spate's 4). The store does not record it; the
    /// splits at risk of quarantine are judged by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    /// The changes; one whose `op` this planner does not know, or that it cannot read, is
    /// kept as written and refused.
    #[serde(default, with = "ops")]
    #[cfg_attr(feature = "ts", ts(type = "Array<Change | UnknownChange>"))]
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

impl ScenarioError {
    fn at(code: ErrorCode, path: &str, message: String) -> ScenarioError {
        ScenarioError {
            code,
            path: path.into(),
            message,
        }
    }
}

/// A change of a scenario that does not apply, left out of the plan, and why (its error's code,
/// path and message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// A scenario's `rules`, if given, names a release whose rules this planner implements: the
/// error names the field (serde's would not).
fn check_rules(v: Option<&serde_json::Value>) -> Result<(), ScenarioError> {
    let problem = match v {
        None | Some(serde_json::Value::Null) => return Ok(()),
        Some(serde_json::Value::String(s)) => match s.parse::<Rules>() {
            Ok(_) => return Ok(()),
            Err(e) => e,
        },
        Some(other) => format!("{other} is not a release: give \"0.1\", \"0.2\" or \"0.3\" (a string)"),
    };
    Err(ScenarioError::at(ErrorCode::InvalidScenario, "rules", problem))
}

/// A scenario's `max_attempts`, if given, is a count a worker can run with: the error names the
/// field (serde's would not).
fn check_max_attempts(v: Option<&serde_json::Value>) -> Result<(), ScenarioError> {
    match v {
        None | Some(serde_json::Value::Null) => Ok(()),
        Some(n) if n.as_u64().is_some_and(|n| u32::try_from(n).is_ok()) => Ok(()),
        Some(other) => Err(ScenarioError::at(
            ErrorCode::InvalidScenario,
            "max_attempts",
            format!(
                "{other} is not a max_attempts: give a whole number from 0 to {}",
                u32::MAX
            ),
        )),
    }
}

impl Scenario {
    /// Parses a scenario's text strictly, as snapshots are read: a byte-order mark is skipped,
    /// a key twice in one object is refused, and so is text past [`MAX_SCENARIO_BYTES`] or with
    /// more than [`MAX_CHANGES`] changes. Empty text is the empty scenario (the API's "no
    /// changes"); a file is read with [`Scenario::parse_file`].
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() > MAX_SCENARIO_BYTES {
            return Err(ScenarioError::at(
                ErrorCode::TooLarge,
                "$",
                format!(
                    "the scenario is {} bytes; a scenario is at most {MAX_SCENARIO_BYTES} bytes ({} MiB)",
                    text.len(),
                    MAX_SCENARIO_BYTES >> 20
                ),
            ));
        }
        if json::without_bom(text).trim().is_empty() {
            return Ok(Scenario::default());
        }
        let invalid = |m: String| {
            ScenarioError::at(
                ErrorCode::InvalidScenario,
                "$",
                format!("not a valid scenario: {m}"),
            )
        };
        let value = json::strict_value(text).map_err(|e| invalid(json::message(&e)))?;
        // An object, not a JSON array that serde would also accept for a struct.
        if !value.is_object() {
            return Err(invalid("expected a JSON object".into()));
        }
        check_rules(value.get("rules"))?;
        check_max_attempts(value.get("max_attempts"))?;
        let s = Scenario::deserialize(value).map_err(|e| invalid(json::message(&e)))?;
        if s.format != FORMAT {
            return Err(ScenarioError::at(
                ErrorCode::UnsupportedFormat,
                "format",
                format!("format {:?} is not {FORMAT:?}", s.format),
            ));
        }
        s.check_bounds()?;
        Ok(s)
    }

    /// The bounds on what a scenario may hold: [`MAX_CHANGES`] changes, new names of at most
    /// [`MAX_NAME_BYTES`], prefixes of at most [`MAX_PREFIX_BYTES`].
    fn check_bounds(&self) -> Result<(), ScenarioError> {
        if self.changes.len() > MAX_CHANGES {
            return Err(ScenarioError::at(
                ErrorCode::TooLarge,
                "changes",
                format!(
                    "{} changes; a scenario holds at most {MAX_CHANGES}",
                    self.changes.len()
                ),
            ));
        }
        for (i, c) in self.changes.iter().enumerate() {
            let (field, value, max) = match c {
                Change::AddMember { member, .. } => ("member", member.as_str(), MAX_NAME_BYTES),
                Change::AddSplits { prefix, owner, .. } => match owner {
                    Some(o) if o.len() > MAX_NAME_BYTES => ("owner", o.as_str(), MAX_NAME_BYTES),
                    _ => ("prefix", prefix.as_str(), MAX_PREFIX_BYTES),
                },
                _ => continue,
            };
            if value.len() > max {
                return Err(ScenarioError::at(
                    ErrorCode::TooLarge,
                    &format!("changes[{i}].{field}"),
                    format!("the {field} is {} bytes; at most {max}", value.len()),
                ));
            }
        }
        Ok(())
    }

    /// Parses a scenario file: as [`Scenario::parse`], but an empty file (or one of only white
    /// space) is refused, since it is not a scenario (a file meaning "no changes" says `{}`).
    pub fn parse_file(text: &str) -> Result<Scenario, ScenarioError> {
        if json::without_bom(text).trim().is_empty() {
            return Err(ScenarioError::at(
                ErrorCode::Empty,
                "$",
                "the file is empty: not a scenario (write {} for no changes)".into(),
            ));
        }
        Scenario::parse(text)
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
            rules: None,
            max_attempts: None,
            changes: Vec::new(),
        }
    }
}
