//! What several commands share: reading a snapshot file into the leader's view, writing an output
//! file atomically, and the wall clock. Command modules use these; none imports another command.

use spate_planner_core::Fleet;
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Reads and loads a snapshot file, with the error a person needs.
pub fn load(path: &Path) -> Result<Fleet, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        format!(
            "{}: not a snapshot: invalid UTF-8 at byte {}",
            path.display(),
            e.valid_up_to()
        )
    })?;
    Fleet::load_text(text).map_err(|e| format!("{}: {e} [{}]", path.display(), e.code))
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

/// Now, in ms since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
