//! Running one stage of a mutation case (`specula check`, `run --route rust`, `diff`) in a
//! child process, with a wall-clock timeout and an address-space cap, and reading what came
//! back: a hang, a signal, a panic, or an exit code with its output.
//!
//! A child, not a thread: a segfault or an abort (MuJoCo's or Rust's allocation failure under
//! the cap) must end the case, not the fuzzer, and a hang must be killable.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a child may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time before the child is killed.
    pub timeout: Duration,
    /// Address-space cap (`RLIMIT_AS`), bytes.
    pub mem_bytes: u64,
}

/// How a child ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal (not ours).
    Signal(i32),
    /// It was still running at the timeout and was killed.
    TimedOut,
}

/// A finished child.
#[derive(Clone, Debug)]
pub struct ChildRun {
    /// How it ended.
    pub exit: Exit,
    /// Its standard output (at most [`KEEP`] bytes).
    pub stdout: String,
    /// Its standard error (at most [`KEEP`] bytes).
    pub stderr: String,
}

/// Output kept per stream: enough for any JSON verdict, bounded for a child that floods.
pub const KEEP: usize = 1 << 20;

fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = KEEP.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Runs `exe args` with `limits` and waits for it (or kills it at the timeout).
pub fn run_child(exe: &Path, args: &[OsString], limits: Limits) -> std::io::Result<ChildRun> {
    let mut cmd = Command::new(exe);
    cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let cap = limits.mem_bytes as libc::rlim_t;
    // SAFETY: the closure runs in the forked child before exec and only calls setrlimit, which
    // is async-signal-safe; it touches no lock and allocates nothing. The core-size limit of 0
    // keeps a crashing child from writing a core file per case.
    unsafe {
        cmd.pre_exec(move || {
            let as_limit = libc::rlimit { rlim_cur: cap, rlim_max: cap };
            let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
            if libc::setrlimit(libc::RLIMIT_AS, &as_limit) != 0 || libc::setrlimit(libc::RLIMIT_CORE, &no_core) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let deadline = Instant::now() + limits.timeout;
    let mut pause = Duration::from_millis(1);
    let exit = loop {
        if let Some(st) = child.try_wait()? {
            break match (st.code(), st.signal()) {
                (Some(c), _) => Exit::Code(c),
                (None, Some(s)) => Exit::Signal(s),
                (None, None) => Exit::Code(-1),
            };
        }
        if Instant::now() >= deadline {
            // our own child, by its id
            let _ = child.kill();
            let _ = child.wait();
            break Exit::TimedOut;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let join = |h: Option<std::thread::JoinHandle<String>>| h.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(ChildRun { exit, stdout: join(out), stderr: join(err) })
}

/// The name of a signal.
pub fn signal_name(s: i32) -> String {
    match s {
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTRAP => "SIGTRAP".into(),
        _ => format!("signal {s}"),
    }
}

/// What a stage's child came to, before the stage reads its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Killed at the timeout.
    Hang,
    /// Ended by a signal: its name and the last line of stderr (Rust's "memory allocation of N
    /// bytes failed", a stack overflow, MuJoCo's abort message).
    Crash(String, String),
    /// A Rust panic: `panicked at FILE:LINE:COL:` and its message.
    Panic(String),
    /// A normal exit: code, stdout, stderr.
    Exited(i32, String, String),
}

/// Reads a child's end. A panic wins over the exit status: a panic inside a panic aborts, and a
/// panic on another thread may end in any code.
pub fn ended(run: ChildRun) -> Ended {
    if run.exit == Exit::TimedOut {
        return Ended::Hang;
    }
    if let Some(at) = run.stderr.find("panicked at") {
        let text: String = run.stderr[at..].lines().take(2).collect::<Vec<_>>().join(" ");
        return Ended::Panic(text.chars().take(300).collect());
    }
    let last = run.stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(300).collect();
    match run.exit {
        Exit::Signal(s) => Ended::Crash(signal_name(s), last),
        Exit::Code(c) => Ended::Exited(c, run.stdout, run.stderr),
        Exit::TimedOut => Ended::Hang,
    }
}

/// Whether specula's error message starts with `FILE:LINE:COL:`.
pub fn has_location(msg: &str) -> bool {
    // the path may hold colons itself: look for ":digits:digits:" anywhere before the text
    let b = msg.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b':' {
            let digits = |mut j: usize| {
                let s = j;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                (j > s).then_some(j)
            };
            if let Some(j) = digits(i + 1) {
                if b.get(j) == Some(&b':') {
                    if let Some(k) = digits(j + 1) {
                        if b.get(k) == Some(&b':') {
                            return true;
                        }
                    }
                }
            }
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_is_file_line_column() {
        assert!(has_location("/tmp/a.xml:1:20: nan size in geom"));
        assert!(has_location("c:/x:12:3: bad"));
        assert!(!has_location("/tmp/a.xml: Error: nan size, line 1"));
        assert!(!has_location("a.xml:12: bad"));
    }
}
