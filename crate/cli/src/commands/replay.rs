//! `spate-planner replay RECORDING`: a recording (docs/recording-format.md) shown on the
//! dashboard, whose Live tab scrubs over the recorded time; or, with `--at` / `--revision`, the
//! job at one moment: written as a snapshot file (what `spate-planner snapshot` would have
//! written then, `-o`), or its plan printed (`--json`).

use crate::live::record::segment_number;
use axum::body::Bytes;
use spate_planner_core::{
    analyse_partly, live::MAX_RECORDING_BYTES, plan_document, valid_job_name, Recording, Replay, Revisions,
    Scenario,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The recording: a directory `--record` wrote (its segments joined in order) or one
    /// segment file (.jsonl, or .jsonl.gz), which replays alone.
    recording: PathBuf,
    /// The job as it stood at this time, instead of serving the dashboard: the last line
    /// received at or before it. RFC 3339 (2026-01-01T10:02:03.120Z) or ms since the Unix epoch.
    #[arg(long, value_name = "TIME", conflicts_with = "revision")]
    at: Option<String>,
    /// The job as it stood when it first reached these revisions (S-L: the state and lease
    /// buckets', as the live stream's ids and /api/snapshot's X-Spate-Revisions say).
    #[arg(long, value_name = "S-L")]
    revision: Option<String>,
    /// With --at or --revision: write the job then as a snapshot file.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// With --at or --revision: print the leader's plan then as `plan --json` does, made as
    /// the live page makes it (the live job's frame at the moment's time).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    listen: crate::dashboard::Listen,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let read = read_recording(&args.recording).and_then(|read| {
        let rec = Recording::parse_bytes(&read.bytes).map_err(|e| {
            let said = format!("{e} [{}]", e.code);
            format!("{}: {}", args.recording.display(), read.placed(&said))
        })?;
        Ok((read, rec))
    });
    let (read, rec) = match read {
        Ok(r) => r,
        Err(e) => {
            crate::term::fail("replay", &e);
            return ExitCode::FAILURE;
        }
    };
    describe(&args.recording, &rec, &read);
    let done = match (&args.at, &args.revision) {
        (None, None) if args.output.is_some() || args.json => {
            Err("-o and --json take the moment from --at or --revision".into())
        }
        (None, None) => {
            return crate::dashboard::run_page(&args.listen, read.name, Bytes::from(read.bytes));
        }
        (at, revision) => at_moment(rec, &read, at.as_deref(), revision.as_deref(), args),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term::fail("replay", &e);
            ExitCode::FAILURE
        }
    }
}

/// What the recording holds, on standard error (with its warnings, each naming its file and
/// line when a directory's segments were joined).
fn describe(path: &Path, rec: &Recording, read: &Joined) {
    let (first, last) = match (rec.items.first(), rec.items.last()) {
        (Some(a), Some(b)) => (a, b),
        _ => return,
    };
    eprintln!(
        "recording {}: job {}, {} segment(s), {} moments from {} to {} (revisions {} to {})",
        path.display(),
        crate::term::shown(&rec.job),
        rec.segments.len(),
        rec.items.len(),
        utc(first.at_ms),
        utc(last.at_ms),
        first.revisions,
        last.revisions
    );
    let warnings = rec.warnings.iter().map(|w| read.placed(w));
    for w in read.notes.iter().cloned().chain(warnings) {
        eprintln!("warning: {}", crate::term::shown(&w));
    }
}

/// A time as RFC 3339, UTC, to the millisecond.
fn utc(ms: i64) -> String {
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000);
    let format = time::format_description::well_known::Rfc3339;
    at.ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| format!("{ms} ms"))
}

/// `--at`: ms since the Unix epoch, or an RFC 3339 time.
fn parse_time(text: &str) -> Result<i64, String> {
    if let Ok(ms) = text.trim().parse::<i64>() {
        return Ok(ms);
    }
    let format = time::format_description::well_known::Rfc3339;
    time::OffsetDateTime::parse(text.trim(), &format)
        .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
        .map_err(|e| format!("--at {text:?}: not a time (RFC 3339, e.g. 2026-01-01T10:02:03Z, or ms since the Unix epoch): {e}"))
}

/// The moment `--at` or `--revision` names.
fn moment(replay: &Replay, at: Option<&str>, revision: Option<&str>) -> Result<usize, String> {
    match (at, revision) {
        (Some(t), _) => {
            let ms = parse_time(t)?;
            replay
                .at_time(ms)
                .ok_or_else(|| format!("--at {t}: the recording begins later ({})", first_time(replay)))
        }
        (None, Some(r)) => {
            let want: Revisions = r
                .parse()
                .map_err(|_| format!("--revision {r:?}: not a pair of revisions S-L (e.g. 104-37)"))?;
            replay.at_revisions(want).ok_or_else(|| {
                format!("--revision {r}: the job never stood at these revisions in this recording")
            })
        }
        (None, None) => Err("name the moment with --at or --revision".into()),
    }
}

/// The job at the moment `--at` or `--revision` names: its plan printed (`--json`), written
/// as a snapshot file (`-o`), or said in one line.
fn at_moment(
    rec: Recording,
    read: &Joined,
    at: Option<&str>,
    revision: Option<&str>,
    args: &Args,
) -> Result<(), String> {
    let mut replay = Replay::new(rec);
    let m = moment(&replay, at, revision)?;
    let coded = |e: spate_planner_core::SnapshotError| read.placed(&format!("{e} [{}]", e.code));
    if args.json {
        let frame = replay.seek(m).map_err(coded)?;
        let analysis = analyse_partly(&frame.fleet, &Scenario::default());
        let doc = plan_document(&frame.fleet, &analysis)
            .map_err(|e| format!("cannot write the plan as JSON: {e}"))?;
        crate::stdout::line(format_args!("{doc}")).map_err(|e| format!("cannot write: {e}"))?;
    } else {
        replay.goto(m).map_err(coded)?;
    }
    let snap = replay
        .snapshot()
        .ok_or_else(|| "the recording holds no state".to_string())?;
    let (line, at_ms, revisions) = replay
        .item(m)
        .map(|i| (i.line, i.at_ms, i.revisions))
        .unwrap_or_default();
    let said = format!(
        "job {} at {} ({}, revisions {revisions})",
        crate::term::shown(&snap.job),
        utc(at_ms),
        read.placed(&format!("line {line}"))
    );
    match &args.output {
        Some(out) => {
            crate::support::write_atomically(out, snap.to_json().as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            eprintln!("wrote {}: {said}", out.display());
        }
        None if !args.json => {
            crate::stdout::line(format_args!("{said}")).map_err(|e| format!("cannot write: {e}"))?
        }
        None => {}
    }
    Ok(())
}

fn first_time(replay: &Replay) -> String {
    replay.item(0).map_or_else(String::new, |i| utc(i.at_ms))
}

/// A recording read from a segment file or a directory's segments joined.
struct Joined {
    /// The name the page shows.
    name: String,
    bytes: Vec<u8>,
    /// Each segment joined and the joined line it begins at (from 1); empty for one file.
    parts: Vec<(String, usize)>,
    /// What was left out while reading (a compressed segment cut short).
    notes: Vec<String>,
}

impl Joined {
    /// The segment file and its own line of line `n` of the joined text.
    fn place(&self, n: usize) -> Option<(&str, usize)> {
        let k = self.parts.partition_point(|(_, first)| *first <= n);
        let (file, first) = self.parts.get(k.checked_sub(1)?)?;
        Some((file, n - first + 1))
    }

    /// The reader's words with each `line N` of the joined text said as `FILE line K`.
    fn placed(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(i) = rest.find("line ") {
            let after = &rest[i + "line ".len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let word = !rest[..i].ends_with(|c: char| c.is_alphanumeric());
            let place = after[..digits]
                .parse()
                .ok()
                .filter(|_| word)
                .and_then(|n| self.place(n));
            out.push_str(&rest[..i]);
            match place {
                Some((file, k)) => out.push_str(&format!("{file} line {k}")),
                None => out.push_str("line "),
            }
            rest = if place.is_some() { &after[digits..] } else { after };
        }
        out.push_str(rest);
        out
    }
}

/// The recording's bytes, at most [`MAX_RECORDING_BYTES`] once uncompressed: a segment file, or
/// a directory's segments in order (a segment number found both compressed and not: the
/// compressed one, written whole before the other is removed). With the name the page shows.
fn read_recording(path: &Path) -> Result<Joined, String> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut read = Joined {
        name,
        bytes: Vec::new(),
        parts: Vec::new(),
        notes: Vec::new(),
    };
    if !meta.is_dir() {
        read_segment(path, &mut read)?;
        return Ok(read);
    }
    for f in segments(path)? {
        let file = f
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let lines = read.bytes.iter().filter(|b| **b == b'\n').count();
        let ended = read.bytes.last().is_none_or(|b| *b == b'\n');
        read.parts.push((file, lines + 1 + usize::from(!ended)));
        read_segment(&f, &mut read)?;
    }
    Ok(read)
}

/// A directory's segments, in order: one job's only, each a regular file (a pipe, a device or a
/// directory named like a segment is refused by name: reading it could wait for ever).
fn segments(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", dir.display());
    let mut found: std::collections::BTreeMap<(String, u64), PathBuf> = Default::default();
    for e in std::fs::read_dir(dir).map_err(cannot)? {
        let name = e.map_err(cannot)?.file_name().to_string_lossy().into_owned();
        let Some(job) = name.split('.').next().filter(|j| valid_job_name(j)) else {
            continue;
        };
        if let Some(n) = segment_number(job, &name) {
            regular_file(&dir.join(&name))?;
            let slot = found.entry((job.to_string(), n)).or_default();
            if slot.as_os_str().is_empty() || name.ends_with(".gz") {
                *slot = dir.join(&name);
            }
        }
    }
    let jobs: std::collections::BTreeSet<&str> = found.keys().map(|(j, _)| j.as_str()).collect();
    match jobs.len() {
        0 => Err(format!(
            "{}: no recording segment in it (JOB.000001.jsonl, …)",
            dir.display()
        )),
        1 => Ok(found.into_values().collect()),
        _ => {
            Err(format!(
            "{} holds recordings of several jobs ({}): give one segment file, or a directory of one job's",
            dir.display(),
            jobs.into_iter().map(crate::term::shown).collect::<Vec<_>>().join(", ")
        ))
        }
    }
}

/// `Ok` for a regular file (or a link to one); an error naming what else it is.
fn regular_file(path: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_file() {
        return Ok(());
    }
    let what = kind_of(&meta.file_type());
    Err(format!(
        "{} is not a regular file ({what}): a recording's segments are files; remove it or give the segment files one by one",
        path.display()
    ))
}

/// What a file type is, in words.
fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// Appends one segment's text (gzip or not) to `read`, keeping the whole within the limit. A
/// compressed segment cut short (its gzip stream ends early or is damaged: a copy interrupted,
/// a disk that filled) gives what decodes, with a note of where it stops.
fn read_segment(path: &Path, read: &mut Joined) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut magic = [0u8; 2];
    let n = file.read(&mut magic).map_err(cannot)?;
    let head = std::io::Cursor::new(magic[..n].to_vec());
    let out = &mut read.bytes;
    if out.last().is_some_and(|b| *b != b'\n') {
        // The segment before was cut short mid-line: this one begins on a line of its own.
        out.push(b'\n');
    }
    let begun = out.len();
    let room = (MAX_RECORDING_BYTES - out.len().min(MAX_RECORDING_BYTES)) as u64 + 1;
    if magic == [0x1f, 0x8b] {
        let decoded = flate2::read::MultiGzDecoder::new(head.chain(file))
            .take(room)
            .read_to_end(out);
        if let Err(e) = decoded {
            let got = &out[begun..];
            let lines = got.iter().filter(|b| **b == b'\n').count();
            let file = path.display();
            read.notes.push(format!(
                "{file} is cut short ({e}): read up to its line {lines}{}, the rest of it is lost",
                if got.ends_with(b"\n") || got.is_empty() {
                    ""
                } else {
                    " and part of the next"
                }
            ));
        }
    } else {
        head.chain(file).take(room).read_to_end(out).map_err(cannot)?;
    }
    if read.bytes.len() > MAX_RECORDING_BYTES {
        return Err(format!(
            "{}: the recording is more than {} MiB; replay reads at most that at once (give one segment, or a directory of fewer) [too_large]",
            path.display(),
            MAX_RECORDING_BYTES >> 20
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_rfc_3339_or_ms() {
        assert_eq!(parse_time("1767225600000"), Ok(1_767_225_600_000));
        assert_eq!(parse_time("2026-01-01T00:00:00.120Z"), Ok(1_767_225_600_120));
        assert_eq!(parse_time("2026-01-01T01:00:00+01:00"), Ok(1_767_225_600_000));
        assert!(parse_time("yesterday").is_err());
        assert_eq!(utc(1_767_225_600_120), "2026-01-01T00:00:00.12Z");
    }
}
