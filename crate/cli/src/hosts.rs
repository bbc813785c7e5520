//! The names `serve` answers to, against DNS rebinding: a page on another origin whose name
//! resolves to 127.0.0.1 would otherwise read every job through the victim's browser. A request
//! is answered only when its `Host` (and its request target's authority, if it has one) is
//! `127.0.0.1:PORT`, `localhost:PORT`, the address bound with `--bind` (`ADDR:PORT`) or a name
//! given with `--allow-host`, and its `Origin`, when present, is one of those origins. Anything
//! else is refused with 403 and a plain-text reason.

use axum::http::{header, uri::Authority, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

/// A host and its port, as a `Host` header or an origin names them: the host lowercased, an
/// IPv6 address in brackets.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Name {
    host: String,
    port: Option<u16>,
}

impl Name {
    /// `host[:port]`, refusing anything else (user information, a path, an empty host).
    fn parse(text: &str) -> Option<Name> {
        if text.contains(['@', '/', '?', '#']) {
            return None;
        }
        let authority: Authority = text.parse().ok()?;
        let host = authority.host().to_ascii_lowercase();
        let port = match authority.port() {
            Some(p) => Some(p.as_u16()),
            None if text.ends_with(':') => return None,
            None => None,
        };
        (!host.is_empty()).then_some(Name { host, port })
    }
}

/// Who may be answered: the bound port (with `127.0.0.1`, `localhost` and the bound address)
/// and the names given.
#[derive(Clone, Debug)]
pub(crate) struct Hosts {
    port: u16,
    /// The address bound, as a `Host` header names it (`10.0.0.5`, `[fd00::5]`), unless it is
    /// unspecified (`0.0.0.0`, `::`): no client names that.
    bound: Option<String>,
    allowed: Vec<Name>,
}

impl Hosts {
    /// The policy for a server bound on 127.0.0.1:`port`, with the `--allow-host` names.
    pub(crate) fn new(port: u16, allow: &[String]) -> Result<Hosts, String> {
        let allowed = allow.iter().map(|a| allowed_name(a)).collect::<Result<_, _>>()?;
        Ok(Hosts {
            port,
            bound: None,
            allowed,
        })
    }

    /// The same names, and `ip` (the address bound) with the server's port.
    pub(crate) fn bound_to(self, ip: IpAddr) -> Hosts {
        let bound = match ip {
            _ if ip.is_unspecified() => None,
            IpAddr::V4(v4) => Some(v4.to_string()),
            IpAddr::V6(v6) => Some(format!("[{v6}]")),
        };
        Hosts { bound, ..self }
    }

    /// The same names, for a server bound on `port` (known once it listens: `--port 0`).
    pub(crate) fn on_port(self, port: u16) -> Hosts {
        Hosts { port, ..self }
    }

    /// Whether `name`, whose port is `default_port` when it gives none, is one of ours.
    fn accepts(&self, name: &Name, default_port: u16, scheme: &str) -> bool {
        let port = name.port.unwrap_or(default_port);
        let own = matches!(name.host.as_str(), "127.0.0.1" | "localhost")
            || self.bound.as_deref() == Some(name.host.as_str());
        (own && port == self.port && scheme == "http")
            || self
                .allowed
                .iter()
                .any(|a| a.host == name.host && a.port.is_none_or(|p| p == port))
    }

    fn host(&self, value: &str) -> bool {
        Name::parse(value).is_some_and(|n| self.accepts(&n, 80, "http"))
    }

    /// An `Origin` header: `http://host[:port]` or `https://...`, nothing after the authority.
    fn origin(&self, value: &str) -> bool {
        let Some((scheme, rest)) = value.split_once("://") else {
            return false;
        };
        let default_port = match scheme {
            "http" => 80,
            "https" => 443,
            _ => return false,
        };
        Name::parse(rest).is_some_and(|n| self.accepts(&n, default_port, scheme))
    }

    /// Why a request must be refused, or `None`.
    pub(crate) fn refusal(&self, headers: &HeaderMap, uri: &Uri) -> Option<String> {
        let hosts: Vec<_> = headers.get_all(header::HOST).iter().collect();
        let host = match hosts.as_slice() {
            [] => return Some("refused: the request has no Host header".into()),
            [one] => one.to_str().unwrap_or(""),
            _ => return Some("refused: the request has more than one Host header".into()),
        };
        if !self.host(host) || uri.authority().is_some_and(|a| !self.host(a.as_str())) {
            return Some(format!(
                "refused: Host {host:?} is not this server ({}); name others with --allow-host",
                self.own()
            ));
        }
        for origin in headers.get_all(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !self.origin(origin) {
                return Some(format!(
                    "refused: Origin {origin:?} is not this server's; name others with --allow-host"
                ));
            }
        }
        None
    }

    fn own(&self) -> String {
        match &self.bound {
            Some(b) if b != "127.0.0.1" => format!("127.0.0.1:{0}, localhost:{0} or {b}:{0}", self.port),
            _ => format!("127.0.0.1:{0} or localhost:{0}", self.port),
        }
    }
}

/// An `--allow-host` value: a host name or address, with or without `:PORT` (an IPv6 address
/// bare or in brackets).
fn allowed_name(text: &str) -> Result<Name, String> {
    let bracketed = match text.parse::<Ipv6Addr>() {
        Ok(_) => format!("[{text}]"),
        Err(_) => text.to_string(),
    };
    Name::parse(&bracketed)
        .ok_or_else(|| format!("--allow-host {text:?}: give a host name or address, optionally with :PORT"))
}

/// `router` answering only requests that `hosts` accepts.
pub(crate) fn guarded(router: axum::Router, hosts: Arc<Hosts>) -> axum::Router {
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let why = hosts.refusal(req.headers(), req.uri());
            async move {
                match why {
                    None => next.run(req).await,
                    Some(why) => refuse(why),
                }
            }
        },
    ))
}

fn refuse(why: String) -> Response {
    (
        StatusCode::FORBIDDEN,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        why,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    fn refused(hosts: &Hosts, pairs: &[(&'static str, &'static str)]) -> bool {
        hosts.refusal(&headers(pairs), &Uri::from_static("/")).is_some()
    }

    #[test]
    fn only_our_own_names_with_our_port() {
        let h = Hosts::new(8080, &[]).unwrap();
        assert!(!refused(&h, &[("host", "127.0.0.1:8080")]));
        assert!(!refused(&h, &[("host", "LocalHost:8080")]));
        for bad in [
            "127.0.0.1",
            "127.0.0.1:8081",
            "localhost",
            "evil.example:8080",
            "127.0.0.1.evil.example:8080",
            "[::1]:8080",
            "user@127.0.0.1:8080",
            "127.0.0.1:8080/x",
            "127.0.0.1:",
            "",
        ] {
            assert!(refused(&h, &[("host", bad)]), "{bad}");
        }
        assert!(refused(&h, &[]), "no Host");
        assert!(refused(
            &h,
            &[("host", "127.0.0.1:8080"), ("host", "127.0.0.1:8080")]
        ));
    }

    #[test]
    fn origins_are_checked_when_present() {
        let h = Hosts::new(8080, &[]).unwrap();
        let ok = ("host", "127.0.0.1:8080");
        assert!(!refused(&h, &[ok, ("origin", "http://127.0.0.1:8080")]));
        assert!(!refused(&h, &[ok, ("origin", "http://localhost:8080")]));
        for bad in [
            "http://evil.example:8080",
            "https://127.0.0.1:8080",
            "http://127.0.0.1",
            "null",
            "http://127.0.0.1:8080/path",
            "ftp://127.0.0.1:8080",
        ] {
            assert!(refused(&h, &[ok, ("origin", bad)]), "{bad}");
        }
    }

    #[test]
    fn allowed_names_any_port_unless_given() {
        let allow = ["Planner.Example".to_string(), "::1".into(), "box:9000".into()];
        let h = Hosts::new(8080, &allow).unwrap();
        for good in ["planner.example", "planner.example:443", "[::1]:8080", "box:9000"] {
            assert!(!refused(&h, &[("host", good)]), "{good}");
        }
        assert!(refused(&h, &[("host", "box:9001")]));
        assert!(refused(&h, &[("host", "box")]), "port 80 is not 9000");
        let ok = ("host", "planner.example");
        assert!(!refused(&h, &[ok, ("origin", "https://planner.example")]));
        assert!(!refused(&h, &[ok, ("origin", "http://[::1]:8080")]));
        assert!(refused(&h, &[ok, ("origin", "https://other.example")]));
        assert!(Hosts::new(1, &["a/b".into()]).is_err());
        assert!(Hosts::new(1, &["".into()]).is_err());
    }

    #[test]
    fn the_bound_address_joins_our_names() {
        let v4 = Hosts::new(8080, &[])
            .unwrap()
            .bound_to("10.0.0.5".parse().unwrap());
        assert!(!refused(&v4, &[("host", "10.0.0.5:8080")]));
        assert!(!refused(&v4, &[("host", "127.0.0.1:8080")]));
        let ok = ("host", "10.0.0.5:8080");
        assert!(!refused(&v4, &[ok, ("origin", "http://10.0.0.5:8080")]));
        for bad in ["10.0.0.5", "10.0.0.5:8081", "10.0.0.6:8080"] {
            assert!(refused(&v4, &[("host", bad)]), "{bad}");
        }
        assert!(refused(&v4, &[ok, ("origin", "https://10.0.0.5:8080")]));
        let why = v4
            .refusal(&headers(&[("host", "x:1")]), &Uri::from_static("/"))
            .unwrap();
        assert!(why.contains("10.0.0.5:8080"), "{why}");
        let v6 = Hosts::new(8080, &[])
            .unwrap()
            .bound_to("FD00:0::5".parse().unwrap());
        assert!(!refused(&v6, &[("host", "[fd00::5]:8080")]));
        let any = Hosts::new(8080, &[])
            .unwrap()
            .bound_to("0.0.0.0".parse().unwrap());
        assert!(
            refused(&any, &[("host", "0.0.0.0:8080")]),
            "no client names 0.0.0.0"
        );
        assert!(!refused(&any, &[("host", "localhost:8080")]));
    }

    #[test]
    fn an_absolute_target_must_name_us_too() {
        let h = Hosts::new(8080, &[]).unwrap();
        let uri = Uri::from_static("http://evil.example:8080/api/jobs");
        let ok = headers(&[("host", "127.0.0.1:8080")]);
        assert!(h.refusal(&ok, &uri).is_some());
        let ours = Uri::from_static("http://127.0.0.1:8080/api/jobs");
        assert!(h.refusal(&ok, &ours).is_none());
    }
}
