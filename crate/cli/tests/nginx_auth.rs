//! deploy/nginx/planner-basic-auth.conf, the worked example of nginx with basic authentication
//! and TLS in front of `serve --base-path /planner`, run in a real nginx as written: only its
//! listening port, its certificate and key (made here by openssl for planner.example.com), its
//! password file (made here by `openssl passwd -apr1`, and with a bcrypt line where Python's
//! crypt makes one) and the planner's address are replaced by the test's own. curl is the
//! browser (it trusts the test's certificate and resolves planner.example.com to nginx).
//!
//! - without credentials, with a wrong password or an unknown user: 401 for the page, the live
//!   API, the event stream and /metrics;
//! - with the right ones: the page, the jobs, and the event stream, on which a change written to
//!   NATS arrives;
//! - /planner/healthz answers without credentials (the load balancer's readiness probe);
//! - the credentials never reach the planner: every byte nginx sent it (through a tap between
//!   them) holds no `Authorization`, user name, password or their base64, and neither does
//!   anything the planner wrote (its standard output and error, its recording).

use crate::fixture;
use crate::live_client;
use crate::nats_server;
use crate::nginx;

use live_client::Serve;
use nats_server::NatsServer;
use nginx::Nginx;
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HOST: &str = "planner.example.com";
const USER: &str = "ops-alice";
const PASSWORD: &str = "Tr0ub4dor&3-planner";
const BCRYPT_USER: &str = "ops-bob";
const BCRYPT_PASSWORD: &str = "correct-horse-battery";

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/nginx/planner-basic-auth.conf");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with `from` replaced by `to`, which must occur exactly once.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "{from:?} is not in the example once"
    );
    text.replace(from, to)
}

fn run(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A bcrypt hash of `password` from the system's crypt (as nginx checks it), if Python has it.
fn bcrypt(password: &str) -> Option<String> {
    let o = Command::new("python3")
        .args([
            "-W",
            "ignore",
            "-c",
            "import crypt,sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH)))",
            password,
        ])
        .output()
        .ok()?;
    let h = String::from_utf8(o.stdout).ok()?.trim().to_string();
    h.starts_with("$2").then_some(h)
}

/// A TCP tap between nginx and the planner: everything nginx sends the planner, kept.
async fn tap(to: u16) -> (u16, Arc<Mutex<Vec<u8>>>) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((inbound, _)) = l.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let Ok(outbound) = tokio::net::TcpStream::connect(("127.0.0.1", to)).await else {
                    return;
                };
                let (mut ir, mut iw) = inbound.into_split();
                let (mut or, mut ow) = outbound.into_split();
                let up = async move {
                    let mut buf = vec![0u8; 16 * 1024];
                    while let Ok(n @ 1..) = ir.read(&mut buf).await {
                        kept.lock().unwrap().extend_from_slice(&buf[..n]);
                        if ow.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                    let _ = ow.shutdown().await;
                };
                let down = async move {
                    let _ = tokio::io::copy(&mut or, &mut iw).await;
                    let _ = iw.shutdown().await;
                };
                tokio::join!(up, down);
            });
        }
    });
    (port, seen)
}

/// curl as the browser: TLS with the test's certificate, planner.example.com resolved to nginx.
struct Browser {
    port: u16,
    ca: std::path::PathBuf,
}

impl Browser {
    fn curl(&self, path: &str, auth: Option<(&str, &str)>) -> Command {
        let mut c = Command::new("curl");
        c.args(["-sS", "--max-time", "20", "--cacert"])
            .arg(&self.ca)
            .arg("--resolve")
            .arg(format!("{HOST}:{}:127.0.0.1", self.port))
            .arg(format!("https://{HOST}:{}{path}", self.port));
        if let Some((u, p)) = auth {
            c.arg("-u").arg(format!("{u}:{p}"));
        }
        c
    }

    /// (status, headers, body)
    fn get(&self, path: &str, auth: Option<(&str, &str)>) -> (u16, String, String) {
        let out = run(self.curl(path, auth).args(["-D", "-"]));
        let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap();
        (status, head.to_string(), body.to_string())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_auth_guards_the_page_and_the_stream_and_the_credentials_stop_at_nginx() {
    let nats = NatsServer::start(true);
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    fixture::write_job(&js, "x").await;
    let state = js.get_key_value("spate_coordination_x_state").await.unwrap();
    let url = nats.url();
    let recording = std::env::temp_dir().join(format!("spate-auth-rec-{}", std::process::id()));
    let serve = Serve::start(&[
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
        "--record",
        recording.to_str().unwrap(),
    ]);
    let (tapped, seen) = tap(serve.port).await;

    // nginx with the example, in its own directory: a certificate, the password file
    let port = nginx::free_port();
    let dir = nginx::prefix(port);
    let (cert, key, passwords) = (dir.join("cert.pem"), dir.join("key.pem"), dir.join("htpasswd"));
    run(Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ])
        .args(["-days", "2", "-subj", &format!("/CN={HOST}")])
        .args(["-addext", &format!("subjectAltName=DNS:{HOST}")])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .stderr(Stdio::null()));
    let apr1 = run(Command::new("openssl").args(["passwd", "-apr1", PASSWORD]));
    let mut lines = format!("{USER}:{}\n", apr1.trim());
    let bcrypt_hash = bcrypt(BCRYPT_PASSWORD);
    match &bcrypt_hash {
        Some(h) => lines.push_str(&format!("{BCRYPT_USER}:{h}\n")),
        None => eprintln!("no bcrypt hash here (Python's crypt): the bcrypt line is not tried"),
    }
    std::fs::write(&passwords, lines).unwrap();
    let mut conf = example();
    for (from, to) in [
        (
            "listen 443 ssl;".to_string(),
            format!("listen 127.0.0.1:{port} ssl;"),
        ),
        (
            "/etc/ssl/planner/fullchain.pem".into(),
            cert.display().to_string(),
        ),
        ("/etc/ssl/planner/privkey.pem".into(), key.display().to_string()),
        (
            "/etc/nginx/planner.htpasswd;".into(),
            format!("{};", passwords.display()),
        ),
        (
            "server 127.0.0.1:8080;".into(),
            format!("server 127.0.0.1:{tapped};"),
        ),
    ] {
        conf = replace_once(&conf, &from, &to);
    }
    let nginx = Nginx::start_http(port, &conf);
    let b = Browser {
        port,
        ca: cert.clone(),
    };

    // refused without the right credentials, whatever the route
    let wrong = [
        None,
        Some((USER, "not-the-password")),
        Some(("mallory", PASSWORD)),
        Some((USER, "")),
    ];
    for path in [
        "/planner/",
        "/planner/api/jobs",
        "/planner/api/live?job=x",
        "/planner/metrics",
    ] {
        for auth in wrong {
            let (status, head, body) = b.get(path, auth);
            assert_eq!(status, 401, "{path} with {auth:?}: {head}\n{body}");
            assert!(
                head.to_ascii_lowercase()
                    .contains("www-authenticate: basic realm=\"spate-planner\""),
                "{head}"
            );
        }
    }
    // readiness, for the load balancer, without credentials
    let (status, _, body) = b.get("/planner/healthz", None);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(r#""ok":true"#), "{body}");
    // nothing outside the prefix
    assert_eq!(b.get("/", Some((USER, PASSWORD))).0, 404);

    // with them: the page and the jobs
    let mut accounts = vec![(USER, PASSWORD)];
    if bcrypt_hash.is_some() {
        accounts.push((BCRYPT_USER, BCRYPT_PASSWORD));
    }
    for auth in &accounts {
        let (status, head, body) = b.get("/planner/", Some(*auth));
        assert_eq!(status, 200, "{auth:?}: {head}\n{body}");
        assert!(body.contains("<title>t</title>"), "{body}");
        let (status, _, body) = b.get("/planner/api/jobs", Some(*auth));
        assert_eq!(status, 200, "{body}");
        assert!(body.contains(r#""job":"x""#), "{body}");
    }
    let (status, head, _) = b.get("/planner?job=x", Some((USER, PASSWORD)));
    assert_eq!(status, 308, "{head}");
    let location = head
        .lines()
        .find_map(|l| l.strip_prefix("Location: "))
        .unwrap_or_default();
    assert_eq!(
        location,
        format!("https://{HOST}:{port}/planner/?job=x"),
        "{head}"
    );

    // the event stream: its first state, then a change written to NATS arrives
    let mut stream = b
        .curl("/planner/api/live?job=x", Some((USER, PASSWORD)))
        .args(["-N", "-H", "Accept: text/event-stream"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let out = stream.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait_for = |what: &str| {
        let mut got = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(20)) {
                Ok(line) if line.contains(what) => return line,
                Ok(line) => got.push(line),
                Err(_) => panic!(
                    "no {what:?} on the stream through nginx; got {got:?}\n{}",
                    nginx.log()
                ),
            }
        }
    };
    wait_for("event: status");
    fixture::put(
        &state,
        "assign.w-auth",
        json!({"schema":3,"generation":2,"splits":["s01"]}),
    )
    .await;
    wait_for("event: change");
    let line = wait_for("data: ");
    assert!(line.contains("assign.w-auth"), "{line}");
    let _ = stream.kill();
    let _ = stream.wait();

    // the credentials stopped at nginx: not in what the planner received …
    let received = String::from_utf8_lossy(&seen.lock().unwrap()).to_string();
    assert!(
        received.contains("GET /planner/api/live?job=x "),
        "the tap saw no stream: {received}"
    );
    assert!(received.contains(&format!("\r\nHost: {HOST}\r\n")), "{received}");
    let secrets = secrets(&accounts);
    for s in &secrets {
        assert!(
            !received.to_ascii_lowercase().contains(&s.to_ascii_lowercase()),
            "the planner received {s:?}:\n{received}"
        );
    }
    // … nor in anything it wrote (once the recorder has written the change: it writes what it
    // receives from NATS, which may come a moment after the stream's event on a busy machine)
    let recorded = || {
        std::fs::read_dir(&recording).unwrap().flatten().any(|f| {
            String::from_utf8_lossy(&std::fs::read(f.path()).unwrap_or_default()).contains("assign.w-auth")
        })
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !recorded() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(nginx);
    let mut written = serve.stdout_line.clone();
    written.push_str(&serve.stop());
    for f in std::fs::read_dir(&recording).unwrap() {
        written.push_str(&String::from_utf8_lossy(
            &std::fs::read(f.unwrap().path()).unwrap(),
        ));
    }
    assert!(
        written.contains("assign.w-auth"),
        "the recording holds the change"
    );
    for s in &secrets {
        assert!(!written.contains(s.as_str()), "the planner wrote {s:?}");
    }
    let _ = std::fs::remove_dir_all(&recording);
}

/// What must not reach the planner: the header, each user name and password, and the header's
/// value (base64 of `user:password`).
fn secrets(accounts: &[(&str, &str)]) -> Vec<String> {
    let mut out = vec!["authorization".to_string()];
    for (u, p) in accounts {
        out.push(u.to_string());
        out.push(p.to_string());
        out.push(base64(format!("{u}:{p}").as_bytes()));
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
