//! `spate-planner restore` (hidden): writes a snapshot's entries into a server's (new) buckets.

use crate::nats::{self, AuthArgs, Target};
use spate_planner_core::Snapshot;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// What to write, and where.
#[derive(clap::Args)]
pub(crate) struct RestoreArgs {
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
pub(crate) fn restore(args: &RestoreArgs) -> ExitCode {
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
        Err(msg) => {
            crate::term::fail("restore", &msg);
            ExitCode::FAILURE
        }
    }
}

async fn restore_async(args: &RestoreArgs) -> Result<usize, String> {
    use async_nats::jetstream::kv;
    let text = crate::support::read_text(&args.snapshot, "snapshot", spate_planner_core::MAX_SNAPSHOT_BYTES)?;
    let snap = Snapshot::parse(&text).map_err(|e| format!("{}: {e}", args.snapshot.display()))?;
    let target = Target::new(&args.server, &args.auth)?;
    let client = target
        .connect(nats::basics(Duration::from_secs(10), "spate-planner restore"))
        .await?;
    let js = async_nats::jetstream::new(client);
    let mut written = 0;
    for b in [&snap.state, &snap.lease] {
        if js.get_key_value(&b.name).await.is_ok() {
            return Err(format!(
                "bucket {} already exists; restore only creates new buckets",
                b.name
            ));
        }
        js.create_key_value(kv::Config {
            bucket: b.name.clone(),
            history: b.history.clamp(1, 64) as i64,
            max_age: Duration::from_millis(b.max_age_ms),
            limit_markers: (b.max_age_ms > 0).then_some(Duration::from_secs(1)),
            ..Default::default()
        })
        .await
        .map_err(|e| format!("cannot create bucket {}: {e}", b.name))?;
        let mut acks = Vec::new();
        for e in &b.entries {
            let subject = format!("$KV.{}.{}", b.name, e.key);
            let failed =
                |x: &dyn std::fmt::Display| format!("cannot put {} in bucket {}: {x}", e.key, b.name);
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
                .map_err(|x| format!("cannot put an entry in bucket {}: {x}", b.name))?;
        }
        written += b.entries.len();
    }
    Ok(written)
}
