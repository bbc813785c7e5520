//! The `Planner` handle: a loaded snapshot, planned under what-if scenarios.
//!
//! Every method takes the scenario as its JSON text (docs/scenario-format.md; "" for none), so
//! the page keeps one piece of state (the scenario, in its URL) and the handle keeps none that a
//! person could lose. Each method is one call into the core's pipeline and one conversion; the
//! two most recent analyses are cached, so the what-if and its baseline are not planned again.

use crate::{error, to_js};
use spate_planner_core::{
    analyse, claims_view, converge, demo_snapshot, diff, find_splits, fleet_info, next_claims, plan_document,
    plan_view, review, sweep, Analysis, AssignmentSource, Axis, CrashModel, DemoParams, Fleet, LiveEvent,
    LiveJob, ReviewInputs, Scenario, ScenarioError, Snapshot, SnapshotError, SweepError,
};
use spate_planner_sim::{simulate, CrashScript, Options, Script, SimError, Start};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The largest snapshot accepted, in bytes (parsing needs several times this in memory).
pub use spate_planner_core::MAX_SNAPSHOT_BYTES;

fn snapshot_error(e: &SnapshotError) -> JsValue {
    let err = error(e.code.as_str(), &e.to_string(), e.path.as_deref());
    for (k, v) in [("bucket", &e.bucket), ("key", &e.key)] {
        if let Some(v) = v {
            let _ = js_sys::Reflect::set(&err, &k.into(), &v.into());
        }
    }
    err
}

fn scenario_error(e: &ScenarioError) -> JsValue {
    error(e.code.as_str(), &e.to_string(), Some(&e.path))
}

fn sim_error(e: &SimError) -> JsValue {
    error(e.code.as_str(), &e.to_string(), Some(&e.path))
}

fn sweep_error(e: &SweepError) -> JsValue {
    match e {
        SweepError::Scenario(e) => scenario_error(e),
        SweepError::Simulation { error: s, .. } => error(s.code.as_str(), &e.to_string(), Some(&s.path)),
        SweepError::TooManySteps => error(e.code().as_str(), &e.to_string(), None),
    }
}

fn parse_axis(axis: &str, cap: u32) -> Result<Axis, JsValue> {
    match axis {
        "add_members" => Ok(Axis::AddMembers {
            cap: (cap > 0).then_some(cap),
        }),
        "default_cap" => Ok(Axis::DefaultCap),
        "member_cap" => Ok(Axis::MemberCap),
        _ => Err(error(
            "invalid_axis",
            &format!("axis {axis:?} is not add_members, default_cap or member_cap"),
            Some("axis"),
        )),
    }
}

/// Grows the module's memory at once to about what reading a snapshot of `input` bytes takes
/// (about three times its size), and hands it back to the allocator. Each `memory.grow` costs
/// a JS engine about half a millisecond, and an allocator grows memory only by the little it
/// needs at each step: thousands of grows, seconds, for a 60 MB snapshot. Best effort: when
/// the memory cannot grow that far, reading goes on and grows as it needs.
fn reserve_for(input: usize) {
    let mut room: Vec<u8> = Vec::new();
    if room.try_reserve_exact(input.saturating_mul(3)).is_ok() {
        std::hint::black_box(&room);
    }
}

fn too_large(n: usize) -> JsValue {
    let message = format!(
        "the snapshot is {} MiB; this planner accepts at most {} MiB in the browser (use spate-planner plan on the command line)",
        n >> 20,
        MAX_SNAPSHOT_BYTES >> 20
    );
    error("too_large", &message, None)
}

/// [`Planner::next_frame`]: what happened since the last frame, and where it stands.
#[derive(serde::Serialize)]
struct FrameView<'a> {
    rows: &'a [LiveEvent],
    revisions: String,
}

fn not_live() -> JsValue {
    error("not_live", "this planner holds a snapshot, not a live job", None)
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../types.d.ts");

/// A loaded snapshot (or a live job) and the plans made of it.
#[wasm_bindgen]
pub struct Planner {
    fleet: Fleet,
    /// The two most recent analyses by scenario text, most recent first.
    cache: RefCell<Vec<(String, Rc<Analysis>)>>,
    /// For a live job: its state, kept current by [`Planner::apply_changes`].
    live: Option<LiveJob>,
}

impl Planner {
    fn new(fleet: Fleet) -> Planner {
        Planner {
            fleet,
            cache: RefCell::new(Vec::new()),
            live: None,
        }
    }

    fn review_with(
        &self,
        scenario: &str,
        axis: &str,
        range: std::ops::RangeInclusive<u32>,
        cap: u32,
        before: Option<&Planner>,
    ) -> Result<String, JsValue> {
        let a = self.analysis(scenario)?;
        let steps = match axis {
            "" => None,
            name => {
                let axis = parse_axis(name, cap)?;
                let steps =
                    sweep(&self.fleet, &a.scenario, axis, range, None).map_err(|e| sweep_error(&e))?;
                Some((axis, steps))
            }
        };
        let d = match before {
            Some(b) => Some(diff(&b.fleet, &self.fleet).map_err(|e| scenario_error(&e))?),
            None => None,
        };
        let r = review(&ReviewInputs {
            fleet: &self.fleet,
            analysis: &a,
            sweep: steps.as_ref().map(|(x, s)| (*x, s.as_slice())),
            diff: d.as_ref(),
            version: env!("CARGO_PKG_VERSION"),
        });
        Ok(r.inlined())
    }

    /// The analysis of `scenario` (its JSON text), from the cache when it is there.
    fn analysis(&self, scenario: &str) -> Result<Rc<Analysis>, JsValue> {
        let mut cache = self.cache.borrow_mut();
        if let Some(i) = cache.iter().position(|(text, _)| text == scenario) {
            let hit = cache.remove(i);
            cache.insert(0, hit);
        } else {
            let sc = Scenario::parse(scenario).map_err(|e| scenario_error(&e))?;
            let a = analyse(&self.fleet, &sc).map_err(|e| scenario_error(&e))?;
            cache.insert(0, (scenario.to_string(), Rc::new(a)));
            cache.truncate(2);
        }
        Ok(Rc::clone(&cache[0].1))
    }
}

#[wasm_bindgen]
impl Planner {
    /// Loads a snapshot file's text. Throws an `Error` with `code`, and `bucket`, `key` or
    /// `path` where one applies.
    #[wasm_bindgen(js_name = fromText)]
    pub fn from_text(text: &str) -> Result<Planner, JsValue> {
        if text.len() > MAX_SNAPSHOT_BYTES {
            return Err(too_large(text.len()));
        }
        reserve_for(text.len());
        Fleet::load_text(text)
            .map(Planner::new)
            .map_err(|e| snapshot_error(&e))
    }

    /// Loads a snapshot file's bytes (must be UTF-8). `now_ms`, when given, stands for the
    /// file's `taken_at_ms` (a live job's first state, read as of now).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8], now_ms: Option<f64>) -> Result<Planner, JsValue> {
        if bytes.len() > MAX_SNAPSHOT_BYTES {
            return Err(too_large(bytes.len()));
        }
        reserve_for(bytes.len());
        let mut snap = Snapshot::parse_bytes(bytes).map_err(|e| snapshot_error(&e))?;
        if let Some(now) = now_ms {
            snap.taken_at_ms = now as i64;
        }
        Fleet::from_snapshot(&snap)
            .map(Planner::new)
            .map_err(|e| snapshot_error(&e))
    }

    /// The built-in demo fleet (`spate-planner demo`): at most 1,000,000 splits and 100,000 members.
    pub fn demo(splits: u32, members: u32, seed: u32) -> Result<Planner, JsValue> {
        // Bounded, so that an embedding page's attribute cannot exhaust the browser's memory.
        let snap = demo_snapshot(&DemoParams {
            splits: splits.min(1_000_000) as usize,
            members: members.clamp(1, 100_000) as usize,
            seed: seed as u64,
            ..DemoParams::default()
        })
        .map_err(|e| snapshot_error(&e))?;
        Fleet::from_snapshot(&snap)
            .map(Planner::new)
            .map_err(|e| snapshot_error(&e))
    }

    /// A live job from a full state (a snapshot file's text: `/api/snapshot`, or the live
    /// stream's `snapshot` event); lease time left counts from `now_ms`.
    #[wasm_bindgen(js_name = fromLive)]
    pub fn from_live(text: &str, now_ms: f64) -> Result<Planner, JsValue> {
        if text.len() > MAX_SNAPSHOT_BYTES {
            return Err(too_large(text.len()));
        }
        reserve_for(text.len());
        let snap = Snapshot::parse(text).map_err(|e| snapshot_error(&e))?;
        let mut job = LiveJob::from_parsed(snap).map_err(|e| snapshot_error(&e))?;
        let frame = job.frame(now_ms as i64).map_err(|e| snapshot_error(&e))?;
        let mut p = Planner::new(frame.fleet);
        p.live = Some(job);
        Ok(p)
    }

    /// Applies one of the live stream's `change` events (its data) to the live job, as it
    /// arrives: only the changed key is read. The fleet planned stays the last frame's until
    /// [`Planner::next_frame`]. Throws when the change cannot be read or goes back (its
    /// revision is not above its bucket's): the job must then be read afresh.
    #[wasm_bindgen(js_name = applyChange)]
    pub fn apply_change(&mut self, data: &str) -> Result<(), JsValue> {
        let job = self.live.as_mut().ok_or_else(not_live)?;
        job.apply(data).map_err(|e| snapshot_error(&e))
    }

    /// The next frame: the live job's fleet, joined again only where the changes touched it,
    /// becomes the one planned, and the answer says what happened since the last frame (the
    /// timeline's rows) and the revisions it stands at. Throws when the state holds a value the
    /// leader would refuse (the fleet is then the last one that could be read, the error names
    /// the key, and the rows wait for the frame that shows them).
    #[wasm_bindgen(js_name = nextFrame, unchecked_return_type = "LiveFrame")]
    pub fn next_frame(&mut self, now_ms: f64) -> Result<JsValue, JsValue> {
        let job = self.live.as_mut().ok_or_else(not_live)?;
        if let Some(e) = job.refusal() {
            return Err(snapshot_error(e));
        }
        // The job updates the splits it shares with this fleet in place once nothing else holds them.
        self.cache.borrow_mut().clear();
        self.fleet.splits = Default::default();
        self.fleet.info = Default::default();
        self.fleet.published = Default::default();
        let frame = job.frame(now_ms as i64).map_err(|e| snapshot_error(&e))?;
        self.fleet = frame.fleet;
        to_js(&FrameView {
            rows: &frame.events,
            revisions: job.shown_revisions().to_string(),
        })
    }

    /// This live job's full state replaces `previous`'s (the whole state read again): its next
    /// frame tells what changed from the fleet `previous` showed, and that the state was read.
    #[wasm_bindgen(js_name = resyncFrom)]
    pub fn resync_from(&mut self, previous: &Planner) -> Result<(), JsValue> {
        let (job, before) = (self.live.as_mut(), previous.live.as_ref());
        let (job, before) = job.zip(before).ok_or_else(not_live)?;
        job.resync_from(before);
        Ok(())
    }

    /// The live job's position: `"S-L"`, the highest revision applied in each bucket.
    pub fn revisions(&self) -> Option<String> {
        self.live.as_ref().map(|j| j.revisions().to_string())
    }

    /// The state the last frame showed, as a snapshot file taken at `now_ms`: what
    /// `spate-planner snapshot` writes at those revisions (same entries, same bytes).
    #[wasm_bindgen(js_name = saveSnapshot)]
    pub fn save_snapshot(&self, now_ms: f64) -> Result<String, JsValue> {
        let job = self.live.as_ref().ok_or_else(not_live)?;
        Ok(job.shown_snapshot(now_ms as i64).to_json())
    }

    /// The largest snapshot this module accepts, in bytes.
    #[wasm_bindgen(js_name = maxSnapshotBytes)]
    pub fn max_snapshot_bytes() -> f64 {
        MAX_SNAPSHOT_BYTES as f64
    }

    /// What the snapshot holds: identity, the leader's view as the store shows it, members,
    /// warnings.
    #[wasm_bindgen(unchecked_return_type = "FleetInfo")]
    pub fn info(&self) -> Result<JsValue, JsValue> {
        to_js(&fleet_info(&self.fleet))
    }

    /// The plan under a scenario: the plan document of `spate-planner plan --json` without its
    /// `assignment`.
    #[wasm_bindgen(unchecked_return_type = "PlanView")]
    pub fn plan(&self, scenario: &str) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        let view = plan_view(&self.fleet, &a);
        to_js(&view)
    }

    /// The plan as the JSON text `spate-planner plan --json` prints (the same bytes).
    #[wasm_bindgen(js_name = planJson)]
    pub fn plan_json(&self, scenario: &str) -> Result<String, JsValue> {
        let a = self.analysis(scenario)?;
        plan_document(&self.fleet, &a).map_err(|e| error("internal", &e.to_string(), None))
    }

    /// Each live member's next reconcile (or `instance`'s): the document of
    /// `spate-planner claims --json`. `after_plan`: act on the planned assignment instead of the
    /// published records.
    #[wasm_bindgen(unchecked_return_type = "ClaimsDocument")]
    pub fn claims(
        &self,
        scenario: &str,
        instance: Option<String>,
        after_plan: bool,
        max_attempts: u32,
    ) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        let source = if after_plan {
            AssignmentSource::Plan
        } else {
            AssignmentSource::Published
        };
        let next = next_claims(&self.fleet, &a, instance.as_deref(), source, max_attempts)
            .map_err(|e| scenario_error(&e))?;
        let view = claims_view(&self.fleet, &a, &next, source, max_attempts);
        to_js(&view)
    }

    /// Splits whose id contains `query`, or whose owner is `query`; at most `limit`, in id order.
    #[wasm_bindgen(js_name = findSplits, unchecked_return_type = "SplitLine[]")]
    pub fn find_splits(&self, scenario: &str, query: &str, limit: u32) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        to_js(&find_splits(&self.fleet, &a, query, limit as usize))
    }

    /// A sweep on top of `scenario`: `axis` is `add_members` (each with `cap`, 0 for the default
    /// cap), `default_cap` or `member_cap`, over `from..=to` (at most 1024 steps). With `crash`
    /// (a script's text; "" for none), each step also simulates a crash of its heaviest member
    /// under that script's configuration (its events are not used).
    #[wasm_bindgen(unchecked_return_type = "SweepStep[]")]
    pub fn sweep(
        &self,
        scenario: &str,
        axis: &str,
        from: u32,
        to: u32,
        cap: u32,
        crash: &str,
    ) -> Result<JsValue, JsValue> {
        let axis = parse_axis(axis, cap)?;
        let sc = Scenario::parse(scenario).map_err(|e| scenario_error(&e))?;
        let script = match crash {
            "" => None,
            text => Some(Script::parse(text).map_err(|e| sim_error(&e))?),
        };
        let model = script.as_ref().map(CrashScript);
        let crash = model.as_ref().map(|m| m as &dyn CrashModel);
        let steps = sweep(&self.fleet, &sc, axis, from..=to, crash).map_err(|e| sweep_error(&e))?;
        to_js(&steps)
    }

    /// This snapshot compared with an earlier one (`before`), both as their stores show them.
    #[wasm_bindgen(unchecked_return_type = "Diff")]
    pub fn compare(&self, before: &Planner) -> Result<JsValue, JsValue> {
        let d = diff(&before.fleet, &self.fleet).map_err(|e| scenario_error(&e))?;
        to_js(&d)
    }

    /// The review report under `scenario` as one self-contained Markdown text (SVG charts
    /// inlined), with a sweep when `axis` is not "" (as in [`Planner::sweep`]).
    #[wasm_bindgen(js_name = reviewReport)]
    pub fn review_report(
        &self,
        scenario: &str,
        axis: &str,
        from: u32,
        to: u32,
        cap: u32,
    ) -> Result<String, JsValue> {
        self.review_with(scenario, axis, from..=to, cap, None)
    }

    /// [`Planner::review_report`] with a comparison against an earlier snapshot, `before`.
    #[wasm_bindgen(js_name = reviewReportComparedWith)]
    pub fn review_report_compared_with(
        &self,
        scenario: &str,
        axis: &str,
        from: u32,
        to: u32,
        cap: u32,
        before: &Planner,
    ) -> Result<String, JsValue> {
        self.review_with(scenario, axis, from..=to, cap, Some(before))
    }

    /// A timing simulation of this fleet (docs/simulator.md) under a script's text
    /// (docs/script-format.md): the JSON document `spate-planner simulate --json` prints (times
    /// in ms are numbers; weights are decimal strings).
    pub fn simulate(&self, script: &str) -> Result<String, JsValue> {
        let script = Script::parse(script).map_err(|e| sim_error(&e))?;
        let start = Start::from_fleet(&self.fleet);
        let o = simulate(&start, &script, &Options::default()).map_err(|e| sim_error(&e))?;
        Ok(o.to_json().to_string())
    }

    /// Applies each plan as the new ownership and replans, round after round, until nothing
    /// moves or `max_rounds` rounds.
    #[wasm_bindgen(unchecked_return_type = "Round[]")]
    pub fn converge(&self, scenario: &str, max_rounds: u32) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        to_js(&converge(&a.applied.inputs, max_rounds))
    }
}
