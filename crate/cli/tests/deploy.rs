//! deploy/spate-planner.service, the hardened systemd unit, checked by systemd itself:
//! `systemd-analyze verify` finds nothing to say about it (an unknown key, a value it cannot
//! parse, a missing binary), and `systemd-analyze security --offline=yes` rates its exposure
//! low. The unit is checked as written, its binary's path pointed at the one built here.
//! Where `systemd-analyze` cannot run, the test says so and checks nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_spate-planner");

fn unit_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/spate-planner.service");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The unit in a directory of its own, `/usr/local/bin/spate-planner` replaced by the binary
/// built here (verify checks that the command exists).
fn unit_here() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spate-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = unit_text();
    assert!(
        text.contains("ExecStart=/usr/local/bin/spate-planner serve "),
        "{text}"
    );
    let file = dir.join("spate-planner.service");
    std::fs::write(&file, text.replace("/usr/local/bin/spate-planner", BIN)).unwrap();
    file
}

/// `systemd-analyze ARGS`, or `None` when it cannot run here.
fn analyze(args: &[&str], unit: &Path) -> Option<std::process::Output> {
    match Command::new("systemd-analyze").args(args).arg(unit).output() {
        Ok(o) => Some(o),
        Err(e) => {
            eprintln!("SKIPPED: systemd-analyze cannot run here ({e}); the unit was not verified");
            None
        }
    }
}

#[test]
fn the_unit_is_verified_by_systemd_and_its_exposure_is_low() {
    let text = unit_text();
    for hardening in [
        "DynamicUser=yes",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=\n",
        "PrivateDevices=yes",
        "SystemCallFilter=@system-service",
        "MemoryDenyWriteExecute=yes",
    ] {
        assert!(text.contains(hardening), "no {hardening}");
    }
    let unit = unit_here();
    let Some(o) = analyze(&["verify"], &unit) else {
        return;
    };
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "systemd-analyze verify: {}\n{said}", o.status);
    assert!(
        !said.contains("spate-planner.service"),
        "systemd-analyze verify has something to say about the unit:\n{said}"
    );
    let Some(o) = analyze(&["security", "--offline=yes", "--no-pager"], &unit) else {
        return;
    };
    let said = String::from_utf8_lossy(&o.stdout);
    let level: f64 = said
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for spate-planner.service: ")
                .nth(1)
        })
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no exposure level:\n{said}"));
    assert!(level <= 2.0, "exposure {level} (0 best, 10 worst):\n{said}");
}
