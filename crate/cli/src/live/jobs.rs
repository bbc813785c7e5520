//! The server's Spate jobs: every `spate_coordination_{job}_state` bucket, with the counts of
//! both of the job's buckets.

use futures_util::StreamExt;
use serde::Serialize;
use spate_planner_core::valid_job_name;
use std::collections::BTreeMap;

/// A bucket's size: messages in its stream (live entries and delete markers) and bytes.
#[derive(Clone, Copy, Serialize)]
pub(crate) struct Size {
    pub entries: u64,
    pub bytes: u64,
}

#[derive(Serialize)]
pub(crate) struct Job {
    pub job: String,
    pub state: Size,
    /// `null` when the job has no lease bucket.
    pub lease: Option<Size>,
    /// When either bucket was last written to (created, when it holds nothing), in ms since the
    /// Unix epoch: what `serve --idle-after` is measured from.
    pub last_write_ms: i64,
}

const PREFIX: &str = "KV_spate_coordination_";

/// (job, is the state bucket) for a Spate bucket's stream name.
fn job_of(stream: &str) -> Option<(&str, bool)> {
    let rest = stream.strip_prefix(PREFIX)?;
    let (job, state) = match (rest.strip_suffix("_state"), rest.strip_suffix("_lease")) {
        (Some(j), _) => (j, true),
        (None, Some(j)) => (j, false),
        _ => return None,
    };
    valid_job_name(job).then_some((job, state))
}

/// The jobs, by name.
pub(crate) async fn list(js: &async_nats::jetstream::Context) -> Result<Vec<Job>, String> {
    let mut states: BTreeMap<String, Size> = BTreeMap::new();
    let mut leases: BTreeMap<String, Size> = BTreeMap::new();
    let mut written: BTreeMap<String, i64> = BTreeMap::new();
    let mut streams = js.streams();
    while let Some(info) = streams.next().await {
        let info = info.map_err(|e| format!("cannot list the server's buckets: {e}"))?;
        if let Some((job, state)) = job_of(&info.config.name) {
            let size = Size {
                entries: info.state.messages,
                bytes: info.state.bytes,
            };
            let map = if state { &mut states } else { &mut leases };
            map.insert(job.to_string(), size);
            let last = info.state.last_timestamp.max(info.created);
            let ms = (last.unix_timestamp_nanos() / 1_000_000) as i64;
            let w = written.entry(job.to_string()).or_insert(ms);
            *w = (*w).max(ms);
        }
    }
    Ok(states
        .into_iter()
        .map(|(job, state)| Job {
            lease: leases.get(&job).copied(),
            last_write_ms: written.get(&job).copied().unwrap_or_default(),
            job,
            state,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        assert_eq!(
            super::job_of("KV_spate_coordination_orders_state"),
            Some(("orders", true))
        );
        assert_eq!(
            super::job_of("KV_spate_coordination_a_b_lease"),
            Some(("a_b", false))
        );
        assert_eq!(super::job_of("KV_other"), None);
        assert_eq!(super::job_of("KV_spate_coordination__state"), None);
    }
}
