//! The Rust dynamics stages (`mj_crb` to `mj_referenceConstraint`, the position stage's
//! `mj_kinematics` and the integrators `mj_EulerSkip`, `mj_implicitSkip`, `mj_RungeKutta`) inside MuJoCo's step: the same bits as MuJoCo's own functions, call by call (`diff_stages`) and over whole
//! trajectories (`with_stages`), and a comparison that fails when one output element is one ulp
//! off.

mod common;

use specula::diff::{diff_stages, StageDiffOptions};
use specula::mj::stages::{with_stages, Fallback, Stage, StageSet, Tamper};
use specula::mj::{state, Data, Model};
use specula::sim::Start;
use specula_model::types::Integrator;

const INTEGRATORS: [Integrator; 4] =
    [Integrator::Euler, Integrator::ImplicitFast, Integrator::Implicit, Integrator::Rk4];

/// A tree with every joint type, simple and non-simple dofs, joint armature, and actuator
/// armature from one actuator (hinge `h1`) and from two on one joint (slide `s`).
const TREE: &str = r#"<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="free" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.05 0.02" mass="0.7"/>
      <body name="ball" pos="0.2 0 0"><joint type="ball" armature="0.01"/><geom type="capsule" size="0.02 0.1" euler="0 90 0"/>
        <body name="h1" pos="0.2 0 0"><joint name="h1" type="hinge" axis="0 1 1" damping="0.1"/><geom type="sphere" size="0.04"/>
          <body name="s" pos="0 0 -0.1"><joint name="s" type="slide" axis="1 0 0" armature="0.2"/><geom type="box" size="0.03 0.03 0.03"/></body>
        </body>
      </body>
    </body>
    <body name="slider" pos="1 0 0.5"><joint type="slide" axis="0 0 1"/><geom type="sphere" size="0.05"/></body>
    <body name="arm" pos="-1 0 1"><joint name="a" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
      <body pos="0.3 0 0"><joint type="hinge" axis="1 0 0"/><geom type="sphere" size="0.05" pos="0.1 0 0"/></body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="h1" gear="3" armature="0.05"/>
    <motor joint="s" gear="2" armature="0.1"/>
    <position joint="s" gear="0.5" armature="0.3" kp="10"/>
    <motor joint="a" gear="1"/>
  </actuator>
  <keyframe><key name="moving" qvel="1 -2 0.5 3 -1 2 4 -3 1 2 -1 0.5 2 1"/></keyframe>
</mujoco>"#;

/// A nearly massless slide carrying a heavy one along the same axis: its pivot `(m1 + m2) - m2`
/// rounds to 0, under `mjMINVAL` (MuJoCo's `mjWARN_INERTIA` path).
const SINGULAR: &str = r#"<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="light"><joint type="slide" axis="1 0 0"/><inertial pos="0 0 0" mass="2e-15" diaginertia="1 1 1"/>
      <body name="heavy"><joint type="slide" axis="1 0 0"/><geom type="sphere" size="0.1" mass="100"/></body>
    </body>
  </worldbody>
</mujoco>"#;

fn model(xml: &str, integrator: Integrator) -> Model {
    let mut m = Model::from_xml_str(xml).unwrap();
    m.set_integrator(integrator as i32).unwrap();
    m
}

fn opts(steps: usize, start: Start, tamper: Option<Tamper>) -> StageDiffOptions {
    StageDiffOptions { steps, start, stages: StageSet::all(), tamper }
}

#[test]
fn stage_names_parse_and_unknown_ones_are_refused() {
    let all: StageSet = "all".parse().unwrap();
    assert_eq!(all, StageSet::all());
    let crb: StageSet = "crb".parse().unwrap();
    assert!(crb.contains(Stage::Crb) && !crb.contains(Stage::FactorM));
    assert_eq!(
        " crb , factorM,comVel, rne,fwdAcceleration,comPos,passive,transmission,fwdActuation,makeConstraint,island,projectConstraint,referenceConstraint,kinematics,euler,implicit,fwdConstraint,RungeKutta"
            .parse::<StageSet>()
            .unwrap(),
        StageSet::all()
    );
    assert_eq!(crb.to_string(), "crb");
    let err = "crb,solver".parse::<StageSet>().unwrap_err();
    assert!(err.to_string().contains("'solver'"), "{err}");
}

#[test]
fn every_call_matches_mujoco_bit_for_bit_on_a_tree_of_every_joint_type() {
    for integrator in INTEGRATORS {
        let m = model(TREE, integrator);
        let r = diff_stages(&m, &opts(400, Start::Key("moving".into()), None)).unwrap();
        assert!(r.matches(), "{integrator:?}: {:?}", r.first);
        // RK4 reaches both stages four times a step, the others once
        let per_step = if integrator == Integrator::Rk4 { 4 } else { 1 };
        assert_eq!(r.compared[..6], [400 * per_step; 6], "{integrator:?}");
    }
}

#[test]
fn a_near_singular_pivot_warns_as_mujoco_does() {
    let m = model(SINGULAR, Integrator::Euler);
    let r = diff_stages(&m, &opts(20, Start::Qpos0, None)).unwrap();
    assert!(r.matches(), "{:?}", r.first);
    // and in place of MuJoCo's function: the same warning count and dof
    let run = |set: StageSet| {
        let mut d = Data::new(&m).unwrap();
        let (res, counts) = with_stages(set, || (0..20).try_for_each(|_| d.step()));
        res.unwrap();
        (d.mj().warning[0].number, d.mj().warning[0].lastinfo, counts)
    };
    let (c_n, c_info, _) = run(StageSet::NONE);
    let (r_n, r_info, counts) = run(StageSet::all());
    assert!(c_n > 0, "the scene must reach MuJoCo's singular-inertia warning");
    assert_eq!((r_n, r_info), (c_n, c_info));
    assert_eq!(counts.rust[..6], [20; 6]);
}

#[test]
fn trajectories_with_the_rust_stages_are_mujocos() {
    for integrator in INTEGRATORS {
        let m = model(TREE, integrator);
        let run = |set: StageSet| {
            let mut d = Data::new(&m).unwrap();
            d.reset_keyframe(0).unwrap();
            let (res, counts) = with_stages(set, || (0..500).try_for_each(|_| d.step()));
            res.unwrap();
            (d.state(state::INTEGRATION), counts)
        };
        let (c, none) = run(StageSet::NONE);
        let (rust, counts) = run(StageSet::all());
        assert_eq!(none.rust, [0; specula::mj::stages::NSTAGE]);
        // the Euler stage is reached by the Euler integrator only, the implicit one by
        // implicitfast and implicit; the solver (Newton, dense) on every step
        let reached = |s: &Stage| match s {
            Stage::Euler => integrator == Integrator::Euler,
            Stage::Implicit => matches!(integrator, Integrator::ImplicitFast | Integrator::Implicit),
            Stage::RungeKutta => integrator == Integrator::Rk4,
            _ => true,
        };
        assert!(Stage::ALL.iter().filter(|s| reached(s)).all(|s| counts.rust[s.index()] >= 500), "{counts:?}");
        assert_eq!(counts.fallback[Stage::FwdConstraint.index()], 0, "{counts:?}");
        assert_eq!(counts.fallback[..6], [0; 6]);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&c), bits(&rust), "{integrator:?}");
    }
}

#[test]
fn one_ulp_in_a_stage_output_is_reported_with_its_field() {
    let m = model(TREE, Integrator::Euler);
    for (stage, field) in [
        (Stage::Crb, "M"),
        (Stage::FactorM, "qLDiagInv"),
        (Stage::ComVel, "cvel"),
        (Stage::Rne, "qfrc_bias"),
        (Stage::FwdAcceleration, "qacc_smooth"),
        (Stage::Passive, "qfrc_passive"),
        (Stage::Transmission, "actuator_moment"),
        (Stage::FwdActuation, "qfrc_actuator"),
        (Stage::Kinematics, "xipos"),
        (Stage::Euler, "qvel"),
        // the tree falls freely for its first steps: the solver's path without rows
        (Stage::FwdConstraint, "qacc"),
    ] {
        let r = diff_stages(&m, &opts(5, Start::Qpos0, Some(Tamper::Output(stage)))).unwrap();
        let first = r.first.expect("a tampered stage must differ");
        // the kinematics run once before the first step too (MuJoCo's `mj_forward` at reset)
        let step = if stage == Stage::Kinematics { 0 } else { 1 };
        assert_eq!((first.stage, first.field, first.step), (stage, field, step));
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
    }
}

#[test]
fn a_change_outside_a_stage_outputs_is_reported() {
    // the stages compared in place must leave everything but their outputs as MuJoCo's function
    // does: a scalar of the struct and a byte of the buffer changed by the Rust side are named
    let m = model(TREE, Integrator::Euler);
    for stage in [Stage::Passive, Stage::Transmission, Stage::FwdActuation, Stage::Kinematics, Stage::Euler] {
        let step = if stage == Stage::Kinematics { 0 } else { 1 };
        let r = diff_stages(&m, &opts(5, Start::Qpos0, Some(Tamper::Struct(stage)))).unwrap();
        let first = r.first.expect("a changed struct scalar must differ");
        assert_eq!((first.stage, first.field, first.step), (stage, "mjData.maxuse_arena", step));
        // (the Euler step writes qvel itself: its buffer tamper lands in an output)
        if stage == Stage::Euler {
            continue;
        }
        let r = diff_stages(&m, &opts(5, Start::Qpos0, Some(Tamper::Buffer(stage)))).unwrap();
        let first = r.first.expect("a changed buffer byte must differ");
        assert_eq!(
            (first.stage, first.field, first.step),
            (stage, "mjData buffer byte (outside the stage's outputs)", step)
        );
    }
    // and untouched, the same stages match
    let r = diff_stages(&m, &opts(5, Start::Qpos0, None)).unwrap();
    assert!(r.matches(), "{:?}", r.first);
}

#[test]
fn asleep_trees_are_left_to_mujoco_and_counted() {
    let Some(path) = common::corpus_file("local/box_stack_sleep.xml") else { return };
    let m = Model::from_xml_path(&path).unwrap();
    let r = diff_stages(&m, &opts(1500, Start::Qpos0, None)).unwrap();
    assert!(r.matches(), "{:?}", r.first);
    // The stages that walk bodies, dofs or trees leave asleep calls to MuJoCo, all for that
    // reason; the scene has no actuators (their two stages have nothing asleep to skip), and
    // the projection (Newton solver: nothing to do) and the reference rows are row-generic.
    // Every stage is compared while the stack is awake, the constraint rows of the scene's
    // equality constraint included.
    let asleep = [
        Stage::Crb,
        Stage::FactorM,
        Stage::ComVel,
        Stage::Rne,
        Stage::FwdAcceleration,
        Stage::ComPos,
        Stage::Passive,
        Stage::MakeConstraint,
        Stage::Island,
    ];
    // the position stage and the integrator keep to MuJoCo while sleep is enabled at all
    let sleep = [Stage::Kinematics, Stage::Euler];
    for s in Stage::ALL {
        let i = s.index();
        if s == Stage::Implicit || s == Stage::RungeKutta {
            // (an Euler scene: never reached)
            assert_eq!((r.compared[i], r.skipped[i]), (0, 0), "{r:?}");
            continue;
        }
        let why = |f: Fallback| r.skipped_why[i][f.index()];
        if sleep.contains(&s) {
            assert_eq!((r.compared[i], why(Fallback::Sleep)), (0, r.skipped[i]), "{}: {r:?}", s.name());
            assert!(r.skipped[i] >= 1500, "{}: {r:?}", s.name());
            continue;
        }
        assert!(r.compared[i] > 0, "{}: {r:?}", s.name());
        if asleep.contains(&s) {
            assert!(why(Fallback::Asleep) > 0, "{}: {r:?}", s.name());
            assert_eq!(why(Fallback::Asleep), r.skipped[i], "{}: {r:?}", s.name());
        } else {
            // (the solver too: without rows, the stack asleep, and with rows, Newton on a dense
            // Jacobian, iterations and all)
            assert_eq!(r.skipped[i], 0, "{}: {r:?}", s.name());
        }
    }
}

#[test]
fn the_stage_bench_times_every_stage_on_the_same_states() {
    let m = model(TREE, Integrator::Euler);
    let rows = specula::bench::stages::bench_stages(&m, &Start::Key("moving".into()), 20, 1, StageSet::all()).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.stage.name()).collect();
    assert_eq!(
        names,
        [
            "crb",
            "factorM",
            "comVel",
            "rne",
            "fwdAcceleration",
            "comPos",
            "passive",
            "transmission",
            "fwdActuation",
            "makeConstraint",
            "island",
            "projectConstraint",
            "referenceConstraint",
            "kinematics",
            "euler",
            "implicit",
            "fwdConstraint",
            "RungeKutta"
        ]
    );
    for r in &rows {
        // (an Euler scene: the implicitfast stage is outside its scope on every state)
        if r.stage == Stage::Implicit {
            assert!(r.skipped > 0, "{r:?}");
            continue;
        }
        assert!(r.c_ns > 0.0 && r.rust_ns > 0.0 && r.ratio.is_finite() && r.skipped == 0, "{r:?}");
    }
}

#[test]
fn a_cartesian_applied_force_leaves_the_acceleration_to_mujoco() {
    let m = model(TREE, Integrator::Euler);
    let run = |set: StageSet| {
        let mut d = Data::new(&m).unwrap();
        d.reset_keyframe(0).unwrap();
        let (res, counts) = with_stages(set, || {
            (0..100).try_for_each(|i| {
                // a push on body 2 for the first 50 steps: mj_applyFT's work, not a Rust stage's
                let push = if i < 50 { 3.0 } else { 0.0 };
                d.with_mj(|_, d| unsafe { *d.xfrc_applied.add(6 * 2) = push })?;
                d.step()
            })
        });
        res.unwrap();
        (d.state(state::INTEGRATION), counts)
    };
    let (c, _) = run(StageSet::NONE);
    let (rust, counts) = run(StageSet::all());
    assert_eq!(counts.fallback[4], 50, "{counts:?}");
    assert_eq!(counts.rust[4], 50, "{counts:?}");
    assert_eq!(counts.fallback[..4], [0; 4]);
    assert_eq!(counts.fallback[5], 0);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&c), bits(&rust));
}

#[test]
fn the_implicit_steps_match_and_one_ulp_in_them_is_reported() {
    // implicitfast, and implicit with its full derivative (the RNE part on a free, ball, hinge
    // and slide tree) and LU factor
    for integrator in [Integrator::ImplicitFast, Integrator::Implicit] {
        let m = model(TREE, integrator);
        let one = |tamper| {
            let opts = StageDiffOptions {
                steps: 200,
                start: Start::Key("moving".into()),
                stages: StageSet::NONE.with(Stage::Implicit),
                tamper,
            };
            diff_stages(&m, &opts).unwrap()
        };
        let r = one(None);
        assert!(r.matches(), "{integrator:?}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[Stage::Implicit.index()], r.skipped[Stage::Implicit.index()]), (200, 0));
        let first = one(Some(Tamper::Output(Stage::Implicit))).first.expect("a tampered stage must differ");
        assert_eq!((first.stage, first.field, first.step), (Stage::Implicit, "qvel", 1), "{integrator:?}");
    }
    // lone free bodies (one with welded children, off-centre) spinning fast, on a plane: their
    // own 6x6 solve with the bias derivative, in Rust
    // (implicit has no such correction: its RNE derivative covers them)
    for integrator in [Integrator::ImplicitFast, Integrator::Implicit] {
        let m = model(common::FREE_BODIES, integrator);
        let opts =
            |tamper| StageDiffOptions { steps: 500, start: Start::Key("0".into()), stages: StageSet::all(), tamper };
        let r = diff_stages(&m, &opts(None)).unwrap();
        assert!(r.matches(), "{integrator:?}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[Stage::Implicit.index()], r.skipped[Stage::Implicit.index()]), (500, 0));
        let first = diff_stages(&m, &opts(Some(Tamper::Output(Stage::Implicit)))).unwrap().first;
        assert_eq!(first.map(|f| (f.stage, f.field)), Some((Stage::Implicit, "qvel")), "{integrator:?}");
    }
}

/// Activation dynamics (integrator, filter with `actearly`, exact filter with a clamped range),
/// velocity and damped position servos, an affine gain and bias under a force limit, a joint
/// actuator-force limit, joint damping on hinge, ball and slide: the advance's activations and
/// `implicitfast`'s actuator derivative all have work.
const ACTUATED: &str = r#"<mujoco>
  <option timestep="0.002" integrator="implicitfast"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="base" pos="0 0 0.6"><freejoint/><geom type="box" size="0.1 0.1 0.05"/>
      <body pos="0.15 0 0"><joint name="h1" type="hinge" axis="0 1 0" damping="0.3" range="-60 60"/><geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02"/>
        <body pos="0.2 0 0"><joint name="b" type="ball" damping="0.05"/><geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02"/>
          <body pos="0 0 -0.2"><joint name="s" type="slide" axis="0 0 1" damping="1" range="-0.05 0.05"/><geom type="sphere" size="0.04"/></body>
        </body>
      </body>
      <body pos="-0.15 0 0"><joint name="h2" type="hinge" axis="1 0 0" actuatorfrclimited="true" actuatorfrcrange="-0.5 0.5"/><geom type="capsule" fromto="0 0 0 -0.2 0 0" size="0.02"/>
        <body pos="-0.2 0 0"><joint name="h3" type="hinge" axis="0 0 1"/><geom type="sphere" size="0.03"/></body>
      </body>
    </body>
    <body pos="1 0 0.5"><joint name="h4" type="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body>
  </worldbody>
  <actuator>
    <velocity joint="h1" kv="2" ctrlrange="-1 1"/>
    <position joint="h1" kp="20" kv="1"/>
    <position joint="s" kp="100" dampratio="1"/>
    <intvelocity joint="h2" kp="5" actrange="-1 1"/>
    <general joint="h3" dyntype="filterexact" dynprm="0.05" gaintype="affine" gainprm="1 0 -0.5" biastype="affine" biasprm="0 -1 -0.2" actlimited="true" actrange="-0.3 0.3"/>
    <general joint="h4" dyntype="filter" dynprm="0.02" gaintype="affine" gainprm="2 0 -1" actearly="true"/>
    <general joint="h4" dyntype="integrator" gaintype="affine" gainprm="1 0 0.3" biastype="affine" biasprm="0 0 -0.1" forcelimited="true" forcerange="-0.2 0.2"/>
    <motor joint="h2" gear="3" ctrlrange="-2 2"/>
  </actuator>
  <keyframe><key qvel="0.2 0 0 0 0 0.5 2 1 -1 0.5 0.3 -2 1 3" ctrl="0.5 0.2 0.01 0.8 1 -1 2 1.5" act="0.1 0 -0.2 0.5"/></keyframe>
</mujoco>"#;

#[test]
fn activations_and_actuator_derivatives_match_under_euler_implicitfast_and_implicit() {
    for integrator in [Integrator::Euler, Integrator::ImplicitFast, Integrator::Implicit] {
        let m = model(ACTUATED, integrator);
        let r = diff_stages(&m, &opts(500, Start::Key("0".into()), None)).unwrap();
        assert!(r.matches(), "{integrator:?}: {:?} {:?}", r.first, r.trajectory);
        let step = if integrator == Integrator::Euler { Stage::Euler } else { Stage::Implicit };
        assert_eq!((r.compared[step.index()], r.skipped[step.index()]), (500, 0), "{integrator:?}");
        // no stage fell back (the solver's Newton iterations on a dense Jacobian are Rust's)
        assert_eq!(r.trajectory_counts.fallback, [0; specula::mj::stages::NSTAGE], "{integrator:?}");
    }
}

/// Boxes of the given condims on a plane (one island each), a limited hinge with friction loss
/// and a limited slide: contact, limit and friction-loss rows for the PGS solver.
fn pgs_scene(option: &str, condims: [i32; 4]) -> String {
    let boxes: String = (0..6)
        .map(|i| {
            let condim = condims[i % 4];
            let (x, y) = (0.3 * (i % 3) as f64 - 0.3, 0.3 * (i / 3) as f64);
            format!(
                r#"<body pos="{x} {y} .099"><freejoint/><geom type="box" size=".1 .1 .1" condim="{condim}"/></body>"#
            )
        })
        .collect();
    format!(
        r#"<mujoco><option solver="PGS" {option}/><worldbody><geom type="plane" size="5 5 .1"/>
          <body pos="0 1 .6"><joint type="hinge" axis="0 1 0" range="-20 20" limited="true" frictionloss=".05"/>
            <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
            <body pos=".3 0 0"><joint type="slide" axis="0 0 1" range="-.01 .01" limited="true"/><geom type="sphere" size=".08"/></body>
          </body>{boxes}
          <body pos="0 -1 .3"><freejoint/><geom type="sphere" size=".1" condim="4"/></body>
          <body pos=".05 -1 .6"><freejoint/><geom type="box" size=".1 .1 .1" condim="3"/></body></worldbody></mujoco>"#
    )
}

#[test]
fn pgs_calls_match_mujoco_and_one_ulp_in_them_is_reported() {
    let i = Stage::FwdConstraint.index();
    let stages = StageSet::NONE.with(Stage::FwdConstraint);
    let opts = |tamper| StageDiffOptions { steps: 200, start: Start::Qpos0, stages, tamper };
    // pyramidal and elliptic cones of every condim; dense and sparse efc_AR;
    // islands, one solve over all rows, no warm start
    let pyramidal = [1, 3, 4, 6];
    let elliptic = [1, 3, 4, 6];
    for (option, condims) in [
        (r#"jacobian="dense""#, pyramidal),
        (r#"jacobian="sparse""#, pyramidal),
        (r#"jacobian="dense"><flag island="disable"/></option><option"#, pyramidal),
        (r#"jacobian="sparse"><flag island="disable" warmstart="disable"/></option><option"#, pyramidal),
        (r#"cone="elliptic" jacobian="dense""#, elliptic),
        (r#"cone="elliptic" jacobian="sparse""#, elliptic),
        (r#"cone="elliptic" jacobian="dense"><flag island="disable"/></option><option"#, elliptic),
    ] {
        let model = Model::from_xml_str(&pgs_scene(option, condims)).unwrap();
        let r = diff_stages(&model, &opts(None)).unwrap();
        assert!(r.matches(), "{option}: {:?} {:?}", r.first, r.trajectory);
        assert_eq!((r.compared[i], r.skipped[i]), (200, 0), "{option}: {r:?}");
        assert_eq!(r.trajectory_counts.rust[i], 200, "{option}: {r:?}");
        // the boxes touch the plane from the first step: the tampered call is a PGS call
        let first = diff_stages(&model, &opts(Some(Tamper::Output(Stage::FwdConstraint)))).unwrap().first;
        let first = first.expect("a tampered PGS call must differ");
        assert_eq!((first.stage, first.field, first.step), (Stage::FwdConstraint, "qacc", 1), "{option}");
        assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
    }
}

/// A free box and a chain of two ball joints spinning fast under RK4 with a large step: the
/// Munthe-Kaas correction's rotations reach about 2.5 and 6 rad per stage, so its series, its
/// `tan` form and its wrap into `[-pi, pi]` all run (`docs/measurements.md` K10).
const SPIN: &str = r#"<mujoco>
  <option timestep="0.02" integrator="RK4" gravity="0 0 0"/>
  <worldbody>
    <body pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3" mass="1"/></body>
    <body pos="1 0 1"><joint type="ball"/><geom type="box" size=".1 .05 .3" pos="0 0 .3" mass="1"/>
      <body pos="0 0 .6"><joint type="ball" damping="0.01"/><geom type="capsule" size=".05" fromto="0 0 0 .3 0 0"/></body>
    </body>
  </worldbody>
  <keyframe><key name="spin" qvel="0 0 0 40 130 -90 60 -20 110 -300 20 50"/></keyframe>
</mujoco>"#;

#[test]
fn the_rk4_step_matches_and_one_ulp_in_it_is_reported() {
    let m = model(SPIN, Integrator::Rk4);
    let one = |tamper| {
        let opts = StageDiffOptions {
            steps: 200,
            start: Start::Key("spin".into()),
            stages: StageSet::NONE.with(Stage::RungeKutta),
            tamper,
        };
        diff_stages(&m, &opts).unwrap()
    };
    let r = one(None);
    assert!(r.matches(), "{:?} {:?}", r.first, r.trajectory);
    let i = Stage::RungeKutta.index();
    assert_eq!((r.compared[i], r.skipped[i], r.trajectory_counts.rust[i]), (200, 0, 200));
    let first = one(Some(Tamper::Output(Stage::RungeKutta))).first.expect("a tampered stage must differ");
    assert_eq!((first.stage, first.field, first.step), (Stage::RungeKutta, "qvel", 1));
    assert_eq!(first.rust.to_bits(), first.c.to_bits() + 1);
    // the same ulp in the Rust run only: the trajectory check names the first step
    let r = one(Some(Tamper::Trajectory(Stage::RungeKutta)));
    assert!(r.first.is_none(), "{:?}", r.first);
    assert_eq!(r.trajectory.expect("a tampered trajectory must differ").step, 1);
    // with every stage, the forward passes between RK4's stages run in Rust too
    let opts = StageDiffOptions { steps: 100, start: Start::Key("spin".into()), stages: StageSet::all(), tamper: None };
    let r = diff_stages(&m, &opts).unwrap();
    assert!(r.matches(), "{:?} {:?}", r.first, r.trajectory);
    assert_eq!(r.trajectory_counts.rust[Stage::Crb.index()], 400);
}
