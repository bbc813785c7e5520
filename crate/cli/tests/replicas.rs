//! Past one machine (docs/user-guide.md, "Past one machine: replicas"): two `serve` replicas
//! following one real NATS job behind one nginx, its `upstream` block the guide's own (the two
//! addresses replaced by the replicas'). A client does what the page does: it reads the state
//! (`/planner/api/snapshot`, its `X-Spate-Revisions`), opens the event stream with `?since=`
//! them, and after a dropped or silent stream opens it again with `?since=` the last event's id.
//! While a writer puts a change into NATS every 40 ms, the replica holding the stream is
//! stopped (SIGTERM, as `systemctl stop` or `docker stop` does): the client's stream ends, it
//! reconnects through nginx to the other replica, and it receives every change written — before
//! and after the stop — once each, in order, their revisions contiguous, and never a full state
//! (each stream resumed from the revisions held, whichever replica they came from: they are
//! NATS's, the same on every replica; after the stop, from the survivor's own ring).

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::nginx;

use live_client::{request, Serve, Sse};
use nats_server::NatsServer;
use nginx::Nginx;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const HOST: &str = "planner.example.com";
const WRITES: usize = 60;

/// The guide's `upstream` block, its servers replaced by `ports`.
fn upstream(ports: [u16; 2]) -> String {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/user-guide.md"))
            .unwrap();
    let start = guide
        .find("upstream spate_planner {")
        .expect("the guide's upstream block");
    let block = &guide[start..start + guide[start..].find("\n}\n").unwrap() + 3];
    let mut out = block.to_string();
    for (from, to) in [("10.0.0.5:8080", ports[0]), ("10.0.0.6:8080", ports[1])] {
        assert_eq!(out.matches(from).count(), 1, "{from} in {block}");
        out = out.replace(from, &format!("127.0.0.1:{to}"));
    }
    out
}

/// The streams open on each replica (its own `/planner/metrics`, asked directly).
async fn streams(port: u16) -> u64 {
    let (status, _, body) = request(
        port,
        &format!("GET /planner/metrics HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body.lines()
        .find_map(|l| l.strip_prefix("spate_planner_live_streams{spate_job=\"x\"} "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no live_streams: {body}"))
}

/// A change event's state revision (the writer writes the state bucket only).
fn state_revision(data: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    (v["bucket"] == "state").then(|| v["entry"]["revision"].as_u64().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_keeps_every_change_when_its_replica_stops_mid_stream() {
    let nats = NatsServer::start(true);
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "x").await;
    let state = js.get_key_value("spate_coordination_x_state").await.unwrap();
    let url = nats.url();
    let args = [
        "--server",
        &url,
        "--job",
        "x",
        "--base-path",
        "/planner",
        "--allow-host",
        HOST,
        "--heartbeat",
        "1",
    ];
    let mut replicas = [Some(Serve::start(&args)), Some(Serve::start(&args))];
    let ports = [
        replicas[0].as_ref().unwrap().port,
        replicas[1].as_ref().unwrap().port,
    ];
    let port = nginx::free_port();
    let nginx = Nginx::start_http(
        port,
        &format!(
            "{}\n  server {{\n    listen 127.0.0.1:{port};\n    location /planner/ {{\n      \
             proxy_pass http://spate_planner;\n      proxy_http_version 1.1;\n      \
             proxy_set_header Host $host;\n      proxy_set_header Connection \"\";\n    }}\n  }}\n",
            upstream(ports)
        ),
    );

    // the page: the state first, then the stream from its revisions
    let (status, head, body) = request(
        port,
        &format!("GET /planner/api/snapshot?job=x HTTP/1.0\r\nHost: {HOST}\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 200, "{head}\n{body}");
    let mut at = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("x-spate-revisions: ")
                .or_else(|| l.strip_prefix("X-Spate-Revisions: "))
        })
        .unwrap_or_else(|| panic!("{head}"))
        .trim()
        .to_string();
    let open = |since: String| async move {
        let sse = Sse::connect_as(
            port,
            &format!("/planner/api/live?job=x&since={since}"),
            HOST,
            None,
        )
        .await;
        assert!(sse.head.starts_with("HTTP/1.1 200"), "{}", sse.head);
        sse
    };
    let mut sse = open(at.clone()).await;

    // the writer: a change every 40 ms, each revision kept
    let writer = tokio::spawn(async move {
        let mut written = Vec::new();
        for i in 0..WRITES {
            let v = serde_json::json!({"schema":3,"generation":2,"splits":[format!("s{i:02}")]});
            let rev = state
                .put(format!("assign.w-r{i:02}"), v.to_string().into_bytes().into())
                .await
                .unwrap();
            written.push(rev);
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        written
    });

    let mut received: Vec<u64> = Vec::new();
    let mut snapshots = 0;
    let mut stopped: Option<usize> = None;
    let mut reconnects = 0;
    let start = Instant::now();
    while received.len() < WRITES {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} of {WRITES} changes after 60 s: {received:?}\n{}",
            received.len(),
            nginx.log()
        );
        // nothing for three heartbeats: the stream ended (or went silent); open it again
        let Some(e) = sse.next(Duration::from_secs(3)).await else {
            assert!(
                stopped.is_some(),
                "the stream ended with both replicas up: {}",
                sse.raw
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
            reconnects += 1;
            assert!(reconnects <= 3, "{reconnects} reconnects");
            eprintln!("reconnecting from {at} after {} changes", received.len());
            sse = open(at.clone()).await;
            continue;
        };
        match e.event.as_str() {
            "change" => {
                if let Some(r) = state_revision(&e.data) {
                    received.push(r);
                }
            }
            "snapshot" => snapshots += 1,
            _ => {}
        }
        if let Some(id) = e.id {
            at = id;
        }
        // a third of the way: stop the replica the stream is on
        if stopped.is_none() && received.len() == WRITES / 3 {
            let on = [streams(ports[0]).await, streams(ports[1]).await];
            let i = on
                .iter()
                .position(|&n| n == 1)
                .unwrap_or_else(|| panic!("streams {on:?}"));
            assert_eq!(on.iter().sum::<u64>(), 1, "streams {on:?}");
            let pid = replicas[i].as_ref().unwrap().child.id().to_string();
            let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
            assert!(status.success());
            let mut gone = replicas[i].take().unwrap();
            gone.child.wait().unwrap();
            stopped = Some(i);
            eprintln!("replica {i} stopped after {} changes, at {at}", received.len());
        }
    }
    let written = writer.await.unwrap();
    let stopped = stopped.expect("a replica was stopped");
    let survivor = 1 - stopped;
    assert_eq!(reconnects, 1, "one reconnection");
    assert_eq!(
        streams(ports[survivor]).await,
        1,
        "the stream is on the surviving replica"
    );
    assert!(
        written.windows(2).all(|w| w[1] == w[0] + 1),
        "the writer's revisions: {written:?}"
    );
    assert_eq!(received, written, "every change once, in order");
    assert_eq!(
        snapshots, 0,
        "each stream resumed from the revisions held (the first from a read that nginx may have \
         sent to the other replica; the second from the surviving replica's ring), not from a full state"
    );
    // nothing more: no change sent twice after the last
    let quiet = Instant::now();
    while let Some(left) = Duration::from_secs(2).checked_sub(quiet.elapsed()) {
        if let Some(e) = sse.next(left).await {
            assert_eq!(e.event, "heartbeat", "{e:?}");
        }
    }
    drop(nginx);
}
