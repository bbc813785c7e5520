//! `spate-planner snapshot`: a read-only copy of a job's two buckets from a live NATS server.
//!
//! It reads the buckets' configuration and copies each bucket as it was at one revision (a KV
//! watch read until it can be cut there, see [`crate::cut`]; the revision is recorded in the
//! file) and never puts, deletes or purges anything. The file is written atomically: on any
//! failure no output file exists.

use crate::nats::{self, AuthArgs, Target};
use crate::store::{self, ReadError};
use spate_planner_core::{bucket_names, Bucket, Snapshot, Source};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
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
pub(crate) struct Failure(pub String);

impl From<ReadError> for Failure {
    fn from(e: ReadError) -> Self {
        Failure(e.to_string())
    }
}

pub fn run(args: &Args) -> ExitCode {
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

/// `spate-planner restore`: writes a snapshot's entries into a server's (new) buckets.
#[derive(clap::Args)]
pub struct RestoreArgs {
    /// The snapshot file to write into the server.
    snapshot: PathBuf,
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    server: String,
    #[command(flatten)]
    auth: AuthArgs,
}

/// For tests, demos and benchmarks: recreates a job's two buckets (history and max_age as the
/// snapshot records them) on a server where they do not exist yet, and puts every entry. Refuses
/// to touch existing buckets. Revisions and creation times are the new server's. A bucket with a
/// `max_age` (the lease bucket) gets limit markers, as Spate creates it, so that expiry shows up
/// to watchers as a marker.
pub fn restore(args: &RestoreArgs) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("spate-planner restore: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(restore_async(args)) {
        Ok(n) => {
            eprintln!("spate-planner restore: wrote {n} entries");
            ExitCode::SUCCESS
        }
        Err(Failure(msg)) => {
            crate::term::fail("restore", &msg);
            ExitCode::FAILURE
        }
    }
}

async fn restore_async(args: &RestoreArgs) -> Result<usize, Failure> {
    use async_nats::jetstream::kv;
    let text = crate::support::read_text(&args.snapshot, "snapshot", spate_planner_core::MAX_SNAPSHOT_BYTES)
        .map_err(Failure)?;
    let snap = Snapshot::parse(&text).map_err(|e| Failure(format!("{}: {e}", args.snapshot.display())))?;
    let target = Target::new(&args.server, &args.auth).map_err(Failure)?;
    let client = target
        .connect(nats::basics(Duration::from_secs(10), "spate-planner restore"))
        .await
        .map_err(Failure)?;
    let js = async_nats::jetstream::new(client);
    let mut written = 0;
    for b in [&snap.state, &snap.lease] {
        if js.get_key_value(&b.name).await.is_ok() {
            return Err(Failure(format!(
                "bucket {} already exists; restore only creates new buckets",
                b.name
            )));
        }
        js.create_key_value(kv::Config {
            bucket: b.name.clone(),
            history: b.history.clamp(1, 64) as i64,
            max_age: Duration::from_millis(b.max_age_ms),
            limit_markers: (b.max_age_ms > 0).then_some(Duration::from_secs(1)),
            ..Default::default()
        })
        .await
        .map_err(|e| Failure(format!("cannot create bucket {}: {e}", b.name)))?;
        let mut acks = Vec::new();
        for e in &b.entries {
            let subject = format!("$KV.{}.{}", b.name, e.key);
            let failed = |x: &dyn std::fmt::Display| {
                Failure(format!("cannot put {} in bucket {}: {x}", e.key, b.name))
            };
            acks.push(
                js.publish(subject.clone(), e.value.clone().into())
                    .await
                    .map_err(|x| failed(&x))?,
            );
            if acks.len() >= 4096 {
                for a in acks.drain(..) {
                    a.await.map_err(|x| failed(&x))?;
                }
            }
        }
        for a in acks {
            a.await
                .map_err(|x| Failure(format!("cannot put an entry in bucket {}: {x}", b.name)))?;
        }
        written += b.entries.len();
    }
    Ok(written)
}
