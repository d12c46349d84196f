//! The native route's RK4 and `implicit` steps (`native/src/rk4.rs`, `native/src/implicit.rs`)
//! and `implicitfast` on lone free bodies against MuJoCo C 4.0.0's `mj_step` under the same
//! integrator: inline scenes (every joint type, damping, springs, actuators, contacts, spinning
//! free bodies), then every project scene and corpus model the
//! native route accepts, 1000 steps each, array by array after every step; and the comparison
//! fails on a tampered input.
mod common;
mod native_steps;
use native_steps::*;

use specula::mj::Model as CModel;
use specula_model::types::Integrator;
use specula_native::{Native, NativeError};

/// Every joint type in one tree (a free root with a ball, a hinge and a slide below it), joint
/// damping and a spring, an actuated hinge beside it, gravity, a plane under the tree.
const TREE: &str = r#"<mujoco model="tree">
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="root" pos="0 0 1" quat="0.9 0.1 0.3 0.2">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="ball" pos="0.2 0 0">
        <joint type="ball" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body pos="0.3 0 0">
          <joint type="hinge" axis="0 1 1" damping="0.2" stiffness="3"/>
          <geom type="sphere" size="0.05"/>
          <body pos="0 0 -0.1">
            <joint type="slide" axis="1 0 0" damping="1"/>
            <geom type="box" size="0.03 0.03 0.03"/>
          </body>
        </body>
      </body>
    </body>
    <body name="arm" pos="-1 0 1.5">
      <joint name="a" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <position joint="a" kp="5" kv="0.5"/>
  </actuator>
  <keyframe><key qvel="0.1 -0.2 0.3 2 -1 3 1 -2 0.5 3 -1 1"/></keyframe>
</mujoco>"#;

const NATIVE_INTEGRATORS: [(&str, Integrator); 3] =
    [("RK4", Integrator::Rk4), ("implicit", Integrator::Implicit), ("implicitfast", Integrator::ImplicitFast)];

#[test]
fn lone_free_bodies_step_like_mj_step_under_implicitfast() {
    let xml = with_integrator(common::FREE_BODIES, "implicitfast");
    let o = run_keyed(&xml, 1000, |_| {});
    assert_eq!((o.diff, o.refused, o.steps), (None, None, 1000), "first difference (step, field, index)");
    assert!(o.rows.1 > 0, "the bodies must reach the plane");
    // without the bodies' own solve (their first dof's D row made to look like a longer tree's),
    // the accelerations are the symmetric factor's: seen at the first step
    let o = run_keyed(&xml, 5, |n| n.model.layout.d.rownnz[0] = 5);
    assert_eq!(o.diff.map(|d| d.0), Some(0), "the lone free body's solve went unseen");
}

#[test]
fn inline_tree_steps_like_mj_step_under_rk4_and_implicit() {
    for (name, _) in &NATIVE_INTEGRATORS[..2] {
        let xml = with_integrator(TREE, name);
        let o = run_keyed(&xml, 1000, |_| {});
        assert_eq!((o.diff, o.refused), (None, None), "{name}: first difference (step, field, index)");
        assert_eq!(o.steps, 1000, "{name}");
        assert!(o.rows.1 > 0, "{name}: the tree must reach the plane");
        eprintln!("tree, {name}: 1000 steps equal mj_step's bit for bit, {} contacts", o.rows.1);
    }
}

#[test]
fn tampered_inputs_make_the_integrator_checks_fail() {
    for (name, _) in &NATIVE_INTEGRATORS[..2] {
        let xml = with_integrator(TREE, name);
        // one ulp of one dof's damping
        let o = run_keyed(&xml, 200, |n| ulp(&mut n.model.model.dof_damping[6]));
        assert!(o.diff.is_some(), "{name}: a one-ulp damping change went unseen");
        // one ulp of the time step
        let o = run_keyed(&xml, 5, |n| ulp(&mut n.model.model.opt.timestep));
        assert!(o.diff.is_some(), "{name}: a one-ulp time step change went unseen");
    }
    let xml = with_integrator(TREE, "implicit");
    // implicit: a wrong map from M to D (qLU's start), a wrong weld body (the RNE derivative)
    let o = run_keyed(&xml, 5, |n| n.model.layout.map_m2d.swap(0, 1));
    assert!(o.diff.is_some(), "a changed mapM2D went unseen");
    // the ball's body seen as welded to the world: its velocity derivative loses the root's part
    let weld = |n: &mut Native| n.model.flat.body_weldid[2] = 0;
    assert!(run_keyed(&xml, 5, weld).diff.is_some(), "a changed weld body went unseen");
    // (under RK4, which has no derivative, the same change is not seen in those steps)
    assert_eq!(run_keyed(&with_integrator(TREE, "RK4"), 5, weld).diff, None);
}

#[test]
fn the_discrete_integrator_is_refused() {
    let xml = with_integrator(TREE, "discrete");
    match Native::load_str(&xml, std::path::Path::new("."), "inline.xml") {
        Err(e @ NativeError::Unsupported { .. }) => assert!(e.to_string().contains("discrete"), "{e}"),
        other => panic!("not refused: {other:?}"),
    }
}

/// Every project scene and corpus model the native route accepts, with its integrator set to
/// RK4, to implicit and to implicitfast on both sides, from its reset state, driven through `qfrc_applied`: 1000
/// steps beside `mj_step`.
#[test]
fn scenes_and_corpus_step_like_mj_step_under_rk4_implicit_and_implicitfast() {
    let (mut stepped, mut steps, mut refusals, mut step_refusals) =
        (Vec::new(), 0, std::collections::BTreeMap::new(), std::collections::BTreeMap::new());
    for path in model_files() {
        for (name, integrator) in NATIVE_INTEGRATORS {
            let (Ok(mut rust), Ok(mut c)) = (specula_model::load_file(&path), CModel::from_xml_path(&path)) else {
                continue;
            };
            rust.opt.integrator = integrator;
            c.set_integrator(integrator as i32).expect("unshared model");
            let native = match native_for(&path, rust) {
                Ok(n) => n,
                Err(NativeError::Unsupported { needs, .. }) => {
                    *refusals.entry(needs).or_insert(0) += 1;
                    continue;
                }
                Err(e) => panic!("{}: {e}", path.display()),
            };
            let o = step_both_driven(native, &c, None, 1000, true);
            assert_eq!(o.diff, None, "{} ({name}): first difference", path.display());
            steps += o.steps;
            if let Some(needs) = o.refused {
                *step_refusals.entry(needs).or_insert(0) += 1;
            }
            stepped.push(format!("{} ({name})", path.file_name().unwrap().to_string_lossy()));
        }
    }
    eprintln!(
        "stepped {} runs, {steps} steps, 0 differing: {stepped:?}; refused (by what is missing): {refusals:?}; refused at a step after equal steps: {step_refusals:?}",
        stepped.len()
    );
    assert!(stepped.len() >= 21, "the project scenes under the three integrators at least");
}
