//! `specula fuzz --route native`: a bounded slice of generated scenes in the native subset,
//! stepped on the native route and compared with `mj_step` after every step, gives no failure;
//! a tampered native step is caught (by the library and through the CLI's
//! `SPECULA_TAMPER_NATIVE` hook); the scenes the native fuzzer found are kept as regressions.

use std::path::{Path, PathBuf};
use std::process::Command;

use specula::fuzz::{self, FuzzOptions};
use specula::mj::Model;
use specula::native_diff::{diff_native, NativeDiffOptions};
use specula::report::Start;
use specula_model::types::Integrator;

fn native_opts(steps: usize) -> FuzzOptions {
    FuzzOptions { steps, native: true, subset: true, shrink: false, ..FuzzOptions::default() }
}

#[test]
fn a_slice_of_native_subset_scenes_matches_mj_step_bit_for_bit() {
    let sum = fuzz::run(0..48, &native_opts(40), &|_, _| {});
    let lines: Vec<String> =
        sum.failures.iter().map(|f| format!("seed {}: {}: {}", f.seed, f.verdict.kind(), f.verdict.detail())).collect();
    assert!(lines.is_empty(), "{lines:#?}");
    assert_eq!(sum.scenes, 48);
    // it compared something: most scenes ran, over many steps and values
    assert!(sum.matched >= 40, "{} matched, refused: {:?}", sum.matched, sum.native_reasons);
    assert!(sum.native_steps >= 1000, "{} steps compared", sum.native_steps);
    assert!(sum.native_values > 100_000, "{} values compared", sum.native_values);
    assert!(sum.native_contacts > 1000, "{} contacts", sum.native_contacts);
    // the compared scenes have every joint kind, limits, friction loss, actuators, the four
    // integrators, the three solvers and both cones
    for f in ["hinge", "slide", "ball", "free", "limit", "frictionloss", "actuator"] {
        assert!(sum.native_features.get(f).is_some_and(|&n| n >= 2), "{f}: {:?}", sum.native_features);
    }
    for f in ["Euler", "implicitfast", "implicit", "RK4", "PGS", "Newton", "CG", "elliptic", "pyramidal"] {
        assert!(sum.native_features.get(f).is_some_and(|&n| n >= 2), "{f}: {:?}", sum.native_features);
    }
    // the subset holds what the native route steps: joint properties and actuators among them
    let scenes: Vec<_> = (0..16).map(|s| fuzz::scene(s, &native_opts(40))).collect();
    assert!(scenes.iter().all(|s| ["Euler", "implicitfast", "implicit", "RK4"].contains(&s.opt.integrator)));
    assert!(scenes.iter().filter(|s| !s.dynamics.actuators.is_empty()).count() >= 4);
    assert!(scenes.iter().filter(|s| !s.dynamics.joints.is_empty()).count() >= 8);
}

#[test]
fn a_tampered_native_step_fails_the_native_fuzzer() {
    let opts = FuzzOptions { native_tamper: Some(3), ..native_opts(10) };
    let sum = fuzz::run(0..6, &opts, &|_, _| {});
    // every scene that reached the tampered step differs there
    assert!(sum.differ >= 4, "the tampered step went unnoticed: {} differ, {} match", sum.differ, sum.matched);
    // a scene "matches" only where both routes diverged (NaN or huge) before the tampered step
    assert!(
        sum.matched <= sum.native_stopped,
        "a scene matched although its native qvel was tampered with: {} match, {} stopped",
        sum.matched,
        sum.native_stopped
    );
    let f = &sum.failures[0];
    assert!(f.verdict.detail().starts_with("step 3: "), "{}", f.verdict.detail());
}

#[test]
fn the_cli_runs_the_native_fuzzer_and_its_tamper_hook_fails_it() {
    let out = std::env::temp_dir().join(format!("specula-fuzz-native-{}", std::process::id()));
    let run = |tamper: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_specula"));
        cmd.args(["fuzz", "--route", "native", "--native-subset", "--seeds", "0..4", "--steps", "20", "--no-shrink"]);
        cmd.arg("--json").arg("--out").arg(&out).env_remove("SPECULA_TAMPER_NATIVE");
        if let Some(t) = tamper {
            cmd.env("SPECULA_TAMPER_NATIVE", t);
        }
        let o = cmd.output().unwrap();
        let j: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
        (o.status.code(), j)
    };
    let (code, j) = run(None);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(j["route"], "native");
    assert_eq!(j["failed"], 0, "{j}");
    assert!(j["native_values"].as_u64().unwrap() > 1000, "{j}");
    let (code, j) = run(Some("2"));
    assert_eq!(code, Some(1), "{j}");
    assert!(j["differ"].as_u64().unwrap() >= 2, "{j}");
    let _ = std::fs::remove_dir_all(&out);
}

fn kept_cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_cases/native");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    v.sort();
    v
}

/// Each scene the native fuzzer found, compared with `mj_step` on the native route for 200
/// steps from its start keyframe, with its own integrator and with Euler (a run may stop where
/// both routes diverge in the same step).
#[test]
fn every_kept_native_regression_scene_matches_mj_step() {
    let cases = kept_cases();
    assert!(!cases.is_empty(), "no kept native scene");
    let mut failures = Vec::new();
    for path in &cases {
        for integ in [None, Some(Integrator::Euler)] {
            let mut sim = specula::native::load(path, integ).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut c = Model::from_xml_path(path).unwrap();
            if let Some(i) = integ {
                c.set_integrator(i as i32).unwrap();
            }
            let opts = NativeDiffOptions { steps: 200, start: Start::Key("start".into()), tamper: None };
            let rep = diff_native(&c, &mut sim, &opts).unwrap();
            // a kept scene runs the whole way or stops where both routes diverge
            let whole = rep.steps == 200 || rep.stopped.is_some();
            if !rep.matches() || !whole {
                failures.push(format!("{} {integ:?}: {:?} after {} steps", path.display(), rep.first, rep.steps));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A state the native route refuses in the very step where MuJoCo's arena runs out is the native
/// route's refusal, not MuJoCo's error (seed 508,559).
#[test]
fn a_refusal_in_the_step_mujocos_arena_runs_out_is_the_native_routes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_cases/native/refused/arena_full_pgs_508559.xml");
    let mut sim = specula::native::load(&path, None).unwrap();
    let c = Model::from_xml_path(&path).unwrap();
    let opts = NativeDiffOptions { steps: 200, start: Start::Key("start".into()), tamper: None };
    let err = diff_native(&c, &mut sim, &opts).unwrap_err().to_string();
    assert!(err.contains("the native route does not implement") && err.contains("arena"), "{err}");
}
