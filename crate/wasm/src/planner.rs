//! The `Planner` handle: a loaded snapshot, planned under what-if scenarios.
//!
//! Every method takes the scenario as its JSON text (docs/scenario-format.md) and the leader's
//! default cap, so the page keeps one piece of state (the scenario, in its URL) and the handle
//! keeps none that a person could lose. The last plan is cached: asking for claims or splits
//! under the same scenario does not plan again.

use crate::{error, to_js};
use serde::Serialize;
use spate_planner_core::demo::{demo_snapshot, DemoParams};
use spate_planner_core::fleet::Fleet;
use spate_planner_core::records::SplitStatus;
use spate_planner_core::report::{converge, plan_document, published_changes, report, Report};
use spate_planner_core::scenario::Scenario;
use spate_planner_core::snapshot::SnapshotError;
use spate_planner_core::{claim_candidates, LeaderInputs, Plan};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// The largest snapshot accepted, in bytes (parsing needs several times this in memory).
pub const MAX_SNAPSHOT_BYTES: usize = 512 << 20;

fn snapshot_error(e: &SnapshotError) -> JsValue {
    let err = error(e.code, &e.to_string(), e.path.as_deref());
    for (k, v) in [("bucket", &e.bucket), ("key", &e.key)] {
        if let Some(v) = v {
            let _ = js_sys::Reflect::set(&err, &k.into(), &v.into());
        }
    }
    err
}

struct Planned {
    scenario_text: String,
    default_cap: u32,
    scenario: Scenario,
    inputs: LeaderInputs,
    plan: Plan,
    report: Report,
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Decimal string of a u64 (exact; never a JS number). */
export type U64 = string;

export interface WarningView { code: string; bucket: string; key: string; message: string; }
export interface MemberInfo { name: string; maxInFlight: number | null; readable: boolean; leftMs: number; }
export interface Info {
  job: string; sourceKind: string; sourceServer: string | null; sourceNote: string | null;
  takenAtMs: number; seed: U64; seedSource: string; fingerprint: string | null;
  planGeneration: U64 | null; finality: string | null; leader: string | null; leaseTtlMs: U64;
  members: MemberInfo[]; splits: number; departedOwners: string[]; published: number;
  warnings: WarningView[];
}
export interface MemberView {
  name: string; cap: number; defaultCap: boolean; lanes: number; lanesNow: number;
  loadNow: U64; loadPlanned: U64; loadNowApprox: number; loadPlannedApprox: number;
  gained: number; lost: number;
}
export type Reason = "unowned" | "owner_gone" | "over_cap" | "improve" | "queued";
export interface MoveView {
  split: string; weight: U64; weightApprox: number; from: string | null; to: string | null;
  reason: Reason; gain: string | null;
}
export interface Counts {
  splits: number; assigned: number; queued: number; reserved: number; completed: number;
  quarantined: number; waitingForSpec: number;
}
export interface PlanView {
  members: MemberView[]; moves: MoveView[]; queue: string[]; counts: Counts;
  total: U64; maxLoad: U64; minLoad: U64; meanLoad: number; lowerBound: U64;
  maxOverBound: number; maxOverMean: number; churnMoves: number; weightMoved: U64;
  fromLiveMembers: number; improvingMoves: number; boundHit: boolean; improvable: boolean;
  defaultCap: number; reserved: number; publishedChanges: number | null;
}
export interface ClaimCandidate { id: string; action: "claim" | "quarantine"; kind: "create" | "released" | "reclaim" | "expired"; }
export interface SplitView {
  id: string; status: "runnable" | "completed" | "quarantined"; completed: boolean;
  owner: string | null; leaseOwner: string | null; leaseLeftMs: number | null; epoch: U64;
  attempts: number; weight: U64 | null; reserved: boolean; planned: string | null;
}
export interface RoundView {
  round: number; moves: number; weightMoved: U64; improvingMoves: number; boundHit: boolean;
  maxOverMean: number; maxOverBound: number;
}
/** Errors thrown by this module: an Error with a stable code and where it applies. */
export interface PlannerError extends Error { code: string; bucket?: string; key?: string; path?: string; }
"#;

/// A loaded snapshot and the plans made of it.
#[wasm_bindgen]
pub struct Planner {
    fleet: Fleet,
    /// The two most recent plans (the what-if and its baseline), most recent first.
    last: RefCell<Vec<Planned>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MemberInfo {
    name: String,
    /// Own cap from the presence value, if readable and positive.
    max_in_flight: Option<u32>,
    readable: bool,
    left_ms: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WarningView {
    code: &'static str,
    bucket: String,
    key: String,
    message: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info {
    job: String,
    source_kind: String,
    source_server: Option<String>,
    source_note: Option<String>,
    taken_at_ms: f64,
    seed: String,
    seed_source: String,
    fingerprint: Option<String>,
    plan_generation: Option<String>,
    finality: Option<String>,
    leader: Option<String>,
    lease_ttl_ms: String,
    members: Vec<MemberInfo>,
    splits: usize,
    departed_owners: Vec<String>,
    published: usize,
    warnings: Vec<WarningView>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MemberView {
    name: String,
    cap: u32,
    default_cap: bool,
    lanes: usize,
    lanes_now: usize,
    load_now: String,
    load_planned: String,
    /// Approximate loads as numbers, for drawing only.
    load_now_approx: f64,
    load_planned_approx: f64,
    gained: usize,
    lost: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MoveView {
    split: String,
    weight: String,
    weight_approx: f64,
    from: Option<String>,
    to: Option<String>,
    reason: &'static str,
    gain: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanView {
    members: Vec<MemberView>,
    moves: Vec<MoveView>,
    queue: Vec<String>,
    counts: CountsView,
    total: String,
    max_load: String,
    min_load: String,
    mean_load: f64,
    lower_bound: String,
    max_over_bound: f64,
    max_over_mean: f64,
    churn_moves: usize,
    weight_moved: String,
    from_live_members: usize,
    improving_moves: usize,
    bound_hit: bool,
    improvable: bool,
    default_cap: u32,
    reserved: usize,
    /// Splits whose member differs from the leader's last published assignment (null: none published).
    published_changes: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CountsView {
    splits: usize,
    assigned: usize,
    queued: usize,
    reserved: usize,
    completed: usize,
    quarantined: usize,
    waiting_for_spec: usize,
}

impl From<&spate_planner_core::report::Counts> for CountsView {
    fn from(c: &spate_planner_core::report::Counts) -> Self {
        CountsView {
            splits: c.splits,
            assigned: c.assigned,
            queued: c.queued,
            reserved: c.reserved,
            completed: c.completed,
            quarantined: c.quarantined,
            waiting_for_spec: c.waiting_for_spec,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SplitView {
    id: String,
    status: &'static str,
    completed: bool,
    owner: Option<String>,
    lease_owner: Option<String>,
    lease_left_ms: Option<f64>,
    epoch: String,
    attempts: u32,
    weight: Option<String>,
    reserved: bool,
    planned: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RoundView {
    round: usize,
    moves: usize,
    weight_moved: String,
    improving_moves: usize,
    bound_hit: bool,
    max_over_mean: f64,
    max_over_bound: f64,
}

fn reason_code(r: spate_planner_core::report::Reason) -> &'static str {
    use spate_planner_core::report::Reason::*;
    match r {
        Unowned => "unowned",
        OwnerGone => "owner_gone",
        OverCap => "over_cap",
        Improve => "improve",
        Queued => "queued",
    }
}

#[wasm_bindgen]
impl Planner {
    /// Loads a snapshot file's text. Throws an `Error` with `code`, and `bucket`, `key` or
    /// `path` where one applies.
    #[wasm_bindgen(js_name = fromText)]
    pub fn from_text(text: &str) -> Result<Planner, JsValue> {
        if text.len() > MAX_SNAPSHOT_BYTES {
            return Err(error("too_large", &too_large(text.len()), None));
        }
        let fleet = Fleet::load_text(text).map_err(|e| snapshot_error(&e))?;
        Ok(Planner {
            fleet,
            last: RefCell::new(Vec::new()),
        })
    }

    /// Loads a snapshot file's bytes (must be UTF-8).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8]) -> Result<Planner, JsValue> {
        if bytes.len() > MAX_SNAPSHOT_BYTES {
            return Err(error("too_large", &too_large(bytes.len()), None));
        }
        let snap =
            spate_planner_core::snapshot::Snapshot::parse_bytes(bytes).map_err(|e| snapshot_error(&e))?;
        let fleet = Fleet::from_snapshot(&snap).map_err(|e| snapshot_error(&e))?;
        Ok(Planner {
            fleet,
            last: RefCell::new(Vec::new()),
        })
    }

    /// The built-in demo fleet (`spate-planner demo`): at most 1,000,000 splits and 100,000 members.
    pub fn demo(splits: u32, members: u32, seed: u32) -> Result<Planner, JsValue> {
        // Bounded, so that an embedding page's attribute cannot exhaust the browser's memory.
        let snap = demo_snapshot(&DemoParams {
            splits: splits.min(1_000_000) as usize,
            members: members.clamp(1, 100_000) as usize,
            seed: seed as u64,
            ..DemoParams::default()
        });
        let fleet = Fleet::from_snapshot(&snap).map_err(|e| snapshot_error(&e))?;
        Ok(Planner {
            fleet,
            last: RefCell::new(Vec::new()),
        })
    }

    /// The largest snapshot this module accepts, in bytes.
    #[wasm_bindgen(js_name = maxSnapshotBytes)]
    pub fn max_snapshot_bytes() -> f64 {
        MAX_SNAPSHOT_BYTES as f64
    }

    /// What the snapshot holds: job, source, seed, members and their caps, warnings.
    #[wasm_bindgen(unchecked_return_type = "Info")]
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let f = &self.fleet;
        to_js(&Info {
            job: f.job.clone(),
            source_kind: f.source.kind.clone(),
            source_server: f.source.server.clone(),
            source_note: f.source.note.clone(),
            taken_at_ms: f.taken_at_ms as f64,
            seed: f.seed.to_string(),
            seed_source: format!("{:?}", f.seed_source),
            fingerprint: f.plan.as_ref().map(|p| p.fingerprint.clone()),
            plan_generation: f.plan.as_ref().map(|p| p.generation.to_string()),
            finality: f
                .plan
                .as_ref()
                .map(|p| format!("{:?}", p.finality).to_lowercase()),
            leader: f.leader.as_ref().map(|l| l.owner.clone()),
            lease_ttl_ms: f.lease_ttl_ms.to_string(),
            members: f
                .members
                .iter()
                .map(|(n, m)| MemberInfo {
                    name: n.clone(),
                    max_in_flight: m.max_in_flight,
                    readable: m.readable,
                    left_ms: m.left_ms,
                })
                .collect(),
            splits: f.splits.len(),
            departed_owners: f.departed_owners().into_iter().collect(),
            published: f.published.len(),
            warnings: f
                .warnings
                .iter()
                .map(|w| WarningView {
                    code: w.code,
                    bucket: w.bucket.clone(),
                    key: w.key.clone(),
                    message: w.message.clone(),
                })
                .collect(),
        })
    }

    fn with_plan<T>(
        &self,
        scenario: &str,
        default_cap: u32,
        f: impl FnOnce(&Planned) -> T,
    ) -> Result<T, JsValue> {
        let mut cache = self.last.borrow_mut();
        match cache
            .iter()
            .position(|p| p.scenario_text == scenario && p.default_cap == default_cap)
        {
            Some(i) => {
                let hit = cache.remove(i);
                cache.insert(0, hit);
            }
            None => {
                let sc = if scenario.trim().is_empty() {
                    Scenario::default()
                } else {
                    Scenario::parse(scenario).map_err(|e| error(e.code, &e.to_string(), Some(&e.path)))?
                };
                let inputs = sc
                    .apply(&self.fleet, default_cap)
                    .map_err(|e| error(e.code, &e.to_string(), Some(&e.path)))?;
                let plan = inputs.plan();
                let report = report(&inputs, &plan);
                cache.insert(
                    0,
                    Planned {
                        scenario_text: scenario.to_string(),
                        default_cap,
                        scenario: sc,
                        inputs,
                        plan,
                        report,
                    },
                );
                cache.truncate(2);
            }
        }
        Ok(f(&cache[0]))
    }

    /// The plan under a scenario (its JSON text; "" for none): per member, the moves and why,
    /// the queue, counts, balance and churn. u64 values are decimal strings.
    #[wasm_bindgen(unchecked_return_type = "PlanView")]
    pub fn plan(&self, scenario: &str, default_cap: u32) -> Result<JsValue, JsValue> {
        let view = self.with_plan(scenario, default_cap, |p| {
            let r = &p.report;
            PlanView {
                members: r
                    .members
                    .iter()
                    .map(|m| MemberView {
                        name: m.name.clone(),
                        cap: m.cap,
                        default_cap: m.default_cap,
                        lanes: m.lanes,
                        lanes_now: m.lanes_now,
                        load_now: m.load_now.to_string(),
                        load_planned: m.load_planned.to_string(),
                        load_now_approx: m.load_now as f64,
                        load_planned_approx: m.load_planned as f64,
                        gained: m.gained,
                        lost: m.lost,
                    })
                    .collect(),
                moves: r
                    .moves
                    .iter()
                    .map(|m| MoveView {
                        split: m.split.clone(),
                        weight: m.weight.to_string(),
                        weight_approx: m.weight as f64,
                        from: m.from.clone(),
                        to: m.to.clone(),
                        reason: reason_code(m.reason),
                        gain: m.gain.map(|g| g.to_string()),
                    })
                    .collect(),
                queue: r.queue.clone(),
                counts: CountsView::from(&r.counts),
                total: r.balance.total.to_string(),
                max_load: r.balance.max_load.to_string(),
                min_load: r.balance.min_load.to_string(),
                mean_load: r.balance.mean_load,
                lower_bound: r.balance.lower_bound.to_string(),
                max_over_bound: r.balance.max_over_bound,
                max_over_mean: r.balance.max_over_mean,
                churn_moves: r.churn.moves,
                weight_moved: r.churn.weight_moved.to_string(),
                from_live_members: r.churn.from_live_members,
                improving_moves: r.improving_moves,
                bound_hit: r.bound_hit,
                improvable: r.improvable,
                default_cap: p.inputs.default_cap,
                reserved: p.inputs.reserved.len(),
                published_changes: published_changes(&self.fleet.published, &p.plan.assignment),
            }
        })?;
        to_js(&view)
    }

    /// The plan as the JSON document `spate-planner plan --json` prints (exact integers).
    #[wasm_bindgen(js_name = planJson)]
    pub fn plan_json(&self, scenario: &str, default_cap: u32) -> Result<String, JsValue> {
        self.with_plan(scenario, default_cap, |p| {
            plan_document(&self.fleet, &p.inputs, &p.scenario, &p.plan, &p.report)
        })
    }

    /// The claim candidates of `instance` under a scenario, in order: `{id, action, kind}`.
    /// `owned` is what the planned assignment gives the instance.
    #[wasm_bindgen(unchecked_return_type = "ClaimCandidate[]")]
    pub fn claims(
        &self,
        scenario: &str,
        default_cap: u32,
        instance: &str,
        max_attempts: u32,
    ) -> Result<JsValue, JsValue> {
        let c = self.with_plan(scenario, default_cap, |p| {
            let owned: std::collections::BTreeSet<&str> = p
                .plan
                .assignment
                .get(instance)
                .map(|v| v.iter().map(String::as_str).collect())
                .unwrap_or_default();
            claim_candidates(&p.inputs.splits, |id| owned.contains(id), instance, max_attempts)
        })?;
        to_js(&c)
    }

    /// Splits whose id contains `query` (all when empty), at most `limit`, in id order.
    #[wasm_bindgen(js_name = findSplits, unchecked_return_type = "SplitView[]")]
    pub fn find_splits(
        &self,
        scenario: &str,
        default_cap: u32,
        query: &str,
        limit: u32,
    ) -> Result<JsValue, JsValue> {
        let rows = self.with_plan(scenario, default_cap, |p| {
            let planned: std::collections::HashMap<&str, &str> = p
                .plan
                .assignment
                .iter()
                .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
                .collect();
            p.inputs
                .splits
                .iter()
                .filter(|(id, _)| id.contains(query))
                .take(limit as usize)
                .map(|(id, s)| SplitView {
                    id: id.clone(),
                    status: match s.progress.status {
                        SplitStatus::Runnable => "runnable",
                        SplitStatus::Completed => "completed",
                        SplitStatus::Quarantined => "quarantined",
                    },
                    completed: s.progress.completed,
                    owner: s.progress.owner.clone(),
                    lease_owner: s.lease.as_ref().map(|l| l.value.owner.clone()),
                    lease_left_ms: self
                        .fleet
                        .info
                        .get(id)
                        .and_then(|i| i.lease_left_ms)
                        .map(|v| v as f64),
                    epoch: s.progress.epoch.to_string(),
                    attempts: s.progress.attempts,
                    weight: s.spec.as_ref().map(|sp| sp.weight.to_string()),
                    reserved: p.inputs.reserved.contains(id),
                    planned: planned.get(id.as_str()).map(|m| m.to_string()),
                })
                .collect::<Vec<_>>()
        })?;
        to_js(&rows)
    }

    /// Applies each plan as the new ownership and replans, round after round, until nothing
    /// moves or `max_rounds` rounds: per round the moves, the bound, the balance.
    #[wasm_bindgen(unchecked_return_type = "RoundView[]")]
    pub fn converge(&self, scenario: &str, default_cap: u32, max_rounds: u32) -> Result<JsValue, JsValue> {
        let rounds = self.with_plan(scenario, default_cap, |p| {
            converge(&p.inputs, max_rounds as usize)
        })?;
        let view: Vec<RoundView> = rounds
            .into_iter()
            .map(|r| RoundView {
                round: r.round,
                moves: r.moves,
                weight_moved: r.weight_moved.to_string(),
                improving_moves: r.improving_moves,
                bound_hit: r.bound_hit,
                max_over_mean: r.max_over_mean,
                max_over_bound: r.max_over_bound,
            })
            .collect();
        to_js(&view)
    }
}

fn too_large(n: usize) -> String {
    format!(
        "the snapshot is {} MiB; this planner accepts at most {} MiB in the browser (use spate-planner plan on the command line)",
        n >> 20,
        MAX_SNAPSHOT_BYTES >> 20
    )
}
