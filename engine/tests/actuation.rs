//! `mj_transmission` and `mj_fwdActuation` on hand-built models: the library's rounding, clamp
//! and NaN rules, and the scope checks. Bit-for-bit agreement with MuJoCo itself is checked by
//! `specula diff --stages transmission,fwdActuation` (`docs/measurements.md`).

use specula_engine::dynamics::actuation::{next_activation, wrap, wrap_period};
use specula_engine::dynamics::{
    actuation_in_scope, fwd_actuation, transmission, transmission_in_scope, ActuationInput, ActuationOutput,
    ActuatorModel, TransmissionOutput,
};

/// Parameters of one actuator (ten each) with `values` first.
fn prm(values: &[f64]) -> Vec<f64> {
    let mut p = vec![0.0; 10];
    p[..values.len()].copy_from_slice(values);
    p
}

/// Arrays of a one-hinge, one-actuator model, owned so that views can borrow them.
struct Hinge {
    jnt: [Vec<i32>; 3],
    int: [Vec<i32>; 12],
    flt: [Vec<f64>; 9],
    bytes: Vec<u8>,
}

impl Hinge {
    /// A hinge at dof 0 driven by actuator 0 with these gain and bias parameters and types.
    fn new(gaintype: i32, gain: &[f64], biastype: i32, bias: &[f64], dyntype: i32) -> Hinge {
        let (actadr, actnum) = if dyntype == 0 { (-1, 0) } else { (0, 1) };
        Hinge {
            jnt: [vec![3], vec![0], vec![0]],
            int: [
                vec![0],
                vec![dyntype],
                vec![gaintype],
                vec![biastype],
                vec![0],
                vec![1],
                vec![0],
                vec![1],
                vec![actadr],
                vec![actnum],
                vec![0, -1],
                vec![-1],
            ],
            flt: [
                prm(&[0.1]),
                prm(gain),
                prm(bias),
                vec![-1.0, 1.0],
                vec![0.0],
                vec![-2.0, 2.0],
                vec![-1.0, 1.0],
                vec![2.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                vec![-10.0, 10.0],
            ],
            bytes: vec![0],
        }
    }

    fn model(&self) -> ActuatorModel<'_> {
        let [trntype, dyntype, gaintype, biastype, ctrladr, ctrlnum, outadr, outnum, actadr, actnum, trnid, plugin] =
            &self.int;
        let [dynprm, gainprm, biasprm, actrange, delay, forcerange, ctrlrange, gear, jnt_range] = &self.flt;
        ActuatorModel {
            nq: 1,
            nv: 1,
            nu: 1,
            na: if actnum[0] == 1 { 1 } else { 0 },
            nout: 1,
            njmom: 1,
            timestep: 0.01,
            jnt_type: &self.jnt[0],
            jnt_qposadr: &self.jnt[1],
            jnt_dofadr: &self.jnt[2],
            jnt_actfrclimited: &self.bytes,
            jnt_actfrcrange: jnt_range,
            jnt_actgravcomp: &self.bytes,
            actuator_trntype: trntype,
            actuator_dyntype: dyntype,
            actuator_gaintype: gaintype,
            actuator_biastype: biastype,
            actuator_ctrladr: ctrladr,
            actuator_ctrlnum: ctrlnum,
            actuator_ctrlspec: &[],
            actuator_outadr: outadr,
            actuator_outnum: outnum,
            actuator_actadr: actadr,
            actuator_actnum: actnum,
            actuator_trnid: trnid,
            actuator_group: outadr,
            actuator_plugin: plugin,
            actuator_dynprm: dynprm,
            actuator_gainprm: gainprm,
            actuator_biasprm: biasprm,
            actuator_actlimited: &self.bytes,
            actuator_actrange: actrange,
            actuator_actearly: &self.bytes,
            actuator_delay: delay,
            actuator_forcelimited: &self.bytes,
            actuator_forcerange: forcerange,
            actuator_ctrllimited: &self.bytes,
            actuator_ctrlrange: ctrlrange,
            actuator_gear: gear,
            actuator_acc0: &[1.0],
            actuator_lengthrange: &[0.0, 1.0],
            ..ActuatorModel::default()
        }
    }
}

/// Runs both stages on the hinge at `qpos` with velocity `qvel` and control `ctrl`: the force,
/// the joint force, `act_dot` and the bad-control report.
fn run(h: &Hinge, qpos: f64, qvel: f64, ctrl: f64, act: f64) -> (f64, f64, f64, Option<usize>) {
    let m = h.model();
    assert!(transmission_in_scope(&m));
    let (mut length, mut rownnz, mut rowadr, mut colind, mut moment) = ([0.0], [0], [0], [0], [0.0]);
    let mut out = TransmissionOutput {
        actuator_length: &mut length,
        moment_rownnz: &mut rownnz,
        moment_rowadr: &mut rowadr,
        moment_colind: &mut colind,
        actuator_moment: &mut moment,
    };
    transmission(&m, &[qpos], &mut out);
    let velocity = [moment[0] * qvel];
    let act = [act];
    let input = ActuationInput {
        ctrl: &[ctrl],
        act: &act[..m.na],
        actuator_length: &length,
        actuator_velocity: &velocity,
        moment_rownnz: &rownnz,
        moment_rowadr: &rowadr,
        moment_colind: &colind,
        actuator_moment: &moment,
        qfrc_gravcomp: &[0.0],
    };
    assert!(actuation_in_scope(&m, &input));
    let (mut act_dot, mut force, mut qfrc) = ([0.0], [0.0], [0.0]);
    let mut out =
        ActuationOutput { act_dot: &mut act_dot[..m.na], actuator_force: &mut force, qfrc_actuator: &mut qfrc };
    let bad = fwd_actuation(&m, &input, &mut [0.0], &mut out);
    (force[0], qfrc[0], act_dot[0], bad)
}

#[test]
fn a_motor_applies_gear_times_its_clamped_control() {
    let mut h = Hinge::new(0, &[1.0], 0, &[], 0);
    h.bytes = vec![0];
    assert_eq!(run(&h, 0.3, 0.0, 0.25, 0.0), (0.25, 0.5, 0.0, None));
    // ctrllimited: the copy is clamped to [-1, 1]; the input itself is never written
    h.bytes = vec![1];
    let (force, qfrc, _, bad) = run(&h, 0.3, 0.0, 7.0, 0.0);
    assert_eq!((force, bad), (1.0, None));
    // forcelimited too (the same byte): [-2, 2] on the force, then the gear
    assert_eq!(qfrc, 2.0);
}

#[test]
fn a_bad_control_is_reported_and_counts_as_zero() {
    let h = Hinge::new(0, &[1.0], 0, &[], 0);
    for bad in [f64::NAN, f64::INFINITY, -2e10] {
        let (force, qfrc, _, report) = run(&h, 0.0, 0.0, bad, 0.0);
        assert_eq!((force, qfrc, report), (0.0, 0.0, Some(0)), "{bad}");
    }
    // 1e10 itself is not beyond mjMAXVAL
    assert_eq!(run(&h, 0.0, 0.0, 1e10, 0.0).3, None);
}

#[test]
fn a_position_servo_pulls_towards_its_target() {
    // kp = 4, kv = 0.5: force = 4 ctrl - 4 length - 0.5 velocity, length = gear qpos
    let h = Hinge::new(0, &[4.0], 1, &[0.0, -4.0, -0.5], 0);
    let (force, qfrc, _, _) = run(&h, 0.25, 0.5, 1.0, 0.0);
    assert_eq!(force, -0.5 * 1.0 + (-4.0 * 0.5 + 0.0) + 4.0);
    assert_eq!(qfrc, 2.0 * force);
}

#[test]
fn a_bias_of_none_turns_negative_zero_into_zero() {
    let h = Hinge::new(0, &[-1.0], 0, &[], 0);
    let (force, ..) = run(&h, 0.0, 0.0, 0.0, 0.0);
    assert_eq!(force.to_bits(), 0.0f64.to_bits());
}

#[test]
fn a_filter_moves_towards_its_control() {
    // tau = 0.1: act_dot = (ctrl - act) / tau; the force uses the activation
    let h = Hinge::new(0, &[3.0], 0, &[], 2);
    let (force, _, act_dot, _) = run(&h, 0.0, 0.0, 0.5, 0.25);
    assert_eq!((force, act_dot), (0.75, (0.5 - 0.25) / 0.1));
    // tau 0 counts as mjMINVAL; NaN is kept (the library's max keeps its second operand)
    let mut h = Hinge::new(0, &[1.0], 0, &[], 2);
    h.flt[0][0] = 0.0;
    assert_eq!(run(&h, 0.0, 0.0, 1.0, 0.0).2, 1.0 / 1e-15);
    h.flt[0][0] = f64::NAN;
    assert!(run(&h, 0.0, 0.0, 1.0, 0.0).2.is_nan());
}

#[test]
fn next_activation_integrates_and_clamps() {
    let mut h = Hinge::new(0, &[1.0], 0, &[], 1);
    let m = h.model();
    assert_eq!(next_activation(&m, &[0.5], 0, 0, 2.0), 2.0 * 0.01 + 0.5);
    h.bytes = vec![1];
    let m = h.model();
    assert_eq!(next_activation(&m, &[0.5], 0, 0, 200.0), 1.0);
    assert!(next_activation(&m, &[f64::NAN], 0, 0, 1.0).is_nan(), "NaN passes the clamp");
    // exact integration of a filter: (1 - exp(-h / tau)) tau act_dot + act
    let mut h = Hinge::new(0, &[1.0], 0, &[], 3);
    h.flt[0][0] = 0.05;
    let m = h.model();
    let expect = (1.0 - (-0.01f64 / 0.05).exp()) * (2.0 * 0.05) + 0.5;
    assert_eq!(next_activation(&m, &[0.5], 0, 0, 2.0), expect);
}

#[test]
fn wrap_rounds_half_away_from_zero_and_saturates() {
    let p = 2.0;
    assert_eq!(wrap(5.0, 0.0, p), 5.0 - 2.0 * 3.0);
    assert_eq!(wrap(-5.0, 0.0, p), -5.0 + 2.0 * 3.0);
    assert_eq!(wrap(0.9, 0.0, p), 0.9);
    assert_eq!(wrap(1e300, 0.0, p), 1e300 - 2.0 * 2147483647.0);
    assert_eq!(wrap(-1e300, 0.0, p), -1e300 + 2.0 * 2147483648.0);
    // NaN turns: cvttsd2si's integer indefinite, i32::MIN
    assert!(wrap(f64::NAN, 0.0, p).is_nan());
    assert_eq!(wrap(1.0, f64::INFINITY, p), 1.0 + 2.0 * 2147483648.0);
    // a -0 turn count comes back from i32 as +0, so -0 stays -0 (a -0 count would give +0)
    assert_eq!(wrap(-0.0, 0.0, p).to_bits(), (-0.0f64).to_bits());
}

#[test]
fn only_position_servos_on_rotations_have_a_period() {
    let h = Hinge::new(0, &[4.0], 1, &[0.0, -4.0, -0.5], 0);
    assert_eq!(wrap_period(&h.model(), 0), 0.0, "a hinge does not wrap");
    let mut ball = Hinge::new(0, &[4.0], 1, &[0.0, -4.0, -0.5], 0);
    ball.jnt[0][0] = 1;
    ball.flt[7] = vec![0.0, 3.0, 4.0, 0.0, 0.0, 0.0];
    assert_eq!(wrap_period(&ball.model(), 0), 5.0 * (2.0 * std::f64::consts::PI));
    ball.flt[2][1] = -3.0;
    assert_eq!(wrap_period(&ball.model(), 0), 0.0, "kp and bias disagree: not a servo");
}

#[test]
fn outside_the_affine_kinds_falls_back() {
    let base = Hinge::new(0, &[1.0], 0, &[], 0);
    let input = ActuationInput { moment_rownnz: &[0], moment_rowadr: &[0], ..ActuationInput::default() };
    assert!(actuation_in_scope(&base.model(), &input));
    // muscles are in scope (gain, bias and dynamics); DC motors, PID and user types are not
    let muscle = Hinge::new(2, &[1.0], 2, &[], 4);
    assert!(actuation_in_scope(&muscle.model(), &input));
    for (gain, bias, dynamics) in
        [(3, 0, 0), (0, 3, 0), (0, 0, 5), (5, 0, 0), (0, 0, 6), (6, 0, 0), (0, 5, 0), (0, 0, 7)]
    {
        let h = Hinge::new(gain, &[1.0], bias, &[], dynamics);
        assert!(!actuation_in_scope(&h.model(), &input), "{gain} {bias} {dynamics}");
    }
    let mut delayed = Hinge::new(0, &[1.0], 0, &[], 0);
    delayed.flt[4][0] = f64::NAN;
    assert!(!actuation_in_scope(&delayed.model(), &input), "a NaN delay is a delay");
    let mut plugin = Hinge::new(0, &[1.0], 0, &[], 0);
    plugin.int[11][0] = 0;
    assert!(!actuation_in_scope(&plugin.model(), &input));
    let mut tendon = Hinge::new(0, &[1.0], 0, &[], 0);
    tendon.int[0][0] = 3;
    assert!(!transmission_in_scope(&tendon.model()));
    // a moment row outside nJmom
    let bad_row = ActuationInput { moment_rownnz: &[2], moment_rowadr: &[0], ..input };
    assert!(!actuation_in_scope(&base.model(), &bad_row));
}

#[test]
fn a_ball_joint_length_is_its_rotation_vector_along_the_gear() {
    let mut h = Hinge::new(0, &[1.0], 0, &[], 0);
    h.jnt[0][0] = 1;
    h.flt[7] = vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
    let mut m = h.model();
    (m.nq, m.nv, m.njmom) = (4, 3, 3);
    let (mut length, mut rownnz, mut rowadr, mut colind, mut moment) = ([0.0], [0], [0], [0; 3], [0.0; 3]);
    let mut out = TransmissionOutput {
        actuator_length: &mut length,
        moment_rownnz: &mut rownnz,
        moment_rowadr: &mut rowadr,
        moment_colind: &mut colind,
        actuator_moment: &mut moment,
    };
    // a quarter turn about z, stored unnormalised
    let (c, s) = (std::f64::consts::FRAC_PI_4.cos(), std::f64::consts::FRAC_PI_4.sin());
    transmission(&m, &[2.0 * c, 0.0, 0.0, 2.0 * s], &mut out);
    assert!((out.actuator_length[0] - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    assert_eq!((&*out.moment_rownnz, &*out.moment_colind), (&[3][..], &[0, 1, 2][..]));
    assert_eq!(out.actuator_moment, &[0.0, 0.0, 1.0]);
    // beyond a half turn the angle comes back negative
    transmission(&m, &[-c, 0.0, 0.0, s], &mut out);
    assert!((out.actuator_length[0] + std::f64::consts::FRAC_PI_2).abs() < 1e-15);
}
