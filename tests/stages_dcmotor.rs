//! `mj_fwdActuation` in Rust for DC motors and PID actuators (D88-D91): each kind of state and
//! parameter matches MuJoCo's function call by call, bit for bit, with the Euler advance in Rust
//! too, and each kind's parameter is live (moving it changes MuJoCo's trajectory, so a Rust stage
//! that ignored or mistook it would be reported); the corpus DC-motor scene runs in Rust.

use std::path::Path;

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageSet, Tamper};
use specula::mj::{state, Data, Model};
use specula::sim::Start;

/// A pendulum driven by the actuator `{act}`, started from a keyframe with controls `{ctrl}`.
fn scene(actuator: &str, ctrl: &str) -> String {
    format!(
        r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body><joint name="j" type="hinge" axis="0 1 0" damping="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="2"/></body>
  </worldbody>
  <actuator>{actuator}</actuator>
  <keyframe><key name="go" qpos="0.3" qvel="1.5" ctrl="{ctrl}"/></keyframe>
</mujoco>"#
    )
}

/// One kind: its name, the actuator, its controls, and the parameter text a tamper replaces.
struct Kind {
    name: &'static str,
    actuator: &'static str,
    ctrl: &'static str,
    tamper: (&'static str, &'static str),
}

const KINDS: &[Kind] = &[
    Kind {
        name: "stateless voltage drive (back-EMF bias)",
        actuator: r#"<dcmotor joint="j" motorconst="0.3" resistance="2"/>"#,
        ctrl: "4",
        tamper: (r#"resistance="2""#, r#"resistance="2.5""#),
    },
    Kind {
        name: "current state (inductance) with a current-rate limit",
        actuator: r#"<dcmotor joint="j" motorconst="0.3" resistance="2" inductance="0.004 0" saturation="0 0 60"/>"#,
        ctrl: "5",
        tamper: ("0 0 60", "0 0 50"),
    },
    Kind {
        name: "winding temperature",
        actuator: r#"<dcmotor joint="j" motorconst="0.3" resistance="0.5" thermal="40 0.5 0 0.05 25 35"/>"#,
        ctrl: "6",
        tamper: ("0.05 25", "0.06 25"),
    },
    Kind {
        name: "LuGre bristle friction",
        actuator: r#"<dcmotor joint="j" motorconst="0.05" resistance="1" lugre="100 1 0.05 0.08 0.3"/>"#,
        ctrl: "1",
        tamper: ("0.05 0.08", "0.05 0.09"),
    },
    Kind {
        name: "cogging",
        actuator: r#"<dcmotor joint="j" motorconst="0.05" resistance="1" cogging="0.2 6 0.3"/>"#,
        ctrl: "0.5",
        tamper: ("6 0.3", "6 0.4"),
    },
    Kind {
        name: "controller with integral, Imax and Vmax",
        actuator: r#"<dcmotor joint="j" motorconst="0.2" resistance="1" input="pos vel ff" controller="5 3 0.2 0 0.05 4"/>"#,
        ctrl: "0.8 0.1 0.05",
        tamper: ("0.05 4", "0.04 4"),
    },
    Kind {
        name: "controller slew with voltage input and force saturation",
        actuator: r#"<dcmotor joint="j" motorconst="0.2" resistance="1" input="pos voltage" controller="4 0 0 0.5 0 0" saturation="0.8 0 0"/>"#,
        ctrl: "1.2 0.3",
        tamper: ("0.5 0 0", "0.6 0 0"),
    },
    Kind {
        name: "passive motor (no inputs)",
        actuator: r#"<dcmotor joint="j" motorconst="0.3" resistance="1" input="none"/>"#,
        ctrl: "",
        tamper: (r#"motorconst="0.3""#, r#"motorconst="0.25""#),
    },
    Kind {
        name: "PID integral with imax",
        actuator: r#"<pid joint="j" kp="20" kv="1" ki="8" imax="0.05"/>"#,
        ctrl: "-0.4 0.2",
        tamper: (r#"imax="0.05""#, r#"imax="0.04""#),
    },
    Kind {
        name: "PID slew with feedforward",
        actuator: r#"<pid joint="j" kp="20" kv="1" slewmax="0.8" input="pos ff"/>"#,
        ctrl: "-0.4 0.3",
        tamper: (r#"slewmax="0.8""#, r#"slewmax="0.9""#),
    },
];

/// The actuation stage and the Euler advance in Rust, `steps` steps from the keyframe.
fn run(m: &Model, steps: usize, tamper: Option<Tamper>) -> specula::mj::stages::StageDiffReport {
    let stages = StageSet::NONE.with(Stage::FwdActuation).with(Stage::Euler);
    diff_stages(m, &StageDiffOptions { steps, start: Start::Key("go".into()), stages, tamper }).unwrap()
}

/// MuJoCo's own state after `steps` steps of `m` from its keyframe.
fn mujoco_state(m: &Model, steps: usize) -> Vec<f64> {
    let mut d = Data::new(m).unwrap();
    d.reset_keyframe(0).unwrap();
    for _ in 0..steps {
        d.step().unwrap();
    }
    d.state(state::INTEGRATION)
}

#[test]
fn every_dc_motor_and_pid_kind_matches_mujoco_and_its_parameter_is_live() {
    for k in KINDS {
        let xml = scene(k.actuator, k.ctrl);
        let m = Model::from_xml_str(&xml).unwrap();
        let r = run(&m, 200, None);
        let (a, e) = (Stage::FwdActuation.index(), Stage::Euler.index());
        assert!(r.matches(), "{}: {:?} {:?}", k.name, r.first, r.trajectory);
        // the advance of a bristle needs the actuator velocity: that Euler step stays MuJoCo's
        let euler = if k.actuator.contains("lugre") { (0, 200) } else { (200, 0) };
        assert_eq!((r.compared[a], r.skipped[a]), (200, 0), "{}: {r:?}", k.name);
        assert_eq!((r.compared[e], r.skipped[e]), euler, "{}: {r:?}", k.name);
        assert!(xml.contains(k.tamper.0), "{}: tamper text not found", k.name);
        let tampered = Model::from_xml_str(&xml.replace(k.tamper.0, k.tamper.1)).unwrap();
        let (s0, s1) = (mujoco_state(&m, 200), mujoco_state(&tampered, 200));
        assert!(s0.iter().zip(&s1).any(|(x, y)| x.to_bits() != y.to_bits()), "{}: parameter not live", k.name);
    }
}

#[test]
fn one_ulp_in_a_dc_motor_force_is_reported() {
    let m = Model::from_xml_str(&scene(KINDS[3].actuator, KINDS[3].ctrl)).unwrap();
    let first = run(&m, 5, Some(Tamper::Output(Stage::FwdActuation))).first.expect("a tampered stage must differ");
    assert_eq!((first.stage, first.step), (Stage::FwdActuation, 1));
}

#[test]
fn the_corpus_dc_motor_scene_runs_in_rust_under_every_integrator() {
    let f = Path::new("../shared/mjcf/corpus/test/engine/testdata/derivative/dcmotor.xml");
    if !f.is_file() {
        eprintln!("skipped: no MuJoCo corpus at {}", f.display());
        return;
    }
    for integrator in [0, 1, 2, 3] {
        let mut m = Model::from_xml_path(f).unwrap();
        m.set_integrator(integrator).unwrap();
        let stages = StageSet::NONE.with(Stage::FwdActuation);
        let r = diff_stages(&m, &StageDiffOptions { steps: 100, start: Start::Qpos0, stages, tamper: None }).unwrap();
        let i = Stage::FwdActuation.index();
        assert!(r.matches(), "integrator {integrator}: {:?}", r.first);
        assert!(r.compared[i] >= 100 && r.skipped[i] == 0, "integrator {integrator}: {r:?}");
    }
}

#[test]
fn pid_actuators_run_in_rust_under_the_implicit_integrators() {
    let actuators = r#"<pid joint="j" kp="20" kv="1" ki="8" imax="0.05" slewmax="0.8" forcerange="-0.5 0.5"/>"#;
    for integrator in [2, 3] {
        let mut m = Model::from_xml_str(&scene(actuators, "-0.4 0.2")).unwrap();
        m.set_integrator(integrator).unwrap();
        let stages = StageSet::NONE.with(Stage::FwdActuation).with(Stage::Implicit);
        let r = diff_stages(&m, &StageDiffOptions { steps: 200, start: Start::Key("go".into()), stages, tamper: None })
            .unwrap();
        let (a, i) = (Stage::FwdActuation.index(), Stage::Implicit.index());
        assert!(r.matches(), "integrator {integrator}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[a], r.skipped[a], r.compared[i], r.skipped[i]), (200, 0, 200, 0), "{r:?}");
    }
}
