//! `spate-planner serve`: the dashboard, embedded in this binary, on 127.0.0.1.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

#[derive(clap::Args)]
pub struct Args {
    /// A snapshot to open the dashboard with (served as /snapshot.json); without one the
    /// dashboard opens with its built-in demo fleet.
    snapshot: Option<PathBuf>,
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Serve the dashboard from this directory instead of the copy built into the binary.
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The policy the page runs under: no inline script, no eval, wasm compilation allowed, and no
/// request leaving the origin.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; \
style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
form-action 'none'; frame-ancestors 'self'";

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("md") => "text/markdown; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The relative asset path a request names (`index.html` for `/`), refusing anything that
/// could leave the root.
fn asset_path(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_string()
    };
    if Path::new(&rel)
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
        || rel.contains('\\')
    {
        return None;
    }
    Some(rel)
}

enum Source {
    Embedded,
    Dir(PathBuf),
}

impl Source {
    fn get(&self, rel: &str) -> Option<Cow<'static, [u8]>> {
        match self {
            Source::Embedded => ASSETS
                .iter()
                .find(|(p, _)| *p == rel)
                .map(|(_, b)| Cow::Borrowed(*b)),
            Source::Dir(d) => std::fs::read(d.join(rel)).ok().map(Cow::Owned),
        }
    }
}

pub fn run(args: &Args) -> ExitCode {
    let source = match &args.dir {
        Some(d) => Source::Dir(d.clone()),
        None => Source::Embedded,
    };
    if source.get("index.html").is_none() {
        eprintln!(
            "spate-planner serve: no dashboard {}: build it with scripts/build (or pass --dir web/dist)",
            if args.dir.is_some() {
                "in that directory"
            } else {
                "was built into this binary"
            }
        );
        return ExitCode::FAILURE;
    }
    let snapshot = match &args.snapshot {
        None => None,
        Some(p) => match crate::plan::load(p) {
            Ok(fleet) => {
                eprintln!(
                    "snapshot {}: job {}, {} members, {} splits, {} warnings",
                    p.display(),
                    fleet.job,
                    fleet.members.len(),
                    fleet.splits.len(),
                    fleet.warnings.len()
                );
                match std::fs::read(p) {
                    Ok(b) => Some(b),
                    Err(e) => {
                        eprintln!("spate-planner serve: cannot read {}: {e}", p.display());
                        return ExitCode::FAILURE;
                    }
                }
            }
            Err(e) => {
                eprintln!("spate-planner serve: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
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
    let query = if snapshot.is_some() {
        "?snapshot=snapshot.json"
    } else {
        ""
    };
    println!("spate-planner dashboard: http://{addr}/{query}");
    let shared = Arc::new((source, snapshot));
    for req in server.incoming_requests() {
        let shared = Arc::clone(&shared);
        // One thread per request: a slow client never holds up the page's other requests.
        std::thread::spawn(move || respond(req, &shared.0, shared.1.as_deref()));
    }
    ExitCode::SUCCESS
}

fn respond(req: tiny_http::Request, source: &Source, snapshot: Option<&[u8]>) {
    let header = |k: &str, v: &str| tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()).ok();
    let rel = asset_path(req.url());
    let body = match (&rel, req.method()) {
        (Some(r), tiny_http::Method::Get | tiny_http::Method::Head) if r == "snapshot.json" => {
            snapshot.map(|s| Cow::Owned(s.to_vec()))
        }
        (Some(r), tiny_http::Method::Get | tiny_http::Method::Head) => source.get(r),
        _ => None,
    };
    let result = match body {
        Some(bytes) => {
            let mut resp = tiny_http::Response::from_data(bytes.into_owned());
            for (k, v) in [
                ("Content-Type", content_type(rel.as_deref().unwrap_or(""))),
                ("Content-Security-Policy", CSP),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                ("Cache-Control", "no-cache"),
            ] {
                if let Some(h) = header(k, v) {
                    resp.add_header(h);
                }
            }
            req.respond(resp)
        }
        None => req.respond(tiny_http::Response::from_string("not found").with_status_code(404)),
    };
    let _ = result;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_leave_the_root() {
        assert_eq!(asset_path("/pkg/a.js?x=1").as_deref(), Some("pkg/a.js"));
        assert_eq!(asset_path("/").as_deref(), Some("index.html"));
        assert_eq!(asset_path("/../etc/passwd"), None);
        assert_eq!(asset_path("/pkg/../../x"), None);
        assert_eq!(asset_path("/a\\..\\b"), None);
    }
}
