//! `spate-planner snapshot`: a read-only copy of a job's two buckets from a live NATS server.
//!
//! It reads the buckets' configuration and copies each bucket as it was at one revision (a KV
//! watch read until it can be cut there, see [`crate::cut`]; the revision is recorded in the
//! file) and never puts, deletes or purges anything. The file is written atomically: on any
//! failure no output file exists.

use crate::nats::{self, AuthArgs, Target};
use crate::store::{self, ReadError};
use spate_planner_core::{snapshot::bucket_names, Bucket, Snapshot, Source};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The NATS server(s): a comma-separated list, e.g. nats://127.0.0.1:4222; credentials may
    /// be given as user:password@ or token@ (never printed or saved; see docs/snapshot-format.md),
    /// or through the environment (see --creds, --user, --token).
    #[arg(
        long,
        env = "NATS_URL",
        hide_env_values = true,
        default_value = "nats://127.0.0.1:4222"
    )]
    server: String,
    /// The Spate job whose buckets to copy ([A-Za-z0-9_-]{1,64}).
    #[arg(long)]
    job: String,
    /// Output file (default: standard output). Written atomically.
    #[arg(short, long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    auth: AuthArgs,
    /// Seconds to wait for the server to connect and for each answer or entry.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
}

/// A failure, with what to do about it.
struct Failure(String);

impl From<ReadError> for Failure {
    fn from(e: ReadError) -> Self {
        Failure(e.to_string())
    }
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let (target, rt) = match crate::nats::prepare(&args.job, &args.server, &args.auth) {
        Ok(t) => t,
        Err(e) => {
            crate::term::fail("snapshot", &e);
            return ExitCode::FAILURE;
        }
    };
    let text = match rt.block_on(export(args, &target)) {
        Ok(snap) => snap.to_json(),
        Err(Failure(msg)) => {
            crate::term::fail("snapshot", &target.redact(&msg));
            if args.output.is_some() {
                eprintln!("spate-planner snapshot: no file was written");
            }
            return ExitCode::FAILURE;
        }
    };
    let written = match &args.output {
        Some(p) => crate::support::write_atomically(p, text.as_bytes()),
        None => crate::stdout::all(text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner snapshot: cannot write the snapshot: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn export(args: &Args, target: &Target) -> Result<Snapshot, Failure> {
    let taken_at_ms = crate::support::now_ms();
    let timeout = Duration::from_secs(args.timeout.max(1));
    let client = target
        .connect(nats::basics(timeout, "spate-planner snapshot"))
        .await
        .map_err(Failure)?;
    let js = async_nats::jetstream::new(client.clone());
    let server = target.public();
    nats::check_jetstream(&js, &server).await.map_err(Failure)?;
    let (state_name, lease_name) = bucket_names(&args.job);
    let mut buckets = Vec::new();
    for name in [&state_name, &lease_name] {
        let reader = store::Reader {
            js: &js,
            client: &client,
            name,
            server: &server,
            idle: timeout,
        };
        let opened = store::open(&js, name, &args.job).await?;
        let show = opened.messages >= 10_000;
        let (bucket, _) = reader
            .read_all(&opened, |seen, expected| {
                if show && seen % 20_000 == 0 {
                    eprintln!("{name}: {seen} of about {expected} entries");
                }
            })
            .await?;
        if show {
            let at = bucket.revision.unwrap_or(0);
            eprintln!("{name}: {} entries, as at revision {at}", bucket.entries.len());
        }
        buckets.push(bucket);
    }
    let lease = buckets.pop().unwrap_or_else(|| empty(&lease_name));
    let state = buckets.pop().unwrap_or_else(|| empty(&state_name));
    Ok(Snapshot {
        job: args.job.clone(),
        source: Source {
            kind: "nats".into(),
            server: Some(server),
            note: Some(format!("spate-planner {} snapshot", env!("CARGO_PKG_VERSION"))),
        },
        taken_at_ms,
        state,
        lease,
    })
}

fn empty(name: &str) -> Bucket {
    Bucket {
        name: name.to_string(),
        history: 1,
        max_age_ms: 0,
        revision: None,
        entries: Vec::new(),
    }
}
