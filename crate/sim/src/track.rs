//! The recorder: the timeline, each split's phase intervals, the counters, and the figures
//! computed from them at the end.

use super::options::ORIGIN;
use super::outcome::{Figures, Interval, NotRecovered, Phase, Stuck, TimelineEvent, What};
use std::collections::{BTreeMap, BTreeSet};

/// A split's phase now and its closed intervals (times relative to t = 0).
#[derive(Clone, Debug)]
pub(crate) struct Track {
    phase: Phase,
    member: Option<String>,
    since: u64,
    intervals: Vec<Interval>,
    /// The last process that held it (for counting moves).
    pub last_holder: Option<String>,
    pub weight: u64,
}

#[derive(Default)]
pub(crate) struct Recorder {
    pub timeline: Vec<TimelineEvent>,
    pub tracks: BTreeMap<String, Track>,
    pub figures: Figures,
    /// The first scripted event's time and the splits running just before it.
    first_event: Option<(u64, BTreeSet<String>)>,
    /// The splits the events took (running on a member as it crashed or stopped, or failed).
    taken: BTreeSet<String>,
    gap_since: Option<u64>,
    pub job_finished: bool,
    /// The splits the claim race parked.
    pub parked: BTreeSet<String>,
}

fn rel(t: u64) -> u64 {
    t.saturating_sub(ORIGIN)
}

impl Recorder {
    pub(crate) fn log(&mut self, t: u64, what: What) {
        self.timeline.push(TimelineEvent { t_ms: rel(t), what });
    }

    /// A split enters the simulation (at t = 0, or when a planner run lands it).
    pub(crate) fn add_split(&mut self, id: &str, t: u64, phase: Phase, holder: Option<&str>, weight: u64) {
        self.tracks.insert(
            id.to_string(),
            Track {
                phase,
                member: holder.map(str::to_string),
                since: rel(t),
                intervals: Vec::new(),
                last_holder: holder.map(str::to_string),
                weight,
            },
        );
    }

    /// The split's phase from `t` on. Intervals of zero length are dropped and equal neighbours
    /// merged, so a hand-off within one instant leaves no idle interval.
    pub(crate) fn set_phase(&mut self, id: &str, t: u64, phase: Phase, member: Option<&str>) {
        let t = rel(t);
        let Some(tr) = self.tracks.get_mut(id) else {
            return;
        };
        if tr.phase == phase && tr.member.as_deref() == member {
            return;
        }
        if t > tr.since {
            tr.intervals.push(Interval {
                from_ms: tr.since,
                to_ms: t,
                phase: tr.phase,
                member: tr.member.take(),
            });
        }
        tr.phase = phase;
        tr.member = member.map(str::to_string);
        tr.since = t;
        if let Some(last) = tr.intervals.last() {
            if last.to_ms == t && last.phase == phase && last.member.as_deref() == member {
                tr.since = last.from_ms;
                tr.intervals.pop();
            }
        }
        if phase.runs() {
            tr.last_holder = member.map(str::to_string);
        }
    }

    /// Called before each scripted event is handled; the first one notes what runs, what is
    /// idle and what is quarantined just before it.
    pub(crate) fn first_event(&mut self, t: u64) {
        if self.first_event.is_none() {
            let running = self
                .tracks
                .iter()
                .filter(|(_, tr)| tr.phase.runs())
                .map(|(id, _)| id.clone())
                .collect();
            let count = |p: Phase| self.tracks.values().filter(|tr| tr.phase == p).count() as u64;
            self.figures.idle_before = count(Phase::Idle);
            self.figures.quarantined_before = count(Phase::Quarantined);
            self.first_event = Some((rel(t), running));
        }
    }

    /// The event about to be handled takes the splits running (or draining) on `member`.
    pub(crate) fn take_member(&mut self, member: &str) {
        let on = |tr: &Track| tr.phase.runs() && tr.member.as_deref() == Some(member);
        let ids: Vec<String> = self
            .tracks
            .iter()
            .filter(|(_, tr)| on(tr))
            .map(|(id, _)| id.clone())
            .collect();
        self.taken.extend(ids);
    }

    /// The event about to be handled takes split `id` (a failure).
    pub(crate) fn take_split(&mut self, id: &str) {
        self.taken.insert(id.to_string());
    }

    /// Whether someone leads changed.
    pub(crate) fn leadership(&mut self, t: u64, led: bool) {
        let t = rel(t);
        match (led, self.gap_since) {
            (true, Some(since)) => {
                let gap = t - since;
                self.figures.leadership_gap_ms += gap;
                self.figures.longest_leadership_gap_ms = self.figures.longest_leadership_gap_ms.max(gap);
                self.gap_since = None;
            }
            (false, None) => self.gap_since = Some(t),
            _ => {}
        }
    }

    /// Closes everything at `end` and computes the figures. `not_recovered` lists the taken
    /// splits that do not run at the end with a placeholder reason (the caller reads the real
    /// one from the final state).
    pub(crate) fn finish(
        mut self,
        end: u64,
    ) -> (Vec<TimelineEvent>, BTreeMap<String, Vec<Interval>>, Figures) {
        let end = rel(end);
        self.leadership(end + ORIGIN, true);
        let mut f = std::mem::take(&mut self.figures);
        f.end_ms = end;
        let mut out = BTreeMap::new();
        for (id, mut tr) in std::mem::take(&mut self.tracks) {
            if end > tr.since {
                tr.intervals.push(Interval {
                    from_ms: tr.since,
                    to_ms: end,
                    phase: tr.phase,
                    member: tr.member.take(),
                });
            }
            for i in tr.intervals.iter().filter(|i| i.phase == Phase::Idle) {
                let len = i.to_ms - i.from_ms;
                f.idle_split_ms = f.idle_split_ms.saturating_add(len);
                f.idle_weighted = f.idle_weighted.saturating_add(len as u128 * tr.weight as u128);
            }
            out.insert(id, tr.intervals);
        }
        self.recovery(&mut f, &out, end);
        (self.timeline, out, f)
    }

    /// `recovery_ms`: when every split the events took last started running (or completed) for
    /// good, counted from the first event; the taken splits that never did, and the others
    /// that ran before the first event and do not run at the end.
    fn recovery(&self, f: &mut Figures, splits: &BTreeMap<String, Vec<Interval>>, end: u64) {
        let Some((t0, running)) = self.first_event.as_ref() else {
            return;
        };
        let mut latest = *t0;
        for id in &self.taken {
            match splits.get(id).and_then(|iv| running_since(iv, end)) {
                Some(from) => latest = latest.max(from),
                None => f.not_recovered.push(NotRecovered {
                    split: id.clone(),
                    reason: Stuck::Pending,
                    member: None,
                    words: String::new(),
                }),
            }
        }
        f.splits_taken = self.taken.len() as u64;
        f.others_not_running = running
            .iter()
            .filter(|id| !self.taken.contains(*id))
            .filter(|id| splits.get(*id).and_then(|iv| running_since(iv, end)).is_none())
            .count() as u64;
        f.recovery_ms = f.not_recovered.is_empty().then(|| latest - t0);
    }
}

/// When a split's last stretch of running (or draining, or completed) began, if that stretch
/// lasts to `end`.
fn running_since(iv: &[Interval], end: u64) -> Option<u64> {
    let good = |i: &Interval| i.phase.runs() || i.phase == Phase::Completed;
    let last = iv.last()?;
    if !good(last) || last.to_ms < end {
        return None;
    }
    let mut from = last.from_ms;
    for i in iv.iter().rev().skip(1) {
        if good(i) && i.to_ms == from {
            from = i.from_ms;
        } else {
            break;
        }
    }
    Some(from)
}
