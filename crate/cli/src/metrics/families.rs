//! The metric families `/metrics` exposes: each name, type and help once (docs/metrics.md
//! lists them, and a test holds the two together), and one scrape's samples written in the
//! Prometheus text format (0.0.4) by `prometheus-client`, which escapes the label values.
//!
//! A label value comes from the store (a leader's owner is whatever the worker wrote): before it
//! is written it is bounded to [`MAX_LABEL_BYTES`] and its control characters other than the
//! newline (which the format escapes as `\n`) are written as `\u{XX}` (see [`label_value`]), so
//! that a 1 MB owner is not a 1 MB scrape and a CR or NUL never reaches a scraper raw.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeGaugeValue, GaugeValueEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Gauge,
    /// Exposed with `_total` after the name.
    Counter,
}

use Kind::{Counter, Gauge};

/// Every family: its name (a counter's without `_total`), type and help, in the order exposed.
pub(crate) const FAMILIES: &[(&str, Kind, &str)] = &[
    // The plan of each followed job's current state (the plan document of `plan --json`).
    ("spate_planner_members", Gauge, "Live members (presence keys) of the job."),
    ("spate_planner_splits", Gauge, "The job's splits by what happens to them now (label state): running (a live member holds it), idle (assignable, no live member holds it), withheld (a recently departed instance's, by the rebalance delay), quarantined, completed, waiting_for_spec; they add up to the job's splits."),
    ("spate_planner_planned_splits", Gauge, "The splits the leader may assign, by the plan's outcome (label outcome): assigned to a member, or queued for want of a free lane."),
    ("spate_planner_load_max_bytes", Gauge, "The heaviest member's load (the weight of the splits it holds, bytes for Spate's S3 source), now and as planned (label when)."),
    ("spate_planner_load_mean_bytes", Gauge, "The members' mean load, now and as planned (label when)."),
    ("spate_planner_load_lower_bound_bytes", Gauge, "No assignment has a lighter heaviest member: max(ceil(planned total / members), heaviest split)."),
    ("spate_planner_members_at_cap", Gauge, "Members whose lanes are all used (lanes at or above the cap), now and as planned (label when)."),
    ("spate_planner_members_over_mean", Gauge, "Members more than 5 percent above the mean load, now and as planned (label when)."),
    ("spate_planner_planned_moves", Gauge, "Splits the plan moves from their current owners (or queues away from them)."),
    ("spate_planner_planned_move_bytes", Gauge, "The weight of the splits the plan moves."),
    ("spate_planner_published_records", Gauge, "assign.* records: the leader's last published assignment."),
    ("spate_planner_published_distance", Gauge, "Splits whose member in the plan differs from the published assignment (moved, published nowhere, or planned nowhere); absent when nothing is published."),
    ("spate_planner_published_stale_records", Gauge, "assign.* records whose generation is below the plan record's (written before the last election)."),
    ("spate_planner_published_conflicts", Gauge, "Splits named in more than one assign.* record: two workers are told to run them."),
    ("spate_planner_last_publish_timestamp_seconds", Gauge, "When the newest assign.* record was written (the NATS server's clock, Unix seconds): the leader's last publish that changed a record; absent when there is none."),
    ("spate_planner_leader_publishes", Gauge, "1 when the leader publishes (a plan record and members), 0 when the standing assignment stays."),
    ("spate_planner_job_info", Gauge, "Always 1: the leader (the leader record's owner, empty when none) and the release whose rules the plan follows (0.1 or 0.3), as labels."),
    ("spate_planner_max_attempts", Gauge, "The workers' max_attempts the three figures below are judged by, which the store does not record; label source: spate_default (Spate's 4) or user (serve --max-attempts)."),
    ("spate_planner_splits_at_risk", Gauge, "Runnable splits at attempts max_attempts - 1: one non-graceful end, or one hand-over that the claim race parks, from quarantine."),
    ("spate_planner_splits_past_max_attempts", Gauge, "Runnable splits at attempts max_attempts or more: their next takeover quarantines them; any at all suggests the workers run with a higher max_attempts."),
    ("spate_planner_splits_parked_by_race", Gauge, "Quarantined splits at attempts max_attempts whose lease is still live, owned by a live member under its current nonce one epoch behind the record: parked by the claim race right after that member's claim."),
    ("spate_planner_warnings", Gauge, "Warnings about the job's records (records the leader ignores or reads with a default)."),
    ("spate_planner_findings", Gauge, "The plan's findings by level (label level): fatal, warning, notice."),
    ("spate_planner_revision", Gauge, "The revision (stream sequence) of each bucket (label bucket) the plan's figures are of."),
    ("spate_planner_plan_ok", Gauge, "1 when the figures are of the job's current state; 0 when that state cannot be planned (a record the leader refuses): its figures are left out."),
    ("spate_planner_plan_duration_seconds", Gauge, "How long planning the job's current state took (once per state, shared by every scrape)."),
    // Following each job.
    ("spate_planner_job_status", Gauge, "1 for the status of following the job (label status): live, reconnecting, error; 0 for the others."),
    ("spate_planner_live_streams", Gauge, "Pages following the job: its event streams open."),
    ("spate_planner_changes", Counter, "Changes applied to the job's state held in memory (watch entries and lease expiries)."),
    ("spate_planner_resyncs", Counter, "Times the job's buckets were read afresh (after a reconnect, a gap in the stream, a bucket created again)."),
    ("spate_planner_plans", Counter, "Plans made of the job's states since it was followed (by scrapes): one per state a scrape found moved; scrapes of the same state, and scrapes whose client hung up, share it."),
    ("spate_planner_watch_lag_seconds", Gauge, "From the NATS server writing the oldest change of the last batch to this server applying it (the two clocks' difference included); absent before the first change."),
    ("spate_planner_watch_pending_entries", Gauge, "Messages of the bucket's stream (label bucket) after the last one its watch delivered, as that one said: the watch's backlog."),
    // Recording each job (`serve --record`).
    ("spate_planner_recording_ok", Gauge, "1 while the job's recording (serve --record) is written, 0 once it stopped: a write failed (a full disk) or its directory was removed; /healthz then says why."),
    ("spate_planner_recording_bytes", Counter, "Bytes written into the job's recording segments (before compression)."),
    // The server.
    ("spate_planner_job_followed", Gauge, "1 when the job is followed from the start (its series are here at every scrape), 0 when it is listed but not followed: past the cap (serve --max-jobs), or idle."),
    ("spate_planner_job_idle", Gauge, "1 when nothing was written to the job's buckets for serve --idle-after (no worker of it runs), so it is not followed; else 0."),
    ("spate_planner_job_last_write_timestamp_seconds", Gauge, "When the job's buckets were last written to, as the last listing of the server's buckets found (seconds since the Unix epoch; a running worker writes every few seconds)."),
    ("spate_planner_jobs_followed", Gauge, "Jobs whose state is held now: those followed from the start (at most serve --max-jobs) and those pages opened (at most 8 more)."),
    ("spate_planner_jobs_max", Gauge, "The cap on jobs followed from the start (serve --max-jobs)."),
    ("spate_planner_nats_connected", Gauge, "1 while the connection to NATS is up, 0 while reconnecting."),
    ("spate_planner_nats_disconnects", Counter, "Times the connection to NATS was lost (each followed by reconnecting)."),
    ("spate_planner_scrape_duration_seconds", Gauge, "How long gathering this scrape's figures took (planning the jobs whose state moved since the last scrape included)."),
    ("spate_planner_build_info", Gauge, "Always 1: the server's version, as a label."),
    // The process, under the names every Prometheus client library gives these (`process.rs`).
    ("process_resident_memory_bytes", Gauge, "Resident memory size in bytes."),
    ("process_cpu_seconds", Counter, "Total user and system CPU time spent in seconds."),
    ("process_open_fds", Gauge, "Number of open file descriptors."),
    ("process_max_fds", Gauge, "Maximum number of open file descriptors."),
    ("process_start_time_seconds", Gauge, "Start time of the process since unix epoch in seconds."),
];

/// A sample's value: counts and bytes exactly, the rest as floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Int(u64),
    Float(f64),
}

impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::Int(v)
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(v.into())
    }
}

impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(v as u64)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Int(v.into())
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Float(v)
    }
}

impl EncodeGaugeValue for Value {
    fn encode(&self, encoder: &mut GaugeValueEncoder) -> Result<(), std::fmt::Error> {
        match self {
            Value::Int(v) => v.encode(encoder),
            Value::Float(v) => v.encode(encoder),
        }
    }
}

/// A sample's labels: (name, value), the value as the store has it (escaped when written).
pub(crate) type Labels = Vec<(&'static str, String)>;

/// The longest label value written, in bytes (UTF-8); a longer one is cut, ending in `…`.
pub(crate) const MAX_LABEL_BYTES: usize = 128;

/// A control character other than the newline: C0, DEL, C1.
fn control(c: char) -> bool {
    c != '\n' && (c.is_ascii_control() || ('\u{80}'..='\u{9f}').contains(&c))
}

/// `v` as it is written: each control character but the newline as `\u{XX}`, then cut at a
/// character boundary to at most [`MAX_LABEL_BYTES`] bytes, the cut marked with `…`.
pub(crate) fn label_value(v: String) -> String {
    let mut out = if v.chars().any(control) {
        let mut o = String::with_capacity(v.len().min(MAX_LABEL_BYTES) + 8);
        for c in v.chars() {
            if o.len() > MAX_LABEL_BYTES {
                break;
            }
            match c {
                c if control(c) => o.push_str(&format!("\\u{{{:x}}}", c as u32)),
                c => o.push(c),
            }
        }
        o
    } else {
        v
    };
    if out.len() > MAX_LABEL_BYTES {
        let mut end = MAX_LABEL_BYTES - '…'.len_utf8();
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}

/// One scrape's samples, by family.
#[derive(Debug)]
pub(crate) struct Exposition {
    samples: Vec<Vec<(Labels, Value)>>,
}

impl Default for Exposition {
    fn default() -> Exposition {
        Exposition {
            samples: vec![Vec::new(); FAMILIES.len()],
        }
    }
}

impl Exposition {
    /// A sample of family `name` (as listed in [`FAMILIES`]; any other name is a bug).
    pub(crate) fn add(&mut self, name: &str, labels: Labels, value: impl Into<Value>) {
        match FAMILIES.iter().position(|(n, _, _)| *n == name) {
            Some(i) => {
                let labels = labels.into_iter().map(|(k, v)| (k, label_value(v))).collect();
                self.samples[i].push((labels, value.into()))
            }
            None => debug_assert!(false, "no metric family {name}"),
        }
    }

    /// The samples in the Prometheus text format (0.0.4); a family without samples is left
    /// out.
    pub(crate) fn text(self) -> String {
        let mut registry = Registry::default();
        registry.register_collector(Box::new(self));
        let mut out = String::new();
        // Writing into a String cannot fail, nor can the collector's own encoding.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry);
        out
    }
}

impl Collector for Exposition {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for ((name, kind, help), samples) in FAMILIES.iter().zip(&self.samples) {
            if samples.is_empty() {
                continue;
            }
            let kind = match kind {
                Gauge => MetricType::Gauge,
                Counter => MetricType::Counter,
            };
            let mut family = encoder.encode_descriptor(name, help, None, kind)?;
            for (labels, value) in samples {
                let mut one = family.encode_family(labels)?;
                match (kind, value) {
                    (MetricType::Counter, Value::Int(v)) => one.encode_counter::<Labels, _, f64>(v, None)?,
                    (MetricType::Counter, Value::Float(v)) => {
                        one.encode_counter::<Labels, _, f64>(v, None)?
                    }
                    _ => one.encode_gauge(value)?,
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_conventions() {
        let mut seen = std::collections::BTreeSet::new();
        for (name, kind, help) in FAMILIES {
            // the process's own under the names client libraries give them
            assert!(
                name.starts_with("spate_planner_") || name.starts_with("process_"),
                "{name}"
            );
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{name}"
            );
            assert!(seen.insert(*name), "{name} twice");
            assert!(
                !name.ends_with("_total"),
                "{name}: the encoder adds _total to counters"
            );
            for unit in ["seconds", "bytes"] {
                // a unit in base units, last (before a counter's _total)
                if name.contains(unit) {
                    assert!(name.ends_with(&format!("_{unit}")), "{name}");
                }
            }
            assert!(*kind == Gauge || !name.ends_with("_info"), "{name}");
            assert!(help.ends_with('.') && !help.contains('\n'), "{name}: {help}");
        }
    }

    #[test]
    fn label_values_are_escaped_and_counters_end_in_total() {
        let mut x = Exposition::default();
        let odd = "w\"1\\x\ny".to_string();
        x.add(
            "spate_planner_job_info",
            vec![
                ("spate_job", "g".into()),
                ("leader", odd),
                ("rules", "0.1".into()),
            ],
            1u32,
        );
        x.add("spate_planner_changes", vec![("spate_job", "g".into())], 42u64);
        x.add(
            "spate_planner_load_mean_bytes",
            vec![("when", "now".into())],
            77.5,
        );
        let text = x.text();
        assert!(
            text.contains(
                "spate_planner_job_info{spate_job=\"g\",leader=\"w\\\"1\\\\x\\ny\",rules=\"0.1\"} 1\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("# TYPE spate_planner_changes_total counter\n"),
            "{text}"
        );
        assert!(
            text.contains("\nspate_planner_changes_total{spate_job=\"g\"} 42\n"),
            "{text}"
        );
        assert!(
            text.contains("\nspate_planner_load_mean_bytes{when=\"now\"} 77.5\n"),
            "{text}"
        );
        assert!(
            !text.contains("spate_planner_members"),
            "no sample, no family: {text}"
        );
        assert!(
            !text.contains("# EOF"),
            "the Prometheus text format, not OpenMetrics: {text}"
        );
    }

    #[test]
    fn label_values_are_bounded_and_controls_written_as_escapes() {
        let mut x = Exposition::default();
        let huge = format!("w\r\0x{}", "é".repeat(500_000));
        x.add(
            "spate_planner_job_info",
            vec![
                ("spate_job", "g".into()),
                ("leader", huge),
                ("rules", "0.1".into()),
            ],
            1u32,
        );
        let text = x.text();
        assert!(
            text.len() < 4096,
            "a 1 MB owner gave a {} byte scrape",
            text.len()
        );
        assert!(!text.contains('\r') && !text.contains('\0'), "{text:?}");
        let line = text
            .lines()
            .find(|l| l.starts_with("spate_planner_job_info{"))
            .unwrap();
        let leader = line
            .split("leader=\"")
            .nth(1)
            .unwrap()
            .split("\",rules")
            .next()
            .unwrap();
        // the value as Prometheus reads it back: `w\u{d}\u{0}xéé…é…`, 128 bytes at most
        let read = leader.replace("\\\\", "\\");
        assert!(read.starts_with("w\\u{d}\\u{0}xéé"), "{read}");
        assert!(
            read.ends_with('…') && read.len() <= MAX_LABEL_BYTES,
            "{} bytes: {read}",
            read.len()
        );
        assert_eq!(label_value("w-1".into()), "w-1");
        assert_eq!(label_value("a\nb\u{9b}".into()), "a\nb\\u{9b}");
        assert_eq!(
            label_value("x".repeat(MAX_LABEL_BYTES)),
            "x".repeat(MAX_LABEL_BYTES)
        );
        let over = label_value("x".repeat(MAX_LABEL_BYTES + 1));
        assert_eq!(over, format!("{}…", "x".repeat(MAX_LABEL_BYTES - 3)));
    }
}
