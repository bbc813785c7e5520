//! Stream advisories are claims, not facts: anyone on the account can publish one. `serve
//! --server` acts on a "stream deleted" advisory only once the server confirms the bucket is
//! gone.

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::patience;

use async_nats::jetstream;
use live_client::{moved_to, until, Model, Serve, Sse};
use nats_server::NatsServer;
use patience::PATIENCE;
use std::time::Duration;

const SECOND: Duration = Duration::from_secs(1);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spoofed_deletion_advisory_changes_nothing_and_a_real_deletion_still_shows() {
    let nats = NatsServer::start(true);
    let js = jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "adv").await;
    let lease = js.get_key_value("spate_coordination_adv_lease").await.unwrap();
    let serve = Serve::start(&["--server", &nats.url(), "--job", "adv"]);
    let mut sse = Sse::connect(serve.port, "/api/live?job=adv", None).await;
    let mut model = Model::new("adv");
    until(&mut sse, &mut model, PATIENCE, |m, _| m.is("live")).await;
    assert_eq!((model.snapshots, model.statuses.len()), (1, 1));

    // A plain client publishes what the server publishes when a stream is deleted.
    let plain = async_nats::connect(nats.url()).await.unwrap();
    let advisory = r#"{"type":"io.nats.jetstream.advisory.v1.stream_action","id":"x","timestamp":"2026-01-01T00:00:00Z","stream":"KV_spate_coordination_adv_lease","action":"delete"}"#;
    plain
        .publish(
            "$JS.EVENT.ADVISORY.STREAM.DELETED.KV_spate_coordination_adv_lease",
            advisory.into(),
        )
        .await
        .unwrap();
    plain.flush().await.unwrap();
    // A change written after it arrives as a change; for a second more, nothing else comes.
    let rev = lease
        .put("worker.w-z", br#"{"schema":3,"nonce":"nz"}"#.to_vec().into())
        .await
        .unwrap();
    until(&mut sse, &mut model, PATIENCE, |m, _| moved_to(m, "lease", rev)).await;
    let quiet = sse.next(SECOND).await;
    assert!(quiet.is_none(), "after a spoofed advisory: {quiet:?}");
    assert_eq!(
        (model.snapshots, model.statuses.len()),
        (1, 1),
        "a spoofed advisory changed the page's state or status: {:?}",
        model.statuses
    );
    assert!(model.lease.contains_key("worker.w-z"));

    // A real deletion still shows at once.
    js.delete_key_value("spate_coordination_adv_lease").await.unwrap();
    until(&mut sse, &mut model, PATIENCE, |m, _| m.is("error")).await;
    let last = model.statuses.last().unwrap();
    assert!(
        last.contains("spate_coordination_adv_lease") && last.contains("deleted"),
        "{last}"
    );
    serve.stop();
}
