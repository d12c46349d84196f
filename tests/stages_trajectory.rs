//! `diff --stages`' trajectory check: the scene run with every stage in Rust against MuJoCo's own
//! run, state by state, and that check failing when one Rust stage's result is one ulp off.

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{Stage, StageSet, Tamper};
use specula::mj::Model;
use specula::sim::Start;
use specula_model::types::Integrator;

/// Hinges with limits and friction loss, a ball joint, actuated, and a free box in contact with
/// the floor and the arm: every stage has work, and each one's main result reaches the state.
const SCENE: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.5"><joint name="h0" type="hinge" axis="0 1 0" range="-30 30" frictionloss="0.02" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body pos="0.3 0 0"><joint type="ball" damping="0.01"/><geom type="capsule" fromto="0 0 0 0.2 0.05 -0.1" size="0.025"/>
        <body pos="0.2 0.05 -0.1"><joint type="hinge" axis="1 0 0" range="-20 20"/><geom type="sphere" size="0.05"/></body>
      </body>
    </body>
    <body pos="0.35 0 0.12" euler="5 10 15"><freejoint/><geom type="box" size="0.06 0.05 0.04"/></body>
  </worldbody>
  <actuator><motor joint="h0" gear="2"/></actuator>
  <keyframe><key qvel="3 1 -2 0.5 4 0 0 0 0.5 -1 2" ctrl="0.8"/></keyframe>
</mujoco>"#;

fn run(integrator: Integrator, tamper: Option<Tamper>) -> specula::mj::stages::StageDiffReport {
    let mut m = Model::from_xml_str(SCENE).unwrap();
    m.set_integrator(integrator as i32).unwrap();
    let opts = StageDiffOptions { steps: 150, start: Start::Key("0".into()), stages: StageSet::all(), tamper };
    diff_stages(&m, &opts).unwrap()
}

#[test]
fn the_rust_stages_trajectory_is_mujocos_and_one_ulp_in_a_stage_breaks_it() {
    for integrator in [Integrator::Euler, Integrator::ImplicitFast, Integrator::Implicit, Integrator::Rk4] {
        let r = run(integrator, None);
        assert!(r.matches(), "{integrator:?}: {:?} {:?}", r.first, r.trajectory);
        // every stage ran in Rust in the trajectory run, none fell back (the Euler stage is
        // reached by the Euler integrator only, the implicit one by implicitfast on a scene
        // without a lone free body; the solver's calls with constraint rows are MuJoCo's so far)
        let reached = |s: Stage| match s {
            Stage::Euler => integrator == Integrator::Euler,
            Stage::RungeKutta => integrator == Integrator::Rk4,
            Stage::Implicit | Stage::FwdConstraint => false,
            _ => true,
        };
        for s in Stage::ALL.into_iter().filter(|&s| reached(s)) {
            assert!(
                r.trajectory_counts.rust[s.index()] >= 150,
                "{integrator:?} {}: {:?}",
                s.name(),
                r.trajectory_counts
            );
            assert_eq!(r.trajectory_counts.fallback[s.index()], 0, "{integrator:?} {}", s.name());
        }
    }
    // one ulp in a result the state depends on: the call-by-call comparison is untouched (the
    // change is made in the Rust run only), the trajectory check names the step (the stages
    // left out change an element nothing here reads, e.g. the free box's passive force)
    let reaching = [
        Stage::Crb,
        Stage::ComVel,
        Stage::Rne,
        Stage::FwdAcceleration,
        Stage::ComPos,
        Stage::Transmission,
        Stage::ReferenceConstraint,
        Stage::Kinematics,
        Stage::Euler,
    ];
    for stage in reaching {
        let r = run(Integrator::Euler, Some(Tamper::Trajectory(stage)));
        assert!(r.first.is_none(), "{}: {:?}", stage.name(), r.first);
        let t = r.trajectory.clone().unwrap_or_else(|| panic!("{}: the trajectory check missed one ulp", stage.name()));
        assert!(t.step >= 1 && t.step <= 150, "{}: {t:?}", stage.name());
        assert!(!r.matches());
    }
}
