//! `spate-planner snapshot`: a read-only copy of a job's two buckets from a live NATS server.
//!
//! It reads the buckets' configuration and every live entry (an ordered consumer that delivers
//! the last value per key, as a KV watch does) and never puts, deletes or purges anything. The
//! file is written atomically: on any failure no output file exists.

use futures_util::StreamExt;
use spate_planner_core::snapshot::{bucket_names, valid_job_name, Bucket, Entry, Snapshot, Source};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(clap::Args)]
pub struct Args {
    /// The NATS server, e.g. nats://127.0.0.1:4222.
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    server: String,
    /// The Spate job whose buckets to copy ([A-Za-z0-9_-]{1,64}).
    #[arg(long)]
    job: String,
    /// Output file (default: standard output). Written atomically.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// A NATS credentials file (.creds).
    #[arg(long, value_name = "FILE")]
    creds: Option<PathBuf>,
    /// User name (with --password).
    #[arg(long, requires = "password")]
    user: Option<String>,
    /// Password (with --user).
    #[arg(long, requires = "user")]
    password: Option<String>,
    /// Authentication token.
    #[arg(long)]
    token: Option<String>,
    /// A CA certificate (PEM) to verify the server's TLS certificate; implies TLS.
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// Seconds to wait for the server to connect and for each answer or entry.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
}

/// A failure, with what to do about it.
struct Failure(String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The server URL without any user:password@ part, for the file.
fn public_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}{}", &url[..s + 3], &url[at + 1..]),
        _ => url.to_string(),
    }
}

/// Why reading a bucket failed: the connection is gone, the server stopped answering, or the
/// bucket itself was deleted meanwhile.
/// The bucket's message count, asked of the server now (`Store::status` only returns what was
/// cached when the bucket was opened).
async fn fresh_count(js: &async_nats::jetstream::Context, name: &str) -> Result<u64, String> {
    let mut stream = js
        .get_stream(format!("KV_{name}"))
        .await
        .map_err(|e| e.to_string())?;
    let info = stream.info().await.map_err(|e| e.to_string())?;
    Ok(info.state.messages)
}

async fn diagnose(
    js: &async_nats::jetstream::Context,
    client: &async_nats::Client,
    name: &str,
    args: &Args,
    what: &str,
) -> Failure {
    let server = public_url(&args.server);
    if client.connection_state() != async_nats::connection::State::Connected {
        return Failure(format!(
            "the connection to {server} was lost while reading bucket {name} ({what}); run the export again once the server is back"
        ));
    }
    let wait = Duration::from_secs(args.timeout.max(1));
    let answer = tokio::time::timeout(wait, fresh_count(js, name)).await;
    let timed_out = match &answer {
        Err(_) => true,
        Ok(Err(e)) => e.contains("timed out"),
        Ok(Ok(_)) => false,
    };
    if timed_out {
        return Failure(format!(
            "the server at {server} stopped answering while bucket {name} was being read (no reply in {}s: a slow server or network?); try again, or with a longer --timeout",
            wait.as_secs()
        ));
    }
    match answer {
        Err(_) => Failure(format!(
            "the server at {server} stopped answering while bucket {name} was being read (no reply in {}s: a slow server or network?); try again, or with a longer --timeout",
            wait.as_secs()
        )),
        Ok(Err(e)) if e.to_lowercase().contains("not found") => Failure(format!(
            "bucket {name} was deleted while it was being read ({what}); nothing consistent can be copied"
        )),
        Ok(Err(e)) => Failure(format!(
            "the server at {server} failed while bucket {name} was being read ({what}; then: {e}); try again, or with a longer --timeout"
        )),
        Ok(Ok(_)) => Failure(format!("reading bucket {name} failed ({what}); try again")),
    }
}

pub fn run(args: &Args) -> ExitCode {
    if !valid_job_name(&args.job) {
        eprintln!(
            "spate-planner snapshot: invalid job name {:?}: Spate job names are 1 to 64 of A-Z a-z 0-9 _ -",
            args.job
        );
        return ExitCode::FAILURE;
    }
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("spate-planner snapshot: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(export(args));
    let text = match result {
        Ok(snap) => snap.to_json(),
        Err(Failure(msg)) => {
            eprintln!("spate-planner snapshot: {msg}");
            if args.output.is_some() {
                eprintln!("spate-planner snapshot: no file was written");
            }
            return ExitCode::FAILURE;
        }
    };
    let written = match &args.output {
        Some(p) => crate::plan::write_atomically(p, text.as_bytes()),
        None => std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner snapshot: cannot write the snapshot: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn connect(args: &Args) -> Result<async_nats::Client, Failure> {
    let timeout = Duration::from_secs(args.timeout.max(1));
    let mut opts = match (&args.creds, &args.user, &args.token) {
        (Some(c), _, _) => async_nats::ConnectOptions::with_credentials_file(c)
            .await
            .map_err(|e| Failure(format!("cannot read the credentials file {}: {e}", c.display())))?,
        (None, Some(u), _) => async_nats::ConnectOptions::with_user_and_password(
            u.clone(),
            args.password.clone().unwrap_or_default(),
        ),
        (None, None, Some(t)) => async_nats::ConnectOptions::with_token(t.clone()),
        _ => async_nats::ConnectOptions::new(),
    };
    if let Some(ca) = &args.tls_ca {
        opts = opts.add_root_certificates(ca.clone()).require_tls(true);
    }
    opts = opts
        .connection_timeout(timeout)
        .request_timeout(Some(timeout))
        .name("spate-planner snapshot");
    opts.connect(args.server.as_str()).await.map_err(|e| {
        Failure(format!(
            "cannot connect to the NATS server at {}: {e}. Check --server (and credentials or TLS options), and that the server is running and reachable",
            public_url(&args.server)
        ))
    })
}

async fn export(args: &Args) -> Result<Snapshot, Failure> {
    let taken_at_ms = now_ms();
    let client = connect(args).await?;
    let js = async_nats::jetstream::new(client.clone());
    js.query_account().await.map_err(|e| {
        Failure(format!(
            "the server at {} does not answer JetStream requests ({e}): Spate needs JetStream (start nats-server with -js, or check the account's JetStream access)",
            public_url(&args.server)
        ))
    })?;
    let (state_name, lease_name) = bucket_names(&args.job);
    let state = read_bucket(&js, &client, &state_name, args).await?;
    let lease = read_bucket(&js, &client, &lease_name, args).await?;
    Ok(Snapshot {
        job: args.job.clone(),
        source: Source {
            kind: "nats".into(),
            server: Some(public_url(&args.server)),
            note: Some(format!("spate-planner {} snapshot", env!("CARGO_PKG_VERSION"))),
        },
        taken_at_ms,
        state,
        lease,
    })
}

async fn read_bucket(
    js: &async_nats::jetstream::Context,
    client: &async_nats::Client,
    name: &str,
    args: &Args,
) -> Result<Bucket, Failure> {
    use async_nats::jetstream::context::KeyValueErrorKind;
    use async_nats::jetstream::kv::Operation;
    let kv = js.get_key_value(name).await.map_err(|e| match e.kind() {
        KeyValueErrorKind::GetBucket if e.to_string().contains("not found") => Failure(format!(
            "bucket {name} does not exist on this server: is the job name {:?} right, and has the job run here?",
            args.job
        )),
        _ => Failure(format!("cannot open bucket {name}: {e}")),
    })?;
    let status = kv
        .status()
        .await
        .map_err(|e| Failure(format!("cannot read the status of bucket {name}: {e}")))?;
    let expected = status.values();
    let mut bucket = Bucket {
        name: name.to_string(),
        history: status.history().max(0) as u64,
        max_age_ms: status.max_age().as_millis() as u64,
        entries: Vec::with_capacity(expected as usize),
    };
    if expected == 0 {
        return Ok(bucket);
    }
    let idle = Duration::from_secs(args.timeout.max(1));
    let mut watch = kv
        .watch_with_history(">")
        .await
        .map_err(|e| Failure(format!("cannot read bucket {name}: {e}")))?;
    let show_progress = expected >= 10_000;
    let mut seen = 0u64;
    loop {
        let next = match tokio::time::timeout(idle, watch.next()).await {
            Ok(Some(Ok(e))) => Some(e),
            Ok(Some(Err(e))) => return Err(diagnose(js, client, name, args, &e.to_string()).await),
            Ok(None) => return Err(diagnose(js, client, name, args, "the stream of entries ended").await),
            Err(_) => None,
        };
        let Some(entry) = next else {
            // Quiet for a whole --timeout. Either the entries still pending expired meanwhile
            // (then the bucket has nothing newer than what was read), or something is wrong.
            if client.connection_state() == async_nats::connection::State::Connected {
                if let Ok(Ok(count)) = tokio::time::timeout(idle, fresh_count(js, name)).await {
                    if count == 0 {
                        break;
                    }
                    return Err(Failure(format!(
                        "reading bucket {name} stalled: no entry for {}s with entries still pending (server overloaded, or a slow network?); try a longer --timeout",
                        idle.as_secs()
                    )));
                }
            }
            return Err(diagnose(js, client, name, args, "no entry arrived").await);
        };
        seen += 1;
        if show_progress && seen % 20_000 == 0 {
            eprintln!("{name}: {seen} of about {expected} entries");
        }
        let delta = entry.delta;
        if entry.operation == Operation::Put {
            bucket.entries.push(Entry {
                key: entry.key,
                revision: entry.revision,
                created_ms: (entry.created.unix_timestamp_nanos() / 1_000_000) as i64,
                value: entry.value.to_vec(),
            });
        }
        if delta == 0 {
            break;
        }
    }
    if show_progress {
        eprintln!("{name}: {} entries", bucket.entries.len());
    }
    Ok(bucket)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_reach_the_file() {
        assert_eq!(public_url("nats://u:p@host:4222"), "nats://host:4222");
        assert_eq!(public_url("nats://host:4222"), "nats://host:4222");
        assert_eq!(public_url("tls://tok@h"), "tls://h");
    }
}

/// `spate-planner restore`: writes a snapshot's entries into a server's (new) buckets.
#[derive(clap::Args)]
pub struct RestoreArgs {
    /// The snapshot file to write into the server.
    snapshot: PathBuf,
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    server: String,
}

/// For tests, demos and benchmarks: recreates a job's two buckets (history and max_age as the
/// snapshot records them) on a server where they do not exist yet, and puts every entry. Refuses
/// to touch existing buckets. Revisions and creation times are the new server's.
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
            eprintln!("spate-planner restore: {msg}");
            ExitCode::FAILURE
        }
    }
}

async fn restore_async(args: &RestoreArgs) -> Result<usize, Failure> {
    use async_nats::jetstream::kv;
    let text = std::fs::read_to_string(&args.snapshot)
        .map_err(|e| Failure(format!("cannot read {}: {e}", args.snapshot.display())))?;
    let snap = Snapshot::parse(&text).map_err(|e| Failure(format!("{}: {e}", args.snapshot.display())))?;
    let client = async_nats::connect(args.server.as_str())
        .await
        .map_err(|e| Failure(format!("cannot connect to {}: {e}", public_url(&args.server))))?;
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
            ..Default::default()
        })
        .await
        .map_err(|e| Failure(format!("cannot create bucket {}: {e}", b.name)))?;
        let mut acks = Vec::new();
        for e in &b.entries {
            let subject = format!("$KV.{}.{}", b.name, e.key);
            acks.push(js.publish(subject, e.value.clone().into()).await?);
            if acks.len() >= 4096 {
                for a in acks.drain(..) {
                    a.await?;
                }
            }
        }
        for a in acks {
            a.await?;
        }
        written += b.entries.len();
    }
    Ok(written)
}
