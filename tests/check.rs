//! `specula check` compares specula's compiler with MuJoCo's, and can fail.

mod common;
use common::root;

use std::path::PathBuf;
use std::process::Command;

use specula::check::{check_file, check_file_tampered, CheckOutcome};
use specula_model::mesh::qhull::with_replay_log;

fn scenes() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("scenes"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    v.sort();
    assert!(v.len() >= 5, "the project's scenes are missing");
    v
}

#[test]
fn project_scenes_match_mujoco_field_by_field() {
    for scene in scenes() {
        match check_file(&scene) {
            CheckOutcome::Compared(cmp) => {
                assert!(cmp.matched(), "{}: {:?}", scene.display(), &cmp.mismatches[..cmp.mismatches.len().min(5)]);
                assert!(cmp.fields > 150 && cmp.values > 500, "{}: too little compared", scene.display());
            }
            other => panic!("{}: {other:?}", scene.display()),
        }
    }
}

/// Meshes whose qhull build premerges (tests/check_cases: synthetic domes with a bottom flat to
/// about 1e-14): specula's replay of qhull must cover them, so that the hull order and the polygon
/// tables are MuJoCo's (docs/measurements.md M4).
#[test]
fn meshes_whose_qhull_build_premerges_match_mujoco_field_by_field() {
    let mut n = 0;
    for entry in std::fs::read_dir(root().join("tests/check_cases")).unwrap() {
        let case = entry.unwrap().path();
        if case.extension().is_none_or(|e| e != "xml") {
            continue;
        }
        let (outcome, log) = with_replay_log(|| check_file(&case));
        match outcome {
            CheckOutcome::Compared(cmp) => {
                assert!(cmp.matched(), "{}: {:?}", case.display(), &cmp.mismatches[..cmp.mismatches.len().min(5)]);
                assert!(cmp.values > 1000, "{}: too little compared", case.display());
            }
            other => panic!("{}: {other:?}", case.display()),
        }
        assert!(!log.is_empty() && log.iter().all(|o| o.replayed), "{}: {log:?}", case.display());
        n += 1;
    }
    assert!(n >= 2, "the premerge cases are missing");
}

#[test]
fn a_perturbed_field_is_reported_by_name() {
    let scene = root().join("scenes/ball_plate.xml");
    let outcome = check_file_tampered(&scene, |m| m.geom_size[2][0] *= 1.0 + 1e-6);
    let CheckOutcome::Compared(cmp) = outcome else { panic!("both compile") };
    assert!(!cmp.matched());
    assert!(cmp.mismatches.iter().any(|m| m.field == "geom_size" && m.index == 6), "{:?}", cmp.mismatches);
    // A change below the tolerance is not a mismatch.
    let outcome = check_file_tampered(&scene, |m| m.body_mass[2] *= 1.0 + 1e-12);
    assert!(outcome.agrees());
    // A wrong pose reaches the kinematics comparison.
    let outcome = check_file_tampered(&scene, |m| m.body_pos[1][2] += 1e-3);
    let CheckOutcome::Compared(cmp) = outcome else { panic!("both compile") };
    assert!(cmp.mismatches.iter().any(|m| m.field == "xpos@qpos0"), "{:?}", cmp.mismatches);
}

#[test]
fn cli_check_json_and_exit_codes() {
    let exe = env!("CARGO_BIN_EXE_specula");
    let out = Command::new(exe).args(["check", "--json"]).arg(root().join("scenes/flipper.xml")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "match");
    assert!(v["fields"].as_u64().unwrap() > 150);
    assert!(v["values"].as_u64().unwrap() > 500);
    assert_eq!(v["mismatches"].as_array().unwrap().len(), 0);

    // Both compilers reject a bad file: that is agreement (exit 0), with both messages shown.
    let dir = std::env::temp_dir().join(format!("specula-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.xml");
    std::fs::write(
        &bad,
        "<mujoco>\n  <worldbody>\n    <geom type=\"sphere\" size=\"-1\"/>\n  </worldbody>\n</mujoco>\n",
    )
    .unwrap();
    let out = Command::new(exe).arg("check").arg(&bad).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("MuJoCo C: rejected") && text.contains("specula:  rejected"), "{text}");

    let out = Command::new(exe).args(["check", "/nonexistent.xml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
