//! Credentials (issue 12): against real servers with `--user planner --pass s3cret` and with
//! `--auth TOKEN`, exports that pass and exports that fail, with the secret in the URL (every
//! form) and in the options. No secret may ever appear on standard output, standard error or in
//! any file written.

use crate::fixture;
use crate::nats_server;

use async_nats::jetstream;
use nats_server::NatsServer;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("spate-cred-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file under `dir`, read.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out
}

fn assert_clean(what: &str, o: &Output, dir: &Path, secrets: &[&str]) {
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    for s in secrets {
        assert!(!out.contains(s), "{what}: secret {s:?} on stdout: {out}");
        assert!(!err.contains(s), "{what}: secret {s:?} on stderr: {err}");
        for (p, bytes) in files(dir) {
            assert!(
                !String::from_utf8_lossy(&bytes).contains(s),
                "{what}: secret {s:?} in {}",
                p.display()
            );
        }
    }
}

/// Runs `snapshot` with `args` into `out`; checks success or the failure's words, and that no
/// secret leaked anywhere.
fn export(what: &str, args: &[&str], dir: &Path, ok: Result<(), &str>, secrets: &[&str]) -> Output {
    let o = Command::new(BIN)
        .arg("snapshot")
        .args(args)
        .args(["--timeout", "3"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    match ok {
        Ok(()) => assert!(o.status.success(), "{what}: {text}"),
        Err(words) => {
            assert!(!o.status.success(), "{what}: succeeded: {text}");
            assert!(text.contains(words), "{what}: expected {words:?} in: {text}");
        }
    }
    assert_clean(what, &o, dir, secrets);
    o
}

/// The address a snapshot file records, after checking that it holds the job the fixture wrote.
fn saved_server(path: &Path, job: &fixture::Job) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let fleet = spate_planner_core::Fleet::load_text(&text).unwrap();
    assert_eq!(*fleet.splits, job.splits, "the export holds the job written");
    fleet.source.server.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_and_password_in_every_form() {
    let server = NatsServer::start_with(true, &["--user", "planner", "--pass", "s3cret"]);
    let opts = async_nats::ConnectOptions::with_user_and_password("planner".into(), "s3cret".into());
    let client = opts.connect(server.url()).await.unwrap();
    let job = fixture::write_job(&jetstream::new(client), "authjob").await;
    let dir = Dir::new("userpass");
    let p = server.port;
    let secrets = ["s3cret", "s%33cret", "wr0ngpass"];
    let public = format!("nats://127.0.0.1:{p}");
    let good = [
        format!("nats://planner:s3cret@127.0.0.1:{p}"),
        format!("planner:s3cret@127.0.0.1:{p}"),
        format!("nats://planner:s%33cret@127.0.0.1:{p}"),
        format!("nats://planner:s3cret@127.0.0.1:{p}, nats://planner:s3cret@127.0.0.1:{p}"),
    ];
    for (i, url) in good.iter().enumerate() {
        let out = dir.0.join(format!("good-{i}.json"));
        let what = format!("good form {i}");
        export(
            &what,
            &["--server", url, "--job", "authjob", "-o", out.to_str().unwrap()],
            &dir.0,
            Ok(()),
            &secrets,
        );
        assert!(saved_server(&out, &job).starts_with(&public), "{what}");
    }
    // A user name in the URL, the password as an option; both as options; and to stdout.
    let user_url = format!("nats://planner@127.0.0.1:{p}");
    let out = dir.0.join("user-in-url.json");
    let args = [
        "--server",
        &user_url,
        "--password",
        "s3cret",
        "--job",
        "authjob",
        "-o",
        out.to_str().unwrap(),
    ];
    export("user in url", &args, &dir.0, Ok(()), &secrets);
    assert_eq!(saved_server(&out, &job), public);
    let args = [
        "--server",
        &public,
        "--user",
        "planner",
        "--password",
        "s3cret",
        "--job",
        "authjob",
    ];
    let o = export("options, to stdout", &args, &dir.0, Ok(()), &secrets);
    assert!(String::from_utf8_lossy(&o.stdout).contains(&public));

    failing_exports(&dir.0, p, &public, &good[0], &secrets);
}

/// Exports that fail, with the secret in the URL or in the options: wrong password, bad and
/// invalid job, unreachable server, conflicting credentials, a bad port.
fn failing_exports(dir: &Path, p: u16, public: &str, url: &str, secrets: &[&str]) {
    let out = dir.join("never.json");
    let out_s = out.to_str().unwrap();
    let refused = "refused the credentials";
    let wrong = format!("nats://planner:wr0ngpass@127.0.0.1:{p}");
    export(
        "wrong password in url",
        &["--server", &wrong, "--job", "authjob", "-o", out_s],
        dir,
        Err(refused),
        secrets,
    );
    let args = [
        "--server",
        public,
        "--user",
        "planner",
        "--password",
        "wr0ngpass",
        "--job",
        "authjob",
        "-o",
        out_s,
    ];
    export("wrong password option", &args, dir, Err(refused), secrets);
    export(
        "bad job",
        &["--server", url, "--job", "absent", "-o", out_s],
        dir,
        Err("does not exist"),
        secrets,
    );
    export(
        "invalid job",
        &["--server", url, "--job", "no job", "-o", out_s],
        dir,
        Err("invalid job name"),
        secrets,
    );
    let mut down = NatsServer::start(true);
    let dead = format!("nats://planner:s3cret@127.0.0.1:{}", down.port);
    down.kill();
    export(
        "unreachable",
        &["--server", &dead, "--job", "authjob", "-o", out_s],
        dir,
        Err("cannot connect"),
        secrets,
    );
    let clash = format!("nats://planner:s3cret@127.0.0.1:{p},nats://planner:wr0ngpass@127.0.0.1:{p}");
    export(
        "conflict",
        &["--server", &clash, "--job", "authjob", "-o", out_s],
        dir,
        Err("different credentials"),
        secrets,
    );
    let bad_port = "nats://planner:s3cret@127.0.0.1:99999";
    export(
        "bad port",
        &["--server", bad_port, "--job", "authjob", "-o", out_s],
        dir,
        Err("invalid port"),
        secrets,
    );
    assert!(!out.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_in_every_form() {
    let server = NatsServer::start_with(true, &["--auth", "t0kenSecret"]);
    let client = async_nats::ConnectOptions::with_token("t0kenSecret".into())
        .connect(server.url())
        .await
        .unwrap();
    let job = fixture::write_job(&jetstream::new(client), "tokjob").await;
    let dir = Dir::new("token");
    let p = server.port;
    let secrets = ["t0kenSecret", "n0tTheToken"];
    let public = format!("nats://127.0.0.1:{p}");
    let forms: [(String, Vec<&str>); 3] = [
        (format!("nats://t0kenSecret@127.0.0.1:{p}"), vec![]),
        (format!("t0kenSecret@127.0.0.1:{p}"), vec![]),
        (public.clone(), vec!["--token", "t0kenSecret"]),
    ];
    for (i, (url, extra)) in forms.iter().enumerate() {
        let out = dir.0.join(format!("tok-{i}.json"));
        let mut args = vec![
            "--server",
            url.as_str(),
            "--job",
            "tokjob",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        export(&format!("token form {i}"), &args, &dir.0, Ok(()), &secrets);
        assert_eq!(saved_server(&out, &job), public);
    }
    let out = dir.0.join("never.json");
    let out_s = out.to_str().unwrap();
    let wrong = format!("nats://n0tTheToken@127.0.0.1:{p}");
    let refused = "refused the credentials";
    export(
        "wrong token in url",
        &["--server", &wrong, "--job", "tokjob", "-o", out_s],
        &dir.0,
        Err(refused),
        &secrets,
    );
    let args = [
        "--server",
        &public,
        "--token",
        "n0tTheToken",
        "--job",
        "tokjob",
        "-o",
        out_s,
    ];
    export("wrong token option", &args, &dir.0, Err(refused), &secrets);
    let url = &forms[0].0;
    export(
        "bad job",
        &["--server", url, "--job", "absent", "-o", out_s],
        &dir.0,
        Err("does not exist"),
        &secrets,
    );
    assert!(!out.exists());
}

/// `cmd` (`snapshot`, `watch`, `serve`) with `args` and the environment `envs`, nothing else of
/// the caller's NATS_*.
fn with_env(cmd: &str, args: &[&str], envs: &[(&str, &str)]) -> Command {
    let mut c = Command::new(BIN);
    c.arg(cmd).args(args).args(["--timeout", "3"]);
    for v in [
        "NATS_URL",
        "NATS_USER",
        "NATS_PASSWORD",
        "NATS_TOKEN",
        "NATS_CREDS",
    ] {
        c.env_remove(v);
    }
    c.envs(envs.iter().copied());
    c
}

/// `snapshot` with `args` and the environment `envs`.
fn export_env(args: &[&str], envs: &[(&str, &str)]) -> Output {
    with_env("snapshot", args, envs).output().unwrap()
}

/// `watch` of `envjob` with the environment `envs`, stopped after its first line: that line and
/// everything it wrote on standard error. A long-running command, so the one whose command line
/// `ps` shows for hours.
fn watch_env(envs: &[(&str, &str)]) -> (String, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = with_env("watch", &["--job", "envjob"], envs)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (first, err)
}

/// Credentials kept off the command line (`ps` shows it): NATS_URL, NATS_USER/NATS_PASSWORD and
/// NATS_TOKEN, as the NATS tools read them; never printed; an option still wins; `--help` says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_from_the_environment() {
    let server = NatsServer::start_with(true, &["--user", "planner", "--pass", "s3cret"]);
    let opts = async_nats::ConnectOptions::with_user_and_password("planner".into(), "s3cret".into());
    let job = fixture::write_job(
        &jetstream::new(opts.connect(server.url()).await.unwrap()),
        "envjob",
    )
    .await;
    let tokens = NatsServer::start_with(true, &["--auth", "t0kenSecret"]);
    let client = async_nats::ConnectOptions::with_token("t0kenSecret".into())
        .connect(tokens.url())
        .await
        .unwrap();
    fixture::write_job(&jetstream::new(client), "envjob").await;
    let dir = Dir::new("env");
    let secrets = ["s3cret", "t0kenSecret", "wr0ngpass"];
    let url = format!("nats://127.0.0.1:{}", server.port);
    let out = dir.0.join("env.json");
    let o_s = out.to_str().unwrap();
    let user = [
        ("NATS_URL", url.as_str()),
        ("NATS_USER", "planner"),
        ("NATS_PASSWORD", "s3cret"),
    ];
    let o = export_env(&["--job", "envjob", "-o", o_s], &user);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_clean("user from the environment", &o, &dir.0, &secrets);
    assert_eq!(saved_server(&out, &job), url);
    let wrong = [
        ("NATS_URL", url.as_str()),
        ("NATS_USER", "planner"),
        ("NATS_PASSWORD", "wr0ngpass"),
    ];
    let o = export_env(
        &[
            "--job",
            "envjob",
            "-o",
            dir.0.join("never.json").to_str().unwrap(),
        ],
        &wrong,
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("refused the credentials"));
    assert_clean("wrong password from the environment", &o, &dir.0, &secrets);
    // An option wins over the environment: the right password given, the wrong one in NATS_PASSWORD.
    let o = export_env(
        &["--job", "envjob", "--user", "planner", "--password", "s3cret"],
        &wrong,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let turl = format!("nats://127.0.0.1:{}", tokens.port);
    let token = [("NATS_URL", turl.as_str()), ("NATS_TOKEN", "t0kenSecret")];
    let o = export_env(
        &["--job", "envjob", "-o", dir.0.join("tok.json").to_str().unwrap()],
        &token,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_clean("token from the environment", &o, &dir.0, &secrets);
    // The long-running commands read the same environment.
    let (first, err) = watch_env(&user);
    assert!(
        first.contains("start"),
        "watch from the environment: {first:?} {err}"
    );
    for s in secrets {
        assert!(!first.contains(s) && !err.contains(s), "watch printed {s:?}");
    }
    let (first, err) = watch_env(&wrong);
    assert_eq!(first, "", "the wrong password from the environment is refused");
    assert!(err.contains("refused the credentials"), "{err}");
    // NATS_CREDS names a file that is not there: the error names the file.
    let missing = dir.0.join("nowhere.creds");
    let creds = [
        ("NATS_URL", url.as_str()),
        ("NATS_CREDS", missing.to_str().unwrap()),
    ];
    let o = export_env(&["--job", "envjob"], &creds);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("nowhere.creds"), "{e}");
    // `serve` follows NATS only when --server is given (NATS_URL does not switch live mode on).
    for (cmd, names) in [
        ("snapshot", &["NATS_URL", "NATS_CREDS", "NATS_TOKEN"][..]),
        ("watch", &["NATS_URL", "NATS_CREDS", "NATS_TOKEN"]),
        ("serve", &["NATS_CREDS", "NATS_USER", "NATS_TOKEN"]),
    ] {
        let help = Command::new(BIN).args([cmd, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&help.stdout);
        for name in names {
            assert!(help.contains(name), "{cmd} --help names {name}: {help}");
        }
    }
    let help = Command::new(BIN).args(["snapshot", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for name in [
        "NATS_URL",
        "NATS_CREDS",
        "NATS_USER",
        "NATS_PASSWORD",
        "NATS_TOKEN",
        "ps",
    ] {
        assert!(help.contains(name), "--help names {name}: {help}");
    }
    assert!(!dir.0.join("never.json").exists());
}
