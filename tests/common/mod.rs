//! Helpers shared by the integration tests (each test crate uses some of them).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// MuJoCo's MJCF corpus, beside the repository (`<clone>/../shared/mjcf/corpus`): MuJoCo's own
/// files, which the repository does not hold. A test that needs it starts with
/// `let Some(corpus) = common::corpus() else { return };`: on a clone alone it says on stderr
/// that it was skipped and passes; with the corpus present it runs as always.
pub fn corpus() -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_none() {
        say_skipped("");
    }
    dir
}

/// The corpus file `rel` (a corpus that is present must hold it), or `None` after saying that
/// the test is skipped.
pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    corpus().map(|dir| file_in(&dir, rel))
}

/// The corpus file `rel` for one part of the running test (the rest runs on the repository's
/// own files), or `None` after saying that this part is skipped.
pub fn corpus_part(rel: &str) -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.is_none() {
        say_skipped(&format!(" on {rel}"));
    }
    dir.map(|dir| file_in(&dir, rel))
}

/// The corpus directory, if it is there.
fn corpus_dir() -> Option<PathBuf> {
    Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/mjcf/corpus")).filter(|d| d.is_dir())
}

/// `rel` in the corpus `dir`, which must hold it.
fn file_in(dir: &Path, rel: &str) -> PathBuf {
    let path = dir.join(rel);
    assert!(path.is_file(), "{} is missing from the corpus", path.display());
    path
}

/// One line on stderr: the running test (libtest names its thread after it) skipped `what`.
/// Written to the stream itself, past libtest's capture of `eprintln!`, so that a plain
/// `cargo test` shows it.
fn say_skipped(what: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {test}{what}: needs ../shared/mjcf/corpus (MuJoCo's MJCF files); put them there to run it"
    );
}

/// A small deterministic generator (xorshift64*), so random poses are the same on every run.
pub struct Rng(pub u64);

impl Rng {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }

    /// A unit quaternion from four uniform draws in [-1, 1), normalised (the norm floored at
    /// 1e-6).
    pub fn quat(&mut self) -> [f64; 4] {
        let v = [self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0)];
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-6);
        v.map(|x| x / n)
    }

    /// Standard normal (Box-Muller, cosine branch).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-300), self.next());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// A copy of the scene file `scene` that asks for specula's robust mode itself (the custom
/// numeric `specula_robust`, which MuJoCo ignores), written to `path`.
pub fn write_asking_robust(scene: &Path, path: &Path) {
    let text = std::fs::read_to_string(scene).unwrap();
    let at = text.find("<worldbody>").expect("the scene has a worldbody");
    let custom = r#"<custom><numeric name="specula_robust" data="1"/></custom>"#;
    std::fs::write(path, format!("{}{custom}\n  {}", &text[..at], &text[at..])).unwrap();
}

/// The repository's root folder.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>: the folder that holds the running test's deps/ (and libspecula.so).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// The libspecula.so built with this test: `cargo test` leaves it in deps/ (`cargo build`
/// copies it up to target/<profile>).
pub fn libspecula() -> PathBuf {
    let dir = profile_dir();
    let lib = [dir.join("deps/libspecula.so"), dir.join("libspecula.so")].into_iter().find(|p| p.is_file());
    lib.unwrap_or_else(|| panic!("libspecula.so was not built in {} (crate-type cdylib)", dir.display()))
}

/// Runs `program args` with exactly the SPECULA_* variables given (no others, no preload but
/// libspecula.so's when `preload`); the run must succeed.
pub fn run_dropin(
    program: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
    preload: bool,
) -> std::process::Output {
    use std::os::unix::ffi::OsStrExt;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    for (k, _) in std::env::vars_os() {
        if k.as_bytes().starts_with(b"SPECULA_") || k == "LD_PRELOAD" {
            cmd.env_remove(k);
        }
    }
    if preload {
        cmd.env("LD_PRELOAD", libspecula());
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    assert!(out.status.success(), "{} {args:?} failed: {}", program.display(), String::from_utf8_lossy(&out.stderr));
    out
}

/// Two free bodies alone in their trees (one with two welded children, its centre of mass off its
/// origin and a composite inertia; one ellipsoid), spinning over a plane from keyframe 0:
/// `implicitfast`'s own 6x6 solve for each (`docs/measurements.md` K14).
pub const FREE_BODIES: &str = r#"<mujoco>
  <option timestep="0.002" gravity="0.2 -0.1 -9.81"/>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="a" pos="0 0 1" quat="0.9 0.2 -0.3 0.1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" pos="0.05 -0.02 0.01"/>
      <body name="w1" pos="0.3 0.1 0" euler="10 20 30">
        <geom type="capsule" fromto="0 0 0 0.2 0.1 0" size="0.03"/>
        <body name="w2" pos="0.2 0.1 0"><geom type="sphere" size="0.06" pos="0 0 0.05"/></body>
      </body>
    </body>
    <body name="b" pos="1 0 0.5">
      <freejoint/>
      <geom type="ellipsoid" size="0.1 0.2 0.05"/>
    </body>
  </worldbody>
  <keyframe><key qpos="0 0 1 0.9 0.2 -0.3 0.1 1 0 0.5 1 0 0 0" qvel="0.3 -0.2 0.1 7 -5 9  0 0 0 -3 12 2"/></keyframe>
</mujoco>"#;
