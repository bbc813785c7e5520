//! A job's figures as gauges: what `spate-planner serve --server` exposes on `/metrics` for each
//! followed job. Every figure is one of the plan document's (`plan --json` of the same state,
//! [`super::plan_document`]) or a count over it, named below, so that the metrics, the page and
//! the command line cannot disagree; the one exception, when the leader last published, is read
//! from the state bucket's entries (the plan document does not hold it).

use super::exposure::exposure;
use super::findings::{findings, Level};
use super::MomentFigures;
use crate::claims::MaxAttempts;
use crate::exact::count;
use crate::fleet::Fleet;
use crate::pipeline::{analyse_partly, Analysis};
use crate::report::{summary, SummarySide};
use crate::scenario::Scenario;
use crate::snapshot::{Bucket, Snapshot, SnapshotError};

/// The job's splits by what happens to them now; the six add up to the plan document's
/// `report.counts.splits`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitStates {
    /// Runnable splits a live member holds now (its lease owner, else its progress record's
    /// owner): the sum of `report.members[].lanes_now`.
    pub running: u32,
    /// Runnable splits the leader may assign that no live member holds now (never owned,
    /// released, or held by an instance that is gone): the pool (`counts.splits` less the four
    /// counts below and `counts.waiting_for_spec`) less `running`.
    pub idle: u32,
    /// Withheld by the rebalance delay of a recently departed instance: `counts.reserved`.
    pub withheld: u32,
    /// `counts.quarantined`.
    pub quarantined: u32,
    /// `counts.completed`.
    pub completed: u32,
    /// Runnable, not completed, no spec seen: `counts.waiting_for_spec`.
    pub waiting_for_spec: u32,
}

/// One side (now, or planned) of the members' load: the plan document's `summary.now` or
/// `summary.planned`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadGauges {
    pub max_load: u64,
    pub mean_load: f64,
    pub at_cap: u32,
    pub over_mean: u32,
}

/// The leader's last published assignment: the plan document's `published` (the distance from
/// it: `moment.from_published`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublishedGauges {
    pub records: u32,
    /// `published.stale`, counted.
    pub stale: u32,
    /// `published.conflicts`, counted.
    pub conflicts: u32,
}

/// A job's gauges.
#[derive(Clone, Debug, PartialEq)]
pub struct Gauges {
    pub job: String,
    /// The state and lease buckets' revisions the figures are of.
    pub revisions: (u64, u64),
    /// The moment's figures (members, balance, queued, moves, distance from the published
    /// assignment, warnings, rules), as `watch` and the page have them.
    pub moment: MomentFigures,
    pub splits: SplitStates,
    /// `report.counts.assigned`: the plan's outcome for the pool (the queued: `moment.queued`).
    pub assigned: u32,
    pub now: LoadGauges,
    pub planned: LoadGauges,
    /// `report.balance.lower_bound`.
    pub lower_bound: u64,
    /// `summary.weight_moved` (the moves: `moment.moves`).
    pub weight_moved: u64,
    /// `None` when nothing was published (`published: null`).
    pub published: Option<PublishedGauges>,
    /// When the newest `assign.*` entry of the state bucket was written (ms since the Unix
    /// epoch, the store's clock): the leader's last publish that changed a record.
    pub last_publish_ms: Option<i64>,
    /// `leader_publishes`.
    pub leader_publishes: bool,
    /// The `leader` record's owner.
    pub leader: Option<String>,
    /// `findings` counted by level: fatal, warning, notice.
    pub findings: [u32; 3],
    /// `at_risk.max_attempts` and `at_risk.max_attempts_source`: what the three below are
    /// judged by.
    pub max_attempts: MaxAttempts,
    /// `at_risk.count`: runnable splits at `attempts = max_attempts − 1`.
    pub at_risk: u32,
    /// `at_risk.past_cap_count`: runnable splits at `attempts ≥ max_attempts`.
    pub past_cap: u32,
    /// `at_risk.race_parked_count`: quarantined splits with the claim race's signature.
    pub race_parked: u32,
}

/// The gauges of `snap` as the leader would plan it: no what-if, its inputs from the store (the
/// plan `plan --json` prints for that snapshot), the splits at risk judged by `max_attempts`
/// (`None`: Spate's default, as `plan` without `--max-attempts`).
pub fn gauges(snap: &Snapshot, max_attempts: Option<u32>) -> Result<Gauges, SnapshotError> {
    let fleet = Fleet::from_snapshot(snap)?;
    let scenario = Scenario {
        max_attempts,
        ..Scenario::default()
    };
    let a = analyse_partly(&fleet, &scenario);
    Ok(gauges_of(&fleet, &a, last_publish_ms(&snap.state)))
}

/// When the newest `assign.*` entry of the state bucket was written: the entry with the highest
/// revision (the leader rewrites only the records that change, so a steady fleet's last publish
/// stays where it was).
#[cfg_attr(feature = "testing", visibility::make(pub))]
pub(crate) fn last_publish_ms(state: &Bucket) -> Option<i64> {
    state
        .entries
        .iter()
        .filter(|e| e.key.starts_with("assign."))
        .max_by_key(|e| e.revision)
        .map(|e| e.created_ms)
}

fn load(side: &SummarySide) -> LoadGauges {
    LoadGauges {
        max_load: side.max_load,
        mean_load: side.mean_load,
        at_cap: side.at_cap,
        over_mean: side.over_mean,
    }
}

fn split_states(a: &Analysis) -> SplitStates {
    let c = &a.report.counts;
    let running: u32 = a.report.members.iter().map(|m| m.lanes_now).sum();
    let pool = c.splits - c.completed - c.quarantined - c.reserved - c.waiting_for_spec;
    SplitStates {
        running,
        idle: pool - running,
        withheld: c.reserved,
        quarantined: c.quarantined,
        completed: c.completed,
        waiting_for_spec: c.waiting_for_spec,
    }
}

/// The gauges of an analysis of `fleet` (with no what-if).
fn gauges_of(fleet: &Fleet, a: &Analysis, last_publish_ms: Option<i64>) -> Gauges {
    let s = summary(&a.report);
    let risk = exposure(fleet, a, a.applied.max_attempts, false);
    let mut levels = [0u32; 3];
    for f in findings(fleet, a) {
        levels[match f.level {
            Level::Fatal => 0,
            Level::Warning => 1,
            Level::Notice => 2,
        }] += 1;
    }
    Gauges {
        job: fleet.job.clone(),
        revisions: (fleet.state_revision, fleet.lease_revision),
        moment: MomentFigures::of(fleet, a),
        splits: split_states(a),
        assigned: a.report.counts.assigned,
        now: load(&s.now),
        planned: load(&s.planned),
        lower_bound: a.report.balance.lower_bound,
        weight_moved: s.weight_moved,
        published: a.published.as_ref().map(|p| PublishedGauges {
            records: p.records,
            stale: count(p.stale.len()),
            conflicts: count(p.conflicts.len()),
        }),
        last_publish_ms,
        leader_publishes: a.no_publish.is_none(),
        leader: fleet.leader.as_ref().map(|l| l.owner.clone()),
        findings: levels,
        max_attempts: a.applied.max_attempts,
        at_risk: risk.count,
        past_cap: risk.past_cap_count,
        race_parked: risk.race_parked_count,
    }
}
