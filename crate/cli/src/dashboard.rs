//! The dashboard's server, which `serve` and `replay` share: where it listens (`Listen`), the
//! dashboard's files (embedded in this binary, or `--dir`), the routes (`/healthz`, and in live
//! mode `/metrics` and `/api/…`), and the page as served, naming the snapshot it opens with.

use std::net::IpAddr;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::assets::{reply, Asset, Sent};
use crate::base_path::BasePath;
use crate::hosts::Hosts;
use crate::live::http::Live;
use axum::body::Bytes;

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

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

pub(crate) enum Source {
    Embedded,
    Dir(PathBuf),
}

/// Why an asset could not be served.
pub(crate) enum Miss {
    /// No such file: 404.
    NotFound,
    /// The file exists (or may) but cannot be read: 500.
    Io(std::io::Error),
}

impl Source {
    /// The asset: the embedded one itself (no copy, with its gzip), or the file as read.
    fn get(&self, rel: &str) -> Result<Sent, Miss> {
        match self {
            Source::Embedded => ASSETS
                .iter()
                .find(|a| a.path == rel)
                .map(Sent::embedded)
                .ok_or(Miss::NotFound),
            Source::Dir(d) => match std::fs::read(d.join(rel)) {
                Ok(b) => Ok(Sent::file(rel, Bytes::from(b))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Miss::NotFound),
                Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => Err(Miss::NotFound),
                Err(e) => Err(Miss::Io(e)),
            },
        }
    }
}

/// Where the dashboard listens and what it serves: the options `serve` and `replay` share.
#[derive(clap::Args)]
pub(crate) struct Listen {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on: an IPv4 or IPv6 address of this machine (0.0.0.0 or :: for all).
    /// Beyond loopback the server is reachable from the network, and it has no authentication:
    /// it warns so, and belongs behind the team's reverse proxy (docs/user-guide.md).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Answer under this path prefix, as a reverse proxy forwards it (e.g. /planner: the page at
    /// /planner/, the API at /planner/api/…, /planner/healthz); anything outside it is 404.
    #[arg(long, value_name = "PATH", default_value = "/", value_parser = BasePath::parse)]
    pub base_path: BasePath,
    /// Also answer requests for this host name (repeatable). Against DNS rebinding, every
    /// request whose Host is not 127.0.0.1:PORT, localhost:PORT or the --bind address with
    /// PORT, or whose Origin is not one of those, is refused (403); behind a reverse proxy that
    /// passes its own Host on, name it here. NAME is a host name or address, with :PORT to allow
    /// that port only.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Serve the dashboard from this directory instead of the copy built into the binary.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Seconds a client has to send a request's headers, from the connection's opening or the
    /// end of the previous answer on it; then the connection is closed (slowloris and idle
    /// keep-alive connections alike).
    #[arg(long, value_name = "SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds a write to a client may stay blocked (the client stopped reading) before the
    /// connection is closed and what it held is freed.
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout: u64,
    /// Connections served at once; more wait until one closes (so that no client takes every
    /// file descriptor the server needs).
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
    /// Connections one client address may hold at once (default: a quarter of
    /// --max-connections); past it the client's next connection is answered 503 and closed, so
    /// that no one client takes every place. Behind a proxy every client is the proxy's address:
    /// give it --max-connections.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections_per_client: Option<u32>,
}

impl Listen {
    /// The names to answer to and the dashboard's files, or why the server cannot start.
    pub(crate) fn checked(&self) -> Result<(Hosts, Source), String> {
        let hosts = Hosts::new(self.port, &self.allow_host)?;
        let fix = "build it with scripts/build (or pass --dir web/dist)";
        let source = match &self.dir {
            Some(d) if d.is_dir() => Source::Dir(d.clone()),
            Some(_) => return Err(format!("no dashboard in that directory: {fix}")),
            None if Source::Embedded.get("index.html").is_ok() => Source::Embedded,
            None => return Err(format!("no dashboard was built into this binary: {fix}")),
        };
        Ok((hosts, source))
    }

    /// How long a connection may keep the server waiting (`--header-timeout`, `--write-timeout`),
    /// and how many are served at once (`--max-connections`).
    fn timeouts(&self) -> crate::listen::Timeouts {
        crate::listen::Timeouts {
            header_read: std::time::Duration::from_secs(self.header_timeout),
            write_stall: std::time::Duration::from_secs(self.write_timeout),
            connections: self.max_connections as usize,
            per_client: self
                .max_connections_per_client
                .map_or((self.max_connections as usize / 4).max(1), |n| n as usize),
        }
    }

    /// Binds the listening socket.
    pub(crate) async fn bind(&self) -> Result<Bound, String> {
        crate::listen::bind(self.bind, self.port).await
    }

    /// Says where the dashboard is (`query`: what the printed address opens with), and serves
    /// `app` under the base path with the security headers until the process ends.
    pub(crate) async fn serve(&self, (listener, bound): Bound, hosts: Hosts, query: &str, app: axum::Router) {
        crate::stdout::print_line(format_args!(
            "spate-planner dashboard: http://{}{}/{query}",
            shown_address(bound),
            self.base_path.as_str()
        ));
        let app = crate::headers::secured(
            self.base_path.wrap(app),
            hosts.on_port(bound.port()).bound_to(bound.ip()),
        );
        crate::listen::serve(listener, app, self.timeouts()).await;
    }
}

/// The address to print for a server bound on `bound`: the bound address itself, which `Host`
/// checks accept, unless it is unspecified (`0.0.0.0`, `::`), which no client names and the
/// check refuses: then `127.0.0.1` (for `0.0.0.0`) or `localhost` (for `::`), with the port.
fn shown_address(bound: std::net::SocketAddr) -> String {
    match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => format!("127.0.0.1:{}", bound.port()),
        IpAddr::V6(ip) if ip.is_unspecified() => format!("localhost:{}", bound.port()),
        _ => bound.to_string(),
    }
}

/// A bound listening socket and its address.
pub(crate) type Bound = (tokio::net::TcpListener, std::net::SocketAddr);

/// The runtime the server runs on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start: {e}"))
}

/// The file served as `/snapshot.json`, read once (`serve`'s snapshot, `replay`'s recording):
/// its file's name (the page's header shows it), its bytes and their tag.
pub(crate) struct Served {
    pub name: String,
    pub bytes: Bytes,
    etag: String,
}

impl Served {
    pub(crate) fn new(name: String, bytes: Bytes) -> Served {
        let etag = crate::assets::etag(&bytes);
        Served { name, bytes, etag }
    }
}

/// Every route, at the root: the base path is added around it (`BasePath::wrap`).
/// `max_attempts`: the workers' (`--max-attempts`), for /metrics. `api`: the automation API
/// under `/api/v1` (`serve`'s; `replay` has none).
pub(crate) fn router(
    source: Source,
    snapshot: Option<Served>,
    live: Option<Arc<Live>>,
    max_attempts: Option<u32>,
    api: Option<Arc<crate::api::Api>>,
) -> axum::Router {
    use axum::routing::get;
    let shared = Arc::new((source, snapshot, live.is_some()));
    let health = live.clone();
    let mut app = axum::Router::new().route("/healthz", get(move || crate::health::healthz(health.clone())));
    if let Some(api) = api {
        app = app.merge(crate::api::routes(api));
    }
    if let Some(live) = live {
        let metrics = Arc::new(crate::metrics::Metrics::new(live.clone(), max_attempts));
        let (l1, l2, l3) = (live.clone(), live.clone(), live);
        app = app
            .route("/metrics", get(move || crate::metrics::scrape(metrics.clone())))
            .route(
                "/api/jobs",
                get(move || crate::live::discover::jobs_route(l1.clone())),
            )
            .route(
                "/api/live",
                get(move |uri, headers| crate::live::http::live(l2.clone(), uri, headers)),
            )
            .route(
                "/api/snapshot",
                get(move |uri| crate::live::http::snapshot(l3.clone(), uri)),
            );
    }
    app.fallback(
        move |method: axum::http::Method, uri: axum::http::Uri, headers: axum::http::HeaderMap| {
            let shared = Arc::clone(&shared);
            async move { respond((&method, &uri, &headers), &shared.0, shared.1.as_ref(), shared.2) }
        },
    )
}

/// `replay`: the dashboard with a file served in the snapshot's place (`name`, `bytes`: a
/// recording, which the page tells from a snapshot by its first line). No live side.
pub(crate) fn run_page(listen: &Listen, name: String, bytes: Bytes) -> ExitCode {
    let started = listen
        .checked()
        .and_then(|(hosts, source)| Ok((hosts, source, runtime()?)));
    let (hosts, source, rt) = match started {
        Ok(x) => x,
        Err(e) => {
            crate::term::fail("replay", &e);
            return ExitCode::FAILURE;
        }
    };
    let served = Served::new(name, bytes);
    let run = async {
        let bound = listen.bind().await?;
        listen
            .serve(bound, hosts, "", router(source, Some(served), None, None, None))
            .await;
        Ok::<(), String>(())
    };
    match rt.block_on(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("replay", &e);
            ExitCode::FAILURE
        }
    }
}

/// The page with the served snapshot named on its element, so that `/` opens on it, and its
/// file's name for the header (`snapshot-name`, escaped: an attribute value, never markup).
fn name_snapshot(page: &[u8], name: &str) -> Vec<u8> {
    let name = spate_planner_core::chart::escape(name);
    name_attribute(
        page,
        &format!("snapshot=\"snapshot.json\" snapshot-name=\"{name}\""),
    )
}

/// The page with an attribute added to its element.
fn name_attribute(page: &[u8], attribute: &str) -> Vec<u8> {
    String::from_utf8_lossy(page)
        .replacen(
            "<spate-planner id=\"planner\"",
            &format!("<spate-planner id=\"planner\" {attribute}"),
            1,
        )
        .into_bytes()
}

/// The page as served: the snapshot and, in live mode, the event stream named on its element
/// (`live="api/live"`: the page follows the job of its `?job=`, or lists the jobs).
fn page_named(page: &[u8], snapshot: Option<&str>, live: bool) -> Vec<u8> {
    let page = match snapshot {
        Some(name) => name_snapshot(page, name),
        None => page.to_vec(),
    };
    if live {
        name_attribute(&page, "live=\"api/live\"")
    } else {
        page
    }
}

fn respond(
    (method, uri, request): (&axum::http::Method, &axum::http::Uri, &axum::http::HeaderMap),
    source: &Source,
    snapshot: Option<&Served>,
    live: bool,
) -> axum::response::Response {
    use axum::http::{Method, StatusCode};
    use axum::response::IntoResponse;
    let rel = asset_path(uri.path());
    let body = match (&rel, method) {
        // The file as read at start, shared by every request (no copy).
        (Some(r), &Method::GET | &Method::HEAD) if r == "snapshot.json" => snapshot
            .map(|s| Sent {
                bytes: s.bytes.clone(),
                gzip: None,
                etag: s.etag.clone(),
                immutable: false,
            })
            .ok_or(Miss::NotFound),
        (Some(r), &Method::GET | &Method::HEAD) if r == "index.html" && (snapshot.is_some() || live) => {
            source.get(r).map(|page| {
                let named = page_named(&page.bytes, snapshot.map(|s| s.name.as_str()), live);
                Sent::plain(Bytes::from(named))
            })
        }
        (Some(r), &Method::GET | &Method::HEAD) => source.get(r),
        _ => Err(Miss::NotFound),
    };
    match body {
        Ok(sent) => reply(method, request, sent, content_type(rel.as_deref().unwrap_or(""))),
        Err(Miss::NotFound) => (StatusCode::NOT_FOUND, "not found").into_response(),
        Err(Miss::Io(e)) => {
            eprintln!(
                "spate-planner serve: cannot read {}: {e}",
                rel.as_deref().unwrap_or("")
            );
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot read this file on the server",
            )
                .into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unspecified_address_is_printed_as_a_name_the_host_check_accepts() {
        let at = |a: &str| shown_address(a.parse().unwrap());
        assert_eq!(at("0.0.0.0:8080"), "127.0.0.1:8080");
        assert_eq!(at("[::]:8080"), "localhost:8080");
        assert_eq!(at("10.0.0.5:81"), "10.0.0.5:81");
        assert_eq!(at("[fd00::5]:81"), "[fd00::5]:81");
    }

    #[test]
    fn paths_cannot_leave_the_root() {
        assert_eq!(asset_path("/pkg/a.js?x=1").as_deref(), Some("pkg/a.js"));
        assert_eq!(asset_path("/").as_deref(), Some("index.html"));
        assert_eq!(asset_path("/../etc/passwd"), None);
        assert_eq!(asset_path("/pkg/../../x"), None);
        assert_eq!(asset_path("/a\\..\\b"), None);
    }

    /// `serve`'s connection options alone.
    #[derive(clap::Parser)]
    struct Only {
        #[command(flatten)]
        listen: Listen,
    }

    #[test]
    fn a_connection_has_10_s_for_its_headers_and_30_s_for_a_blocked_write_unless_told() {
        use clap::Parser;
        use std::time::Duration;
        let given =
            |args: &[&str]| Only::try_parse_from([&["serve"], args].concat()).map(|o| o.listen.timeouts());
        let secs = |h, w, c: usize| crate::listen::Timeouts {
            header_read: Duration::from_secs(h),
            write_stall: Duration::from_secs(w),
            connections: c,
            per_client: (c / 4).max(1),
        };
        assert_eq!(given(&[]).unwrap(), secs(10, 30, 512));
        assert_eq!(
            given(&[
                "--header-timeout",
                "2",
                "--write-timeout",
                "5",
                "--max-connections",
                "8"
            ])
            .unwrap(),
            secs(2, 5, 8)
        );
        for bad in ["0", "65537", "-1", "many"] {
            let e = given(&[&format!("--max-connections={bad}")])
                .unwrap_err()
                .to_string();
            assert!(e.contains("--max-connections"), "{bad}: {e}");
        }
        for bad in ["0", "3601", "-1", "1.5", "ten"] {
            let e = given(&[&format!("--write-timeout={bad}")])
                .unwrap_err()
                .to_string();
            assert!(e.contains("--write-timeout"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_page_names_the_served_snapshot() {
        let page = b"<body><spate-planner id=\"planner\" permalink></spate-planner>";
        let named = String::from_utf8(name_snapshot(page, "job.json")).unwrap();
        assert!(named.contains(
            "<spate-planner id=\"planner\" snapshot=\"snapshot.json\" snapshot-name=\"job.json\" permalink>"
        ));
        // a file name is an attribute value, never markup
        let odd = String::from_utf8(name_snapshot(page, "a\"b<c>&d.json")).unwrap();
        assert!(odd.contains("snapshot-name=\"a&quot;b&lt;c&gt;&amp;d.json\" permalink>"));
        let live = String::from_utf8(page_named(page, None, true)).unwrap();
        assert!(live.contains("<spate-planner id=\"planner\" live=\"api/live\" permalink>"));
    }
}
