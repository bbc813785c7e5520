//! What several commands share: reading an input file (never more than its format's limit),
//! reading a snapshot into the leader's view or a scenario, writing an output file atomically
//! (`output.rs`), and the wall clock. Command modules use these; none imports another command.

use spate_planner_core::{
    human_bytes, scenario::MAX_SCENARIO_BYTES, sweep::Axis, Fleet, Scenario, MAX_SNAPSHOT_BYTES,
};
use spate_planner_sim::{Script, MAX_SCRIPT_BYTES};
use std::io::Read;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

pub(crate) use crate::output::write_atomically;

/// The refusal of an input past its limit (docs/bad-inputs.md, "Bounds").
fn too_large(path: &Path, what: &str, size: &str, max: usize) -> String {
    format!(
        "{}: {size}; spate-planner reads a {what} of at most {} ({max} bytes) [too_large]",
        path.display(),
        human_bytes(max as u64)
    )
}

/// The bytes of `path`, at most `max` of them: a regular file larger than that is refused before
/// anything is read, and any other file (a pipe, a device such as /dev/zero) is read only up to
/// one byte past the limit. `what` names the kind of input in the error.
pub(crate) fn read_bounded(path: &Path, what: &str, max: usize) -> Result<Vec<u8>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let file = std::fs::File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if meta.is_dir() {
        return Err(format!("cannot read {}: it is a directory", path.display()));
    }
    if meta.is_file() && meta.len() > max as u64 {
        return Err(too_large(path, what, &format!("{} bytes", meta.len()), max));
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() { meta.len() as usize } else { 0 });
    file.take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > max {
        return Err(too_large(path, what, "more than that was read", max));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text.
pub(crate) fn read_text(path: &Path, what: &str, max: usize) -> Result<String, String> {
    String::from_utf8(read_bounded(path, what, max)?).map_err(|e| {
        format!(
            "{}: not a {what}: invalid UTF-8 at byte {} [not_json]",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads and loads a snapshot file, with the error a person needs.
pub(crate) fn load(path: &Path) -> Result<Fleet, String> {
    load_with_text(path).map(|(fleet, _)| fleet)
}

/// [`load`], keeping the file's text too (read once, within the same limit).
pub(crate) fn load_with_text(path: &Path) -> Result<(Fleet, String), String> {
    let text = read_text(path, "snapshot", MAX_SNAPSHOT_BYTES)?;
    let fleet = Fleet::load_text(&text).map_err(|e| format!("{}: {e} [{}]", path.display(), e.code))?;
    Ok((fleet, text))
}

/// Reads a scenario file (docs/scenario-format.md): an empty file is refused.
pub(crate) fn scenario(path: &Path) -> Result<Scenario, String> {
    let text = read_text(path, "scenario", MAX_SCENARIO_BYTES)?;
    Scenario::parse_file(&text).map_err(|e| format!("{}: {e} [{}]", path.display(), e.code))
}

/// A sweep's range from its flag's text, by the core's one reading (`parse_range`).
pub(crate) fn parse_range(text: &str) -> Result<std::ops::RangeInclusive<u32>, String> {
    spate_planner_core::sweep::parse_range(text).map_err(|e| format!("{e} [{}]", e.code()))
}

/// The axis flags of a sweep (`sweep`'s, and `report`'s `--sweep-*`): at most one range is given.
pub(crate) struct SweepFlags<'a> {
    pub(crate) add_members: Option<&'a str>,
    pub(crate) default_cap: Option<&'a str>,
    pub(crate) member_cap: Option<&'a str>,
    /// The fleet's size: members removed below today's count, added above it.
    pub(crate) members: Option<&'a str>,
    /// Which members a shrinking fleet loses first (`lightest-first`, `heaviest-first`,
    /// `last-named-first`; default the lightest).
    pub(crate) remove: Option<&'a str>,
    /// The cap of added members.
    pub(crate) cap: Option<u32>,
}

/// The sweep the flags ask for, read by the core's one reading of an axis and a range; `None`
/// when no range is given.
pub(crate) fn sweep_axis(f: &SweepFlags) -> Result<Option<(Axis, std::ops::RangeInclusive<u32>)>, String> {
    let members = f.remove.map_or_else(
        || "members".to_string(),
        |r| format!("members_{}", r.replace('-', "_")),
    );
    let (name, range) = match (f.add_members, f.default_cap, f.member_cap, f.members) {
        (Some(r), _, _, _) => ("add_members", r),
        (_, Some(r), _, _) => ("default_cap", r),
        (_, _, Some(r), _) => ("member_cap", r),
        (_, _, _, Some(r)) => (members.as_str(), r),
        _ => return Ok(None),
    };
    let axis = Axis::parse(name, f.cap).map_err(|e| format!("{e} [{}]", e.code()))?;
    Ok(Some((axis, parse_range(range)?)))
}

/// The timing script of `--crash-heaviest` (`sweep`, `report`): the file given, else Spate's
/// defaults; `None` without the flag.
pub(crate) fn crash_script(crash: bool, script: Option<&Path>) -> Result<Option<Script>, String> {
    if !crash {
        return Ok(None);
    }
    match script {
        None => Ok(Some(Script::default())),
        Some(p) => {
            let text = read_text(p, "script", MAX_SCRIPT_BYTES)?;
            Script::parse(&text)
                .map(Some)
                .map_err(|e| format!("{}: {e} [{}]", p.display(), e.code))
        }
    }
}

/// `SPLITSxMEMBERS`, as the benchmarks and `--demo` take a fleet's size.
pub(crate) fn parse_size(s: &str) -> Option<(usize, usize)> {
    let (a, b) = s.split_once('x')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// Now, in ms since the Unix epoch (0 if the clock is before it).
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_inclusively() {
        // the core's reading (sweep::parse_range), with its code
        assert_eq!(parse_range("2..=32"), Ok(2..=32));
        let e = parse_range("0..1024").unwrap_err();
        assert!(
            e.contains("\"0..1024\": 1025 steps; a sweep takes at most 1024") && e.contains("[too_large]"),
            "{e}"
        );
        assert!(parse_range("9..3").unwrap_err().ends_with("[invalid_sweep]"));
    }
}
