//! The JSON documents: `spate-planner plan --json` (also the dashboard's "plan as JSON") and
//! `spate-planner claims --json`. Both go through [`crate::exact`]: 64-bit integers are strings.

use super::findings::{findings, Finding};
use crate::assign::Assignment;
use crate::claims::{ClaimAction, ClaimKind};
use crate::exact::{self, count};
use crate::fleet::{CapSource, Fleet, Warning};
use crate::pipeline::{Analysis, AssignmentSource, NoPublish};
use crate::report::{summary, PublishedDistance, Report, Summary};
use crate::scenario::{Departed, Refused, Scenario};
use crate::worker::NextActions;
use serde::Serialize;
use std::collections::BTreeMap;

/// The format tag of the plan document.
pub const PLAN_FORMAT: &str = "spate-planner-plan/2";
/// The format tag of the claims document.
pub const CLAIMS_FORMAT: &str = "spate-planner-claims/1";

#[derive(Serialize)]
struct PlanDocument<'a> {
    format: &'static str,
    job: &'a str,
    taken_at_ms: i64,
    seed: u64,
    leader_publishes: bool,
    no_publish_reason: Option<NoPublish>,
    default_cap: u32,
    default_cap_source: CapSource,
    default_cap_note: String,
    rebalance_delay_ms: u64,
    departed: &'a [Departed],
    reserved: Vec<&'a String>,
    findings: Vec<Finding>,
    scenario: &'a Scenario,
    /// The changes of `scenario` left out of the plan, each with its reason.
    refused: &'a [Refused],
    #[serde(skip_serializing_if = "Option::is_none")]
    assignment: Option<&'a Assignment>,
    report: &'a Report,
    summary: Summary,
    published: &'a Option<PublishedDistance>,
    warnings: &'a [Warning],
}

/// The plan as one JSON document: `assignment` maps every member to its sorted split ids (the
/// leader's next decision; when it publishes nothing, the records that stand); the report and
/// its summary, the changes of the scenario that did not apply, the leader's inputs and where
/// they come from, the findings and the snapshot's warnings beside it.
pub fn plan_document(fleet: &Fleet, a: &Analysis) -> Result<String, serde_json::Error> {
    exact::to_json(&plan_doc(fleet, a, true))
}

/// The plan document without `assignment` (the dashboard's view of a plan: everything but the
/// per-member split lists, which it asks for by split). Serialize it through [`exact::Exact`].
pub fn plan_view<'a>(fleet: &'a Fleet, a: &'a Analysis) -> impl Serialize + 'a {
    plan_doc(fleet, a, false)
}

fn plan_doc<'a>(fleet: &'a Fleet, a: &'a Analysis, with_assignment: bool) -> PlanDocument<'a> {
    let applied = &a.applied;
    PlanDocument {
        format: PLAN_FORMAT,
        job: &fleet.job,
        taken_at_ms: fleet.taken_at_ms,
        seed: applied.inputs.seed,
        leader_publishes: a.no_publish.is_none(),
        no_publish_reason: a.no_publish,
        default_cap: applied.default_cap.value,
        default_cap_source: applied.default_cap.source,
        default_cap_note: applied.default_cap.explain(),
        rebalance_delay_ms: applied.rebalance_delay_ms,
        departed: &applied.departed,
        reserved: applied.inputs.reserved.iter().collect(),
        findings: findings(fleet, a),
        scenario: &a.scenario,
        refused: &a.refused,
        assignment: with_assignment.then_some(&a.assignment),
        report: &a.report,
        summary: summary(&a.report),
        published: &a.published,
        warnings: &fleet.warnings,
    }
}

/// A member as the fleet summary shows it.
#[derive(Serialize)]
pub struct MemberLine<'a> {
    pub name: &'a str,
    pub max_in_flight: Option<u32>,
    pub readable: bool,
    pub left_ms: i64,
}

/// What a snapshot holds, before any plan: its identity, the leader's view as the store shows
/// it, members, counts and warnings.
#[derive(Serialize)]
pub struct FleetInfo<'a> {
    pub job: &'a str,
    pub source: &'a crate::snapshot::Source,
    pub taken_at_ms: i64,
    pub seed: u64,
    pub seed_source: crate::fleet::SeedSource,
    pub fingerprint: Option<&'a str>,
    pub plan_generation: Option<u64>,
    pub finality: Option<crate::records::Finality>,
    pub leader: Option<&'a str>,
    pub lease_ttl_ms: u64,
    /// The leader's own cap as the store shows it.
    pub store_default_cap: crate::fleet::DefaultCap,
    pub members: Vec<MemberLine<'a>>,
    pub splits: u32,
    /// Instances that own splits but are not members.
    pub departed_owners: Vec<String>,
    /// Instances whose `assign.*` record lingers without presence: departed within the delay.
    pub recent_departures: Vec<String>,
    pub published: u32,
    pub foreign: &'a [String],
    pub warnings: &'a [Warning],
}

/// The fleet summary of `fleet`. Serialize it through [`exact::Exact`].
pub fn fleet_info(fleet: &Fleet) -> FleetInfo<'_> {
    FleetInfo {
        job: &fleet.job,
        source: &fleet.source,
        taken_at_ms: fleet.taken_at_ms,
        seed: fleet.seed,
        seed_source: fleet.seed_source,
        fingerprint: fleet.plan.as_ref().map(|p| p.fingerprint.as_str()),
        plan_generation: fleet.plan.as_ref().map(|p| p.generation),
        finality: fleet.plan.as_ref().map(|p| p.finality),
        leader: fleet.leader.as_ref().map(|l| l.owner.as_str()),
        lease_ttl_ms: fleet.lease_ttl_ms,
        store_default_cap: fleet.leader_cap(),
        members: fleet
            .members
            .iter()
            .map(|(n, m)| MemberLine {
                name: n,
                max_in_flight: m.max_in_flight,
                readable: m.readable,
                left_ms: m.left_ms,
            })
            .collect(),
        splits: count(fleet.splits.len()),
        departed_owners: fleet.departed_owners().into_iter().collect(),
        recent_departures: fleet.recent_departures().into_iter().collect(),
        published: count(fleet.published.len()),
        foreign: &fleet.foreign,
        warnings: &fleet.warnings,
    }
}

/// One split as the splits table shows it.
#[derive(Serialize)]
pub struct SplitLine<'a> {
    pub id: &'a str,
    pub status: crate::records::SplitStatus,
    pub completed: bool,
    pub owner: Option<&'a str>,
    pub lease_owner: Option<&'a str>,
    pub lease_left_ms: Option<i64>,
    pub epoch: u64,
    pub attempts: u32,
    pub weight: Option<u64>,
    pub reserved: bool,
    /// Its member in the leader's assignment (or the standing one), if any.
    pub planned: Option<&'a str>,
}

/// The splits whose id contains `query`, or whose owner (progress or lease) equals it; at most
/// `limit`, in id order.
pub fn find_splits<'a>(fleet: &'a Fleet, a: &'a Analysis, query: &str, limit: usize) -> Vec<SplitLine<'a>> {
    let planned: std::collections::HashMap<&str, &str> = a
        .assignment
        .iter()
        .flat_map(|(m, ids)| ids.iter().map(move |id| (id.as_str(), m.as_str())))
        .collect();
    a.applied
        .inputs
        .splits
        .iter()
        .filter(|(id, s)| {
            id.contains(query)
                || s.progress.owner.as_deref() == Some(query)
                || s.lease.as_ref().is_some_and(|l| l.value.owner == query)
        })
        .take(limit)
        .map(|(id, s)| SplitLine {
            id,
            status: s.progress.status,
            completed: s.progress.completed,
            owner: s.progress.owner.as_deref(),
            lease_owner: s.lease.as_ref().map(|l| l.value.owner.as_str()),
            lease_left_ms: fleet.lease_left_ms(id),
            epoch: s.progress.epoch,
            attempts: s.progress.attempts,
            weight: s.spec.as_ref().map(|sp| sp.weight),
            reserved: a.applied.inputs.reserved.contains(id),
            planned: planned.get(id.as_str()).copied(),
        })
        .collect()
}

/// One action of a worker, as the claims document lists it.
#[derive(Serialize)]
pub struct ActionView<'a> {
    pub split: &'a str,
    pub action: ClaimAction,
    pub kind: ClaimKind,
}

/// A worker's circumstances beside its actions.
#[derive(Serialize)]
pub struct WorkerLine {
    pub cap: u32,
    pub held: u32,
    pub has_assignment: bool,
    pub skipped: u32,
}

#[derive(Serialize)]
struct ClaimsDocument<'a> {
    format: &'static str,
    job: &'a str,
    taken_at_ms: i64,
    assignment_source: AssignmentSource,
    max_attempts: u32,
    claims: BTreeMap<&'a str, Vec<ActionView<'a>>>,
    drains: BTreeMap<&'a str, &'a [String]>,
    workers: BTreeMap<&'a str, WorkerLine>,
}

/// The workers' next actions as one JSON document: per live member, its claims and quarantines
/// in the order it takes them, and the splits it would drain.
pub fn claims_document(
    fleet: &Fleet,
    a: &Analysis,
    next: &BTreeMap<String, NextActions>,
    source: AssignmentSource,
    max_attempts: u32,
) -> Result<String, serde_json::Error> {
    exact::to_json(&claims_view(fleet, a, next, source, max_attempts))
}

/// The claims document as a value. Serialize it through [`exact::Exact`].
pub fn claims_view<'a>(
    fleet: &'a Fleet,
    a: &'a Analysis,
    next: &'a BTreeMap<String, NextActions>,
    source: AssignmentSource,
    max_attempts: u32,
) -> impl Serialize + 'a {
    let inputs = &a.applied.inputs;
    ClaimsDocument {
        format: CLAIMS_FORMAT,
        job: &fleet.job,
        taken_at_ms: fleet.taken_at_ms,
        assignment_source: source,
        max_attempts,
        claims: next
            .iter()
            .map(|(x, n)| {
                let actions = n
                    .actions
                    .iter()
                    .map(|c| ActionView {
                        split: &c.id,
                        action: c.action,
                        kind: c.kind,
                    })
                    .collect();
                (x.as_str(), actions)
            })
            .collect(),
        drains: next
            .iter()
            .map(|(x, n)| (x.as_str(), n.drains.as_slice()))
            .collect(),
        workers: next
            .iter()
            .map(|(x, n)| {
                let has_assignment = match source {
                    AssignmentSource::Published => fleet.published.contains_key(x),
                    AssignmentSource::Plan => a.assignment.contains_key(x),
                };
                let line = WorkerLine {
                    cap: inputs.cap_of(x),
                    held: count(n.held.len()),
                    has_assignment,
                    skipped: n.skipped,
                };
                (x.as_str(), line)
            })
            .collect(),
    }
}
