//! Following a job on NATS: the exporter's reading of both buckets, kept open as watches, fed
//! into the hub; rebuilt by a fresh watch after a reconnect, a gap or a bucket coming back.
//!
//! Nothing here polls: the loop sleeps until an entry, a connection event, a stream advisory or
//! the next lease deadline (the expiry timer).

use super::hub::{Hub, BATCH};
use super::stats::Seen;
use super::wire::Status;
use crate::store::{self, Fresh, ReadError};
use async_nats::jetstream::kv::{self, Operation};
use futures_util::{FutureExt, StreamExt};
use spate_planner_core::{live::LiveOp, snapshot::bucket_names, Bucket, JobState, LiveChange, Side};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Whether the client is connected; `disconnects` counts the connections lost (a watch opened
/// before a loss is not trusted after it, even if the client reconnected meanwhile).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConnState {
    pub connected: bool,
    pub disconnects: u64,
}

/// A connection shared by every followed job.
#[derive(Clone)]
pub(crate) struct Conn {
    pub client: async_nats::Client,
    pub js: async_nats::jetstream::Context,
    /// The server's addresses, without credentials.
    pub server: String,
    pub events: watch::Receiver<ConnState>,
    pub idle: Duration,
    /// A followed job not heard from for this long is silent (`live/heard.rs`).
    pub stale_after: Duration,
}

/// The two watches, positioned after the state they were read into.
pub(crate) struct Watches {
    state: kv::Watch,
    lease: kv::Watch,
    /// Connections lost before the watches were opened.
    disconnects: u64,
    /// Each bucket's name and when its stream was created (ns since the Unix epoch).
    created: [(String, i128); 2],
}

/// Reads both buckets afresh: the state and the watches that continue from it.
pub(crate) async fn load(conn: &Conn, job: &str) -> Result<(JobState, Watches), ReadError> {
    let (state_name, lease_name) = bucket_names(job);
    let disconnects = conn.events.borrow().disconnects;
    let state = load_bucket(conn, job, &state_name).await?;
    let lease = load_bucket(conn, job, &lease_name).await?;
    let held = JobState::new(job, state.0, lease.0).map_err(|e| ReadError::Other(e.to_string()))?;
    Ok((
        held,
        Watches {
            state: state.1,
            lease: lease.1,
            disconnects,
            created: [(state_name, state.2), (lease_name, lease.2)],
        },
    ))
}

/// A bucket copied as it was at one revision (the cut), the watch that continues from there,
/// and when its stream was created.
async fn load_bucket(conn: &Conn, job: &str, name: &str) -> Result<(Bucket, kv::Watch, i128), ReadError> {
    let reader = store::Reader {
        js: &conn.js,
        client: &conn.client,
        name,
        server: &conn.server,
        idle: conn.idle,
    };
    let opened = store::open(&conn.js, name, job).await?;
    let (bucket, watch) = reader.read_all(&opened, |_, _| {}).await?;
    Ok((bucket, watch, opened.created_ns))
}

/// Why following stopped.
enum Stop {
    Disconnected,
    /// A bucket was deleted (its name).
    Deleted(String),
    /// Anything else: rebuild from a fresh watch.
    Rebuild(String),
}

fn change_of(side: Side, e: &kv::Entry) -> LiveChange {
    let op = match e.operation {
        Operation::Put => LiveOp::Put(store::entry_of(e)),
        Operation::Delete | Operation::Purge => LiveOp::Delete {
            key: e.key.clone(),
            revision: e.revision,
            created_ms: store::created_ms(e),
            purge: e.operation == Operation::Purge,
        },
    };
    LiveChange { side, op }
}

type Next = Option<Result<kv::Entry, kv::WatcherError>>;

/// Turns one watch item of bucket `bucket` (the `side` of the job) into a change (noting when it
/// was written and what the watch has left after it), or why following must stop.
fn take(
    (side, bucket): (Side, &str),
    item: Next,
    out: &mut Vec<LiveChange>,
    seen: &mut Seen,
) -> Result<(), String> {
    match item {
        Some(Ok(e)) => {
            seen.entry(side, store::created_ms(&e), e.delta);
            out.push(change_of(side, &e));
            Ok(())
        }
        Some(Err(e)) => Err(format!("the watch of bucket {bucket} failed: {e}")),
        None => Err(format!("the watch of bucket {bucket} ended")),
    }
}

/// After one change, whatever else is ready at once (up to a batch): bursts go out together.
fn gather(w: &mut Watches, out: &mut Vec<LiveChange>, seen: &mut Seen) -> Result<(), String> {
    let [(state, _), (lease, _)] = &w.created;
    while out.len() < BATCH {
        let mut got = false;
        if let Some(item) = w.state.next().now_or_never() {
            take((Side::State, state), item, out, seen)?;
            got = true;
        }
        if let Some(item) = w.lease.next().now_or_never() {
            take((Side::Lease, lease), item, out, seen)?;
            got = true;
        }
        if !got {
            break;
        }
    }
    Ok(())
}

fn now_ms() -> i64 {
    crate::support::now_ms()
}

/// Sleeps until the next lease deadline (forever when there is none).
async fn until(deadline: Option<i64>) {
    match deadline {
        Some(d) => tokio::time::sleep(Duration::from_millis((d - now_ms()).max(0) as u64 + 1)).await,
        None => std::future::pending().await,
    }
}

/// Feeds the hub until something stops it.
async fn follow(hub: &Hub, conn: &mut Conn, w: &mut Watches, advisories: &mut Advisories) -> Stop {
    let disconnects = w.disconnects;
    let [(state, _), (lease, _)] = w.created.clone();
    loop {
        let (mut batch, mut seen) = (Vec::new(), Seen::default());
        let first = tokio::select! {
            item = w.state.next() => take((Side::State, &state), item, &mut batch, &mut seen),
            item = w.lease.next() => take((Side::Lease, &lease), item, &mut batch, &mut seen),
            _ = until(hub.next_deadline()) => {
                hub.expire(now_ms());
                continue;
            }
            changed = conn.events.changed() => {
                let now = *conn.events.borrow();
                if changed.is_err() || !now.connected || now.disconnects != disconnects {
                    return Stop::Disconnected;
                }
                continue;
            }
            Some(name) = advisories.deleted() => match confirm_deleted(conn, &name, w.created_ns(&name)).await {
                Some(stop) => return stop,
                None => continue,
            },
        };
        if let Err(e) = first.and_then(|_| gather(w, &mut batch, &mut seen)) {
            return Stop::Rebuild(e);
        }
        if let Err(r) = hub.publish(batch) {
            return Stop::Rebuild(format!(
                "bucket {} went back to an older revision at key {} (recreated?)",
                r.bucket, r.key
            ));
        }
        hub.stats.batch(&seen, now_ms());
    }
}

impl Watches {
    /// When bucket `name`'s stream was created, if it is one of the two.
    fn created_ns(&self, name: &str) -> Option<i128> {
        self.created.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
    }
}

/// An advisory said bucket `name` (its stream created at `ours`) was deleted. An advisory is a
/// plain message that any client of the account can publish, so the server is asked: `None`
/// (nothing to do) unless the stream is gone, or is another stream of the same name (deleted and
/// created again). When the server does not answer, nothing is done either: a lost connection
/// shows in the connection's events, a failing watch in the watch.
async fn confirm_deleted(conn: &Conn, name: &str, ours: Option<i128>) -> Option<Stop> {
    let ours = ours?;
    match tokio::time::timeout(conn.idle, store::fresh_info(&conn.js, name)).await {
        Ok(Fresh::NotFound) => Some(Stop::Deleted(name.to_string())),
        Ok(Fresh::Stream(now)) if now.created_ns != ours => Some(Stop::Rebuild(format!(
            "bucket {name} was deleted and created again"
        ))),
        _ => None,
    }
}

/// The server's advisories about the job's two streams (deleted, created). Claims only: see
/// [`confirm_deleted`].
pub(crate) struct Advisories {
    sub: futures_util::stream::SelectAll<async_nats::Subscriber>,
}

impl Advisories {
    pub(crate) async fn new(conn: &Conn, job: &str) -> Result<Advisories, String> {
        let (s, l) = bucket_names(job);
        let mut sub = futures_util::stream::SelectAll::new();
        for name in [s, l] {
            let subject = format!("$JS.EVENT.ADVISORY.STREAM.*.KV_{name}");
            let one = conn
                .client
                .subscribe(subject)
                .await
                .map_err(|e| format!("cannot follow the advisories of bucket {name}: {e}"))?;
            sub.push(one);
        }
        Ok(Advisories { sub })
    }

    /// The next advisory: (action, bucket name).
    async fn next(&mut self) -> Option<(String, String)> {
        let m = self.sub.next().await?;
        let mut parts = m.subject.as_str().splitn(6, '.');
        let action = parts.nth(4)?.to_string();
        let stream = parts.next()?;
        Some((action, stream.trim_start_matches("KV_").to_string()))
    }

    /// The next bucket deleted.
    async fn deleted(&mut self) -> Option<String> {
        loop {
            match self.next().await? {
                (a, name) if a == "DELETED" => return Some(name),
                _ => continue,
            }
        }
    }

    /// The next bucket created.
    async fn created(&mut self) -> Option<String> {
        loop {
            match self.next().await? {
                (a, name) if a == "CREATED" => return Some(name),
                _ => continue,
            }
        }
    }
}

/// Follows the job for as long as the hub lives: after any stop, waits for what it needs (the
/// connection, the bucket) and rebuilds the state with a fresh watch.
pub(crate) async fn run(hub: Arc<Hub>, mut conn: Conn, mut watches: Watches, mut advisories: Advisories) {
    loop {
        let stop = follow(&hub, &mut conn, &mut watches, &mut advisories).await;
        hub.set_status(match &stop {
            Stop::Disconnected => Status::Reconnecting(format!(
                "the connection to {} was lost; reconnecting",
                conn.server
            )),
            Stop::Deleted(b) => Status::Error(format!(
                "bucket {b} was deleted; waiting for it to be created again"
            )),
            Stop::Rebuild(why) => Status::Reconnecting(format!("{why}; reading the buckets again")),
        });
        watches = recover(&hub, &mut conn, &mut advisories).await;
    }
}

/// Waits until connected.
async fn connected(conn: &mut Conn) {
    while !conn.events.borrow_and_update().connected {
        if conn.events.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Rebuilds the state once the server and the buckets are there; the hub then resyncs everyone.
async fn recover(hub: &Hub, conn: &mut Conn, advisories: &mut Advisories) -> Watches {
    let mut delay = Duration::from_millis(250);
    loop {
        connected(conn).await;
        match load(conn, &hub.job).await {
            Ok((state, watches)) => {
                hub.replace(state);
                hub.set_status(Status::Live);
                return watches;
            }
            Err(ReadError::Missing(m)) | Err(ReadError::Deleted(m)) => {
                hub.set_status(Status::Error(m));
                tokio::select! {
                    Some(_) = advisories.created() => {}
                    Ok(()) = conn.events.changed() => {}
                    else => std::future::pending::<()>().await,
                }
            }
            Err(e) => {
                hub.set_status(Status::Reconnecting(e.to_string()));
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
        }
    }
}
