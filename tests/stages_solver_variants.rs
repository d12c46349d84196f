//! Solver variants of the Rust stages: `mj_fwdConstraint`'s Newton and CG without islands
//! (`<flag island="disable"/>`: one problem over every dof and row, `docs/measurements.md` D69)
//! and without warm start (D70), and `mj_projectConstraint` with the exact diagonal (D71): every
//! call the same bits as MuJoCo's (iterations, statistics, island 0's counts and the stack marks
//! too), and a comparison that fails when a stage's result is one ulp off.

use mujoco_sys as sys;
use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{with_comparison, Stage, StageSet, Tamper};
use specula::mj::{Data, Model};
use specula::sim::Start;

/// Two separate stacks of boxes (condim 3 and 6), a limited pendulum with friction loss, and a
/// free sphere that never touches anything: several islands when islands are on, and dofs in
/// no island at all, which the one problem without islands still carries.
fn scene(option: &str, flags: &str) -> String {
    let stack = |x: f64, condim: i32| -> String {
        (0..3)
            .map(|k| {
                let z = 0.099 + 0.2 * k as f64;
                format!(
                    r#"<body pos="{x} {} {z}"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>"#,
                    0.02 * k as f64
                )
            })
            .collect()
    };
    format!(
        r#"<mujoco><option impratio="2" {option}><flag {flags}/></option>
        <worldbody><geom type="plane" size="5 5 .1"/>{}{}
          <body pos="0 1.5 .8"><joint type="hinge" axis="0 1 0" range="-15 15" limited="true" frictionloss=".05"/>
            <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03" contype="0" conaffinity="0"/></body>
          <body pos="3 3 3"><freejoint/><geom type="sphere" size=".1" contype="0" conaffinity="0"/></body>
        </worldbody></mujoco>"#,
        stack(-1.0, 3),
        stack(1.0, 6)
    )
}

/// Solver options and flags: Newton and CG, dense and sparse, both cones, noslip, no warm start
/// (gravity tilted: the boxes slide and the calls iterate).
const CASES: [(&str, &str); 12] = [
    (r#"gravity="3 0 -9.81" solver="Newton" jacobian="dense""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="Newton" jacobian="sparse""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="Newton" jacobian="sparse" cone="elliptic""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="Newton" jacobian="dense" cone="elliptic""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="CG" jacobian="sparse""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="CG" jacobian="dense""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="CG" jacobian="sparse" cone="elliptic""#, r#"island="disable""#),
    (r#"gravity="3 0 -9.81" solver="Newton" jacobian="dense" noslip_iterations="3""#, r#"island="disable""#),
    (
        r#"gravity="3 0 -9.81" solver="Newton" jacobian="dense" cone="elliptic""#,
        r#"island="disable" warmstart="disable""#,
    ),
    (r#"gravity="3 0 -9.81" solver="CG" jacobian="dense""#, r#"island="disable" warmstart="disable""#),
    (r#"gravity="3 0 -9.81" solver="Newton" jacobian="dense""#, r#"warmstart="disable""#),
    (r#"gravity="3 0 -9.81" solver="CG" jacobian="sparse" cone="elliptic""#, r#"warmstart="disable""#),
];

#[test]
fn calls_without_islands_or_warm_start_match_mujoco_and_one_ulp_is_reported() {
    let i = Stage::FwdConstraint.index();
    let stages = StageSet::NONE.with(Stage::FwdConstraint);
    let opts = |tamper| StageDiffOptions { steps: 80, start: Start::Qpos0, stages, tamper };
    for (option, flags) in CASES {
        let model = Model::from_xml_str(&scene(option, flags)).unwrap();
        let r = diff_stages(&model, &opts(None)).unwrap();
        assert!(r.matches(), "{option} {flags}: {:?} {:?}", r.first, r.trajectory);
        // nothing is left to the library (sparse Newton's iterations included, D84)
        assert_eq!((r.skipped[i], r.compared[i]), (0, 80), "{option} {flags}: {r:?}");
        // the stacks touch the plane from the first step: the tampered call is a solver call
        let first = diff_stages(&model, &opts(Some(Tamper::Output(Stage::FwdConstraint)))).unwrap().first;
        let first = first.expect("a tampered call must differ");
        assert_eq!((first.stage, first.field, first.step), (Stage::FwdConstraint, "qacc", 1), "{option}");
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
    }
}

#[test]
fn sparse_newton_without_islands_runs_every_call() {
    // the chain at rest: most calls' warm start is certified (no Hessian), the rest iterate
    // (sparse Newton's frames over all rows, D84)
    let i = Stage::FwdConstraint.index();
    let xml = include_str!("../scenes/chain.xml").replacen("<option ", r#"<option jacobian="sparse" "#, 1).replacen(
        r#"<flag speculative="enable"/>"#,
        r#"<flag speculative="enable" island="disable"/>"#,
        1,
    );
    assert!(xml.contains(r#"island="disable""#) && xml.contains(r#"jacobian="sparse""#));
    let model = Model::from_xml_str(&xml).unwrap();
    let stages = StageSet::NONE.with(Stage::FwdConstraint);
    let r = diff_stages(&model, &StageDiffOptions { steps: 300, start: Start::Qpos0, stages, tamper: None }).unwrap();
    assert!(r.matches(), "{:?} {:?}", r.first, r.trajectory);
    assert_eq!((r.compared[i], r.skipped[i]), (300, 0), "{r:?}");
}

#[test]
fn one_problem_iterates_with_mujocos_statistics_and_stack_marks() {
    let i = Stage::FwdConstraint.index();
    let set = StageSet::NONE.with(Stage::FwdConstraint);
    let (mut calls, mut iterated) = (0, 0);
    for (option, flags) in CASES.iter().filter(|c| c.1.contains("island")) {
        let model = Model::from_xml_str(&scene(option, flags)).unwrap();
        let mut data = Data::new(&model).unwrap();
        for step in 0..50 {
            data.step().unwrap();
            data.with_mj(|m, d| {
                // the next step's state and warm start (this step's call is already solved)
                // SAFETY: MuJoCo's model and data.
                unsafe { sys::mj_forward(m, d) };
                assert_eq!(d.nisland, 0, "islands are off");
                // the high-water marks from zero: from earlier calls they would hide a wrong frame
                let (stack, arena) = (d.maxuse_stack, d.maxuse_arena);
                (d.maxuse_stack, d.maxuse_arena) = (0, 0);
                let ((), r) = with_comparison(set, None, |_| {
                    // SAFETY: MuJoCo's model and data; the exported function is specula's.
                    unsafe { sys::mj_fwdConstraint(m, d) }
                });
                assert_eq!((r.compared[i], r.differing[i]), (1, 0), "{option} {flags} step {step}: {:?}", r.first);
                assert!(d.maxuse_stack > 0, "{option}: the call used the stack");
                (d.maxuse_stack, d.maxuse_arena) = (stack.max(d.maxuse_stack), arena.max(d.maxuse_arena));
                calls += 1;
                // one problem: island 0's statistics only
                assert!(d.solver_niter[1..].iter().all(|&n| n == 0), "{option}");
                if d.solver_niter[0] > 0 {
                    iterated += 1;
                    assert!(d.solver[0].neval > 0, "{option}");
                }
            })
            .unwrap();
        }
    }
    assert!(calls == 10 * 50 && iterated > 100, "{calls} calls, {iterated} iterated");
}

#[test]
fn the_exact_diagonal_and_its_impedance_match_mujoco_and_one_ulp_is_reported() {
    // mj_projectConstraint with mjENBL_DIAGEXACT (D71): efc_diagA from efc_Y, mj_makeImpedance
    // again, the island copies of D and R gathered again; under Newton (no efc_AR), PGS and
    // noslip, dense and sparse, both cones, islands on and off
    let stages = StageSet::NONE.with(Stage::MakeConstraint).with(Stage::ProjectConstraint).with(Stage::FwdConstraint);
    let p = Stage::ProjectConstraint.index();
    let opts = |tamper| StageDiffOptions { steps: 60, start: Start::Qpos0, stages, tamper };
    for (option, flags) in [
        (r#"solver="Newton" jacobian="dense""#, r#"diagexact="enable""#),
        (r#"solver="Newton" jacobian="sparse" cone="elliptic""#, r#"diagexact="enable""#),
        (r#"solver="PGS" jacobian="dense" cone="elliptic""#, r#"diagexact="enable""#),
        (r#"solver="PGS" jacobian="sparse""#, r#"diagexact="enable" island="disable""#),
        (r#"solver="CG" jacobian="dense" noslip_iterations="2""#, r#"diagexact="enable""#),
    ] {
        let model = Model::from_xml_str(&scene(option, flags)).unwrap();
        let r = diff_stages(&model, &opts(None)).unwrap();
        assert!(r.matches(), "{option} {flags}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[p], r.skipped[p]), (60, 0), "{option} {flags}: {r:?}");
        let first = diff_stages(&model, &opts(Some(Tamper::Output(Stage::ProjectConstraint)))).unwrap().first;
        let first = first.expect("a tampered projection must differ");
        assert_eq!((first.stage, first.step), (Stage::ProjectConstraint, 1), "{option} {flags}");
    }
}
