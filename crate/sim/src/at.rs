//! The fleet at one instant of a run (the Timeline's scrubber): each member's state, load and
//! lanes, who leads, how many splits are in each phase, and which splits are idle, since when
//! and who held them before, read from the run's split intervals and its timeline. Built once
//! per run ([`FleetIndex`]), asked at any instant ([`FleetIndex::at`]) in time linear in the
//! splits (a binary search among each split's intervals).

use crate::outcome::{as_string, Interval, Outcome, Phase, TimelineEvent, What};
use crate::script::{Op, Script};
use crate::start::Start;
use serde::Serialize;
use std::collections::BTreeMap;

/// A member's process at an instant: running, how its last process ended, or not started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum MemberState {
    Running,
    Crashed,
    Stopped,
    NotStarted,
}

/// One process of a member: `[from, to)`, and how it ended (`None`: running at the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Life {
    from: u64,
    to: u64,
    end: Option<MemberState>,
}

/// The splits in each phase at an instant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PhaseCounts {
    pub running: u64,
    pub draining: u64,
    pub idle: u64,
    pub completed: u64,
    pub quarantined: u64,
}

/// A member at an instant: its state, whether it leads, the weight and number of the splits
/// its process reads (running or draining) and of those draining.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MemberAt<'a> {
    pub name: &'a str,
    pub state: MemberState,
    pub leader: bool,
    #[serde(serialize_with = "as_string")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub load: u128,
    pub lanes: u64,
    pub draining: u64,
}

/// An idle split at an instant: since when, and who held it before (the previous interval's
/// member; for a split idle from its first interval, its owner in the snapshot).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IdleAt<'a> {
    pub id: &'a str,
    #[serde(serialize_with = "as_string")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub weight: u64,
    pub since_ms: u64,
    pub last: Option<&'a str>,
}

/// The fleet at `t_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FleetAt<'a> {
    pub t_ms: u64,
    pub leader: Option<&'a str>,
    pub counts: PhaseCounts,
    /// The weight of the idle splits, in all.
    #[serde(serialize_with = "as_string")]
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub idle_weight: u128,
    pub idle: Vec<IdleAt<'a>>,
    pub members: Vec<MemberAt<'a>>,
}

/// A run's split intervals and lives, compact, for asking the fleet at any instant.
#[derive(Clone, Debug, Default)]
pub struct FleetIndex {
    pub(crate) members: Vec<String>,
    pub(crate) ids: Vec<String>,
    pub(crate) weight: Vec<u64>,
    owner0: Vec<Option<String>>,
    /// Split `s` has intervals `offsets[s]..offsets[s + 1]`.
    pub(crate) offsets: Vec<usize>,
    pub(crate) from: Vec<u64>,
    pub(crate) to: Vec<u64>,
    pub(crate) phase: Vec<Phase>,
    pub(crate) member: Vec<Option<usize>>,
    lives: Vec<Vec<Life>>,
    /// Who led when: member index, `[from, to)`.
    leaders: Vec<(usize, u64, u64)>,
    pub(crate) end_ms: u64,
}

/// What a run started from, as [`FleetIndex::from_parts`] reads it.
pub struct Initial<'a> {
    /// The members of the starting fleet, in order (they run from 0).
    pub members: &'a [String],
    /// The leader at 0 (counted only if it is one of `members`).
    pub leader: Option<&'a str>,
    /// A split's weight (0: none known).
    pub weight_of: &'a dyn Fn(&str) -> u64,
    /// A split's owner in the snapshot.
    pub owner_of: &'a dyn Fn(&str) -> Option<String>,
}

impl FleetIndex {
    /// The index of a simulation of `start` under `script`: the starting members in name order,
    /// the snapshot's leader, each split's weight from its spec (an added split's from its
    /// `add_splits` event) and its owner in the snapshot (its progress record's, else its
    /// lease's).
    pub fn new(o: &Outcome, start: &Start, script: &Script) -> FleetIndex {
        let members: Vec<String> = start.members.keys().cloned().collect();
        let added: Vec<(&str, u64)> = script
            .events
            .iter()
            .filter_map(|e| match &e.op {
                Op::AddSplits { prefix, weight, .. } => Some((prefix.as_str(), *weight)),
                _ => None,
            })
            .collect();
        let weight_of = |id: &str| match start.splits.get(id) {
            Some(s) => s.spec.as_ref().map_or(0, |sp| sp.weight),
            None => added.iter().find(|(p, _)| id.starts_with(p)).map_or(0, |a| a.1),
        };
        let owner_of = |id: &str| {
            let s = start.splits.get(id)?;
            let lease = s.lease.as_ref().map(|l| l.value.owner.clone());
            s.progress.owner.clone().or(lease)
        };
        let initial = Initial {
            members: &members,
            leader: start.leader.as_ref().map(|l| l.0.as_str()),
            weight_of: &weight_of,
            owner_of: &owner_of,
        };
        FleetIndex::from_parts(&o.timeline, &o.splits, o.figures.end_ms, &initial)
    }

    /// The index of a run's timeline and split intervals, ending at `end_ms`.
    pub fn from_parts(
        timeline: &[TimelineEvent],
        splits: &BTreeMap<String, Vec<Interval>>,
        end_ms: u64,
        initial: &Initial,
    ) -> FleetIndex {
        let members = member_names(timeline, splits, initial.members);
        let index: BTreeMap<&str, usize> = members.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
        let mut ix = FleetIndex {
            end_ms,
            ..FleetIndex::default()
        };
        for (id, list) in splits {
            ix.offsets.push(ix.from.len());
            ix.ids.push(id.clone());
            ix.weight.push((initial.weight_of)(id));
            ix.owner0.push((initial.owner_of)(id));
            for iv in list {
                ix.from.push(iv.from_ms);
                ix.to.push(iv.to_ms);
                ix.phase.push(iv.phase);
                ix.member
                    .push(iv.member.as_deref().and_then(|m| index.get(m).copied()));
            }
        }
        ix.offsets.push(ix.from.len());
        let leader = initial.leader.and_then(|l| index.get(l).copied());
        let (lives, leaders) = lives(timeline, &index, initial.members.len(), leader, end_ms);
        ix.lives = lives;
        ix.leaders = leaders;
        ix.members = members;
        ix
    }

    /// The run's end.
    pub fn end_ms(&self) -> u64 {
        self.end_ms
    }

    /// The interval of split `s` holding `t` (`[from, to)`; the run's end belongs to the last).
    fn interval_at(&self, s: usize, t: u64) -> Option<usize> {
        let (lo, hi) = (self.offsets[s], self.offsets[s + 1]);
        if lo == hi || t < self.from[lo] {
            return None;
        }
        let last = hi - 1;
        if t >= self.to[last] {
            return (t == self.to[last]).then_some(last);
        }
        // the last interval starting at or before t
        let j = lo + self.from[lo..hi].partition_point(|&f| f <= t) - 1;
        (t < self.to[j]).then_some(j)
    }

    /// The fleet at `t` (ms; past the end: at the end).
    pub fn at(&self, t: u64) -> FleetAt<'_> {
        let t = t.min(self.end_ms);
        let n = self.members.len();
        let (mut load, mut lanes, mut draining) = (vec![0u128; n], vec![0u64; n], vec![0u64; n]);
        let mut counts = PhaseCounts::default();
        let (mut idle, mut idle_weight) = (Vec::new(), 0u128);
        for s in 0..self.ids.len() {
            let Some(j) = self.interval_at(s, t) else { continue };
            let phase = self.phase[j];
            match phase {
                Phase::Running => counts.running += 1,
                Phase::Draining => counts.draining += 1,
                Phase::Idle => counts.idle += 1,
                Phase::Completed => counts.completed += 1,
                Phase::Quarantined => counts.quarantined += 1,
            }
            match (phase, self.member[j]) {
                (Phase::Running | Phase::Draining, Some(m)) => {
                    load[m] += u128::from(self.weight[s]);
                    lanes[m] += 1;
                    draining[m] += u64::from(phase == Phase::Draining);
                }
                (Phase::Idle, _) => {
                    idle_weight += u128::from(self.weight[s]);
                    idle.push(self.idle_at(s, j));
                }
                _ => {}
            }
        }
        let leader = self.leaders.iter().find(|l| l.1 <= t && t < l.2).map(|l| l.0);
        let members = (0..n)
            .map(|i| MemberAt {
                name: &self.members[i],
                state: member_state(&self.lives[i], t, self.end_ms),
                leader: leader == Some(i),
                load: load[i],
                lanes: lanes[i],
                draining: draining[i],
            })
            .collect();
        FleetAt {
            t_ms: t,
            leader: leader.map(|i| self.members[i].as_str()),
            counts,
            idle_weight,
            idle,
            members,
        }
    }

    fn idle_at(&self, s: usize, j: usize) -> IdleAt<'_> {
        let first = j == self.offsets[s];
        let last = match first {
            true => self.owner0[s].as_deref(),
            false => self.member[j - 1].map(|m| self.members[m].as_str()),
        };
        IdleAt {
            id: &self.ids[s],
            weight: self.weight[s],
            since_ms: self.from[j],
            last,
        }
    }
}

/// Every instance the run knows, in order of appearance: the starting members, then those the
/// timeline starts, then any other holder of an interval.
fn member_names(
    timeline: &[TimelineEvent],
    splits: &BTreeMap<String, Vec<Interval>>,
    initial: &[String],
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let started = timeline.iter().filter_map(|e| match &e.what {
        What::Started { member, .. } => Some(member),
        _ => None,
    });
    let holders = splits.values().flatten().filter_map(|i| i.member.as_ref());
    for n in initial.iter().chain(started).chain(holders) {
        if seen.insert(n.as_str()) {
            names.push(n.clone());
        }
    }
    names
}

type Lives = (Vec<Vec<Life>>, Vec<(usize, u64, u64)>);

/// Who leads since when, and the terms that ended.
struct Terms {
    lead: Option<(usize, u64)>,
    ended: Vec<(usize, u64, u64)>,
}

impl Terms {
    fn end(&mut self, t: u64) {
        if let Some((l, from)) = self.lead.take() {
            self.ended.push((l, from, t));
        }
    }
}

/// Each member's processes (a crash or a stop ends one; a start of a running member ends it
/// as crashed and begins another) and who led when (an election ends the last leader's term,
/// as its crash, stop or resignation does).
fn lives(
    timeline: &[TimelineEvent],
    index: &BTreeMap<&str, usize>,
    initial: usize,
    leader0: Option<usize>,
    end: u64,
) -> Lives {
    let mut lives: Vec<Vec<Life>> = vec![Vec::new(); index.len()];
    let mut open: Vec<Option<u64>> = (0..index.len()).map(|i| (i < initial).then_some(0)).collect();
    let mut close = |m: usize, t: u64, how: Option<MemberState>, open: &mut Vec<Option<u64>>| {
        if let Some(from) = open[m].take() {
            lives[m].push(Life {
                from,
                to: t,
                end: how,
            });
        }
    };
    let mut terms = Terms {
        lead: leader0.filter(|&l| l < initial).map(|l| (l, 0)),
        ended: Vec::new(),
    };
    for e in timeline {
        let t = e.t_ms;
        let who = match &e.what {
            What::Crashed { member } | What::Stopped { member } | What::Started { member, .. } => member,
            What::LeaderResigned { member } | What::LeaderElected { member, .. } => member,
            _ => continue,
        };
        let Some(&m) = index.get(who.as_str()) else {
            continue;
        };
        let leads = terms.lead.is_some_and(|l| l.0 == m);
        match &e.what {
            What::Crashed { .. } => close(m, t, Some(MemberState::Crashed), &mut open),
            What::Stopped { .. } => close(m, t, Some(MemberState::Stopped), &mut open),
            What::Started { .. } => {
                close(m, t, Some(MemberState::Crashed), &mut open);
                open[m] = Some(t);
            }
            _ => {}
        }
        match &e.what {
            What::Crashed { .. } | What::Stopped { .. } | What::LeaderResigned { .. } if leads => {
                terms.end(t)
            }
            What::LeaderElected { .. } => {
                terms.end(t);
                terms.lead = Some((m, t));
            }
            _ => {}
        }
    }
    for m in 0..index.len() {
        close(m, end, None, &mut open);
    }
    terms.end(end);
    (lives, terms.ended)
}

/// A member's state at `t`: running (a process alive at `t`, or alive to the end when `t` is
/// the end), else how its last process before `t` ended, else not started.
fn member_state(lives: &[Life], t: u64, end: u64) -> MemberState {
    let mut last = None;
    for l in lives {
        if l.from <= t && (t < l.to || (t == end && l.to == end && l.end.is_none())) {
            return MemberState::Running;
        }
        if l.to <= t {
            last = Some(l);
        }
    }
    last.map_or(MemberState::NotStarted, |l| l.end.unwrap_or(MemberState::Running))
}
