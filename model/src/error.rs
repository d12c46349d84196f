//! Errors that point at the place in an MJCF file that caused them.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// A place in an MJCF file: the file, and the 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The file the text came from (a pseudo-name such as `<string>` for in-memory XML).
    pub file: Arc<PathBuf>,
    /// 1-based line; 0 when the error concerns the file as a whole (it cannot be read, or is not UTF-8).
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// An MJCF reading or compiling error, with where it happened and what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct MjcfError {
    /// Where the offending text starts.
    pub pos: Position,
    /// What was wrong and what was expected.
    pub message: String,
}

impl MjcfError {
    /// An error at `pos` with the given message.
    pub fn new(pos: Position, message: impl Into<String>) -> Self {
        MjcfError { pos, message: message.into() }
    }
}
