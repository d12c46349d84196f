//! The native step allocates nothing after its first call. No test harness (`main` below): the
//! counter is global to the process, and the harness's own thread would be counted.

use std::alloc::System;
use std::path::Path;

use specula_native::Native;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// A damped pendulum chain with a ball joint and a free body, no contacts.
const CHAIN: &str = r#"<mujoco>
  <default><geom contype="0" conaffinity="0" size="0.05"/></default>
  <worldbody>
    <body pos="0 0 2">
      <joint type="hinge" axis="0 1 0" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0"/>
      <body pos="0.4 0 0">
        <joint type="ball" damping="0.05" stiffness="1"/>
        <geom type="box" size="0.1 0.05 0.03" pos="0.2 0 0"/>
      </body>
    </body>
    <body pos="1 0 1"><freejoint/><geom type="sphere"/></body>
  </worldbody>
</mujoco>"#;

fn native_step_allocates_nothing_after_the_first() {
    // implicitfast (its lone free body solved on its own), implicit and RK4
    let with =
        |integrator: &str| CHAIN.replace("<default>", &format!("<option integrator=\"{integrator}\"/><default>"));
    let (implicitfast, implicit, rk4) = (with("implicitfast"), with("implicit"), with("RK4"));
    // joint actuators driven by ctrl (a filter state included), under both integrators
    let actuated = implicitfast
        .replace(
            "</mujoco>",
            r#"<actuator><position joint="a" kp="5" timeconst="0.1"/><motor joint="a" gear="2"/></actuator></mujoco>"#,
        )
        .replace(r#"<joint type="hinge" axis="0 1 0""#, r#"<joint name="a" type="hinge" axis="0 1 0""#);
    let actuated_euler = actuated.replace("implicitfast", "Euler");
    let actuated_implicit = actuated.replace("implicitfast", "implicit");
    // sensors, the lazily computed subtree velocities and mj_rnePostConstraint included
    let sensed = CHAIN.replace(r#"<body pos="1 0 1">"#, r#"<body name="free" pos="1 0 1">"#).replace(
        "</mujoco>",
        r#"<sensor><subtreeangmom body="free"/><framelinacc objtype="body" objname="free"/>
          <framequat objtype="xbody" objname="free" reftype="body" refname="world"/><clock/></sensor></mujoco>"#,
    );
    // armature on a spatial tendon of sites (its bias force, mj_tendonBias)
    let tendon = CHAIN
        .replace(r#"<body pos="0 0 2">"#, r#"<site name="top" pos="0 0 2.3"/><body pos="0 0 2">"#)
        .replace(r#"<body pos="0.4 0 0">"#, r#"<site name="mid" pos="0.2 0 0.05"/><body pos="0.4 0 0">"#)
        .replace(r#"pos="0.2 0 0"/>"#, r#"pos="0.2 0 0"/><site name="end" pos="0.3 0 0"/>"#)
        .replace(
            "</mujoco>",
            r#"<tendon><spatial armature="0.2"><site site="top"/><site site="mid"/><site site="end"/></spatial></tendon></mujoco>"#,
        );
    assert!(tendon.contains(r#"name="end""#));
    for xml in [CHAIN, &implicitfast, &implicit, &rk4, &actuated, &actuated_euler, &actuated_implicit, &sensed, &tendon]
    {
        steps_without_allocating(xml);
    }
    // in the same test: the counter is global, so a second test running beside it would count
    constrained_step_allocates_nothing_once_its_buffers_have_grown();
    sleep_steps_allocate_nothing();
}

/// Boxes that fall asleep (step 20), are woken by a ball's contact (step 133) and sleep again.
const SLEEPERS: &str = include_str!("scenes/wake_by_impact.xml");

/// The steps in which trees fall asleep and stay asleep allocate nothing once the buffers have
/// grown: steps 11 to 130 (asleep from 20) and 141 to 300 (asleep again from 169); the steps
/// around the ball's impact grow the contact and row buffers.
fn sleep_steps_allocate_nothing() {
    for integrator in ["Euler", "implicitfast", "implicit"] {
        let xml = SLEEPERS.replace("<option ", &format!("<option integrator=\"{integrator}\" "));
        let mut native = Native::load_str(&xml, Path::new("."), "sleepers.xml").unwrap();
        native.reset_keyframe(0).unwrap();
        for _ in 0..10 {
            native.step().unwrap();
        }
        for (from, to) in [(10, 130), (140, 300)] {
            let region = Region::new(GLOBAL);
            let mut slept = false;
            for _ in from..to {
                native.step().unwrap();
                slept |= native.data.sleep.ntree_awake < native.model.model.ntree;
            }
            let stats = region.change();
            assert!(slept, "{integrator}: no tree slept");
            assert_eq!(stats.allocations + stats.reallocations, 0, "{integrator}, steps {from}..{to}: {stats:?}");
            for _ in to..to + 10 {
                native.step().unwrap();
            }
        }
    }
}

/// Steps `xml` once, then 100 times counting allocations.
fn steps_without_allocating(xml: &str) {
    let mut native = Native::load_str(xml, Path::new("."), "chain.xml").unwrap();
    native.step().unwrap();
    let region = Region::new(GLOBAL);
    for _ in 0..100 {
        native.step().unwrap();
    }
    let stats = region.change();
    assert_eq!(stats.allocations + stats.reallocations, 0, "{stats:?}");
    // the check counts: a step on fresh data allocates (its Newton-Euler scratch)
    let region = Region::new(GLOBAL);
    native.data = specula_native::Data::new(&native.model);
    native.step().unwrap();
    assert!(region.change().allocations > 0);
}

/// A box resting on a plane and a pendulum resting on its joint limit, with friction loss:
/// contacts, limit and friction rows every step.
const RESTING: &str = r#"<mujoco>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
    <body pos="1 0 1">
      <joint type="hinge" axis="0 1 0" range="-20 20" frictionloss="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>"#;

/// A constrained scene steps without allocating once its buffers have grown: Newton, and noslip
/// after Newton and after PGS on elliptic cones of condim 6.
fn constrained_step_allocates_nothing_once_its_buffers_have_grown() {
    let noslip = RESTING.replace("<worldbody>", r#"<option noslip_iterations="3"/><worldbody>"#);
    let pgs = RESTING.replace(
        "<worldbody>",
        r#"<option solver="PGS" cone="elliptic" noslip_iterations="3"/><default><geom condim="6"/></default><worldbody>"#,
    );
    for xml in [RESTING, &noslip, &pgs] {
        let mut native = Native::load_str(xml, Path::new("."), "resting.xml").unwrap();
        // settle: the buffers grow to the scene's largest row and contact counts
        for _ in 0..500 {
            native.step().unwrap();
        }
        assert!(native.data.efc.nefc > 0 && !native.data.contacts.is_empty(), "no rows to check");
        let region = Region::new(GLOBAL);
        for _ in 0..100 {
            native.step().unwrap();
        }
        let stats = region.change();
        assert_eq!(stats.allocations + stats.reallocations, 0, "{stats:?}");
    }
    equality_step_allocates_nothing_once_its_buffers_have_grown();
}

/// The project's equality scene (connect, welds, a joint coupling: equality rows, their islands
/// and `Jdot v`) steps without allocating once its buffers have grown.
fn equality_step_allocates_nothing_once_its_buffers_have_grown() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/equality.xml");
    let mut native = Native::load_file(&path).unwrap();
    native.reset_keyframe(0).unwrap();
    // settle: the buffers grow to the scene's largest row and contact counts
    for _ in 0..1000 {
        native.step().unwrap();
    }
    assert!(native.data.efc.ne > 0, "no equality rows to check");
    let region = Region::new(GLOBAL);
    for _ in 0..100 {
        native.step().unwrap();
    }
    let stats = region.change();
    assert_eq!(stats.allocations + stats.reallocations, 0, "{stats:?}");
}

/// Runs the check on the main thread with no test harness (`harness = false`): the counter is
/// global, and the harness's own thread allocates while a test runs.
fn main() {
    native_step_allocates_nothing_after_the_first();
    println!("test native_step_allocates_nothing_after_the_first ... ok");
}
