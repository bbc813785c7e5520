//! What a simulation produces: the timeline, each split's state intervals, the headline figures
//! and the final state (for checking it against the decision core).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spate_planner_core::{ClaimKind, Rules, RulesChoice, RulesSource, SplitState};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Serializes a u64 that may exceed 2^53 as a decimal string.
pub(crate) fn as_string<S: Serializer, T: std::fmt::Display>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

/// Reads a u128 written as a decimal string (as [`as_string`] writes it) or as an integer.
fn from_string<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Number(u64),
    }
    match Either::deserialize(d)? {
        Either::Number(n) => Ok(u128::from(n)),
        Either::Text(t) => t
            .parse()
            .map_err(|_| serde::de::Error::custom(format!("{t:?} is not an integer in 0..2^128"))),
    }
}

/// Why a worker gave a split up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ReleaseReason {
    /// The data plane drained it after a revocation.
    Drained,
    /// The drain deadline passed (or a cancelled revocation stayed silent): forced.
    Forced,
    /// The source declined to stop cleanly: forced at once.
    Declined,
    /// Graceful shutdown.
    Departure,
}

/// A sorted list of split ids, shared between the store and the timeline (a publish writes
/// the same list to both, and a fleet of 10,000 splits publishes it often).
#[derive(Clone, Debug, Default, Eq)]
pub struct SplitList(Rc<Vec<String>>);

impl PartialEq for SplitList {
    fn eq(&self, other: &SplitList) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl SplitList {
    pub fn new(ids: Vec<String>) -> SplitList {
        SplitList(Rc::new(ids))
    }

    pub fn to_vec(&self) -> Vec<String> {
        self.0.as_ref().clone()
    }
}

impl std::ops::Deref for SplitList {
    type Target = Vec<String>;
    fn deref(&self) -> &Vec<String> {
        &self.0
    }
}

impl Serialize for SplitList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter())
    }
}

/// One assign record a publish wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimRecord"))]
pub struct Record {
    pub member: String,
    #[cfg_attr(feature = "ts", ts(as = "Vec<String>"))]
    pub splits: SplitList,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimWhat"))]
pub enum What {
    /// A scripted event that had nothing to act on (a crash of a process that is not running).
    Ignored {
        index: usize,
        reason: String,
    },
    Crashed {
        member: String,
    },
    Stopped {
        member: String,
    },
    Started {
        member: String,
        nonce: String,
        cap: u32,
    },
    CapSet {
        member: String,
        cap: u32,
    },
    /// A presence key written (start-up, every heartbeat, a cap change).
    PresenceWritten {
        member: String,
        cap: Option<u32>,
    },
    PresenceExpired {
        member: String,
    },
    PresenceDeleted {
        member: String,
    },
    LeaderElected {
        member: String,
        #[serde(serialize_with = "as_string")]
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        generation: u64,
    },
    LeaderKeyExpired {
        owner: String,
    },
    LeaderResigned {
        member: String,
    },
    /// The leader's publish: the records it wrote, in member order.
    Published {
        leader: String,
        #[serde(serialize_with = "as_string")]
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        generation: u64,
        records: Vec<Record>,
    },
    AssignDeleted {
        leader: String,
        member: String,
    },
    Claim {
        member: String,
        split: String,
        kind: ClaimKind,
        attempt: u32,
    },
    Quarantine {
        member: String,
        split: String,
        attempt: u32,
    },
    /// The claim race (timing.md §6.7): peer `by` folded `member`'s claim record before its
    /// lease and parked the split at the claim's instant (epoch + 1, attempts `attempt`, no
    /// owner). `member` loses it at once (its lease lingers until it expires); it never runs
    /// again.
    ParkedByRace {
        member: String,
        by: String,
        split: String,
        attempt: u32,
    },
    RevokeRequested {
        member: String,
        split: String,
    },
    RevokeCancelled {
        member: String,
        split: String,
    },
    /// A declined revocation that was cancelled: forgotten, the split kept.
    DeclineForgotten {
        member: String,
        split: String,
    },
    Released {
        member: String,
        split: String,
        reason: ReleaseReason,
        replayed_ms: u64,
    },
    LeaseExpired {
        split: String,
        owner: String,
    },
    /// A split lease rewritten at a heartbeat (only with `Options::trace_renewals`).
    LeaseRenewed {
        member: String,
        split: String,
    },
    /// A reconcile listing (only with `Options::trace_renewals`).
    Reconciled {
        member: String,
    },
    /// A replan tick, leading or not (only with `Options::trace_renewals`).
    ReplanTick {
        member: String,
    },
    /// The process lost a split it held without releasing it (fenced by another write).
    Lost {
        member: String,
        split: String,
    },
    Completed {
        member: String,
        split: String,
    },
    Failed {
        member: String,
        split: String,
        attempt: u32,
        quarantined: bool,
    },
    SplitsAdded {
        count: u64,
        prefix: String,
    },
    /// The plan record written: an election's fence or a planner run landing.
    PlanWritten {
        member: String,
        #[serde(serialize_with = "as_string")]
        #[cfg_attr(feature = "ts", ts(type = "string"))]
        generation: u64,
    },
    /// Every split is completed or quarantined and the plan is final.
    JobFinished,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimEvent"))]
pub struct TimelineEvent {
    pub t_ms: u64,
    #[serde(flatten)]
    pub what: What,
}

/// A split's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SplitPhase"))]
pub enum Phase {
    /// Held by a live process and read.
    Running,
    /// Held by a live process under a live revocation.
    Draining,
    /// Runnable and read by nobody (unheld, queued, reserved, or held by a dead process).
    Idle,
    Completed,
    Quarantined,
}

impl Phase {
    /// Running or draining: a process reads it.
    pub fn runs(self) -> bool {
        matches!(self, Phase::Running | Phase::Draining)
    }
}

/// `[from_ms, to_ms)` in one phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SplitInterval"))]
pub struct Interval {
    pub from_ms: u64,
    pub to_ms: u64,
    pub phase: Phase,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub member: Option<String>,
}

/// Why a split does not run at the end of a simulation (`docs/simulator.md`, "Recovery"), read
/// from the final state in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Stuck {
    /// Parked by the claim race (timing.md §6.7) right after a claim: quarantined though no
    /// tenancy failed.
    ParkedByRace,
    /// Quarantined: its attempts ran out.
    Quarantined,
    /// Its lease still names a process that is gone: it expires `L` after that process's last
    /// write (the run ended first).
    LeasedByGone,
    /// No process leads, so nobody assigns it.
    NoLeader,
    /// The leader withholds it: its owner departed within the rebalance delay.
    Withheld,
    /// It has no spec: no worker may claim it.
    NoSpec,
    /// The leader's assignment gives it to no member: no member has a free lane (queued).
    NoFreeLane,
    /// The leader gives it to a member whose process holds all its lanes (`K`): the leader
    /// counts that member's cap as more than its process runs.
    MemberFull,
    /// The leader's assignment gives it to a member that has not claimed it yet.
    Pending,
}

/// A split the events took that does not run at the end, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NotRecovered {
    pub split: String,
    pub reason: Stuck,
    /// The process its lease names (leased by one gone), its departed owner (withheld), or the
    /// member it is assigned to (pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
    /// Why, in words ([`Stuck::words`] of `reason` and `member`).
    #[serde(default)]
    pub words: String,
}

/// The headline figures (`docs/simulator.md`, "Figures"). Read back (`Deserialize`) from a
/// simulation document's `figures`, for the table comparing two runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimFigures"))]
pub struct Figures {
    /// From the first scripted event until every split the events took runs again (or has
    /// completed) and keeps running to the end; `None` if one does not (`not_recovered` says
    /// which and why), or no events. `Some(0)` when the events took no split.
    pub recovery_ms: Option<u64>,
    /// The splits the events took: running or draining on a member when it crashed or stopped
    /// (the leader for `crash_leader`), and a split failed by its holder.
    pub splits_taken: u64,
    /// The taken splits that do not run at the end, each with why, in id order.
    pub not_recovered: Vec<NotRecovered>,
    /// Splits that ran just before the first event, were not taken, and do not run at the end
    /// (the leader moved them and has no lane for them, say).
    pub others_not_running: u64,
    /// Splits idle just before the first event, and quarantined then: the starting fleet's, not
    /// the events' doing.
    pub idle_before: u64,
    pub quarantined_before: u64,
    /// Sum over runnable splits of the time nobody read them.
    pub idle_split_ms: u64,
    /// The same, each split weighted by `max(1, weight)`.
    #[serde(serialize_with = "as_string", deserialize_with = "from_string")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub idle_weighted: u128,
    /// Attempts consumed: reclaims, expired takeovers, quarantines (the race's too) and
    /// failures.
    pub attempts_burned: u64,
    /// Quarantines by the rules: a scan at the last attempt, or a failure at the cap.
    pub splits_quarantined: u64,
    /// Splits parked by the claim race (timing.md §6.7), apart from `splits_quarantined`.
    #[serde(default)]
    pub splits_parked_by_race: u64,
    /// Claims by a worker other than the split's previous holder.
    pub moves: u64,
    pub forced_drains: u64,
    /// Work read again because of forced drains: per forced drain, the time since the split's
    /// last commit (since the revocation when commits are not modelled).
    pub replayed_ms: u64,
    /// Time with no live leader, in all and the longest stretch.
    pub leadership_gap_ms: u64,
    pub longest_leadership_gap_ms: u64,
    pub elections: u64,
    pub publishes: u64,
    pub claims: u64,
    /// The simulation's end (`until_ms`).
    pub end_ms: u64,
}

/// The store and the fleet at the end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FinalState {
    /// Presence keys and their advertised caps.
    pub members: BTreeMap<String, Option<u32>>,
    /// Live processes and their lane budgets `K`.
    pub lanes: BTreeMap<String, u32>,
    pub leader: Option<String>,
    /// The leader's `K` (its default cap for members without one).
    pub default_cap: Option<u32>,
    /// The leader's reserved set at the end.
    pub reserved: BTreeSet<String>,
    pub splits: BTreeMap<String, SplitState>,
    /// Split -> the live process holding it.
    pub holders: BTreeMap<String, String>,
    /// `assign.*` records: generation and splits.
    pub published: BTreeMap<String, (u64, Vec<String>)>,
}

/// Everything a simulation produces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The release whose timing and decisions the fleet followed, and where that came from.
    pub rules: RulesChoice,
    pub timeline: Vec<TimelineEvent>,
    pub splits: BTreeMap<String, Vec<Interval>>,
    pub figures: Figures,
    #[serde(rename = "final")]
    pub end: FinalState,
}

/// One claim, for the `claims` list of the JSON document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimClaim"))]
pub struct ClaimRow<'a> {
    pub t_ms: u64,
    pub member: &'a str,
    pub split: &'a str,
    pub kind: ClaimKind,
    pub attempt: u32,
}

/// One quarantine or election.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimMemberRow"))]
pub struct MemberRow<'a> {
    pub t_ms: u64,
    pub member: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub split: Option<&'a str>,
}

impl Outcome {
    /// Every claim, in time order.
    pub fn claims(&self) -> Vec<ClaimRow<'_>> {
        self.timeline
            .iter()
            .filter_map(|e| match &e.what {
                What::Claim {
                    member,
                    split,
                    kind,
                    attempt,
                } => Some(ClaimRow {
                    t_ms: e.t_ms,
                    member,
                    split,
                    kind: *kind,
                    attempt: *attempt,
                }),
                _ => None,
            })
            .collect()
    }

    /// Every quarantine, in time order.
    pub fn quarantines(&self) -> Vec<MemberRow<'_>> {
        self.timeline
            .iter()
            .filter_map(|e| match &e.what {
                What::Quarantine { member, split, .. } => Some(MemberRow {
                    t_ms: e.t_ms,
                    member,
                    split: Some(split),
                }),
                _ => None,
            })
            .collect()
    }

    /// Every election, in time order.
    pub fn elections(&self) -> Vec<MemberRow<'_>> {
        self.timeline
            .iter()
            .filter_map(|e| match &e.what {
                What::LeaderElected { member, .. } => Some(MemberRow {
                    t_ms: e.t_ms,
                    member,
                    split: None,
                }),
                _ => None,
            })
            .collect()
    }

    /// The document without the recovery's words (the script is not at hand), as a value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self.document()).expect("a simulation document is JSON")
    }

    /// The document of `spate-planner simulate --json`, as a value.
    pub fn document(&self) -> Document<'_> {
        Document {
            format: DOCUMENT_FORMAT,
            rules: self.rules.rules,
            rules_source: self.rules.source,
            rules_note: self.rules.explain(),
            figures: &self.figures,
            claims: self.claims(),
            quarantines: self.quarantines(),
            elections: self.elections(),
            timeline: &self.timeline,
            splits: &self.splits,
            recovery: None,
        }
    }
}

/// The format tag of the simulation document.
pub(crate) const DOCUMENT_FORMAT: &str = "spate-planner-simulation/1";

/// The document of `spate-planner simulate --json` ([`Outcome::document`]): the release
/// followed, the figures, the claims, quarantines and elections, the timeline and each split's
/// intervals. Integers are JSON numbers (times and counts stay below 2^53), but for the few
/// written as decimal strings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "SimulationDocument"))]
pub struct Document<'a> {
    pub format: &'static str,
    /// The release whose timing and decisions the fleet followed, where that came from, in
    /// words.
    pub rules: Rules,
    pub rules_source: RulesSource,
    pub rules_note: String,
    pub figures: &'a Figures,
    pub claims: Vec<ClaimRow<'a>>,
    pub quarantines: Vec<MemberRow<'a>>,
    pub elections: Vec<MemberRow<'a>>,
    pub timeline: &'a [TimelineEvent],
    pub splits: &'a BTreeMap<String, Vec<Interval>>,
    /// What the recovery rests on, in words ([`Outcome::document_of`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub recovery: Option<RecoveryText>,
}

/// The sentences for one configuration's figures; each is `None` when it has nothing to say.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecoveryText {
    /// What the events took (and that every one runs again, when so).
    pub taken: Option<String>,
    /// The taken splits that never ran again, by reason.
    pub stuck: Option<String>,
    /// Other splits that ran before the first event and do not run at the end.
    pub others: Option<String>,
    /// What was idle or quarantined before the first event.
    pub before: Option<String>,
}

impl RecoveryText {
    /// The sentences there are, in order.
    pub fn lines(&self) -> Vec<&str> {
        [&self.taken, &self.stuck, &self.others, &self.before]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }
}
