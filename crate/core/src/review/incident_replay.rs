//! The incidents of a recording: the same [`IncidentLog`] a followed job keeps, fed by the
//! recording's moments in order as the live page feeds it frames (docs/live-protocol.md,
//! "Incidents"). Lines recorded at the same instant (one batch received) are framed together,
//! after the last of them: when the job holds membership or leadership changes not told yet,
//! and, while an incident is open, at most every [`FRAME_EVERY_MS`] of recorded time (the live
//! page's frame rate), so the verdicts come as the page saw them live. The log as it
//! stood after each framed moment is kept, so moving back in the recording shows the log of
//! then without walking it again.

use super::incident::{IncidentInputs, IncidentLog};
use crate::live::Replay;
use crate::snapshot::SnapshotError;

/// While an incident is open, a moment is framed at most this often (recorded time, ms): the
/// live page's frames come at most every 100 ms.
pub(super) const FRAME_EVERY_MS: i64 = 100;

/// A recording's incidents, walked as far as they were asked for.
#[derive(Clone, Debug)]
pub struct RecordedIncidents {
    /// Its own replay of the recording (the one shown moves elsewhere).
    walk: Replay,
    /// Moments walked: `..walked`.
    walked: usize,
    /// The recorded time of the last framed moment.
    framed_ms: Option<i64>,
    /// The log after each framed moment at which it changed, in moment order.
    logs: Vec<(usize, IncidentLog)>,
    log: IncidentLog,
}

impl RecordedIncidents {
    /// The incidents of `replay`'s recording, none walked yet.
    pub fn new(replay: &Replay) -> RecordedIncidents {
        RecordedIncidents {
            walk: replay.twin(),
            walked: 0,
            framed_ms: None,
            logs: Vec::new(),
            log: IncidentLog::new(),
        }
    }

    /// The log as it stood at moment `m` (walking the recording up to it first, with `inputs`:
    /// the same inputs for every call). A moment whose job holds a value the leader would refuse
    /// is not framed (its changes wait for the next moment that can be, as live mode's do);
    /// only a moment past the recording's end is refused.
    pub fn at(&mut self, m: usize, inputs: &IncidentInputs) -> Result<&IncidentLog, SnapshotError> {
        if m >= self.walk.moments() {
            self.walk.goto(m)?;
        }
        while self.walked <= m {
            self.step(inputs)?;
        }
        let i = self.logs.partition_point(|(at, _)| *at <= m);
        Ok(match i {
            0 => &EMPTY,
            _ => &self.logs[i - 1].1,
        })
    }

    /// Walks one moment, framing it when it must be.
    fn step(&mut self, inputs: &IncidentInputs) -> Result<(), SnapshotError> {
        let m = self.walked;
        self.walk.goto(m)?;
        self.walked += 1;
        let at_ms = self.walk.item(m).map_or(0, |i| i.at_ms);
        // Lines received together are framed together, after the last of them.
        let batch_ends = self.walk.item(m + 1).is_none_or(|next| next.at_ms != at_ms);
        let due = self
            .framed_ms
            .is_none_or(|t| at_ms.saturating_sub(t) >= FRAME_EVERY_MS);
        let open = self.log.incidents().iter().any(|i| !i.closed());
        if !batch_ends || !(self.walk.has_fleet_changes() || open && due) {
            return Ok(());
        }
        let Ok(frame) = self.walk.seek(m) else {
            return Ok(());
        };
        self.framed_ms = Some(at_ms);
        let before = self.log.incidents().to_vec();
        self.log.observe(&frame.changes, &frame.fleet, inputs);
        if self.log.incidents() != before.as_slice() {
            self.logs.push((m, self.log.clone()));
        }
        Ok(())
    }
}

static EMPTY: IncidentLog = IncidentLog::EMPTY;
