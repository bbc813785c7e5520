//! The `Replay` handle: a recording (docs/recording-format.md) shown at any moment through the
//! core's live job, as the live page shows a followed job. Each moment's fleet is handed over
//! as a [`Planner`], so every view plans it as it plans any other.

use crate::js::{error, to_js};
use crate::planner::{scenario_error, snapshot_error, Planner};
use spate_planner_core::{
    live::{Recorded, MAX_RECORDING_BYTES},
    review::{incident_views, IncidentInputs, RecordedIncidents},
    Fleet, LiveEvent, Recording, Replay as CoreReplay, Revisions, Scenario,
};
use spate_planner_sim::CrashPrediction;
use wasm_bindgen::prelude::*;

/// `Replay.info()`: what the recording holds.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ReplayInfo"))]
pub(crate) struct Info<'a> {
    job: &'a str,
    source: &'a spate_planner_core::Source,
    segments: u32,
    moments: u32,
    start_ms: i64,
    end_ms: i64,
    first_revisions: String,
    last_revisions: String,
    warnings: &'a [String],
}

/// One moment: its time, where the job stands, its line and what the line holds.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ReplayMoment"))]
struct Moment {
    moment: u32,
    at_ms: i64,
    revisions: String,
    line: u32,
    #[cfg_attr(feature = "ts", ts(type = "\"state\" | \"change\" | \"status\""))]
    kind: &'static str,
}

/// `Replay.seek()`: what happened since the moment shown before, and where this one stands.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ReplayFrame"))]
pub(crate) struct FrameView<'a> {
    #[serde(flatten)]
    moment: Moment,
    rows: &'a [LiveEvent],
    /// The connection's statuses recorded since: (ms, status, message).
    statuses: Vec<(i64, &'a str, Option<&'a str>)>,
}

/// A stretch of moments that cannot be planned, for `Replay.outline()`.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ReplayRefused"))]
struct Refused<'a> {
    first: u32,
    last: u32,
    first_ms: i64,
    last_ms: i64,
    code: &'a str,
    message: String,
    bucket: Option<&'a str>,
    key: Option<&'a str>,
    path: Option<&'a str>,
}

/// `Replay.outline()`.
#[derive(serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "ReplayOutline"))]
pub(crate) struct OutlineView<'a> {
    steps: Vec<u32>,
    refused: Vec<Refused<'a>>,
}

/// A recording, and the job at the moment it was last moved to.
#[wasm_bindgen]
pub struct Replay {
    inner: CoreReplay,
    /// The fleet of the last frame, until [`Replay::take_planner`].
    fleet: Option<Fleet>,
    /// The recording's incidents as walked so far, with the settings they were observed with
    /// (the scenario's text and the attempt limit).
    incidents: Option<(String, Option<u32>, RecordedIncidents)>,
}

fn no_fleet() -> JsValue {
    error(
        "not_live",
        "no moment was sought since the last planner was taken",
        None,
    )
}

impl Replay {
    fn moment(&self, m: usize) -> Option<Moment> {
        let item = self.inner.item(m)?;
        let kind = match &item.what {
            Recorded::State { .. } => "state",
            Recorded::Change(_) => "change",
            Recorded::Status(_) => "status",
        };
        Some(Moment {
            moment: m as u32,
            at_ms: item.at_ms,
            revisions: item.revisions.to_string(),
            line: item.line as u32,
            kind,
        })
    }
}

#[wasm_bindgen]
impl Replay {
    /// Whether `bytes` begin as a recording (its header), not a snapshot.
    #[wasm_bindgen(js_name = isRecording)]
    pub fn is_recording(bytes: &[u8]) -> bool {
        Recording::sniff(bytes)
    }

    /// Reads a recording's bytes (UTF-8; one segment or several one after another). Throws an
    /// `Error` with `code` and `path` (`line N[.field]`), and `bucket` and `key` where one applies.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8]) -> Result<Replay, JsValue> {
        if bytes.len() > MAX_RECORDING_BYTES {
            let message = format!(
                "the recording is {} MiB; this planner reads at most {} MiB at once (open one segment)",
                bytes.len() >> 20,
                MAX_RECORDING_BYTES >> 20
            );
            return Err(error("too_large", &message, None));
        }
        let rec = Recording::parse_bytes(bytes).map_err(|e| snapshot_error(&e))?;
        Ok(Replay {
            inner: CoreReplay::new(rec),
            fleet: None,
            incidents: None,
        })
    }

    /// What the recording holds: job, source, segments, moments, first and last times and
    /// revisions, and its warnings (a last line cut short).
    #[wasm_bindgen(unchecked_return_type = "ReplayInfo")]
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let rec = self.inner.recording();
        let (first, last) = (rec.items.first(), rec.items.last());
        let revs = |i: Option<&spate_planner_core::live::RecordItem>| {
            i.map(|i| i.revisions).unwrap_or_default().to_string()
        };
        to_js(&Info {
            job: &rec.job,
            source: &rec.source,
            segments: rec.segments.len() as u32,
            moments: rec.items.len() as u32,
            start_ms: first.map_or(0, |i| i.at_ms),
            end_ms: last.map_or(0, |i| i.at_ms),
            first_revisions: revs(first),
            last_revisions: revs(last),
            warnings: &rec.warnings,
        })
    }

    /// At most `max` moments spread evenly over the recorded time (the chart's points).
    pub fn samples(&self, max: u32) -> Vec<u32> {
        self.inner
            .samples(max as usize)
            .into_iter()
            .map(|m| m as u32)
            .collect()
    }

    /// The moments worth stepping to, in order (the first that can be planned, each after a
    /// line that is news, the first after a stretch that cannot be planned, the last): lease
    /// renewals and rewrites the timeline does not tell are folded.
    pub fn steps(&self) -> Result<Vec<u32>, JsValue> {
        let steps = self.inner.news_moments().map_err(|e| snapshot_error(&e))?;
        Ok(steps.into_iter().map(|m| m as u32).collect())
    }

    /// One walk over the recording: the moments worth stepping to ([`Replay::steps`]) and the
    /// stretches of moments that cannot be planned (a value the leader would refuse: the first
    /// and last moment, their times, and the error naming the key).
    #[wasm_bindgen(unchecked_return_type = "ReplayOutline")]
    pub fn outline(&self) -> Result<JsValue, JsValue> {
        let o = self.inner.outline().map_err(|e| snapshot_error(&e))?;
        let at = |m: usize| self.inner.item(m).map_or(0, |i| i.at_ms);
        let refused: Vec<Refused> = o
            .refused
            .iter()
            .map(|s| Refused {
                first: s.first as u32,
                last: s.last as u32,
                first_ms: at(s.first),
                last_ms: at(s.last),
                code: s.error.code.as_str(),
                message: s.error.to_string(),
                bucket: s.error.bucket.as_deref(),
                key: s.error.key.as_deref(),
                path: s.error.path.as_deref(),
            })
            .collect();
        let steps: Vec<u32> = o.steps.into_iter().map(|m| m as u32).collect();
        to_js(&OutlineView { steps, refused })
    }

    /// The last moment received at or before `at_ms`.
    #[wasm_bindgen(js_name = atTime)]
    pub fn at_time(&self, at_ms: f64) -> Option<u32> {
        self.inner.at_time(at_ms as i64).map(|m| m as u32)
    }

    /// The first moment at which the job stands at `revisions` ("S-L").
    #[wasm_bindgen(js_name = atRevisions)]
    pub fn at_revisions(&self, revisions: &str) -> Option<u32> {
        let r: Revisions = revisions.parse().ok()?;
        self.inner.at_revisions(r).map(|m| m as u32)
    }

    /// The job at moment `m`, framed at its recorded time: what happened since the moment shown
    /// before (the timeline's rows, the statuses recorded), where it stands; its fleet is then
    /// [`Replay::take_planner`]'s. Throws when the job then holds a value the leader would
    /// refuse (naming the key), or `m` is past the last moment.
    #[wasm_bindgen(unchecked_return_type = "ReplayFrame")]
    pub fn seek(&mut self, m: u32) -> Result<JsValue, JsValue> {
        self.fleet = None;
        let f = self.inner.seek(m as usize).map_err(|e| snapshot_error(&e))?;
        let moment = self.moment(m as usize).ok_or_else(no_fleet)?;
        let statuses = f
            .statuses
            .iter()
            .map(|(t, s)| (*t, s.status.as_str(), s.message.as_deref()))
            .collect();
        let view = to_js(&FrameView {
            moment,
            rows: &f.events,
            statuses,
        });
        self.fleet = Some(f.fleet);
        view
    }

    /// The recording's incidents at moment `m`, newest first, written at the moment's recorded
    /// time: the live page's incidents as they stood then (docs/live-protocol.md, "Incidents"),
    /// observed with the settings of `scenario` (its changes are ignored) and `max_attempts`
    /// (`undefined`: Spate's default, 4). Other settings than the last call's observe the
    /// recording again from its start.
    #[wasm_bindgen(unchecked_return_type = "IncidentView[]")]
    pub fn incidents(
        &mut self,
        m: u32,
        scenario: &str,
        max_attempts: Option<u32>,
    ) -> Result<JsValue, JsValue> {
        let sc = Scenario::parse(scenario).map_err(|e| scenario_error(&e))?;
        let same = |(text, max, _): &(String, Option<u32>, RecordedIncidents)| {
            text == scenario && *max == max_attempts
        };
        if !self.incidents.as_ref().is_some_and(same) {
            let fresh = RecordedIncidents::new(&self.inner);
            self.incidents = Some((scenario.to_string(), max_attempts, fresh));
        }
        let Some((_, _, walked)) = self.incidents.as_mut() else {
            return Err(no_fleet());
        };
        let model = CrashPrediction::default();
        let inputs = IncidentInputs {
            scenario: &sc,
            max_attempts,
            recovery: Some(&model),
            baseline: None,
        };
        let at_ms = self.inner.item(m as usize).map_or(0, |i| i.at_ms);
        let log = walked.at(m as usize, &inputs).map_err(|e| snapshot_error(&e))?;
        to_js(&incident_views(log, at_ms))
    }

    /// The fleet of the last [`Replay::seek`], as a planner (once).
    #[wasm_bindgen(js_name = takePlanner)]
    pub fn take_planner(&mut self) -> Result<Planner, JsValue> {
        self.fleet.take().map(Planner::new).ok_or_else(no_fleet)
    }

    /// The job at moment `m` as a snapshot file taken then: what `spate-planner snapshot` would
    /// have written at those revisions (`spate-planner replay --at … -o`).
    #[wasm_bindgen(js_name = saveSnapshot)]
    pub fn save_snapshot(&mut self, m: u32) -> Result<String, JsValue> {
        self.inner.goto(m as usize).map_err(|e| snapshot_error(&e))?;
        let snap = self.inner.snapshot().ok_or_else(no_fleet)?;
        Ok(snap.to_json())
    }
}
