//! The live endpoints `serve --server` adds, on the dashboard's own origin:
//! `GET /api/jobs`, `GET /api/live?job=J[&since=S-L]` (Server-Sent Events) and
//! `GET /api/snapshot?job=J`.

use super::follow::{self, Advisories, Conn};
use super::hub::Hub;
use super::limits::{self, Busy, Limits};
use super::roster::Roster;
use crate::store::ReadError;
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use spate_planner_core::valid_job_name;
use spate_planner_core::Revisions;
use std::collections::HashMap;
use std::sync::Arc;

/// At most this many jobs followed on demand (opened by a page or a request, beyond those
/// followed from the start: [`Roster`]) at once; idle ones (no page listening) make room.
pub(crate) const ON_DEMAND: usize = 8;

/// A job followed: its hub and the task that feeds it (aborted when the job is dropped), set
/// once its buckets are read. Requests for a job being read wait on it, without the lock on
/// every job: the other jobs are answered meanwhile.
type Slot = Arc<tokio::sync::OnceCell<(Arc<Hub>, tokio::task::AbortHandle)>>;

/// The live side of the server: one connection, the jobs followed.
pub(crate) struct Live {
    pub conn: Conn,
    /// The jobs asked for, those followed from the start, and what the last listing found.
    roster: std::sync::Mutex<Roster>,
    /// Each job followed or being read.
    hubs: tokio::sync::Mutex<HashMap<String, Slot>>,
    /// What the clients may take at once.
    limits: Arc<Limits>,
    /// How many jobs `hubs` holds, readable without waiting for its lock (`/healthz`).
    followed: std::sync::atomic::AtomicUsize,
    /// A stream's heartbeat interval (`--heartbeat`).
    heartbeat: std::time::Duration,
    /// The recordings this server writes (`--record`): `/healthz` and `/metrics` say how they go.
    recordings: std::sync::Mutex<Vec<Arc<super::record::Health>>>,
}

/// An HTTP error with a message for the page.
pub(crate) struct Refusal(StatusCode, String);

impl Refusal {
    pub(crate) fn message(self) -> String {
        self.1
    }

    /// The status and the message (the automation API writes them in its own error document).
    pub(crate) fn parts(self) -> (StatusCode, String) {
        (self.0, self.1)
    }
}

impl From<Busy> for Refusal {
    fn from(b: Busy) -> Refusal {
        Refusal(StatusCode::SERVICE_UNAVAILABLE, b.0)
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.1 }).to_string();
        let mut r = (self.0, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if self.0 == StatusCode::SERVICE_UNAVAILABLE {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(limits::RETRY_AFTER_S));
        }
        r
    }
}

/// A query parameter, %-decoded.
pub(crate) fn param(uri: &Uri, name: &str) -> Option<String> {
    uri.query()?.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (k == name).then(|| {
            percent_encoding::percent_decode_str(v)
                .decode_utf8_lossy()
                .into_owned()
        })
    })
}

impl Live {
    pub(crate) fn new(conn: Conn, roster: Roster, heartbeat: std::time::Duration) -> Live {
        Live {
            conn,
            roster: std::sync::Mutex::new(roster),
            hubs: tokio::sync::Mutex::new(HashMap::new()),
            limits: Arc::new(Limits::default()),
            followed: Default::default(),
            heartbeat,
            recordings: Default::default(),
        }
    }

    /// A recording this server writes, for the probes.
    pub(crate) fn recording(&self, health: Arc<super::record::Health>) {
        self.recordings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(health);
    }

    /// The recordings this server writes.
    pub(crate) fn recordings(&self) -> Vec<Arc<super::record::Health>> {
        self.recordings.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// How many jobs are followed now.
    pub(crate) fn followed(&self) -> usize {
        self.followed.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The jobs followed now, by name (not those still being read).
    pub(crate) async fn followed_hubs(&self) -> Vec<Arc<Hub>> {
        let slots = self.hubs.lock().await;
        let mut hubs: Vec<Arc<Hub>> = slots
            .values()
            .filter_map(|s| s.get())
            .map(|(h, _)| h.clone())
            .collect();
        hubs.sort_by(|a, b| a.job.cmp(&b.job));
        hubs
    }

    /// The roster (a poisoned lock is taken as it is: the roster is always whole).
    pub(crate) fn roster(&self) -> std::sync::MutexGuard<'_, Roster> {
        self.roster.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The one job served, when `--job` named one and nothing else was asked for.
    pub(crate) fn only(&self) -> Option<String> {
        self.roster().selection().only().map(str::to_string)
    }

    /// Why `job` is not served (the selection leaves it out), if it is not.
    pub(crate) fn refuses(&self, job: &str) -> Option<String> {
        self.roster().selection().refuses(job)
    }

    /// The job a request names (`?job=`), or the one `--job` named.
    fn job_of(&self, uri: &Uri) -> Result<String, Refusal> {
        let job = match (param(uri, "job"), self.only()) {
            (Some(a), _) => a,
            (None, Some(only)) => only,
            (None, None) => return Err(Refusal(StatusCode::BAD_REQUEST, "name the job: ?job=NAME".into())),
        };
        if !valid_job_name(&job) {
            return Err(Refusal(
                StatusCode::BAD_REQUEST,
                "invalid job name: Spate job names are 1 to 64 of A-Z a-z 0-9 _ -".into(),
            ));
        }
        if let Some(why) = self.refuses(&job) {
            return Err(Refusal(StatusCode::NOT_FOUND, why));
        }
        Ok(job)
    }

    /// The hub of `job`, started (its buckets read) on first use. The buckets are read outside
    /// the lock on every job: a request for another job is answered meanwhile, and requests for
    /// this one wait for the same read.
    pub(crate) async fn hub(&self, job: &str) -> Result<Arc<Hub>, Refusal> {
        let slot = self.slot(job).await?;
        let fresh = !slot.initialized();
        let read = slot.get_or_try_init(|| start(&self.conn, job)).await;
        match read {
            Ok((hub, _)) => {
                let hub = hub.clone();
                // counted again only when this request may have read it (not on every request)
                if fresh {
                    self.count_followed().await;
                }
                Ok(hub)
            }
            Err(e) => {
                // a read that failed leaves no slot: the next request reads again
                let mut hubs = self.hubs.lock().await;
                if hubs
                    .get(job)
                    .is_some_and(|s| Arc::ptr_eq(s, &slot) && s.get().is_none())
                {
                    hubs.remove(job);
                }
                Err(match e {
                    ReadError::Missing(m) => Refusal(StatusCode::NOT_FOUND, m),
                    other => Refusal(StatusCode::BAD_GATEWAY, other.to_string()),
                })
            }
        }
    }

    /// The slot of `job`: the one there, or a new one. A job followed from the start always
    /// has room; one on demand when fewer than [`ON_DEMAND`] are (idle ones dropped).
    async fn slot(&self, job: &str) -> Result<Slot, Refusal> {
        let mut hubs = self.hubs.lock().await;
        if let Some(s) = hubs.get(job) {
            return Ok(s.clone());
        }
        let from_start = self.roster().is_followed(job);
        if !from_start && self.on_demand(&hubs) >= ON_DEMAND {
            hubs.retain(|name, slot| match slot.get() {
                // being read (a request holds it): kept; left by requests that went away: dropped
                None => Arc::strong_count(slot) > 1,
                Some((h, task)) => {
                    let keep = h.listeners() > 0 || self.roster().is_followed(name);
                    if !keep {
                        task.abort();
                    }
                    keep
                }
            });
            self.store_followed(&hubs);
            if self.on_demand(&hubs) >= ON_DEMAND {
                return Err(Refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("{ON_DEMAND} jobs beyond those followed from the start are open already"),
                ));
            }
        }
        let slot = Slot::default();
        hubs.insert(job.to_string(), slot.clone());
        Ok(slot)
    }

    /// The jobs held on demand: not followed from the start.
    fn on_demand(&self, hubs: &HashMap<String, Slot>) -> usize {
        let roster = self.roster();
        hubs.keys().filter(|j| !roster.is_followed(j)).count()
    }

    /// Whether `job`'s state is held (read and followed).
    pub(crate) async fn holds(&self, job: &str) -> bool {
        self.hubs.lock().await.get(job).is_some_and(|s| s.initialized())
    }

    /// The hub of `job` if its state is held.
    pub(crate) async fn held(&self, job: &str) -> Option<Arc<Hub>> {
        let hubs = self.hubs.lock().await;
        hubs.get(job).and_then(|s| s.get()).map(|(h, _)| h.clone())
    }

    /// Stops following `job` from the start (its buckets are gone from the listing): dropped
    /// at once unless pages listen, which keep it as any job opened on demand (its follower
    /// says the bucket is gone, and reads it again if it comes back).
    pub(crate) async fn drop_job(&self, job: &str) {
        let mut hubs = self.hubs.lock().await;
        let listened = hubs
            .get(job)
            .and_then(|s| s.get())
            .is_some_and(|(hub, _)| hub.listeners() > 0);
        if !listened {
            if let Some((_, task)) = hubs.remove(job).as_ref().and_then(|s| s.get()) {
                task.abort();
            }
        }
        self.store_followed(&hubs);
    }

    async fn count_followed(&self) {
        let hubs = self.hubs.lock().await;
        self.store_followed(&hubs);
    }

    /// `followed`: the jobs whose buckets are read.
    fn store_followed(&self, hubs: &HashMap<String, Slot>) {
        let n = hubs.values().filter(|s| s.initialized()).count();
        self.followed.store(n, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Reads the job and starts following it: the hub, and the task that feeds it.
pub(crate) async fn start(conn: &Conn, job: &str) -> Result<(Arc<Hub>, tokio::task::AbortHandle), ReadError> {
    let advisories = Advisories::new(conn, job).await.map_err(ReadError::Other)?;
    let (state, watches) = follow::load(conn, job).await?;
    let hub = Hub::new(job, &conn.server, state);
    let follow = follow::run(hub.clone(), conn.clone(), watches, advisories);
    let task = tokio::spawn(futures_util::future::join(
        follow,
        super::heard::probe(hub.clone(), conn.clone()),
    ));
    Ok((hub, task.abort_handle()))
}

/// An API response's own headers (the security headers are the router's: `crate::headers`).
fn headers(content_type: &'static str) -> [(header::HeaderName, &'static str); 2] {
    [
        (header::CONTENT_TYPE, content_type),
        (header::CACHE_CONTROL, "no-cache, no-store"),
    ]
}

/// The event stream's headers: never cached nor transformed (compressed, buffered) on the way,
/// and `X-Accel-Buffering: no`, which nginx (and proxies that copy it) read as "pass each chunk
/// on at once" whatever their `proxy_buffering`.
const STREAM_HEADERS: [(&str, &str); 3] = [
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache, no-store, no-transform"),
    ("x-accel-buffering", "no"),
];

/// `GET /api/live`: the event stream. Resumes from `?since=S-L` or the `Last-Event-ID` header.
pub(crate) async fn live(live: Arc<Live>, uri: Uri, req: HeaderMap) -> Response {
    let job = match live.job_of(&uri) {
        Ok(j) => j,
        Err(r) => return r.into_response(),
    };
    let hub = match live.hub(&job).await {
        Ok(h) => h,
        Err(r) => return r.into_response(),
    };
    let since = param(&uri, "since")
        .or_else(|| {
            req.get("last-event-id")
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_string)
        })
        .and_then(|s| s.parse::<Revisions>().ok());
    match super::sse::body(hub, since, live.limits.clone(), live.heartbeat) {
        Ok(body) => (STREAM_HEADERS, body).into_response(),
        Err(busy) => Refusal::from(busy).into_response(),
    }
}

/// `GET /api/snapshot`: the state held now, as a snapshot file: the job's shared text (no
/// permit: a slow reader holds only its share of it), with this request's time as
/// `taken_at_ms`, and what was last heard from the store in the headers (`live/heard.rs`). A job
/// whose bucket was deleted is refused (410, code `job_deleted`), never served as current.
pub(crate) async fn snapshot(live: Arc<Live>, uri: Uri) -> Response {
    let answer = async {
        let job = live.job_of(&uri)?;
        let hub = live.hub(&job).await?;
        Ok::<_, Refusal>(hub)
    };
    let hub = match answer.await {
        Ok(h) => h,
        Err(r) => return r.into_response(),
    };
    if let super::wire::Status::Error(m) = hub.status() {
        return gone(&hub.job, &m);
    }
    let (pair, file) = hub.snapshot_file(&live.limits);
    let parts = file.at(crate::support::now_ms());
    let length = parts.iter().map(Bytes::len).sum::<usize>();
    let body = Body::from_stream(futures_util::stream::iter(
        parts.into_iter().map(Ok::<_, std::convert::Infallible>),
    ));
    let mut r = (headers("application/json"), body).into_response();
    r.headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    if let Ok(v) = HeaderValue::from_str(&pair.to_string()) {
        r.headers_mut().insert("x-spate-revisions", v);
    }
    super::heard::mark(&hub, r.headers_mut());
    r
}

/// 410 for a job whose bucket was deleted: `{"error", "code": "job_deleted", "job"}`.
fn gone(job: &str, why: &str) -> Response {
    let body = serde_json::json!({
        "error": format!("job {job} is not served: {why}"),
        "code": "job_deleted",
        "job": job,
    });
    (StatusCode::GONE, headers("application/json"), body.to_string()).into_response()
}
