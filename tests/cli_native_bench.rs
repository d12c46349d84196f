//! `specula bench --route native` and `specula sweep --route native` from the command line, on
//! cheap settings (no timing is asserted): the bench times both routes, says whether their
//! trajectories stayed equal (and says they differ in robust mode, which MuJoCo does not have)
//! and names what the native route refuses; the sweep's native rows are the c route's, row for
//! row, with speculative contacts off and compat, and the rust route's in robust mode.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scene(name: &str) -> PathBuf {
    root().join("scenes").join(name)
}

fn specula(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_specula")).args(args).output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn bench_on_the_native_route_times_both_steps_and_checks_the_trajectories() {
    let file = scene("ball_plate.xml");
    let file = file.to_str().unwrap();
    let args = ["bench", file, "--route", "native", "--key", "throw", "--steps", "60", "--passes", "3"];
    let out = specula(&args);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("mj_step") && stdout.contains("native step"), "{stdout}");
    assert!(stdout.contains("(60 steps, each the median of 3 passes; trajectories equal bit for bit)"), "{stdout}");

    let json = |extra: &[&str]| {
        let out = specula(&[&args[..], &["--json"], extra].concat());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let compat = json(&[]);
    assert_eq!(compat["route"], "native");
    assert_eq!(compat["steps"], 60);
    assert_eq!(compat["passes"], 3);
    assert_eq!(compat["same_trajectory"], true, "{compat}");
    assert_eq!(compat["refused"], serde_json::Value::Null);
    for k in ["c_ns", "native_ns", "ratio"] {
        let v = compat[k].as_f64().unwrap();
        assert!(v.is_finite() && v > 0.0, "{k} = {v}");
    }
    // robust mode is not MuJoCo's step: the trajectory check must see it
    let robust = json(&["--speculative", "robust"]);
    assert_eq!(robust["same_trajectory"], false, "{robust}");
}

#[test]
fn bench_on_the_native_route_names_what_it_refuses() {
    // boxes sliding on elliptic cones with a sparse Jacobian (Newton iterations with contacts on
    // the cone's surface, D82 to D84) run now and end on mj_step's trajectory
    let boxes: String = (0..8)
        .map(|i| {
            let (x, y) = (0.25 * (i % 4) as f64 - 0.4, 0.25 * (i / 4) as f64);
            format!(r#"<body pos="{x} {y} .099"><freejoint/><geom type="box" size=".1 .1 .1"/></body>"#)
        })
        .collect();
    let file = std::env::temp_dir().join(format!("specula-bench-cone-{}.xml", std::process::id()));
    std::fs::write(
        &file,
        format!(
            r#"<mujoco><option cone="elliptic" jacobian="sparse" gravity="12 0 -9.81"/>
            <worldbody><geom type="plane" size="5 5 .1"/>{boxes}</worldbody></mujoco>"#
        ),
    )
    .unwrap();
    let out =
        specula(&["bench", file.to_str().unwrap(), "--route", "native", "--steps", "20", "--passes", "1", "--json"]);
    let _ = std::fs::remove_file(&file);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!((report["same_trajectory"].as_bool(), report["steps"].as_u64()), (Some(true), Some(20)), "{report}");
    // armature on a spatial tendon through a pulley (mj_tendonBias covers sites only) is refused
    // by name
    let file = root().join("tests/tendon_cases/pulley_armature.xml");
    let out = specula(&["bench", file.to_str().unwrap(), "--route", "native", "--steps", "5", "--passes", "1"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("armature") && stderr.contains("spatial"), "{stderr}");
    // only the native route is a bench route
    let out = specula(&["bench", scene("ball_plate.xml").to_str().unwrap(), "--route", "rust"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("bench --route takes native"), "{}", text(&out).1);
}

#[test]
fn bench_suite_on_the_native_route_prints_the_pile_the_impact_and_the_humanoid() {
    let out = specula(&["bench", "--suite", "--route", "native", "--passes", "1", "--json"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["scene"].as_str().unwrap()).collect();
    assert!(names.iter().any(|n| n.starts_with("pile_50")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("impact_200")), "{names:?}");
    if root().join("../shared/mjcf/corpus/model/humanoid/humanoid.xml").is_file() {
        assert!(names.iter().any(|n| n.contains("humanoid")), "{names:?}");
    }
    for r in &rows {
        // each row is either timed, with its trajectories compared, or refused with a reason
        let timed = r["c_ns"].as_f64().is_some_and(|t| t > 0.0) && r["same_trajectory"].is_boolean();
        let refused = r["refused"]["reason"].as_str().is_some_and(|s| s.contains("native route does not implement"));
        assert!(timed || refused, "{r}");
    }
}

/// The CSV rows of `specula sweep ARGS`, keyed by every column but the run's index and route,
/// grouped by route.
fn sweep_rows(args: &[&str]) -> BTreeMap<String, Vec<String>> {
    let out = specula(&[&["sweep"], args, &["--format", "csv", "--progress", "never"]].concat());
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let route = header.iter().position(|h| *h == "route").unwrap();
    let index = header.iter().position(|h| *h == "index").unwrap();
    let mut by_route: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        let cells: Vec<&str> = line.split(',').collect();
        let key: Vec<&str> =
            cells.iter().enumerate().filter(|(i, _)| *i != route && *i != index).map(|(_, c)| *c).collect();
        by_route.entry(cells[route].to_string()).or_default().push(key.join(","));
    }
    for rows in by_route.values_mut() {
        rows.sort();
    }
    by_route
}

#[test]
fn sweep_on_the_native_route_gives_the_c_routes_rows_and_the_rust_routes_robust_rows() {
    let compat = sweep_rows(&["--preset", "quick", "--route", "c,native", "--modes", "off,compat"]);
    assert_eq!(compat.len(), 2, "{compat:?}");
    assert!(compat["native"].len() >= 20, "{}", compat["native"].len());
    assert_eq!(compat["native"], compat["c"]);
    let robust = sweep_rows(&["--preset", "quick", "--route", "rust,native", "--modes", "robust"]);
    assert_eq!(robust["native"], robust["rust"]);
    // the comparison sees a different mode: robust rows are not compat rows
    let only = |rows: &[String], mode: &str| -> Vec<String> {
        rows.iter().filter(|r| r.contains(&format!(",{mode},"))).map(|r| r.replace(&format!(",{mode},"), ",")).collect()
    };
    assert_ne!(only(&robust["native"], "robust"), only(&compat["native"], "compat"));
    // a user's scene too
    let ball = scene("ball_plate.xml");
    let args = [ball.to_str().unwrap(), "--body", "ball", "--toward", "plate", "--speeds", "5,20"];
    let user = sweep_rows(&[&args[..], &["--route", "c,native", "--modes", "off,compat"]].concat());
    assert_eq!(user["native"].len(), 12);
    assert_eq!(user["native"], user["c"]);
}

#[test]
fn the_native_route_starts_from_the_keyframes_controls() {
    // flipper's keyframe sets ctrl = 80 for its velocity actuator: without it the native step
    // differed from mj_step from step 1 (qpos[0] 0.0458 against 0.0959)
    let file = scene("flipper.xml");
    let out = specula(&["diff", file.to_str().unwrap(), "--route", "native", "--key", "strike", "--steps", "300"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("match: 300 steps"), "{stdout}");
}
