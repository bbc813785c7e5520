//! `spate-planner diff`: two snapshots of a job compared (members, caps, owners, figures, and the
//! leader's decision).

use spate_planner_core::{
    diff,
    review::{diff_csv, DiffTable},
    to_json, Rules,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The earlier snapshot.
    before: PathBuf,
    /// The later snapshot.
    after: PathBuf,
    /// Print one JSON document instead of the report.
    #[arg(long)]
    json: bool,
    /// Print one of the comparison's tables as CSV instead: members (loads and caps before and
    /// after) or owners (the splits whose owner changed).
    #[arg(long, value_name = "TABLE", value_parser = ["members", "owners"], conflicts_with = "json")]
    csv: Option<String>,
    /// How many owner changes and differences the report lists.
    #[arg(long, default_value_t = 40)]
    limit: usize,
    /// Plan both snapshots by this release's rules: 0.1 (also 0.2) or 0.3. Default: the
    /// release each store names.
    #[arg(long, value_name = "VERSION")]
    rules: Option<Rules>,
}

pub(crate) fn run_diff(args: &DiffArgs) -> ExitCode {
    match diff_command(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("diff", &e);
            ExitCode::FAILURE
        }
    }
}

fn diff_command(args: &DiffArgs) -> Result<(), String> {
    let before = crate::support::load(&args.before)?;
    let after = crate::support::load(&args.after)?;
    let d = diff(&before, &after, args.rules).map_err(|e| format!("{e} [{}]", e.code))?;
    let mut out = crate::stdout::out();
    if let Some(table) = args.csv.as_deref().and_then(DiffTable::named) {
        write!(out, "{}", diff_csv(&d, table)).map_err(|e| e.to_string())?;
    } else if args.json {
        let text = to_json(&d).map_err(|e| format!("cannot write JSON: {e}"))?;
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
    } else {
        crate::human::diff(&mut out, &d, args.limit).map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}
