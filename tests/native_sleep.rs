//! Sleep on the native route (`native/src/sleep.rs`) against MuJoCo C 4.0.0's `mj_step`: the
//! trees' sleep counters and awake lists compared after every step, through the step in which
//! trees fall asleep (stages run again, awake dofs advanced), under every integrator; the sleep
//! policies against the compiled model's; the comparison fails on a tampered tolerance or dof
//! length, and a step starting with a tree asleep is refused by name.

use specula::mj::Model as CModel;
use specula::native_diff::{diff_native, NativeDiffOptions};
use specula::report::Start;
use specula_native::sleep::{policies, SleepPolicy};
use specula_native::Native;

/// A box resting on a plane (its contacts make it an island: the first to sleep), a box
/// dropped beside it, a swinging damped pendulum, an actuated hinge (never sleeps) and a ball
/// launched by the keyframe.
const SCENE: &str = r#"<mujoco model="sleepers">
  <option timestep="0.002" sleep_tolerance="2e-3">
    <flag sleep="enable"/>
  </option>
  <default><geom type="box" size="0.1 0.1 0.1"/></default>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body pos="0 0 0.1"><freejoint/><geom/></body>
    <body pos="0.8 -0.5 0.3"><freejoint/><geom/></body>
    <body pos="1 1 0.5">
      <joint type="hinge" axis="1 0 0" damping="2"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.02"/>
    </body>
    <body pos="-1 1 0.5">
      <joint name="motor" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" contype="0" conaffinity="0"/>
    </body>
    <body pos="-1.5 0 0.15"><freejoint/><geom type="sphere" size="0.05" mass="2"/></body>
  </worldbody>
  <actuator><motor joint="motor"/></actuator>
  <keyframe><key qvel="0 0 0 0 0 0  0 0 0 0 0 0  2  0  0.4 0 0 0 0 0"/></keyframe>
</mujoco>"#;

/// The integrators the grid runs.
const INTEGRATORS: [&str; 4] = ["Euler", "implicitfast", "implicit", "RK4"];

fn with_integrator(integrator: &str) -> String {
    SCENE.replace(r#"sleep_tolerance="2e-3""#, &format!(r#"sleep_tolerance="2e-3" integrator="{integrator}""#))
}

fn native(xml: &str) -> Native {
    Native::load_str(xml, std::path::Path::new("."), "sleepers.xml").unwrap()
}

fn opts(steps: usize) -> NativeDiffOptions {
    NativeDiffOptions { steps, start: Start::Key("0".into()), tamper: None }
}

/// The step (1-based) after which the first tree is asleep on the native route.
fn first_sleep(xml: &str) -> usize {
    let mut n = native(xml);
    n.reset_keyframe(0).unwrap();
    let ntree = n.model.model.ntree;
    for k in 1..=2000 {
        n.step().unwrap();
        if n.data.sleep.ntree_awake < ntree {
            return k;
        }
    }
    panic!("no tree fell asleep in 2000 steps");
}

#[test]
fn trees_fall_asleep_like_mj_step_under_every_integrator() {
    for integrator in INTEGRATORS {
        let xml = with_integrator(integrator);
        let k = first_sleep(&xml);
        let c = CModel::from_xml_str(&xml).unwrap();
        let mut n = native(&xml);
        let r = diff_native(&c, &mut n, &opts(k)).unwrap();
        assert!(r.matches(), "{integrator}: {:?}", r.first);
        assert_eq!(r.steps, k);
        let s = &n.data.sleep;
        // the resting box, constrained by its contacts, sleeps first; the others are awake
        assert_eq!(s.tree_asleep[0], 0, "{integrator}: {:?}", s.tree_asleep);
        assert!(s.tree_asleep[1..].iter().all(|&t| t < 0), "{integrator}: {:?}", s.tree_asleep);
        // the next step starts with a tree asleep: refused by name, after all steps before it
        let e = diff_native(&c, &mut native(&xml), &opts(k + 1)).unwrap_err().to_string();
        assert!(e.contains("asleep trees"), "{integrator}: {e}");
        eprintln!("{integrator}: {k} steps bit for bit, the last one putting trees to sleep");
    }
}

#[test]
fn sleep_policies_are_the_compilers() {
    let c = CModel::from_xml_str(SCENE).unwrap();
    let n = native(SCENE);
    let ours = policies(&n.model.model).unwrap();
    let ntree = c.mj().ntree as usize;
    // SAFETY: tree_sleep_policy holds ntree entries in MuJoCo's compiled model
    let theirs = unsafe { std::slice::from_raw_parts(c.mj().tree_sleep_policy, ntree) };
    assert_eq!(ours.iter().map(|&p| p as i32).collect::<Vec<_>>(), theirs);
    assert_eq!(ours[3], SleepPolicy::AutoNever, "the actuated hinge never sleeps");
}

#[test]
fn tampered_sleep_inputs_make_the_comparison_fail() {
    let xml = with_integrator("Euler");
    let k = first_sleep(&xml);
    let c = CModel::from_xml_str(&xml).unwrap();
    let tampers: [(&str, fn(&mut Native)); 2] = [
        ("tolerance", |n| n.model.model.opt.sleep_tolerance *= 4.0),
        ("dof_length", |n| n.model.consts.dof_length.iter_mut().for_each(|l| *l *= 0.25)),
    ];
    for (name, tamper) in tampers {
        let mut n = native(&xml);
        tamper(&mut n);
        let r = diff_native(&c, &mut n, &opts(k)).unwrap();
        let first = r.first.unwrap_or_else(|| panic!("{name}: the tamper went unseen"));
        assert_eq!(first.field, "tree_asleep", "{name}: {first:?}");
    }
}
