//! `spate-planner serve`: the dashboard, embedded in this binary, on 127.0.0.1.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

#[derive(clap::Args)]
pub struct Args {
    /// A snapshot to open the dashboard with (served as /snapshot.json and shown at /);
    /// without one the dashboard opens with its built-in demo fleet.
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
    let usable = match &source {
        Source::Dir(d) => d.is_dir(),
        Source::Embedded => source.get("index.html").is_some(),
    };
    if !usable {
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
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("spate-planner serve: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!(
                    "cannot listen on 127.0.0.1:{}: {e} (choose another with --port)",
                    args.port
                );
                return ExitCode::FAILURE;
            }
        };
        let addr = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
        println!("spate-planner dashboard: http://{addr}/");
        let shared = Arc::new((source, snapshot));
        let app = axum::Router::new().fallback(move |method: axum::http::Method, uri: axum::http::Uri| {
            let shared = Arc::clone(&shared);
            async move { respond(&method, &uri, &shared.0, shared.1.as_deref()) }
        });
        match axum::serve(listener, app).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("spate-planner serve: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// The page with the served snapshot named on its element, so that `/` opens on it.
fn name_snapshot(page: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(page)
        .replacen(
            "<spate-planner id=\"planner\"",
            "<spate-planner id=\"planner\" snapshot=\"snapshot.json\"",
            1,
        )
        .into_bytes()
}

fn respond(
    method: &axum::http::Method,
    uri: &axum::http::Uri,
    source: &Source,
    snapshot: Option<&[u8]>,
) -> axum::response::Response {
    use axum::http::{header, Method, StatusCode};
    use axum::response::IntoResponse;
    let rel = asset_path(uri.path());
    let body = match (&rel, method) {
        (Some(r), &Method::GET | &Method::HEAD) if r == "snapshot.json" => {
            snapshot.map(|s| Cow::Owned(s.to_vec()))
        }
        (Some(r), &Method::GET | &Method::HEAD) if r == "index.html" && snapshot.is_some() => {
            source.get(r).map(|page| Cow::Owned(name_snapshot(&page)))
        }
        (Some(r), &Method::GET | &Method::HEAD) => source.get(r),
        _ => None,
    };
    match body {
        Some(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(rel.as_deref().unwrap_or(""))),
                (header::CONTENT_SECURITY_POLICY, CSP),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                (header::REFERRER_POLICY, "no-referrer"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            bytes.into_owned(),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
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

    #[test]
    fn the_page_names_the_served_snapshot() {
        let page = b"<body><spate-planner id=\"planner\" permalink></spate-planner>";
        let named = String::from_utf8(name_snapshot(page)).unwrap();
        assert!(named.contains("<spate-planner id=\"planner\" snapshot=\"snapshot.json\" permalink>"));
    }
}
