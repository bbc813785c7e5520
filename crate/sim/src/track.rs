//! The recorder: the timeline, each split's phase intervals, the counters, and the figures
//! computed from them at the end.

use super::options::ORIGIN;
use super::outcome::{Figures, Interval, Phase, TimelineEvent, What};
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
    gap_since: Option<u64>,
    pub job_finished: bool,
}

fn rel(t: u64) -> u64 {
    t.saturating_sub(ORIGIN)
}

impl Recorder {
    pub fn log(&mut self, t: u64, what: What) {
        self.timeline.push(TimelineEvent { t_ms: rel(t), what });
    }

    /// A split enters the simulation (at t = 0, or when a planner run lands it).
    pub fn add_split(&mut self, id: &str, t: u64, phase: Phase, holder: Option<&str>, weight: u64) {
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
    pub fn set_phase(&mut self, id: &str, t: u64, phase: Phase, member: Option<&str>) {
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

    /// Called before the first scripted event is handled.
    pub fn first_event(&mut self, t: u64) {
        if self.first_event.is_none() {
            let running = self
                .tracks
                .iter()
                .filter(|(_, tr)| tr.phase.runs())
                .map(|(id, _)| id.clone())
                .collect();
            self.first_event = Some((rel(t), running));
        }
    }

    /// Whether someone leads changed.
    pub fn leadership(&mut self, t: u64, led: bool) {
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

    /// Closes everything at `end` and computes the figures.
    pub fn finish(mut self, end: u64) -> (Vec<TimelineEvent>, BTreeMap<String, Vec<Interval>>, Figures) {
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
        f.recovery_ms = self.recovery(&out, end);
        (self.timeline, out, f)
    }

    /// `recovery_ms`: when every split running before the first event last started running (or
    /// completed) for good, counted from that event.
    fn recovery(&self, splits: &BTreeMap<String, Vec<Interval>>, end: u64) -> Option<u64> {
        let (t0, running) = self.first_event.as_ref()?;
        let mut latest = *t0;
        for id in running {
            let iv = splits.get(id)?;
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
            latest = latest.max(from);
        }
        Some(latest - t0)
    }
}
