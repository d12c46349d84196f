//! The native route from the command line: `specula run --route native` reports what the c route
//! reports, bit for bit, on a constraint-free scene and, with contacts, what the rust route
//! reports in robust mode; `specula diff --route native` finds MuJoCo's
//! trajectory, and reports the first differing step and array once the native side is tampered
//! with; refused scenes give an error naming what the route lacks (exit 2, no panic); and the
//! native-only build (`--no-default-features`) holds no MuJoCo binding and no C build.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scene(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name)
}

/// Runs the CLI with `args`, and `env` set.
fn specula(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_specula"));
    cmd.args(args).env_remove("SPECULA_TAMPER_NATIVE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    })
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn run_on_the_native_route_reports_the_c_routes_bodies_bit_for_bit() {
    let file = scene("pendulum.xml");
    let file = file.to_str().unwrap();
    let args = |route| ["run", file, "--route", route, "--key", "swing", "--steps", "2000", "--json"];
    let (native, c) = (specula(&args("native"), &[]), specula(&args("c"), &[]));
    assert_eq!(native.status.code(), Some(0), "{}", stderr(&native));
    assert_eq!(c.status.code(), Some(0), "{}", stderr(&c));
    let (n, c) = (json(&native), json(&c));
    assert_eq!(n["route"], "native");
    assert_eq!(n["steps"], 2000);
    let bodies = n["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 6, "world and five named bodies: {bodies:?}");
    // the JSON numbers round-trip, so equal values are equal bits
    assert_eq!(n["bodies"], c["bodies"]);
    let brick = bodies.iter().find(|b| b["name"] == "brick").unwrap();
    assert!(brick["pos"][2].as_f64().unwrap() < 0.0, "the brick falls freely for 4 s: {brick}");
    // the text output is the other routes' too
    let text = specula(&["run", file, "--route", "native", "--key", "swing"], &[]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("500 steps of 0.002 s on the native route (speculative off), up to 0 contacts"), "{text}");
    assert!(text.contains("  brick "), "{text}");
}

#[test]
fn diff_on_the_native_route_matches_mujoco_bit_for_bit_and_fails_when_tampered() {
    let file = scene("pendulum.xml");
    let file = file.to_str().unwrap();
    let args = ["diff", file, "--route", "native", "--key", "swing", "--steps", "1000", "--json"];
    let out = specula(&args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let j = json(&out);
    assert_eq!(j["verdict"], "match", "{j}");
    assert_eq!(j["steps"], 1000);
    // 21 arrays (no sensordata here) of a 14-qpos, 12-dof, 6-body model and the time, 1000 times
    assert!(j["values"].as_u64().unwrap() > 100_000, "{j}");
    // from qpos0 too, text output
    let out = specula(&["diff", file, "--route", "native", "--steps", "300"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(": match: 300 steps"));

    // one bit of the native qvel flipped before step 37: the diff names step 37
    let out = specula(&args, &[("SPECULA_TAMPER_NATIVE", "37")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let j = json(&out);
    assert_eq!(j["verdict"], "differ");
    assert_eq!(j["first"]["step"], 37, "{j}");
    assert_eq!(j["steps"], 37);
    let field = j["first"]["field"].as_str().unwrap();
    assert!(["qpos", "qvel"].contains(&field), "{j}");
    let out = specula(&args[..args.len() - 1], &[("SPECULA_TAMPER_NATIVE", "37")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("first difference: after step 37"));
}

#[test]
fn contact_scenes_match_on_the_native_route_in_every_speculative_mode() {
    // contacts (speculative off and MuJoCo-compatible) against mj_step, bit for bit
    for name in ["ball_plate.xml", "thin_parts.xml"] {
        let file = scene(name);
        let file = file.to_str().unwrap();
        for mode in ["off", "compat"] {
            let args = ["diff", file, "--route", "native", "--speculative", mode, "--steps", "400", "--json"];
            let out = specula(&args, &[]);
            assert_eq!(out.status.code(), Some(0), "{name} {mode}: {}", stderr(&out));
            assert_eq!(json(&out)["verdict"], "match", "{name} {mode}");
        }
    }
    // robust mode: the native route's bodies equal the rust route's (specula's robust collision
    // inside MuJoCo's step) bit for bit, and it reports the contacts it made
    let file = scene("thin_parts.xml");
    let file = file.to_str().unwrap();
    let run = |route| {
        let out = specula(&["run", file, "--route", route, "--speculative", "robust", "--steps", "800", "--json"], &[]);
        assert_eq!(out.status.code(), Some(0), "{route}: {}", stderr(&out));
        json(&out)
    };
    let (native, rust) = (run("native"), run("rust"));
    assert_eq!(native["bodies"], rust["bodies"]);
    assert_eq!(native["robust"], true);
    assert!(native["ncon_max"].as_u64().unwrap() > 0, "{native}");
    // robust has no MuJoCo counterpart to diff against
    let out = specula(&["diff", file, "--route", "native", "--speculative", "robust"], &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn solver_and_cone_overrides_reach_both_compilations() {
    // every solver and cone on a contact scene: MuJoCo's step and the native one both take them
    let file = scene("ball_plate.xml");
    let file = file.to_str().unwrap();
    for solver in ["pgs", "cg", "newton"] {
        for cone in ["pyramidal", "elliptic"] {
            let args =
                ["diff", file, "--route", "native", "--solver", solver, "--cone", cone, "--steps", "150", "--json"];
            let out = specula(&args, &[]);
            assert_eq!(out.status.code(), Some(0), "{solver} {cone}: {}", stderr(&out));
            assert_eq!(json(&out)["verdict"], "match", "{solver} {cone}");
        }
    }
    // PGS on a sparse Jacobian (the sparse efc_AR): a box resting on a plane, both cones
    let sparse = std::env::temp_dir().join(format!("specula-cli-native-sparse-{}.xml", std::process::id()));
    std::fs::write(
        &sparse,
        r#"<mujoco><option jacobian="sparse"/><worldbody><geom type="plane" size="1 1 .1"/>
           <body pos="0 0 .2"><freejoint/><geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let sparse = sparse.to_str().unwrap();
    for cone in ["pyramidal", "elliptic"] {
        let args = ["diff", sparse, "--route", "native", "--steps", "150", "--solver", "pgs", "--cone", cone, "--json"];
        let out = specula(&args, &[]);
        assert_eq!(out.status.code(), Some(0), "{cone}: {}", stderr(&out));
        let j = json(&out);
        assert_eq!(j["verdict"], "match", "{cone}: {j}");
    }
    // the other solver options are not applied on this route, and say so
    let out = specula(&["diff", file, "--route", "native", "--jacobian", "dense"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--route native takes --solver and --cone"), "{}", stderr(&out));
}

#[test]
fn refused_scenes_name_what_the_native_route_lacks() {
    // armature on a spatial tendon through a pulley: the route has the bias force
    // (mj_tendonBias) for paths of sites only
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tendon_cases/pulley_armature.xml");
    let file = file.to_str().unwrap();
    for args in [
        &["run", file, "--route", "native"][..],
        &["diff", file, "--route", "native"][..],
        &["run", file, "--route", "native", "--json"][..],
    ] {
        let out = specula(args, &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("the native route does not implement") && err.contains("tendon"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.stdout.is_empty());
    }
    // an integrator override the route lacks, on a scene it accepts as written
    let pendulum = scene("pendulum.xml");
    let out = specula(&["diff", pendulum.to_str().unwrap(), "--route", "native", "--integrator", "discrete"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("integrator Discrete"), "{}", stderr(&out));
    // a keyframe that is not there, and a route diff does not compare with itself
    let out = specula(&["run", pendulum.to_str().unwrap(), "--route", "native", "--key", "nope"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no keyframe named or numbered 'nope' (the model has 1 keyframes)"),
        "{}",
        stderr(&out)
    );
    let out = specula(&["diff", pendulum.to_str().unwrap(), "--route", "c"], &[]);
    assert_eq!(out.status.code(), Some(2));
}

/// The normal and build dependencies of the root package, with `extra` cargo arguments.
fn dependencies(extra: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "-p", "specula", "-e", "normal,build", "--prefix", "none", "--format", "{p}"])
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_native_only_build_holds_no_mujoco_binding_and_no_c_build() {
    let c = |d: &str| d.lines().any(|l| l.starts_with("mujoco-sys ") || l.starts_with("cc "));
    let native_only = dependencies(&["--no-default-features"]);
    assert!(!c(&native_only), "{native_only}");
    assert!(native_only.lines().any(|l| l.starts_with("specula-native ")), "{native_only}");
    // the default build does link MuJoCo
    assert!(c(&dependencies(&[])));
}
