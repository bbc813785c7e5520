//! The live stream through a real nginx with its default proxy settings (Debian's `nginx`;
//! `scripts/setup --browser` installs it): buffering on, HTTP/1.0 to the server, no settings
//! copied from the docs. Only the read timeout is shortened (3 s for nginx's 60 s) so that an
//! idle stream's fate shows in seconds; the server's heartbeat is shortened with it (1 s).
//!
//! - a change written to NATS reaches the client through nginx within a few seconds (nginx held
//!   events back in its buffers until more came);
//! - an idle stream outlives nginx's read timeout (nginx cut it);
//! - a client that comes back with `Last-Event-ID` is sent what it missed only;
//! - the stream's own headers tell proxies not to buffer, cache or transform it.

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::nginx;

use live_client::{Serve, Sse};
use nats_server::NatsServer;
use nginx::Nginx;
use serde_json::json;
use std::time::{Duration, Instant};

/// The fixture job `x` followed by `serve` with a 1 s heartbeat, behind nginx (read timeout 3 s).
async fn served() -> (NatsServer, async_nats::jetstream::kv::Store, Serve, Nginx) {
    let nats = NatsServer::start(true);
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "x").await;
    let state = js.get_key_value("spate_coordination_x_state").await.unwrap();
    let url = nats.url();
    let serve = Serve::start(&["--server", &url, "--job", "x", "--heartbeat", "1"]);
    let nginx = Nginx::start(serve.port, 3);
    (nats, state, serve, nginx)
}

/// The stream's events up to its first state and status (what a page holds before changes).
async fn opened(port: u16, last_event_id: Option<&str>) -> (Sse, String) {
    let mut sse = Sse::connect(port, "/api/live?job=x", last_event_id).await;
    assert!(sse.head.starts_with("HTTP/1.1 200"), "{}", sse.head);
    let mut id = String::new();
    loop {
        let e = sse
            .next(Duration::from_secs(20))
            .await
            .unwrap_or_else(|| panic!("no first state through nginx: {}", sse.raw));
        if let Some(i) = e.id {
            id = i;
        }
        if e.event == "status" {
            return (sse, id);
        }
    }
}

/// The next event that is not a heartbeat, within `wait`, or `None`.
async fn next_change(sse: &mut Sse, wait: Duration) -> Option<live_client::Event> {
    let start = Instant::now();
    while let Some(left) = wait.checked_sub(start.elapsed()) {
        let e = sse.next(left).await?;
        if e.event != "heartbeat" {
            return Some(e);
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_reaches_the_page_through_nginx_within_seconds() {
    let (_nats, state, serve, nginx) = served().await;
    let (mut sse, _) = opened(nginx.port, None).await;
    for n in 0..3 {
        let written = Instant::now();
        fixture::put(
            &state,
            "assign.w-proxy",
            json!({"schema":3,"generation":2,"splits":[format!("s0{n}")]}),
        )
        .await;
        let e = next_change(&mut sse, Duration::from_secs(5))
            .await
            .unwrap_or_else(|| {
                panic!(
                    "change {n} did not come through nginx within 5 s; got: {}\n{}",
                    sse.raw,
                    nginx.log()
                )
            });
        assert_eq!(e.event, "change", "{}", e.data);
        assert!(e.data.contains("assign.w-proxy"), "{}", e.data);
        eprintln!("change {n} through nginx after {:?}", written.elapsed());
    }
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_stream_outlives_the_proxys_read_timeout_and_resumes_by_last_event_id() {
    let (_nats, state, serve, nginx) = served().await;
    let (mut sse, id) = opened(nginx.port, None).await;
    // three times nginx's read timeout without a change
    let idle = Instant::now();
    let mut beats = 0;
    while idle.elapsed() < Duration::from_secs(9) {
        match sse.next(Duration::from_millis(500)).await {
            Some(e) if e.event == "heartbeat" => {
                assert_eq!(e.data, r#"{"interval_ms":1000}"#);
                assert_eq!(e.id, None, "a heartbeat moves no page's place in the stream");
                beats += 1;
            }
            Some(e) => panic!("an idle job sent {e:?}"),
            None => {}
        }
    }
    assert!(beats >= 5, "{beats} heartbeats in 9 s: {}", sse.raw);
    fixture::put(
        &state,
        "assign.w-idle",
        json!({"schema":3,"generation":2,"splits":["s01"]}),
    )
    .await;
    let e = next_change(&mut sse, Duration::from_secs(5))
        .await
        .unwrap_or_else(|| panic!("the idle stream was cut: {}\n{}", sse.raw, nginx.log()));
    assert!(e.data.contains("assign.w-idle"), "{}", e.data);
    drop(sse);
    // gone, a change missed, back with the last id it had: that change only, no full state
    fixture::put(
        &state,
        "assign.w-back",
        json!({"schema":3,"generation":2,"splits":["s02"]}),
    )
    .await;
    let last = e.id.unwrap_or(id);
    let mut back = Sse::connect(nginx.port, "/api/live?job=x", Some(&last)).await;
    let mut seen = Vec::new();
    while let Some(e) = next_change(&mut back, Duration::from_secs(5)).await {
        seen.push(e.event.clone());
        if e.event == "change" {
            assert!(e.data.contains("assign.w-back"), "{}", e.data);
            break;
        }
    }
    assert!(
        !seen.iter().any(|e| e == "snapshot"),
        "resumed, not sent the whole state: {seen:?}"
    );
    assert_eq!(
        seen.last().map(String::as_str),
        Some("change"),
        "{seen:?}: {}",
        back.raw
    );
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_tells_proxies_not_to_buffer_cache_or_transform_it() {
    let (_nats, _state, serve, _nginx) = served().await;
    let sse = Sse::connect(serve.port, "/api/live?job=x", None).await;
    let head = sse.head.to_ascii_lowercase();
    assert!(head.contains("\r\nx-accel-buffering: no\r\n"), "{head}");
    assert!(
        head.contains("\r\ncache-control: no-cache, no-store, no-transform\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\ncontent-type: text/event-stream\r\n"), "{head}");
    serve.stop();
}
