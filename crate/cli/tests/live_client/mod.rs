//! A page's side of the live stream, for the tests: `serve` as a child process, a small HTTP
//! client over a TCP stream (HTTP/1.0, so the body ends when the server closes), an event-stream
//! reader, and the page's model (the full state plus the changes applied).
#![allow(dead_code)]

use spate_planner_core::{Entry, Snapshot};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

/// `spate-planner serve --server ...` on a free port, killed when dropped.
pub struct Serve {
    pub child: Child,
    pub port: u16,
    pub stdout_line: String,
    pub stderr: Option<ChildStderr>,
}

impl Serve {
    pub fn start(args: &[&str]) -> Serve {
        Serve::spawn(Command::new(BIN), args)
    }

    /// `serve` run by `sh` after `shell` (e.g. `ulimit -f 64`: limits the process inherits).
    pub fn start_under(shell: &str, args: &[&str]) -> Serve {
        let mut sh = Command::new("sh");
        sh.arg("-c").arg(format!("{shell}; exec \"$0\" \"$@\"")).arg(BIN);
        Serve::spawn(sh, args)
    }

    fn spawn(mut command: Command, args: &[&str]) -> Serve {
        let dir = std::env::temp_dir().join(format!("spate-live-www-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<!doctype html><title>t</title>").unwrap();
        let mut child = command
            .args(["serve", "--port", "0", "--dir", dir.to_str().unwrap()])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // `http://ADDR:PORT/…`, ADDR as bound (127.0.0.1, 0.0.0.0, [::1], …).
        let Some(port) = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|a| a.rsplit(':').next())
            .and_then(|p| p.parse().ok())
        else {
            let _ = child.kill();
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            panic!("serve did not start: {line:?} {err}");
        };
        let stderr = child.stderr.take();
        Serve {
            child,
            port,
            stdout_line: line,
            stderr,
        }
    }

    /// Resident memory of the server process, in KiB.
    pub fn rss_kib(&self) -> u64 {
        self.status_kib("VmRSS:")
    }

    /// The server process's peak resident memory so far, in KiB.
    pub fn peak_kib(&self) -> u64 {
        self.status_kib("VmHWM:")
    }

    /// The open file descriptors of the server process (its connections among them).
    pub fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .map(|d| d.count())
            .unwrap_or(0)
    }

    fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with(field))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// Stops the server and returns what it wrote on standard error.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut err = String::new();
        if let Some(mut e) = self.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        err
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GET with the server's own `Host`: (status, headers, body).
pub async fn get(port: u16, path: &str) -> (u16, String, String) {
    request(
        port,
        &format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    )
    .await
}

/// A request as written (HTTP/1.0, or with `Connection: close`, so that the answer ends with
/// the connection): (status, headers, body).
pub async fn request(port: u16, raw: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.write_all(raw.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    // only a response that never ends ends this wait (a busy machine may be slow)
    tokio::time::timeout(Duration::from_secs(120), s.read_to_end(&mut all))
        .await
        .expect("the response did not end")
        .unwrap();
    let text = String::from_utf8(all).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_string(), body.to_string())
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct Event {
    pub event: String,
    pub id: Option<String>,
    pub data: String,
}

/// An open event stream.
pub struct Sse {
    reader: tokio::io::BufReader<TcpStream>,
    pub head: String,
    /// Every byte received, for secret checks.
    pub raw: String,
}

impl Sse {
    pub async fn connect(port: u16, path: &str, last_event_id: Option<&str>) -> Sse {
        Sse::connect_as(port, path, &format!("127.0.0.1:{port}"), last_event_id).await
    }

    /// As [`Sse::connect`], with another `Host` (a proxy's name).
    pub async fn connect_as(port: u16, path: &str, host: &str, last_event_id: Option<&str>) -> Sse {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let extra = last_event_id
            .map(|id| format!("Last-Event-ID: {id}\r\n"))
            .unwrap_or_default();
        let req = format!("GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: text/event-stream\r\n{extra}\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut reader = tokio::io::BufReader::new(s);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).await.unwrap();
            if line == "\r\n" || line.is_empty() {
                break;
            }
            head.push_str(&line);
        }
        Sse {
            reader,
            head,
            raw: String::new(),
        }
    }

    /// The next event, or `None` after `wait` without one.
    pub async fn next(&mut self, wait: Duration) -> Option<Event> {
        tokio::time::timeout(wait, self.read_event()).await.ok().flatten()
    }

    async fn read_event(&mut self) -> Option<Event> {
        let (mut event, mut id, mut data): (String, Option<String>, Option<String>) =
            (String::new(), None, None);
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await.ok()? == 0 {
                return None;
            }
            self.raw.push_str(&line);
            let line = line.strip_suffix('\n').unwrap_or(&line);
            if line.is_empty() {
                if let Some(data) = data.take() {
                    return Some(Event { event, id, data });
                }
                continue;
            }
            let (field, value) = line.split_once(": ").unwrap_or((line, ""));
            match field {
                "event" => event = value.to_string(),
                "id" => id = Some(value.to_string()),
                "data" => match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                },
                _ => {}
            }
        }
    }
}

/// The page's model: the buckets' entries by key, and the last event id.
pub struct Model {
    pub job: String,
    pub state: BTreeMap<String, Entry>,
    pub lease: BTreeMap<String, Entry>,
    pub id: String,
    pub snapshots: usize,
    pub changes: usize,
    /// Every status event's data, in order.
    pub statuses: Vec<String>,
}

/// Parses one entry line exactly as the snapshot reader does.
fn parse_entry(job: &str, line: &str) -> Entry {
    let text = format!(
        "{{\"format\":\"spate-planner-snapshot/1\",\"job\":\"{job}\",\"source\":{{\"kind\":\"t\"}},\"taken_at_ms\":0,\
         \"state\":{{\"name\":\"spate_coordination_{job}_state\",\"history\":1,\"max_age_ms\":0,\"entries\":[{line}]}},\
         \"lease\":{{\"name\":\"spate_coordination_{job}_lease\",\"history\":1,\"max_age_ms\":0,\"entries\":[]}}}}"
    );
    let snap = Snapshot::parse(&text).unwrap_or_else(|e| panic!("{e}: {line}"));
    snap.state.entries.into_iter().next().unwrap()
}

impl Model {
    pub fn new(job: &str) -> Model {
        Model {
            job: job.into(),
            state: BTreeMap::new(),
            lease: BTreeMap::new(),
            id: String::new(),
            snapshots: 0,
            changes: 0,
            statuses: Vec::new(),
        }
    }

    /// Applies an event; returns its name.
    pub fn apply(&mut self, e: &Event) -> String {
        match e.event.as_str() {
            "snapshot" => {
                let snap = Snapshot::parse(&e.data).unwrap_or_else(|x| panic!("snapshot event: {x}"));
                let by_key = |b: Vec<Entry>| b.into_iter().map(|e| (e.key.clone(), e)).collect();
                self.state = by_key(snap.state.entries);
                self.lease = by_key(snap.lease.entries);
                self.snapshots += 1;
            }
            "change" => self.change(&e.data),
            "status" => self.statuses.push(e.data.clone()),
            _ => {}
        }
        if let Some(id) = &e.id {
            self.id = id.clone();
        }
        e.event.clone()
    }

    fn change(&mut self, data: &str) {
        #[derive(serde::Deserialize)]
        struct Change<'a> {
            bucket: String,
            op: String,
            #[serde(borrow)]
            entry: Option<&'a serde_json::value::RawValue>,
            key: Option<String>,
            revision: Option<u64>,
        }
        let c: Change = serde_json::from_str(data).unwrap_or_else(|e| panic!("{e}: {data}"));
        let map = if c.bucket == "state" {
            &mut self.state
        } else {
            &mut self.lease
        };
        match (c.op.as_str(), c.entry) {
            ("put", Some(raw)) => {
                let e = parse_entry(&self.job, raw.get());
                map.insert(e.key.clone(), e);
            }
            ("delete" | "purge", _) => {
                map.remove(c.key.as_deref().unwrap());
            }
            ("expire", _) => {
                let key = c.key.unwrap();
                if map.get(&key).map(|e| e.revision) == c.revision {
                    map.remove(&key);
                }
            }
            _ => panic!("unknown change {data}"),
        }
        self.changes += 1;
    }

    /// The entries in a snapshot's order (by revision).
    /// Whether the last status is `status`.
    pub fn is(&self, status: &str) -> bool {
        self.statuses
            .last()
            .is_some_and(|s| s.contains(&format!("\"status\":\"{status}\"")))
    }

    pub fn entries(&self) -> (Vec<Entry>, Vec<Entry>) {
        let sorted = |m: &BTreeMap<String, Entry>| {
            let mut v: Vec<Entry> = m.values().cloned().collect();
            v.sort_by_key(|e| e.revision);
            v
        };
        (sorted(&self.state), sorted(&self.lease))
    }
}

/// Reads events into the model until `done` says so; panics after `wait`.
pub async fn until(
    sse: &mut Sse,
    model: &mut Model,
    wait: Duration,
    mut done: impl FnMut(&Model, &str) -> bool,
) {
    let deadline = std::time::Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let e = sse
            .next(left)
            .await
            .unwrap_or_else(|| panic!("nothing in {wait:?} (model at {})", model.id));
        let name = model.apply(&e);
        if done(model, &name) {
            return;
        }
    }
}

/// Whether the model's last event id has `bucket` (`state` or `lease`) at `rev` or later.
pub fn moved_to(model: &Model, bucket: &str, rev: u64) -> bool {
    let (s, l) = model.id.split_once('-').unwrap();
    let at: u64 = if bucket == "state" { s } else { l }.parse().unwrap();
    at >= rev
}

/// `spate-planner snapshot` now: the file's text.
pub fn export(url: &str, job: &str) -> String {
    let o = Command::new(BIN)
        .args(["snapshot", "--server", url, "--job", job, "--timeout", "5"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// A snapshot's text without `source` and `taken_at_ms` (the lines that may differ).
pub fn without_header(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("  \"source\":") && !l.starts_with("  \"taken_at_ms\":"))
        .collect::<Vec<_>>()
        .join("\n")
}
