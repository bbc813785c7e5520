//! Reading a job's buckets, shared by `snapshot` (a one-off copy) and `serve`/`watch` (the same
//! reading, kept open as a watch): opening a bucket, its configuration, its live entries as the
//! snapshot format records them, copied as the bucket was at one revision (the cut, see
//! [`crate::cut`]), and errors told apart by their kinds.
//!
//! Read-only: nothing here puts, deletes or purges.

use crate::cut::{Copy, WentBack, Write};
use async_nats::jetstream::context::{GetStreamErrorKind, KeyValueErrorKind, RequestErrorKind};
use async_nats::jetstream::kv::{self, Operation};
use async_nats::jetstream::stream::RawMessageErrorKind;
use async_nats::jetstream::{self, ErrorCode};
use futures_util::StreamExt;
use spate_planner_core::{Bucket, Entry};
use std::time::{Duration, Instant};

/// Why reading failed. Every message names the bucket.
#[derive(Debug)]
pub(crate) enum ReadError {
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

/// A bucket being read: its handle, its configuration (a [`Bucket`] without entries), how many
/// messages its stream held when opened and when the stream was created (a bucket deleted and
/// created again has another creation time).
pub(crate) struct Opened {
    pub kv: kv::Store,
    pub bucket: Bucket,
    pub messages: u64,
    pub created_ns: i128,
}

/// What the server says of a bucket's stream now.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamNow {
    pub messages: u64,
    pub last_sequence: u64,
    pub created_ns: i128,
}

/// The answer of the server to "what does this stream hold now".
pub(crate) enum Fresh {
    Stream(StreamNow),
    NotFound,
    TimedOut,
    Failed(String),
}

/// The stream's state, asked of the server now (`Store::status` only returns what was cached
/// when the bucket was opened).
pub(crate) async fn fresh_info(js: &jetstream::Context, name: &str) -> Fresh {
    match js.get_stream(format!("KV_{name}")).await {
        Ok(s) => {
            let info = s.cached_info();
            Fresh::Stream(StreamNow {
                messages: info.state.messages,
                last_sequence: info.state.last_sequence,
                created_ns: info.created.unix_timestamp_nanos(),
            })
        }
        Err(e) => match e.kind() {
            GetStreamErrorKind::JetStream(j) if j.error_code() == ErrorCode::STREAM_NOT_FOUND => {
                Fresh::NotFound
            }
            GetStreamErrorKind::Request => match request_kind(&e) {
                Some(RequestErrorKind::TimedOut) => Fresh::TimedOut,
                _ => Fresh::Failed(e.to_string()),
            },
            _ => Fresh::Failed(e.to_string()),
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
pub(crate) async fn open(js: &jetstream::Context, name: &str, job: &str) -> Result<Opened, ReadError> {
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
        revision: None,
        entries: Vec::new(),
    };
    Ok(Opened {
        messages: status.values(),
        created_ns: status.info.created.unix_timestamp_nanos(),
        kv,
        bucket,
    })
}

/// A store entry as the snapshot records it.
pub(crate) fn entry_of(e: &kv::Entry) -> Entry {
    Entry {
        key: e.key.clone(),
        revision: e.revision,
        created_ms: created_ms(e),
        value: e.value.to_vec(),
    }
}

/// When the entry was written, in ms since the Unix epoch.
pub(crate) fn created_ms(e: &kv::Entry) -> i64 {
    (e.created.unix_timestamp_nanos() / 1_000_000) as i64
}

/// A store message as the copy applies it.
pub(crate) fn write_of(e: &kv::Entry) -> Write {
    match e.operation {
        Operation::Put => Write::Put(entry_of(e)),
        Operation::Delete | Operation::Purge => Write::Remove {
            key: e.key.clone(),
            revision: e.revision,
        },
    }
}

/// How long the watch may be quiet before the reader asks the server where the bucket stands.
const QUIET: Duration = Duration::from_millis(100);

/// Copies a bucket as it was at one revision from a fresh watch ([`crate::cut`]), then hands
/// the watch back still open.
pub(crate) struct Reader<'a> {
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
    pub(crate) async fn watch(&self, opened: &Opened) -> Result<kv::Watch, ReadError> {
        opened
            .kv
            .watch_with_history(">")
            .await
            .map_err(|e| ReadError::Other(format!("cannot read bucket {}: {e}", self.name)))
    }

    /// Copies `opened` as it was at one revision, reporting progress on large buckets: returns
    /// the bucket (its `revision` the cut, its entries in revision order) and the watch, still
    /// open: what it delivers next is above the cut.
    ///
    /// It reads until the watch is caught up (it says nothing is pending, or it delivered as
    /// many entries as the bucket held, or it is quiet), then asks the server for the stream's
    /// last sequence and reads on until the watch has delivered everything up to it.
    pub(crate) async fn read_all(
        &self,
        opened: &Opened,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<(Bucket, kv::Watch), ReadError> {
        let mut watch = self.watch(opened).await?;
        let mut copy = Copy::default();
        let mut ask = opened.messages == 0;
        let (mut first_asked, mut quiet) = (None, Duration::ZERO);
        let cut = loop {
            if ask && !copy.aiming() {
                let since = *first_asked.get_or_insert_with(Instant::now);
                if let Some(cut) = self.aim(&mut copy, since).await? {
                    break cut;
                }
            }
            let Ok(item) = tokio::time::timeout(QUIET, watch.next()).await else {
                quiet += QUIET;
                if let Some(cut) = self.on_quiet(opened, &mut copy, quiet).await? {
                    break cut;
                }
                ask = true;
                continue;
            };
            quiet = Duration::ZERO;
            let e = match item {
                Some(Ok(e)) => e,
                Some(Err(e)) => return Err(self.diagnose(&e.to_string()).await),
                None => return Err(self.diagnose("the stream of entries ended").await),
            };
            progress(copy.applied + 1, opened.messages);
            if let Some(cut) = copy.apply(write_of(&e)).map_err(|w| self.went_back(w))? {
                break cut;
            }
            ask = e.delta == 0 || copy.applied == opened.messages || copy.wants_aim();
        };
        let mut bucket = opened.bucket.clone();
        bucket.revision = Some(cut);
        bucket.entries = copy.into_entries();
        Ok((bucket, watch))
    }

    /// Asks the server where the stream ends and aims the copy there: `Some(cut)` when the copy
    /// is the bucket there already (or the stream holds nothing: what it had is gone). Refuses
    /// once the timeout has passed since the first question without a cut.
    async fn aim(&self, copy: &mut Copy, since: Instant) -> Result<Option<u64>, ReadError> {
        if since.elapsed() > self.idle {
            return Err(ReadError::Stalled(format!(
                "bucket {} kept changing faster than it could be read: no revision could be cut in {}s ({} tries; the watch fell behind the writes); try again, or with a longer --timeout",
                self.name,
                self.idle.as_secs(),
                copy.retries + 1
            )));
        }
        let now = match tokio::time::timeout(self.idle, fresh_info(self.js, self.name)).await {
            Ok(Fresh::Stream(now)) => now,
            other => return Err(self.explain("asking where the bucket ends", other)),
        };
        let cut = copy.aim(now.last_sequence);
        if cut.is_none() && now.messages == 0 {
            return Ok(copy.nothing_after());
        }
        Ok(cut)
    }

    /// The watch was quiet for `quiet`. While aiming, the server may hold nothing after the
    /// copy (the rest of the aim is gone): cut there. Quiet for the whole timeout: a failure.
    async fn on_quiet(
        &self,
        opened: &Opened,
        copy: &mut Copy,
        quiet: Duration,
    ) -> Result<Option<u64>, ReadError> {
        if copy.aiming() && self.nothing_after(opened, copy.highest()).await? {
            return Ok(copy.nothing_after());
        }
        if quiet < self.idle {
            return Ok(None);
        }
        if self.client.connection_state() == async_nats::connection::State::Connected {
            if let Ok(Fresh::Stream(_)) =
                tokio::time::timeout(self.idle, fresh_info(self.js, self.name)).await
            {
                return Err(ReadError::Stalled(format!(
                    "reading bucket {} stalled: no entry for {}s with entries still pending (server overloaded, or a slow network?); try a longer --timeout",
                    self.name,
                    self.idle.as_secs()
                )));
            }
        }
        Err(self.diagnose("no entry arrived").await)
    }

    /// Whether the stream holds no message after sequence `seq` (asked of the server).
    async fn nothing_after(&self, opened: &Opened, seq: u64) -> Result<bool, ReadError> {
        let get = opened
            .kv
            .stream
            .raw_message_builder()
            .sequence(seq + 1)
            .next_by_subject(format!("{}>", opened.kv.prefix))
            .send();
        match tokio::time::timeout(self.idle, get).await {
            Ok(Ok(_)) => Ok(false),
            Ok(Err(e)) if e.kind() == RawMessageErrorKind::NoMessageFound => Ok(true),
            Ok(Err(e)) => Err(self.diagnose(&e.to_string()).await),
            Err(_) => Err(self.diagnose("no answer to a read").await),
        }
    }

    fn went_back(&self, w: WentBack) -> ReadError {
        ReadError::Other(format!(
            "bucket {} went back to revision {} at key {:?} while it was being read (deleted and created again?); try again",
            self.name, w.revision, w.key
        ))
    }

    /// Why reading failed: the connection is gone, the server stopped answering, or the bucket
    /// itself was deleted meanwhile.
    pub(crate) async fn diagnose(&self, what: &str) -> ReadError {
        if self.client.connection_state() != async_nats::connection::State::Connected {
            // Nothing to ask: `explain` reports the lost connection.
            return self.explain(what, Ok(Fresh::TimedOut));
        }
        let fresh = tokio::time::timeout(self.idle, fresh_info(self.js, self.name)).await;
        self.explain(what, fresh)
    }

    /// [`Reader::diagnose`] with the server's answer to "what does the stream hold now".
    fn explain(&self, what: &str, fresh: Result<Fresh, tokio::time::error::Elapsed>) -> ReadError {
        let (server, name) = (self.server, self.name);
        if self.client.connection_state() != async_nats::connection::State::Connected {
            return ReadError::Lost(format!(
                "the connection to {server} was lost while reading bucket {name} ({what}); run the export again once the server is back"
            ));
        }
        match fresh {
            Err(_) | Ok(Fresh::TimedOut) => ReadError::Stalled(format!(
                "the server at {server} stopped answering while bucket {name} was being read (no reply in {}s: a slow server or network?); try again, or with a longer --timeout",
                self.idle.as_secs()
            )),
            Ok(Fresh::NotFound) => ReadError::Deleted(format!(
                "bucket {name} was deleted while it was being read ({what}); nothing consistent can be copied"
            )),
            Ok(Fresh::Failed(e)) => ReadError::Other(format!(
                "the server at {server} failed while bucket {name} was being read ({what}; then: {e}); try again, or with a longer --timeout"
            )),
            Ok(Fresh::Stream(_)) => ReadError::Other(format!("reading bucket {name} failed ({what}); try again")),
        }
    }
}
