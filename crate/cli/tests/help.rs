//! The command line's help reads in a terminal and on paper: piped (not a terminal), every line
//! of every command's `--help` is at most 80 characters, wrapped at spaces (in a terminal it is
//! wrapped at the terminal's width).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

/// The subcommands `--help` lists (the names in its "Commands:" block).
fn commands() -> Vec<String> {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // a wrapped description continues on a line indented past the names
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_help_line_fits_80_columns_when_piped() {
    let cmds = commands();
    assert!(cmds.len() >= 15, "the commands listed: {cmds:?}");
    for c in std::iter::once(None).chain(cmds.iter().map(Some)) {
        let out = Command::new(BIN).args(c).arg("--help").output().unwrap();
        assert!(out.status.success(), "{c:?} --help failed");
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            let n = line.chars().count();
            assert!(
                n <= 80,
                "`{} --help`: a line of {n} characters: {line}",
                c.map_or("", |c| c.as_str())
            );
        }
    }
}
