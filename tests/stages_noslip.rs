//! The noslip pass of `mj_fwdConstraint` in Rust (`docs/measurements.md` D35-D37) after the
//! Newton and PGS solvers, and PGS on elliptic contacts of condim 6: the same bits as MuJoCo's
//! function at every call, the same trajectory, and a comparison that fails when one output
//! element is one ulp off.

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageDiffReport, StageSet, Tamper};
use specula::mj::{Data, Model};
use specula::sim::Start;

/// Boxes of every condim resting and sliding on a plane, a limited hinge with friction loss and a
/// limited slide, a sphere and a box landing: friction-loss, pyramidal and elliptic friction rows
/// for noslip; `option` goes into the `option` element.
fn scene(option: &str) -> String {
    let boxes: String = [1, 3, 4, 6, 6, 3]
        .iter()
        .enumerate()
        .map(|(i, condim)| {
            let (x, y) = (0.3 * (i % 3) as f64 - 0.3, 0.3 * (i / 3) as f64);
            format!(
                r#"<body pos="{x} {y} .099"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>"#
            )
        })
        .collect();
    format!(
        r#"<mujoco><option {option}/><worldbody><geom type="plane" size="5 5 .1" euler="4 3 0"/>
          <body pos="0 1 .6"><joint type="hinge" axis="0 1 0" range="-20 20" limited="true" frictionloss=".05"/>
            <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
            <body pos=".3 0 0"><joint type="slide" axis="0 0 1" range="-.01 .01" limited="true"/><geom type="sphere" size=".08"/></body>
          </body>{boxes}
          <body pos="0 -1 .3"><freejoint/><geom type="sphere" size=".1" condim="6"/></body>
          <body pos=".05 -1 .6"><freejoint/><geom type="box" size=".1 .1 .1" condim="4"/></body></worldbody></mujoco>"#
    )
}

fn diff(xml: &str, tamper: Option<Tamper>) -> StageDiffReport {
    let model = Model::from_xml_str(xml).unwrap();
    let stages = StageSet::NONE.with(Stage::FwdConstraint);
    diff_stages(&model, &StageDiffOptions { steps: 200, start: Start::Qpos0, stages, tamper }).unwrap()
}

/// The options compared: both solvers, both cones, dense and sparse `efc_AR`, and for PGS one
/// pass over all rows without islands.
const OPTIONS: [&str; 10] = [
    r#"solver="Newton" jacobian="dense""#,
    r#"solver="Newton" jacobian="sparse""#,
    r#"solver="Newton" cone="elliptic" jacobian="dense""#,
    r#"solver="Newton" cone="elliptic" jacobian="sparse""#,
    r#"solver="PGS" jacobian="dense""#,
    r#"solver="PGS" jacobian="sparse""#,
    r#"solver="PGS" cone="elliptic" jacobian="dense""#,
    r#"solver="PGS" cone="elliptic" jacobian="sparse""#,
    r#"solver="PGS" jacobian="dense"><flag island="disable"/></option><option"#,
    r#"solver="PGS" cone="elliptic" jacobian="sparse"><flag island="disable"/></option><option"#,
];

#[test]
fn noslip_after_newton_and_pgs_matches_mujoco_and_one_ulp_in_it_is_reported() {
    let i = Stage::FwdConstraint.index();
    let mut in_rust = 0;
    for option in OPTIONS {
        let xml = scene(&format!(r#"noslip_iterations="4" {option}"#));
        let r = diff(&xml, None);
        assert!(r.matches(), "{option}: {:?} {:?}", r.first, r.trajectory);
        // every call in Rust (sparse Newton with contacts on the cone too, D82 to D84)
        assert_eq!((r.skipped[i], r.compared[i]), (0, 200), "{option}: {r:?}");
        in_rust += 1;
        assert_eq!(r.trajectory_counts.rust[i], r.compared[i], "{option}: {r:?}");
        // the boxes touch the plane from the first step: a tampered call is one with noslip
        let first = diff(&xml, Some(Tamper::Output(Stage::FwdConstraint))).first;
        let first = first.unwrap_or_else(|| panic!("{option}: a tampered noslip call must differ"));
        assert_eq!((first.stage, first.field), (Stage::FwdConstraint, "qacc"), "{option}");
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
    }
    assert_eq!(in_rust, OPTIONS.len());
}

#[test]
fn noslip_changes_the_motion_it_is_compared_on() {
    // the comparison above is only worth something if noslip moves the result: with and without
    // it MuJoCo's own velocities differ within a few steps
    for option in [OPTIONS[0], OPTIONS[6]] {
        let velocities = |noslip: u32| {
            let m = Model::from_xml_str(&scene(&format!(r#"noslip_iterations="{noslip}" {option}"#))).unwrap();
            let mut d = Data::new(&m).unwrap();
            for _ in 0..20 {
                d.step().unwrap();
            }
            d.qvel().to_vec()
        };
        assert_ne!(velocities(0), velocities(4), "{option}");
    }
}

#[test]
fn pgs_on_elliptic_contacts_of_condim_6_matches_mujoco() {
    let i = Stage::FwdConstraint.index();
    for option in [
        r#"solver="PGS" cone="elliptic" jacobian="dense""#,
        r#"solver="PGS" cone="elliptic" jacobian="sparse""#,
        r#"solver="PGS" cone="elliptic" jacobian="dense"><flag island="disable" warmstart="disable"/></option><option"#,
    ] {
        let xml = scene(option);
        let r = diff(&xml, None);
        assert!(r.matches(), "{option}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[i], r.skipped[i]), (200, 0), "{option}: {r:?}");
        assert_eq!(r.trajectory_counts.rust[i], 200, "{option}: {r:?}");
        let first = diff(&xml, Some(Tamper::Output(Stage::FwdConstraint))).first;
        assert!(first.is_some(), "{option}: a tampered call must differ");
    }
}
