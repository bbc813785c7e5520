//! `spate-planner demo`: a realistic synthetic snapshot.

use spate_planner_core::{demo_snapshot, DemoParams};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct DemoArgs {
    #[arg(long, default_value_t = 2000)]
    splits: usize,
    #[arg(long, default_value_t = 24)]
    members: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "demo")]
    job: String,
    /// Output file (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "snapshot".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub fn run(args: &DemoArgs) -> ExitCode {
    if !spate_planner_core::valid_job_name(&args.job) {
        eprintln!(
            "spate-planner demo: job name {:?} is not [A-Za-z0-9_-]{{1,64}}",
            args.job
        );
        return ExitCode::FAILURE;
    }
    let snap = demo_snapshot(&DemoParams {
        job: args.job.clone(),
        splits: args.splits,
        members: args.members,
        seed: args.seed,
        ..DemoParams::default()
    });
    let text = snap.to_json();
    let written = match &args.output {
        Some(p) => write_atomically(p, text.as_bytes()),
        None => std::io::stdout().lock().write_all(text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spate-planner demo: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
