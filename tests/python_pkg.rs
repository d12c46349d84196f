//! The Python package (`python/`, issue 12): `import mujoco, specula; specula.enable()` with no
//! preload and no environment variable. The tests build its wheel with maturin (`pip wheel .`
//! in the clone, as CI does on every run) and install it into a virtual environment under the target directory, filled from PyPI with
//! `mujoco==4.0.0` and maturin (and `gymnasium[mujoco]` for its environments), then run
//! `python/tests/check_enable.py`, `check_gymnasium.py` and `check_tools.py`, which compare every run with the same
//! run on plain MuJoCo in the same process, bit for bit, and check what specula counted. Without
//! PyPI (or pip, or crates.io for the build) they print SKIPPED and pass; any other failure of
//! the build fails them.
//!
//! One test needs no Python: the redirection of libmujoco's `mj_collision` slot itself
//! (`specula::capi::patch`), in this process.

mod common;
use common::{profile_dir, root};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use serde_json::Value;

/// The target directory: the virtual environment and the package's own build live there.
fn target_dir() -> PathBuf {
    profile_dir().parent().unwrap().to_path_buf()
}

/// Why a Python test cannot run here (it passes, saying so), or why it must fail.
#[derive(Clone, Debug)]
enum NoPython {
    Skip(String),
    Fail(String),
}

/// Variables a test process inherits that must not reach the Python programs or the package's
/// build: specula's own, preloads, library and module paths (cargo puts build folders on
/// LD_LIBRARY_PATH for tests), and what cargo sets for this package.
fn clean(cmd: &mut Command) -> &mut Command {
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        let cargo_set = k.starts_with("CARGO_PKG_")
            || k.starts_with("CARGO_BIN_EXE_")
            || ["CARGO_MANIFEST_DIR", "CARGO_MANIFEST_PATH", "CARGO_CRATE_NAME", "CARGO_PRIMARY_PACKAGE"]
                .contains(&k.as_str())
            || ["CARGO_TARGET_DIR", "CARGO_TARGET_TMPDIR", "MUJOCO_DIR"].contains(&k.as_str());
        if k.starts_with("SPECULA_")
            || ["LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"].contains(&k.as_str())
            || cargo_set
        {
            cmd.env_remove(&k);
        }
    }
    cmd
}

fn output(cmd: &mut Command) -> Result<Output, String> {
    clean(cmd).output().map_err(|e| format!("cannot run {cmd:?}: {e}"))
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// The last lines of a long output.
fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// What a failed pip run said: its last error line, or its last lines.
fn reason(out: &Output) -> String {
    let all = text(out);
    all.lines()
        .rev()
        .find(|l| l.contains("ERROR") || l.contains("error:"))
        .map_or_else(|| tail(&all, 3), str::to_string)
}

/// Whether a failed pip or cargo run failed for want of the network.
fn network_failure(s: &str) -> bool {
    [
        "Could not find a version",
        "No matching distribution",
        "NewConnectionError",
        "Network is unreachable",
        "Temporary failure in name resolution",
        "Failed to establish a new connection",
        "failed to download",
        "failed to get",
        "Couldn't resolve host",
        "failed to query replaced source registry",
        "ConnectTimeout",
        "ReadTimeout",
    ]
    .iter()
    .any(|m| s.contains(m))
}

fn pip(py: &Path, args: &[&str]) -> Result<Output, String> {
    output(Command::new(py).args(["-m", "pip", "--disable-pip-version-check"]).args(args))
}

/// The virtual environment's python with mujoco 4.0.0 and the package installed (built once
/// per run of this test binary).
fn python() -> Result<PathBuf, NoPython> {
    static PY: OnceLock<Result<PathBuf, NoPython>> = OnceLock::new();
    PY.get_or_init(setup).clone()
}

fn setup() -> Result<PathBuf, NoPython> {
    let venv = target_dir().join("python-pkg-venv");
    let py = venv.join("bin/python");
    let python3 = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    if !py.is_file() {
        let made = output(Command::new(&python3).arg("-m").arg("venv").arg(&venv));
        if !made.as_ref().is_ok_and(|o| o.status.success()) {
            let why = made.map_or_else(|e| e, |o| reason(&o));
            return Err(NoPython::Skip(format!("cannot create a virtual environment with {python3} -m venv: {why}")));
        }
    }
    let has = |code: &str| output(Command::new(&py).args(["-c", code])).is_ok_and(|o| o.status.success());
    if !has("import mujoco, maturin; assert mujoco.__version__ == '4.0.0'") {
        let out = pip(&py, &["install", "--quiet", "mujoco==4.0.0", "maturin>=1.5,<2"]);
        if !has("import mujoco, maturin; assert mujoco.__version__ == '4.0.0'") {
            let why = out.map_or_else(|e| e, |o| reason(&o));
            return Err(NoPython::Skip(format!(
                "could not fill {} with `pip install mujoco==4.0.0 maturin` (is PyPI reachable?): {why}",
                venv.display()
            )));
        }
    }
    // The package's wheel, built as `pip wheel .` (in the clone) builds it for a user, but reusing this
    // environment's maturin and mujoco-core (its headers and library are what the build compiles
    // against) instead of an isolated build environment, and with the Rust build kept in the
    // target directory so that the next run only rebuilds what changed; then installed from it.
    let start = Instant::now();
    let wheels = wheel_dir();
    if let Ok(old) = std::fs::read_dir(&wheels) {
        for w in old.flatten().filter(|w| w.file_name().to_string_lossy().ends_with(".whl")) {
            let _ = std::fs::remove_file(w.path());
        }
    }
    let path = format!("{}:{}", venv.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let out = output(
        Command::new(&py)
            .args(["-m", "pip", "--disable-pip-version-check", "wheel", "--quiet", "--no-build-isolation", "--no-deps"])
            .arg("--wheel-dir")
            .arg(&wheels)
            .arg(root())
            .env("PATH", path)
            .env("CARGO_TARGET_DIR", target_dir().join("python-pkg")),
    )
    .map_err(NoPython::Fail)?;
    if !out.status.success() {
        let all = text(&out);
        if network_failure(&all) {
            return Err(NoPython::Skip(format!("building the package needs crates.io: {}", tail(&all, 5))));
        }
        return Err(NoPython::Fail(format!("pip wheel . failed:\n{}", tail(&all, 40))));
    }
    let wheel = built_wheel().map_err(NoPython::Fail)?;
    let out = pip(&py, &["install", "--quiet", "--force-reinstall", "--no-deps", &wheel.to_string_lossy()])
        .map_err(NoPython::Fail)?;
    if !out.status.success() {
        return Err(NoPython::Fail(format!("pip install {} failed:\n{}", wheel.display(), tail(&text(&out), 40))));
    }
    eprintln!("built and installed the package in {:.0} s", start.elapsed().as_secs_f64());
    Ok(py)
}

/// Where the tests build the package's wheel.
fn wheel_dir() -> PathBuf {
    target_dir().join("python-pkg-wheels")
}

/// The one wheel in [`wheel_dir`].
fn built_wheel() -> Result<PathBuf, String> {
    let found: Vec<PathBuf> = std::fs::read_dir(wheel_dir())
        .map_err(|e| format!("{}: {e}", wheel_dir().display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    match &found[..] {
        [one] => Ok(one.clone()),
        _ => Err(format!("expected one wheel in {}, found {found:?}", wheel_dir().display())),
    }
}

/// The environment's python, or None after printing why the test is skipped (a failure to
/// build panics).
fn python_or_skip(test: &str) -> Option<PathBuf> {
    match python() {
        Ok(py) => Some(py),
        Err(NoPython::Skip(why)) => {
            eprintln!("SKIPPED: {test}: {why}");
            None
        }
        Err(NoPython::Fail(why)) => panic!("{why}"),
    }
}

/// Runs a Python check script; returns its output and the JSON summary on its last line.
fn run_check(py: &Path, script: &str, args: &[&str], env: &[(&str, &Path)]) -> (String, Value) {
    let mut cmd = Command::new(py);
    cmd.arg(root().join("python/tests").join(script)).args(args).current_dir(target_dir());
    clean(&mut cmd);
    cmd.envs(env.iter().map(|(k, v)| (k, v.as_os_str())));
    let start = Instant::now();
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    let all = text(&out);
    assert!(out.status.success(), "{script} {args:?} failed:\n{all}");
    eprintln!("{script} {args:?} ({:.1} s):\n{}", start.elapsed().as_secs_f64(), String::from_utf8_lossy(&out.stdout));
    let last = String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_string();
    let summary = serde_json::from_str(&last).unwrap_or_else(|e| panic!("{script}: no summary ({e}):\n{all}"));
    (all, summary)
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("no {key} in {v}"))
}

fn project_scenes() -> usize {
    std::fs::read_dir(root().join("scenes"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "xml"))
        .count()
}

#[test]
fn enable_steps_every_project_scene_bit_for_bit_and_disable_restores_mujoco() {
    let Some(py) = python_or_skip("enable_steps_every_project_scene_bit_for_bit_and_disable_restores_mujoco") else {
        return;
    };
    let (_, s) = run_check(&py, "check_enable.py", &[], &[]);
    let scenes = project_scenes();
    assert!(scenes >= 6);
    // rust mode: contacts and states after each of 1000 steps, bit for bit, every call served.
    assert_eq!(num(&s, "rust_bitwise_scenes") as usize, scenes, "{s}");
    // diff mode: every scene as it is and without speculative contacts, 1000 calls each.
    assert_eq!(num(&s, "diff_calls") as usize, 2 * scenes * 1000, "{s}");
    assert_eq!(num(&s, "diff_mismatches"), 0.0, "{s}");
    assert!(num(&s, "diff_contacts") > 10_000.0, "{s}");
    // thin_parts.xml: MuJoCo lets a part through the pane (bottom at 0.295 m), robust mode none.
    assert!(num(&s, "compat_lowest") < 0.295, "{s}");
    assert!(num(&s, "robust_lowest") > 0.295, "{s}");
    assert_eq!(num(&s, "thread_rust_calls"), 4000.0, "{s}");
    assert!(num(&s, "rollout_rust_calls") >= 4000.0, "{s}");
}

#[test]
fn enable_refuses_when_libspecula_so_already_takes_the_calls() {
    let Some(py) = python_or_skip("enable_refuses_when_libspecula_so_already_takes_the_calls") else { return };
    let dir = profile_dir();
    let lib = [dir.join("deps/libspecula.so"), dir.join("libspecula.so")].into_iter().find(|p| p.is_file());
    let lib = lib.unwrap_or_else(|| panic!("libspecula.so was not built in {}", dir.display()));
    let (out, s) = run_check(&py, "check_enable.py", &["--expect-foreign"], &[("LD_PRELOAD", &lib)]);
    assert_eq!(s["foreign_refused"], true, "{out}");
    assert!(out.contains("libspecula.so"), "{out}");
}

#[test]
fn diff_mode_catches_a_broken_collider_from_python() {
    let Some(py) = python_or_skip("diff_mode_catches_a_broken_collider_from_python") else { return };
    let on = Path::new("1");
    let (out, s) = run_check(&py, "check_enable.py", &["--expect-broken-diff"], &[("SPECULA_TEST_BREAK", on)]);
    // 1e-3 added to every Rust contact's distance: every call with contacts mismatches
    // (measured: 857 of 1000; the ball flies without a contact during the others).
    assert!(num(&s, "broken_mismatches") >= 800.0, "{out}");
    assert!(out.contains("worst error 1.000e-3"), "{out}");
}

#[test]
fn with_specula_collision_set_importing_mujoco_enables_specula() {
    let Some(py) = python_or_skip("with_specula_collision_set_importing_mujoco_enables_specula") else { return };
    let args = ["--autoenabled", "--steps", "200"];
    let (out, s) = run_check(&py, "check_enable.py", &args, &[("SPECULA_COLLISION", Path::new("rust"))]);
    // The script imports only mujoco: the start-up hook imported specula and enabled it before
    // the model was compiled (the compiler's call is counted too).
    assert_eq!(s["imported"], true, "{out}");
    assert_eq!(s["state"], serde_json::json!([true, "rust", null]), "{out}");
    assert_eq!((num(&s, "calls"), num(&s, "rust_calls")), (201.0, 201.0), "{out}");
    let env = [("SPECULA_COLLISION", Path::new("rust")), ("SPECULA_SPECULATIVE", Path::new("robust"))];
    let (out, s) = run_check(&py, "check_enable.py", &args, &env);
    assert_eq!(s["state"], serde_json::json!([true, "rust", "robust"]), "{out}");
    // A bad value: one line on stderr, MuJoCo's collision, the program runs on.
    let (out, s) = run_check(&py, "check_enable.py", &args, &[("SPECULA_COLLISION", Path::new("fast"))]);
    assert!(out.contains("specula: SPECULA_COLLISION='fast': not enabled"), "{out}");
    assert_eq!(s["state"][0], false, "{out}");
    assert_eq!(num(&s, "calls"), 0.0, "{out}");
    // Unset: nothing is imported.
    let (out, s) = run_check(&py, "check_enable.py", &args, &[]);
    assert_eq!(s["imported"], false, "{out}");
}

#[test]
fn import_refuses_a_mujoco_that_is_not_4_0_0() {
    let Some(py) = python_or_skip("import_refuses_a_mujoco_that_is_not_4_0_0") else { return };
    let (out, s) = run_check(&py, "check_enable.py", &["--fake-version"], &[]);
    assert_eq!(s["version_refused"], true, "{out}");
}

#[test]
fn check_diff_sweep_and_load_work_from_python_with_errors_as_exceptions() {
    let Some(py) = python_or_skip("check_diff_sweep_and_load_work_from_python_with_errors_as_exceptions") else {
        return;
    };
    let (_, s) = run_check(&py, "check_tools.py", &["--cli", env!("CARGO_BIN_EXE_specula")], &[]);
    assert!(num(&s, "check_fields") > 100.0, "{s}");
    assert!(num(&s, "sweep_runs") > 10.0, "{s}");
    assert_eq!(s["sweep_compared_with_cli"], Value::Bool(true), "{s}");
    assert!(num(&s, "load_arrays") > 50.0, "{s}");
    assert!(num(&s, "diff_contacts") > 0.0, "{s}");
}

/// The wheel a user gets: specula's extension module and Python files, no copy of libmujoco, and
/// a module that names libmujoco by soname only (no rpath, no runpath into a build directory),
/// so it binds to the copy the `mujoco` package loaded.
#[test]
fn the_wheel_holds_no_libmujoco_and_links_it_by_soname_only() {
    let Some(py) = python_or_skip("the_wheel_holds_no_libmujoco_and_links_it_by_soname_only") else {
        return;
    };
    let wheel = built_wheel().unwrap();
    let unpacked = target_dir().join("python-pkg-wheel-unpacked");
    let _ = std::fs::remove_dir_all(&unpacked);
    let code = "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); z.extractall(sys.argv[2]); print('\\n'.join(z.namelist()))";
    let out = output(Command::new(&py).args(["-c", code]).arg(&wheel).arg(&unpacked)).unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let names = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(names.lines().any(|n| n == "specula/__init__.py"), "{names}");
    // the start-up hook works only from the top of site-packages
    assert!(names.lines().any(|n| n == "specula_autoenable.pth"), "{names}");
    assert!(names.lines().any(|n| n == "_specula_autoenable.py"), "{names}");
    assert!(!names.contains("libmujoco"), "the wheel must not vendor libmujoco:\n{names}");
    let modules: Vec<&str> = names.lines().filter(|n| n.starts_with("specula/_native") && n.ends_with(".so")).collect();
    assert_eq!(modules.len(), 1, "{names}");
    assert!(modules[0].contains("abi3"), "an abi3 module: {}", modules[0]);
    let so = unpacked.join(modules[0]);
    let Ok(elf) = Command::new("readelf").arg("-d").arg(&so).output() else {
        eprintln!(
            "SKIPPED: the_wheel_holds_no_libmujoco_and_links_it_by_soname_only: no readelf to read {}",
            so.display()
        );
        return;
    };
    let dynamic = String::from_utf8_lossy(&elf.stdout);
    assert!(dynamic.contains("Shared library: [libmujoco.so.4.0.0]"), "{dynamic}");
    assert!(!dynamic.contains("RPATH") && !dynamic.contains("RUNPATH"), "no rpath or runpath:\n{dynamic}");
}

#[test]
fn gymnasium_environments_step_bit_for_bit_with_mujoco() {
    let test = "gymnasium_environments_step_bit_for_bit_with_mujoco";
    let Some(py) = python_or_skip(test) else { return };
    let has = || output(Command::new(&py).args(["-c", "import gymnasium"])).is_ok_and(|o| o.status.success());
    if !has() {
        let out = pip(&py, &["install", "--quiet", "gymnasium[mujoco]==1.4.0"]);
        if !has() {
            let why = out.map_or_else(|e| e, |o| reason(&o));
            eprintln!("SKIPPED: {test}: could not `pip install gymnasium[mujoco]==1.4.0` (is PyPI reachable?): {why}");
            return;
        }
    }
    let (_, s) = run_check(&py, "check_gymnasium.py", &[], &[]);
    // Eleven environments, 1000 steps of seeded random actions each: observations, rewards and
    // terminations bit for bit in rust and diff modes, every call served by Rust, no mismatch.
    assert_eq!(num(&s, "envs"), 11.0, "{s}");
    assert_eq!(num(&s, "bitwise"), 11.0, "{s}");
    assert_eq!(num(&s, "mismatches"), 0.0, "{s}");
    assert!(num(&s, "rust_calls") > 100_000.0, "{s}");
    assert_eq!(num(&s, "rust_calls"), num(&s, "diff_calls"), "{s}");
}

/// Serialises the in-process test's use of the process-wide slot and modes.
static IN_PROCESS: Mutex<()> = Mutex::new(());

/// qpos after `steps` steps of the ball thrown onto the plate, and the collision calls that
/// reached specula meanwhile.
fn throw(steps: usize) -> (Vec<u64>, u64) {
    let m = specula::mj::Model::from_xml_path(root().join("scenes/ball_plate.xml")).unwrap();
    let mut d = specula::mj::Data::new(&m).unwrap();
    d.reset_keyframe(0).unwrap();
    let before = specula::capi::snapshot();
    for _ in 0..steps {
        d.step().unwrap();
    }
    let served = specula::capi::snapshot().rust_calls - before.rust_calls;
    (d.qpos().iter().map(|q| q.to_bits()).collect(), served)
}

extern "C-unwind" fn someone_else_s_collision(_m: *const mujoco_sys::mjModel, _d: *mut mujoco_sys::mjData) {}

#[test]
fn the_mj_collision_slot_is_redirected_and_restored_in_this_process() {
    use specula::capi::patch::{self, Outcome, PatchError};
    let _guard = IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    let slots = patch::slots().unwrap();
    assert_eq!(slots.len(), 1, "{slots:?}");
    let slot = &slots[0];
    // This test binary exports specula's mj_collision, so the loader bound libmujoco's slot to it.
    assert_eq!(slot.value, patch::entry(), "{slot:?}");
    // Make the process look like Python's: the slot holds MuJoCo's own function, as loaded.
    // SAFETY: MuJoCo's own mj_collision, into its own slot.
    unsafe { patch::store(slot, slot.own) }.unwrap();
    specula::capi::set_mode(specula::capi::Mode::Rust);
    let (plain, served) = throw(300);
    assert_eq!(served, 0, "the calls reached specula with MuJoCo's own function in the slot");

    assert_eq!(patch::install().unwrap(), Outcome { changed: 1, copies: 1 });
    assert_eq!(patch::install().unwrap(), Outcome { changed: 0, copies: 1 }, "install is not idempotent");
    assert!(patch::installed());
    let (rust, served) = throw(300);
    assert_eq!(served, 300, "installed, every step's collision call is served by the Rust stage");
    assert_eq!(plain, rust, "the thrown ball does not land as with MuJoCo's collision");

    assert_eq!(patch::uninstall().unwrap(), Outcome { changed: 1, copies: 1 });
    assert_eq!(patch::uninstall().unwrap().changed, 0, "uninstall is not idempotent");
    assert_eq!(patch::slots().unwrap()[0].value, slot.own);
    assert_eq!(throw(300).1, 0, "uninstalled, calls still reach specula");

    // Someone else's function in the slot: refused, nothing written.
    let foreign = someone_else_s_collision as *const () as usize;
    // SAFETY: a function with mj_collision's signature (it adds no contact).
    unsafe { patch::store(slot, foreign) }.unwrap();
    let err = patch::install().unwrap_err();
    assert!(matches!(err, PatchError::Foreign { found, .. } if found == foreign), "{err}");
    assert!(err.to_string().contains("python_pkg"), "the owner (this test program) is not named: {err}");
    assert_eq!(patch::slots().unwrap()[0].value, foreign);
    assert!(!patch::installed());

    // Leave the process as the loader made it.
    // SAFETY: the value the loader had put there.
    unsafe { patch::store(slot, slot.value) }.unwrap();
    specula::capi::set_mode(specula::capi::Mode::C);
}
