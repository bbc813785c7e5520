//! Standard output, for every command: a reader that stops early (`plan --json | head -c 10`)
//! ends the command quietly, as it ends any Unix filter.
//!
//! Rust starts a program with SIGPIPE ignored, so a write to a closed pipe fails with EPIPE:
//! `println!` panics on it (exit 101) and a command that returns the error exits 1 with
//! "Broken pipe". Every command writes its standard output through [`out`] (or [`line`]), and
//! a write or flush that finds the pipe closed ends the process with SIGPIPE itself (the shell's
//! status 141), nothing said on standard error. SIGPIPE stays ignored otherwise: a socket whose
//! peer went away (a page, the NATS server) is that connection's error, never the process's end.

use std::io::{self, BufWriter, StdoutLock, Write};

/// The process ends as SIGPIPE's default action ends it (exit 141 if the signal cannot be
/// raised).
pub(crate) fn closed() -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
    std::process::exit(128 + signal_hook::consts::SIGPIPE)
}

/// `result`, unless it is the error of a closed pipe: then the process ends ([`closed`]).
pub(crate) fn unless_closed<T>(result: io::Result<T>) -> io::Result<T> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => closed(),
        other => other,
    }
}

/// Standard output, buffered and locked; a closed pipe ends the process ([`unless_closed`]).
/// Dropped, it flushes what it holds the same way.
pub(crate) struct Stdout(BufWriter<StdoutLock<'static>>);

/// The command's standard output.
pub(crate) fn out() -> Stdout {
    Stdout(BufWriter::new(io::stdout().lock()))
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        unless_closed(self.0.write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        unless_closed(self.0.write_all(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        unless_closed(self.0.flush())
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        // any other error was the command's to see when it flushed; here none is left to see
        let _ = self.flush();
    }
}

/// `bytes` written whole to standard output and flushed ([`out`]).
pub(crate) fn all(bytes: &[u8]) -> io::Result<()> {
    let mut out = out();
    out.write_all(bytes)?;
    out.flush()
}

/// `println!` through [`out`]: one line written and flushed (a closed pipe has ended the
/// process; any other error is returned).
pub(crate) fn line(text: std::fmt::Arguments) -> io::Result<()> {
    let mut out = out();
    out.write_fmt(text)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// [`line`] where `println!` would do: a closed pipe ends the process quietly; any other error
/// (where `println!` panics) ends it with exit 1 and the error on standard error.
pub(crate) fn print_line(text: std::fmt::Arguments) {
    if let Err(e) = line(text) {
        eprintln!("spate-planner: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}
