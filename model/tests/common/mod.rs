//! The model crate tests' one helper module: where MuJoCo's MJCF corpus is, and number
//! comparisons.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// MuJoCo's MJCF corpus, beside the repository (`<clone>/../shared/mjcf/corpus`): MuJoCo's own
/// files, which the repository does not hold. A test that needs it starts with
/// `let Some(corpus) = common::corpus() else { return };`: on a clone alone it says on stderr
/// that it was skipped and passes; with the corpus present it runs as always.
pub fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/mjcf/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    // libtest runs each test on a thread named after it. The line goes to the stream itself,
    // past libtest's capture of `eprintln!`, so that a plain `cargo test` shows it.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {test}: needs ../shared/mjcf/corpus (MuJoCo's MJCF files); put them there to run it"
    );
    None
}

/// The corpus file `rel` (a corpus that is present must hold it), or `None` after saying that
/// the test is skipped.
pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    let path = corpus()?.join(rel);
    assert!(path.is_file(), "{} is missing from the corpus", path.display());
    Some(path)
}

/// Asserts that two slices agree element-wise within `tol`, relative to `|b|` above 1.
pub fn assert_close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * y.abs().max(1.0), "{a:?} vs {b:?}");
    }
}

/// Asserts that two slices agree element-wise within the absolute `tol`.
pub fn assert_close_abs(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol, "{a:?} vs {b:?}");
    }
}

/// Whether `a` is within `tol` of `b` relative to `|b|` (however small).
pub fn close_rel(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}
