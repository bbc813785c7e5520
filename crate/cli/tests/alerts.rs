//! Alerting that notices the planner itself, with Prometheus's own tool (`promtool`, Debian's
//! `prometheus`; `scripts/setup --browser` installs it):
//!
//! - deploy/prometheus/alerts.yml passes `promtool check rules`, and its unit tests
//!   (alerts.test.yml) pass `promtool test rules`; every alert has a `for`, a severity and a
//!   runbook link to a section of docs/metrics.md that exists, over metrics the server exposes;
//! - a real scrape passes `promtool check metrics`, and carries the build's version and the
//!   process's memory, CPU time and open files.

use crate::fixture;
use crate::live_client;
use crate::nats_server;

use live_client::{get, Serve};
use nats_server::NatsServer;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn promtool() -> Command {
    let bin = std::env::var("PROMTOOL").unwrap_or_else(|_| "/usr/bin/promtool".into());
    assert!(
        Path::new(&bin).exists(),
        "{bin}: no promtool; scripts/setup --browser installs Debian's prometheus (or set PROMTOOL)"
    );
    Command::new(bin)
}

/// `promtool ARGS` in `dir`: its output, which must say it succeeded.
fn promtool_ok(dir: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let mut child = promtool()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        std::io::Write::write_all(&mut input, text.as_bytes()).unwrap();
    }
    drop(input);
    let o = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "promtool {args:?}: {}\n{said}", o.status);
    said
}

/// The rules of alerts.yml: (name, its whole text).
fn rules() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo("deploy/prometheus/alerts.yml")).unwrap();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.trim().strip_prefix("- alert: ") {
            out.push((name.to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

#[test]
fn the_rules_pass_promtools_checks_and_their_unit_tests() {
    let dir = repo("deploy/prometheus");
    let checked = promtool_ok(&dir, &["check", "rules", "alerts.yml"], None);
    let n = rules().len();
    assert!(
        checked.contains(&format!("SUCCESS: {n} rules found")),
        "{checked}"
    );
    let tested = promtool_ok(&dir, &["test", "rules", "alerts.test.yml"], None);
    assert!(tested.contains("SUCCESS"), "{tested}");
    // each alert is tested where it fires
    let tests = std::fs::read_to_string(dir.join("alerts.test.yml")).unwrap();
    for (name, _) in rules() {
        assert!(
            tests.contains(&format!(
                "alertname: {name}\n        exp_alerts:\n          - exp_labels"
            )),
            "{name}: no test where it fires"
        );
    }
}

#[test]
fn every_alert_has_a_wait_a_severity_and_a_runbook_section() {
    let docs = std::fs::read_to_string(repo("docs/metrics.md")).unwrap();
    let names = [
        "SpatePlannerDown",
        "SpatePlannerAbsent",
        "SpateStoreStale",
        "SpateLeaderNotPublishing",
        "SpateImbalance",
        "SpateQuarantineRising",
    ];
    let rules = rules();
    for n in names {
        assert!(rules.iter().any(|(r, _)| r == n), "no alert {n}");
    }
    for (name, body) in &rules {
        assert!(body.contains("\n        for: "), "{name}: no for");
        assert!(
            body.contains("severity: critical") || body.contains("severity: warning"),
            "{name}: no severity"
        );
        let anchor = name.to_ascii_lowercase();
        assert!(
            body.contains(&format!("runbook_url: docs/metrics.md#{anchor}\n")),
            "{name}: no runbook link"
        );
        assert!(
            docs.contains(&format!("\n#### {name}\n")),
            "{name}: no runbook section in docs/metrics.md"
        );
    }
}

/// The CPU time of process `pid` (user and system), as `/proc/PID/stat` says (in ticks of
/// 1/100 s).
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let f: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    // fields 14 and 15 of the line, counted from the pid; `f` starts at field 3
    (f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()) as f64 / 100.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_scrape_passes_promtool_and_says_the_version_and_the_process() {
    let nats = NatsServer::start(true);
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "m").await;
    let url = nats.url();
    let serve = Serve::start(&["--server", &url, "--job", "m"]);
    let cpu_before = cpu_seconds(serve.child.id());
    let (status, _, text) = get(serve.port, "/metrics").await;
    let cpu_after = cpu_seconds(serve.child.id());
    assert_eq!(status, 200, "{text}");
    let checked = promtool_ok(Path::new("."), &["check", "metrics"], Some(&text));
    assert_eq!(checked.trim(), "", "promtool check metrics found problems");
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        text.contains(&format!(
            "\nspate_planner_build_info{{version=\"{version}\"}} 1\n"
        )),
        "{text}"
    );
    let value = |name: &str| -> f64 {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name}:\n{text}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    };
    // the process as /proc says it, at about the time of the scrape
    let rss = value("process_resident_memory_bytes");
    let kib = serve.rss_kib() as f64;
    assert!(
        rss > 1e6 && (rss / 1024.0 - kib).abs() < kib * 0.5,
        "{rss} bytes, /proc says {kib} KiB"
    );
    let fds = value("process_open_fds");
    assert!((5.0..200.0).contains(&fds), "{fds}");
    assert!(value("process_max_fds") >= fds);
    let cpu = value("process_cpu_seconds_total");
    assert!(
        cpu >= cpu_before && cpu <= cpu_after,
        "{cpu} s, /proc says {cpu_before}..{cpu_after}"
    );
    let started = value("process_start_time_seconds");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    assert!(
        started <= now + 1.0 && started > now - 600.0,
        "started {started}, now {now}"
    );
    serve.stop();
}
