//! The CG solver of the Rust `mj_fwdConstraint` stage inside MuJoCo's step
//! (`docs/measurements.md` D30, D31): every call the same bits as MuJoCo's (its iterations, their
//! statistics and the stack marks too), dense and sparse Jacobian, pyramidal and elliptic cones,
//! and a comparison that fails when the stage's result is one ulp off.

use mujoco_sys as sys;
use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{with_comparison, Stage, StageSet, Tamper};
use specula::mj::{Data, Model};
use specula::sim::Start;

/// Boxes of condim 1, 3, 4 and 6 on a plane, a limited hinge with friction loss carrying a
/// limited slide, and a ball welded to it: contact, limit, friction-loss and equality rows for
/// the CG solver (`option`: attributes of `<option>`; `tilt`: gravity pushed past the friction
/// cone, so that contacts slide and elliptic ones sit on the cone).
fn scene(option: &str, tilt: bool) -> String {
    let boxes: String = (0..8)
        .map(|i| {
            let condim = [1, 3, 4, 6][i % 4];
            let (x, y) = (0.25 * (i % 4) as f64 - 0.4, 0.25 * (i / 4) as f64);
            format!(
                r#"<body pos="{x} {y} .099"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>"#
            )
        })
        .collect();
    let gravity = if tilt { r#" gravity="12 0 -9.81""# } else { "" };
    format!(
        r#"<mujoco><option solver="CG" impratio="3"{gravity} {option}/>
        <default><joint limited="true" frictionloss=".02"/></default>
        <worldbody><geom type="plane" size="5 5 .1"/>
          <body name="a" pos="0 1 .6"><joint type="hinge" axis="0 1 0" range="-20 20"/>
            <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
            <body pos=".3 0 0"><joint type="slide" axis="0 0 1" range="-.01 .01"/><geom type="sphere" size=".08"/></body>
          </body>
          <body name="b" pos="1 1 .6"><freejoint/><geom type="sphere" size=".05"/></body>{boxes}</worldbody>
        <equality><weld body1="a" body2="b"/></equality></mujoco>"#
    )
}

/// The option sets the tests run: both Jacobians and cones, no warm start, tolerance 0 (every
/// call to the iteration limit: the direction's restarts and its lower bound), and a short line
/// search, and noslip after CG.
const OPTIONS: [(&str, bool); 9] = [
    (r#"jacobian="dense""#, false),
    (r#"jacobian="sparse""#, false),
    (r#"cone="elliptic" jacobian="dense""#, true),
    (r#"cone="elliptic" jacobian="sparse""#, true),
    (r#"jacobian="dense"><flag warmstart="disable"/></option><option"#, false),
    (r#"cone="elliptic" jacobian="sparse" tolerance="0" iterations="30""#, true),
    (r#"jacobian="dense" tolerance="0" iterations="30""#, false),
    (r#"cone="elliptic" jacobian="dense" ls_iterations="3""#, true),
    (r#"cone="elliptic" jacobian="dense" noslip_iterations="3""#, true),
];

#[test]
fn cg_calls_match_mujoco_and_one_ulp_in_them_is_reported() {
    let i = Stage::FwdConstraint.index();
    let stages = StageSet::NONE.with(Stage::FwdConstraint);
    let opts = |tamper| StageDiffOptions { steps: 150, start: Start::Qpos0, stages, tamper };
    for (option, tilt) in OPTIONS {
        let model = Model::from_xml_str(&scene(option, tilt)).unwrap();
        let r = diff_stages(&model, &opts(None)).unwrap();
        assert!(r.matches(), "{option}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[i], r.skipped[i]), (150, 0), "{option}: {r:?}");
        assert_eq!(r.trajectory_counts.rust[i], 150, "{option}: {r:?}");
        // the boxes touch the plane from the first step: the tampered call is a CG call
        let first = diff_stages(&model, &opts(Some(Tamper::Output(Stage::FwdConstraint)))).unwrap().first;
        let first = first.expect("a tampered CG call must differ");
        assert_eq!((first.stage, first.field, first.step), (Stage::FwdConstraint, "qacc", 1), "{option}");
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
    }
}

#[test]
fn project_scenes_under_cg_match_mujoco() {
    // resting and thrown contacts whose warm start meets CG's certificate (the gap alone, D30)
    // while the gradient test fails: a Newton-style certificate would iterate them
    let i = Stage::FwdConstraint.index();
    let stages = StageSet::NONE.with(Stage::FwdConstraint);
    for (name, xml) in [
        ("chain", include_str!("../scenes/chain.xml")),
        ("ball_plate", include_str!("../scenes/ball_plate.xml")),
        ("resting", include_str!("../scenes/resting.xml")),
    ] {
        let xml = xml.replacen(r#"<option timestep"#, r#"<option solver="CG" timestep"#, 1);
        let model = Model::from_xml_str(&xml).unwrap();
        let r =
            diff_stages(&model, &StageDiffOptions { steps: 200, start: Start::Qpos0, stages, tamper: None }).unwrap();
        assert!(r.matches(), "{name}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[i], r.skipped[i]), (200, 0), "{name}: {r:?}");
    }
}

#[test]
fn cg_iterations_statistics_and_stack_marks_are_mujocos() {
    let i = Stage::FwdConstraint.index();
    let set = StageSet::NONE.with(Stage::FwdConstraint);
    let (mut calls, mut iterated, mut iterations) = (0, 0, 0);
    for (option, tilt) in OPTIONS {
        let model = Model::from_xml_str(&scene(option, tilt)).unwrap();
        let mut data = Data::new(&model).unwrap();
        for step in 0..100 {
            data.step().unwrap();
            data.with_mj(|m, d| {
                // the next step's state and warm start (this step's call is already solved)
                // SAFETY: MuJoCo's model and data.
                unsafe { sys::mj_forward(m, d) };
                // the high-water marks from zero: from earlier, bigger calls they would hide a
                // wrong frame size
                let (stack, arena) = (d.maxuse_stack, d.maxuse_arena);
                (d.maxuse_stack, d.maxuse_arena) = (0, 0);
                let ((), r) = with_comparison(set, None, |_| {
                    // SAFETY: MuJoCo's model and data; the exported function is specula's.
                    unsafe { sys::mj_fwdConstraint(m, d) }
                });
                assert_eq!((r.compared[i], r.differing[i]), (1, 0), "{option} step {step}: {:?}", r.first);
                assert!(d.maxuse_stack > 0, "{option}: the call used the stack");
                (d.maxuse_stack, d.maxuse_arena) = (stack.max(d.maxuse_stack), arena.max(d.maxuse_arena));
                calls += 1;
                let n: i32 = d.solver_niter.iter().sum();
                if n > 0 {
                    iterated += 1;
                    iterations += n;
                    // CG makes no factor updates; every iteration evaluated the line search
                    let k = (0..20).find(|&k| d.solver_niter[k] > 0).unwrap() * 200;
                    assert_eq!(d.solver[k].nupdate, 0, "{option}");
                    assert!(d.solver[k].neval > 0 && d.solver[k].gradient > 0.0, "{option}");
                }
            })
            .unwrap();
        }
    }
    assert!(calls == 900 && iterated > 300 && iterations > 3 * iterated, "{calls} {iterated} {iterations}");
}
