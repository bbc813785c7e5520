//! Script files (`docs/script-format.md`): the configuration, the data plane and the events.
//!
//! Read strictly: unknown fields and ops are errors naming their path (`events[2].member`).
//! [`Script::check`] then checks the events against the starting fleet (members and splits must
//! exist when an event names them), so a typo fails before anything is simulated.

use super::config::{Config, DataPlane, Dist, MemberConfig, MAX_DURATION_MS};
use super::options::SimError;
use super::parse::{as_u64, invalid, Obj};
use super::start::{Start, StartFrom};
use serde::Serialize;
use serde_json::Value;
use spate_planner_core::{
    json::{message as json_message, strict_value},
    ErrorCode, Fleet, Rules, RulesChoice,
};
use std::collections::BTreeSet;

/// The format tag of this version of the script file.
pub const FORMAT: &str = "spate-planner-script/1";

/// The simulated time when a script gives none: 10 minutes.
pub const DEFAULT_UNTIL_MS: u64 = 600_000;

/// The latest `until_ms` (2^32 ms, about 49.7 days).
pub const MAX_UNTIL_MS: u64 = 1 << 32;

/// Most splits the `add_splits` events of one script may add in all.
pub const MAX_ADDED_SPLITS: u64 = 1_000_000;

/// The longest script text read, in bytes.
pub const MAX_SCRIPT_BYTES: usize = 4 << 20;

/// The longest `add_splits` prefix, in bytes (as in a what-if scenario).
pub const MAX_PREFIX_BYTES: usize = spate_planner_core::scenario::MAX_PREFIX_BYTES;

/// The most events one script may hold.
pub const MAX_SCRIPT_EVENTS: usize = 10_000;

/// One scripted change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// The process dies: nothing is written, its keys expire.
    Crash { member: String },
    /// Graceful shutdown: releases what it holds, then leaves (timing.md §3.2).
    Stop { member: String },
    /// A new process; an id that ran before is a restart (a running one is crashed first).
    Start { member: String, cap: Option<u32> },
    /// The member's `max_in_flight` becomes `cap` (0: the fleet default), advertised at once.
    SetCap { member: String, cap: u32 },
    /// The process that leads at that instant crashes.
    CrashLeader,
    /// A planner run lands `count` new runnable splits `{prefix}{n:06}` of `weight`.
    AddSplits { count: u64, weight: u64, prefix: String },
    /// The split's current holder fails it (the data plane's `fail`).
    Fail { split: String },
}

/// One event at a time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptEvent {
    pub at_ms: u64,
    #[serde(flatten)]
    pub op: Op,
}

/// A whole script.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Script {
    /// The release whose timing and decisions the fleet follows; `None`: the one the snapshot
    /// names ([`Start::rules`]).
    pub rules: Option<Rules>,
    pub seed: u64,
    pub until_ms: u64,
    /// Where the fleet starts: the snapshot as it is, or settled on its plan.
    pub start: StartFrom,
    pub config: Config,
    pub data_plane: DataPlane,
    pub events: Vec<ScriptEvent>,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            rules: None,
            seed: 0,
            until_ms: DEFAULT_UNTIL_MS,
            start: StartFrom::Snapshot,
            config: Config::default(),
            data_plane: DataPlane::default(),
            events: Vec::new(),
        }
    }
}

impl Script {
    /// Parses a script file's text strictly.
    /// Parses a script's text strictly: at most [`MAX_SCRIPT_BYTES`], a byte-order mark
    /// skipped, a key twice in one object refused (as snapshots and scenarios are read).
    pub fn parse(text: &str) -> Result<Script, SimError> {
        if text.len() > MAX_SCRIPT_BYTES {
            let msg = format!(
                "the script is {} bytes; a script is at most {MAX_SCRIPT_BYTES}",
                text.len()
            );
            return Err(SimError::new(ErrorCode::TooLarge, "$", msg));
        }
        let v = strict_value(text).map_err(|e| invalid("$", format!("not JSON: {}", json_message(&e))))?;
        Script::from_value(v)
    }

    /// Reads a parsed JSON document (after [`apply_override`]s, say).
    pub fn from_value(v: Value) -> Result<Script, SimError> {
        let mut o = Obj::new(v, "")?;
        o.only(&[
            "format",
            "rules",
            "seed",
            "until_ms",
            "start",
            "config",
            "data_plane",
            "events",
        ])?;
        let format = o.string("format")?.unwrap_or_else(|| FORMAT.to_string());
        if format != FORMAT {
            return Err(SimError::new(
                ErrorCode::UnsupportedFormat,
                "format",
                format!("format {format:?} is not {FORMAT:?}"),
            ));
        }
        let start = match o.string("start")?.as_deref() {
            None | Some("snapshot") => StartFrom::Snapshot,
            Some("planned") => StartFrom::Planned,
            Some(other) => {
                return Err(invalid(
                    "start",
                    format!("start is \"snapshot\" or \"planned\", not {other:?}"),
                ))
            }
        };
        let rules = match o.string("rules")? {
            None => None,
            Some(r) => Some(r.parse::<Rules>().map_err(|e| invalid("rules", e))?),
        };
        let mut s = Script {
            rules,
            seed: o.u64("seed")?.unwrap_or(0),
            until_ms: o.u64("until_ms")?.unwrap_or(DEFAULT_UNTIL_MS),
            start,
            ..Script::default()
        };
        if s.until_ms > MAX_UNTIL_MS {
            return Err(invalid("until_ms", format!("until_ms is at most {MAX_UNTIL_MS}")));
        }
        if let Some(c) = o.take("config") {
            s.config = read_config(c)?;
        }
        if let Some(d) = o.take("data_plane") {
            s.data_plane = read_data_plane(d)?;
        }
        if let Some(e) = o.take("events") {
            s.events = read_events(e)?;
        }
        o.finish()?;
        Ok(s)
    }

    /// The rules a simulation of `f` under this script follows: the script's, else the ones the
    /// store names (as `plan` detects them).
    pub fn rules_for(&self, f: &Fleet) -> RulesChoice {
        self.rules.map_or_else(|| f.store_rules(), RulesChoice::user)
    }

    /// The events in the order they happen: by time, then as written.
    pub fn ordered_events(&self) -> Vec<(usize, &ScriptEvent)> {
        let mut v: Vec<(usize, &ScriptEvent)> = self.events.iter().enumerate().collect();
        v.sort_by_key(|(i, e)| (e.at_ms, *i));
        v
    }

    /// Checks the script against the starting fleet: the configuration as Spate validates it,
    /// members and splits named by events, and the ids `add_splits` would create.
    pub fn check(&self, start: &Start) -> Result<(), SimError> {
        self.config
            .validate(start.lease_ttl_ms)
            .map_err(|(path, msg)| SimError::new(ErrorCode::InvalidConfig, &path, msg))?;
        let mut members: BTreeSet<&str> = start.members.keys().map(String::as_str).collect();
        let mut added: BTreeSet<String> = BTreeSet::new();
        let mut total = 0u64;
        for (i, e) in self.ordered_events() {
            let at = |f: &str| format!("events[{i}].{f}");
            match &e.op {
                Op::Crash { member } | Op::Stop { member } | Op::SetCap { member, .. } => {
                    if !members.contains(member.as_str()) {
                        return Err(SimError::new(
                            ErrorCode::UnknownMember,
                            &at("member"),
                            format!("{member:?} is not a member of the fleet nor started earlier"),
                        ));
                    }
                }
                Op::Start { member, .. } => {
                    check_name(member, &at("member"))?;
                    members.insert(member);
                }
                Op::CrashLeader => {}
                Op::AddSplits { count, prefix, .. } => {
                    total = total.saturating_add(*count);
                    if total > MAX_ADDED_SPLITS {
                        return Err(SimError::new(
                            ErrorCode::TooManySplits,
                            &at("count"),
                            format!("a script adds at most {MAX_ADDED_SPLITS} splits in all"),
                        ));
                    }
                    for n in 0..*count {
                        let id = format!("{prefix}{n:06}");
                        if start.splits.contains_key(&id) || !added.insert(id.clone()) {
                            return Err(SimError::new(
                                ErrorCode::DuplicateSplit,
                                &at("prefix"),
                                format!("split {id:?} already exists: choose another prefix"),
                            ));
                        }
                    }
                }
                Op::Fail { split } => {
                    if !start.splits.contains_key(split) && !added.contains(split) {
                        return Err(SimError::new(
                            ErrorCode::UnknownSplit,
                            &at("split"),
                            format!("no split {split:?} exists at that time"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// An instance name a `start` may use: 1 to 128 bytes, none of them a dot, a space or a control
/// character (it becomes part of the keys `worker.{instance}` and `assign.{instance}`).
fn check_name(name: &str, path: &str) -> Result<(), SimError> {
    let ok = (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| !c.is_control() && c != '.' && !c.is_whitespace() && c != '*' && c != '>');
    if ok {
        Ok(())
    } else {
        Err(invalid(path, format!("{name:?} is not a valid instance id")))
    }
}

fn read_config(v: Value) -> Result<Config, SimError> {
    let mut o = Obj::new(v, "config")?;
    o.only(&[
        "lease_duration_ms",
        "reconcile_interval_ms",
        "replan_interval_ms",
        "rebalance_delay_ms",
        "drain_deadline_ms",
        "op_timeout_ms",
        "max_in_flight",
        "max_attempts",
        "detection_ms",
        "claim_race",
        "members",
    ])?;
    let d = Config::default();
    let c = Config {
        lease_duration_ms: o.u64("lease_duration_ms")?,
        reconcile_interval_ms: o.u64("reconcile_interval_ms")?.unwrap_or(d.reconcile_interval_ms),
        replan_interval_ms: o.u64("replan_interval_ms")?.unwrap_or(d.replan_interval_ms),
        rebalance_delay_ms: o.u64("rebalance_delay_ms")?.unwrap_or(d.rebalance_delay_ms),
        drain_deadline_ms: o.u64("drain_deadline_ms")?.unwrap_or(d.drain_deadline_ms),
        op_timeout_ms: o.u64("op_timeout_ms")?.unwrap_or(d.op_timeout_ms),
        max_in_flight: o.u32("max_in_flight")?.unwrap_or(d.max_in_flight),
        max_attempts: o.u32("max_attempts")?.unwrap_or(d.max_attempts),
        detection_ms: o.u64("detection_ms")?.unwrap_or(d.detection_ms),
        claim_race: o.chance("claim_race")?,
        members: match o.take("members") {
            None => Default::default(),
            Some(m) => read_member_configs(m)?,
        },
    };
    o.finish()?;
    Ok(c)
}

const MEMBER_FIELDS: [&str; 6] = [
    "max_in_flight",
    "reconcile_interval_ms",
    "replan_interval_ms",
    "rebalance_delay_ms",
    "drain_deadline_ms",
    "max_attempts",
];

fn read_member_configs(v: Value) -> Result<std::collections::BTreeMap<String, MemberConfig>, SimError> {
    let Value::Object(map) = v else {
        return Err(invalid("config.members", "expected an object of member names"));
    };
    let mut out = std::collections::BTreeMap::new();
    for (name, mv) in map {
        let mut o = Obj::new(mv, &format!("config.members.{name}"))?;
        o.only(&MEMBER_FIELDS)?;
        let m = MemberConfig {
            max_in_flight: o.u32("max_in_flight")?,
            reconcile_interval_ms: o.u64("reconcile_interval_ms")?,
            replan_interval_ms: o.u64("replan_interval_ms")?,
            rebalance_delay_ms: o.u64("rebalance_delay_ms")?,
            drain_deadline_ms: o.u64("drain_deadline_ms")?,
            max_attempts: o.u32("max_attempts")?,
        };
        o.finish()?;
        out.insert(name, m);
    }
    Ok(out)
}

fn read_dist(v: Value, path: &str) -> Result<Dist, SimError> {
    if v.is_number() {
        return Ok(Dist::Const(bounded(as_u64(&v, path)?, path)?));
    }
    let mut o = Obj::new(v, path)?;
    o.only(&["min", "max"])?;
    let min = o.u64("min")?;
    let max = o.u64("max")?;
    let (min, max) = (o.require("min", min)?, o.require("max", max)?);
    o.finish()?;
    if min > max {
        return Err(invalid(path, format!("min {min} is above max {max}")));
    }
    bounded(max, path)?;
    Ok(Dist::Uniform { min, max })
}

fn bounded(v: u64, path: &str) -> Result<u64, SimError> {
    if v > MAX_DURATION_MS {
        Err(invalid(
            path,
            format!("durations are at most {MAX_DURATION_MS} ms"),
        ))
    } else {
        Ok(v)
    }
}

fn read_data_plane(v: Value) -> Result<DataPlane, SimError> {
    let mut o = Obj::new(v, "data_plane")?;
    o.only(&[
        "drain_ms",
        "decline",
        "run_ms",
        "commit_interval_ms",
        "planner_ms",
    ])?;
    let d = DataPlane::default();
    let drain_ms = match o.take("drain_ms") {
        None => d.drain_ms,
        Some(v) => read_dist(v, "data_plane.drain_ms")?,
    };
    let run_ms = match o.take("run_ms") {
        None => None,
        Some(v) => Some(read_dist(v, "data_plane.run_ms")?),
    };
    let commit_interval_ms = o.u64("commit_interval_ms")?;
    if commit_interval_ms == Some(0) {
        return Err(invalid("data_plane.commit_interval_ms", "must be at least 1 ms"));
    }
    let dp = DataPlane {
        drain_ms,
        decline: o.bool("decline")?.unwrap_or(false),
        run_ms,
        commit_interval_ms: commit_interval_ms
            .map(|c| bounded(c, "data_plane.commit_interval_ms"))
            .transpose()?,
        planner_ms: bounded(o.u64("planner_ms")?.unwrap_or(0), "data_plane.planner_ms")?,
    };
    o.finish()?;
    Ok(dp)
}

fn read_events(v: Value) -> Result<Vec<ScriptEvent>, SimError> {
    let Value::Array(items) = v else {
        return Err(invalid("events", "expected an array of events"));
    };
    if items.len() > MAX_SCRIPT_EVENTS {
        let msg = format!(
            "{} events; a script holds at most {MAX_SCRIPT_EVENTS}",
            items.len()
        );
        return Err(SimError::new(ErrorCode::TooLarge, "events", msg));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| read_event(item, &format!("events[{i}]")))
        .collect()
}

fn read_event(v: Value, path: &str) -> Result<ScriptEvent, SimError> {
    let mut o = Obj::new(v, path)?;
    let at = o.u64("at_ms")?;
    let at_ms = o.require("at_ms", at)?;
    if at_ms > MAX_UNTIL_MS {
        return Err(invalid(
            &o.path("at_ms"),
            format!("at_ms is at most {MAX_UNTIL_MS}"),
        ));
    }
    let op_name = o.string("op")?;
    let op_name = o.require("op", op_name)?;
    let fields: Option<&[&str]> = match op_name.as_str() {
        "crash" | "stop" => Some(&["member"]),
        "start" | "set_cap" => Some(&["member", "cap"]),
        "add_splits" => Some(&["count", "weight", "prefix"]),
        "fail" => Some(&["split"]),
        "crash_leader" => Some(&[]),
        _ => None,
    };
    if let Some(f) = fields {
        o.only(f)?;
    }
    let member = |o: &mut Obj| -> Result<String, SimError> {
        let m = o.string("member")?;
        o.require("member", m)
    };
    let op = match op_name.as_str() {
        "crash" => Op::Crash {
            member: member(&mut o)?,
        },
        "stop" => Op::Stop {
            member: member(&mut o)?,
        },
        "start" => Op::Start {
            member: member(&mut o)?,
            cap: o.u32("cap")?,
        },
        "set_cap" => {
            let member = member(&mut o)?;
            let cap = o.u32("cap")?;
            Op::SetCap {
                member,
                cap: o.require("cap", cap)?,
            }
        }
        "crash_leader" => Op::CrashLeader,
        "add_splits" => {
            let (count, weight) = (o.u64("count")?, o.u64("weight")?);
            let prefix = o.string("prefix")?.unwrap_or_else(|| "synthetic-".to_string());
            if prefix.len() > MAX_PREFIX_BYTES {
                let msg = format!("the prefix is {} bytes; at most {MAX_PREFIX_BYTES}", prefix.len());
                return Err(SimError::new(ErrorCode::TooLarge, &o.path("prefix"), msg));
            }
            Op::AddSplits {
                count: o.require("count", count)?,
                weight: o.require("weight", weight)?,
                prefix,
            }
        }
        "fail" => {
            let split = o.string("split")?;
            Op::Fail {
                split: o.require("split", split)?,
            }
        }
        other => {
            return Err(invalid(
                &o.path("op"),
                format!("unknown op {other:?} (crash, stop, start, set_cap, crash_leader, add_splits, fail)"),
            ))
        }
    };
    o.finish()?;
    Ok(ScriptEvent { at_ms, op })
}

/// Sets one field of a script document from `key=value` text (the CLI's `--config`): `rules`,
/// `seed`, `until_ms` and `start` at the top, `data_plane.FIELD`, `members.NAME.FIELD`
/// (per-member configuration), anything else in `config`. The value is read as JSON when it
/// parses, else as a string; `rules` is always a string (`rules=0.3`).
pub fn apply_override(doc: &mut Value, key: &str, value: &str) -> Result<(), SimError> {
    let parsed: Value = match key {
        "rules" => Value::String(value.to_string()),
        _ => serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string())),
    };
    let path: Vec<&str> = match key.split('.').collect::<Vec<_>>().as_slice() {
        ["rules"] | ["seed"] | ["until_ms"] | ["start"] => vec![key],
        ["data_plane", f] => vec!["data_plane", f],
        ["members", name, f] => vec!["config", "members", name, f],
        ["config", rest @ ..] if !rest.is_empty() => {
            std::iter::once("config").chain(rest.iter().copied()).collect()
        }
        [f] => vec!["config", f],
        _ => return Err(invalid(key, format!("cannot set {key:?}"))),
    };
    let mut at = doc;
    for (i, part) in path.iter().enumerate() {
        let Value::Object(map) = at else {
            return Err(invalid(&path[..i].join("."), "expected an object"));
        };
        if i + 1 == path.len() {
            map.insert(part.to_string(), parsed);
            return Ok(());
        }
        at = map
            .entry(part.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
    }
    Ok(())
}
