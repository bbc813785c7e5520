//! `spate-planner watch`: one line per change (bursts coalesced, at least a line every
//! `--max-wait-ms` while changes keep coming) with the plan's figures, from a live job fed by the
//! same changes as the page (the incremental join, not a whole one per line); and a line per
//! incident (who left or joined, when the window ends, who receives what, what is at risk), and
//! again when it moves on (the leader handed the splits out; they run again). `--json` writes
//! each line as one JSON object.

use crate::live::figures::{figures, leader_settings, plan_as_leader, Figures};
use crate::live::hub::{Batch, Hub};
use crate::nats::{AuthArgs, Target};
use spate_planner_core::{
    review::{incident_views, IncidentInputs, IncidentLog, IncidentView},
    utc::{utc_millis_text, utc_text},
    LiveChange, LiveJob, Rules,
};
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The NATS server(s), as for `snapshot` (credentials in it are never printed).
    #[arg(
        long,
        env = "NATS_URL",
        hide_env_values = true,
        default_value = "nats://127.0.0.1:4222"
    )]
    server: String,
    /// The Spate job to watch.
    #[arg(long)]
    job: String,
    #[command(flatten)]
    auth: AuthArgs,
    /// Seconds to wait for the server to connect and for each answer.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// A burst ends after this many milliseconds without a change; one line per burst.
    #[arg(long, default_value_t = 200)]
    settle_ms: u64,
    /// ... or after this many milliseconds, however busy the job: a line at least this often
    /// while changes keep coming.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    max_wait_ms: u64,
    /// Write each line as one JSON object (`{"type":"figures",…}` or `{"type":"incident",…}`).
    #[arg(long)]
    json: bool,
    /// The workers' `max_attempts`, which the store does not record (incidents judge what is at
    /// risk by it). Default: Spate's, 4.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: Option<u32>,
    /// The leader's rebalance delay in ms, which the store does not record (incidents count
    /// the window by it). Default: Spate's, 20000.
    #[arg(long)]
    rebalance_delay_ms: Option<u64>,
    /// Decide by this release's rules: 0.1 (also 0.2) or 0.3. Default: the release the store
    /// names (a plan record with an elector: 0.3; else 0.1).
    #[arg(long, value_name = "VERSION")]
    rules: Option<Rules>,
    #[command(flatten)]
    record: crate::live::record::RecordArgs,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let (target, rt) = match crate::nats::prepare(&args.job, &args.server, &args.auth) {
        Ok(t) => t,
        Err(e) => {
            crate::term::fail("watch", &e);
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(watch(args, &target)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("watch", &target.redact(&e));
            ExitCode::FAILURE
        }
    }
}

/// The job as `watch` follows it: a live job fed by the hub's changes (only what they touch is
/// joined again at each line), the batch sequence it stands at, and its incidents with the
/// phase each was last printed in.
struct Kept {
    job: Result<LiveJob, String>,
    seq: u64,
    incidents: IncidentLog,
    printed: BTreeMap<u64, String>,
}

fn refused(e: &spate_planner_core::SnapshotError) -> String {
    format!("{e} [{}]", e.code)
}

/// How lines are written: `--json` or not, the rules and the attempt limit.
struct Style {
    json: bool,
    rules: Option<Rules>,
    max_attempts: Option<u32>,
    rebalance_delay_ms: Option<u64>,
}

impl Kept {
    /// The hub's state now (the incidents of a state read again go on).
    fn of(hub: &Hub) -> Kept {
        let (seq, snap) = hub.snapshot();
        let job = LiveJob::from_parsed(snap).map_err(|e| refused(&e));
        Kept {
            job,
            seq,
            incidents: IncidentLog::new(),
            printed: BTreeMap::new(),
        }
    }

    /// The hub's state read again, keeping the incidents seen so far.
    fn reread(&mut self, hub: &Hub) {
        let fresh = Kept::of(hub);
        (self.job, self.seq) = (fresh.job, fresh.seq);
    }

    /// Applies a batch after the state kept; `false` when a change cannot be applied (the
    /// state must be read again). A state that could not be read is read again with it.
    fn apply(&mut self, hub: &Hub, seq: u64, changes: &[LiveChange]) -> bool {
        if seq <= self.seq {
            return true;
        }
        self.seq = seq;
        match &mut self.job {
            Ok(job) => changes.iter().all(|c| job.apply_change(c).is_ok()),
            Err(_) => {
                self.reread(hub);
                true
            }
        }
    }

    /// The lines for the state kept now: its revisions and the plan's figures, by the rules the
    /// store names unless `style.rules` sets them; then each incident that is new or moved on.
    /// An error quotes store names: shown escaped, as every store string on a terminal.
    fn lines(&mut self, what: &str, style: &Style) -> Vec<String> {
        let now = crate::support::now_ms();
        let job = match &mut self.job {
            Ok(job) => job,
            Err(e) => return vec![figures_line(now, what, None, Err(e.clone()), style)],
        };
        let revisions = job.revisions().to_string();
        let frame = job.frame(now).map_err(|e| refused(&e));
        // One plan of the frame's fleet for its figures and its incidents.
        let scenario = leader_settings(style.rules, style.rebalance_delay_ms);
        let planned = frame
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|f| plan_as_leader(&f.fleet, &scenario).map(|a| (f, a)));
        let figures = planned
            .as_ref()
            .map(|(f, a)| figures(&f.fleet, a))
            .map_err(Clone::clone);
        let mut out = vec![figures_line(now, what, Some(&revisions), figures, style)];
        if let Ok(f) = &frame {
            let model = spate_planner_sim::CrashPrediction::default();
            let inputs = IncidentInputs {
                scenario: &scenario,
                max_attempts: style.max_attempts,
                recovery: Some(&model),
                baseline: planned.as_ref().ok().map(|(_, a)| a),
            };
            self.incidents.observe(&f.changes, &f.fleet, &inputs);
        }
        let views = incident_views(&self.incidents, now);
        // the log keeps a bounded number of incidents: so does the memory of what was printed
        self.printed.retain(|id, _| views.iter().any(|v| v.id == *id));
        let mut fresh: Vec<&IncidentView> = views
            .iter()
            .filter(|v| self.printed.get(&v.id) != Some(&format!("{:?}", v.phase)))
            .collect();
        fresh.sort_by_key(|v| v.id);
        for v in fresh {
            self.printed.insert(v.id, format!("{:?}", v.phase));
            out.push(incident_line(now, v, style));
        }
        out
    }
}

/// The figures line (`revisions` `None`: the state could not be read).
fn figures_line(
    now: i64,
    what: &str,
    revisions: Option<&str>,
    f: Result<Figures, String>,
    style: &Style,
) -> String {
    if style.json {
        let mut v = serde_json::json!({"type": "figures", "at_ms": now, "at": utc_text(now), "what": what, "revisions": revisions});
        match &f {
            Ok(f) => v["figures"] = figures_json(f),
            Err(e) => v["error"] = e.as_str().into(),
        }
        return crate::term::json_shown(&v.to_string()).into_owned();
    }
    let head = match revisions {
        Some(r) => format!("{} revisions {r} {what}:", stamp(now)),
        None => format!("{} {what}:", stamp(now)),
    };
    match f {
        Ok(f) => format!("{head} {}", describe(&f)),
        Err(e) => format!("{head} cannot plan: {}", crate::term::shown(&e)),
    }
}

/// One incident: what happened, what the leader does and when, who receives what, what is at
/// risk, and (once the leader acted) what the fleet did.
fn incident_line(now: i64, v: &IncidentView, style: &Style) -> String {
    if style.json {
        let j = serde_json::json!({"type": "incident", "at_ms": now, "at": utc_text(now), "incident": v});
        return crate::term::json_shown(&j.to_string()).into_owned();
    }
    let mut words = vec![v.happened.clone(), v.leader.clone()];
    if !v.receivers.is_empty() {
        let r: Vec<&str> = v.receivers.iter().map(|r| r.text.as_str()).collect();
        words.push(format!("Receivers: {}.", r.join("; ")));
    }
    words.extend(v.risk.iter().map(|r| format!("At risk: {r}")));
    words.extend(v.verdict.iter().cloned());
    let text = words.join(" ");
    format!(
        "{} incident {} ({}): {}",
        stamp(now),
        v.id,
        crate::term::shown(&v.title),
        crate::term::shown(&text)
    )
}

/// The figures of `--json`'s lines (snake_case, as the command line's documents; `max_load` a
/// decimal string, as `exact` writes wide integers).
pub(crate) fn figures_json(f: &Figures) -> serde_json::Value {
    serde_json::json!({
        "members": f.members, "max_over_mean": f.max_over_mean, "max_over_bound": f.max_over_bound,
        "max_load": f.max_load.to_string(), "mean_load": f.mean_load,
        "queued": f.queued, "moves": f.moves, "from_published": f.from_published,
        "completed": f.completed, "quarantined": f.quarantined, "warnings": f.warnings,
        "rules": f.rules.to_string(),
    })
}

/// What one burst brought: changes, and whether the state was replaced.
struct Burst {
    changes: usize,
    resync: bool,
    /// Lines as JSON (`--json`).
    json: bool,
}

impl Burst {
    fn new(json: bool) -> Burst {
        Burst {
            changes: 0,
            resync: false,
            json,
        }
    }

    /// "+3 changes", or "resync".
    fn what(&self) -> String {
        match self.resync {
            true => "resync".into(),
            false => format!(
                "+{} change{}",
                self.changes,
                if self.changes == 1 { "" } else { "s" }
            ),
        }
    }

    /// Takes in a batch (a status is printed at once). `false` when the hub is gone.
    fn add(&mut self, kept: &mut Kept, hub: &Hub, b: Result<Arc<Batch>, RecvError>) -> bool {
        let reread = match b {
            Ok(b) => match &*b {
                Batch::Events { seq, changes, .. } => {
                    let fresh = *seq > kept.seq;
                    let applied = kept.apply(hub, *seq, changes);
                    self.changes += if fresh { changes.len() } else { 0 };
                    !applied
                }
                Batch::Resync { seq } => *seq > kept.seq,
                Batch::Status { status, .. } => {
                    print_lines(vec![status_line(
                        &crate::live::wire::status_json(status),
                        self.json,
                    )]);
                    false
                }
            },
            Err(RecvError::Lagged(_)) => true,
            Err(RecvError::Closed) => return false,
        };
        if reread {
            kept.reread(hub);
            self.resync = true;
        }
        true
    }
}

async fn watch(args: &Args, target: &Target) -> Result<(), String> {
    let timeout = Duration::from_secs(args.timeout.max(1));
    let conn = crate::live::connect(target, timeout, "spate-planner watch").await?;
    let (hub, _task) = crate::live::http::start(&conn, &args.job)
        .await
        .map_err(|e| e.to_string())?;
    if let Some(options) = args.record.options() {
        crate::live::record::start(hub.clone(), options)?;
    }
    let style = Style {
        json: args.json,
        rules: args.rules,
        max_attempts: args.max_attempts,
        rebalance_delay_ms: args.rebalance_delay_ms,
    };
    let mut rx = hub.subscribe();
    let mut kept = Kept::of(&hub);
    print_lines(kept.lines("start", &style));
    let (settle, most) = (
        Duration::from_millis(args.settle_ms),
        Duration::from_millis(args.max_wait_ms),
    );
    loop {
        let mut burst = Burst::new(args.json);
        if !burst.add(&mut kept, &hub, rx.recv().await) {
            return Ok(());
        }
        // The burst ends at a pause of `settle`, or `most` after it began on a job that never
        // pauses (a busy job is never silent for longer).
        let until = tokio::time::Instant::now() + most;
        loop {
            let wait = settle.min(until.saturating_duration_since(tokio::time::Instant::now()));
            let Ok(b) = tokio::time::timeout(wait, rx.recv()).await else {
                break;
            };
            if !burst.add(&mut kept, &hub, b) {
                return Ok(());
            }
            if tokio::time::Instant::now() >= until {
                break;
            }
        }
        if burst.changes > 0 || burst.resync {
            print_lines(kept.lines(&burst.what(), &style));
        }
    }
}

/// Prints `lines` (a closed standard output ends the process quietly: `crate::stdout`).
fn print_lines(lines: Vec<String>) {
    for l in lines {
        if let Err(e) = crate::stdout::line(format_args!("{l}")) {
            crate::term::fail("watch", &format!("cannot write: {e}"));
            std::process::exit(1);
        }
    }
}

/// A status of the stream (its JSON text as the live stream sends it).
fn status_line(status_json: &str, json: bool) -> String {
    let now = crate::support::now_ms();
    if json {
        let v: serde_json::Value = serde_json::from_str(status_json).unwrap_or(serde_json::Value::Null);
        let j = serde_json::json!({"type": "status", "at_ms": now, "at": utc_text(now), "status": v});
        return crate::term::json_shown(&j.to_string()).into_owned();
    }
    format!("{} status: {}", stamp(now), crate::term::json_shown(status_json))
}

/// The time of a line: date, clock to the millisecond, zone.
fn stamp(ms: i64) -> String {
    utc_millis_text(ms)
}

pub(crate) fn describe(f: &Figures) -> String {
    let published = match f.from_published {
        Some(n) => n.to_string(),
        None => "-".into(),
    };
    format!(
        "members {}, max/mean {:.4}, max/bound {:.4}, queued {}, moves pending {}, from published {}, warnings {}, rules {}",
        f.members, f.max_over_mean, f.max_over_bound, f.queued, f.moves, published, f.warnings, f.rules
    )
}

#[cfg(test)]
mod tests {
    use super::{describe, figures_json};
    use crate::live::figures::{figures, leader_settings, plan_as_leader};
    use spate_planner_core::review::MomentFigures;
    use spate_planner_core::{demo_snapshot, DemoParams, Fleet};

    /// watch's line and `--json` line give the core's moment of the demo fleet that
    /// metrics/mod.rs's test and tests/js/live.test.mjs (`Planner.demo(300, 6, 4)`) pin.
    #[test]
    fn watch_gives_the_same_moment_as_the_metrics_and_the_page() {
        let params = DemoParams {
            splits: 300,
            members: 6,
            seed: 4,
            ..DemoParams::default()
        };
        let fleet = Fleet::from_snapshot(&demo_snapshot(&params).unwrap()).unwrap();
        let a = plan_as_leader(&fleet, &leader_settings(None, None)).unwrap();
        let core = MomentFigures::of(&fleet, &a);
        let counts = (core.members, core.queued, core.moves, core.from_published);
        assert_eq!(counts, (6, 0, 57, Some(102)), "{core:?}");
        let f = figures(&fleet, &a);
        assert_eq!(f, core);
        let want = format!(
            "members 6, max/mean {:.4}, max/bound {:.4}, queued 0, moves pending 57, from published 102, warnings 8, rules {}",
            core.max_over_mean, core.max_over_bound, core.rules
        );
        assert_eq!(describe(&f), want);
        let j = figures_json(&f);
        assert_eq!(j["max_load"], core.max_load.to_string());
        assert_eq!(j["mean_load"].as_f64(), Some(core.mean_load));
        assert_eq!(
            (j["completed"].as_u64(), j["quarantined"].as_u64()),
            (Some(core.completed.into()), Some(core.quarantined.into()))
        );
    }
}
