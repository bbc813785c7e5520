//! A real nginx for the tests (Debian's `nginx`; `scripts/setup --browser` installs it, or set
//! `NGINX`): in the foreground, one process (killed whole when dropped), with its own prefix,
//! configuration, pid and log files, on 127.0.0.1 and a free port.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Nginx {
    child: Child,
    pub port: u16,
    pub prefix: PathBuf,
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn nginx_binary() -> PathBuf {
    let bin = PathBuf::from(std::env::var("NGINX").unwrap_or_else(|_| "/usr/sbin/nginx".into()));
    assert!(
        bin.exists(),
        "{}: no nginx; scripts/setup --browser installs Debian's nginx (or set NGINX)",
        bin.display()
    );
    bin
}

/// The directory of the nginx that will listen on `port` (made here): its configuration, logs
/// and temporary files, and whatever files a test gives it (certificates, passwords).
pub fn prefix(port: u16) -> PathBuf {
    let prefix = std::env::temp_dir().join(format!("spate-nginx-{}-{port}", std::process::id()));
    std::fs::create_dir_all(prefix.join("logs")).unwrap();
    prefix
}

impl Nginx {
    /// Passes everything to `127.0.0.1:upstream`, with nginx's defaults (proxy_buffering on,
    /// proxy_http_version 1.0) but the read timeout.
    pub fn start(upstream: u16, read_timeout_s: u32) -> Nginx {
        let port = free_port();
        Nginx::start_http(
            port,
            &format!(
                "  server {{\n    listen 127.0.0.1:{port};\n    location / {{\n      \
                 proxy_pass http://127.0.0.1:{upstream};\n      proxy_read_timeout {read_timeout_s}s;\n    }}\n  }}\n"
            ),
        )
    }

    /// Runs `servers` (an `http` block's content: servers, upstreams) in an `http` block of
    /// only what a test needs of its own (paths, no access log), waiting until `port` listens.
    pub fn start_http(port: u16, servers: &str) -> Nginx {
        let prefix = prefix(port);
        let p = prefix.display();
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {p}/nginx.pid;\nerror_log {p}/logs/error.log;\n\
             events {{ worker_connections 64; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {p}/body;\n  proxy_temp_path {p}/proxy;\n  \
             fastcgi_temp_path {p}/fastcgi;\n  uwsgi_temp_path {p}/uwsgi;\n  scgi_temp_path {p}/scgi;\n\
             {servers}}}\n"
        );
        std::fs::write(prefix.join("nginx.conf"), conf).unwrap();
        let child = Command::new(nginx_binary())
            .arg("-p")
            .arg(&prefix)
            .arg("-c")
            .arg(prefix.join("nginx.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut n = Nginx { child, port, prefix };
        n.wait_listening();
        n
    }

    fn wait_listening(&mut self) {
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("nginx ended: {status}: {}", self.log());
            }
            assert!(start.elapsed() < Duration::from_secs(20), "nginx did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.prefix.join("logs/error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
