//! Bounded memory and time per client (issues 18 and 32), against a real `serve`: slow clients
//! share one text of the state instead of a copy each and hold no permit, so that slow readers
//! lock no other page out (directly and through a real nginx), while the texts of older states
//! kept alive by slow readers stay few; a client that stops reading is dropped, event streams
//! are capped per job, one client address holds at most its share of the connections, and
//! slowloris and idle keep-alive connections are closed after the header timeout
//! (`--header-timeout`, 10 s by default; shorter here).
//!
//! The figures (peak memory before and after the slow clients) are printed with `--nocapture`.

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::nginx;
use crate::patience;

use async_nats::jetstream;
use live_client::{get, request, Serve, BIN};
use nats_server::NatsServer;
use patience::PATIENCE;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Headers must arrive within this, and a blocked write is given this long: shorter than the
/// defaults (10 s and 30 s, `serve`'s unit tests), so that the test waits less; the write
/// timeout leaves the slow clients time to be counted before they are dropped (2 s of reading
/// slowly after their status lines: about 4 s are left).
const HEADER_READ: Duration = Duration::from_secs(3);
const WRITE_STALL: Duration = Duration::from_secs(6);
/// `serve`'s options for them.
const TIMEOUTS: [&str; 4] = ["--header-timeout", "3", "--write-timeout", "6"];
/// `live/limits.rs`.
const OLDER_TEXTS: u64 = 4;
const STREAMS_PER_JOB: usize = 32;
const SLOW_CLIENTS: usize = 20;

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// A demo job of a realistic size, its lease TTL raised to an hour so that nothing expires (and
/// moves the state) during the test.
fn demo(dir: &Path, splits: &str, members: &str) -> PathBuf {
    let file = dir.join(format!("demo-{splits}.json"));
    let o = std::process::Command::new(BIN)
        .args([
            "demo",
            "--splits",
            splits,
            "--members",
            members,
            "--job",
            "big",
            "-o",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("\"max_age_ms\":30000", "\"max_age_ms\":3600000"),
    )
    .unwrap();
    file
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spate-limits-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A client that sends its request, reads its status line, then reads one byte every 100 ms:
/// the status line, and the task that goes on reading so (aborted by the test).
async fn slow_client(port: u16, path: String) -> (String, tokio::task::JoinHandle<()>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while !line.ends_with(b"\n") && s.read(&mut byte).await.unwrap_or(0) == 1 {
        line.push(byte[0]);
    }
    let reader = tokio::spawn(async move {
        while s.read(&mut byte).await.unwrap_or(0) == 1 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    (String::from_utf8_lossy(&line).trim_end().to_string(), reader)
}

/// Reads a whole answer fast (the warm-up: the shared text built, the allocator grown once).
async fn fetch_all(port: u16, path: &str) -> (String, String) {
    let (status, head, body) = get(port, path).await;
    assert_eq!(status, 200, "{head}\n{body}");
    (head, body)
}

/// 20 slow clients at once on `path`: the server's peak memory before and while they read, in
/// KiB, their status lines, and the tasks that go on reading.
async fn twenty_slow(serve: &Serve, path: &str) -> (u64, u64, Vec<String>, Vec<tokio::task::JoinHandle<()>>) {
    let before = serve.peak_kib();
    let clients: Vec<_> = (0..SLOW_CLIENTS)
        .map(|_| tokio::spawn(slow_client(serve.port, path.to_string())))
        .collect();
    let (mut lines, mut readers) = (Vec::new(), Vec::new());
    for c in clients {
        let (line, reader) = c.await.unwrap();
        lines.push(line);
        readers.push(reader);
    }
    // Every client has its answer started (or refused) and reads slowly.
    tokio::time::sleep(Duration::from_secs(2)).await;
    (before, serve.peak_kib(), lines, readers)
}

/// Restores a 20,000-split demo job `big` into `nats`.
fn restore_big(nats: &NatsServer, name: &str) -> u64 {
    let file = demo(&scratch(name), "20000", "200");
    let o = std::process::Command::new(BIN)
        .args(["restore", file.to_str().unwrap(), "--server", &nats.url()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::metadata(&file).unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_of_api_snapshot_share_one_text_and_are_dropped() {
    let nats = NatsServer::start(true);
    restore_big(&nats, "api");
    let serve = Serve::start(&[&["--server", &nats.url(), "--job", "big"][..], &TIMEOUTS].concat());
    let path = "/api/snapshot?job=big";
    let (head, body) = fetch_all(serve.port, path).await;
    let length = format!("content-length: {}", body.len());
    assert!(head.contains(&length), "{length}: {head}");
    let size_kib = body.len() as u64 / 1024;
    let started = Instant::now();
    let (before, after, lines, readers) = twenty_slow(&serve, path).await;
    eprintln!(
        "/api/snapshot, {SLOW_CLIENTS} slow clients, a {:.1} MiB state: peak memory {:.0} MiB before, {:.0} MiB with them",
        mib(size_kib),
        mib(before),
        mib(after)
    );
    // every one answered (before: 4, and 16 refused with 503), from the one shared text
    assert!(lines.iter().all(|l| l.contains(" 200 ")), "{lines:?}");
    assert!(
        after < before + size_kib,
        "{SLOW_CLIENTS} slow clients grew the server by {} KiB: more than one copy of the {size_kib} KiB state",
        after - before
    );
    let asked = Instant::now();
    let (status, head, _) = get(serve.port, path).await;
    assert_eq!(
        status, 200,
        "a page while {SLOW_CLIENTS} slow clients read: {head}"
    );
    eprintln!(
        "a new /api/snapshot beside them: answered whole in {:?}",
        asked.elapsed()
    );
    // Dropped once their writes stayed blocked for WRITE_STALL: their connections are closed.
    let open = serve.open_fds();
    let closed = loop {
        if serve.open_fds() + SLOW_CLIENTS <= open {
            break started.elapsed();
        }
        assert!(
            started.elapsed() < WRITE_STALL + PATIENCE,
            "the slow clients were never dropped"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(
        closed >= WRITE_STALL,
        "dropped after {closed:?}, before the write timeout"
    );
    readers.iter().for_each(|r| r.abort());
    eprintln!("the slow clients were dropped after {closed:?}");
    serve.stop();
}

/// A client that sends its request and reads the answer at about 256 KiB a second (16 KiB every
/// 62 ms): its status line, and the task that goes on reading so (aborted by the test).
async fn reader_at_256k(port: u16, path: &str) -> (String, tokio::task::JoinHandle<()>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut first = vec![0u8; 256];
    let n = s.read(&mut first).await.unwrap();
    let line = String::from_utf8_lossy(&first[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let reader = tokio::spawn(async move {
        let mut buf = vec![0u8; 16 << 10];
        while s.read(&mut buf).await.unwrap_or(0) > 0 {
            tokio::time::sleep(Duration::from_millis(62)).await;
        }
    });
    (line, reader)
}

/// Changes the job (a key put in its state bucket) and waits until the server applied it.
async fn change(port: u16, state: &jetstream::kv::Store, i: u64) {
    let rev = state.put(format!("note.{i}"), "{}".into()).await.unwrap();
    let start = Instant::now();
    loop {
        let (_, _, body) = get(port, "/healthz").await;
        let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
        let at = doc["jobs"][0]["store_revisions"]
            .as_str()
            .unwrap_or("0-0")
            .to_string();
        let held: u64 = at.split('-').next().unwrap().parse().unwrap();
        if held >= rev {
            return;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "change {i} (revision {rev}) never applied: {doc}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Slow readers, each reading another state of the job (it changes between them), through
/// `port` (the server's or a proxy's); then a new page's `/api/snapshot` and stream: (the time
/// the new page's state took, the server's peak memory growth in KiB).
async fn slow_readers_then_a_page(
    serve: &Serve,
    nats: &NatsServer,
    port: u16,
    readers: u64,
) -> (Duration, u64) {
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let state = js.get_key_value("spate_coordination_big_state").await.unwrap();
    let path = "/api/snapshot?job=big";
    let before = serve.peak_kib();
    let mut held = Vec::new();
    for i in 0..readers {
        let (line, reader) = reader_at_256k(port, path).await;
        assert!(line.contains(" 200 "), "slow reader {i}: {line}");
        held.push(reader);
        change(serve.port, &state, i).await;
    }
    let asked = Instant::now();
    let (status, head, body) = get(port, path).await;
    let took = asked.elapsed();
    assert_eq!(
        status, 200,
        "a new page while {readers} slow readers hold downloads: {head}"
    );
    assert!(body.contains("spate_coordination_big_state"), "{head}");
    let mut sse = live_client::Sse::connect(port, "/api/live?job=big", None).await;
    let first = sse.next(PATIENCE).await.expect("the new page's stream");
    assert_eq!(first.event, "snapshot", "{}", sse.head);
    let grown = serve.peak_kib().saturating_sub(before);
    held.iter().for_each(|r| r.abort());
    (took, grown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_readers_of_other_states_lock_no_page_out_and_keep_few_texts() {
    let nats = NatsServer::start(true);
    let size_kib = restore_big(&nats, "moving") / 1024;
    let serve = Serve::start(&["--server", &nats.url(), "--job", "big"]);
    fetch_all(serve.port, "/api/snapshot?job=big").await;
    // four slow readers, as the issue's: the next page is answered (before: 503 until one was done)
    let (took, _) = slow_readers_then_a_page(&serve, &nats, serve.port, 4).await;
    eprintln!(
        "4 slow readers (256 KiB/s) of 4 states: a new page's /api/snapshot answered whole in {took:?}"
    );
    // many more, each of another state: the older texts alive stay few
    let (took, grown) = slow_readers_then_a_page(&serve, &nats, serve.port, 12).await;
    eprintln!(
        "12 slow readers of 12 states: a new page's /api/snapshot in {took:?}; peak memory grew {:.0} MiB (a state is {:.1} MiB)",
        mib(grown),
        mib(size_kib)
    );
    assert!(
        grown < (OLDER_TEXTS + 4) * size_kib,
        "12 slow readers of 12 states grew the server by {grown} KiB: more than {} texts of {size_kib} KiB",
        OLDER_TEXTS + 4
    );
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_readers_through_nginx_lock_no_page_out() {
    let nats = NatsServer::start(true);
    restore_big(&nats, "nginx");
    let serve = Serve::start(&["--server", &nats.url(), "--job", "big"]);
    // nginx's defaults (proxy_buffering on, HTTP/1.0 upstream), its read timeout a minute
    let proxy = nginx::Nginx::start(serve.port, 60);
    let (took, _) = slow_readers_then_a_page(&serve, &nats, proxy.port, 4).await;
    eprintln!("through nginx, 4 slow readers: a new page's /api/snapshot answered whole in {took:?}");
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_of_a_served_file_share_its_bytes() {
    let dir = scratch("file");
    let file = demo(&dir, "20000", "200");
    let size_kib = std::fs::metadata(&file).unwrap().len() / 1024;
    let serve = Serve::start(&[file.to_str().unwrap()]);
    fetch_all(serve.port, "/snapshot.json").await;
    let (before, after, lines, readers) = twenty_slow(&serve, "/snapshot.json").await;
    eprintln!(
        "/snapshot.json, {SLOW_CLIENTS} slow clients, a {:.1} MiB file: peak memory {:.0} MiB before, {:.0} MiB with them",
        mib(size_kib),
        mib(before),
        mib(after)
    );
    readers.iter().for_each(|r| r.abort());
    assert!(lines.iter().all(|l| l.contains(" 200 ")), "{lines:?}");
    assert!(
        after < before + size_kib,
        "{SLOW_CLIENTS} slow clients grew the server by {} KiB: more than one copy of the {size_kib} KiB file",
        after - before
    );
    serve.stop();
}

/// Seconds until the server closes `s` (reads return end of file or an error).
async fn closed_after(mut s: TcpStream, since: Instant, limit: Duration) -> Duration {
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(limit, s.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => return since.elapsed(),
            Ok(Ok(_)) => continue,
            Err(_) => panic!("still open after {limit:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slowloris_and_idle_connections_are_closed() {
    let serve = Serve::start(&TIMEOUTS);
    let port = serve.port;
    // Closed by the header-read timeout: not before it, and (however busy the machine) not never.
    let limit = HEADER_READ + PATIENCE;
    // Headers started and fed a byte a second, never finished.
    let fed = async {
        let s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let t = Instant::now();
        let (mut r, mut w) = s.into_split();
        w.write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-A: ").as_bytes())
            .await
            .unwrap();
        let feed = tokio::spawn(async move {
            while w.write_all(b"a").await.is_ok() {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        let mut buf = [0u8; 64];
        let ended = tokio::time::timeout(limit, r.read(&mut buf)).await;
        feed.abort();
        assert!(matches!(ended, Ok(Ok(0) | Err(_))), "slowloris: {ended:?}");
        t.elapsed()
    };
    // A request answered with keep-alive, then nothing.
    let idle = async {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        s.write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut buf = vec![0u8; 4096];
        let n = s.read(&mut buf).await.unwrap();
        let answer = String::from_utf8_lossy(&buf[..n]).to_string();
        assert!(
            answer.starts_with("HTTP/1.1 200") && answer.contains("<title>t</title>"),
            "{answer}"
        );
        assert!(!answer.contains("connection: close"), "{answer}");
        closed_after(s, Instant::now(), limit).await
    };
    // Connected, nothing sent.
    let silent = async {
        let s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        closed_after(s, Instant::now(), limit).await
    };
    let (fed, idle, silent) = tokio::join!(fed, idle, silent);
    eprintln!("closed after: slowloris {fed:?}, idle keep-alive {idle:?}, silent {silent:?}");
    for (what, t) in [("slowloris", fed), ("idle keep-alive", idle), ("silent", silent)] {
        assert!(
            t >= HEADER_READ - Duration::from_secs(1) && t < limit,
            "{what}: closed after {t:?}"
        );
    }
    // The server still answers.
    assert_eq!(get(port, "/").await.0, 200);
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_are_capped_per_job() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "cap").await;
    let serve = Serve::start(&["--server", &nats.url(), "--job", "cap"]);
    let port = serve.port;
    let mut open = Vec::new();
    for _ in 0..STREAMS_PER_JOB {
        let sse = live_client::Sse::connect(port, "/api/live?job=cap", None).await;
        assert!(
            sse.head.starts_with("HTTP/1.0 200") || sse.head.starts_with("HTTP/1.1 200"),
            "{}",
            sse.head
        );
        open.push(sse);
    }
    let raw = format!("GET /api/live?job=cap HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let (status, head, body) = request(port, &raw).await;
    assert_eq!(status, 503, "{head}\n{body}");
    assert!(head.contains("retry-after: 2"), "{head}");
    assert!(
        body.contains(&format!("{STREAMS_PER_JOB} pages follow job cap already")),
        "{body}"
    );
    drop(open.pop());
    let deadline = Instant::now() + PATIENCE;
    loop {
        let sse = live_client::Sse::connect(port, "/api/live?job=cap", None).await;
        if sse.head.contains(" 200 ") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a stream closed did not make room: {}",
            sse.head
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_max_connections_the_next_connection_waits_until_one_closes() {
    let serve = Serve::start(&[
        "--max-connections",
        "2",
        "--max-connections-per-client",
        "2",
        "--header-timeout",
        "3600",
    ]);
    // two connections that send nothing hold both places (the header timeout is an hour)
    let mut idle = Vec::new();
    for _ in 0..2 {
        idle.push(TcpStream::connect(("127.0.0.1", serve.port)).await.unwrap());
    }
    let third = tokio::spawn(get(serve.port, "/healthz"));
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(!third.is_finished(), "a third connection was served past the cap");
    // one closes: the third is served
    drop(idle.pop());
    let (status, _, body) = tokio::time::timeout(PATIENCE, third)
        .await
        .expect("the third connection was never served")
        .unwrap();
    assert_eq!(status, 200, "{body}");
    drop(idle);
}

/// A connection from `ip` (a loopback address) to the server on `port`.
async fn connect_from(ip: &str, port: u16) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{ip}:0").parse().unwrap()).unwrap();
    socket
        .connect(format!("127.0.0.1:{port}").parse().unwrap())
        .await
        .unwrap()
}

/// A GET of `/healthz` on `s`, and the answer whole (the connection closed after it).
async fn healthz_on(mut s: TcpStream, port: u16) -> String {
    let req = format!("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(PATIENCE, s.read_to_end(&mut all))
        .await
        .expect("no answer")
        .unwrap();
    String::from_utf8_lossy(&all).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_holds_at_most_its_share_of_the_connections() {
    let serve = Serve::start(&[
        "--max-connections",
        "8",
        "--max-connections-per-client",
        "2",
        "--header-timeout",
        "3600",
    ]);
    let port = serve.port;
    // one client's two idle connections hold its share (the header timeout is an hour)
    let mut idle = Vec::new();
    for _ in 0..2 {
        idle.push(connect_from("127.0.0.1", port).await);
    }
    // its third is answered at once: 503, and closed (before: it waited for one of them)
    let third = healthz_on(connect_from("127.0.0.1", port).await, port).await;
    assert!(third.starts_with("HTTP/1.1 503"), "{third}");
    assert!(third.contains("retry-after: 2"), "{third}");
    assert!(
        third.contains("this client holds 2 connections already"),
        "{third}"
    );
    // another client is served meanwhile
    let other = healthz_on(connect_from("127.0.0.2", port).await, port).await;
    assert!(other.starts_with("HTTP/1.0 200"), "{other}");
    // one closes: the first client is served again
    drop(idle.pop());
    let start = Instant::now();
    loop {
        let again = healthz_on(connect_from("127.0.0.1", port).await, port).await;
        if again.starts_with("HTTP/1.0 200") {
            break;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "a connection closed gave no place back: {again}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(idle);
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_being_read_holds_up_no_request_for_another_job() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "small").await;
    let file = demo(&scratch("two-jobs"), "20000", "200");
    let o = std::process::Command::new(BIN)
        .args(["restore", file.to_str().unwrap(), "--server", &nats.url()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let serve = Serve::start(&["--server", &nats.url()]);
    let (status, _, body) = get(serve.port, "/api/snapshot?job=small").await;
    assert_eq!(status, 200, "{body}");
    // job big is read (60,000 entries) while job small, followed already, is asked for again
    let port = serve.port;
    let started = Instant::now();
    let big = tokio::spawn(async move {
        let (status, _, _) = get(port, "/api/snapshot?job=big").await;
        (status, started.elapsed())
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    let asked = Instant::now();
    let (status, _, body) = get(serve.port, "/api/snapshot?job=small").await;
    let small = asked.elapsed();
    assert_eq!(status, 200, "{body}");
    let (status, big) = big.await.unwrap();
    assert_eq!(status, 200);
    // before, the lock on every job was held while big was read: small waited for all of it
    assert!(
        small < big / 2,
        "job small took {small:?} while job big was read ({big:?} in all)"
    );
}
