//! The progress bar of a sweep on stderr: runs done, rate and time left, drawn by `indicatif`.
//!
//! By default it is drawn only when stderr is a terminal, so logs and pipes (a Slurm job's output
//! file) stay clean. `always` draws it anyway, to a plain stream: that is how the tests see it, and
//! how a user watching a log with `tail -f` can ask for it.

use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike};

/// When to draw the bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Only when stderr is a terminal.
    Auto,
    /// Always (to stderr, terminal or not).
    Always,
    /// Never.
    Never,
}

/// Stderr as a terminal of fixed width, for drawing the bar where stderr is not a terminal.
#[derive(Debug)]
struct PlainStderr;

impl TermLike for PlainStderr {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        // CSI 0 A would move by one: a move by nothing writes nothing.
        if n == 0 {
            return Ok(());
        }
        write!(io::stderr(), "\x1b[{n}A")
    }
    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        // CSI 0 B would move by one: a move by nothing writes nothing.
        if n == 0 {
            return Ok(());
        }
        write!(io::stderr(), "\x1b[{n}B")
    }
    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        // CSI 0 C would move by one: a move by nothing writes nothing.
        if n == 0 {
            return Ok(());
        }
        write!(io::stderr(), "\x1b[{n}C")
    }
    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        // CSI 0 D would move by one: a move by nothing writes nothing.
        if n == 0 {
            return Ok(());
        }
        write!(io::stderr(), "\x1b[{n}D")
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        writeln!(io::stderr(), "{s}")
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        write!(io::stderr(), "{s}")
    }
    fn clear_line(&self) -> io::Result<()> {
        write!(io::stderr(), "\r\x1b[2K")
    }
    fn flush(&self) -> io::Result<()> {
        io::stderr().flush()
    }
}

/// A sweep's progress bar (a no-op when hidden).
pub struct Progress {
    bar: ProgressBar,
    /// Drawn on a stream that is not a terminal: nothing wraps the padded last line, so the bar
    /// ends it itself.
    plain: bool,
}

impl Progress {
    /// A bar for `total` runs, drawn as `when` says.
    pub fn new(when: When, total: usize) -> Progress {
        let target = match when {
            When::Auto => ProgressDrawTarget::stderr(),
            When::Always => ProgressDrawTarget::term_like(Box::new(PlainStderr)),
            When::Never => ProgressDrawTarget::hidden(),
        };
        let style = ProgressStyle::with_template("[{bar:40}] {pos}/{len} runs, {rate}, {eta} left")
            .expect("the template is valid")
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} runs/s", s.per_sec());
            })
            .progress_chars("#>-");
        let bar = ProgressBar::with_draw_target(Some(total as u64), target).with_style(style);
        Progress { bar, plain: when == When::Always && !io::stderr().is_terminal() }
    }

    /// Counts one more finished run (runs finish in any order on the worker threads).
    pub fn tick(&self) {
        self.bar.inc(1);
    }

    /// Adds `n` runs to the total (the refinement runs, known only after the grid).
    pub fn add(&self, n: usize) {
        self.bar.inc_length(n as u64);
    }

    /// Draws the final state and leaves it on its line.
    pub fn finish(&self) {
        self.bar.finish();
        if self.plain {
            let _ = writeln!(io::stderr());
        }
    }
}
