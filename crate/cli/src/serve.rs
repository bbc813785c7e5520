//! `spate-planner serve`: serves the built dashboard on 127.0.0.1.

use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The built dashboard (scripts/build writes web/dist).
    #[arg(long, default_value = "web/dist")]
    dir: PathBuf,
}

/// The policy the page runs under: no inline script, no eval, wasm compilation allowed.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ts") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file under `root` that a request path names, refusing anything that leaves `root`.
fn resolve(root: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let rel = Path::new(path.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let full = root.join(rel);
    if full.is_dir() {
        Some(full.join("index.html"))
    } else {
        Some(full)
    }
}

pub fn run(args: &Args) -> ExitCode {
    if !args.dir.join("index.html").is_file() {
        eprintln!(
            "{} has no index.html: build the dashboard first (scripts/build)",
            args.dir.display()
        );
        return ExitCode::FAILURE;
    }
    let server = match tiny_http::Server::http(("127.0.0.1", args.port)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "cannot listen on 127.0.0.1:{}: {e} (choose another with --port)",
                args.port
            );
            return ExitCode::FAILURE;
        }
    };
    let addr = server
        .server_addr()
        .to_ip()
        .map(|a| a.to_string())
        .unwrap_or_default();
    println!("spate-planner dashboard: http://{addr}/");
    for req in server.incoming_requests() {
        let header = |k: &str, v: &str| tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).ok();
        let file = resolve(&args.dir, req.url()).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b)));
        let resp = match file {
            Some((p, bytes)) => tiny_http::Response::from_data(bytes)
                .with_header(header("Content-Type", content_type(&p)).expect("static header"))
                .with_header(header("Content-Security-Policy", CSP).expect("static header"))
                .with_header(header("X-Content-Type-Options", "nosniff").expect("static header"))
                .with_header(header("Cache-Control", "no-cache").expect("static header")),
            None => tiny_http::Response::from_string("not found").with_status_code(404),
        };
        let _ = req.respond(resp);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_leave_the_root() {
        let root = Path::new("/srv");
        assert_eq!(
            resolve(root, "/pkg/a.js?x=1"),
            Some(PathBuf::from("/srv/pkg/a.js"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(resolve(root, "/pkg/../../x"), None);
    }
}
