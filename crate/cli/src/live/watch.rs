//! `spate-planner watch`: one line per change (bursts coalesced) with the plan's figures, from a
//! live job fed by the same changes as the page (the incremental join, not a whole one per line).

use super::figures::{figures, Figures};
use super::hub::{Batch, Hub};
use crate::nats::{AuthArgs, Target};
use spate_planner_core::{LiveChange, LiveJob, Rules};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

#[derive(clap::Args)]
pub struct Args {
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
    /// Decide by this release's rules: 0.1 (also 0.2) or 0.3. Default: the release the store
    /// names (a plan record with an elector: 0.3; else 0.1).
    #[arg(long, value_name = "VERSION")]
    rules: Option<Rules>,
    #[command(flatten)]
    record: super::record::RecordArgs,
}

pub fn run(args: &Args) -> ExitCode {
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
/// joined again at each line), and the batch sequence it stands at.
struct Kept {
    job: Result<LiveJob, String>,
    seq: u64,
}

fn refused(e: &spate_planner_core::SnapshotError) -> String {
    format!("{e} [{}]", e.code)
}

impl Kept {
    /// The hub's state now.
    fn of(hub: &Hub) -> Kept {
        let (seq, snap) = hub.snapshot();
        let job = LiveJob::from_parsed(snap).map_err(|e| refused(&e));
        Kept { job, seq }
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
                *self = Kept::of(hub);
                true
            }
        }
    }

    /// The line for the state kept now: its revisions and the plan's figures, by the rules the
    /// store names unless `rules` sets them. An error quotes store names: shown escaped, as every
    /// store string on a terminal.
    fn line(&mut self, what: &str, rules: Option<Rules>) -> String {
        let job = match &mut self.job {
            Ok(job) => job,
            Err(e) => return format!("{} {what}: cannot plan: {}", clock(), crate::term::shown(e)),
        };
        let head = format!("{} revisions {} {what}:", clock(), job.revisions());
        let shown = job.frame(crate::support::now_ms()).map_err(|e| refused(&e));
        match shown.and_then(|f| figures(&f.fleet, rules)) {
            Ok(f) => format!("{head} {}", describe(&f)),
            Err(e) => format!("{head} cannot plan: {}", crate::term::shown(&e)),
        }
    }
}

/// What one burst brought: changes, and whether the state was replaced.
#[derive(Default)]
struct Burst {
    changes: usize,
    resync: bool,
}

impl Burst {
    /// Takes in a batch (a status is printed at once). `false` when the hub is gone; an error
    /// when standard output cannot be written.
    fn add(&mut self, kept: &mut Kept, hub: &Hub, b: Result<Arc<Batch>, RecvError>) -> Result<bool, String> {
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
                    let json = super::wire::status_json(status);
                    let said = crate::term::json_shown(&json);
                    crate::stdout::line(format_args!("{} status: {said}", clock())).map_err(cannot_write)?;
                    false
                }
            },
            Err(RecvError::Lagged(_)) => true,
            Err(RecvError::Closed) => return Ok(false),
        };
        if reread {
            *kept = Kept::of(hub);
            self.resync = true;
        }
        Ok(true)
    }
}

async fn watch(args: &Args, target: &Target) -> Result<(), String> {
    let timeout = Duration::from_secs(args.timeout.max(1));
    let conn = super::connect(target, timeout, "spate-planner watch").await?;
    let (hub, _task) = super::http::start(&conn, &args.job)
        .await
        .map_err(|e| e.to_string())?;
    if let Some(options) = args.record.options() {
        super::record::start(hub.clone(), options)?;
    }
    let mut rx = hub.subscribe();
    let mut kept = Kept::of(&hub);
    crate::stdout::line(format_args!("{}", kept.line("start", args.rules))).map_err(cannot_write)?;
    let settle = Duration::from_millis(args.settle_ms);
    loop {
        let mut burst = Burst::default();
        if !burst.add(&mut kept, &hub, rx.recv().await)? {
            return Ok(());
        }
        while let Ok(b) = tokio::time::timeout(settle, rx.recv()).await {
            if !burst.add(&mut kept, &hub, b)? {
                return Ok(());
            }
        }
        if burst.changes > 0 || burst.resync {
            let what = match burst.resync {
                true => "resync".to_string(),
                false => format!(
                    "+{} change{}",
                    burst.changes,
                    if burst.changes == 1 { "" } else { "s" }
                ),
            };
            crate::stdout::line(format_args!("{}", kept.line(&what, args.rules))).map_err(cannot_write)?;
        }
    }
}

fn cannot_write(e: std::io::Error) -> String {
    format!("cannot write: {e}")
}

/// The time of day (UTC), for the lines.
fn clock() -> String {
    let ms = crate::support::now_ms().rem_euclid(86_400_000);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn describe(f: &Figures) -> String {
    let published = match f.from_published {
        Some(n) => n.to_string(),
        None => "-".into(),
    };
    format!(
        "members {}, max/mean {:.4}, max/bound {:.4}, queued {}, moves pending {}, from published {}, warnings {}, rules {}",
        f.members, f.max_over_mean, f.max_over_bound, f.queued, f.moves, published, f.warnings, f.rules
    )
}
