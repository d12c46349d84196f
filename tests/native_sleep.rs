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

/// Two boxes resting side by side on a plane (their contacts make them one island, the first
/// to sleep), a swinging damped pendulum, an actuated hinge (never sleeps) and a ball the
/// keyframe launches at the boxes: it wakes them by contact at step 133, and they fall asleep
/// again.
const SCENE: &str = include_str!("../native/tests/scenes/wake_by_impact.xml");

/// The integrators the grid runs.
const INTEGRATORS: [&str; 4] = ["Euler", "implicitfast", "implicit", "RK4"];

/// The integrators whose steps with trees asleep the native route takes.
const ASLEEP_INTEGRATORS: [&str; 3] = ["Euler", "implicitfast", "implicit"];

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
        // the resting boxes sleep first (one cycle of the two, or each its own)
        assert!(s.tree_asleep[..2].iter().all(|&t| (0..2).contains(&t)), "{integrator}: {:?}", s.tree_asleep);
        assert!(s.tree_asleep[2..].iter().all(|&t| t < 0), "{integrator}: {:?}", s.tree_asleep);
        eprintln!("{integrator}: {k} steps bit for bit, the last one putting trees to sleep");
    }
}

#[test]
fn asleep_trees_and_their_waking_by_contact_step_like_mj_step() {
    for integrator in ASLEEP_INTEGRATORS {
        let xml = with_integrator(integrator);
        let c = CModel::from_xml_str(&xml).unwrap();
        // the wake by the ball's contact at step 133, then asleep again
        let mut woke = false;
        let mut n = native(&xml);
        let r = diff_native(&c, &mut n, &opts(132)).unwrap();
        assert!(r.matches(), "{integrator}: {:?}", r.first);
        assert!(n.data.sleep.tree_asleep[0] >= 0, "{integrator}: the boxes sleep before the impact");
        for _ in 0..10 {
            n.step().unwrap();
            woke |= n.data.sleep.tree_asleep[..2].iter().all(|&t| t < 0);
        }
        assert!(woke, "{integrator}: the ball wakes the boxes");
        let r = diff_native(&c, &mut native(&xml), &opts(1000)).unwrap();
        assert!(r.matches(), "{integrator}: {:?}", r.first);
        eprintln!("{integrator}: 1000 steps bit for bit, {} values, sleep arrays included", r.values);
        // from qpos0 (the ball at rest): the world's subtree centre with asleep children
        // rescaled differs from a full sum within 50 steps under each of these integrators
        let o = NativeDiffOptions { start: Start::Qpos0, ..opts(1000) };
        let r = diff_native(&c, &mut native(&xml), &o).unwrap();
        assert!(r.matches(), "{integrator}, qpos0: {:?}", r.first);
    }
    // RK4's stages with trees asleep are refused by name
    let xml = with_integrator("RK4");
    let e = diff_native(&CModel::from_xml_str(&xml).unwrap(), &mut native(&xml), &opts(1000)).unwrap_err().to_string();
    assert!(e.contains("RK4's stages with trees asleep"), "{e}");
}

#[test]
fn a_velocity_set_on_an_asleep_tree_wakes_it() {
    let xml = with_integrator("implicit");
    let c = CModel::from_xml_str(&xml).unwrap();
    // one bit of the asleep box's velocity (step 100): the native route wakes it, MuJoCo's data
    // was not touched, and the comparison sees it at once
    let mut n = native(&xml);
    let o = NativeDiffOptions { tamper: Some(100), ..opts(200) };
    let r = diff_native(&c, &mut n, &o).unwrap();
    // the woken box moves by the set velocity: its position is the first array to differ
    assert_eq!(r.first.map(|f| (f.step, f.field, f.index)), Some((100, "qpos", 0)));
    assert!(n.data.sleep.tree_asleep[0] < 0, "the set velocity woke the box");
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

/// A named change of the native model.
type Tamper = (&'static str, fn(&mut Native));

#[test]
fn tampered_sleep_inputs_make_the_comparison_fail() {
    let xml = with_integrator("Euler");
    let k = first_sleep(&xml);
    let c = CModel::from_xml_str(&xml).unwrap();
    let tampers: [Tamper; 2] = [
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
