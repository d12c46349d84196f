//! libspecula.so as a drop-in for unmodified MuJoCo programs: the C examples (built by build.rs
//! against libmujoco only) and the Python example, run with `LD_PRELOAD=libspecula.so`, must step
//! exactly like the same program without it; diff mode must agree on the project's scenes and
//! catch a deliberately broken collider; bad configuration must warn once and behave like C.
//! What runs on the corpus's box stack is skipped, saying so, without the corpus.

mod common;
use common::{libspecula, profile_dir, root, run_dropin};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const STEPS: usize = 1000;

/// The corpus's box stack (only analytic pairs).
const BOX_STACK: &str = "local/box_stack.xml";

/// Serialises the tests that run MuJoCo inside this process: the drop-in mode set by the C API's
/// Rust side is process-wide, so an in-process `specula diff` must not run while another test has
/// switched it to `rust`.
static IN_PROCESS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn scenes() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        // the native route's scene touches nothing: no contacts for the collision stage
        .filter(|p| !p.ends_with("pendulum.xml"))
        .collect();
    v.sort();
    assert!(v.len() >= 5, "the project's scenes are missing");
    v
}

/// A scratch directory of this test run (inside the target directory).
fn scratch(name: &str) -> PathBuf {
    let dir = profile_dir().join("dropin").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn example(var: &str) -> PathBuf {
    let p = PathBuf::from(var);
    assert!(p.is_file(), "{} was not built by build.rs (see the cargo warnings)", p.display());
    p
}

fn step_exe() -> PathBuf {
    example(env!("SPECULA_EXAMPLE_STEP"))
}

/// Runs `program args` with the SPECULA_* variables given (and no others), preloading
/// libspecula.so when `preload` (`common::run_dropin` with text values).
fn run(program: &Path, args: &[&str], env: &[(&str, &str)], preload: bool) -> Output {
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|&(k, v)| (k, std::ffi::OsStr::new(v))).collect();
    run_dropin(program, args, &env, preload)
}

/// qpos per step from the examples' output ("step q0 q1 ...").
fn trajectory(out: &Output) -> Vec<Vec<f64>> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split_whitespace().skip(1).map(|x| x.parse::<f64>().unwrap()).collect())
        .collect()
}

fn max_diff(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    assert_eq!(a.len(), b.len(), "trajectories of different lengths");
    let mut worst: f64 = 0.0;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.len(), y.len());
        for (p, q) in x.iter().zip(y) {
            let d = (p - q).abs();
            worst = if d.is_nan() { f64::INFINITY } else { worst.max(d) };
        }
    }
    worst
}

fn bitwise(a: &[Vec<f64>], b: &[Vec<f64>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.iter().map(|v| v.to_bits()).eq(y.iter().map(|v| v.to_bits())))
}

/// The diff verdict's rule: bitwise, or max |Δqpos| within ten times the noise floor (how far
/// the plain program drifts from itself after a 1e-12 nudge of qpos) plus 1e-12.
fn assert_agree(scene: &Path, plain: &[Vec<f64>], other: &[Vec<f64>], what: &str) {
    if bitwise(plain, other) {
        return;
    }
    let s = scene.to_str().unwrap();
    let nudged = trajectory(&run(&step_exe(), &[s, &STEPS.to_string(), "1e-12"], &[], false));
    let floor = max_diff(plain, &nudged);
    let diff = max_diff(plain, other);
    assert!(diff <= 10.0 * floor + 1e-12, "{}: {what}: max |dqpos| {diff:e}, noise floor {floor:e}", scene.display());
}

fn report(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("no report {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn n(r: &Value, key: &str) -> u64 {
    r[key].as_u64().unwrap_or_else(|| panic!("report has no {key}: {r}"))
}

/// Runs the C step example on `scene` plain and preloaded in `mode`; returns both
/// trajectories and the report.
fn preloaded(scene: &Path, mode: &str, extra: &[(&str, &str)], tag: &str) -> (Vec<Vec<f64>>, Vec<Vec<f64>>, Value) {
    let s = scene.to_str().unwrap();
    let steps = STEPS.to_string();
    let plain = trajectory(&run(&step_exe(), &[s, &steps], &[], false));
    let rep = scratch("reports").join(format!("{tag}.json"));
    let rep_s = rep.to_str().unwrap();
    let mut env = vec![("SPECULA_COLLISION", mode), ("SPECULA_REPORT", rep_s)];
    env.extend_from_slice(extra);
    let out = run(&step_exe(), &[s, &steps], &env, true);
    assert!(out.stderr.is_empty(), "unexpected stderr: {}", String::from_utf8_lossy(&out.stderr));
    (plain, trajectory(&out), report(&rep))
}

#[test]
fn c_example_preloaded_matches_mujoco_on_the_corpus_box_stack() {
    let Some(scene) = common::corpus_file(BOX_STACK) else { return };
    let (plain, rust, r) = preloaded(&scene, "rust", &[], "box_stack_rust");
    assert_eq!(plain.len(), STEPS);
    assert_agree(&scene, &plain, &rust, "rust preload");
    // Measured: bitwise-equal (the box stack has only analytic pairs).
    assert!(bitwise(&plain, &rust), "box stack is no longer bitwise: {:e}", max_diff(&plain, &rust));
    // One call per step, plus one from the compiler inside mj_loadXML; all served by Rust.
    assert_eq!(n(&r, "calls"), STEPS as u64 + 1, "{r}");
    assert_eq!(n(&r, "rust_calls"), n(&r, "calls"), "{r}");
    assert_eq!(n(&r, "fallback_calls"), 0, "{r}");
    assert!(n(&r, "contacts") > 1000, "{r}");
    assert_eq!(r["mode"], "rust");
}

#[test]
fn rk4_collisions_inside_the_integrator_are_replaced_too() {
    let xml = r#"<mujoco><option timestep="0.002" integrator="RK4"/>
        <worldbody><geom type="plane" size="2 2 .1"/>
          <body pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
          <body pos="0.02 0.01 .4" euler="10 20 30"><freejoint/><geom type="box" size=".1 .08 .06"/></body>
          <body pos="0 0 .7"><freejoint/><geom type="capsule" size=".05 .1"/></body>
        </worldbody></mujoco>"#;
    let scene = scratch("scenes").join("rk4_stack.xml");
    std::fs::write(&scene, xml).unwrap();
    let (plain, rust, r) = preloaded(&scene, "rust", &[], "rk4");
    assert!(bitwise(&plain, &rust), "RK4: max |dqpos| {:e}", max_diff(&plain, &rust));
    // RK4 collides four times per step (three more inside mj_RungeKutta). Measured: loading the
    // RK4 model makes 4 calls too (1 for the Euler scenes).
    assert_eq!(n(&r, "rust_calls"), 4 * (STEPS as u64 + 1), "{r}");
    assert_eq!(n(&r, "calls"), n(&r, "rust_calls"), "{r}");
}

#[test]
fn dynamics_stages_preloaded_give_mujocos_trajectory_bit_for_bit() {
    // hinges, a ball joint and a free body, under RK4 (each stage four times a step)
    let xml = r#"<mujoco><option timestep="0.002" integrator="RK4"/>
        <worldbody><geom type="plane" size="2 2 .1"/>
          <body pos="0 0 1"><joint name="j0" type="hinge" axis="0 1 0" damping="0.05"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
            <body pos=".3 0 0"><joint type="ball"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
              <body pos=".3 0 0"><joint type="hinge" axis="1 0 0"/><geom type="sphere" size=".05"/></body></body></body>
          <body pos=".5 .5 .3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        </worldbody>
        <actuator><motor joint="j0" gear="2" armature="0.01"/></actuator></mujoco>"#;
    let scene = scratch("scenes").join("stages_chain.xml");
    std::fs::write(&scene, xml).unwrap();
    let (plain, staged, r) = preloaded(&scene, "c", &[("SPECULA_STAGES", "all")], "stages");
    assert_eq!(plain.len(), STEPS);
    assert!(bitwise(&plain, &staged), "max |dqpos| {:e}", max_diff(&plain, &staged));
    // every stage ran in Rust, four times a step (the solver's calls with rows that need Newton
    // iterations are MuJoCo's so far: counted, with their reason)
    let every: Vec<&str> = specula::mj::stages::Stage::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(r["stages"]["selected"], every.join(","), "{r}");
    assert_eq!(every.len(), 19);
    for (name, calls) in r["stages"]["calls"].as_object().unwrap() {
        let (rust, fallback) = (calls["rust"].as_u64().unwrap(), calls["fallback"].as_u64().unwrap());
        if ["euler", "implicit"].contains(&name.as_str()) {
            // RK4 reaches neither the Euler nor the implicit step
            assert_eq!((rust, fallback), (0, 0), "{name}: {r}");
        } else if name == "RungeKutta" {
            // the step's integrator itself, once a step
            assert!(rust >= STEPS as u64 && fallback == 0, "{name}: {r}");
        } else if name == "fwdConstraint" {
            assert!(rust > 0 && rust + fallback >= 4 * STEPS as u64, "{name}: {r}");
        } else {
            assert!(rust >= 4 * STEPS as u64, "{name}: {r}");
            assert_eq!(fallback, 0, "{name}: {r}");
        }
    }
    // and the comparison can fail: a broken stage list is refused with a message
    let s = scene.to_str().unwrap();
    let out = run(&step_exe(), &[s, "10"], &[("SPECULA_STAGES", "crb,solver")], true);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown stage 'solver'"), "{out:?}");
}

/// Whether `specula diff` (in-process, same start and number of steps as the examples: the first
/// keyframe when there is one) calls the Rust stage a match for `scene`.
fn diff_says_match(scene: &Path) -> bool {
    let _guard = IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    let c = specula::mj::Model::from_xml_path(scene).unwrap();
    let r = specula_model::load_file(scene).unwrap();
    let start = if c.nkey() > 0 { specula::sim::Start::Key("0".into()) } else { specula::sim::Start::Qpos0 };
    let opts = specula::diff::DiffOptions { steps: STEPS, start };
    specula::diff::diff(&c, &r, &opts).unwrap().matches()
}

#[test]
fn c_example_preloaded_on_the_project_scenes_agrees_with_specula_diff() {
    for scene in scenes() {
        let tag = format!("scene_{}", scene.file_stem().unwrap().to_string_lossy());
        let (plain, rust, r) = preloaded(&scene, "rust", &[], &tag);
        let (calls, served) = (n(&r, "calls"), n(&r, "rust_calls"));
        assert_eq!(calls, STEPS as u64 + 1, "{}: {r}", scene.display());
        // Every call is served by the Rust stage (speculative contacts included): no silent fallback.
        assert_eq!(served, calls, "{}: {r}", scene.display());
        // `specula diff` calls every project scene a match, so the preloaded program must agree
        // with the plain one as the diff defines it
        assert!(diff_says_match(&scene), "{}: `specula diff` no longer says match", scene.display());
        assert_agree(&scene, &plain, &rust, "rust preload");
    }
}

/// The project scene with speculative contacts switched off, so that diff mode has contacts of
/// the Rust stage to compare (written to the scratch directory; the scenes use no files).
fn without_speculative(scene: &Path) -> PathBuf {
    let xml = std::fs::read_to_string(scene).unwrap().replace(r#"speculative="enable""#, r#"speculative="disable""#);
    let p = scratch("scenes").join(scene.file_name().unwrap());
    std::fs::write(&p, xml).unwrap();
    p
}

#[test]
fn diff_mode_finds_no_mismatch_on_the_project_scenes() {
    for scene in scenes() {
        let stem = scene.file_stem().unwrap().to_string_lossy().to_string();
        for (variant, file) in [("as_is", scene.clone()), ("nospec", without_speculative(&scene))] {
            let (plain, kept, r) = preloaded(&file, "diff", &[], &format!("diff_{stem}_{variant}"));
            // Diff mode keeps MuJoCo's contacts: the trajectory is MuJoCo's, bit for bit.
            assert!(bitwise(&plain, &kept), "{}: diff mode changed the trajectory", file.display());
            assert_eq!(n(&r, "diff_calls") + n(&r, "fallback_calls"), n(&r, "calls"), "{r}");
            // Zero mismatches on every project scene, with and without speculative contacts.
            assert_eq!(n(&r, "diff_calls"), STEPS as u64 + 1, "{}: {r}", file.display());
            assert!(n(&r, "diff_contacts") > 0, "{}: nothing was compared: {r}", file.display());
            assert_eq!(n(&r, "mismatches"), 0, "{}: {r}", file.display());
        }
    }
}

#[test]
fn diff_mode_catches_a_broken_collider() {
    let Some(scene) = common::corpus_file(BOX_STACK) else { return };
    let (plain, kept, r) = preloaded(&scene, "diff", &[("SPECULA_TEST_BREAK", "1")], "diff_broken");
    assert!(bitwise(&plain, &kept));
    assert_eq!(r["test_break"], true);
    // Every call with contacts disagrees by 1e-3 in dist; the first (the compiler's, before
    // anything touches) may have none.
    assert!(n(&r, "mismatches") >= STEPS as u64, "{r}");
    assert!(r["mismatch_examples"][0].as_str().unwrap().contains("worst error 1.000e-3"), "{r}");
    // The hook is honoured only in diff mode: in rust mode it changes nothing.
    let (plain, rust, r) = preloaded(&scene, "rust", &[("SPECULA_TEST_BREAK", "1")], "rust_break_ignored");
    assert!(bitwise(&plain, &rust));
    assert_eq!(n(&r, "mismatches"), 0);
}

#[test]
fn four_threads_on_one_model_agree_with_one_thread() {
    let Some(scene) = common::corpus_file(BOX_STACK) else { return };
    let s = scene.to_str().unwrap();
    let steps = STEPS.to_string();
    let single = trajectory(&run(&step_exe(), &[s, &steps], &[], false));
    let last = single.last().unwrap();
    let rep = scratch("reports").join("threads.json");
    let threads = example(env!("SPECULA_EXAMPLE_THREADS"));
    let env = [("SPECULA_COLLISION", "rust"), ("SPECULA_REPORT", rep.to_str().unwrap())];
    let out = run(&threads, &[s, &steps], &env, true);
    // Lines are "thread T q0 q1 ...".
    let text = String::from_utf8_lossy(&out.stdout);
    let finals: Vec<Vec<f64>> =
        text.lines().map(|l| l.split_whitespace().skip(2).map(|x| x.parse().unwrap()).collect()).collect();
    assert_eq!(finals.len(), 4);
    for (t, q) in finals.iter().enumerate() {
        assert!(q.iter().map(|v| v.to_bits()).eq(last.iter().map(|v| v.to_bits())), "thread {t} differs");
    }
    let r = report(&rep);
    assert_eq!(n(&r, "rust_calls"), 4 * STEPS as u64 + 1, "{r}");
    // One collision model per thread (and the compiler's call on the main thread).
    assert!((4..=5).contains(&n(&r, "model_builds")), "{r}");
}

#[test]
fn linked_build_uses_specula_through_its_header() {
    // step.c again, compiled with -DSPECULA_LINKED and linked against libspecula.so ahead of
    // libmujoco (no LD_PRELOAD): it prints specula_stats() on stderr.
    let lib = libspecula();
    let exe = scratch("linked").join("step_linked");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let (mjinc, mjlib) = (env!("SPECULA_MUJOCO_INCLUDE"), env!("SPECULA_MUJOCO_LIB_DIR"));
    let libdir = lib.parent().unwrap().to_str().unwrap().to_string();
    let status = Command::new(&cc)
        .arg("-DSPECULA_LINKED")
        .arg(root().join("examples/c/step.c"))
        .args(["-I", mjinc, "-I"])
        .arg(root().join("include"))
        .arg("-o")
        .arg(&exe)
        .args([
            "-Wl,--no-as-needed",
            &format!("-L{libdir}"),
            "-lspecula",
            &format!("-L{mjlib}"),
            "-l:libmujoco.so.4.0.0",
        ])
        .args([format!("-Wl,-rpath,{libdir}"), format!("-Wl,-rpath,{mjlib}"), "-lm".into()])
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(status.success(), "building the linked example failed");

    let Some(scene) = common::corpus_file(BOX_STACK) else { return };
    let s = scene.to_str().unwrap();
    let steps = STEPS.to_string();
    let plain = trajectory(&run(&step_exe(), &[s, &steps], &[], false));
    let out = run(&exe, &[s, &steps], &[("SPECULA_COLLISION", "rust")], false);
    assert!(bitwise(&plain, &trajectory(&out)));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("mode 1, 1001 collision calls: 1001 rust, 0 c, 0 fallbacks"), "{err}");
    // Unconfigured, the linked library is a pass-through.
    let out = run(&exe, &[s, "10"], &[], false);
    assert!(String::from_utf8_lossy(&out.stderr).contains("mode 0, 11 collision calls: 0 rust, 11 c"));
}

#[test]
fn invalid_environment_values_warn_once_and_behave_like_c() {
    let Some(scene) = common::corpus_file(BOX_STACK) else { return };
    let s = scene.to_str().unwrap();
    let plain = trajectory(&run(&step_exe(), &[s, "200"], &[], false));
    for (var, value) in [("SPECULA_COLLISION", "fast"), ("SPECULA_SPECULATIVE", "maybe")] {
        let rep = scratch("reports").join(format!("invalid_{var}.json"));
        let env = [("SPECULA_COLLISION", "rust"), (var, value), ("SPECULA_REPORT", rep.to_str().unwrap())];
        let env: Vec<_> = if var == "SPECULA_COLLISION" { env[1..].to_vec() } else { env.to_vec() };
        let out = run(&step_exe(), &[s, "200"], &env, true);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("specula: {var}=\"{value}\" is not one of")), "{err}");
        assert!(err.contains("using MuJoCo's own collision"), "{err}");
        assert!(bitwise(&plain, &trajectory(&out)));
        let r = report(&rep);
        assert_eq!((r["mode"].as_str(), n(&r, "c_calls"), n(&r, "rust_calls")), (Some("c"), 201, 0), "{r}");
    }
    // robust is accepted (no message) and recorded.
    let rep = scratch("reports").join("robust.json");
    let env =
        [("SPECULA_COLLISION", "rust"), ("SPECULA_SPECULATIVE", "robust"), ("SPECULA_REPORT", rep.to_str().unwrap())];
    let out = run(&step_exe(), &[s, "200"], &env, true);
    assert!(out.stderr.is_empty());
    let r = report(&rep);
    assert_eq!(r["speculative"], "robust");
    assert_eq!(n(&r, "rust_calls"), n(&r, "calls"), "{r}");
}

#[test]
fn robust_mode_keeps_the_thin_parts_on_the_pane_in_python() {
    let Some(py) = python() else { return };
    let script = root().join("examples/python/step.py");
    let scene = root().join("scenes/thin_parts.xml");
    let s = scene.to_str().unwrap();
    // The pane's bottom face is at 0.295 m; the parts start just above its top (0.3 m) falling at
    // 4.43 m/s (the scene's first keyframe, which the example starts from). 400 steps = 0.5 s.
    let lowest_in = |scene: &str, env: &[(&str, &str)]| {
        let traj = trajectory(&run(&py, &[script.to_str().unwrap(), scene, "400"], env, true));
        let last = traj.last().expect("the example printed its steps").clone();
        (0..9).map(|k| last[7 * k + 2]).fold(f64::INFINITY, f64::min)
    };
    let lowest = |spec: &str| lowest_in(s, &[("SPECULA_COLLISION", "rust"), ("SPECULA_SPECULATIVE", spec)]);
    // MuJoCo-compatible speculative contacts let some parts through (the measurements' tilted coin
    // and thin capsules): at least one ends below the pane.
    assert!(lowest("compat") < 0.295, "compat mode no longer lets a part through");
    // Robust mode: every part ends above the pane's bottom face.
    let low = lowest("robust");
    assert!(low > 0.295, "robust mode let a part through: lowest centre at {low}");
    // The same scene asking for robust mode itself (a custom numeric MuJoCo ignores), with no
    // SPECULA_SPECULATIVE: robust; and an explicit compat still wins over the model.
    let path = scratch("scenes").join("thin_parts_asks_robust.xml");
    common::write_asking_robust(&scene, &path);
    let p = path.to_str().unwrap();
    let asked = lowest_in(p, &[("SPECULA_COLLISION", "rust")]);
    let overridden = lowest_in(p, &[("SPECULA_COLLISION", "rust"), ("SPECULA_SPECULATIVE", "compat")]);
    assert!(asked > 0.295, "the model's request for robust mode was ignored: lowest centre at {asked}");
    assert!(overridden < 0.295, "SPECULA_SPECULATIVE=compat did not override the model");
}

#[test]
fn the_cli_ignores_the_environment() {
    // The specula binary links the same mj_collision statically: SPECULA_* must not switch it.
    let rep = scratch("reports").join("cli_should_not_exist.json");
    let _ = std::fs::remove_file(&rep);
    let scene = root().join("scenes/ball_plate.xml");
    let env = [("SPECULA_COLLISION", "diff"), ("SPECULA_REPORT", rep.to_str().unwrap())];
    run(Path::new(env!("CARGO_BIN_EXE_specula")), &["run", scene.to_str().unwrap(), "--steps", "20"], &env, false);
    assert!(!rep.exists(), "the CLI read SPECULA_REPORT");
}

/// A Python with `mujoco` 4.0.0: a venv under the target directory, created and filled with
/// `pip install mujoco-core==4.0.0 numpy` on first use; if pip cannot, `python3` itself when it
/// has them. None (the caller skips, loudly) when neither works.
fn python() -> Option<PathBuf> {
    // Once per test binary: the tests run in parallel, and two of them filling the venv at the
    // same time broke each other's interpreter (seen on a first run: a run of step.py failed).
    static PYTHON: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    PYTHON.get_or_init(make_python).clone()
}

/// The venv's interpreter with mujoco 4.0.0 and numpy, made if needed.
fn make_python() -> Option<PathBuf> {
    let venv = profile_dir().parent().unwrap().join("dropin-venv");
    let py = venv.join("bin/python");
    let ok = |py: &Path| {
        Command::new(py)
            .args(["-c", "import mujoco, numpy; assert mujoco.__version__ == '4.0.0'"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if ok(&py) {
        return Some(py);
    }
    let python3 = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let made = Command::new(&python3).args(["-m", "venv"]).arg(&venv).status().is_ok_and(|s| s.success());
    if made {
        let _ = Command::new(&py).args(["-m", "pip", "install", "--quiet", "mujoco-core==4.0.0", "numpy"]).status();
        if ok(&py) {
            return Some(py);
        }
    }
    // pip could not install them (offline?): the interpreter itself may have them already.
    if ok(Path::new(&python3)) {
        eprintln!("note: using {python3}'s own mujoco 4.0.0 (could not fill {})", venv.display());
        return Some(PathBuf::from(python3));
    }
    eprintln!(
        "SKIPPED: python_example_preloaded_matches_mujoco: could not create {} with \
         `pip install mujoco-core==4.0.0 numpy` (is PyPI reachable?), and {python3} has no mujoco 4.0.0",
        venv.display()
    );
    None
}

#[test]
fn python_example_preloaded_matches_mujoco() {
    let Some(py) = python() else { return };
    let script = root().join("examples/python/step.py");
    let steps = STEPS.to_string();
    let box_stack = common::corpus_part(BOX_STACK);
    for scene in box_stack.into_iter().chain([root().join("scenes/flipper.xml")]) {
        let s = scene.to_str().unwrap();
        let plain = trajectory(&run(&py, &[script.to_str().unwrap(), s, &steps], &[], false));
        let rep = scratch("reports").join(format!("python_{}.json", scene.file_stem().unwrap().to_string_lossy()));
        let env = [("SPECULA_COLLISION", "rust"), ("SPECULA_REPORT", rep.to_str().unwrap())];
        let rust = trajectory(&run(&py, &[script.to_str().unwrap(), s, &steps], &env, true));
        assert_eq!(plain.len(), STEPS);
        assert_agree(&scene, &plain, &rust, "python rust preload");
        // Python and C print the same numbers (repr and %.17g both round-trip).
        let c = trajectory(&run(&step_exe(), &[s, &steps], &[], false));
        assert!(bitwise(&plain, &c), "{}: Python and C differ", scene.display());
        let r = report(&rep);
        assert_eq!(n(&r, "calls"), STEPS as u64 + 1, "{r}");
        assert_eq!(n(&r, "rust_calls") + n(&r, "fallback_calls"), n(&r, "calls"), "{r}");
        if scene.ends_with("box_stack.xml") {
            assert_eq!(n(&r, "rust_calls"), n(&r, "calls"), "{r}");
        }
    }
}

/// qpos after each step of `scene` in-process, with the drop-in hook in `mode`; between steps
/// 100 and 101 the program edits the model (`edit` gets the raw mjModel).
fn in_process(mode: specula::capi::Mode, edit: &dyn Fn(&mut mujoco_sys::mjModel)) -> Vec<Vec<f64>> {
    let model = specula::mj::Model::from_xml_str(EDIT_SCENE).unwrap();
    let mut data = specula::mj::Data::new(&model).unwrap();
    specula::capi::set_mode(mode);
    let mut out = Vec::new();
    for i in 0..400 {
        if i == 100 {
            // SAFETY: nothing reads the model while it is edited (single thread, between steps);
            // this is what a C program does with its mjModel*.
            edit(unsafe { &mut *(model.raw() as *mut mujoco_sys::mjModel) });
        }
        data.step().unwrap();
        out.push(data.qpos().to_vec());
    }
    specula::capi::set_mode(specula::capi::Mode::C);
    out
}

const EDIT_SCENE: &str = r#"<mujoco><option timestep="0.002"/>
    <worldbody><geom name="floor" type="plane" size="2 2 .1"/>
      <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
      <body pos=".05 0 .35" euler="0 10 20"><freejoint/><geom type="sphere" size=".08"/></body>
    </worldbody></mujoco>"#;

#[test]
fn edits_to_the_model_between_steps_are_honoured() {
    // In this test binary specula is linked statically: the environment is ignored, but the
    // program can still select a mode through the C API's Rust side. Geom 1 is the box, 2 the ball.
    let edit = |m: &mut mujoco_sys::mjModel| {
        // SAFETY: the scene has 3 geoms; each row has 3 sizes, 2 solref values.
        unsafe {
            // The ball grows, with its bounding sphere and box (MuJoCo reads all three; a size
            // edit alone leaves them stale, and then specula's filters prune differently).
            *m.geom_size.add(3 * 2) = 0.1;
            *m.geom_rbound.add(2) = 0.1;
            for k in 3..6 {
                *m.geom_aabb.add(6 * 2 + k) = 0.1;
            }
            *m.geom_margin.add(1) = 0.01;
            *m.geom_solref.add(2) = 0.05; // geom 1 (row of 2): a softer time constant
        }
    };
    let _guard = IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    let before = specula::capi::snapshot();
    let rust = in_process(specula::capi::Mode::Rust, &edit);
    let served = specula::capi::snapshot().rust_calls - before.rust_calls;
    let c = in_process(specula::capi::Mode::C, &edit);
    let unedited = in_process(specula::capi::Mode::C, &|_| {});
    assert_eq!(served, 400, "the Rust stage did not serve every call");
    assert!(!bitwise(&c, &unedited), "the edit should change the motion");
    assert!(bitwise(&rust, &c), "max |dqpos| {:e}", max_diff(&rust, &c));
}
