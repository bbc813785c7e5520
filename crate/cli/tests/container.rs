//! deploy/Containerfile, the container image: read as a container engine reads it, and checked
//! against the repository and the binary built here:
//!
//! - every file it copies from the build context is in the repository and not left out by
//!   .dockerignore; the builder installs wasm-bindgen-cli by scripts/setup's rule and builds with
//!   `scripts/build --dist`, whose native binary is the file the image's stage copies and runs;
//! - the image runs as an unprivileged user, exposes 8080, and its default arguments are accepted
//!   by `serve` (run here, the port only made free);
//! - its HEALTHCHECK, run here with bash as the engine runs it, passes against a ready server
//!   (under a base path too) and fails against a server that lost NATS (503), a wrong path and a
//!   closed port.
//!
//! Where a container engine answers (`docker info`, else `podman info`; or `CONTAINER_ENGINE`),
//! the image is also built and run: `/healthz` through the published port, the engine's health
//! status, and the user inside. Where none does, that test says so and checks nothing more
//! (`CONTAINER_REQUIRED=1` makes that a failure).

use crate::nats_server;

use nats_server::NatsServer;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One instruction: its keyword (upper case), and the rest of its logical line.
#[derive(Debug, Clone)]
struct Instr {
    op: String,
    args: String,
}

/// The file's instructions, as the engine reads them: `\` continues a line, comment lines
/// (within a continued instruction too) are dropped.
fn instructions(text: &str) -> Vec<Instr> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') || (t.is_empty() && cur.is_empty()) {
            continue;
        }
        if let Some(more) = t.strip_suffix('\\') {
            cur.push_str(more);
            cur.push(' ');
            continue;
        }
        cur.push_str(t);
        let (op, args) = cur.split_once(char::is_whitespace).unwrap_or((&cur, ""));
        out.push(Instr {
            op: op.to_ascii_uppercase(),
            args: args.trim().to_string(),
        });
        cur.clear();
    }
    assert!(cur.is_empty(), "the file ends inside an instruction: {cur}");
    out
}

/// The stages: each a `FROM` and what follows it.
fn stages(instrs: &[Instr]) -> Vec<Vec<Instr>> {
    let mut out: Vec<Vec<Instr>> = Vec::new();
    for i in instrs {
        if i.op == "FROM" {
            out.push(Vec::new());
        }
        if let Some(s) = out.last_mut() {
            s.push(i.clone());
        }
    }
    out
}

/// The scripts a shell script runs with `node` (`node scripts/NAME.mjs ...` lines).
fn node_scripts(script: &str) -> Vec<&str> {
    script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("node "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|s| s.starts_with("scripts/"))
        .collect()
}

fn containerfile() -> String {
    std::fs::read_to_string(root().join("deploy/Containerfile")).expect("deploy/Containerfile")
}

/// The patterns of .dockerignore (comments and blank lines dropped).
fn ignored_patterns() -> Vec<String> {
    std::fs::read_to_string(root().join(".dockerignore"))
        .expect(".dockerignore")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Whether `path` (relative, `/`-separated) is left out by `pattern`: the pattern names it or
/// a folder above it; `**/` matches any folders, `*` at a name's end any ending.
fn ignores(pattern: &str, path: &str) -> bool {
    let names: Vec<&str> = path.split('/').collect();
    let pat = pattern.trim_start_matches("**/");
    let anywhere = pat.len() != pattern.len();
    let pat: Vec<&str> = pat.split('/').collect();
    let one = |p: &str, n: &str| match p.strip_suffix('*') {
        Some(start) => n.starts_with(start),
        None => p == n,
    };
    let starts: Vec<usize> = if anywhere {
        (0..names.len()).collect()
    } else {
        vec![0]
    };
    starts
        .into_iter()
        .any(|s| names.len() >= s + pat.len() && pat.iter().zip(&names[s..]).all(|(p, n)| one(p, n)))
}

#[test]
fn the_dockerignore_rule_reads_as_the_engine_does() {
    assert!(ignores("node_modules", "node_modules/x/y"));
    assert!(ignores("**/target", "crate/cli/target/debug"));
    assert!(ignores("**/target", "target"));
    assert!(ignores("mutants.out*", "mutants.out.old/x"));
    assert!(!ignores("web/dist", "web/distinct.js"));
    assert!(!ignores("web/dist", "crate/web/dist"));
}

#[test]
fn the_image_is_built_from_the_repository_by_its_own_build_and_runs_unprivileged() {
    let text = containerfile();
    let all = instructions(&text);
    let stages = stages(&all);
    assert_eq!(stages.len(), 3, "node, the builder, the image: {stages:#?}");
    let ignore = ignored_patterns();

    // Every file copied from the context exists and is sent with it.
    for i in all
        .iter()
        .filter(|i| i.op == "COPY" && !i.args.starts_with("--from"))
    {
        let words: Vec<&str> = i.args.split_whitespace().collect();
        let (dest, sources) = words.split_last().unwrap();
        assert!(!sources.is_empty(), "COPY {}", i.args);
        for s in sources {
            assert!(
                root().join(s).exists(),
                "COPY {s} {dest}: no {s} in the repository"
            );
            for p in &ignore {
                assert!(!ignores(p, s), "COPY {s}: .dockerignore leaves it out ({p})");
            }
        }
    }
    // What the build reads is in the context: each crate, the dashboard's sources, the file the
    // API embeds, the build script and its helper.
    let copied: Vec<&str> = all
        .iter()
        .filter(|i| i.op == "COPY" && !i.args.starts_with("--from"))
        .flat_map(|i| {
            let w: Vec<&str> = i.args.split_whitespace().collect();
            w[..w.len() - 1].to_vec()
        })
        .collect();
    let build_script = std::fs::read_to_string(root().join("scripts/build")).expect("scripts/build");
    let node_scripts = node_scripts(&build_script);
    assert!(
        node_scripts.contains(&"scripts/hash-names.mjs"),
        "the scripts scripts/build runs: {node_scripts:?}"
    );
    let files = [
        "Cargo.toml",
        "Cargo.lock",
        "crate",
        "web",
        "docs/openapi.json",
        "package.json",
        "package-lock.json",
        "scripts/build",
    ];
    for needed in files.iter().chain(&node_scripts) {
        assert!(copied.contains(needed), "{needed} is not copied: {copied:?}");
    }

    // The builder: the wasm target, wasm-bindgen-cli by scripts/setup's rule, `scripts/build
    // --dist`, whose binary the image copies.
    let build = &stages[1];
    assert!(build[0].args.ends_with(" AS build"), "{:?}", build[0]);
    let runs: String = build
        .iter()
        .filter(|i| i.op == "RUN")
        .map(|i| i.args.clone() + "\n")
        .collect();
    assert!(
        runs.contains("rustup target add wasm32-unknown-unknown"),
        "{runs}"
    );
    let setup = std::fs::read_to_string(root().join("scripts/setup")).unwrap();
    let rule =
        r#"awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock"#;
    assert!(setup.contains(rule), "scripts/setup reads the version otherwise");
    assert!(
        runs.contains(rule),
        "the version is read otherwise than scripts/setup does"
    );
    assert!(
        runs.contains(r#"cargo install wasm-bindgen-cli --version "=$want""#),
        "{runs}"
    );
    assert!(runs.contains("npm ci"), "{runs}");
    assert!(runs.contains("scripts/build --dist"), "{runs}");
    let script = std::fs::read_to_string(root().join("scripts/build")).unwrap();
    assert!(script.contains("cargo build --release $locked -p spate-planner"));
    let workdir = build
        .iter()
        .rfind(|i| i.op == "WORKDIR")
        .map(|i| i.args.clone())
        .expect("the builder's WORKDIR");
    let built = format!("{workdir}/target/release/spate-planner");

    // The image: slim, the binary only, not root, port 8080, a readiness probe.
    let image = &stages[2];
    let from = &image[0].args;
    assert!(
        from.contains("debian:") && from.contains("-slim") || from.contains("distroless"),
        "{from}"
    );
    let copies: Vec<&Instr> = image.iter().filter(|i| i.op == "COPY").collect();
    assert_eq!(copies.len(), 1, "the binary only: {copies:?}");
    let w: Vec<&str> = copies[0].args.split_whitespace().collect();
    assert_eq!(
        w,
        ["--from=build", built.as_str(), "/usr/local/bin/spate-planner"]
    );
    let entry = image.iter().find(|i| i.op == "ENTRYPOINT").expect("ENTRYPOINT");
    assert_eq!(entry.args, r#"["/usr/local/bin/spate-planner"]"#);
    let user = image.iter().rfind(|i| i.op == "USER").expect("USER").args.clone();
    let uid = user.split(':').next().unwrap();
    assert!(uid != "0" && uid != "root" && !uid.is_empty(), "USER {user}");
    let sets_up = image.iter().filter(|i| i.op == "RUN").any(|i| {
        i.args.contains(&format!("--uid {uid} "))
            && i.args
                .contains(&format!("--gid {}", user.split(':').nth(1).unwrap_or(uid)))
    });
    assert!(sets_up, "user {user} is not made in the image");
    assert!(image.iter().any(|i| i.op == "EXPOSE" && i.args == "8080"));
    let probe = image.iter().find(|i| i.op == "HEALTHCHECK").expect("HEALTHCHECK");
    assert!(probe.args.contains("CMD ["), "{probe:?}");

    // The default arguments are `serve`'s: run them here (the port made free).
    let cmd: Vec<String> =
        serde_json::from_str(&image.iter().rfind(|i| i.op == "CMD").unwrap().args).unwrap();
    assert_eq!(&cmd[..3], ["serve", "--bind", "0.0.0.0"], "{cmd:?}");
    let at = cmd.iter().position(|a| a == "--port").expect("--port");
    assert_eq!(cmd[at + 1], "8080", "EXPOSE 8080 and the port differ");
    let mut args = cmd.clone();
    args[at + 1] = "0".into();
    let mut s = Serve::start(&args);
    let said = s.stdout_line.clone();
    assert!(said.contains(" http://127.0.0.1:"), "{said}");
    s.stop();
}

/// `serve ARGS` with its address read from its first line, killed when dropped. The dashboard
/// from a directory of one page (the binary built for the tests may have none built in; the
/// image's has).
struct Serve {
    child: Child,
    port: u16,
    stdout_line: String,
}

impl Serve {
    fn start(args: &[String]) -> Serve {
        let dir = std::env::temp_dir().join(format!("spate-container-www-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("index.html"), "<!doctype html><title>t</title>").unwrap();
        let mut child = Command::new(BIN)
            .args(args)
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut line = Vec::new();
        let mut b = [0u8; 1];
        while out.read(&mut b).unwrap_or(0) == 1 && b[0] != b'\n' {
            line.push(b[0]);
        }
        let line = String::from_utf8(line).unwrap();
        let port = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .and_then(|a| a.rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("serve did not start: {line:?}"));
        Serve {
            child,
            port,
            stdout_line: line,
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The HEALTHCHECK's command (exec form) and the environment the image gives it.
fn probe() -> (Vec<String>, Vec<(String, String)>) {
    let all = instructions(&containerfile());
    let probe = all.iter().rfind(|i| i.op == "HEALTHCHECK").unwrap();
    let json = &probe.args[probe.args.find("CMD [").unwrap() + 4..];
    let cmd: Vec<String> = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let env = all
        .iter()
        .filter(|i| i.op == "ENV")
        .filter_map(|i| i.args.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    (cmd, env)
}

/// Runs the probe as the engine does, with `SPATE_PLANNER_HEALTHZ` set to `target`: whether
/// it passed.
fn probe_passes(target: &str) -> bool {
    let (cmd, env) = probe();
    assert!(
        env.iter()
            .any(|(k, v)| k == "SPATE_PLANNER_HEALTHZ" && v == "127.0.0.1:8080/healthz"),
        "the image's probe names another address: {env:?}"
    );
    let mut c = Command::new(&cmd[0]);
    c.args(&cmd[1..]).env("SPATE_PLANNER_HEALTHZ", target);
    let start = Instant::now();
    let status = c.stderr(Stdio::null()).status().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "the probe took {:?}",
        start.elapsed()
    );
    status.success()
}

fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn the_images_probe_passes_on_a_ready_server_only() {
    let s = |a: &[&str]| Serve::start(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let plain = s(&["serve", "--port", "0"]);
    assert!(probe_passes(&format!("127.0.0.1:{}/healthz", plain.port)));
    assert!(
        !probe_passes(&format!("127.0.0.1:{}/nothing", plain.port)),
        "a 404 passed"
    );
    let based = s(&["serve", "--port", "0", "--base-path", "/planner"]);
    assert!(probe_passes(&format!("127.0.0.1:{}/planner/healthz", based.port)));
    assert!(!probe_passes(&format!("127.0.0.1:{}/healthz", based.port)));
    assert!(
        !probe_passes(&format!("127.0.0.1:{}/healthz", closed_port())),
        "nothing listens"
    );

    // following NATS: ready while connected, not while the connection is lost, ready again
    let mut nats = NatsServer::start(true);
    let url = nats.url();
    let live = s(&["serve", "--port", "0", "--server", &url]);
    let target = format!("127.0.0.1:{}/healthz", live.port);
    assert!(probe_passes(&target));
    nats.kill();
    let until = |want: bool| {
        let start = Instant::now();
        while probe_passes(&target) != want {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the probe never became {want}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    until(false);
    nats.restart();
    until(true);
}

/// The container engine to build with, if one answers.
fn engine() -> Option<String> {
    let candidates = match std::env::var("CONTAINER_ENGINE") {
        Ok(e) => vec![e],
        Err(_) => vec!["docker".to_string(), "podman".to_string()],
    };
    for e in candidates {
        let ok = Command::new(&e)
            .arg("info")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(e);
        }
    }
    None
}

fn run(engine: &str, args: &[&str]) -> String {
    let o = Command::new(engine).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{engine} {args:?}: {}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

#[test]
fn the_image_builds_and_answers_its_probe_where_an_engine_runs() {
    let Some(engine) = engine() else {
        assert!(
            std::env::var("CONTAINER_REQUIRED").is_err(),
            "CONTAINER_REQUIRED is set and no container engine answers"
        );
        eprintln!(
            "SKIPPED: no container engine answers here (docker info, podman info); the image was not built"
        );
        return;
    };
    let tag = format!("spate-planner-test:{}", std::process::id());
    let root = root();
    let mut build = vec!["build", "-f", "deploy/Containerfile", "-t", &tag];
    if engine.ends_with("podman") {
        build.push("--format=docker"); // keeps HEALTHCHECK (OCI images have none)
    }
    let root_s = root.to_str().unwrap().to_string();
    build.push(&root_s);
    eprintln!("building the image with {engine} (a release build: minutes)");
    run(&engine, &build);
    let id = run(
        &engine,
        &[
            "run",
            "-d",
            "--rm",
            "-p",
            "127.0.0.1::8080",
            &tag,
            "serve",
            "--bind",
            "0.0.0.0",
            "--port",
            "8080",
            "--allow-host",
            "127.0.0.1",
        ],
    );
    let cleanup = Cleanup(engine.clone(), id.clone(), tag.clone());
    let published = run(&engine, &["port", &id, "8080/tcp"]);
    let port: u16 = published
        .lines()
        .next()
        .and_then(|l| l.rsplit(':').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{published}"));
    let start = Instant::now();
    let answer = loop {
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = write!(s, "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
            let mut a = String::new();
            let _ = s.read_to_string(&mut a);
            if a.starts_with("HTTP/1.1 200") {
                break a;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "/healthz never answered 200"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(answer.contains(r#""ok":true"#), "{answer}");
    assert_eq!(run(&engine, &["exec", &id, "id", "-u"]), "10001");
    let start = Instant::now();
    loop {
        let health = run(&engine, &["inspect", "--format", "{{.State.Health.Status}}", &id]);
        if health == "healthy" {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(90), "health: {health}");
        std::thread::sleep(Duration::from_secs(1));
    }
    drop(cleanup);
}

/// Stops the container and removes the image, however the test ends.
struct Cleanup(String, String, String);

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = Command::new(&self.0).args(["rm", "-f", &self.1]).output();
        let _ = Command::new(&self.0).args(["rmi", "-f", &self.2]).output();
    }
}
