//! Reading a job's buckets, shared by `snapshot` (a one-off copy) and `serve`/`watch` (the same
//! reading, kept open as a watch): opening a bucket, its configuration, every live entry as the
//! snapshot format records it, and errors told apart by their kinds.
//!
//! Read-only: nothing here puts, deletes or purges.

use async_nats::jetstream::context::{GetStreamErrorKind, KeyValueErrorKind, RequestErrorKind};
use async_nats::jetstream::kv::{self, Operation};
use async_nats::jetstream::{self, ErrorCode};
use futures_util::StreamExt;
use spate_planner_core::{Bucket, Entry};
use std::time::Duration;

/// Why reading failed. Every message names the bucket.
#[derive(Debug)]
pub enum ReadError {
    /// The bucket does not exist (never created, or deleted).
    Missing(String),
    /// The bucket was deleted while it was being read.
    Deleted(String),
    /// The connection to the server was lost.
    Lost(String),
    /// The server stopped answering.
    Stalled(String),
    /// Anything else, with the server's words.
    Other(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (ReadError::Missing(m)
        | ReadError::Deleted(m)
        | ReadError::Lost(m)
        | ReadError::Stalled(m)
        | ReadError::Other(m)) = self;
        f.write_str(m)
    }
}

/// A bucket being read: its handle, its configuration (a [`Bucket`] without entries) and how
/// many messages its stream held when opened.
pub struct Opened {
    pub kv: kv::Store,
    pub bucket: Bucket,
    pub messages: u64,
    pub last_sequence: u64,
}

/// The answer of the server to "how many messages does this stream hold now".
pub enum Count {
    Messages(u64),
    NotFound,
    TimedOut,
    Failed(String),
}

/// The stream's message count, asked of the server now (`Store::status` only returns what was
/// cached when the bucket was opened).
pub async fn fresh_count(js: &jetstream::Context, name: &str) -> Count {
    match js.get_stream(format!("KV_{name}")).await {
        Ok(s) => Count::Messages(s.cached_info().state.messages),
        Err(e) => match e.kind() {
            GetStreamErrorKind::JetStream(j) if j.error_code() == ErrorCode::STREAM_NOT_FOUND => {
                Count::NotFound
            }
            GetStreamErrorKind::Request => match request_kind(&e) {
                Some(RequestErrorKind::TimedOut) => Count::TimedOut,
                _ => Count::Failed(e.to_string()),
            },
            _ => Count::Failed(e.to_string()),
        },
    }
}

/// The kind of the JetStream request error behind `e`, if that is what it is.
fn request_kind(e: &dyn std::error::Error) -> Option<RequestErrorKind> {
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<async_nats::jetstream::context::RequestError>() {
            return Some(r.kind());
        }
        source = s.source();
    }
    None
}

fn is_stream_not_found(e: &async_nats::jetstream::context::KeyValueError) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(g) = s.downcast_ref::<async_nats::jetstream::context::GetStreamError>() {
            return matches!(g.kind(), GetStreamErrorKind::JetStream(j) if j.error_code() == ErrorCode::STREAM_NOT_FOUND);
        }
        source = s.source();
    }
    false
}

/// Opens bucket `name` of job `job` and reads its configuration.
pub async fn open(js: &jetstream::Context, name: &str, job: &str) -> Result<Opened, ReadError> {
    let kv = js.get_key_value(name).await.map_err(|e| match e.kind() {
        KeyValueErrorKind::GetBucket if is_stream_not_found(&e) => ReadError::Missing(format!(
            "bucket {name} does not exist on this server: is the job name {job:?} right, and has the job run here?"
        )),
        _ => ReadError::Other(format!("cannot open bucket {name}: {e}")),
    })?;
    let status = kv
        .status()
        .await
        .map_err(|e| ReadError::Other(format!("cannot read the status of bucket {name}: {e}")))?;
    let bucket = Bucket {
        name: name.to_string(),
        history: status.history().max(0) as u64,
        max_age_ms: status.max_age().as_millis() as u64,
        entries: Vec::new(),
    };
    Ok(Opened {
        kv,
        bucket,
        messages: status.values(),
        last_sequence: status.info.state.last_sequence,
    })
}

/// A store entry as the snapshot records it.
pub fn entry_of(e: &kv::Entry) -> Entry {
    Entry {
        key: e.key.clone(),
        revision: e.revision,
        created_ms: created_ms(e),
        value: e.value.to_vec(),
    }
}

/// When the entry was written, in ms since the Unix epoch.
pub fn created_ms(e: &kv::Entry) -> i64 {
    (e.created.unix_timestamp_nanos() / 1_000_000) as i64
}

/// One step of reading: an entry (a put, or a delete or purge marker), or "caught up".
pub enum Step {
    Entry(Box<kv::Entry>),
    Current,
}

/// Reads a bucket's current entries from a fresh watch, then hands the watch back still open.
pub struct Reader<'a> {
    pub js: &'a jetstream::Context,
    pub client: &'a async_nats::Client,
    pub name: &'a str,
    /// The server's address, for messages.
    pub server: &'a str,
    /// How long to wait for each answer or entry.
    pub idle: Duration,
}

impl Reader<'_> {
    /// Starts a watch that delivers every key's last value, then every change.
    pub async fn watch(&self, opened: &Opened) -> Result<kv::Watch, ReadError> {
        opened
            .kv
            .watch_with_history(">")
            .await
            .map_err(|e| ReadError::Other(format!("cannot read bucket {}: {e}", self.name)))
    }

    /// The next entry while catching up; `Current` once the last one present at the start has
    /// been delivered (or everything pending expired meanwhile).
    pub async fn next(&self, watch: &mut kv::Watch) -> Result<Step, ReadError> {
        match tokio::time::timeout(self.idle, watch.next()).await {
            Ok(Some(Ok(e))) => Ok(Step::Entry(Box::new(e))),
            Ok(Some(Err(e))) => Err(self.diagnose(&e.to_string()).await),
            Ok(None) => Err(self.diagnose("the stream of entries ended").await),
            Err(_) => self.quiet().await,
        }
    }

    /// Quiet for a whole timeout. Either the entries still pending expired meanwhile (then the
    /// bucket has nothing newer than what was read), or something is wrong.
    async fn quiet(&self) -> Result<Step, ReadError> {
        if self.client.connection_state() == async_nats::connection::State::Connected {
            if let Ok(Count::Messages(count)) =
                tokio::time::timeout(self.idle, fresh_count(self.js, self.name)).await
            {
                if count == 0 {
                    return Ok(Step::Current);
                }
                return Err(ReadError::Stalled(format!(
                    "reading bucket {} stalled: no entry for {}s with entries still pending (server overloaded, or a slow network?); try a longer --timeout",
                    self.name,
                    self.idle.as_secs()
                )));
            }
        }
        Err(self.diagnose("no entry arrived").await)
    }

    /// Why reading failed: the connection is gone, the server stopped answering, or the bucket
    /// itself was deleted meanwhile.
    pub async fn diagnose(&self, what: &str) -> ReadError {
        let (server, name) = (self.server, self.name);
        if self.client.connection_state() != async_nats::connection::State::Connected {
            return ReadError::Lost(format!(
                "the connection to {server} was lost while reading bucket {name} ({what}); run the export again once the server is back"
            ));
        }
        let stopped = || {
            ReadError::Stalled(format!(
                "the server at {server} stopped answering while bucket {name} was being read (no reply in {}s: a slow server or network?); try again, or with a longer --timeout",
                self.idle.as_secs()
            ))
        };
        match tokio::time::timeout(self.idle, fresh_count(self.js, name)).await {
            Err(_) | Ok(Count::TimedOut) => stopped(),
            Ok(Count::NotFound) => ReadError::Deleted(format!(
                "bucket {name} was deleted while it was being read ({what}); nothing consistent can be copied"
            )),
            Ok(Count::Failed(e)) => ReadError::Other(format!(
                "the server at {server} failed while bucket {name} was being read ({what}; then: {e}); try again, or with a longer --timeout"
            )),
            Ok(Count::Messages(_)) => ReadError::Other(format!("reading bucket {name} failed ({what}); try again")),
        }
    }

    /// Reads every live entry of `opened` into its bucket (in revision order, as delivered),
    /// reporting progress on large buckets; returns the bucket, the highest revision seen and
    /// the watch, still open for what comes next (`None` when the bucket was empty).
    pub async fn read_all(
        &self,
        opened: &Opened,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<(Bucket, u64, Option<kv::Watch>), ReadError> {
        let mut bucket = opened.bucket.clone();
        let mut revision = opened.last_sequence;
        if opened.messages == 0 {
            return Ok((bucket, revision, None));
        }
        let mut watch = self.watch(opened).await?;
        let mut seen = 0u64;
        while let Step::Entry(entry) = self.next(&mut watch).await? {
            seen += 1;
            progress(seen, opened.messages);
            revision = revision.max(entry.revision);
            if entry.operation == Operation::Put {
                bucket.entries.push(entry_of(&entry));
            }
            if entry.delta == 0 {
                break;
            }
        }
        Ok((bucket, revision, Some(watch)))
    }
}
