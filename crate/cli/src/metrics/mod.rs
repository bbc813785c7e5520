//! `GET /metrics` (with `--server`): the followed jobs' plans and the server's own state, in the
//! Prometheus text format, for a team's alerts and boards (docs/metrics.md); and the process's
//! own (memory, CPU, open files: `process.rs`) and the build's version.
//!
//! Each job's figures are the decision core's ([`spate_planner_core::gauges`]: the plan
//! document of `plan --json` for the state held), computed at most once per state: a scrape
//! plans a job only when its state moved since the last plan, and scrapes that come together
//! share that one plan (they wait for it). A scrape is gathered in a task of its own, so a
//! client that hangs up (or a Prometheus that times out) stops neither the plan nor its keeping:
//! the next scrape uses it rather than planning again, and at most [`MAX_SCRAPES`] scrapes are
//! gathered or waiting at once (more are refused, 503). Following, connection and client
//! figures are read as they are at the scrape. Read-only like the rest: a scrape never writes
//! to NATS, nor reads from it.

pub(crate) mod families;
mod process;

use crate::live::http::{Live, Refusal};
use crate::live::hub::Hub;
use crate::live::limits::{Busy, RETRY_AFTER_S};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use families::{Exposition, Labels};
use spate_planner_core::{claims::AttemptsSource, review::Gauges};
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// The plan of one job's state, kept until the state moves.
struct Planned {
    /// The hub it was planned from (a job dropped and followed again has another).
    hub: Weak<Hub>,
    /// The hub's batch sequence the state stood at.
    seq: u64,
    /// The buckets' revisions the state stood at.
    revisions: (u64, u64),
    /// The gauges, or why the state cannot be planned.
    gauges: Result<Gauges, String>,
    took: Duration,
}

impl Planned {
    fn is_of(&self, hub: &Arc<Hub>) -> bool {
        std::ptr::eq(self.hub.as_ptr(), Arc::as_ptr(hub))
    }
}

/// Scrapes gathered or waiting to be, at once; more are refused rather than queued.
pub(crate) const MAX_SCRAPES: usize = 4;

/// The metrics of a live server.
pub(crate) struct Metrics {
    live: Arc<Live>,
    /// The last plan of each followed job, by job name.
    plans: tokio::sync::Mutex<HashMap<String, Arc<Planned>>>,
    /// A permit per scrape under way (its task's, released when the task ends).
    scrapes: Arc<tokio::sync::Semaphore>,
    /// The workers' `max_attempts` (`serve --max-attempts`; `None`: Spate's default).
    max_attempts: Option<u32>,
}

impl Metrics {
    pub(crate) fn new(live: Arc<Live>, max_attempts: Option<u32>) -> Metrics {
        Metrics {
            live,
            plans: Default::default(),
            scrapes: Arc::new(tokio::sync::Semaphore::new(MAX_SCRAPES)),
            max_attempts,
        }
    }

    /// Every followed job's figures and the server's, as exposition text.
    async fn gather(&self) -> String {
        let start = Instant::now();
        let hubs = self.live.followed_hubs().await;
        let mut x = Exposition::default();
        {
            let mut plans = self.plans.lock().await;
            plans.retain(|job, p| hubs.iter().any(|h| h.job == *job && p.is_of(h)));
            for hub in &hubs {
                let planned = self.plan(&mut plans, hub).await;
                add_plan(&mut x, &hub.job, &planned);
                add_following(&mut x, hub);
            }
        }
        add_server(&mut x, &self.live, start.elapsed());
        x.text()
    }

    /// The plan of `hub`'s state now: the one kept when the state has not moved, else a new
    /// one (off the async threads: at 100,000 splits it takes a second).
    async fn plan(&self, plans: &mut HashMap<String, Arc<Planned>>, hub: &Arc<Hub>) -> Arc<Planned> {
        if let Some(p) = plans.get(&hub.job) {
            if p.is_of(hub) && p.seq == hub.seq() {
                return p.clone();
            }
        }
        let (of, max_attempts) = (hub.clone(), self.max_attempts);
        let planned = match tokio::task::spawn_blocking(move || plan(&of, max_attempts)).await {
            Ok(p) => p,
            Err(e) => Planned {
                hub: Arc::downgrade(hub),
                seq: hub.seq(),
                revisions: (0, 0),
                gauges: Err(format!("planning failed: {e}")),
                took: Duration::ZERO,
            },
        };
        let planned = Arc::new(planned);
        plans.insert(hub.job.clone(), planned.clone());
        planned
    }
}

/// Plans the hub's state as it is now, judging the splits at risk by `max_attempts`.
fn plan(hub: &Arc<Hub>, max_attempts: Option<u32>) -> Planned {
    let start = Instant::now();
    hub.stats.planning();
    let (seq, snap) = hub.snapshot();
    let revisions = (
        snap.state.revision.unwrap_or_default(),
        snap.lease.revision.unwrap_or_default(),
    );
    let gauges =
        spate_planner_core::review::gauges(&snap, max_attempts).map_err(|e| format!("{e} [{}]", e.code));
    if let Ok(g) = &gauges {
        hub.stats.planned_at_risk(g.at_risk);
    }
    Planned {
        hub: Arc::downgrade(hub),
        seq,
        revisions,
        gauges,
        took: start.elapsed(),
    }
}

/// `GET /metrics`: gathered in a task of its own (a client that hangs up does not stop it), or
/// 503 when [`MAX_SCRAPES`] are under way.
pub(crate) async fn scrape(m: Arc<Metrics>) -> Response {
    let Ok(permit) = m.scrapes.clone().try_acquire_owned() else {
        let busy = Busy(format!(
            "{MAX_SCRAPES} scrapes are under way; try again in {RETRY_AFTER_S} s"
        ));
        return Refusal::from(busy).into_response();
    };
    let task = tokio::spawn(async move {
        let text = m.gather().await;
        drop(permit);
        text
    });
    let text = match task.await {
        Ok(text) => text,
        Err(e) => {
            let why = format!("the scrape failed: {e}\n");
            return (StatusCode::INTERNAL_SERVER_ERROR, why).into_response();
        }
    };
    (
        [
            (
                header::CONTENT_TYPE,
                prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
            ),
            (header::CACHE_CONTROL, "no-cache, no-store"),
        ],
        text,
    )
        .into_response()
}

/// The job's label, with others.
fn job(name: &str, more: &[(&'static str, &str)]) -> Labels {
    let mut labels = vec![("spate_job", name.to_string())];
    labels.extend(more.iter().map(|(k, v)| (*k, v.to_string())));
    labels
}

/// The figures of a job's plan (none when its state cannot be planned).
fn add_plan(x: &mut Exposition, name: &str, p: &Planned) {
    let one = |more: &[(&'static str, &str)]| job(name, more);
    x.add("spate_planner_plan_ok", one(&[]), p.gauges.is_ok());
    x.add(
        "spate_planner_plan_duration_seconds",
        one(&[]),
        p.took.as_secs_f64(),
    );
    x.add(
        "spate_planner_revision",
        one(&[("bucket", "state")]),
        p.revisions.0,
    );
    x.add(
        "spate_planner_revision",
        one(&[("bucket", "lease")]),
        p.revisions.1,
    );
    let Ok(g) = &p.gauges else {
        return;
    };
    let m = &g.moment;
    x.add("spate_planner_members", one(&[]), m.members);
    let s = &g.splits;
    for (state, n) in [
        ("running", s.running),
        ("idle", s.idle),
        ("withheld", s.withheld),
        ("quarantined", s.quarantined),
        ("completed", s.completed),
        ("waiting_for_spec", s.waiting_for_spec),
    ] {
        x.add("spate_planner_splits", one(&[("state", state)]), n);
    }
    x.add(
        "spate_planner_planned_splits",
        one(&[("outcome", "assigned")]),
        g.assigned,
    );
    x.add(
        "spate_planner_planned_splits",
        one(&[("outcome", "queued")]),
        m.queued,
    );
    for (when, side) in [("now", &g.now), ("planned", &g.planned)] {
        let w = one(&[("when", when)]);
        x.add("spate_planner_load_max_bytes", w.clone(), side.max_load);
        x.add("spate_planner_load_mean_bytes", w.clone(), side.mean_load);
        x.add("spate_planner_members_at_cap", w.clone(), side.at_cap);
        x.add("spate_planner_members_over_mean", w, side.over_mean);
    }
    x.add("spate_planner_load_lower_bound_bytes", one(&[]), g.lower_bound);
    x.add("spate_planner_planned_moves", one(&[]), m.moves);
    x.add("spate_planner_planned_move_bytes", one(&[]), g.weight_moved);
    add_published(x, name, g);
    let rules = m.rules.to_string();
    let leader = g.leader.as_deref().unwrap_or("");
    x.add(
        "spate_planner_job_info",
        one(&[("leader", leader), ("rules", rules.as_str())]),
        1u32,
    );
    add_risk(x, name, g);
    x.add("spate_planner_warnings", one(&[]), m.warnings);
    for (level, n) in ["fatal", "warning", "notice"].into_iter().zip(g.findings) {
        x.add("spate_planner_findings", one(&[("level", level)]), n);
    }
}

/// The splits at risk of quarantine, past the cap and parked by the claim race, and the
/// `max_attempts` they are judged by.
fn add_risk(x: &mut Exposition, name: &str, g: &Gauges) {
    let source = match g.max_attempts.source {
        AttemptsSource::User => "user",
        AttemptsSource::SpateDefault => "spate_default",
    };
    x.add(
        "spate_planner_max_attempts",
        job(name, &[("source", source)]),
        g.max_attempts.value,
    );
    x.add("spate_planner_splits_at_risk", job(name, &[]), g.at_risk);
    x.add(
        "spate_planner_splits_past_max_attempts",
        job(name, &[]),
        g.past_cap,
    );
    x.add(
        "spate_planner_splits_parked_by_race",
        job(name, &[]),
        g.race_parked,
    );
}

/// The distance to the published assignment and when it was last written.
fn add_published(x: &mut Exposition, name: &str, g: &Gauges) {
    let p = g.published.clone().unwrap_or_default();
    x.add("spate_planner_published_records", job(name, &[]), p.records);
    if let Some(distance) = g.moment.from_published {
        x.add("spate_planner_published_distance", job(name, &[]), distance);
    }
    x.add("spate_planner_published_stale_records", job(name, &[]), p.stale);
    x.add("spate_planner_published_conflicts", job(name, &[]), p.conflicts);
    if let Some(ms) = g.last_publish_ms {
        let at = ms as f64 / 1000.0;
        x.add("spate_planner_last_publish_timestamp_seconds", job(name, &[]), at);
    }
    x.add(
        "spate_planner_leader_publishes",
        job(name, &[]),
        g.leader_publishes,
    );
}

/// How following the job goes, as it is now.
fn add_following(x: &mut Exposition, hub: &Hub) {
    let name = hub.job.as_str();
    let now = crate::live::wire::status_word(&hub.status());
    for status in ["live", "reconnecting", "error", "silent"] {
        x.add(
            "spate_planner_job_status",
            job(name, &[("status", status)]),
            status == now,
        );
    }
    x.add("spate_planner_live_streams", job(name, &[]), hub.streams_open());
    x.add("spate_planner_changes", job(name, &[]), hub.stats.changes());
    x.add("spate_planner_resyncs", job(name, &[]), hub.stats.resyncs());
    x.add("spate_planner_plans", job(name, &[]), hub.stats.plans());
    if let Some(lag) = hub.stats.lag_seconds() {
        x.add("spate_planner_watch_lag_seconds", job(name, &[]), lag);
    }
    let (state, lease) = hub.stats.pending();
    x.add(
        "spate_planner_watch_pending_entries",
        job(name, &[("bucket", "state")]),
        state,
    );
    x.add(
        "spate_planner_watch_pending_entries",
        job(name, &[("bucket", "lease")]),
        lease,
    );
}

/// Each selected job the server knows: followed from the start (1) or not (0: past the cap, or
/// idle), whether it is idle (1) or not (0), and when it was last written to.
fn add_roster(x: &mut Exposition, live: &Live) {
    let roster = live.roster();
    for p in roster.places() {
        x.add("spate_planner_job_followed", job(&p.job, &[]), p.followed);
        x.add(
            "spate_planner_job_idle",
            job(&p.job, &[]),
            p.idle_since_ms().is_some(),
        );
        if let Some(ms) = p.last_write_ms {
            x.add(
                "spate_planner_job_last_write_timestamp_seconds",
                job(&p.job, &[]),
                ms as f64 / 1000.0,
            );
        }
    }
    x.add("spate_planner_jobs_max", vec![], roster.max());
}

/// The server's own figures.
fn add_server(x: &mut Exposition, live: &Live, took: Duration) {
    let conn = *live.conn.events.borrow();
    add_roster(x, live);
    x.add("spate_planner_jobs_followed", vec![], live.followed());
    x.add("spate_planner_nats_connected", vec![], conn.connected);
    x.add("spate_planner_nats_disconnects", vec![], conn.disconnects);
    x.add(
        "spate_planner_scrape_duration_seconds",
        vec![],
        took.as_secs_f64(),
    );
    for r in live.recordings() {
        let job = vec![("job", r.job.clone())];
        x.add("spate_planner_recording_ok", job.clone(), r.problem().is_none());
        x.add("spate_planner_recording_bytes", job, r.bytes());
    }
    let version = ("version", env!("CARGO_PKG_VERSION").to_string());
    x.add("spate_planner_build_info", vec![version], 1u32);
    process::add(x);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::figures::{leader_settings, plan_as_leader};
    use spate_planner_core::review::{gauges, MomentFigures};
    use spate_planner_core::{demo_snapshot, DemoParams, Fleet};

    /// The demo fleet tests/js/live.test.mjs plans in the page's module (`Planner.demo(300, 6, 4)`).
    fn demo() -> spate_planner_core::Snapshot {
        let params = DemoParams {
            splits: 300,
            members: 6,
            seed: 4,
            ..DemoParams::default()
        };
        demo_snapshot(&params).expect("the demo fleet")
    }

    /// The value of the sample of `name` in exposition `text` (the first, with `labels`).
    fn sample(text: &str, name: &str, labels: &str) -> Option<String> {
        let head = format!("{name}{{{labels}}} ");
        text.lines()
            .find_map(|l| l.strip_prefix(&head))
            .map(str::to_string)
    }

    #[test]
    fn the_metrics_and_the_page_give_one_moment_the_same_figures() {
        let snap = demo();
        let fleet = Fleet::from_snapshot(&snap).unwrap();
        let a = plan_as_leader(&fleet, &leader_settings(None, None)).unwrap();
        let core = MomentFigures::of(&fleet, &a);
        // the numbers tests/js/live.test.mjs reads from the page's module for the same fleet
        let counts = (core.members, core.queued, core.moves, core.from_published);
        assert_eq!(counts, (6, 0, 57, Some(102)), "{core:?}");
        let more = (core.completed, core.quarantined, core.warnings, core.max_load);
        assert_eq!(more, (39, 6, 8, 11_653_808_723), "{core:?}");
        // watch's line and --json line: commands/watch.rs's test holds them to the same numbers
        // /metrics: the gauges' moment, and the samples written from it
        let g = gauges(&snap, None).unwrap();
        assert_eq!(g.moment, core);
        let planned = Planned {
            hub: Weak::new(),
            seq: 0,
            revisions: g.revisions,
            gauges: Ok(g),
            took: Duration::ZERO,
        };
        let mut x = Exposition::default();
        add_plan(&mut x, "demo", &planned);
        let text = x.text();
        let job = "spate_job=\"demo\"";
        for (name, want) in [
            ("spate_planner_members", core.members.to_string()),
            ("spate_planner_planned_moves", core.moves.to_string()),
            ("spate_planner_warnings", core.warnings.to_string()),
            (
                "spate_planner_published_distance",
                core.from_published.unwrap().to_string(),
            ),
        ] {
            assert_eq!(sample(&text, name, job), Some(want), "{name}: {text}");
        }
        let queued = sample(
            &text,
            "spate_planner_planned_splits",
            &format!("{job},outcome=\"queued\""),
        );
        assert_eq!(queued, Some(core.queued.to_string()));
        let when = format!("{job},when=\"planned\"");
        let max = sample(&text, "spate_planner_load_max_bytes", &when);
        assert_eq!(max, Some(core.max_load.to_string()));
        let mean = sample(&text, "spate_planner_load_mean_bytes", &when).unwrap();
        assert_eq!(mean.parse::<f64>().ok(), Some(core.mean_load));
        let done = sample(
            &text,
            "spate_planner_splits",
            &format!("{job},state=\"completed\""),
        );
        assert_eq!(done, Some(core.completed.to_string()));
        let info = format!(
            "{job},leader=\"{}\",rules=\"{}\"",
            fleet.leader.as_ref().map_or("", |l| l.owner.as_str()),
            core.rules
        );
        assert_eq!(
            sample(&text, "spate_planner_job_info", &info),
            Some("1".into()),
            "{text}"
        );
    }
}
