//! `spate-planner watch`: one line per change (bursts coalesced) with the plan's figures.

use super::figures::{figures, Figures};
use super::hub::{Batch, Hub};
use crate::nats::{AuthArgs, Target};
use spate_planner_core::Rules;
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
}

pub fn run(args: &Args) -> ExitCode {
    let (target, rt) = match crate::nats::prepare(&args.job, &args.server, &args.auth) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("spate-planner watch: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(watch(args, &target)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner watch: {}", target.redact(&e));
            ExitCode::FAILURE
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
    /// Adds a batch; a status is printed at once. `false` when the hub is gone.
    fn add(&mut self, b: Result<Arc<Batch>, RecvError>) -> bool {
        match b {
            Ok(b) => match &*b {
                Batch::Events { changes, .. } => self.changes += changes,
                Batch::Resync { .. } => self.resync = true,
                Batch::Status { status, .. } => {
                    println!("{} status: {}", clock(), super::wire::status_json(status))
                }
            },
            Err(RecvError::Lagged(_)) => self.resync = true,
            Err(RecvError::Closed) => return false,
        }
        true
    }
}

async fn watch(args: &Args, target: &Target) -> Result<(), String> {
    let timeout = Duration::from_secs(args.timeout.max(1));
    let conn = super::connect(target, timeout, "spate-planner watch").await?;
    let (hub, _task) = super::http::start(&conn, &args.job)
        .await
        .map_err(|e| e.to_string())?;
    let mut rx = hub.subscribe();
    println!("{}", line(&hub, "start", args.rules));
    let settle = Duration::from_millis(args.settle_ms);
    loop {
        let mut burst = Burst::default();
        if !burst.add(rx.recv().await) {
            return Ok(());
        }
        while let Ok(b) = tokio::time::timeout(settle, rx.recv()).await {
            if !burst.add(b) {
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
            println!("{}", line(&hub, &what, args.rules));
        }
    }
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

fn line(hub: &Hub, what: &str, rules: Option<Rules>) -> String {
    let (pair, snap) = hub.snapshot();
    let head = format!("{} revisions {pair} {what}:", clock());
    match figures(&snap, rules) {
        Ok(f) => format!("{head} {}", describe(&f)),
        // The error quotes store names: shown escaped, as every store string on a terminal.
        Err(e) => format!("{head} cannot plan: {}", crate::term::shown(&e.to_string())),
    }
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
