//! Actuators on the native route against MuJoCo C 4.0.0: a chain driven by motors, position and
//! velocity servos, an integrated-velocity servo, a cylinder, a damper and a filtered general
//! actuator through `ctrl` steps like `mj_step` bit for bit for 1000 steps (Euler and
//! implicitfast), and a one-ulp change of one actuator parameter is seen.

use std::path::Path;

use specula::mj::{Data as CData, Model as CModel};
use specula_native::Native;

/// Hinges and slides under gravity, each driven by one or two actuators of every affine kind;
/// controls and forces partly clamped.
const DRIVEN: &str = r#"<mujoco model="driven">
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <default><geom contype="0" conaffinity="0" size="0.05"/></default>
  <worldbody>
    <body name="a" pos="0 0 2">
      <joint name="j0" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0"/>
      <body name="b" pos="0.4 0 0" euler="10 20 30">
        <joint name="j1" type="hinge" axis="1 0 0"/>
        <geom type="box" size="0.1 0.05 0.03" pos="0.2 0 0"/>
        <body name="c" pos="0.4 0 0">
          <joint name="j2" type="slide" axis="1 1 0" stiffness="5"/>
          <geom type="sphere" pos="0.1 0.1 0"/>
          <body name="d" pos="0.2 0.1 0">
            <joint name="j3" type="hinge" axis="0 0 1" ref="15"/>
            <geom type="ellipsoid" size="0.1 0.06 0.04" pos="0 0.1 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="j0" gear="3" ctrlrange="-0.5 0.5"/>
    <position joint="j1" kp="20" kv="1.5" forcerange="-4 4"/>
    <velocity joint="j2" kv="2" gear="0.5"/>
    <intvelocity joint="j3" kp="8" actrange="-0.6 0.6"/>
    <cylinder joint="j2" timeconst="0.05" area="0.3" bias="0.1 -0.2 -0.05"/>
    <damper joint="j1" kv="0.4" ctrlrange="0 2"/>
    <general jointinparent="j0" dyntype="filterexact" dynprm="0.03" gaintype="affine" gainprm="1 -0.5 -0.2"
             biastype="affine" biasprm="0.1 -1 -0.3" actearly="true"/>
    <position joint="j3" kp="5" timeconst="0.02"/>
  </actuator>
</mujoco>"#;

/// The arrays compared after every step: state, actuator outputs and the forward pass.
const FIELDS: [&str; 9] =
    ["qpos", "qvel", "act", "qacc", "qfrc_actuator", "actuator_force", "actuator_length", "actuator_velocity", "M"];

/// The native array `name`.
fn ours<'a>(n: &'a Native, name: &str) -> &'a [f64] {
    let d = &n.data;
    match name {
        "qpos" => &d.qpos,
        "qvel" => &d.qvel,
        "act" => &d.act,
        "qacc" => &d.qacc,
        "qfrc_actuator" => &d.qfrc_actuator,
        "actuator_force" => &d.actuation.actuator_force,
        "actuator_length" => &d.actuation.actuator_length,
        "actuator_velocity" => &d.actuation.actuator_velocity,
        "M" => &d.m,
        _ => unreachable!("{name}"),
    }
}

/// MuJoCo's array `name` with `len` entries.
fn theirs<'a>(d: &'a CData, name: &str, len: usize) -> &'a [f64] {
    let raw = d.mj();
    let p = match name {
        "qpos" => raw.qpos,
        "qvel" => raw.qvel,
        "act" => raw.act,
        "qacc" => raw.qacc,
        "qfrc_actuator" => raw.qfrc_actuator,
        "actuator_force" => raw.actuator_force,
        "actuator_length" => raw.actuator_length,
        "actuator_velocity" => raw.actuator_velocity,
        "M" => raw.M,
        _ => unreachable!("{name}"),
    };
    if p.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: each mjData array holds at least as many entries as the native one (same sizes).
    unsafe { std::slice::from_raw_parts(p, len) }
}

/// Steps `native` beside `mj_step` with the same controls (beyond the control ranges at times);
/// the first (step, field, index) whose bits differ.
fn step_both(mut native: Native, c: &CModel, steps: usize) -> Option<(usize, &'static str, usize)> {
    let mut cd = CData::new(c).expect("mjData");
    let nu = native.model.model.nu;
    assert_eq!(nu, c.mj().nu as usize);
    for step in 0..steps {
        let t = step as f64 * 0.01;
        for i in 0..nu {
            let u = 1.5 * (t * (i + 1) as f64 + i as f64).sin();
            native.data.actuation.ctrl[i] = u;
            // SAFETY: ctrl holds nu values.
            unsafe { *(*cd.raw()).ctrl.add(i) = u };
        }
        let stepped = native.step();
        cd.step().expect("mj_step");
        if let Err(e @ specula_native::NativeError::BadState { .. }) = &stepped {
            // the native route stops where MuJoCo warns about a diverged state
            let warned = (0..mujoco_sys::mjNWARNING as usize).any(|w| cd.mj().warning[w].number > 0);
            assert!(warned, "native stopped ({e}) at step {step} but MuJoCo did not warn");
            return None;
        }
        stepped.expect("native step");
        for field in FIELDS {
            let a = ours(&native, field);
            let b = theirs(&cd, field, a.len());
            if let Some(i) = a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits()) {
                return Some((step, field, i));
            }
        }
        assert_eq!(native.data.time.to_bits(), cd.mj().time.to_bits(), "time at step {step}");
    }
    None
}

/// `xml` with `integrator`.
fn with_integrator(xml: &str, integrator: &str) -> String {
    xml.replacen("<option ", &format!("<option integrator=\"{integrator}\" "), 1)
}

#[test]
fn a_chain_driven_through_ctrl_steps_like_mj_step_bit_for_bit_for_1000_steps() {
    for integrator in ["Euler", "implicitfast"] {
        let xml = with_integrator(DRIVEN, integrator);
        let c = CModel::from_xml_str(&xml).expect("MuJoCo compiles it");
        let native = Native::load_str(&xml, Path::new("."), "driven.xml").expect("inside the native subset");
        assert_eq!(native.model.model.nactuator, 8);
        assert!(native.model.model.na >= 4, "stateful actuators present");
        assert_eq!(step_both(native, &c, 1000), None, "{integrator}: first difference (step, field, index)");
    }
}

/// The chain after `steps` native steps of the drive: the actuators did act.
#[test]
fn the_drive_moves_every_activation_and_joint() {
    let c = CModel::from_xml_str(DRIVEN).unwrap();
    let native = Native::load_str(DRIVEN, Path::new("."), "driven.xml").unwrap();
    let mut moved = Native::load_str(DRIVEN, Path::new("."), "driven.xml").unwrap();
    assert_eq!(step_both(native, &c, 10), None);
    for step in 0..10 {
        for i in 0..moved.model.model.nu {
            moved.data.actuation.ctrl[i] = 1.5 * (step as f64 * 0.01 * (i + 1) as f64 + i as f64).sin();
        }
        moved.step().unwrap();
    }
    let d = &moved.data;
    assert!(d.act.iter().all(|&a| a != 0.0), "act {:?}", d.act);
    assert!(d.qfrc_actuator.iter().all(|&f| f != 0.0), "qfrc_actuator {:?}", d.qfrc_actuator);
}

/// Fixed tendons over hinges and a slide driven by a motor, a position servo and a filtered
/// general actuator on the tendons (moment rows of several dofs), beside a joint motor.
const TENDON_DRIVEN: &str = r#"<mujoco model="tendon driven">
  <option timestep="0.002" gravity="0 0 -9.81"/>
  <default><geom contype="0" conaffinity="0" size="0.05"/></default>
  <worldbody>
    <body pos="0 0 2">
      <joint name="h0" type="hinge" axis="0 1 0" damping="0.1" ref="5"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0"/>
      <body pos="0.4 0 0" euler="10 20 30">
        <joint name="h1" type="hinge" axis="1 0 0"/>
        <geom type="box" size="0.1 0.05 0.03" pos="0.2 0 0"/>
        <body pos="0.4 0 0">
          <joint name="s2" type="slide" axis="1 1 0" stiffness="5"/>
          <geom type="sphere" pos="0.1 0.1 0"/>
          <body pos="0.2 0.1 0">
            <joint name="h3" type="hinge" axis="0 0 1"/>
            <geom type="ellipsoid" size="0.1 0.06 0.04" pos="0 0.1 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t0"><joint joint="h0" coef="0.7"/><joint joint="h1" coef="-1.3"/><joint joint="s2" coef="0.4"/></fixed>
    <fixed name="t1" stiffness="2" springlength="0.1"><joint joint="h3" coef="1"/><joint joint="h0" coef="0.25"/></fixed>
    <fixed name="t2">
      <joint joint="h0" coef="0.3"/><joint joint="h1" coef="0.6"/><joint joint="s2" coef="-0.9"/><joint joint="h3" coef="1.1"/>
    </fixed>
  </tendon>
  <actuator>
    <motor tendon="t0" gear="2.5" ctrlrange="-0.8 0.8"/>
    <position tendon="t1" kp="12" kv="0.7"/>
    <general tendon="t2" dyntype="filter" dynprm="0.04" gaintype="affine" gainprm="1.5 -0.3 -0.2"
             biastype="affine" biasprm="0.05 -0.8 -0.1" gear="-1.7"/>
    <motor joint="h1" gear="0.5"/>
  </actuator>
</mujoco>"#;

/// A free body carrying a ball-jointed arm, driven through both joints in their own and their
/// parent's frames (moment rows of 3 and 6 dofs), beside a tendon motor.
const ROTATION_DRIVEN: &str = r#"<mujoco model="rotation driven">
  <option timestep="0.002" gravity="0 0 -1"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body pos="0 0 1" euler="20 -10 5"><freejoint name="f"/><geom type="box" size="0.1 0.05 0.02"/>
      <body pos="0.2 0 0"><joint name="b" type="ball" damping="0.05"/><geom type="capsule" size="0.02 0.1" euler="0 90 0"/>
        <body pos="0.2 0 0"><joint name="h" axis="0 1 1"/><geom type="sphere" size="0.04"/></body>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="h" coef="-2"/></fixed></tendon>
  <actuator>
    <motor joint="b" gear="0.5 -1 0.3"/>
    <motor jointinparent="b" gear="-0.2 0.4 0.1"/>
    <motor joint="f" gear="0.1 0.2 -0.3 0.05 -0.02 0.04"/>
    <general jointinparent="f" gear="-0.1 0 0.2 0.03 0.01 -0.05" dyntype="filter" dynprm="0.05"/>
    <position tendon="t" kp="2" kv="0.1"/>
  </actuator>
</mujoco>"#;

/// Ball and free joint actuators, in the joint's frame and its parent's, step like `mj_step`
/// bit for bit for 1000 steps (Euler and implicitfast), their `actuator_length0` MuJoCo's.
#[test]
fn ball_and_free_joint_actuators_step_like_mj_step_bit_for_bit_for_1000_steps() {
    for integrator in ["Euler", "implicitfast"] {
        let xml = with_integrator(ROTATION_DRIVEN, integrator);
        let c = CModel::from_xml_str(&xml).expect("MuJoCo compiles it");
        let native = Native::load_str(&xml, Path::new("."), "rotation.xml").expect("inside the native subset");
        // SAFETY: actuator_length0 holds nout = 5 values.
        let theirs = unsafe { std::slice::from_raw_parts(c.mj().actuator_length0, 5) };
        let ours = &native.model.model.actuator_length0;
        assert!(ours.iter().zip(theirs).all(|(a, b)| a.to_bits() == b.to_bits()), "{ours:?} {theirs:?}");
        assert_eq!(step_both(native, &c, 1000), None, "{integrator}: first difference (step, field, index)");
    }
}

/// Tendon-transmission actuators step like `mj_step` bit for bit for 1000 steps (Euler and
/// implicitfast), and a one-ulp change of a tendon actuator's gear or of a tendon coefficient is
/// seen.
#[test]
fn tendon_actuators_step_like_mj_step_bit_for_bit_for_1000_steps() {
    for integrator in ["Euler", "implicitfast"] {
        let xml = with_integrator(TENDON_DRIVEN, integrator);
        let c = CModel::from_xml_str(&xml).expect("MuJoCo compiles it");
        let native = Native::load_str(&xml, Path::new("."), "tendon.xml").expect("inside the native subset");
        assert_eq!(native.model.model.actuator_trntype[..3], [3, 3, 3]);
        // the lengths at qpos0 (h0's ref makes them non-zero) as MuJoCo compiles them
        // SAFETY: actuator_length0 holds nout = 4 values.
        let theirs = unsafe { std::slice::from_raw_parts(c.mj().actuator_length0, 4) };
        let ours = &native.model.model.actuator_length0;
        assert!(
            ours[0] != 0.0 && ours.iter().zip(theirs).all(|(a, b)| a.to_bits() == b.to_bits()),
            "{ours:?} {theirs:?}"
        );
        assert_eq!(step_both(native, &c, 1000), None, "{integrator}: first difference (step, field, index)");
    }
    let c = CModel::from_xml_str(TENDON_DRIVEN).unwrap();
    let tampers: [fn(&mut specula_model::Model); 2] = [
        |m| m.actuator_gear[2][0] = f64::from_bits(m.actuator_gear[2][0].to_bits() + 1),
        |m| m.wrap_prm[1] = f64::from_bits(m.wrap_prm[1].to_bits() + 1),
    ];
    for (k, tamper) in tampers.iter().enumerate() {
        let mut m = specula_model::load_str(TENDON_DRIVEN, Path::new("."), "tendon.xml").unwrap();
        tamper(&mut m);
        let native = Native::new(m).expect("still inside the subset");
        assert!(step_both(native, &c, 1000).is_some(), "tamper {k} went unseen");
    }
}

/// Generated scenes with actuators (`specula fuzz --print`, seeds 496,000 on), constraints
/// disabled on both sides, step like `mj_step` with `ctrl` driven; the others are counted by
/// what the native route refuses.
#[test]
fn generated_scenes_with_actuators_step_like_mj_step() {
    let (mut stepped, mut refused) = (0, std::collections::BTreeMap::new());
    for seed in 496_000..496_400 {
        let xml = specula::fuzz::gen::generate(seed, 120).to_mjcf();
        if !xml.contains("<actuator") {
            continue;
        }
        let (Ok(mut rust), Ok(mut c)) =
            (specula_model::load_str(&xml, Path::new("."), "gen.xml"), CModel::from_xml_str(&xml))
        else {
            continue;
        };
        rust.opt.disableflags |= 1;
        c.raw_mut().expect("unshared model").opt.disableflags |= 1;
        let tree = specula_model::xml::parse_str(&xml, Path::new("."), "gen.xml").unwrap();
        match specula_native::scope::check_mjcf(&tree).and_then(|()| Native::new(rust)) {
            Ok(native) => {
                assert_eq!(step_both(native, &c, 500), None, "seed {seed}: first difference");
                stepped += 1;
            }
            Err(specula_native::NativeError::Unsupported { needs, .. }) => *refused.entry(needs).or_insert(0) += 1,
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    eprintln!("{stepped} generated scenes with actuators stepped 500 steps bit for bit; refused: {refused:?}");
    assert!(stepped >= 10, "too few generated scenes inside the native subset ({refused:?})");
}

#[test]
fn a_one_ulp_change_of_an_actuator_parameter_is_seen() {
    let c = CModel::from_xml_str(DRIVEN).unwrap();
    let tampers: [fn(&mut specula_model::Model); 3] = [
        |m| m.actuator_gainprm[1][0] = f64::from_bits(m.actuator_gainprm[1][0].to_bits() + 1),
        |m| m.actuator_dynprm[4][0] = f64::from_bits(m.actuator_dynprm[4][0].to_bits() + 1),
        |m| m.actuator_gear[0][0] = f64::from_bits(m.actuator_gear[0][0].to_bits() + 1),
    ];
    for (k, tamper) in tampers.iter().enumerate() {
        let mut m = specula_model::load_str(DRIVEN, Path::new("."), "driven.xml").unwrap();
        tamper(&mut m);
        let native = Native::new(m).expect("still inside the subset");
        assert!(step_both(native, &c, 1000).is_some(), "tamper {k} went unseen");
    }
}

#[test]
fn actuators_outside_the_native_subset_are_refused() {
    let refused = [
        // no length range, none found: MuJoCo's compile error
        (r#"<muscle joint="h"/>"#, "did not converge"),
        (r#"<dcmotor joint="h" motorconst="0.05" resistance="1" lugre="100 1 0.05 0.08 0.3"/>"#, "LuGre"),
        (r#"<motor joint="h" damping="0.2"/>"#, "damping"),
    ];
    for (act, what) in refused {
        let xml = format!(
            r#"<mujoco><worldbody><body><joint name="h"/><geom size=".1" contype="0" conaffinity="0"/></body></worldbody><actuator>{act}</actuator></mujoco>"#
        );
        match Native::load_str(&xml, Path::new("."), "inline.xml") {
            Err(e) => assert!(e.to_string().contains(what), "{act}: {e}"),
            Ok(_) => panic!("{act}: not refused"),
        }
    }
}

/// Adhesion (body transmissions, D77): a free box on the floor and a hinged arm whose paddle
/// touches it, geoms with a margin and a gap so that contacts are both in the solver and in the
/// gap, two adhesion actuators (one per body) pulling them together.
const ADHESION: &str = r#"
<mujoco>
  <option timestep="0.004"/>
  <default><geom margin="0.01" gap="0.01"/></default>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body name="box" pos="0 0 0.1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="0.5"/>
    </body>
    <body name="arm" pos="0 0 0.45">
      <joint name="swing" axis="0 1 0" damping="0.05"/>
      <joint name="lift" type="slide" axis="0 0 1" range="-0.2 0.2" damping="1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" mass="0.1"/>
      <body name="paddle" pos="0 0 -0.24">
        <geom type="sphere" size="0.04" mass="0.05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <adhesion body="box" gain="3" ctrlrange="0 1"/>
    <adhesion body="paddle" gain="2" ctrlrange="0 1"/>
    <motor joint="lift" gear="1" ctrlrange="-1 1"/>
  </actuator>
</mujoco>"#;

#[test]
fn adhesion_actuators_step_like_mj_step_bit_for_bit_for_1000_steps() {
    let cases = [("", "Euler"), ("", "implicitfast"), ("cone=\"elliptic\" ", "Euler"), ("jacobian=\"sparse\" ", "RK4")];
    for (opt, integrator) in cases {
        let xml = with_integrator(&ADHESION.replacen("<option ", &format!("<option {opt}"), 1), integrator);
        let c = CModel::from_xml_str(&xml).expect("MuJoCo compiles it");
        let native = Native::load_str(&xml, Path::new("."), "adhesion.xml").expect("inside the native subset");
        assert_eq!(native.model.model.actuator_trntype[..2], [5, 5], "body transmissions");
        // mj_setConst's pass has no contacts: the adhesion rows are empty there
        // SAFETY: actuator_acc0 holds nu values.
        let acc0 = unsafe { std::slice::from_raw_parts(c.mj().actuator_acc0, 3) };
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&native.model.consts.actuator_acc0), bits(acc0), "actuator_acc0");
        assert_eq!(acc0[..2], [0.0, 0.0]);
        assert_eq!(step_both(native, &c, 1000), None, "{opt}{integrator}: first difference (step, field, index)");
    }
}

#[test]
fn adhesion_on_another_body_is_seen() {
    let c = CModel::from_xml_str(ADHESION).unwrap();
    let mut m = specula_model::load_str(ADHESION, Path::new("."), "adhesion.xml").unwrap();
    // the box's actuator now on the paddle: its moment row changes once the paddle touches
    m.actuator_trnid[0][0] = m.actuator_trnid[1][0];
    let native = Native::new(m).expect("still inside the subset");
    assert!(step_both(native, &c, 1000).is_some(), "the moved adhesion went unseen");
}

#[test]
fn the_adhesion_scene_has_rows_from_solver_and_gap_contacts_on_both_bodies() {
    let mut n = Native::load_str(ADHESION, Path::new("."), "adhesion.xml").unwrap();
    let (mut rows, mut gap, mut solver) = ([0; 2], 0, 0);
    for step in 0..1000 {
        n.data.actuation.ctrl.copy_from_slice(&[1.0, 1.0, (step as f64 * 0.01).sin()]);
        n.step().unwrap();
        for (k, r) in rows.iter_mut().enumerate() {
            *r += usize::from(n.data.actuation.moment_rownnz[k] > 0);
        }
        gap += n.data.contacts.iter().filter(|c| c.exclude == 1).count();
        solver += n.data.contacts.iter().filter(|c| c.exclude == 0 && c.efc_address >= 0).count();
    }
    assert!(rows.iter().all(|&r| r > 100) && gap > 0 && solver > 0, "rows {rows:?}, gap {gap}, solver {solver}");
}

/// DC motors (stateless, with a current state and controller, with a winding temperature) and
/// PID controllers (integral with imax, slew with feedforward) on hinges and slides (D88-D91),
/// driven through `ctrl`.
const DC_PID: &str = r#"<mujoco model="dc_pid">
  <option timestep="0.002"/>
  <default><geom contype="0" conaffinity="0" size="0.05"/></default>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h0" type="hinge" axis="0 1 0" damping="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.02" mass="2"/>
      <body pos="0.2 0 0">
        <joint name="s1" type="slide" axis="0 0 1"/>
        <geom type="sphere" mass="0.5"/>
      </body>
    </body>
    <body name="b" pos="1 0 1">
      <joint name="h2" type="hinge" axis="1 0 0"/>
      <geom type="box" size="0.1 0.05 0.03" pos="0 0.1 0"/>
    </body>
  </worldbody>
  <actuator>
    <dcmotor joint="h0" motorconst="0.3" resistance="2"/>
    <dcmotor joint="s1" motorconst="0.2" resistance="1" inductance="0.004 0" input="pos vel" controller="5 3 0.2 0 0.05 4"/>
    <dcmotor joint="h2" motorconst="0.3" resistance="0.5" thermal="40 0.5 0 0.05 25 35"/>
    PID
  </actuator>
</mujoco>"#;

/// The PID controllers of [`DC_PID`] (alone: the implicit integrators take them).
const PIDS: &str = r#"<pid joint="h0" kp="20" kv="1" ki="8" imax="0.05" slewmax="0.8"/>
    <pid joint="h2" kp="10" kv="0.5" input="pos ff"/>"#;

/// [`DC_PID`] with `actuators` for its DC motors and PID controllers and `integrator`.
fn dc_pid(actuators: &str, integrator: &str) -> String {
    let dc = DC_PID.replacen("PID", PIDS, 1);
    let xml = if actuators.is_empty() {
        dc
    } else {
        dc.replace(&dc[dc.find("<dcmotor").unwrap()..dc.find("  </actuator>").unwrap()], actuators)
    };
    with_integrator(&xml, integrator)
}

#[test]
fn dc_motors_and_pid_controllers_step_like_mj_step_and_their_input_signature_is_live() {
    let mut cases: Vec<(String, &str)> = ["Euler", "RK4"].iter().map(|i| (dc_pid("", i), *i)).collect();
    cases.extend(["implicit", "implicitfast"].iter().map(|i| (dc_pid(&format!("{PIDS}\n"), i), *i)));
    for (xml, integrator) in &cases {
        let c = CModel::from_xml_str(xml).expect("MuJoCo compiles it");
        let native = Native::load_str(xml, Path::new("."), "dc.xml").expect("inside the native subset");
        // SAFETY: actuator_ctrlspec holds nactuator values.
        let theirs = unsafe { std::slice::from_raw_parts(c.mj().actuator_ctrlspec, c.mj().nactuator as usize) };
        assert_eq!(native.model.model.actuator_ctrlspec[..], theirs[..], "{integrator}");
        assert_eq!(step_both(native, &c, 1000), None, "{integrator}: first difference (step, field, index)");
    }
    // DC motors stay out under the implicit integrators, by name
    match Native::load_str(&dc_pid("", "implicitfast"), Path::new("."), "dc.xml") {
        Err(e) => assert!(e.to_string().contains("DC motor actuator under an implicit integrator"), "{e}"),
        Ok(_) => panic!("a DC motor under implicitfast was not refused"),
    }
    // a signature with as many controls but another meaning: the DC motor's "pos vel" read as
    // "pos voltage", the PID's "pos ff" as "pos vel"
    let xml = dc_pid("", "Euler");
    let c = CModel::from_xml_str(&xml).unwrap();
    let tampers: [fn(&mut specula_model::Model); 2] = [|m| m.actuator_ctrlspec[1] = 9, |m| m.actuator_ctrlspec[4] = 3];
    for (k, tamper) in tampers.iter().enumerate() {
        let mut m = specula_model::load_str(&xml, Path::new("."), "dc.xml").unwrap();
        tamper(&mut m);
        let native = Native::new(m).expect("still inside the subset");
        assert!(step_both(native, &c, 1000).is_some(), "tamper {k} went unseen");
    }
}

#[test]
fn the_compiled_input_signature_follows_the_shortcuts_and_defaults_as_mujoco() {
    // each shortcut writes its own input; <general> inherits it; PID and DC motor defaults (the
    // compiler leaves SO3 servos out)
    let xml = r#"<mujoco>
  <default>
    <default class="pos"><position/></default>
    <default class="cyl"><cylinder/></default>
    <default class="vel"><general input="vel"/></default>
    <default class="pidff"><pid kp="1" input="pos ff"/></default>
  </default>
  <worldbody>
    <body><joint name="j" type="hinge"/><geom size=".1"/></body>
  </worldbody>
  <actuator>
    <motor joint="j"/><position joint="j"/><velocity joint="j"/><intvelocity joint="j" actrange="-1 1"/>
    <cylinder joint="j"/><damper joint="j" kv="1" ctrlrange="0 1"/><general joint="j"/>
    <general joint="j" input="pressure"/><general class="pos" joint="j"/><general class="cyl" joint="j"/>
    <motor class="vel" joint="j"/><position class="vel" joint="j"/><pid class="vel" joint="j" kp="1"/>
    <pid class="pidff" joint="j"/><general class="pidff" joint="j"/><position class="pidff" joint="j"/>
    <pid joint="j" kp="1" ki="1"/><pid joint="j" kp="1" input="pos"/>
    <dcmotor joint="j" motorconst="1" resistance="1"/><dcmotor joint="j" motorconst="1" resistance="1" input="none"/>
    <dcmotor class="pos" joint="j" motorconst="1" resistance="1" input="pos vel"/>
  </actuator>
</mujoco>"#;
    let c = CModel::from_xml_str(xml).expect("MuJoCo compiles it");
    let ours = specula_model::load_str(xml, Path::new("."), "inline.xml").unwrap().actuator_ctrlspec;
    // SAFETY: actuator_ctrlspec holds nactuator values.
    let theirs = unsafe { std::slice::from_raw_parts(c.mj().actuator_ctrlspec, c.mj().nactuator as usize) };
    assert_eq!(ours[..], theirs[..]);
    // every value MuJoCo gives appears, so each rule above is exercised
    for v in [0, 1, 2, 3, 5, 8, 16, 32] {
        assert!(ours.contains(&v), "{v}: {ours:?}");
    }
}
