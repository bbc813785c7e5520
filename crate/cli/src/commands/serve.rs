//! `spate-planner serve`: the dashboard, embedded in this binary, on 127.0.0.1 (or the address
//! of `--bind`, under the prefix of `--base-path`), with `/healthz`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::dashboard::{router, runtime, Listen, Served, Source};
use crate::hosts::Hosts;
use crate::live::http::Live;
use crate::live::roster::{Roster, Selection};
use crate::nats::{AuthArgs, Target};
use axum::body::Bytes;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A snapshot to open the dashboard with (served as /snapshot.json and shown at /);
    /// without one the dashboard opens with its built-in demo fleet.
    snapshot: Option<PathBuf>,
    #[command(flatten)]
    listen: Listen,
    /// Live mode: follow jobs on this NATS server (as for `snapshot`; credentials stay here and
    /// are never printed or sent to the page). Adds /api/jobs, /api/live, /api/snapshot,
    /// /api/v1/jobs/{job}/plan and /claims (docs/api.md) and /metrics (Prometheus: the followed
    /// jobs' plans, docs/metrics.md).
    #[arg(long)]
    server: Option<String>,
    /// With --server: follow this job (repeatable). Without --job or --jobs every job on the
    /// server is followed (up to --max-jobs); with them, only those named or matched.
    #[arg(long, value_name = "JOB", requires = "server")]
    job: Vec<String>,
    /// With --server: follow the jobs whose names match this pattern (repeatable): `*` any
    /// run of characters, `?` one, e.g. 'orders-*'.
    #[arg(long = "jobs", value_name = "PATTERN", requires = "server")]
    jobs: Vec<String>,
    /// With --server: at most this many jobs followed from the start (their state held, their
    /// series on /metrics); the others are listed as not followed, and a page may still open
    /// them.
    #[arg(long, value_name = "N", default_value_t = 50, requires = "server",
        value_parser = clap::value_parser!(u64).range(1..=1000))]
    max_jobs: u64,
    /// With --server: seconds between listings of the server's buckets, which find jobs created
    /// and deleted (a bucket's creation or deletion also lists them at once).
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "server",
        value_parser = clap::value_parser!(u64).range(1..=3600))]
    jobs_interval: u64,
    /// With --server: seconds after the last write to a job's buckets when the job is idle (a
    /// running worker rewrites its presence every few seconds, so an idle job has none): it
    /// is no longer followed, and says so in the job list, /healthz and /metrics
    /// (spate_planner_job_idle); its place goes to a job past --max-jobs, and the listing after
    /// its next write follows it again. Jobs named with --job are never dropped. 0: never.
    #[arg(long, value_name = "SECS", default_value_t = 3600, requires = "server")]
    idle_after: u64,
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    record: crate::live::record::RecordArgs,
    /// With --server: seconds between the heartbeat events of an idle live stream (well under a
    /// proxy's read timeout: nginx's is 60 s); the page calls a stream silent for twice as long
    /// stale, and reconnects.
    #[arg(long, value_name = "SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    heartbeat: u64,
    /// With --server: seconds a followed job's store may go unheard (no change, no answer to
    /// the stream info asked every third of this) before the job is said silent: /healthz
    /// fails naming it, the pages say so, /api/snapshot marks its answer.
    #[arg(long, value_name = "SECS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=3600))]
    stale_after: u64,
    /// Seconds to wait for the NATS server to connect and for each answer.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// With --server: the workers' max_attempts, which the store does not record, for
    /// /metrics' splits at risk of quarantine (default: Spate's 4).
    #[arg(long, value_name = "N", requires = "server")]
    max_attempts: Option<u32>,
    /// The largest request body the API (/api/v1, docs/api.md) reads, in bytes: a snapshot
    /// posted to plan, with its scenario. Larger bodies are refused (413), before they are read when they say their length.
    #[arg(long, value_name = "BYTES", default_value_t = crate::api::DEFAULT_MAX_BODY as u64,
        value_parser = clap::value_parser!(u64).range(1024..=crate::api::MAX_BODY))]
    api_max_body: u64,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let fail = |e: &str| {
        crate::term::fail("serve", &e);
        ExitCode::FAILURE
    };
    let (hosts, source) = match args.listen.checked() {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    let snapshot = match args.snapshot.as_deref().map(read_snapshot).transpose() {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(e) => return fail(&e),
    };
    let target = match args
        .server
        .as_deref()
        .map(|s| Target::new(s, &args.auth))
        .transpose()
    {
        Ok(t) => t,
        Err(e) => {
            crate::term::fail("serve", &e);
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(serve(args, hosts, source, snapshot, target.as_ref()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let e = target.as_ref().map(|t| t.redact(&e)).unwrap_or(e);
            crate::term::fail("serve", &e);
            ExitCode::FAILURE
        }
    }
}

/// The snapshot to serve, checked (its summary printed) and read once: every request for
/// `/snapshot.json` is sent these bytes, shared.
fn read_snapshot(p: &Path) -> Result<Served, String> {
    let (fleet, text) = crate::support::load_with_text(p)?;
    eprintln!(
        "snapshot {}: job {}, {} members, {} splits, {} warnings",
        p.display(),
        fleet.job,
        fleet.members.len(),
        fleet.splits.len(),
        fleet.warnings.len()
    );
    let bytes = Bytes::from(text);
    let name = p.file_name().map_or_else(
        || "snapshot.json".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(Served::new(name, bytes))
}

/// The jobs asked for, checked: the selection and its cap (`--record` records one job).
fn roster(args: &Args) -> Result<Roster, String> {
    let selection = Selection::new(&args.job, &args.jobs)?;
    if args.record.options().is_some() && selection.only().is_none() {
        return Err("--record records one job: name it with one --job, and no --jobs".into());
    }
    let idle_after_ms = (args.idle_after > 0)
        .then(|| i64::try_from(args.idle_after.saturating_mul(1000)).unwrap_or(i64::MAX));
    Roster::new(selection, args.max_jobs as usize, idle_after_ms)
}

/// Connects to NATS, reads the jobs `--job` named, and starts finding the others.
async fn live_side(args: &Args, target: Option<&Target>) -> Result<Option<Arc<Live>>, String> {
    let Some(target) = target else {
        return Ok(None);
    };
    let roster = roster(args)?;
    let timeout = std::time::Duration::from_secs(args.timeout.max(1));
    let mut conn = crate::live::connect(target, timeout, "spate-planner serve").await?;
    conn.stale_after = std::time::Duration::from_secs(args.stale_after);
    let heartbeat = std::time::Duration::from_secs(args.heartbeat);
    let live = Arc::new(Live::new(conn, roster, heartbeat));
    for job in &args.job {
        let hub = live.hub(job).await.map_err(|r| r.message())?;
        eprintln!("live: following job {job} on {}", target.public());
        if let Some(options) = args.record.options() {
            live.recording(crate::live::record::start(hub, options)?);
        }
    }
    if args.job.is_empty() || !args.jobs.is_empty() {
        eprintln!(
            "live: following {} on {} (at most {}; the page lists them)",
            if args.jobs.is_empty() {
                "every job".to_string()
            } else {
                format!("the jobs matching {}", args.jobs.join(", "))
            },
            target.public(),
            args.max_jobs
        );
    }
    let every = std::time::Duration::from_secs(args.jobs_interval);
    tokio::spawn(crate::live::discover::run(live.clone(), every));
    Ok(Some(live))
}

async fn serve(
    args: &Args,
    hosts: Hosts,
    source: Source,
    snapshot: Option<Served>,
    target: Option<&Target>,
) -> Result<(), String> {
    let bound = args.listen.bind().await?;
    let live = live_side(args, target).await?;
    // A served snapshot opens at `/` (the page names it on its element).
    let only = live.as_ref().and_then(|l| l.only());
    let query = match (&snapshot, only) {
        (None, Some(job)) => format!("?job={job}"),
        _ => String::new(),
    };
    let api = Arc::new(crate::api::Api::new(
        live.clone(),
        args.api_max_body as usize,
        args.listen.base_path.as_str(),
    ));
    let app = router(source, snapshot, live, args.max_attempts, Some(api));
    args.listen.serve(bound, hosts, &query, app).await;
    Ok(())
}
