//! The body-level and contact terms of `mj_passive` (gravity compensation, also through
//! actuators; the inertia-box and ellipsoid fluid models with wind; contact adhesion) in Rust
//! inside MuJoCo's step and on the native route, against MuJoCo C 4.0.0: call by call and over
//! the trajectory, dense and sparse Jacobians; the scenes do exercise each force; one ulp in an
//! output is reported.

use std::path::Path;

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageSet, Tamper};
use specula::mj::{Data, Model};
use specula::native_diff::{diff_native, NativeDiffOptions};
use specula::sim::Start;
use specula_native::Native;

/// Bodies of every joint type with partial, full and over-compensation; one joint takes its
/// share through its actuator.
const GRAVCOMP: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
  <body pos="0 0 1" gravcomp="1"><joint name="a" axis="0 1 0" damping="0.1"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
    <body pos="0.3 0 0" gravcomp="0.5"><joint axis="0 1 0" actuatorgravcomp="true"/>
      <geom type="box" size="0.1 0.05 0.03" pos="0.1 0 0"/>
      <body pos="0.2 0 0" gravcomp="0.7"><joint type="ball"/><geom size="0.05" pos="0.05 0.02 0"/></body>
    </body></body>
  <body pos="1 0 1" gravcomp="0.3"><freejoint/><geom type="ellipsoid" size="0.1 0.07 0.05"/></body>
  <body pos="-1 0 1" gravcomp="2"><joint type="slide" axis="0 0 1"/><joint axis="1 0 0"/>
    <geom type="cylinder" size="0.05 0.1"/></body>
  </worldbody><actuator><motor joint="a" gear="2"/></actuator></mujoco>"#;

/// The inertia-box model with density, viscosity and wind on free, hinged, ball and static
/// bodies.
const FLUID: &str = r#"<mujoco><option timestep="0.002" density="1.2" viscosity="0.0002" wind="0.5 -0.3 0.1"/>
  <worldbody>
  <body pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.02" mass="0.3"/></body>
  <body pos="0.5 0 1"><joint axis="0 0 1"/><geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.03"/>
    <body pos="0.3 0.1 0"><joint axis="1 0 0"/><joint type="slide" axis="0 1 0"/>
      <geom type="cylinder" size="0.05 0.1" pos="0.05 0 0"/></body></body>
  <body pos="-0.5 0 1"><joint type="ball"/><geom type="ellipsoid" size="0.2 0.05 0.1" pos="0.1 0 0"/></body>
  <body pos="0 0 0.2"><geom size="0.1"/></body>
  </worldbody></mujoco>"#;

/// The ellipsoid model on boxes, capsules, cylinders, spheres and ellipsoids (one geom left
/// out, one with its own coefficients) beside a body of the inertia-box model.
const ELLIPSOID: &str = r#"<mujoco><option timestep="0.002" density="1000" viscosity="0.001" wind="0.3 0.2 -0.1"/>
  <default><geom fluidshape="ellipsoid"/></default><worldbody>
  <body pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.02" mass="0.3"/>
    <geom size="0.03" pos="0.1 0 0" fluidshape="none"/></body>
  <body pos="0.5 0 1"><joint axis="0 0 1"/>
    <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.03" fluidcoef="0.4 0.3 1.2 0.8 1.5"/>
    <body pos="0.3 0.1 0"><joint axis="1 0 0"/><joint type="slide" axis="0 1 0"/>
      <geom type="cylinder" size="0.05 0.1" pos="0.05 0 0"/></body></body>
  <body pos="-0.5 0 1"><joint type="ball"/><geom type="ellipsoid" size="0.2 0.05 0.1" pos="0.1 0 0"/>
    <geom size="0.04" pos="-0.1 0 0"/></body>
  <body pos="0 0.6 1"><freejoint/><geom type="ellipsoid" size="0.1 0.1 0.02"/></body>
  <body pos="0 -0.6 1"><freejoint/><geom type="box" size="0.1 0.04 0.02" fluidshape="none"/></body>
  </worldbody></mujoco>"#;

/// Adhesive geoms resting on and hanging near an adhesive plane, some contacts in the gap.
const ADHESION: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
  <geom type="plane" size="2 2 0.1" adhesion="0.5"/>
  <body pos="0 0 0.049"><freejoint/><geom type="box" size="0.05 0.05 0.05" adhesion="2" margin="0.01" gap="0.005"/></body>
  <body pos="0.3 0 0.2"><joint type="slide" axis="0 0 1"/><joint axis="0 1 0"/><geom size="0.05" adhesion="1"/>
    <body pos="0 0 -0.15"><joint axis="1 0 0"/><geom type="capsule" size="0.03 0.05" adhesion="3"/></body></body>
  <body pos="-0.3 0 0.1"><freejoint/><geom type="cylinder" size="0.05 0.05"/></body>
  </worldbody></mujoco>"#;

/// `xml` with `jacobian` set.
fn with_jacobian(xml: &str, jacobian: &str) -> String {
    xml.replacen("<option ", &format!("<option jacobian=\"{jacobian}\" "), 1)
}

fn run(xml: &str, steps: usize, tamper: Option<Tamper>) -> specula::mj::stages::StageDiffReport {
    let m = Model::from_xml_str(xml).unwrap();
    let opts = StageDiffOptions { steps, start: Start::Qpos0, stages: StageSet::NONE.with(Stage::Passive), tamper };
    diff_stages(&m, &opts).unwrap()
}

/// The largest magnitude MuJoCo's `mj_step` puts in `qfrc_gravcomp`, `qfrc_fluid` and
/// `qfrc_adhesion` over `steps` steps.
fn largest_forces(xml: &str, steps: usize) -> [f64; 3] {
    let m = Model::from_xml_str(xml).unwrap();
    let mut d = Data::new(&m).unwrap();
    let nv = m.mj().nv as usize;
    let mut most = [0.0f64; 3];
    for _ in 0..steps {
        d.step().unwrap();
        let raw = d.mj();
        for (k, p) in [raw.qfrc_gravcomp, raw.qfrc_fluid, raw.qfrc_adhesion].into_iter().enumerate() {
            // SAFETY: each array holds nv values.
            let v = unsafe { std::slice::from_raw_parts(p, nv) };
            most[k] = v.iter().fold(most[k], |a, x| a.max(x.abs()));
        }
    }
    most
}

#[test]
fn each_scene_exercises_its_force() {
    assert!(largest_forces(GRAVCOMP, 50)[0] > 1.0);
    assert!(largest_forces(FLUID, 50)[1] > 1e-3);
    assert!(largest_forces(ELLIPSOID, 50)[1] > 1.0);
    assert!(largest_forces(ADHESION, 50)[2] > 1.0);
}

#[test]
fn every_passive_call_matches_mujoco_dense_and_sparse() {
    for (name, xml) in [("gravcomp", GRAVCOMP), ("fluid", FLUID), ("ellipsoid", ELLIPSOID), ("adhesion", ADHESION)] {
        for jacobian in ["dense", "sparse"] {
            let r = run(&with_jacobian(xml, jacobian), 200, None);
            assert!(r.matches(), "{name} {jacobian}: {:?} {:?}", r.first, r.trajectory);
            let i = Stage::Passive.index();
            assert_eq!((r.compared[i], r.skipped[i]), (200, 0), "{name} {jacobian}");
        }
    }
}

#[test]
fn one_ulp_in_a_passive_output_is_reported() {
    for xml in [GRAVCOMP, FLUID, ELLIPSOID, ADHESION] {
        let first = run(xml, 5, Some(Tamper::Output(Stage::Passive))).first.expect("a tampered stage must differ");
        assert_eq!(first.stage, Stage::Passive);
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1, "{first:?}");
        // the stack high-water marks left by mj_applyFT and adhesion are compared too
        assert!(run(xml, 5, Some(Tamper::Struct(Stage::Passive))).first.is_some());
    }
}

#[test]
fn the_native_route_steps_the_passive_scenes_like_mj_step() {
    // sparse Jacobians only where no constraint rows arise (the native Newton solver is dense)
    let cases = [
        ("gravcomp", GRAVCOMP, "sparse"),
        ("gravcomp", GRAVCOMP, "dense"),
        ("fluid", FLUID, "dense"),
        ("ellipsoid", ELLIPSOID, "sparse"),
        ("adhesion", ADHESION, "dense"),
    ];
    for (name, xml, jacobian) in cases {
        let xml = with_jacobian(xml, jacobian);
        let c = Model::from_xml_str(&xml).unwrap();
        let mut native = Native::load_str(&xml, Path::new("."), "passive.xml").expect("inside the native subset");
        let opts = NativeDiffOptions { steps: 300, start: Start::Qpos0, tamper: None };
        let rep = diff_native(&c, &mut native, &opts).unwrap();
        assert!(rep.matches(), "{name} {jacobian}: {:?} {:?}", rep.first, rep.stopped);
    }
    // the comparison sees a one-ulp change
    let c = Model::from_xml_str(FLUID).unwrap();
    let mut native = Native::load_str(FLUID, Path::new("."), "passive.xml").unwrap();
    let opts = NativeDiffOptions { steps: 20, start: Start::Qpos0, tamper: Some(3) };
    assert!(!diff_native(&c, &mut native, &opts).unwrap().matches());
}

/// `xml` with `integrator` set.
fn with_integrator(xml: &str, integrator: &str) -> String {
    xml.replacen("<option ", &format!("<option integrator=\"{integrator}\" "), 1)
}

#[test]
fn the_inertia_box_derivative_matches_mujoco_under_the_implicit_integrators() {
    // the scene as it is, and in water (the derivative then weighs more in qDeriv)
    let water = FLUID.replacen(r#"density="1.2" viscosity="0.0002""#, r#"density="1000" viscosity="0.01""#, 1);
    for integrator in ["implicit", "implicitfast"] {
        for (name, scene) in [("fluid", FLUID), ("water", water.as_str())] {
            let xml = with_integrator(scene, integrator);
            // in MuJoCo's step: every mj_implicitSkip call in Rust, qDeriv and the stack marks equal
            let m = Model::from_xml_str(&xml).unwrap();
            let stages = StageSet::NONE.with(Stage::Implicit);
            let r =
                diff_stages(&m, &StageDiffOptions { steps: 300, start: Start::Qpos0, stages, tamper: None }).unwrap();
            assert!(r.matches(), "{name} {integrator}: {:?} {:?}", r.first, r.trajectory);
            let i = Stage::Implicit.index();
            assert_eq!((r.compared[i], r.skipped[i]), (300, 0), "{name} {integrator}");
            // on the native route
            let mut native = Native::load_str(&xml, Path::new("."), "passive.xml").expect("inside the native subset");
            let opts = NativeDiffOptions { steps: 300, start: Start::Qpos0, tamper: None };
            let rep = diff_native(&m, &mut native, &opts).unwrap();
            assert!(rep.matches(), "{name} {integrator}: {:?} {:?}", rep.first, rep.stopped);
        }
    }
}

#[test]
fn fluid_derivatives_not_in_rust_are_refused_on_the_native_route() {
    // the ellipsoid model's derivative, and the inertia-box model's on a sparse Jacobian
    for (scene, jacobian, needs) in [(ELLIPSOID, "dense", "mjd_ellipsoidFluid"), (FLUID, "sparse", "sparse velocity")] {
        for integrator in ["implicit", "implicitfast"] {
            let xml = with_integrator(&with_jacobian(scene, jacobian), integrator);
            let Err(err) = Native::load_str(&xml, Path::new("."), "passive.xml") else {
                panic!("{needs} {integrator}: not refused")
            };
            assert!(err.to_string().contains(needs), "{integrator}: {err}");
        }
    }
}
