//! `serve --record DIR` and `watch --record DIR`: a followed job's recording
//! (docs/recording-format.md), written from the hub's change stream on a thread of its own.
//!
//! The recorder is one more listener of the hub's broadcast: the server never waits for it.
//! Each batch is written (handed to the operating system) as it is received; a segment is
//! synced to disk and closed once it reaches its size, and the next one begins with the whole
//! state; a closed segment is compressed (gzip) beside it by another thread. A recorder that
//! falls behind the broadcast's queue writes the whole state again (`lagged`); one that cannot
//! write says so on standard error and stops: the server goes on.

use super::hub::{Batch, Hub};
use super::wire::Status;
use spate_planner_core::{
    live::{change_line, state_line, status_line, RecordedStatus, RecordingHeader, StateReason},
    Snapshot, Source,
};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::broadcast::Receiver;

/// How a recording goes, for `/healthz`, `/metrics` and standard error: the bytes it wrote,
/// and why it stopped (a write that failed, its directory removed), if it did.
pub(crate) struct Health {
    pub job: String,
    pub dir: String,
    bytes: AtomicU64,
    problem: Mutex<Option<String>>,
    /// The recorded job's hub, told when the recording stops (its pages show it).
    hub: std::sync::Weak<Hub>,
}

impl Health {
    fn new(hub: &Arc<Hub>, dir: &str) -> Health {
        Health {
            job: hub.job.clone(),
            dir: dir.to_string(),
            bytes: AtomicU64::new(0),
            problem: Mutex::new(None),
            hub: Arc::downgrade(hub),
        }
    }

    /// The bytes written into segments (before compression).
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Why the recording stopped (`None` while it records).
    pub(crate) fn problem(&self) -> Option<String> {
        self.problem
            .lock()
            .map_or_else(|e| e.into_inner().clone(), |p| p.clone())
    }

    /// The recording stopped: said once on standard error and to the job's pages, kept for the
    /// probes.
    fn fail(&self, why: String) {
        let mut p = self.problem.lock().unwrap_or_else(|e| e.into_inner());
        if p.is_none() {
            let what = format!("the recording of job {} stopped: {why}", self.job);
            eprintln!("spate-planner: {}", crate::term::shown(&what));
            *p = Some(what.clone());
            drop(p);
            if let Some(hub) = self.hub.upgrade() {
                hub.recording_stopped(&what);
            }
        }
    }
}

/// The options `serve` and `watch` share.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct RecordArgs {
    /// Record the job into this directory (created if missing): every change with the time it
    /// was received, in segments JOB.000001.jsonl, … that `spate-planner replay` shows
    /// (docs/recording-format.md). With `serve`, needs --job.
    #[arg(long, value_name = "DIR", requires = "job")]
    pub record: Option<PathBuf>,
    /// With --record: begin a new segment once one reaches this size (bytes, or with K, M or
    /// G: 64M; at least 64K). Closed segments are compressed (.jsonl.gz).
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub record_segment: u64,
    /// With --record: keep closed segments as they are written (no gzip).
    #[arg(long)]
    pub record_plain: bool,
}

/// What a recorder needs to know.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub dir: PathBuf,
    pub segment_bytes: u64,
    pub compress: bool,
}

impl RecordArgs {
    /// The recorder's options, if asked to record.
    pub(crate) fn options(&self) -> Option<Options> {
        self.record.as_ref().map(|dir| Options {
            dir: dir.clone(),
            segment_bytes: self.record_segment,
            compress: !self.record_plain,
        })
    }
}

/// `--record-segment`: bytes, or K, M, G (binary) units; 64 KiB to 64 GiB.
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, ""),
    };
    let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => return Err(format!("{text:?} is not a size (e.g. 64M, 512K, 1G)")),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 64M, 512K, 1G)"))?;
    let bytes = n
        .checked_shl(shift)
        .filter(|b| b >> shift == n)
        .unwrap_or(u64::MAX);
    if !(64 << 10..=64 << 30).contains(&bytes) {
        return Err(format!("{text:?}: a segment is 64K to 64G"));
    }
    Ok(bytes)
}

/// A segment's file name: `JOB.000001.jsonl`.
pub(crate) fn segment_name(job: &str, n: u64) -> String {
    format!("{job}.{n:06}.jsonl")
}

/// The segment number of a file of `job`'s recording (`.jsonl` or `.jsonl.gz`).
pub(crate) fn segment_number(job: &str, file: &str) -> Option<u64> {
    let rest = file.strip_prefix(job)?.strip_prefix('.')?;
    let n = rest
        .strip_suffix(".jsonl")
        .or_else(|| rest.strip_suffix(".jsonl.gz"))?;
    (n.len() == 6 && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// The number after the highest segment of `job` in `dir` (1 in a new directory).
fn next_segment(dir: &Path, job: &str) -> std::io::Result<u64> {
    let mut top = 0;
    for e in std::fs::read_dir(dir)? {
        let name = e?.file_name();
        if let Some(n) = segment_number(job, &name.to_string_lossy()) {
            top = top.max(n);
        }
    }
    Ok(top + 1)
}

/// The segment being written.
struct Segment {
    path: PathBuf,
    out: BufWriter<File>,
    bytes: u64,
    /// The bytes of the full state it begins with.
    state_bytes: u64,
    health: Arc<Health>,
}

/// A segment holds at least this many times the full state it begins with: a job whose state
/// nears (or passes) `--record-segment` would otherwise begin a segment, with the whole state,
/// at every batch. Its changes then take at least three quarters of the recording.
pub(crate) const STATE_ROOM: u64 = 4;

impl Segment {
    /// Whether the segment is full: past `segment_bytes`, and past [`STATE_ROOM`] times its state.
    fn full(&self, segment_bytes: u64) -> bool {
        self.bytes >= segment_bytes.max(self.state_bytes.saturating_mul(STATE_ROOM))
    }
}

impl Segment {
    /// A new segment file (never an existing one: created exclusively, readable by its owner
    /// only), with its header.
    fn create(o: &Options, header: &RecordingHeader, health: &Arc<Health>) -> std::io::Result<Segment> {
        let path = o.dir.join(segment_name(&header.job, header.segment));
        let file = create_private(&path)?;
        let mut seg = Segment {
            path,
            out: BufWriter::with_capacity(1 << 20, file),
            bytes: 0,
            state_bytes: 0,
            health: health.clone(),
        };
        seg.line(&header.to_line())?;
        Ok(seg)
    }

    fn line(&mut self, line: &str) -> std::io::Result<()> {
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.bytes += line.len() as u64 + 1;
        self.health
            .bytes
            .fetch_add(line.len() as u64 + 1, Ordering::Relaxed);
        Ok(())
    }

    /// Synced to disk and closed: the path.
    fn close(self) -> std::io::Result<PathBuf> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        Ok(self.path)
    }
}

/// A new file readable by its owner only, never an existing one (nor what a link there names).
fn create_private(path: &Path) -> std::io::Result<File> {
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    open.open(path)
}

/// One recorder a directory: `DIR/.lock` (created if missing, readable by its owner only),
/// locked for as long as the recorder runs and holding its process id. The lock goes with the
/// process (an advisory `flock`), so a recorder that crashed leaves none behind; a second
/// recorder is refused, naming the process that records there.
fn lock_dir(dir: &Path) -> Result<File, String> {
    let path = dir.join(".lock");
    let cannot = |e: std::io::Error| format!("cannot record into {}: {}: {e}", dir.display(), path.display());
    let mut open = std::fs::OpenOptions::new();
    open.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
    let mut file = open.open(&path).map_err(cannot)?;
    match try_lock(&file) {
        Ok(true) => {}
        Ok(false) => {
            let mut pid = String::new();
            let _ = std::io::Read::read_to_string(&mut file, &mut pid);
            let who = match pid.trim() {
                "" => "another process".to_string(),
                p => format!("process {}", crate::term::shown(p)),
            };
            return Err(format!(
                "cannot record into {}: {who} is recording there already (it holds {}); give each recorder a directory of its own",
                dir.display(),
                path.display()
            ));
        }
        Err(e) => return Err(cannot(e)),
    }
    file.set_len(0).map_err(cannot)?;
    writeln!(file, "{}", std::process::id()).map_err(cannot)?;
    Ok(file)
}

/// Takes the file's exclusive advisory lock without waiting: false when another holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    match rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> std::io::Result<bool> {
    Ok(true)
}

/// Compresses a closed segment beside it (`.jsonl.gz`, written whole before the plain file is
/// removed), on a thread of its own. A failure leaves the plain segment, which reads as well.
fn compress(path: PathBuf) {
    let run = move || -> std::io::Result<()> {
        let gz = path.with_extension("jsonl.gz");
        let tmp = path.with_extension("jsonl.gz.tmp");
        let mut input = File::open(&path)?;
        // a temporary file left by a crash goes (a link is removed, not what it names); the new
        // one is the segment's own: readable by its owner only
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let file = create_private(&tmp)?;
        let mut enc = flate2::write::GzEncoder::new(BufWriter::new(file), flate2::Compression::default());
        std::io::copy(&mut input, &mut enc)?;
        let file = enc.finish()?.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &gz)?;
        std::fs::remove_file(&path)
    };
    std::thread::spawn(move || {
        if let Err(e) = run() {
            eprintln!(
                "spate-planner: a recording segment could not be compressed (it stays as written): {e}"
            );
        }
    });
}

/// The recorder: its hub, where it writes, and the batch sequence the recording stands at.
struct Recorder {
    hub: Arc<Hub>,
    options: Options,
    source: Source,
    rx: Receiver<Arc<Batch>>,
    seq: u64,
    segment: Option<Segment>,
    number: u64,
    /// `DIR/.lock`, held while the recorder runs.
    _lock: File,
    health: Arc<Health>,
}

fn now_ms() -> i64 {
    crate::support::now_ms()
}

fn recorded(s: &Status) -> RecordedStatus {
    let message = match s {
        Status::Live => None,
        Status::Reconnecting(m) | Status::Error(m) | Status::Silent(m) => Some(m.clone()),
    };
    RecordedStatus {
        status: super::wire::status_word(s).into(),
        message,
    }
}

impl Recorder {
    fn segment(&mut self) -> std::io::Result<&mut Segment> {
        self.segment
            .as_mut()
            .ok_or_else(|| std::io::Error::other("no segment is open"))
    }

    /// Begins the next segment with the hub's whole state; batches it holds are skipped.
    fn begin(&mut self, reason: StateReason, state: (u64, Snapshot)) -> std::io::Result<()> {
        let header = RecordingHeader::new(&self.hub.job, self.number, now_ms(), self.source.clone());
        let mut seg = Segment::create(&self.options, &header, &self.health)?;
        self.number += 1;
        let line = state_line(now_ms(), reason, &state.1);
        seg.line(&line)?;
        seg.state_bytes = line.len() as u64 + 1;
        self.seq = state.0;
        self.segment = Some(seg);
        Ok(())
    }

    /// Writes the whole state again in the segment (a resync, or the recorder lagged).
    fn restate(&mut self, reason: StateReason) -> std::io::Result<()> {
        let (seq, snap) = self.hub.snapshot();
        self.seq = seq;
        self.segment()?.line(&state_line(now_ms(), reason, &snap))
    }

    /// Writes one batch; `Err` only for a write that failed.
    fn batch(&mut self, b: Result<Arc<Batch>, RecvError>) -> std::io::Result<bool> {
        match b.as_deref() {
            Ok(Batch::Events {
                seq, at_ms, changes, ..
            }) if *seq > self.seq => {
                self.seq = *seq;
                let seg = self.segment()?;
                for c in changes {
                    seg.line(&change_line(*at_ms, c))?;
                }
            }
            Ok(Batch::Resync { seq }) if *seq > self.seq => self.restate(StateReason::Resync)?,
            Ok(Batch::Events { .. } | Batch::Resync { .. }) => {}
            Ok(Batch::Status { status, .. }) => {
                let line = status_line(now_ms(), &recorded(status));
                self.segment()?.line(&line)?;
            }
            Err(RecvError::Lagged(_)) => self.restate(StateReason::Lagged)?,
            Err(RecvError::Closed) => return Ok(false),
        }
        Ok(true)
    }

    /// Closes the segment at its size: the batches the hub sent before its state now are
    /// written first, so that the next segment's state is the one the changes before it gave.
    fn rotate(&mut self) -> std::io::Result<()> {
        let state = self.hub.snapshot();
        let mut reason = StateReason::Rotate;
        while self.seq < state.0 {
            let next = match self.rx.try_recv() {
                Ok(b) => Ok(b),
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            };
            if matches!(next.as_deref(), Ok(Batch::Resync { .. }) | Err(_)) {
                reason = StateReason::Lagged;
                break;
            }
            self.batch(next)?;
        }
        if self.seq < state.0 && reason == StateReason::Rotate {
            reason = StateReason::Lagged;
        }
        if let Some(seg) = self.segment.take() {
            let closed = seg.close()?;
            if self.options.compress {
                compress(closed);
            }
        }
        self.begin(reason, state)
    }

    /// Records until the hub goes away or a write fails.
    fn run(mut self, first: (u64, Snapshot)) -> std::io::Result<()> {
        self.begin(StateReason::Start, first)?;
        loop {
            let b = self.rx.blocking_recv();
            if self.health.problem().is_some() {
                // stopped from outside (its directory removed): nothing more is written
                return Ok(());
            }
            if !self.batch(b)? {
                break;
            }
            self.segment()?.out.flush()?;
            let limit = self.options.segment_bytes;
            if self.segment()?.full(limit) {
                self.rotate()?;
                self.segment()?.out.flush()?;
            }
        }
        if let Some(seg) = self.segment.take() {
            seg.close()?;
        }
        Ok(())
    }
}

/// Starts recording `hub`'s job into `options.dir` (created if missing): the first segment is
/// numbered after the directory's last one of this job. Fails at once when the directory
/// cannot be made or read; a later failure is said on standard error and stops recording only.
pub(crate) fn start(hub: Arc<Hub>, options: Options) -> Result<Arc<Health>, String> {
    let dir = options.dir.display().to_string();
    std::fs::create_dir_all(&options.dir).map_err(|e| format!("cannot record into {dir}: {e}"))?;
    let lock = lock_dir(&options.dir)?;
    let number =
        next_segment(&options.dir, &hub.job).map_err(|e| format!("cannot record into {dir}: {e}"))?;
    // Listening before the first state is taken: no batch after it is missed.
    let rx = hub.subscribe();
    let first = hub.snapshot();
    let source = Source {
        kind: "nats".into(),
        server: Some(hub.server.clone()),
        note: Some(format!("spate-planner {} recording", env!("CARGO_PKG_VERSION"))),
    };
    eprintln!(
        "recording job {} into {dir} (segments of {} from {})",
        hub.job,
        spate_planner_core::human_bytes(options.segment_bytes),
        segment_name(&hub.job, number)
    );
    let job = hub.job.clone();
    let health = Arc::new(Health::new(&hub, &dir));
    let watched = options.dir.clone();
    let recorder = Recorder {
        hub,
        options,
        source,
        rx,
        seq: 0,
        segment: None,
        number,
        _lock: lock,
        health: health.clone(),
    };
    let done = Arc::new(AtomicBool::new(false));
    let (h, ended) = (health.clone(), done.clone());
    std::thread::Builder::new()
        .name(format!("record {job}"))
        .spawn(move || {
            if let Err(e) = recorder.run(first) {
                h.fail(format!("cannot write into {}: {e}", h.dir));
            }
            ended.store(true, Ordering::Relaxed);
        })
        .map_err(|e| format!("cannot start recording: {e}"))?;
    let (h, dir) = (health.clone(), watched);
    std::thread::Builder::new()
        .name(format!("record {job} dir"))
        .spawn(move || watch_dir(&h, &dir, &done))
        .map_err(|e| format!("cannot start recording: {e}"))?;
    Ok(health)
}

/// Which directory `dir` is (device and inode), to tell it from another made at its path.
fn identity(dir: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(dir).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    Some((0, u64::from(meta.is_dir())))
}

/// How often the recorder's directory is looked at.
pub(crate) const DIR_CHECK: Duration = Duration::from_secs(1);

/// Looks at the recording's directory every [`DIR_CHECK`] until the recorder ends: once it is
/// removed (or another made in its place) the segments are written nowhere anyone can read, so
/// the recording is stopped and says so.
fn watch_dir(health: &Health, dir: &Path, done: &AtomicBool) {
    let first = identity(dir);
    while !done.load(Ordering::Relaxed) && health.problem().is_none() {
        std::thread::sleep(DIR_CHECK);
        let now = identity(dir);
        if now != first {
            let why = match now {
                None => format!(
                    "{} was removed: the segment being written is in no directory",
                    health.dir
                ),
                Some(_) => format!(
                    "{} was removed and made again: the segment being written is not in it",
                    health.dir
                ),
            };
            health.fail(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_named_and_numbered() {
        assert_eq!(segment_name("orders", 7), "orders.000007.jsonl");
        assert_eq!(segment_number("orders", "orders.000007.jsonl"), Some(7));
        assert_eq!(segment_number("orders", "orders.000012.jsonl.gz"), Some(12));
        assert_eq!(segment_number("orders", "orders.000012.jsonl.gz.tmp"), None);
        assert_eq!(segment_number("orders", "orders-x.000001.jsonl"), None);
        assert_eq!(segment_number("orders", "orders.1.jsonl"), None);
        assert_eq!(segment_number("ord", "orders.000001.jsonl"), None);
    }

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("65536"), Ok(65536));
        assert!(parse_size("1K").is_err(), "below 64K");
        assert!(parse_size("100G").is_err(), "above 64G");
        assert!(parse_size("99999999999999999999G").is_err());
        assert!(parse_size("5X").is_err());
    }
}
