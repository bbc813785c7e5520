//! The `Planner` handle: a loaded snapshot, planned under what-if scenarios.
//!
//! Every method takes the scenario as its JSON text (docs/scenario-format.md; "" for none), so
//! the page keeps one piece of state (the scenario, in its URL) and the handle keeps none that a
//! person could lose. Each method is one call into the core's pipeline and one conversion; the
//! two most recent analyses are cached, so the what-if and its baseline are not planned again.

use crate::js::{error, to_js, to_js_via, Via};
use crate::timeline::SimRun;
use spate_planner_core::{
    analyse_partly,
    claims::MaxAttempts,
    converge, demo_snapshot, diff_rules,
    live::{freshness, FleetChange},
    next_claims, plan_document,
    review::{
        claims_view, find_splits, fleet_info, incident_views, plan_view, IncidentInputs, IncidentLog,
        MomentFigures,
    },
    Analysis, AssignmentSource, DemoParams, Fleet, LiveEvent, LiveJob, Scenario, ScenarioError, Snapshot,
    SnapshotError,
};
use spate_planner_sim::{simulate, CrashPrediction, Options, Outcome, Script, SimError, Start};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The largest snapshot accepted, in bytes (parsing needs several times this in memory).
pub(crate) use spate_planner_core::MAX_SNAPSHOT_BYTES;

pub(crate) fn snapshot_error(e: &SnapshotError) -> JsValue {
    let err = error(e.code.as_str(), &e.to_string(), e.path.as_deref());
    for (k, v) in [("bucket", &e.bucket), ("key", &e.key)] {
        if let Some(v) = v {
            let _ = js_sys::Reflect::set(&err, &k.into(), &v.into());
        }
    }
    err
}

pub(crate) fn scenario_error(e: &ScenarioError) -> JsValue {
    error(e.code.as_str(), &e.to_string(), Some(&e.path))
}

pub(crate) fn sim_error(e: &SimError) -> JsValue {
    error(e.code.as_str(), &e.to_string(), Some(&e.path))
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "LiveFrame"))]
pub(crate) struct FrameView<'a> {
    rows: &'a [LiveEvent],
    revisions: String,
}

fn not_live() -> JsValue {
    error("not_live", "this planner holds a snapshot, not a live job", None)
}

/// The declarations generated from the Rust types (`scripts/types`), and what no Rust type
/// declares.
#[wasm_bindgen(typescript_custom_section)]
const TS_GENERATED: &'static str = include_str!("../types.generated.d.ts");
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../types.d.ts");

/// A loaded snapshot (or a live job) and the plans made of it.
#[wasm_bindgen]
pub struct Planner {
    pub(crate) fleet: Fleet,
    /// The two most recent analyses by scenario text, most recent first.
    cache: RefCell<Vec<(String, Rc<Analysis>)>>,
    /// For a live job: its state, kept current by [`Planner::apply_changes`].
    live: Option<LiveJob>,
    /// For a live job: its incidents, and the fleet changes of frames not yet observed.
    incidents: IncidentLog,
    unobserved: Vec<FleetChange>,
    /// The store's time of the newest write the fleet shows (`None`: unknown).
    last_written_ms: Option<i64>,
}

impl Planner {
    /// A simulation of this fleet under a script's text: its start, its script, its outcome.
    fn simulated(&self, script: &str) -> Result<(Start, Script, Outcome), JsValue> {
        let script = Script::parse(script).map_err(|e| sim_error(&e))?;
        let rules = script.rules_for(&self.fleet);
        let start = Start::with_rules(&self.fleet, script.start, rules).map_err(|e| sim_error(&e))?;
        let o = simulate(&start, &script, &Options::default()).map_err(|e| sim_error(&e))?;
        Ok((start, script, o))
    }

    pub(crate) fn new(fleet: Fleet) -> Planner {
        Planner {
            fleet,
            cache: RefCell::new(Vec::new()),
            live: None,
            incidents: IncidentLog::new(),
            unobserved: Vec::new(),
            last_written_ms: None,
        }
    }

    /// The analysis of `scenario` (its JSON text) as far as it applies (the core's one policy:
    /// each change that does not apply is left out and listed in `refused`), from the cache when
    /// it is there. Fails only when the text is not a scenario.
    pub(crate) fn analysis(&self, scenario: &str) -> Result<Rc<Analysis>, JsValue> {
        let mut cache = self.cache.borrow_mut();
        if let Some(i) = cache.iter().position(|(text, _)| text == scenario) {
            let hit = cache.remove(i);
            cache.insert(0, hit);
        } else {
            let sc = Scenario::parse(scenario).map_err(|e| scenario_error(&e))?;
            let a = analyse_partly(&self.fleet, &sc);
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
        let mut p = Fleet::from_snapshot(&snap)
            .map(Planner::new)
            .map_err(|e| snapshot_error(&e))?;
        p.last_written_ms = snap.last_written_ms();
        Ok(p)
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
    /// [`Planner::next_frame`]. True when the change is news (a membership or leadership
    /// change, a claim, a split completed or quarantined, a publish; not a lease renewal or a
    /// watermark's progress). Throws when the change cannot be read or goes back (its revision
    /// is not above its bucket's): the job must then be read afresh.
    #[wasm_bindgen(js_name = applyChange)]
    pub fn apply_change(&mut self, data: &str) -> Result<bool, JsValue> {
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
        self.unobserved.extend(frame.changes);
        self.last_written_ms = job.last_written_ms();
        to_js(&FrameView {
            rows: &frame.events,
            revisions: job.shown_revisions().to_string(),
        })
    }

    /// The staleness rule for this job (its lease TTL) when its last change arrived at
    /// `last_change_ms`: from when it is stale (no change for longer than the lease TTL).
    #[wasm_bindgen(unchecked_return_type = "Freshness")]
    pub fn freshness(&self, last_change_ms: f64) -> Result<JsValue, JsValue> {
        to_js(&freshness(last_change_ms as i64, self.fleet.lease_ttl_ms))
    }

    /// This live job's full state replaces `previous`'s (the whole state read again): its next
    /// frame tells what changed from the fleet `previous` showed, and that the state was read.
    #[wasm_bindgen(js_name = resyncFrom)]
    pub fn resync_from(&mut self, previous: &Planner) -> Result<(), JsValue> {
        let (job, before) = (self.live.as_mut(), previous.live.as_ref());
        let (job, before) = job.zip(before).ok_or_else(not_live)?;
        job.resync_from(before);
        self.incidents = previous.incidents.clone();
        self.unobserved = previous.unobserved.clone();
        Ok(())
    }

    /// The live job's incidents at `now_ms`, newest first (docs/live-protocol.md, "Incidents"):
    /// the frames' membership and leadership changes since the last call are observed first,
    /// on this fleet, with the settings of `scenario` (its changes are ignored: the incidents
    /// are the real fleet's) and `max_attempts` (`undefined`: Spate's default, 4). Call after
    /// each frame, and as the clock moves (the countdowns are written at `now_ms`).
    #[wasm_bindgen(unchecked_return_type = "IncidentView[]")]
    pub fn incidents(
        &mut self,
        scenario: &str,
        max_attempts: Option<u32>,
        now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        if self.live.is_none() {
            return Err(not_live());
        }
        let sc = Scenario::parse(scenario).map_err(|e| scenario_error(&e))?;
        let changes = std::mem::take(&mut self.unobserved);
        // The frame's baseline was planned for the page already (the cache holds it): the
        // scenario itself when it has no changes, else its baseline, as `analyse` keys it.
        let baseline = match (changes.is_empty(), sc.changes.is_empty()) {
            (true, _) => None,
            (false, true) => Some(self.analysis(scenario)?),
            (false, false) => {
                let text = sc
                    .baseline()
                    .to_json()
                    .map_err(|e| error("internal", &e.to_string(), None))?;
                Some(self.analysis(&text)?)
            }
        };
        let model = CrashPrediction::default();
        let inputs = IncidentInputs {
            scenario: &sc,
            max_attempts,
            recovery: Some(&model),
            baseline: baseline.as_deref(),
        };
        self.incidents.observe(&changes, &self.fleet, &inputs);
        to_js(&incident_views(&self.incidents, now_ms as i64))
    }

    /// The store's time of the newest write the fleet shown holds (ms since the Unix epoch;
    /// `undefined`: unknown): when the job last changed by the store's clock.
    #[wasm_bindgen(js_name = lastWritten)]
    pub fn last_written(&self) -> Option<f64> {
        self.last_written_ms.map(|ms| ms as f64)
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

    /// The plan under a scenario, as far as it applies: the plan document of `spate-planner
    /// plan --json` without its `assignment` (the changes left out in `refused`).
    #[wasm_bindgen(unchecked_return_type = "PlanView")]
    pub fn plan(&self, scenario: &str) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        let view = plan_view(&self.fleet, &a);
        to_js_via(&view, Via::Json)
    }

    /// The plan of `scenario` and its baseline (the scenario's settings without its changes;
    /// `null` when the scenario has no change, so the plan is its own baseline), and the
    /// baseline's figures as `watch` prints them and `/metrics` exposes them (`moment`: the
    /// core's `MomentFigures`, the live chart's point).
    #[wasm_bindgen(unchecked_return_type = "Analysed")]
    pub fn analyse(&self, scenario: &str) -> Result<JsValue, JsValue> {
        self.analyse_via(scenario, Via::Json)
    }

    /// `analyse`, its result made a JS object as `via` says (the test build compares the two).
    pub(crate) fn analyse_via(&self, scenario: &str, via: Via) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        let base = match a.scenario.changes.is_empty() {
            true => None,
            false => {
                let text = a
                    .scenario
                    .baseline()
                    .to_json()
                    .map_err(|e| error("internal", &e.to_string(), None))?;
                Some(self.analysis(&text)?)
            }
        };
        #[derive(serde::Serialize)]
        struct Analysed<V> {
            view: V,
            baseline: Option<V>,
            moment: MomentFigures,
        }
        let both = Analysed {
            view: plan_view(&self.fleet, &a),
            baseline: base.as_deref().map(|b| plan_view(&self.fleet, b)),
            moment: MomentFigures::of(&self.fleet, base.as_deref().unwrap_or(&a)),
        };
        to_js_via(&both, via)
    }

    /// What the Timeline's script leaves unset takes, for this snapshot (the simulator's
    /// defaults, the lease duration from the snapshot's lease TTL, the rules the store names);
    /// u64 values as decimal strings.
    #[wasm_bindgen(js_name = simDefaults, unchecked_return_type = "SimDefaults")]
    pub fn sim_defaults(&self) -> Result<JsValue, JsValue> {
        let rules = self.fleet.store_rules().rules;
        to_js(&spate_planner_sim::defaults(self.fleet.lease_ttl_ms, rules))
    }

    /// The plan as the JSON text `spate-planner plan --json` prints (the same bytes).
    #[wasm_bindgen(js_name = planJson)]
    pub fn plan_json(&self, scenario: &str) -> Result<String, JsValue> {
        let a = self.analysis(scenario)?;
        plan_document(&self.fleet, &a).map_err(|e| error("internal", &e.to_string(), None))
    }

    /// Each live member's next reconcile (or `instance`'s): the document of
    /// `spate-planner claims --json`. `after_plan`: act on the planned assignment instead of the
    /// published records. `max_attempts`: the workers' (`--max-attempts`); `null`: the
    /// scenario's, else Spate's default.
    #[wasm_bindgen(unchecked_return_type = "ClaimsDocument")]
    pub fn claims(
        &self,
        scenario: &str,
        instance: Option<String>,
        after_plan: bool,
        max_attempts: Option<u32>,
    ) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        let max_attempts = match max_attempts {
            Some(n) => MaxAttempts::of(Some(n)),
            None => a.applied.max_attempts,
        };
        let source = if after_plan {
            AssignmentSource::Plan
        } else {
            AssignmentSource::Published
        };
        let next = next_claims(&self.fleet, &a, instance.as_deref(), source, max_attempts.value)
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

    /// A timing simulation of this fleet (docs/simulator.md) under a script's text
    /// (docs/script-format.md): the JSON document `spate-planner simulate --json` prints (times
    /// in ms are numbers; weights are decimal strings). The fleet follows the script's `rules`,
    /// else the release the store names.
    pub fn simulate(&self, script: &str) -> Result<String, JsValue> {
        let (_, script, o) = self.simulated(script)?;
        Ok(serde_json::json!(o.document_of(&script)).to_string())
    }

    /// The same simulation kept for the Timeline's scrubber: its document, and the fleet at any
    /// instant (`FleetIndex`, docs/simulator.md "The fleet at an instant").
    #[wasm_bindgen(js_name = simulateRun)]
    pub fn simulate_run(&self, script: &str) -> Result<SimRun, JsValue> {
        let (start, script, o) = self.simulated(script)?;
        Ok(SimRun::new(&o, &start, &script))
    }

    /// The store under what applies of `scenario` planned by Spate 0.1's rules and by 0.3's,
    /// side by side: the document of `spate-planner diff-rules --json`.
    #[wasm_bindgen(js_name = diffRules, unchecked_return_type = "RulesDiff")]
    pub fn diff_rules(&self, scenario: &str) -> Result<JsValue, JsValue> {
        // what applies of the scenario, as the plan shown (the core's one policy)
        let sc = self.analysis(scenario)?.planned_scenario();
        to_js(&diff_rules(&self.fleet, &sc).map_err(|e| scenario_error(&e))?)
    }

    /// Applies each plan as the new ownership and replans, round after round, until nothing
    /// moves or `max_rounds` rounds: the document of `spate-planner converge --json`.
    #[wasm_bindgen(unchecked_return_type = "Convergence")]
    pub fn converge(&self, scenario: &str, max_rounds: u32) -> Result<JsValue, JsValue> {
        let a = self.analysis(scenario)?;
        to_js(&converge(&a.applied.inputs, max_rounds))
    }
}
