//! Staleness is part of every answer (issue 32), against a real `serve` and a real NATS server:
//! a store that stops answering while the connection stays up (the server stopped with SIGSTOP,
//! as in a partition) fails `/healthz` naming the job, turns the job's stream `silent` and marks
//! `/api/snapshot`'s answer, and all of it comes back once the store answers again; a job whose
//! buckets are deleted is refused by `/api/snapshot` (410, a coded error), never served as
//! current. The times are printed with `--nocapture`.

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::patience;

use async_nats::jetstream;
use live_client::{get, Serve, Sse};
use nats_server::NatsServer;
use patience::PATIENCE;
use std::time::{Duration, Instant};

/// `serve --stale-after`: short, so that the test waits less.
const STALE_AFTER: &str = "3";

async fn health(port: u16) -> (u16, serde_json::Value) {
    let (status, _, body) = get(port, "/healthz").await;
    let doc = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    (status, doc)
}

/// Asks `/healthz` until it answers `want` (for up to [`PATIENCE`]): the document then.
async fn health_until(port: u16, want: u16) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let (status, doc) = health(port).await;
        if status == want {
            return doc;
        }
        assert!(start.elapsed() < PATIENCE, "still {status}: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The value of header `name` in `head` (lower-case names, as the server writes them).
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .map(str::trim)
}

/// Reads the stream until a `status` event whose data holds `needle` (for up to [`PATIENCE`]).
async fn status_until(sse: &mut Sse, needle: &str) -> String {
    let start = Instant::now();
    loop {
        let left = PATIENCE.saturating_sub(start.elapsed());
        let e = sse
            .next(left)
            .await
            .unwrap_or_else(|| panic!("no status {needle} within {PATIENCE:?}"));
        if e.event == "status" && e.data.contains(needle) {
            return e.data;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_stops_answering_fails_healthz_naming_the_job_and_marks_every_answer() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "part").await;
    let serve = Serve::start(&[
        "--server",
        &nats.url(),
        "--job",
        "part",
        "--stale-after",
        STALE_AFTER,
    ]);
    let port = serve.port;
    let (status, ready) = health(port).await;
    assert_eq!(status, 200, "{ready}");
    let job = &ready["jobs"][0];
    assert_eq!(
        (&job["job"], &job["status"]),
        (&"part".into(), &"live".into()),
        "{ready}"
    );
    let (status, head, _) = get(port, "/api/snapshot?job=part").await;
    assert_eq!(status, 200, "{head}");
    let store = header(&head, "x-spate-store-revisions")
        .expect("the store's revisions")
        .to_string();
    assert_eq!(Some(store.as_str()), header(&head, "x-spate-revisions"), "{head}");
    assert!(header(&head, "x-spate-store-heard-ms").is_some(), "{head}");
    assert!(header(&head, "x-spate-not-current").is_none(), "{head}");
    let mut sse = Sse::connect(port, "/api/live?job=part", None).await;
    status_until(&mut sse, "\"live\"").await;

    nats.signal("STOP");
    let stopped = Instant::now();
    let down = health_until(port, 503).await;
    let to_healthz = stopped.elapsed();
    let reasons = down["reasons"].to_string();
    assert!(
        reasons.contains("job part: the store has not been heard from for"),
        "{down}"
    );
    assert!(
        reasons.contains(&format!("last confirmed at revisions {store}")),
        "{down}"
    );
    assert_eq!(
        down["nats_connected"], true,
        "the connection is up, the store silent: {down}"
    );
    assert_eq!(down["jobs"][0]["status"], "silent", "{down}");
    let said = status_until(&mut sse, "\"silent\"").await;
    let to_page = stopped.elapsed();
    assert!(said.contains("has not been heard from"), "{said}");
    let (status, head, _) = get(port, "/api/snapshot?job=part").await;
    assert_eq!(status, 200, "{head}");
    let why = header(&head, "x-spate-not-current").expect("the answer marked");
    assert!(why.contains("has not been heard from"), "{head}");
    eprintln!("NATS stopped: /healthz failed after {to_healthz:?}, the stream said silent after {to_page:?} (bound {STALE_AFTER} s)");

    nats.signal("CONT");
    let up = health_until(port, 200).await;
    assert_eq!(up["jobs"][0]["status"], "live", "{up}");
    status_until(&mut sse, "\"live\"").await;
    let (_, head, _) = get(port, "/api/snapshot?job=part").await;
    assert!(header(&head, "x-spate-not-current").is_none(), "{head}");
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_buckets_are_deleted_is_refused_not_served_as_current() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "gone").await;
    let serve = Serve::start(&["--server", &nats.url(), "--job", "gone"]);
    let port = serve.port;
    let (status, _, body) = get(port, "/api/snapshot?job=gone").await;
    assert_eq!(status, 200, "{body}");
    for side in ["state", "lease"] {
        js.delete_key_value(format!("spate_coordination_gone_{side}"))
            .await
            .unwrap();
    }
    let start = Instant::now();
    let (status, head, body) = loop {
        let (status, head, body) = get(port, "/api/snapshot?job=gone").await;
        if status != 200 {
            break (status, head, body);
        }
        assert!(
            start.elapsed() < PATIENCE,
            "the deleted job is still served as current"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status, 410, "{head}\n{body}");
    let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(doc["code"], "job_deleted", "{doc}");
    assert_eq!(doc["job"], "gone", "{doc}");
    assert!(
        doc["error"]
            .as_str()
            .unwrap()
            .contains("spate_coordination_gone_"),
        "{doc}"
    );
    let (_, ready) = health(port).await;
    assert_eq!(ready["jobs"][0]["status"], "error", "{ready}");
    serve.stop();
}
