//! Applying a scenario: the store's view of the leader, then each change in order.
//!
//! A [`Draft`] holds what changes can touch. Reservations are kept as two things, so that the
//! order of changes cannot confuse them: the instances whose splits are withheld as recent
//! departures (decided by `progress.owner`, as the leader decides), and explicit per-split
//! `reserve`/`release` overrides (the last one wins). The reserved set is computed once, at the end.

use super::{Change, Departure, Refused, Scenario, ScenarioError, MAX_ADDED_SPLITS, OPS};
use crate::claims::MaxAttempts;
use crate::codes::ErrorCode;
use crate::fleet::{DefaultCap, Fleet};
use crate::leader::LeaderInputs;
use crate::rules::{Rules, RulesChoice};
use crate::state::SplitState;
use crate::synth::runnable_split;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Where a departure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Origin {
    /// The store: an `assign.{X}` record with no presence key.
    Store,
    /// A `remove_member` change.
    Scenario,
}

/// What became of a departure's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum DepartedState {
    /// Inside the rebalance delay: splits whose `progress.owner` it is are withheld.
    Withheld,
    /// Released by the user (`release_departed`): its delay is taken as over.
    Released,
    /// Added back (`add_member`): Spate cancels the window at once.
    Returned,
    /// The leader runs with no rebalance delay: nothing is withheld.
    NoDelay,
}

/// A recently departed instance, as the plan treats it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Departed {
    pub instance: String,
    pub origin: Origin,
    pub state: DepartedState,
    /// How it left, when a what-if change says so (`remove_member`'s `departure`); `None` for a
    /// departure the store shows (an `assign.{X}` record lingering without presence), whose
    /// manner the store does not record: only whether splits still name it as owner.
    pub departure: Option<Departure>,
    /// Splits the plan places no more because they still name it as owner (assignable ones:
    /// runnable, with a spec, not completed; a completed or quarantined split in its name is not
    /// counted); they are in `report.counts.reserved`.
    pub withheld: u32,
    /// Splits it held that a graceful stop released (owner cleared, lease deleted): placed at
    /// once, their next claim `released` (no attempt). 0 unless `departure` is `graceful`.
    pub released: u32,
}

/// A scenario applied to a fleet: the leader's inputs, and how they were found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    pub inputs: LeaderInputs,
    pub default_cap: DefaultCap,
    /// The rules `inputs` decide by (`inputs.rules`) and where they come from.
    pub rules: RulesChoice,
    pub departed: Vec<Departed>,
    pub rebalance_delay_ms: u64,
    /// The workers' `max_attempts` and where it comes from (the store does not record it).
    pub max_attempts: MaxAttempts,
}

struct Draft<'f> {
    fleet: &'f Fleet,
    inputs: LeaderInputs,
    default_cap: DefaultCap,
    rules: RulesChoice,
    departed: BTreeMap<String, (Origin, DepartedState)>,
    overrides: BTreeMap<String, bool>,
    delay_ms: u64,
    max_attempts: MaxAttempts,
    added_splits: u64,
    /// The fleet's departed owners, found once (a scenario may name many).
    owners: Option<BTreeSet<String>>,
    /// Split ids by lease owner, made at the first graceful removal, so that each removal
    /// visits only the splits leased to its member.
    leased: Option<HashMap<String, Vec<String>>>,
    /// How each member a change removed left, and what a graceful stop released.
    departures: BTreeMap<String, (Departure, u32)>,
}

type Step = Result<(), ScenarioError>;

fn err(at: usize, code: ErrorCode, field: &str, message: String) -> ScenarioError {
    ScenarioError {
        code,
        path: format!("changes[{at}].{field}"),
        message,
    }
}

impl Scenario {
    /// The leader's inputs for `fleet` after this scenario. With no changes and no settings,
    /// they are the leader's next decision's inputs as the store shows them. Fails with the
    /// first change that does not apply.
    pub fn apply(&self, fleet: &Fleet) -> Result<Applied, ScenarioError> {
        let (applied, refused) = self.apply_partly(fleet);
        match refused.first() {
            Some(r) => Err(r.error()),
            None => Ok(applied),
        }
    }

    /// The scenario as far as it applies: each change in order against the fleet as the changes
    /// before it that applied left it; a change that does not apply is left out (it changes
    /// nothing) and listed with its reason, and the rest still apply.
    pub fn apply_partly(&self, fleet: &Fleet) -> (Applied, Vec<Refused>) {
        let mut d = Draft::new(fleet, self);
        let mut refused = Vec::new();
        for (at, change) in self.changes.iter().enumerate() {
            if let Err(e) = change.apply(&mut d, at) {
                refused.push(Refused::of(at, e));
            }
        }
        (d.finish(), refused)
    }
}

impl<'f> Draft<'f> {
    fn new(fleet: &'f Fleet, sc: &Scenario) -> Draft<'f> {
        let store_cap = fleet.leader_cap();
        let default_cap = match sc.default_cap {
            Some(v) => DefaultCap::user(v, store_cap.leader.clone()),
            None => store_cap,
        };
        let rules = sc.rules.map_or_else(|| fleet.store_rules(), RulesChoice::user);
        let delay_ms = sc.rebalance_delay_ms();
        let state = if delay_ms == 0 {
            DepartedState::NoDelay
        } else {
            DepartedState::Withheld
        };
        let departed = fleet
            .recent_departures()
            .into_iter()
            .map(|x| (x, (Origin::Store, state)))
            .collect();
        let inputs = LeaderInputs {
            rules: rules.rules,
            members: fleet.members.keys().cloned().collect(),
            splits: fleet.splits.clone(),
            reserved: BTreeSet::new(),
            previous: Arc::default(),
            caps: fleet
                .members
                .iter()
                .filter_map(|(m, p)| p.max_in_flight.map(|c| (m.clone(), c)))
                .collect(),
            default_cap: default_cap.value,
            seed: fleet.seed,
        };
        Draft {
            fleet,
            inputs,
            default_cap,
            rules,
            departed,
            overrides: BTreeMap::new(),
            delay_ms,
            max_attempts: MaxAttempts::of(sc.max_attempts),
            added_splits: 0,
            owners: None,
            leased: None,
            departures: BTreeMap::new(),
        }
    }

    fn is_departed_owner(&mut self, who: &str) -> bool {
        let fleet = self.fleet;
        self.owners
            .get_or_insert_with(|| fleet.departed_owners())
            .contains(who)
    }

    /// The ids of the splits leased to `member` (and perhaps some no longer leased to it).
    fn leased_to(&mut self, member: &str) -> Vec<String> {
        let splits = &self.inputs.splits;
        let index = self.leased.get_or_insert_with(|| {
            let mut by: HashMap<String, Vec<String>> = HashMap::new();
            for (id, s) in splits.iter() {
                if let Some(l) = &s.lease {
                    by.entry(l.value.owner.clone()).or_default().push(id.clone());
                }
            }
            by
        });
        index.get(member).cloned().unwrap_or_default()
    }

    fn set_departed(&mut self, who: &str, origin: Origin) {
        let state = if self.delay_ms == 0 {
            DepartedState::NoDelay
        } else {
            DepartedState::Withheld
        };
        self.departed.insert(who.to_string(), (origin, state));
    }

    fn set_cap(&mut self, member: &str, cap: u32) {
        if cap > 0 {
            self.inputs.caps.insert(member.to_string(), cap);
        } else {
            self.inputs.caps.remove(member);
        }
    }

    fn finish(mut self) -> Applied {
        let withheld: BTreeSet<&str> = self
            .departed
            .iter()
            .filter(|(_, (_, s))| *s == DepartedState::Withheld)
            .map(|(x, _)| x.as_str())
            .collect();
        let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
        for (id, s) in self.inputs.splits.iter() {
            let owner = s.progress.owner.as_deref().filter(|o| withheld.contains(o));
            let reserved = self.overrides.get(id).copied().unwrap_or(owner.is_some());
            if reserved {
                self.inputs.reserved.insert(id.clone());
            }
            if let Some(o) = owner.filter(|_| reserved && s.is_assignable()) {
                *counts.entry(o).or_default() += 1;
            }
        }
        let departed = self
            .departed
            .iter()
            .map(|(x, &(origin, state))| {
                let how = self.departures.get(x);
                Departed {
                    instance: x.clone(),
                    origin,
                    state,
                    departure: how.map(|&(d, _)| d),
                    withheld: counts.get(x.as_str()).copied().unwrap_or(0),
                    released: how.map_or(0, |&(_, n)| n),
                }
            })
            .collect();
        if self.rules.rules == Rules::V0_3 {
            // the leader's cache of assign.* records and the members as the scenario leaves them
            self.inputs.previous = Arc::new(self.fleet.previous(&self.inputs.members));
        }
        Applied {
            inputs: self.inputs,
            default_cap: self.default_cap,
            rules: self.rules,
            departed,
            rebalance_delay_ms: self.delay_ms,
            max_attempts: self.max_attempts,
        }
    }
}

impl Change {
    /// Applies this change, the `at`-th of its scenario, to the draft; a change that does not
    /// apply leaves the draft as it was.
    fn apply(&self, d: &mut Draft, at: usize) -> Step {
        match self {
            Change::Unknown(raw) => Err(err(
                at,
                ErrorCode::UnknownOp,
                "op",
                format!(
                    "{} is not a change this planner knows (one of {})",
                    raw.get("op").map_or_else(String::new, |op| op.to_string()),
                    OPS.join(", ")
                ),
            )),
            Change::Unreadable { message, .. } => Err(ScenarioError {
                code: ErrorCode::InvalidChange,
                path: format!("changes[{at}]"),
                message: message.clone(),
            }),
            Change::AddMember { member, cap } => add_member(d, at, member, cap.unwrap_or(0)),
            Change::RemoveMember {
                member,
                departure,
                within_rebalance_delay,
            } => {
                let how = departure_of(at, *departure, *within_rebalance_delay)?;
                remove_member(d, at, member, how)
            }
            Change::ReleaseDeparted { member } => release_departed(d, at, member),
            Change::SetCap { member, cap } => {
                if !d.inputs.members.contains(member) {
                    return Err(err(
                        at,
                        ErrorCode::UnknownMember,
                        "member",
                        format!("{member:?} is not a member"),
                    ));
                }
                d.set_cap(member, *cap);
                Ok(())
            }
            Change::SetDefaultCap { cap } => {
                d.default_cap = DefaultCap::user(*cap, d.default_cap.leader.clone());
                d.inputs.default_cap = *cap;
                Ok(())
            }
            Change::Reserve { splits } => set_overrides(d, at, splits, true),
            Change::Release { splits } => set_overrides(d, at, splits, false),
            Change::SetWeight { split, weight } => set_weight(d, at, split, *weight),
            Change::AddSplits {
                count,
                weight,
                prefix,
                owner,
            } => add_splits(d, at, *count, *weight, prefix, owner.as_deref()),
        }
    }
}

fn departure_of(
    at: usize,
    departure: Option<Departure>,
    within: Option<bool>,
) -> Result<Departure, ScenarioError> {
    match (departure, within) {
        (Some(_), Some(_)) => Err(err(
            at,
            ErrorCode::InvalidScenario,
            "within_rebalance_delay",
            "give either departure or the older within_rebalance_delay, not both".into(),
        )),
        (Some(d), None) => Ok(d),
        (None, Some(true)) => Ok(Departure::Crash),
        (None, _) => Ok(Departure::CrashAfterDelay),
    }
}

fn add_member(d: &mut Draft, at: usize, member: &str, cap: u32) -> Step {
    if member.is_empty() {
        return Err(err(
            at,
            ErrorCode::InvalidScenario,
            "member",
            "a member name cannot be empty".into(),
        ));
    }
    if !d.inputs.members.insert(member.to_string()) {
        return Err(err(
            at,
            ErrorCode::DuplicateMember,
            "member",
            format!("{member:?} is already a member"),
        ));
    }
    if let Some((_, state)) = d.departed.get_mut(member) {
        *state = DepartedState::Returned;
    }
    d.set_cap(member, cap);
    Ok(())
}

fn remove_member(d: &mut Draft, at: usize, member: &str, how: Departure) -> Step {
    let was_member = d.inputs.members.remove(member);
    if !was_member && !d.departed.contains_key(member) && !d.is_departed_owner(member) {
        return Err(err(
            at,
            ErrorCode::UnknownMember,
            "member",
            format!("{member:?} is neither a member nor an owner of any split"),
        ));
    }
    d.inputs.caps.remove(member);
    let mut released = 0;
    match how {
        Departure::Crash => d.set_departed(member, Origin::Scenario),
        Departure::CrashAfterDelay => {
            if let Some((_, state)) = d.departed.get_mut(member) {
                *state = DepartedState::Released;
            }
        }
        Departure::Graceful => {
            let nonce = d.fleet.members.get(member).and_then(|m| m.nonce.clone());
            let ids = d.leased_to(member);
            let splits = Arc::make_mut(&mut d.inputs.splits);
            for id in &ids {
                if let Some(s) = splits.get_mut(id) {
                    released += u32::from(release_if_held(s, member, nonce.as_deref()));
                }
            }
            d.set_departed(member, Origin::Scenario);
        }
    }
    d.departures.insert(member.to_string(), (how, released));
    Ok(())
}

/// A graceful shutdown releases each split the instance holds (its lease, under its own nonce
/// when known): owner cleared, lease deleted; epoch and attempts unchanged. True when it held it.
fn release_if_held(s: &mut SplitState, member: &str, nonce: Option<&str>) -> bool {
    let held = s
        .lease
        .as_ref()
        .is_some_and(|l| l.value.owner == member && nonce.is_none_or(|n| l.value.nonce == n));
    if held {
        s.progress.owner = None;
        s.lease = None;
    }
    held
}

fn release_departed(d: &mut Draft, at: usize, member: &str) -> Step {
    match d.departed.get_mut(member) {
        Some((_, state)) if *state == DepartedState::Withheld => {
            *state = DepartedState::Released;
            Ok(())
        }
        _ => Err(err(
            at,
            ErrorCode::NotDeparted,
            "member",
            format!("{member:?} is not a recently departed instance whose splits are withheld"),
        )),
    }
}

fn set_overrides(d: &mut Draft, at: usize, splits: &[String], reserve: bool) -> Step {
    if let Some((j, id)) = splits
        .iter()
        .enumerate()
        .find(|(_, id)| !d.inputs.splits.contains_key(*id))
    {
        return Err(err(
            at,
            ErrorCode::UnknownSplit,
            &format!("splits[{j}]"),
            format!("no split {id:?}"),
        ));
    }
    for id in splits {
        d.overrides.insert(id.clone(), reserve);
    }
    Ok(())
}

fn set_weight(d: &mut Draft, at: usize, split: &str, weight: u64) -> Step {
    let Some(s) = Arc::make_mut(&mut d.inputs.splits).get_mut(split) else {
        return Err(err(
            at,
            ErrorCode::UnknownSplit,
            "split",
            format!("no split {split:?}"),
        ));
    };
    let Some(spec) = s.spec.as_mut() else {
        return Err(err(
            at,
            ErrorCode::NoSpec,
            "split",
            format!("split {split:?} has no spec, so no weight"),
        ));
    };
    spec.weight = weight;
    Ok(())
}

fn add_splits(d: &mut Draft, at: usize, count: u64, weight: u64, prefix: &str, owner: Option<&str>) -> Step {
    let added = d.added_splits.saturating_add(count);
    if added > MAX_ADDED_SPLITS {
        return Err(err(
            at,
            ErrorCode::TooManySplits,
            "count",
            format!("a scenario adds at most {MAX_ADDED_SPLITS} splits in all"),
        ));
    }
    let ids: Vec<String> = (0..count).map(|n| format!("{prefix}{n:06}")).collect();
    if let Some(id) = ids.iter().find(|id| d.inputs.splits.contains_key(*id)) {
        return Err(err(
            at,
            ErrorCode::DuplicateSplit,
            "prefix",
            format!("split {id:?} already exists: choose another prefix"),
        ));
    }
    d.added_splits = added;
    let splits = Arc::make_mut(&mut d.inputs.splits);
    for id in ids {
        let split = runnable_split(&id, d.inputs.seed, weight, owner);
        if let (Some(index), Some(o)) = (d.leased.as_mut(), owner) {
            index.entry(o.to_string()).or_default().push(id.clone());
        }
        splits.insert(id, split);
    }
    Ok(())
}
