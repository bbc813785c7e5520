//! The JSON documents: `spate-planner plan --json` (also the dashboard's "plan as JSON") and
//! `spate-planner claims --json`. Both go through [`crate::exact`]: 64-bit integers are strings.

use super::exposure::{exposure, Exposure};
use super::figures::{plan_figures, Figure};
use super::findings::{findings, Finding};
use crate::assign::Assignment;
use crate::claims::{ClaimAction, ClaimKind, MaxAttempts};
use crate::exact::{self, count};
use crate::fleet::{CapSource, Fleet, Warning};
use crate::pipeline::{Analysis, AssignmentSource, NoPublish};
use crate::report::{reason_words, summary, PublishedDistance, ReasonWords, Report, Summary};
use crate::rules::{Rules, RulesChoice, RulesSource};
use crate::scenario::{Departed, Refused, Scenario};
use crate::worker::NextActions;
use serde::Serialize;
use std::collections::BTreeMap;

/// The format tag of the plan document.
pub(super) const PLAN_FORMAT: &str = "spate-planner-plan/2";
/// The format tag of the claims document.
pub(super) const CLAIMS_FORMAT: &str = "spate-planner-claims/1";

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "PlanView"))]
pub(crate) struct PlanDocument<'a> {
    format: &'static str,
    job: &'a str,
    taken_at_ms: i64,
    seed: u64,
    leader_publishes: bool,
    no_publish_reason: Option<NoPublish>,
    default_cap: u32,
    default_cap_source: CapSource,
    default_cap_note: String,
    /// The release whose rules decide (`0.1`, covering 0.2, or `0.3`) and where that comes from.
    rules: Rules,
    rules_source: RulesSource,
    rules_note: String,
    rebalance_delay_ms: u64,
    departed: &'a [Departed],
    reserved: Vec<&'a String>,
    findings: Vec<Finding>,
    scenario: &'a Scenario,
    /// The changes of `scenario` left out of the plan, each with its reason.
    refused: &'a [Refused],
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    assignment: Option<&'a Assignment>,
    report: &'a Report,
    summary: Summary,
    /// Every figure of the plan, labelled and typed (the dashboard's Details table).
    figures: Vec<Figure>,
    /// Every reason a split moves for, in words and in a sentence.
    reasons: Vec<ReasonWords>,
    published: &'a Option<PublishedDistance>,
    /// The splits one step from quarantine, and those the claim race parked, by the scenario's
    /// `max_attempts` (the split lists only with the assignment).
    at_risk: Exposure,
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
        rules: applied.rules.rules,
        rules_source: applied.rules.source,
        rules_note: applied.rules.explain(),
        rebalance_delay_ms: applied.rebalance_delay_ms,
        departed: &applied.departed,
        reserved: applied.inputs.reserved.iter().collect(),
        findings: findings(fleet, a),
        scenario: &a.scenario,
        refused: &a.refused,
        assignment: with_assignment.then_some(&a.assignment),
        report: &a.report,
        summary: summary(&a.report),
        figures: plan_figures(a),
        reasons: reason_words(),
        published: &a.published,
        at_risk: exposure(fleet, a, applied.max_attempts, with_assignment),
        warnings: &fleet.warnings,
    }
}

/// A member as the fleet summary shows it.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MemberLine<'a> {
    pub name: &'a str,
    pub max_in_flight: Option<u32>,
    pub readable: bool,
    pub left_ms: i64,
}

/// What a snapshot holds, before any plan: its identity, the leader's view as the store shows
/// it, members, counts and warnings.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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
    /// The rules the store names, and why.
    pub store_rules: RulesChoice,
    /// The 0.3.0 probe keys the store holds (a hint of 0.3.0 workers).
    pub probes_0_3: &'a [String],
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
        store_rules: fleet.store_rules(),
        probes_0_3: &fleet.probes_0_3,
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
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

/// The claims view's word on the rules: every worker is taken to claim by the chosen release's
/// rules, though the store shows no worker's own version (decision-core-0.3.md section 9).
pub fn claims_rules_note(rules: RulesChoice) -> String {
    format!(
        "Every worker is taken to claim by {}. The store does not show each worker's own version: in a fleet being upgraded, 0.3.0 workers claim by 0.3's rules under a 0.1.x/0.2.x leader, and no record says which.",
        rules.explain()
    )
}

/// One action of a worker, as the claims document lists it.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(super) struct ActionView<'a> {
    /// Its place in the worker's order (1 for the first it takes).
    pub order: u32,
    pub split: &'a str,
    pub action: ClaimAction,
    pub kind: ClaimKind,
}

/// A worker's circumstances beside its actions.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(super) struct WorkerLine {
    pub cap: u32,
    pub held: u32,
    pub has_assignment: bool,
    /// How many claims and quarantines it takes (its list in `claims`).
    pub actions: u32,
    /// Whether it does anything: claims, quarantines, drains, or drops a fenced split.
    pub acts: bool,
    pub skipped: u32,
    /// Why it skipped candidates, in words (`null` when it skipped none).
    pub skipped_why: Option<String>,
}

/// The workers' totals.
#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(super) struct ClaimsTotals {
    /// Live members listed.
    pub members: u32,
    /// Claims and quarantines, over all of them.
    pub actions: u32,
    /// Members that do anything.
    pub acting: u32,
    /// Members with nothing to claim, quarantine, drain or drop.
    pub idle: u32,
}

#[derive(Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub(crate) struct ClaimsDocument<'a> {
    format: &'static str,
    job: &'a str,
    taken_at_ms: i64,
    assignment_source: AssignmentSource,
    max_attempts: u32,
    /// The release whose claim rules every worker is taken to follow, and where that comes from.
    rules: Rules,
    rules_source: RulesSource,
    /// What the store cannot show about that.
    rules_note: String,
    claims: BTreeMap<&'a str, Vec<ActionView<'a>>>,
    drains: BTreeMap<&'a str, &'a [String]>,
    fenced: BTreeMap<&'a str, &'a [String]>,
    workers: BTreeMap<&'a str, WorkerLine>,
    totals: ClaimsTotals,
    /// The splits one step from quarantine by `max_attempts`, and those the claim race parked.
    at_risk: Exposure,
}

/// The workers' next actions as one JSON document: per live member, its claims and quarantines
/// in the order it takes them, the splits it would drain, and those it was fenced from.
pub fn claims_document(
    fleet: &Fleet,
    a: &Analysis,
    next: &BTreeMap<String, NextActions>,
    source: AssignmentSource,
    max_attempts: MaxAttempts,
) -> Result<String, serde_json::Error> {
    exact::to_json(&claims_view(fleet, a, next, source, max_attempts))
}

/// The claims document as a value. Serialize it through [`exact::Exact`].
pub fn claims_view<'a>(
    fleet: &'a Fleet,
    a: &'a Analysis,
    next: &'a BTreeMap<String, NextActions>,
    source: AssignmentSource,
    max_attempts: MaxAttempts,
) -> impl Serialize + 'a {
    let inputs = &a.applied.inputs;
    ClaimsDocument {
        format: CLAIMS_FORMAT,
        job: &fleet.job,
        taken_at_ms: fleet.taken_at_ms,
        assignment_source: source,
        max_attempts: max_attempts.value,
        rules: a.applied.rules.rules,
        rules_source: a.applied.rules.source,
        rules_note: claims_rules_note(a.applied.rules),
        claims: next
            .iter()
            .map(|(x, n)| {
                let actions = n
                    .actions
                    .iter()
                    .zip(1..)
                    .map(|(c, order)| ActionView {
                        order,
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
        fenced: next
            .iter()
            .map(|(x, n)| (x.as_str(), n.fenced.as_slice()))
            .collect(),
        workers: next
            .iter()
            .map(|(x, n)| {
                let has_assignment = source.has_assignment(fleet, a, x);
                let cap = inputs.cap_of(x);
                let line = WorkerLine {
                    cap,
                    held: count(n.held.len()),
                    has_assignment,
                    actions: count(n.actions.len()),
                    acts: n.acts(),
                    skipped: n.skipped,
                    skipped_why: n.skipped_why(cap, has_assignment),
                };
                (x.as_str(), line)
            })
            .collect(),
        totals: totals(next),
        at_risk: exposure(fleet, a, max_attempts, true),
    }
}

fn totals(next: &BTreeMap<String, NextActions>) -> ClaimsTotals {
    let acting = count(next.values().filter(|n| n.acts()).count());
    let members = count(next.len());
    ClaimsTotals {
        members,
        actions: count(next.values().map(|n| n.actions.len()).sum()),
        acting,
        idle: members - acting,
    }
}
