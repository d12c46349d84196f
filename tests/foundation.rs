//! The safe wrapper and `specula run` against the real MuJoCo 4.0.0 library.

use std::process::Command;

use specula::mj::{Data, MjError, Model};

/// A 10 mm steel ball just above a static box, at rest.
const BALL_ON_BOX: &str = r#"
<mujoco>
  <option timestep="0.00125"/>
  <worldbody>
    <geom name="table" type="box" pos="0 0 -0.05" size="0.2 0.2 0.05"/>
    <body name="ball" pos="0 0 0.0105">
      <freejoint/>
      <geom name="ball" type="sphere" size="0.01" density="7850"/>
    </body>
  </worldbody>
</mujoco>"#;

#[test]
fn a_scene_loads_and_steps() {
    let m = Model::from_xml_str(BALL_ON_BOX).unwrap();
    assert_eq!(m.nbody(), 2);
    assert_eq!(m.ngeom(), 2);
    let mut d = Data::new(&m).unwrap();
    for _ in 0..10 {
        d.step().unwrap();
    }
    assert!((d.time() - 10.0 * 0.00125).abs() < 1e-12);
    // The ball falls under gravity: after 10 steps of semi-implicit Euler it moved down.
    assert!(d.qpos()[2] < 0.0105);
}

/// MuJoCo's default contact impedance at penetration `r` (solimp = 0.9 0.95 0.001 0.5 2).
fn impedance(r: f64) -> f64 {
    let (d0, dmax, width, mid, power) = (0.9, 0.95, 0.001, 0.5, 2.0);
    let x = (r / width).min(1.0);
    let y = if x <= mid {
        x.powf(power) / mid.powf(power - 1.0)
    } else {
        1.0 - (1.0 - x).powf(power) / (1.0 - mid).powf(power - 1.0)
    };
    d0 + y * (dmax - d0)
}

#[test]
fn resting_ball_sinks_to_the_soft_contact_steady_state() {
    // At rest the solver's acceleration is d*aref + (1-d)*a0 = 0, with a0 = -g and
    // aref = k*d*r (k = 1/(dmax^2 tc^2 dr^2), solref = 0.02 1): r = (1-d(r)) g / (k d(r)^2).
    // Solve that fixed point by bisection.
    let g = 9.81;
    let k = 1.0 / (0.95f64.powi(2) * 0.02f64.powi(2));
    let f = |r: f64| r - (1.0 - impedance(r)) * g / (k * impedance(r).powi(2));
    let (mut lo, mut hi) = (1e-6, 1e-2);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            hi = mid
        } else {
            lo = mid
        }
    }
    let expected = 0.5 * (lo + hi);
    assert!((expected - 0.367e-3).abs() < 1e-5, "derivation gives {expected}");

    let m = Model::from_xml_str(BALL_ON_BOX).unwrap();
    let mut d = Data::new(&m).unwrap();
    for _ in 0..4000 {
        d.step().unwrap();
    }
    d.kinematics().unwrap();
    let ball = d.body_pose("ball").unwrap();
    let penetration = 0.01 - ball.pos[2];
    assert!((penetration - expected).abs() < 1e-9, "penetration {penetration} vs steady state {expected}");
    assert_eq!(d.contacts().len(), 1);
    assert!((d.contacts()[0].dist() + expected).abs() < 1e-9);
}

#[test]
fn compile_error_is_an_err_with_mujocos_message() {
    let err =
        Model::from_xml_str("<mujoco><worldbody><geom type='sphere' size='0'/></worldbody></mujoco>").unwrap_err();
    match &err {
        MjError::Compile { message, .. } => assert!(message.contains("size 0 must be positive"), "{message}"),
        other => panic!("expected a compile error, got {other:?}"),
    }
    let err = Model::from_xml_path("/nonexistent/scene.xml").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/scene.xml"), "{err}");
}

#[test]
fn runtime_errors_return_err_and_the_process_carries_on() {
    // 4 KiB of arena cannot hold the contacts of three stacked boxes: mj_step calls mju_error
    // (stack overflow) deep inside the constraint code.
    let tiny = Model::from_xml_str(
        r#"<mujoco><size memory="4K"/><worldbody><geom type="plane" size="1 1 1"/>
        <body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos="0 0 0.3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos="0 0 0.5"><freejoint/><geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let mut d = Data::new(&tiny).unwrap();
    let err = d.step().unwrap_err();
    assert!(matches!(&err, MjError::Mujoco(msg) if msg.contains("mj_stackAlloc")), "{err}");
    // The same data can be reset and used again.
    d.reset().unwrap();
    // A direct call that errors.
    // SAFETY: valid pointers; the signature is deliberately out of range so MuJoCo raises.
    let err = d.call(|m, _| unsafe { mujoco_sys::mj_stateSize(m, 1 << 20) }).unwrap_err();
    assert!(err.to_string().contains("invalid state signature"), "{err}");
    // And another model runs normally afterwards.
    let m = Model::from_xml_str(BALL_ON_BOX).unwrap();
    let mut d2 = Data::new(&m).unwrap();
    for _ in 0..100 {
        d2.step().unwrap();
    }
    assert!(d2.time() > 0.1);
}

#[test]
fn warnings_are_collected_not_printed() {
    let m = Model::from_xml_str(
        r#"<mujoco><size memory="4K"/><worldbody><geom type="plane" size="1 1 1"/>
        <body pos="0 0 0.05"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos="0.25 0 0.05"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
        <body pos="0.5 0 0.05"><freejoint/><geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let mut d = Data::new(&m).unwrap();
    let _ = d.step();
    assert!(d.warnings().iter().any(|w| w.contains("arena")), "{:?}", d.warnings());
}

#[test]
fn model_is_send_sync_and_data_is_send() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Model>();
    send::<Data>();
    let m = Model::from_xml_str(BALL_ON_BOX).unwrap();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let m = m.clone();
            std::thread::spawn(move || {
                let mut d = Data::new(&m).unwrap();
                for _ in 0..50 {
                    d.step().unwrap();
                }
                d.qpos()[2]
            })
        })
        .collect();
    let z: Vec<f64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(z[0].to_bits(), z[1].to_bits());
}

#[test]
fn state_round_trips() {
    let m = Model::from_xml_str(BALL_ON_BOX).unwrap();
    let mut d = Data::new(&m).unwrap();
    for _ in 0..5 {
        d.step().unwrap();
    }
    let s = d.state(specula::mj::state::INTEGRATION);
    let q = d.qpos().to_vec();
    for _ in 0..5 {
        d.step().unwrap();
    }
    d.set_state(specula::mj::state::INTEGRATION, &s).unwrap();
    assert_eq!(d.qpos(), &q[..]);
    assert!(d.set_state(specula::mj::state::INTEGRATION, &s[1..]).is_err());
}

fn specula() -> Command {
    Command::new(env!("CARGO_BIN_EXE_specula"))
}

#[test]
fn run_json_has_the_documented_keys() {
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ball_plate.xml");
    let out = specula().args(["run", scene, "--key", "throw", "--steps", "400", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["route"], "c");
    assert_eq!(v["steps"], 400);
    assert_eq!(v["timestep"], 0.00125);
    assert_eq!(v["speculative"], true);
    assert!(v["ncon_max"].as_u64().unwrap() >= 1);
    assert!(v["warnings"].is_array());
    let ball = v["bodies"].as_array().unwrap().iter().find(|b| b["name"] == "ball").unwrap();
    assert_eq!(ball["pos"].as_array().unwrap().len(), 3);
    assert_eq!(ball["quat"].as_array().unwrap().len(), 4);
    // It landed on the plate (top at 0.3): the lowest point of its centre stayed above 0.3 - r.
    let min_z = ball["min_z"].as_f64().unwrap();
    assert!(min_z > 0.29 && min_z < 0.31625, "{min_z}");
    // Keyframe by index gives the same run.
    let out2 = specula().args(["run", scene, "--key", "0", "--steps", "400", "--json"]).output().unwrap();
    assert_eq!(out.stdout, out2.stdout);
}

#[test]
fn builtin_scene_tells_both_outcomes() {
    let out = specula().output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("off: the ball went through the plate"), "{text}");
    assert!(text.contains("on:  the ball landed on the plate"), "{text}");
}

#[test]
fn errors_exit_2_with_one_line_naming_the_file() {
    let out = specula().args(["run", "/nonexistent/scene.xml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("/nonexistent/scene.xml"), "{err}");
    let dir = std::env::temp_dir().join(format!("specula-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.xml");
    std::fs::write(&bad, "<mujoco><worldbody><geom type='sphere' size='0'/></worldbody></mujoco>").unwrap();
    let out = specula().args(["run"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("bad.xml") && err.contains("size 0 must be positive"), "{err}");
    let scene = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ball_plate.xml");
    let out = specula().args(["run", scene, "--key", "nokey"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("ball_plate.xml") && err.contains("nokey"), "{err}");
}
