//! The Rust dynamics stages allocate nothing per step: steps with every stage in place of
//! MuJoCo's functions (`mj_crb` to `mj_fwdConstraint`, `mj_kinematics`, `mj_EulerSkip`,
//! `mj_implicitSkip`) are counted with a counting global
//! allocator (MuJoCo's own allocations are not Rust's and are not seen). No test harness (`main`
//! below): the counter is global to the process, and the harness's thread would be counted.

use std::alloc::System;

use specula::mj::stages::{with_stages, Stage, StageCounts, StageSet};
use specula::mj::{Data, Model};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

/// Steps before the PGS passes: the scratch grows to the largest row count the scene reaches
/// (its bodies settle over the first hundred steps), then is reused.
const WARMUP: usize = 300;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Steps `data` `warmup` times with every stage in Rust (the buffers grow to the scene's largest
/// row and contact counts), then 100 more under the counter: the allocations and reallocations of
/// those 100, and the stages' call counts over all of them.
fn counted_steps(data: &mut Data, warmup: usize) -> (usize, StageCounts) {
    with_stages(StageSet::all(), || {
        for _ in 0..warmup {
            data.step().unwrap();
        }
        let region = Region::new(GLOBAL);
        for _ in 0..100 {
            data.step().unwrap();
        }
        let change = region.change();
        change.allocations + change.reallocations
    })
}

/// Free, ball, hinge and slide joints with limits, friction loss and damping, two actuators, and
/// boxes resting on the floor: every stage has work on every step.
fn scene(option: &str) -> String {
    format!(
        r#"<mujoco><option {option}/><worldbody><geom type="plane" size="1 1 .1"/>
      <body pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/>
        <body pos=".2 0 0"><joint type="ball" range="0 30" damping=".01"/><geom type="sphere" size=".05"/>
          <body pos=".1 0 0"><joint name="h" type="hinge" range="-10 10" frictionloss=".01"/><geom type="capsule" size=".02 .1"/>
            <body pos="0 0 -.1"><joint name="s" type="slide" axis="0 0 1" range="-.01 .01"/><geom type="sphere" size=".03"/></body>
          </body></body></body>
      <body pos=".5 0 .05"><freejoint/><geom type="box" size=".05 .05 .05" condim="6"/></body>
    </worldbody>
    <actuator><motor joint="h" gear="2"/><position joint="s" kp="50"/></actuator>
    <keyframe><key ctrl="0.5 0.01"/></keyframe></mujoco>"#
    )
}

fn the_rust_stages_allocate_nothing_per_step() {
    // The check can fail: an allocation inside a region is counted.
    let region = Region::new(GLOBAL);
    drop(std::hint::black_box(Vec::<u8>::with_capacity(64)));
    assert!(region.change().allocations >= 1, "the counting allocator sees nothing");
    // Newton with a dense Jacobian and a sparse one (pyramidal; elliptic with gravity tilted so that the boxes
    // slide, on the cone, dense and sparse, over islands or not; with noslip after it); PGS (the projection's work) with elliptic cones
    // (condim 6 among them) and a sparse one; CG with elliptic cones and a sparse one; implicitfast
    // (the lone free box's own 6x6 solve included) and implicit; with constraints disabled, the
    // solver's path without rows in Rust; and fluid forces with adhesive contacts
    for option in [
        r#"cone="pyramidal""#,
        r#"cone="pyramidal" jacobian="sparse""#,
        r#"cone="elliptic" gravity="12 0 -9.81""#,
        r#"cone="elliptic" jacobian="sparse" gravity="12 0 -9.81""#,
        r#"cone="elliptic" jacobian="sparse" gravity="12 0 -9.81"><flag island="disable"/></option><option"#,
        r#"solver="PGS" cone="elliptic" jacobian="sparse""#,
        r#"cone="elliptic" gravity="12 0 -9.81" noslip_iterations="3""#,
        r#"solver="CG" cone="elliptic" jacobian="sparse" gravity="12 0 -9.81""#,
        r#"integrator="implicitfast""#,
        r#"integrator="implicit""#,
        r#"integrator="RK4""#,
        r#"><flag constraint="disable"/></option><option"#,
        // mj_passive's Jacobian work: the ellipsoid fluid model and contact adhesion
        r#"density="1.2" viscosity="0.001" wind="0.5 0 0"/><default><geom adhesion="0.3" fluidshape="ellipsoid"/></default><option"#,
    ] {
        let implicit = option.contains("implicit");
        let xml = scene(option);
        let model = Model::from_xml_str(&xml).unwrap();
        let mut data = Data::new(&model).unwrap();
        data.reset_keyframe(0).unwrap();
        let (allocations, counts) = counted_steps(&mut data, 100);
        // the Euler step or implicitfast's, as the integrator says; the solver's calls with
        // the solver's calls are counted below
        let integrator = if implicit {
            Stage::Implicit
        } else if option.contains("RK4") {
            Stage::RungeKutta
        } else {
            Stage::Euler
        };
        let steps = [Stage::Euler, Stage::Implicit, Stage::RungeKutta];
        let reached = |s: Stage| s != Stage::FwdConstraint && (s == integrator || !steps.contains(&s));
        for s in Stage::ALL.into_iter().filter(|&s| reached(s)) {
            assert!(counts.rust[s.index()] >= 101, "{option} {}: {counts:?}", s.name());
            assert_eq!(counts.fallback[s.index()], 0, "{option} {}: {counts:?}", s.name());
        }
        let solver = Stage::FwdConstraint.index();
        assert!(counts.rust[solver] + counts.fallback[solver] >= 101, "{option}: {counts:?}");
        let disabled = option.contains(r#"constraint="disable""#);
        // every call in Rust (Newton on a dense Jacobian iterates in Rust)
        assert_eq!((counts.rust[solver] >= 101, counts.fallback[solver]), (true, 0), "{option}: {counts:?}");
        assert_eq!(data.mj().nefc > 0, !disabled, "{option}: constraint rows");
        assert_eq!(allocations, 0, "{option}: heap allocations in 100 steps with the Rust stages");
    }
    // the solver's frame with rows (Newton, dense, pyramidal, islands): the resting chain's calls,
    // certified or iterated, run in Rust, and allocate nothing either
    let model = Model::from_xml_str(include_str!("../scenes/chain.xml")).unwrap();
    let mut data = Data::new(&model).unwrap();
    let (allocations, counts) = counted_steps(&mut data, 150);
    let solver = Stage::FwdConstraint.index();
    assert!(counts.rust[solver] >= 100, "chain: {counts:?}");
    assert_eq!(allocations, 0, "chain: heap allocations in 100 steps with the Rust stages");
    // DC motors (current, temperature, controller with slew and integral, cogging) and PID
    // actuators (slew, integral): the actuation stage and the Euler and RK4 steps in Rust
    for integrator in ["Euler", "RK4"] {
        let xml = format!(
            r#"<mujoco><option integrator="{integrator}"/><worldbody>
          <body><joint name="a" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .2 0 0" size=".02" mass="2"/></body>
          <body pos="0 .3 0"><joint name="b" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .2 0 0" size=".02" mass="2"/></body>
        </worldbody><actuator>
          <dcmotor joint="a" motorconst="0.2" resistance="1" inductance="0 0.003" thermal="5 0 10 0.004 25 22"
                   input="pos vel" controller="3 2 0.2 4 0.3 8" cogging="0.01 3 0.1"/>
          <pid joint="b" kp="20" kv="1" ki="5" imax="0.2" slewmax="2"/>
        </actuator><keyframe><key ctrl="0.5 0.1 -0.3 0.2"/></keyframe></mujoco>"#
        );
        let model = Model::from_xml_str(&xml).unwrap();
        let mut data = Data::new(&model).unwrap();
        data.reset_keyframe(0).unwrap();
        let (allocations, counts) = counted_steps(&mut data, 100);
        let step = if integrator == "RK4" { Stage::RungeKutta } else { Stage::Euler };
        for s in [Stage::FwdActuation, step] {
            assert!(counts.rust[s.index()] >= 200 && counts.fallback[s.index()] == 0, "{integrator}: {counts:?}");
        }
        assert_eq!(allocations, 0, "{integrator}: heap allocations in 100 steps with DC motors and PID");
    }
    // the PGS solver with rows (dense and sparse efc_AR, islands, elliptic with the condim-6
    // box, noslip after it): every call in Rust
    for option in [
        r#"solver="PGS" cone="pyramidal""#,
        r#"solver="PGS" cone="pyramidal" jacobian="sparse""#,
        r#"solver="PGS" cone="elliptic""#,
        r#"solver="PGS" cone="pyramidal" noslip_iterations="3""#,
        r#"solver="PGS" cone="elliptic" jacobian="sparse" noslip_iterations="3""#,
    ] {
        let xml = scene(option);
        let model = Model::from_xml_str(&xml).unwrap();
        let mut data = Data::new(&model).unwrap();
        data.reset_keyframe(0).unwrap();
        let (allocations, counts) = counted_steps(&mut data, WARMUP);
        assert_eq!((counts.rust[solver], counts.fallback[solver]), (WARMUP as u64 + 100, 0), "{option}: {counts:?}");
        assert!(data.mj().nefc > 0, "{option}: constraint rows");
        assert_eq!(allocations, 0, "{option}: heap allocations in 100 steps with PGS in Rust");
    }
}

/// Runs the check on the main thread with no test harness (`harness = false`): the counter is
/// global, and the harness's own thread allocates while a test runs.
fn main() {
    the_rust_stages_allocate_nothing_per_step();
    println!("test the_rust_stages_allocate_nothing_per_step ... ok");
}
