//! Incidents: what the person on call reads when a live job's fleet changes (docs/user-guide.md,
//! "On call"). Each membership or leadership change a live frame reports ([`FleetChange`]: a
//! crash, a graceful stop, a join, a restart, a cap change, a leader change) opens an incident
//! that says what happened and when (the store's time), what the leader does and when (the
//! rebalance window of `timing.md` §5.3 / `timing-0.3.md` §5.3, counted from the store's
//! evidence), who takes which splits when it ends (the core's plan with the window ended:
//! `plan --release-departed`), what is at risk (the attempts rule, decision-core.md §6, and the
//! claim race, `timing.md` §6.7), and then whether the real fleet did what was predicted.
//!
//! [`IncidentLog::observe`] takes each frame's changes and fleet; `incident_views` writes
//! every incident at an instant (the countdowns move with the clock, not with the frames).

use crate::fleet::Fleet;
use crate::live::{FleetChange, FleetChangeKind};
use crate::pipeline::{analyse_partly, Analysis};
use crate::records::SplitStatus;
use crate::rules::Rules;
use crate::scenario::{Change, DepartedState, Scenario, SPATE_RECONCILE_INTERVAL_MS};
use serde::Serialize;
use std::collections::BTreeMap;

/// At most this many incidents are kept (the oldest go first).
pub(super) const MAX_INCIDENTS: usize = 50;

/// Spate's lease duration when the lease bucket names none (`timing.md` §1).
const SPATE_LEASE_MS: u64 = 30_000;

/// The claim race's measured rate per live peer and exposed claim (`timing.md` §6.7 A13 and
/// `timing-0.3.md` §6.7), in parts per thousand: ≈ 0.05 on 0.1.0, ≈ 0.13 on 0.3.0.
pub fn claim_race_per_mille(rules: Rules) -> u32 {
    match rules {
        Rules::V0_1 => 50,
        Rules::V0_3 => 130,
    }
}

/// The rebalance window of a departure at `at_ms`: the leader withholds the departed owner's
/// splits until its first publish at or after `at_ms + D`, which comes by `at_ms + D + C` on
/// 0.1 (its next reconcile tick, `timing.md` §5.3) and before `at_ms + D + 1.2 R` on 0.3 (its
/// next step, `timing-0.3.md` §5.3; R = L/3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Window {
    /// When the presence went (the store's time).
    pub from_ms: i64,
    /// The earliest the splits are handed out: `from + D`.
    pub ends_ms: i64,
    /// The latest, on a fleet whose leader runs as the spec says.
    pub ends_by_ms: i64,
}

impl Window {
    /// The window of a departure at `at_ms` under `rules`, delay `delay_ms` and lease `lease_ms`
    /// (0: Spate's default).
    pub fn of(at_ms: i64, rules: Rules, delay_ms: u64, lease_ms: u64) -> Window {
        let lease_ms = if lease_ms == 0 { SPATE_LEASE_MS } else { lease_ms };
        let slack_ms = match rules {
            Rules::V0_1 => SPATE_RECONCILE_INTERVAL_MS,
            // 1.2 R = 1.2 L / 3 = 0.4 L.
            Rules::V0_3 => lease_ms.saturating_mul(2) / 5,
        };
        let add = |t: i64, ms: u64| t.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX));
        let ends_ms = add(at_ms, delay_ms);
        // With D = 0 nothing is reserved: the publish of the step that sees it gone hands out.
        let slack_ms = if delay_ms == 0 { 0 } else { slack_ms };
        Window {
            from_ms: at_ms,
            ends_ms,
            ends_by_ms: add(ends_ms, slack_ms),
        }
    }
}

/// Splits and their bytes (spec weights; a split with no spec counts 0 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Tally {
    pub splits: u64,
    pub bytes: u64,
}

impl Tally {
    fn add(&mut self, bytes: u64) {
        self.splits += 1;
        self.bytes = self.bytes.saturating_add(bytes);
    }
}

/// One withheld split: its bytes, attempts, and where the plan with the window ended puts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Withheld {
    pub bytes: u64,
    pub attempts: u32,
    /// `None`: the plan leaves it queued (no member has room).
    pub receiver: Option<String>,
}

/// What the store shows of a departure's splits since it was predicted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The frame at which the store first showed the publish that ended the window: the
    /// departed member's `assign.*` record gone (that publish deletes it), or one of its
    /// withheld splits published to another member.
    pub released_ms: Option<i64>,
    /// Of the splits with a predicted receiver: published to it, and to another member.
    pub published_as_predicted: u64,
    pub published_elsewhere: u64,
    /// Leased now by the predicted receiver, by another live member, and by nobody.
    pub claimed_as_predicted: u64,
    pub claimed_elsewhere: u64,
    pub unclaimed: u64,
    /// Quarantined since (they never run again).
    pub quarantined: u64,
    /// Completed since.
    pub completed: u64,
    /// The frame at which every withheld split was first seen leased by a live member,
    /// completed or quarantined.
    pub settled_ms: Option<i64>,
    /// The frame at which the member was first seen back (its window cancelled).
    pub returned_ms: Option<i64>,
}

/// One incident.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incident {
    pub id: u64,
    pub change: FleetChange,
    pub rules: Rules,
    /// For a departure: the rebalance window.
    pub window: Option<Window>,
    /// For a departure: the splits whose record names the member as owner (withheld by the
    /// leader), as first seen.
    pub(super) withheld: BTreeMap<String, Withheld>,
    /// For a join, restart or cap change: what the plan gives the member that it does not hold.
    pub gains: Tally,
    /// The attempt limit the risk is judged by, and whether the person set it.
    pub max_attempts: u32,
    pub max_attempts_set: bool,
    /// Live members other than the departed (the peers that can race a claim).
    pub peers: u64,
    pub outcome: Outcome,
    /// For a crash with withheld splits: its simulated recovery.
    pub prediction: Option<Prediction>,
    /// Whether the member's `assign.*` record was there when the incident opened.
    pub had_record: bool,
}

/// One simulated run of a crash (a seed): from the lapse of the crashed member's presence until
/// every split it held runs again (`None`: some never do), how many splits were quarantined at the attempt
/// limit, and how many the claim race parked (`timing.md` §6.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SeedRun {
    pub recovery_ms: Option<u64>,
    pub quarantined: u64,
    pub parked: u64,
}

/// What a crash's recovery is predicted by: the timing simulator (the core never names it; the
/// callers pass it, as the sweep's [`crate::CrashModel`]).
pub trait RecoveryModel {
    /// Runs of `fleet` (the state just after `member`'s presence lapsed; its splits still name it)
    /// with `member` crashed at t = 0, by `rules`, the rebalance delay and the attempt limit
    /// given; one run per seed.
    fn crash_runs(
        &self,
        fleet: &Fleet,
        member: &str,
        settings: &CrashSettings,
    ) -> Result<Vec<SeedRun>, String>;
}

/// The leader's settings a crash is simulated with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrashSettings {
    pub rules: Rules,
    pub rebalance_delay_ms: u64,
    pub max_attempts: u32,
}

/// A crash's predicted recovery: the runs, and the instant they count from (the lapse of the
/// member's presence, as the store showed it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prediction {
    pub from_ms: i64,
    pub runs: Result<Vec<SeedRun>, String>,
}

/// What the log needs beside a frame: the leader's settings, the attempt limit and the model a
/// crash's recovery is predicted by.
#[derive(Clone, Copy)]
pub struct IncidentInputs<'a> {
    /// The scenario whose settings describe the real leader (its changes are ignored).
    pub scenario: &'a Scenario,
    /// `max_attempts` (`None`: Spate's default, 4; the store does not record it).
    pub max_attempts: Option<u32>,
    /// `None`: no prediction.
    pub recovery: Option<&'a dyn RecoveryModel>,
    /// The frame's fleet planned under the scenario's settings (its baseline), when the caller
    /// has it already (the page and `watch` plan each frame anyway); `None`: planned here, once
    /// per frame that has changes.
    pub baseline: Option<&'a Analysis>,
}

/// The incidents of one followed job, newest last.
#[derive(Clone, Debug, Default)]
pub struct IncidentLog {
    items: Vec<Incident>,
    next_id: u64,
    /// The fleet's revisions when last observed (a frame with the same fleet updates nothing).
    seen: Option<(u64, u64)>,
}

impl IncidentLog {
    /// The log before anything was observed.
    pub(crate) const EMPTY: IncidentLog = IncidentLog {
        items: Vec::new(),
        next_id: 0,
        seen: None,
    };

    /// An empty log.
    pub fn new() -> IncidentLog {
        IncidentLog::default()
    }

    /// The incidents, oldest first.
    pub fn incidents(&self) -> &[Incident] {
        &self.items
    }

    /// Opens an incident for each of a frame's `changes`, then updates every open one from
    /// `fleet` (the frame's fleet). Call once per frame, with the frame's changes.
    pub fn observe(&mut self, changes: &[FleetChange], fleet: &Fleet, inputs: &IncidentInputs) {
        let settings = inputs.scenario.baseline();
        let max_attempts = inputs.max_attempts.or(inputs.scenario.max_attempts);
        let planned;
        let base = match inputs.baseline {
            _ if changes.is_empty() => None,
            Some(a) => Some(a),
            None => {
                planned = analyse_partly(fleet, &settings);
                Some(&planned)
            }
        };
        for c in changes {
            let mut incident = self.open(c, fleet, &settings, base, max_attempts);
            if let (Some(model), Some(a)) = (inputs.recovery, base) {
                incident.predict(model, fleet, a);
            }
            self.items.push(incident);
        }
        self.keep_within_bound();
        let revisions = (fleet.state_revision, fleet.lease_revision);
        if self.seen != Some(revisions) || !changes.is_empty() {
            self.seen = Some(revisions);
            if self.items.iter().any(|i| !i.closed()) {
                let published = published_to(fleet);
                for i in self.items.iter_mut().filter(|i| !i.closed()) {
                    i.update(fleet, &published);
                }
            }
        }
    }

    /// At most [`MAX_INCIDENTS`]: the oldest closed ones go first, then the oldest.
    fn keep_within_bound(&mut self) {
        while self.items.len() > MAX_INCIDENTS {
            let at = self.items.iter().position(Incident::closed).unwrap_or(0);
            self.items.remove(at);
        }
    }

    fn open(
        &mut self,
        c: &FleetChange,
        fleet: &Fleet,
        settings: &Scenario,
        base: Option<&Analysis>,
        max_attempts: Option<u32>,
    ) -> Incident {
        self.next_id += 1;
        let rules = base.map_or(Rules::V0_1, |a| a.applied.rules.rules);
        let departed = matches!(c.kind, FleetChangeKind::Crashed | FleetChangeKind::Stopped);
        let mut i = Incident {
            id: self.next_id,
            change: c.clone(),
            rules,
            window: None,
            withheld: BTreeMap::new(),
            gains: Tally::default(),
            max_attempts: max_attempts.unwrap_or(4),
            max_attempts_set: max_attempts.is_some(),
            peers: fleet.members.keys().filter(|m| **m != c.member).count() as u64,
            outcome: Outcome::default(),
            prediction: None,
            had_record: fleet.published.contains_key(&c.member),
        };
        if departed {
            let delay = base.map_or(0, |a| a.applied.rebalance_delay_ms);
            i.window = Some(Window::of(c.at_ms, rules, delay, fleet.lease_ttl_ms));
            i.withheld = withheld(fleet, settings, base, &c.member);
        } else if c.kind != FleetChangeKind::Leader {
            i.gains = base.map_or_else(Tally::default, |a| gains(fleet, a, &c.member));
        }
        i
    }
}

/// Each published split's member (`assign.*` records), once per frame for every incident.
fn published_to(fleet: &Fleet) -> BTreeMap<&str, &str> {
    fleet
        .published
        .iter()
        .flat_map(|(m, a)| a.splits.iter().map(move |id| (id.as_str(), m.as_str())))
        .collect()
}

fn weight(fleet: &Fleet, id: &str) -> u64 {
    fleet
        .splits
        .get(id)
        .and_then(|s| s.spec.as_ref())
        .map_or(0, |s| s.weight)
}

/// The runnable splits whose record names `member` as owner, each with where the plan puts it
/// once the member's window has ended (the baseline's plan when the leader withholds nothing).
fn withheld(
    fleet: &Fleet,
    settings: &Scenario,
    base: Option<&Analysis>,
    member: &str,
) -> BTreeMap<String, Withheld> {
    let owned: Vec<(&String, u32)> = fleet
        .splits
        .iter()
        .filter(|(_, s)| {
            s.progress.status == SplitStatus::Runnable && s.progress.owner.as_deref() == Some(member)
        })
        .map(|(id, s)| (id, s.progress.attempts))
        .collect();
    if owned.is_empty() {
        return BTreeMap::new();
    }
    let is_withheld = base.is_some_and(|a| {
        a.applied
            .departed
            .iter()
            .any(|d| d.instance == member && d.state == DepartedState::Withheld)
    });
    let released;
    let plan = if is_withheld {
        let mut sc = settings.clone();
        sc.changes.push(Change::ReleaseDeparted {
            member: member.to_string(),
        });
        released = analyse_partly(fleet, &sc);
        Some(&released)
    } else {
        base
    };
    let receiver_of: BTreeMap<&str, &str> = plan
        .map(|a| {
            a.assignment
                .iter()
                .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
        })
        .into_iter()
        .flatten()
        .collect();
    owned
        .into_iter()
        .map(|(id, attempts)| {
            let receiver = receiver_of.get(id.as_str()).map(|m| m.to_string());
            (
                id.clone(),
                Withheld {
                    bytes: weight(fleet, id),
                    attempts,
                    receiver,
                },
            )
        })
        .collect()
}

/// What the plan gives `member` that it does not hold now.
fn gains(fleet: &Fleet, a: &Analysis, member: &str) -> Tally {
    let mut t = Tally::default();
    for id in a.assignment.get(member).into_iter().flatten() {
        let held = fleet.splits.get(id).and_then(|s| s.current_owner()) == Some(member);
        if !held {
            t.add(weight(fleet, id));
        }
    }
    t
}

impl Incident {
    /// The receivers of the withheld splits: member → splits and bytes (`None`: left queued).
    pub fn receivers(&self) -> BTreeMap<Option<&str>, Tally> {
        let mut out: BTreeMap<Option<&str>, Tally> = BTreeMap::new();
        for w in self.withheld.values() {
            out.entry(w.receiver.as_deref()).or_default().add(w.bytes);
        }
        out
    }

    /// All withheld splits.
    pub fn withheld_tally(&self) -> Tally {
        let mut t = Tally::default();
        self.withheld.values().for_each(|w| t.add(w.bytes));
        t
    }

    /// The withheld splits at attempts ≥ `from` (the attempts rule's exposure).
    pub fn at_attempts(&self, from: u32) -> Tally {
        let mut t = Tally::default();
        self.withheld
            .values()
            .filter(|w| w.attempts >= from)
            .for_each(|w| t.add(w.bytes));
        t
    }

    /// The withheld splits at exactly `attempts`.
    pub fn exactly_at(&self, attempts: u32) -> Tally {
        let mut t = Tally::default();
        self.withheld
            .values()
            .filter(|w| w.attempts == attempts)
            .for_each(|w| t.add(w.bytes));
        t
    }

    /// Simulates a crash's recovery by `model` (only for a crash that withholds splits).
    fn predict(&mut self, model: &dyn RecoveryModel, fleet: &Fleet, a: &Analysis) {
        if self.change.kind != FleetChangeKind::Crashed || self.withheld.is_empty() {
            return;
        }
        let settings = CrashSettings {
            rules: self.rules,
            rebalance_delay_ms: a.applied.rebalance_delay_ms,
            max_attempts: self.max_attempts,
        };
        self.prediction = Some(Prediction {
            from_ms: self.change.at_ms,
            runs: model.crash_runs(fleet, &self.change.member, &settings),
        });
    }

    /// Whether nothing more is awaited: every withheld split runs again, the member came back, or
    /// nothing was withheld.
    pub fn closed(&self) -> bool {
        self.withheld.is_empty() || self.outcome.settled_ms.is_some() || self.outcome.returned_ms.is_some()
    }

    /// Compares the store now with the prediction.
    fn update(&mut self, fleet: &Fleet, published: &BTreeMap<&str, &str>) {
        if self.withheld.is_empty() {
            return;
        }
        let frame_ms = fleet.taken_at_ms;
        // Back within the window: the window is cancelled and its splits stay with it
        // (timing.md §5.3); the incident ends there.
        if fleet.members.contains_key(&self.change.member) {
            self.outcome.returned_ms = Some(frame_ms);
            return;
        }
        // The store's evidence of the publish that ends the window: the member's record deleted
        // (when it had one), or a withheld split published to another member.
        let member = self.change.member.as_str();
        let record_gone = self.had_record && !fleet.published.contains_key(member);
        let handed_out = self
            .withheld
            .keys()
            .any(|id| published.get(id.as_str()).is_some_and(|m| *m != member));
        if (record_gone || handed_out) && self.outcome.released_ms.is_none() {
            self.outcome.released_ms = Some(frame_ms);
        }
        let settled = self.outcome.settled_ms;
        self.outcome = Outcome {
            released_ms: self.outcome.released_ms,
            settled_ms: settled,
            ..Outcome::default()
        };
        let mut open = 0;
        for (id, w) in &self.withheld {
            open += u64::from(!judge(
                &mut self.outcome,
                &self.change.member,
                fleet,
                (id, w),
                published,
            ));
        }
        if open == 0 && self.outcome.settled_ms.is_none() {
            self.outcome.settled_ms = Some(frame_ms);
        }
    }
}

/// Counts one withheld split of `departed` in `o`; true when it is settled (leased by a live
/// member other than the departed, completed or quarantined).
fn judge(
    o: &mut Outcome,
    departed: &str,
    fleet: &Fleet,
    (id, w): (&str, &Withheld),
    published: &BTreeMap<&str, &str>,
) -> bool {
    let Some(s) = fleet.splits.get(id) else {
        return true;
    };
    match s.progress.status {
        SplitStatus::Quarantined => {
            o.quarantined += 1;
            return true;
        }
        SplitStatus::Completed => {
            o.completed += 1;
            return true;
        }
        SplitStatus::Runnable => {}
    }
    if let (Some(r), Some(p)) = (w.receiver.as_deref(), published.get(id)) {
        if *p == r {
            o.published_as_predicted += 1;
        } else if *p != departed {
            o.published_elsewhere += 1;
        }
    }
    let holder = s.lease.as_ref().map(|l| l.value.owner.as_str());
    match holder {
        Some(h) if h == departed || !fleet.members.contains_key(h) => o.unclaimed += 1,
        Some(h) if Some(h) == w.receiver.as_deref() => o.claimed_as_predicted += 1,
        Some(_) => o.claimed_elsewhere += 1,
        None => o.unclaimed += 1,
    }
    holder.is_some_and(|h| h != departed && fleet.members.contains_key(h))
}
