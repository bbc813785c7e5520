//! `spate-planner conformance FILE...`

use spate_planner_core::conformance::run_file;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints one line per failing case and `N passed, M failed`; fails on any failure or any
/// unreadable file.
pub fn run(files: &[PathBuf]) -> ExitCode {
    let (mut passed, mut failed) = (0usize, 0usize);
    for path in files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                println!("FAIL {}: cannot read: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        match run_file(&text) {
            Ok(outcomes) => {
                for o in outcomes {
                    match o.failure_line() {
                        None => passed += 1,
                        Some(line) => {
                            println!("{line}");
                            failed += 1;
                        }
                    }
                }
            }
            Err(e) => {
                println!("FAIL {}: {e}", path.display());
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
