//! Output files, all or nothing: each is written to a temporary file beside its target (a new
//! file with an unpredictable name, created exclusively, so never through a planted link), and
//! only once every file of the output is complete are they renamed onto their targets. A failure
//! removes the temporary files; so does SIGINT, SIGTERM or SIGHUP (a handler, installed with the
//! first temporary file, removes the files registered and then dies of the signal as before).
//! The list of temporary files is locked while a file is created and listed, and while an
//! output's files are renamed; the handler takes the lock and keeps it until the process ends.
//! So a signal never leaves a file created but not yet listed, nor half of an output renamed.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use tempfile::NamedTempFile;

/// The temporary files that exist now, for the signal handler.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes every registered temporary file, then lets the signal end the process as it would
/// have without the handler.
fn install_handler() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            // held until the process ends: no file is created or renamed after these are removed
            let mut files = live();
            for p in files.drain(..) {
                let _ = std::fs::remove_file(p);
            }
            let _ = signal_hook::low_level::emulate_default_handler(sig);
            std::process::exit(128 + sig);
        }
    });
}

/// The directory a target is in (`.` for a bare file name).
pub(crate) fn dir_of(path: &Path) -> &Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// A target that is a device or a pipe (`/dev/stdout`, a FIFO) is written in place: there is
/// nothing to rename onto it. A link is not followed: it is replaced, as any file is.
fn is_special(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir() && !m.file_type().is_symlink())
}

/// One file staged: its temporary copy (removed when dropped uncommitted) and where it goes.
struct Staged {
    tmp: NamedTempFile,
    target: PathBuf,
}

/// The files of one output, staged until [`Outputs::commit`]; dropped uncommitted, none is
/// written.
#[derive(Default)]
pub(crate) struct Outputs {
    staged: Vec<Staged>,
    special: Vec<(PathBuf, Vec<u8>)>,
}

/// A new temporary file beside `path`: `.NAME.RANDOM.tmp`, created exclusively (`O_EXCL`: an
/// existing file or link of that name fails it), readable as a file the user creates would be.
fn temporary_beside(path: &Path) -> io::Result<NamedTempFile> {
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or_else(|| "output".as_ref()));
    prefix.push(".");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    b.tempfile_in(dir_of(path))
}

impl Outputs {
    /// Writes `bytes` to a new temporary file beside `path` and syncs it.
    pub(crate) fn stage(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        if is_special(path) {
            self.special.push((path.to_path_buf(), bytes.to_vec()));
            return Ok(());
        }
        HANDLER.call_once(install_handler);
        let tmp = {
            let mut files = live();
            let tmp = temporary_beside(path)?;
            files.push(tmp.path().to_path_buf());
            tmp
        };
        let staged = Staged {
            tmp,
            target: path.to_path_buf(),
        };
        self.staged.push(staged);
        let tmp = &mut self.staged.last_mut().expect("just pushed").tmp;
        tmp.write_all(bytes)?;
        tmp.as_file().sync_all()
    }

    /// Renames every staged file onto its target (each rename replaces the target whole, a link
    /// included, never what it points to), then writes the special targets. On an error the
    /// files not yet renamed are removed, and so are the targets this commit created: a failed
    /// output leaves no new file (a target it replaced cannot be brought back; the commands
    /// replace existing files only when asked to, as `report --force`).
    pub(crate) fn commit(mut self) -> io::Result<()> {
        let mut created = Vec::new();
        let staged = std::mem::take(&mut self.staged);
        // Locked until every file is renamed or removed: a signal waits for the whole output.
        let mut files = live();
        files.retain(|q| !staged.iter().any(|s| s.tmp.path() == q));
        for s in staged {
            let target = s.target.display().to_string();
            let new = std::fs::symlink_metadata(&s.target).is_err();
            let kept = s
                .tmp
                .persist(&s.target)
                .map_err(|e| io::Error::new(e.error.kind(), format!("{target}: {}", e.error)));
            if let Err(e) = kept {
                for t in created {
                    let _ = std::fs::remove_file(t);
                }
                return Err(e);
            }
            if new {
                created.push(s.target);
            }
        }
        drop(files);
        for (path, bytes) in std::mem::take(&mut self.special) {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)?
                .write_all(&bytes)?;
        }
        Ok(())
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        let mut files = live();
        for s in &self.staged {
            files.retain(|q| q != s.tmp.path());
        }
    }
}

/// Writes `bytes` to `path` all or nothing ([`Outputs`] with one file).
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut out = Outputs::default();
    out.stage(path, bytes)?;
    out.commit()
}
