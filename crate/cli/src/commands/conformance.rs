//! `spate-planner conformance FILE...`

use spate_planner_core::conformance::run_file;
use std::path::PathBuf;
use std::process::ExitCode;

/// The largest vector file read, in bytes (the shipped files are 7 and 12 MB; reading parses the
/// whole file into a JSON tree of several times its size).
pub(crate) const MAX_VECTOR_FILE_BYTES: usize = 64 << 20;

/// Prints one line per failing case and `N passed, M failed`; fails on any failure or any
/// unreadable file.
pub(crate) fn run(files: &[PathBuf]) -> ExitCode {
    let (mut passed, mut failed) = (0usize, 0usize);
    for path in files {
        let text = match crate::support::read_text(path, "vector file", MAX_VECTOR_FILE_BYTES) {
            Ok(t) => t,
            Err(e) => {
                crate::stdout::print_line(format_args!("FAIL {e}"));
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
                            crate::stdout::print_line(format_args!("{line}"));
                            failed += 1;
                        }
                    }
                }
            }
            Err(e) => {
                crate::stdout::print_line(format_args!("FAIL {}: {e}", path.display()));
                failed += 1;
            }
        }
    }
    crate::stdout::print_line(format_args!("{passed} passed, {failed} failed"));
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
