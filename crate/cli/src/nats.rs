//! Connecting to NATS, for every command that does (`snapshot`, `restore`, `serve`, `watch`).
//!
//! `--server` is a comma-separated list of addresses, each with or without a scheme (`nats://`,
//! `tls://`, `ws://`, `wss://`; none means `nats://`), with an IPv4, IPv6 (`[::1]:4222`) or DNS
//! host, an optional port and optional credentials before an `@`: `user:password@`, or a single
//! name, which is a token (as the NATS tools read it) unless `--password` is given, when it is
//! the user name. Credentials are `%`-decoded, taken out of the addresses, and handed to the
//! client as authentication; the addresses alone are what is ever printed or written.
//!
//! Precedence, highest first: `--creds FILE`, `--token T`, `--user U --password P`, then
//! credentials in `--server` (`--password P` alone pairs with a user name given there), then the
//! environment as the NATS tools read it (`NATS_CREDS`, `NATS_TOKEN`, `NATS_USER` with
//! `NATS_PASSWORD`; `--server` itself defaults to `NATS_URL`), which keeps secrets off the
//! command line that `ps` shows. Credentials in `--server` that an option overrides are
//! ignored, with a note on standard error. Different credentials in two addresses are an error.

use async_nats::{ConnectError, ConnectErrorKind, ConnectOptions, ServerAddr};
use percent_encoding::percent_decode_str;
use std::path::PathBuf;
use std::time::Duration;

/// The authentication options every connecting command takes. Any other process can read a
/// command line (`ps`): give secrets through the environment (NATS_PASSWORD, NATS_TOKEN) or a
/// credentials file (--creds, NATS_CREDS) rather than as options.
#[derive(clap::Args, Clone, Default)]
pub(crate) struct AuthArgs {
    /// A NATS credentials file (.creds). Without any credential option or credentials in
    /// --server: the file NATS_CREDS names.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["user", "token"])]
    pub creds: Option<PathBuf>,
    /// User name (with --password). Without any credential option or credentials in --server:
    /// NATS_USER with NATS_PASSWORD.
    #[arg(long, requires = "password", conflicts_with = "token")]
    pub user: Option<String>,
    /// Password (with --user, or with a user name in --server; or NATS_PASSWORD, which `ps`
    /// does not show).
    #[arg(long)]
    pub password: Option<String>,
    /// Authentication token (or NATS_TOKEN, which `ps` does not show).
    #[arg(long)]
    pub token: Option<String>,
    /// A CA certificate (PEM) to verify the server's TLS certificate; implies TLS.
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
}

/// The environment variables read, as the NATS tools name them.
pub(crate) const ENV_CREDS: &str = "NATS_CREDS";
pub(crate) const ENV_TOKEN: &str = "NATS_TOKEN";
pub(crate) const ENV_USER: &str = "NATS_USER";
pub(crate) const ENV_PASSWORD: &str = "NATS_PASSWORD";

impl AuthArgs {
    fn gives_credentials(&self) -> bool {
        self.creds.is_some() || self.token.is_some() || self.user.is_some() || self.password.is_some()
    }

    /// These options, or when they give no credentials (and `--server` has none), the
    /// credentials of the environment `env` reads: `NATS_CREDS`, else `NATS_TOKEN`, else
    /// `NATS_USER` with `NATS_PASSWORD`. Empty variables count as unset.
    pub(crate) fn or_environment(
        &self,
        url_has_credentials: bool,
        env: impl Fn(&str) -> Option<String>,
    ) -> AuthArgs {
        if self.gives_credentials() || url_has_credentials {
            return self.clone();
        }
        let var = |name: &str| env(name).filter(|v| !v.is_empty());
        let mut out = AuthArgs {
            tls_ca: self.tls_ca.clone(),
            ..AuthArgs::default()
        };
        if let Some(c) = var(ENV_CREDS) {
            out.creds = Some(PathBuf::from(c));
        } else if let Some(t) = var(ENV_TOKEN) {
            out.token = Some(t);
        } else if let Some(u) = var(ENV_USER) {
            out.user = Some(u);
            out.password = Some(var(ENV_PASSWORD).unwrap_or_default());
        }
        out
    }
}

/// The process's environment, for [`AuthArgs::or_environment`].
pub(crate) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Credentials found in one address: a user part and, after a colon, a password.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct UrlCredentials {
    pub user: String,
    pub password: Option<String>,
}

/// One server address without its credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Address {
    pub scheme: &'static str,
    /// The host as written in a URL (IPv6 in brackets).
    pub host: String,
    pub port: Option<u16>,
    /// A path, for `ws://` and `wss://` only.
    pub path: String,
}

impl Address {
    /// The address as it may be shown and saved: never with credentials.
    pub(crate) fn public(&self) -> String {
        let port = self.port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{}://{}{port}{}", self.scheme, self.host, self.path)
    }
}

/// `--server`, parsed.
pub(crate) struct Servers {
    pub addresses: Vec<Address>,
    pub credentials: Option<UrlCredentials>,
}

impl Servers {
    /// The addresses as they may be shown and saved, comma-separated.
    pub(crate) fn public(&self) -> String {
        let all: Vec<String> = self.addresses.iter().map(Address::public).collect();
        all.join(",")
    }
}

/// Parses `--server`. Errors name the address by its position and never quote credentials.
pub(crate) fn parse_servers(list: &str) -> Result<Servers, String> {
    let mut addresses = Vec::new();
    let mut credentials: Option<(usize, UrlCredentials)> = None;
    for (i, item) in list.split(',').enumerate() {
        let n = i + 1;
        let (address, creds) = parse_address(item.trim(), n)?;
        addresses.push(address);
        match (&credentials, creds) {
            (Some((first, c)), Some(new)) if *c != new => {
                return Err(format!(
                    "--server: addresses {first} and {n} carry different credentials; give them once (or use --user/--password or --token)"
                ));
            }
            (None, Some(new)) => credentials = Some((n, new)),
            _ => {}
        }
    }
    Ok(Servers {
        addresses,
        credentials: credentials.map(|(_, c)| c),
    })
}

fn scheme_of(item: &str, n: usize) -> Result<(&'static str, &str), String> {
    let Some((scheme, rest)) = item.split_once("://") else {
        return Ok(("nats", item));
    };
    let known = ["nats", "tls", "ws", "wss"];
    match known.iter().find(|k| k.eq_ignore_ascii_case(scheme)) {
        Some(k) => Ok((k, rest)),
        None => Err(format!(
            "--server: address {n} has the scheme {scheme:?}; use nats://, tls://, ws:// or wss://"
        )),
    }
}

/// Splits `[userinfo@]hostport[/path]`: the userinfo ends at the last `@`, so a password may
/// hold `@`, `:` and `/`.
fn split_userinfo(rest: &str) -> (Option<&str>, &str) {
    match rest.rfind('@') {
        Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
        None => (None, rest),
    }
}

fn decode(part: &str, n: usize) -> Result<String, String> {
    percent_decode_str(part)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| format!("--server: the credentials in address {n} are not UTF-8 once %-decoded"))
}

fn credentials_of(userinfo: &str, n: usize) -> Result<UrlCredentials, String> {
    let (user, password) = match userinfo.split_once(':') {
        Some((u, p)) => (u, Some(decode(p, n)?)),
        None => (userinfo, None),
    };
    let user = decode(user, n)?;
    if user.is_empty() {
        return Err(format!(
            "--server: address {n} has credentials without a user name or token"
        ));
    }
    Ok(UrlCredentials { user, password })
}

fn host_and_port(hostport: &str, n: usize) -> Result<(String, Option<u16>), String> {
    let (host, port) = if let Some(inner) = hostport.strip_prefix('[') {
        let Some(end) = inner.find(']') else {
            return Err(format!("--server: address {n}: an IPv6 host needs its closing ]"));
        };
        let host = &inner[..end];
        if host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("--server: address {n}: [{host}] is not an IPv6 address"));
        }
        match &inner[end + 1..] {
            "" => (format!("[{host}]"), None),
            p => match p.strip_prefix(':') {
                Some(p) => (format!("[{host}]"), Some(p)),
                None => return Err(format!("--server: address {n}: expected :PORT after [{host}]")),
            },
        }
    } else {
        match hostport.split_once(':') {
            Some((h, p)) if p.contains(':') => {
                return Err(format!(
                    "--server: address {n}: write an IPv6 host in brackets, e.g. [{h}:{p}]:4222"
                ))
            }
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (hostport.to_string(), None),
        }
    };
    let valid_host = |h: &str| {
        !h.is_empty()
            && h.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '[' | ']' | ':'))
    };
    if !valid_host(&host) {
        return Err(format!("--server: address {n} has no valid host"));
    }
    let port = match port {
        None => None,
        Some(p) => Some(
            p.parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| format!("--server: address {n} has an invalid port {p:?}"))?,
        ),
    };
    Ok((host, port))
}

fn parse_address(item: &str, n: usize) -> Result<(Address, Option<UrlCredentials>), String> {
    if item.is_empty() {
        return Err(format!("--server: address {n} is empty"));
    }
    let (scheme, rest) = scheme_of(item, n)?;
    let (userinfo, hostpath) = split_userinfo(rest);
    let credentials = userinfo.map(|u| credentials_of(u, n)).transpose()?;
    let (hostport, path) = match hostpath.find('/') {
        Some(i) => (&hostpath[..i], &hostpath[i..]),
        None => (hostpath, ""),
    };
    let path = match (scheme, path) {
        (_, "" | "/") => String::new(),
        ("ws" | "wss", p) if !p.contains(['?', '#', ' ']) => p.to_string(),
        _ => {
            return Err(format!(
                "--server: address {n} has a path; only ws:// and wss:// addresses may"
            ))
        }
    };
    let (host, port) = host_and_port(hostport, n)?;
    let address = Address {
        scheme,
        host,
        port,
        path,
    };
    Ok((address, credentials))
}

/// How the client authenticates.
enum Auth {
    None,
    UserPassword(String, String),
    Token(String),
    CredsFile(PathBuf),
}

/// Where and how to connect: the addresses without credentials, and the authentication.
pub(crate) struct Target {
    servers: Servers,
    auth: Auth,
    tls_ca: Option<PathBuf>,
    /// Every secret given, to scrub from any message before it is shown.
    secrets: Vec<String>,
}

/// What is overridden, for the note on standard error.
fn overriding_option(auth: &AuthArgs) -> Option<&'static str> {
    if auth.creds.is_some() {
        Some("--creds")
    } else if auth.token.is_some() {
        Some("--token")
    } else if auth.user.is_some() {
        Some("--user/--password")
    } else {
        None
    }
}

fn choose_auth(url: Option<&UrlCredentials>, auth: &AuthArgs) -> Result<Auth, String> {
    if let Some(option) = overriding_option(auth) {
        if url.is_some() {
            eprintln!("note: the credentials in --server are ignored: {option} takes precedence");
        }
    }
    Ok(match (auth, url) {
        (AuthArgs { creds: Some(c), .. }, _) => Auth::CredsFile(c.clone()),
        (AuthArgs { token: Some(t), .. }, _) => Auth::Token(t.clone()),
        (
            AuthArgs {
                user: Some(u),
                password,
                ..
            },
            _,
        ) => Auth::UserPassword(u.clone(), password.clone().unwrap_or_default()),
        (
            AuthArgs {
                password: Some(p), ..
            },
            Some(c),
        ) => match &c.password {
            None => Auth::UserPassword(c.user.clone(), p.clone()),
            Some(_) => {
                return Err("--password is given and --server has a password too: give it once".into())
            }
        },
        (
            AuthArgs {
                password: Some(_), ..
            },
            None,
        ) => return Err("--password needs a user name: --user, or user@ in --server".into()),
        (
            _,
            Some(UrlCredentials {
                user,
                password: Some(p),
            }),
        ) => Auth::UserPassword(user.clone(), p.clone()),
        (_, Some(UrlCredentials { user, password: None })) => Auth::Token(user.clone()),
        (_, None) => Auth::None,
    })
}

impl Target {
    /// Parses `--server` and combines its credentials with the options.
    pub(crate) fn new(server: &str, auth: &AuthArgs) -> Result<Target, String> {
        Target::with_env(server, auth, process_env)
    }

    /// [`Target::new`] with the environment read through `env`.
    pub(crate) fn with_env(
        server: &str,
        auth: &AuthArgs,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Target, String> {
        let servers = parse_servers(server)?;
        let auth = &auth.or_environment(servers.credentials.is_some(), env);
        let chosen = choose_auth(servers.credentials.as_ref(), auth)?;
        let mut secrets: Vec<String> = [&auth.password, &auth.token]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        if let Some(c) = &servers.credentials {
            match &c.password {
                Some(p) => secrets.push(p.clone()),
                None => secrets.push(c.user.clone()), // a token
            }
        }
        secrets.retain(|s| s.len() >= 3);
        Ok(Target {
            servers,
            auth: chosen,
            tls_ca: auth.tls_ca.clone(),
            secrets,
        })
    }

    /// The addresses as they may be shown and saved.
    pub(crate) fn public(&self) -> String {
        self.servers.public()
    }

    /// `text` with every secret given replaced by `***` (a last guard: messages are built from
    /// public addresses in the first place).
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            out = out.replace(s.as_str(), "***");
        }
        out
    }

    async fn options(&self) -> Result<ConnectOptions, String> {
        let mut opts = match &self.auth {
            Auth::None => ConnectOptions::new(),
            Auth::UserPassword(u, p) => ConnectOptions::with_user_and_password(u.clone(), p.clone()),
            Auth::Token(t) => ConnectOptions::with_token(t.clone()),
            Auth::CredsFile(path) => ConnectOptions::with_credentials_file(path)
                .await
                .map_err(|e| format!("cannot read the credentials file {}: {e}", path.display()))?,
        };
        if let Some(ca) = &self.tls_ca {
            opts = opts.add_root_certificates(ca.clone()).require_tls(true);
        }
        if self.servers.addresses.iter().any(|a| a.scheme == "tls") {
            opts = opts.require_tls(true);
        }
        Ok(opts)
    }

    fn server_addrs(&self) -> Result<Vec<ServerAddr>, String> {
        let parse = |a: &Address| {
            a.public()
                .parse::<ServerAddr>()
                .map_err(|_| format!("--server: {} is not a valid address", a.public()))
        };
        self.servers.addresses.iter().map(parse).collect()
    }

    /// Connects. `setup` adds what the command needs (timeouts, name, event callback).
    pub(crate) async fn connect(
        &self,
        setup: impl FnOnce(ConnectOptions) -> ConnectOptions,
    ) -> Result<async_nats::Client, String> {
        let addrs = self.server_addrs()?;
        let opts = setup(self.options().await?);
        opts.connect(addrs)
            .await
            .map_err(|e| self.redact(&self.connect_error(&e)))
    }

    /// Why connecting failed, by the error's kind, with what to check.
    pub(crate) fn connect_error(&self, e: &ConnectError) -> String {
        let server = self.public();
        let why = match e.kind() {
            ConnectErrorKind::AuthorizationViolation | ConnectErrorKind::Authentication => {
                "the server refused the credentials (authorization violation): check the user and password, token or --creds file".to_string()
            }
            ConnectErrorKind::TimedOut => "no answer in time: is the server running and reachable?".into(),
            ConnectErrorKind::Dns => "the host name does not resolve: check --server".into(),
            ConnectErrorKind::Tls => format!("TLS failed ({e}): check --tls-ca and the server's certificate"),
            ConnectErrorKind::ServerParse => "the address is invalid: check --server".into(),
            ConnectErrorKind::Io | ConnectErrorKind::MaxReconnects => format!(
                "{e}. Check --server (and credentials or TLS options), and that the server is running and reachable"
            ),
        };
        format!("cannot connect to the NATS server at {server}: {why}")
    }
}

/// Common connection settings: a timeout for connecting and for each request, and a name.
/// What a command that reads a job needs first: a valid job name, the server target (with the
/// credentials taken out of the addresses) and a runtime. The error is the line to print.
pub(crate) fn prepare(
    job: &str,
    server: &str,
    auth: &AuthArgs,
) -> Result<(Target, tokio::runtime::Runtime), String> {
    if !spate_planner_core::valid_job_name(job) {
        return Err(format!(
            "invalid job name {job:?}: Spate job names are 1 to 64 of A-Z a-z 0-9 _ -"
        ));
    }
    let target = Target::new(server, auth)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start: {e}"))?;
    Ok((target, rt))
}

pub(crate) fn basics(timeout: Duration, name: &str) -> impl FnOnce(ConnectOptions) -> ConnectOptions {
    let name = name.to_string();
    move |o| {
        o.connection_timeout(timeout)
            .request_timeout(Some(timeout))
            .name(name)
    }
}

/// Checks that the server answers JetStream requests, with what to do when it does not.
pub(crate) async fn check_jetstream(js: &async_nats::jetstream::Context, server: &str) -> Result<(), String> {
    js.query_account().await.map(|_| ()).map_err(|e| {
        format!(
            "the server at {server} does not answer JetStream requests ({e}): Spate needs JetStream (start nats-server with -js, or check the account's JetStream access)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> (String, Option<(String, Option<String>)>) {
        let parsed = parse_servers(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        let public = parsed.public();
        (public, parsed.credentials.map(|c| (c.user, c.password)))
    }

    fn up(u: &str, p: &str) -> Option<(String, Option<String>)> {
        Some((u.into(), Some(p.into())))
    }

    #[test]
    fn every_address_form() {
        assert_eq!(one("127.0.0.1:4222"), ("nats://127.0.0.1:4222".into(), None));
        assert_eq!(one("nats://h:1"), ("nats://h:1".into(), None));
        assert_eq!(one("NATS://h"), ("nats://h".into(), None));
        assert_eq!(one("tls://h:4443"), ("tls://h:4443".into(), None));
        assert_eq!(one("ws://h:8080/nats"), ("ws://h:8080/nats".into(), None));
        assert_eq!(one("wss://h/"), ("wss://h".into(), None));
        assert_eq!(one("[::1]:4222"), ("nats://[::1]:4222".into(), None));
        assert_eq!(one("nats://[::1]"), ("nats://[::1]".into(), None));
        assert_eq!(
            one("nats://planner:s3cret@h:1"),
            ("nats://h:1".into(), up("planner", "s3cret"))
        );
        assert_eq!(
            one("planner:s3cret@h:1"),
            ("nats://h:1".into(), up("planner", "s3cret"))
        );
        assert_eq!(
            one("planner:s3cret@[::1]:4222"),
            ("nats://[::1]:4222".into(), up("planner", "s3cret"))
        );
        assert_eq!(
            one("tls://t0ken@h"),
            ("tls://h".into(), Some(("t0ken".into(), None)))
        );
        assert_eq!(one("planner:@h"), ("nats://h".into(), up("planner", "")));
        assert_eq!(
            one(" nats://u:p1@a:1 , b:2,u:p1@c"),
            ("nats://a:1,nats://b:2,nats://c".into(), up("u", "p1"))
        );
    }

    #[test]
    fn passwords_with_at_colon_and_escapes() {
        assert_eq!(
            one("nats://planner:p@ss:w@rd@h:1"),
            ("nats://h:1".into(), up("planner", "p@ss:w@rd"))
        );
        assert_eq!(
            one("nats://pl%61nner:p%40ss%3Aw%25rd%2F@h:1"),
            ("nats://h:1".into(), up("planner", "p@ss:w%rd/"))
        );
        assert_eq!(one("a:b/c@h"), ("nats://h".into(), up("a", "b/c")));
    }

    #[test]
    fn errors_never_quote_secrets() {
        for (bad, want) in [
            ("", "address 1 is empty"),
            ("nats://a,,b", "address 2 is empty"),
            ("http://u:zekret@h", "scheme"),
            ("nats://u:zekret@h:99999", "invalid port"),
            ("nats://u:zekret@h:0", "invalid port"),
            ("u:zekret@::1:4222", "brackets"),
            ("nats://u:zekret@[::1", "closing ]"),
            ("nats://u:zekret@[nope]:1", "not an IPv6"),
            ("nats://u:zekret@", "no valid host"),
            ("nats://u:zekret@h/path", "path"),
            ("nats://:zekret@h", "without a user name"),
            ("nats://u:zekret%ff@h", "UTF-8"),
            ("u:zekret@a,u:zekret2@b", "different credentials"),
            ("zekret@a,u:zekret@b", "different credentials"),
        ] {
            let e = parse_servers(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad:?} parsed"));
            assert!(e.contains(want), "{bad:?}: {e}");
            assert!(!e.contains("zekret"), "{bad:?} printed a secret: {e}");
        }
    }

    fn auth(user: Option<&str>, password: Option<&str>, token: Option<&str>) -> AuthArgs {
        AuthArgs {
            user: user.map(Into::into),
            password: password.map(Into::into),
            token: token.map(Into::into),
            ..Default::default()
        }
    }

    fn chosen(server: &str, a: &AuthArgs) -> Result<String, String> {
        let t = Target::new(server, a)?;
        Ok(match t.auth {
            Auth::None => "none".into(),
            Auth::UserPassword(u, p) => format!("user {u} {p}"),
            Auth::Token(t) => format!("token {t}"),
            Auth::CredsFile(_) => "creds".into(),
        })
    }

    #[test]
    fn precedence() {
        let none = AuthArgs::default();
        assert_eq!(chosen("h", &none).unwrap(), "none");
        assert_eq!(chosen("u:p@h", &none).unwrap(), "user u p");
        assert_eq!(chosen("tok@h", &none).unwrap(), "token tok");
        assert_eq!(chosen("u@h", &auth(None, Some("pw"), None)).unwrap(), "user u pw");
        assert_eq!(chosen("u:p@h", &auth(None, None, Some("t"))).unwrap(), "token t");
        assert_eq!(
            chosen("u:p@h", &auth(Some("v"), Some("q"), None)).unwrap(),
            "user v q"
        );
        assert!(chosen("h", &auth(None, Some("pw"), None)).is_err());
        assert!(chosen("u:p@h", &auth(None, Some("pw"), None)).is_err());
    }

    #[test]
    fn the_environment_gives_credentials_when_nothing_else_does() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        let with = |server: &str, a: &AuthArgs, vars: &'static [(&'static str, &'static str)]| {
            let t = Target::with_env(server, a, env(vars)).unwrap();
            let secret_redacted = t.redact("pw-env tok-env");
            let kind = match t.auth {
                Auth::None => "none".to_string(),
                Auth::UserPassword(u, p) => format!("user {u} {p}"),
                Auth::Token(t) => format!("token {t}"),
                Auth::CredsFile(p) => format!("creds {}", p.display()),
            };
            (kind, secret_redacted)
        };
        let none = AuthArgs::default();
        let all: &[(&str, &str)] = &[
            ("NATS_CREDS", "/x.creds"),
            ("NATS_TOKEN", "tok-env"),
            ("NATS_USER", "u-env"),
            ("NATS_PASSWORD", "pw-env"),
        ];
        assert_eq!(with("h", &none, all).0, "creds /x.creds");
        assert_eq!(with("h", &none, &all[1..]).0, "token tok-env");
        let (kind, redacted) = with("h", &none, &all[2..]);
        assert_eq!(kind, "user u-env pw-env");
        assert_eq!(
            redacted, "*** tok-env",
            "the password from the environment is a secret too"
        );
        assert_eq!(
            with("h", &none, &[("NATS_TOKEN", "")]).0,
            "none",
            "empty is unset"
        );
        // An option or credentials in --server win over the whole environment.
        assert_eq!(with("h", &auth(None, None, Some("opt")), all).0, "token opt");
        assert_eq!(with("u:p@h", &none, all).0, "user u p");
        assert_eq!(with("h", &none, &[]).0, "none");
    }

    #[test]
    fn redaction() {
        let t = Target::new("nats://planner:s3cret@h:1", &AuthArgs::default()).unwrap();
        assert_eq!(t.public(), "nats://h:1");
        assert_eq!(t.redact("x s3cret y"), "x *** y");
    }
}
