//! A recording replayed: the job as it stood after any of its lines (a *moment*), through the
//! same [`LiveJob`] that live mode keeps current: each change applied as it was received, a
//! full state read again where the server read one, each frame made at the moment's recorded
//! time. Moving forward applies the lines between the two moments, so the frame tells what
//! happened between them as live mode told it; moving back, or forward past a full state by
//! more than [`FAR`] lines, starts again from the last full state before the moment (each
//! segment begins with one), and the frame tells how the fleet differs from the one shown.

use super::change::Revisions;
use super::events::LiveEvent;
use super::job::LiveJob;
use super::presence::FleetChange;
use super::recording::{RecordItem, Recorded, RecordedStatus, Recording, StateReason};
use crate::codes::ErrorCode;
use crate::fleet::Fleet;
use crate::snapshot::{Snapshot, SnapshotError};
use std::sync::Arc;

/// A jump forward past a full state by more than this many lines starts from that state
/// instead of applying every line between.
pub const FAR: usize = 50_000;

/// The job at one moment: the fleet planned then and what happened since the moment shown
/// before (the frame's events, and the connection's statuses recorded in between).
#[derive(Clone, Debug)]
pub struct ReplayFrame {
    /// The moment: the index of its line among the recording's items.
    pub moment: usize,
    pub at_ms: i64,
    pub revisions: Revisions,
    pub fleet: Fleet,
    pub events: Vec<LiveEvent>,
    pub statuses: Vec<(i64, RecordedStatus)>,
    /// The membership and leadership changes since the moment framed before (none across a
    /// jump that started again from a full state).
    pub changes: Vec<FleetChange>,
}

/// Moments `first` to `last` (inclusive) cannot be planned: the job then holds a value the
/// leader would refuse (`error` names the first such key, at the line that made the stretch).
#[derive(Clone, Debug)]
pub struct RefusedSpan {
    pub first: usize,
    pub last: usize,
    pub error: SnapshotError,
}

/// What one walk over a recording finds ([`Replay::outline`]).
#[derive(Clone, Debug, Default)]
pub struct Outline {
    /// The moments worth stepping to, in order (none that cannot be planned).
    pub steps: Vec<usize>,
    /// The stretches of moments that cannot be planned, in order.
    pub refused: Vec<RefusedSpan>,
}

/// A recording and the job at the moment shown.
#[derive(Clone, Debug)]
pub struct Replay {
    /// Shared with the replay's [`Replay::twin`]s.
    rec: Arc<Recording>,
    job: Option<LiveJob>,
    /// The items applied to `job`: `..pos`.
    pos: usize,
    statuses: Vec<(i64, RecordedStatus)>,
    /// The moment the job stands at.
    shown: Option<usize>,
}

fn no_moment(m: usize, n: usize) -> SnapshotError {
    let msg = format!(
        "moment {m} is not in the recording (it has {n}: 0 to {})",
        n.saturating_sub(1)
    );
    SnapshotError::new(ErrorCode::InvalidField, msg).at_path("moment")
}

/// An error of the job at `line`.
fn at_line(e: SnapshotError, line: usize) -> SnapshotError {
    let message = match (&e.bucket, &e.key) {
        (Some(_), Some(_)) => format!("line {line}: {}", e.message),
        _ => e.message,
    };
    let mut out = SnapshotError::new(e.code, message);
    out.path = Some(match &e.path {
        Some(p) => format!("line {line}.{p}"),
        None => format!("line {line}"),
    });
    (out.bucket, out.key) = (e.bucket, e.key);
    out
}

impl Replay {
    pub fn new(rec: Recording) -> Replay {
        Replay::over(Arc::new(rec))
    }

    fn over(rec: Arc<Recording>) -> Replay {
        Replay {
            rec,
            job: None,
            pos: 0,
            statuses: Vec::new(),
            shown: None,
        }
    }

    pub fn recording(&self) -> &Recording {
        &self.rec
    }

    /// Another replay of the same recording (shared, not copied), at no moment yet.
    pub fn twin(&self) -> Replay {
        Replay::over(Arc::clone(&self.rec))
    }

    /// Whether the job holds membership or leadership changes no frame has told yet.
    pub fn has_fleet_changes(&self) -> bool {
        self.job.as_ref().is_some_and(LiveJob::has_fleet_changes)
    }

    /// How many moments there are: one after each line.
    pub fn moments(&self) -> usize {
        self.rec.items.len()
    }

    /// The line of moment `m`.
    pub fn item(&self, m: usize) -> Option<&RecordItem> {
        self.rec.items.get(m)
    }

    /// The last moment received at or before `at_ms` (the recorder's clock), if any.
    pub fn at_time(&self, at_ms: i64) -> Option<usize> {
        self.rec.items.iter().rposition(|i| i.at_ms <= at_ms)
    }

    /// The first moment at which the job stands at `r` (each bucket's revision), if any.
    pub fn at_revisions(&self, r: Revisions) -> Option<usize> {
        self.rec.items.iter().position(|i| i.revisions == r)
    }

    /// At most `max` moments spread evenly over the recorded time, for a chart of it: for each
    /// of `max` instants from the first line's time to the last's, the last moment received by
    /// then (each once, in order; the last moment always).
    pub fn samples(&self, max: usize) -> Vec<usize> {
        let items = &self.rec.items;
        let (Some(first), Some(last)) = (items.first(), items.last()) else {
            return Vec::new();
        };
        if items.len() <= max {
            return (0..items.len()).collect();
        }
        let span = (last.at_ms - first.at_ms).max(0) as i128;
        let steps = max.max(2) as i128 - 1;
        let mut out: Vec<usize> = (0..=steps)
            .filter_map(|k| self.at_time(first.at_ms + (span * k / steps) as i64))
            .collect();
        out.push(items.len() - 1);
        out.dedup();
        out
    }

    /// The moment the job stands at.
    pub fn shown(&self) -> Option<usize> {
        self.shown
    }

    /// The job at moment `m`, as a frame made at its recorded time. Refused when the job then
    /// holds a value the leader would refuse (the error names the key): the moment cannot be
    /// planned, as live mode could not plan it (its state is still the one [`Replay::snapshot`]
    /// writes).
    pub fn seek(&mut self, m: usize) -> Result<ReplayFrame, SnapshotError> {
        self.goto(m)?;
        let item = &self.rec.items[m];
        let (at_ms, revisions, line) = (item.at_ms, item.revisions, item.line);
        let job = self.job.as_mut().ok_or_else(|| no_moment(m, 0))?;
        let frame = job.frame(at_ms).map_err(|e| at_line(e, line))?;
        Ok(ReplayFrame {
            moment: m,
            at_ms,
            revisions,
            fleet: frame.fleet,
            events: frame.events,
            statuses: std::mem::take(&mut self.statuses),
            changes: frame.changes,
        })
    }

    /// Moves the job to moment `m` (without a frame: what [`Replay::snapshot`] writes).
    pub fn goto(&mut self, m: usize) -> Result<(), SnapshotError> {
        if m >= self.moments() {
            return Err(no_moment(m, self.moments()));
        }
        let end = m + 1;
        let base = self.rec.items[..end]
            .iter()
            .rposition(|i| matches!(i.what, Recorded::State { .. }))
            .unwrap_or(0);
        let far = self.pos <= base && base - self.pos > FAR;
        if self.job.is_none() || self.pos > end || far {
            self.restart(base)?;
        }
        while self.pos < end {
            self.step()?;
        }
        self.shown = Some(m);
        Ok(())
    }

    /// The job from the full state of item `base`, continuing the frames of the one before.
    fn restart(&mut self, base: usize) -> Result<(), SnapshotError> {
        let item = &self.rec.items[base];
        let Recorded::State { snapshot, .. } = &item.what else {
            return Err(no_moment(base, self.moments()));
        };
        let mut next =
            LiveJob::from_parsed_keeping_refused(snapshot.clone()).map_err(|e| at_line(e, item.line))?;
        if let Some(before) = &self.job {
            next.continue_from(before);
        }
        self.job = Some(next);
        self.pos = base + 1;
        self.statuses.clear();
        Ok(())
    }

    /// Applies the next line: a change as it was received, a status kept for the next frame, a
    /// full state read again (a new segment's state is the same one: it is only read when the
    /// revisions differ). True when the line is news: a change that is
    /// ([`LiveJob::apply_change`]), a connection status, a state read again.
    fn step(&mut self) -> Result<bool, SnapshotError> {
        let item = &self.rec.items[self.pos];
        let job = self.job.as_mut().ok_or_else(|| no_moment(self.pos, 0))?;
        let news = match &item.what {
            Recorded::Change(c) => job.apply_change(c).map_err(|e| at_line(e, item.line))?,
            Recorded::Status(s) => {
                self.statuses.push((item.at_ms, s.clone()));
                true
            }
            Recorded::State { reason, snapshot } => {
                let same = *reason == StateReason::Rotate && job.revisions() == item.revisions;
                if !same {
                    let mut next = LiveJob::from_parsed_keeping_refused(snapshot.clone())
                        .map_err(|e| at_line(e, item.line))?;
                    next.resync_from(job);
                    *job = next;
                }
                !same
            }
        };
        self.pos += 1;
        Ok(news)
    }

    /// The moments worth stepping to, in order: the first that can be planned, each after a
    /// line that is news (a membership or leadership change, a claim, a split completed or
    /// quarantined, a publish, a connection status, a state read again), the first after each
    /// stretch that cannot be planned, and the last. Lease renewals and progress writes that
    /// move only a watermark are folded into the next moment that is news; a moment that cannot
    /// be planned is none ([`Replay::outline`]).
    pub fn news_moments(&self) -> Result<Vec<usize>, SnapshotError> {
        Ok(self.outline()?.steps)
    }

    /// One walk over the recording: the moments worth stepping to ([`Replay::news_moments`]) and
    /// the stretches of moments that cannot be planned (the job then holds a value the leader
    /// would refuse: live mode frames none of them, and `watch` prints none).
    pub fn outline(&self) -> Result<Outline, SnapshotError> {
        let n = self.moments();
        let mut out = Outline::default();
        if n == 0 {
            return Ok(out);
        }
        let mut walk = self.twin();
        walk.restart(0)?;
        let (mut m, mut news) = (0, true);
        loop {
            let refusal = walk.job.as_ref().and_then(LiveJob::refusal);
            let after = out.refused.last().is_some_and(|s| s.last + 1 == m);
            match refusal {
                Some(_) if after => {
                    if let Some(s) = out.refused.last_mut() {
                        s.last = m;
                    }
                }
                Some(e) => out.refused.push(RefusedSpan {
                    first: m,
                    last: m,
                    error: at_line(e.clone(), self.rec.items[m].line),
                }),
                None if news || after || out.steps.is_empty() || m + 1 == n => out.steps.push(m),
                None => {}
            }
            if walk.pos >= n {
                return Ok(out);
            }
            m = walk.pos;
            news = walk.step()?;
        }
    }

    /// The job at the moment it stands at, as a snapshot file takes it (what `spate-planner
    /// snapshot` would have written at those revisions, taken at the moment's time), or `None`
    /// before the first [`Replay::goto`].
    pub fn snapshot(&self) -> Option<Snapshot> {
        let m = self.shown?;
        let item = &self.rec.items[m];
        let mut snap = self.job.as_ref()?.snapshot(item.at_ms);
        snap.source.note = Some(format!(
            "spate-planner {} replay of a recording (line {}), state revision {}, lease revision {}",
            env!("CARGO_PKG_VERSION"),
            item.line,
            item.revisions.state,
            item.revisions.lease
        ));
        Some(snap)
    }
}
