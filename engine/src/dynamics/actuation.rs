//! `mj_fwdActuation`: activation derivatives `act_dot`, actuator forces and the joint-space
//! actuator force `qfrc_actuator`, as MuJoCo 4.0.0 computes them for affine and muscle actuators
//! (fixed, affine or muscle gain, no, affine or muscle bias, no / integrator / filter /
//! exact-filter / muscle dynamics; `docs/measurements.md`, "Dynamics stages", D63, D64). The
//! view of the actuator model here is shared with [`transmission`](super::transmission).

use super::dcmotor::{self, BIAS_DCMOTOR, DYN_DCMOTOR, GAIN_DCMOTOR};
use super::jnt;
use super::muscle::{muscle_bias, muscle_dynamics, muscle_gain};
use super::pid::{self, DYN_PID, GAIN_PID};
use crate::math::{clip, MINVAL};

/// `mjDSBL_GRAVITY`.
const DSBL_GRAVITY: i32 = 1 << 7;
/// `mjDSBL_CLAMPCTRL`.
const DSBL_CLAMPCTRL: i32 = 1 << 8;
/// `mjDSBL_ACTUATION`.
const DSBL_ACTUATION: i32 = 1 << 11;
/// `mjMAXVAL`: a control beyond it is reported as bad.
const MAXVAL: f64 = 1e10;

/// `mjtTrn` values the stages look at.
mod trn {
    pub const JOINT: i32 = 0;
    pub const JOINTINPARENT: i32 = 1;
    pub const TENDON: i32 = 3;
    pub const SITE: i32 = 4;
    pub const BODY: i32 = 5;
}

/// `mjtDyn` values in scope.
mod dyn_type {
    pub const NONE: i32 = 0;
    pub const INTEGRATOR: i32 = 1;
    pub const FILTER: i32 = 2;
    pub const FILTEREXACT: i32 = 3;
    pub const MUSCLE: i32 = 4;
}

/// `mjGAIN_MUSCLE` and `mjBIAS_MUSCLE`.
const MUSCLE: i32 = 2;

/// The model arrays `mj_transmission` and `mj_fwdActuation` read (MuJoCo's names; booleans as
/// bytes, compared with 1 as the library does).
#[derive(Clone, Copy, Debug, Default)]
pub struct ActuatorModel<'a> {
    /// Number of position coordinates.
    pub nq: usize,
    /// Number of degrees of freedom.
    pub nv: usize,
    /// Number of controls.
    pub nu: usize,
    /// Number of activations.
    pub na: usize,
    /// Number of force outputs.
    pub nout: usize,
    /// Number of non-zeros the sparse actuator moments may hold.
    pub njmom: usize,
    /// Number of tendons.
    pub ntendon: usize,
    /// `opt.timestep`.
    pub timestep: f64,
    /// `opt.disableflags`.
    pub disableflags: i32,
    /// `opt.disableactuator`: actuator groups switched off.
    pub disableactuator: i32,
    /// `opt.gravity`.
    pub gravity: [f64; 3],
    /// Whether some body has gravity compensation (`flg_gravcomp`).
    pub flg_gravcomp: bool,
    /// Type of each joint (`njnt`).
    pub jnt_type: &'a [i32],
    /// First position coordinate of each joint (`njnt`).
    pub jnt_qposadr: &'a [i32],
    /// First dof of each joint (`njnt`).
    pub jnt_dofadr: &'a [i32],
    /// Whether each joint's total actuator force is limited (`njnt`).
    pub jnt_actfrclimited: &'a [u8],
    /// Range of each joint's total actuator force (`2 njnt`).
    pub jnt_actfrcrange: &'a [f64],
    /// Whether each joint's gravity compensation goes through the actuators (`njnt`).
    pub jnt_actgravcomp: &'a [u8],
    /// Whether each tendon's total actuator force is limited (`ntendon`).
    pub tendon_actfrclimited: &'a [u8],
    /// Transmission type (`nactuator`).
    pub actuator_trntype: &'a [i32],
    /// Dynamics type (`nactuator`).
    pub actuator_dyntype: &'a [i32],
    /// Gain type (`nactuator`).
    pub actuator_gaintype: &'a [i32],
    /// Bias type (`nactuator`).
    pub actuator_biastype: &'a [i32],
    /// First control of each actuator (`nactuator`).
    pub actuator_ctrladr: &'a [i32],
    /// Number of controls of each actuator (`nactuator`).
    pub actuator_ctrlnum: &'a [i32],
    /// Input signature of each actuator (`mjINPUT_*` bits for DC motors; `nactuator`, may be
    /// empty when no actuator needs it).
    pub actuator_ctrlspec: &'a [i32],
    /// First force output of each actuator (`nactuator`).
    pub actuator_outadr: &'a [i32],
    /// Number of force outputs of each actuator (`nactuator`).
    pub actuator_outnum: &'a [i32],
    /// First activation of each actuator, -1 for none (`nactuator`).
    pub actuator_actadr: &'a [i32],
    /// Number of activations of each actuator (`nactuator`).
    pub actuator_actnum: &'a [i32],
    /// Transmission targets, two per actuator (`2 nactuator`).
    pub actuator_trnid: &'a [i32],
    /// Visibility group, which `disableactuator` switches off (`nactuator`).
    pub actuator_group: &'a [i32],
    /// Plugin instance, -1 for none (`nactuator`).
    pub actuator_plugin: &'a [i32],
    /// Dynamics parameters (`10 nactuator`).
    pub actuator_dynprm: &'a [f64],
    /// Gain parameters (`10 nactuator`).
    pub actuator_gainprm: &'a [f64],
    /// Bias parameters (`10 nactuator`).
    pub actuator_biasprm: &'a [f64],
    /// Whether each actuator's activation is limited (`nactuator`).
    pub actuator_actlimited: &'a [u8],
    /// Activation ranges (`2 nactuator`).
    pub actuator_actrange: &'a [f64],
    /// Whether each actuator's force uses the next activation (`nactuator`).
    pub actuator_actearly: &'a [u8],
    /// Control delay of each actuator, 0 for none (`nactuator`).
    pub actuator_delay: &'a [f64],
    /// Whether each actuator's force is limited (`nactuator`).
    pub actuator_forcelimited: &'a [u8],
    /// Force ranges (`2 nactuator`).
    pub actuator_forcerange: &'a [f64],
    /// Whether each control is limited (`nu`).
    pub actuator_ctrllimited: &'a [u8],
    /// Control ranges (`2 nu`).
    pub actuator_ctrlrange: &'a [f64],
    /// Gear of each force output (`6 nout`).
    pub actuator_gear: &'a [f64],
    /// Acceleration from unit force at `qpos0` of each output (`nout`), a muscle's force scale.
    pub actuator_acc0: &'a [f64],
    /// Length range of each output (`2 nout`), a muscle's normalization.
    pub actuator_lengthrange: &'a [f64],
}

impl ActuatorModel<'_> {
    /// Number of actuators.
    pub fn nactuator(&self) -> usize {
        self.actuator_trntype.len()
    }

    /// Number of joints.
    pub fn njnt(&self) -> usize {
        self.jnt_type.len()
    }
}

/// The data `mj_fwdActuation` reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct ActuationInput<'a> {
    /// Controls (`nu`).
    pub ctrl: &'a [f64],
    /// Activations (`na`).
    pub act: &'a [f64],
    /// Actuator lengths (`nout`).
    pub actuator_length: &'a [f64],
    /// Actuator velocities (`nout`).
    pub actuator_velocity: &'a [f64],
    /// Non-zeros of each moment row (`nout`).
    pub moment_rownnz: &'a [i32],
    /// Start of each moment row (`nout`).
    pub moment_rowadr: &'a [i32],
    /// Dof of each moment non-zero (`nJmom`).
    pub moment_colind: &'a [i32],
    /// Moment non-zeros (`nJmom`).
    pub actuator_moment: &'a [f64],
    /// Gravity compensation force from `mj_passive` (`nv`).
    pub qfrc_gravcomp: &'a [f64],
}

/// The arrays `mj_fwdActuation` writes.
#[derive(Debug)]
pub struct ActuationOutput<'a> {
    /// Activation derivatives (`na`).
    pub act_dot: &'a mut [f64],
    /// Force of each output (`nout`).
    pub actuator_force: &'a mut [f64],
    /// Actuator force in joint space (`nv`).
    pub qfrc_actuator: &'a mut [f64],
}

/// `max(mjMINVAL, x)` as the library evaluates it: `x` unless `mjMINVAL > x` (NaN is kept).
#[inline]
pub(super) fn at_least_minval(x: f64) -> f64 {
    if MINVAL > x {
        MINVAL
    } else {
        x
    }
}

/// Whether a validated index range `[adr, adr + num)` lies inside `0..len`.
#[inline]
fn fits(adr: i32, num: i32, len: usize) -> bool {
    adr >= 0 && num >= 0 && (adr as i64 + num as i64) as u64 <= len as u64
}

/// Whether `mj_fwdActuation` can run here for this model and the moments in `input`: every
/// actuator is affine or a muscle (gain fixed/affine/muscle, bias none/affine/muscle, dynamics none/integrator/filter/
/// exact filter, muscle), has one control and one force output, no delay and no plugin, no tendon with
/// limited total actuator force, and every index the stage follows is in range.
//
// The per-actuator bodies below are functions of their own, not inlined into their loops: inlined,
// every model array the body reads was loaded before the loop and spilled to the stack, which on
// a model of one or two actuators cost more than the loop itself (`bench --stages`).
#[inline]
pub fn actuation_in_scope(m: &ActuatorModel, input: &ActuationInput) -> bool {
    let nact = m.nactuator();
    if nact == 0 || m.disableflags & DSBL_ACTUATION != 0 {
        return true;
    }
    if !(0..nact).all(|i| actuator_in_scope(m, i)) {
        return false;
    }
    // the moment rows qfrc_actuator is gathered through (written by mj_transmission)
    for k in 0..m.nout {
        let nnz = input.moment_rownnz[k];
        if nnz > 0 {
            let adr = input.moment_rowadr[k];
            if !fits(adr, nnz, m.njmom) {
                return false;
            }
            let cols = &input.moment_colind[adr as usize..(adr + nnz) as usize];
            if cols.iter().any(|&c| c < 0 || c as usize >= m.nv) {
                return false;
            }
        }
    }
    // the joints whose dofs gravity compensation and force limits touch
    for j in 0..m.njnt() {
        if m.jnt_actgravcomp[j] == 1 || m.jnt_actfrclimited[j] == 1 {
            let Some(n) = dof_count(m.jnt_type[j]) else { return false };
            if !fits(m.jnt_dofadr[j], n, m.nv) {
                return false;
            }
        }
    }
    true
}

/// [`actuation_in_scope`] for actuator `i`.
#[inline(never)]
fn actuator_in_scope(m: &ActuatorModel, i: usize) -> bool {
    let dyntype = m.actuator_dyntype[i];
    let (actadr, actnum) = (m.actuator_actadr[i], m.actuator_actnum[i]);
    let stateless = actadr == -1 && actnum == 0;
    let dc = dyntype == DYN_DCMOTOR || m.actuator_gaintype[i] == GAIN_DCMOTOR || m.actuator_biastype[i] == BIAS_DCMOTOR;
    // a DC motor's states and control block follow its parameters and input signature
    let (dynamics_ok, controls_ok) = if dc {
        (dcmotor::in_scope(m, i), true)
    } else if dyntype == DYN_PID || m.actuator_gaintype[i] == GAIN_PID {
        (pid::in_scope(m, i), true)
    } else {
        let dynamics_ok = match dyntype {
            dyn_type::NONE => stateless,
            dyn_type::INTEGRATOR | dyn_type::FILTER | dyn_type::FILTEREXACT | dyn_type::MUSCLE => {
                actnum == 1 && fits(actadr, 1, m.na)
            }
            _ => false,
        };
        let types_ok =
            matches!(m.actuator_gaintype[i], 0 | 1 | MUSCLE) && matches!(m.actuator_biastype[i], 0 | 1 | MUSCLE);
        (dynamics_ok && types_ok, m.actuator_ctrlnum[i] == 1 && fits(m.actuator_ctrladr[i], 1, m.nu))
    };
    // a delayed control is read from the history buffer (`mj_readCtrl`); NaN counts as a delay
    #[allow(clippy::float_cmp)]
    let undelayed = m.actuator_delay[i] == 0.0;
    let trntype = m.actuator_trntype[i];
    let id = m.actuator_trnid[2 * i];
    let target_ok = match trntype {
        trn::JOINT | trn::JOINTINPARENT => id >= 0 && (id as usize) < m.njnt(),
        // the tendon's actuator-force limit switches to a pass MuJoCo keeps for itself
        trn::TENDON => id >= 0 && (id as usize) < m.ntendon && m.tendon_actfrclimited[id as usize] != 1,
        2 | trn::SITE | trn::BODY => true,
        _ => false,
    };
    dynamics_ok
        && controls_ok
        && undelayed
        && target_ok
        && m.actuator_plugin[i] < 0
        && m.actuator_outnum[i] == 1
        && fits(m.actuator_outadr[i], 1, m.nout)
}

/// Number of dofs of a joint type, `None` for a type MuJoCo does not define.
#[inline]
pub(super) fn dof_count(jnt_type: i32) -> Option<i32> {
    match jnt_type {
        jnt::FREE => Some(6),
        jnt::BALL => Some(3),
        jnt::SLIDE | jnt::HINGE => Some(1),
        _ => None,
    }
}

/// Period of an actuator's setpoint, 0 for none: position-like servos (fixed gain, affine bias
/// with `biasprm[1] = -gainprm[0]`, no muscle-like dynamics) and PID gains on a rotation (a
/// ball joint, or a site with a reference site and a purely rotational gear) wrap their target
/// by `2 pi |gear|` (`wrapPeriod`).
#[inline]
pub fn wrap_period(m: &ActuatorModel, i: usize) -> f64 {
    let gaintype = m.actuator_gaintype[i];
    #[allow(clippy::float_cmp)]
    let position = gaintype == 0
        && m.actuator_biastype[i] == 1
        && m.actuator_gainprm[10 * i] == -m.actuator_biasprm[10 * i + 1]
        && (m.actuator_dyntype[i] as u32) < 4;
    if !(gaintype == GAIN_PID || position) {
        return 0.0;
    }
    let out = 6 * m.actuator_outadr[i] as usize;
    let gear = &m.actuator_gear[out..out + 6];
    let rotation = match m.actuator_trntype[i] {
        trn::SITE => {
            #[allow(clippy::float_cmp)]
            let rotational = gear[0] == 0.0 && gear[1] == 0.0 && gear[2] == 0.0;
            if m.actuator_trnid[2 * i + 1] < 0 || !rotational {
                return 0.0;
            }
            &gear[3..6]
        }
        trn::JOINT | trn::JOINTINPARENT if m.jnt_type[m.actuator_trnid[2 * i] as usize] == jnt::BALL => &gear[0..3],
        _ => return 0.0,
    };
    let squared = (rotation[0] * rotation[0] + rotation[1] * rotation[1]) + rotation[2] * rotation[2];
    squared.sqrt() * (2.0 * std::f64::consts::PI)
}

/// `x` moved by a whole number of periods to within half a period of `reference`; the number is
/// rounded half away from zero and saturates to `i32` (NaN gives `i32::MIN`, as `cvttsd2si`).
pub fn wrap(x: f64, reference: f64, period: f64) -> f64 {
    let turns = (x - reference) / period;
    let n = if turns > 2147483647.0 {
        2147483647.0
    } else if -2147483648.0 > turns {
        -2147483648.0
    } else {
        let t = (turns + 0.49999999999999994f64.copysign(turns)).trunc();
        // through i32 as the library does: -0 becomes +0, NaN becomes i32::MIN
        if t.is_nan() {
            f64::from(i32::MIN)
        } else {
            f64::from(t as i32)
        }
    };
    x - period * n
}

/// The activation one step on from `act[adr]` at rate `act_dot` (`mj_nextActivation`): exact
/// integration of the filter for `filterexact`, explicit Euler otherwise, clamped to the
/// activation range when limited.
pub fn next_activation(m: &ActuatorModel, act: &[f64], i: usize, adr: usize, act_dot: f64) -> f64 {
    if m.actuator_dyntype[i] == DYN_DCMOTOR {
        // the bristle slot needs the actuator's velocity, which only its own callers have
        return dcmotor::next_activation(m, act, f64::NAN, i, adr, act_dot);
    }
    let a = act[adr];
    let next = if m.actuator_dyntype[i] == dyn_type::FILTEREXACT {
        let tau = at_least_minval(m.actuator_dynprm[10 * i]);
        let rate = act_dot * tau;
        (1.0 - (-m.timestep / tau).exp()) * rate + a
    } else {
        act_dot * m.timestep + a
    };
    if m.actuator_actlimited[i] == 1 {
        clip(next, m.actuator_actrange[2 * i], m.actuator_actrange[2 * i + 1])
    } else {
        next
    }
}

/// Computes `act_dot`, `actuator_force` and `qfrc_actuator` for a model [`actuation_in_scope`]
/// accepts, all actuators awake. `ctrl` is a work array of at least `nu` elements. Returns the
/// first control that was NaN or beyond `mjMAXVAL` after clamping, for `mjWARN_BADCTRL` (the
/// controls then count as zero).
#[inline]
pub fn fwd_actuation(
    m: &ActuatorModel,
    input: &ActuationInput,
    ctrl: &mut [f64],
    out: &mut ActuationOutput,
) -> Option<usize> {
    let nact = m.nactuator();
    out.actuator_force[..m.nout].fill(0.0);
    if nact == 0 || m.disableflags & DSBL_ACTUATION != 0 {
        out.qfrc_actuator[..m.nv].fill(0.0);
        return None;
    }
    // MuJoCo clamps and checks a copy of the controls: d->ctrl itself is never written
    let ctrl = &mut ctrl[..m.nu];
    ctrl.copy_from_slice(&input.ctrl[..m.nu]);
    if m.disableflags & DSBL_CLAMPCTRL == 0 {
        for (i, c) in ctrl.iter_mut().enumerate() {
            if m.actuator_ctrllimited[i] == 1 {
                *c = clip(*c, m.actuator_ctrlrange[2 * i], m.actuator_ctrlrange[2 * i + 1]);
            }
        }
    }
    let bad = ctrl.iter().position(|c| c.is_nan() || c.abs() > MAXVAL);
    if bad.is_some() {
        ctrl.fill(0.0);
    }
    activation_rates(m, input, ctrl, out.act_dot);
    forces(m, input, ctrl, out);
    joint_forces(m, input, out);
    bad
}

/// `act_dot` of every stateful actuator: the control for an integrator, `(ctrl - act) / tau` for
/// a filter (its control wrapped around the activation when the actuator has a period).
fn activation_rates(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], act_dot: &mut [f64]) {
    for i in 0..m.nactuator() {
        if m.actuator_actadr[i] >= 0 {
            activation_rate(m, input, ctrl, act_dot, i);
        }
    }
}

/// [`activation_rates`] for stateful actuator `i`.
#[inline(never)]
fn activation_rate(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], act_dot: &mut [f64], i: usize) {
    let (adr, num) = (m.actuator_actadr[i] as usize, m.actuator_actnum[i] as usize);
    act_dot[adr..adr + num].fill(0.0);
    let last = adr + num - 1;
    let u = m.actuator_ctrladr[i] as usize;
    match m.actuator_dyntype[i] {
        dyn_type::INTEGRATOR => act_dot[last] = ctrl[u],
        dyn_type::FILTER | dyn_type::FILTEREXACT => {
            let period = wrap_period(m, i);
            let a = input.act[last];
            let target = if period > 0.0 { wrap(ctrl[u], a, period) } else { ctrl[u] };
            act_dot[last] = (target - a) / at_least_minval(m.actuator_dynprm[10 * i]);
        }
        dyn_type::MUSCLE => {
            act_dot[last] = muscle_dynamics(ctrl[u], input.act[last], &m.actuator_dynprm[10 * i..10 * i + 3]);
        }
        DYN_DCMOTOR => dcmotor::rates(m, input, ctrl, act_dot, i),
        DYN_PID => pid::rates(m, input, ctrl, act_dot, i),
        _ => {}
    }
}

/// `actuator_force`: gain times input plus bias per enabled actuator, then the force limits.
fn forces(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], out: &mut ActuationOutput) {
    let mut dc = false;
    for i in 0..m.nactuator() {
        if disabled(m, i) {
            continue;
        }
        dc |= m.actuator_biastype[i] == BIAS_DCMOTOR;
        actuator_force(m, input, ctrl, out, i);
    }
    let force = &mut *out.actuator_force;
    // force limits apply to every actuator, enabled or not, in a pass of their own
    for i in 0..m.nactuator() {
        if m.actuator_forcelimited[i] == 1 {
            let (lo, hi) = (m.actuator_forcerange[2 * i], m.actuator_forcerange[2 * i + 1]);
            let adr = m.actuator_outadr[i] as usize;
            for f in &mut force[adr..adr + m.actuator_outnum[i] as usize] {
                *f = clip(*f, lo, hi);
            }
        }
    }
    // a DC motor's cogging and bristle friction are not subject to its force limit
    if dc {
        for i in 0..m.nactuator() {
            if m.actuator_biastype[i] == BIAS_DCMOTOR && !disabled(m, i) {
                dcmotor::mechanical(m, input, out.act_dot, force, i);
            }
        }
    }
}

/// Whether actuator `i`'s group is switched off by `opt.disableactuator`.
#[inline]
fn disabled(m: &ActuatorModel, i: usize) -> bool {
    let group = m.actuator_group[i];
    (group as u32) <= 30 && (m.disableactuator >> group) & 1 != 0
}

/// [`forces`] for enabled actuator `i`: its force before the limits.
#[inline(never)]
fn actuator_force(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], out: &mut ActuationOutput, i: usize) {
    let k = m.actuator_outadr[i] as usize;
    let (length, velocity) = (input.actuator_length[k], input.actuator_velocity[k]);
    let gp = &m.actuator_gainprm[10 * i..10 * i + 9];
    let lengthrange = &m.actuator_lengthrange[2 * k..2 * k + 2];
    if m.actuator_gaintype[i] == GAIN_PID {
        out.actuator_force[k] = pid::force(m, input, ctrl, out.act_dot, i);
        add_bias(m, input, out, i, 0.0);
        return;
    }
    // a DC motor's input is its terminal voltage unless its current is a state
    let (gain, voltage) = match m.actuator_gaintype[i] {
        0 => (gp[0], None),
        MUSCLE => (muscle_gain(length, velocity, lengthrange, m.actuator_acc0[k], gp), None),
        GAIN_DCMOTOR => dcmotor::gain(m, input, ctrl, i),
        _ => (gp[2] * velocity + (gp[1] * length + gp[0]), None),
    };
    let actnum = m.actuator_actnum[i];
    let mut x = if let Some(v) = voltage {
        v
    } else if actnum != 0 {
        let last = (m.actuator_actadr[i] + actnum - 1) as usize;
        if m.actuator_actearly[i] == 1 {
            next_activation(m, input.act, i, last, out.act_dot[last])
        } else {
            input.act[last]
        }
    } else {
        ctrl[m.actuator_ctrladr[i] as usize]
    };
    let period = wrap_period(m, i);
    if period > 0.0 {
        x = wrap(x, length, period);
    }
    out.actuator_force[k] = x * gain;
    add_bias(m, input, out, i, gain);
}

/// Adds actuator `i`'s bias to its force; `gain` is its gain, which a DC motor's back-EMF uses.
#[inline]
fn add_bias(m: &ActuatorModel, input: &ActuationInput, out: &mut ActuationOutput, i: usize, gain: f64) {
    let k = m.actuator_outadr[i] as usize;
    let (length, velocity) = (input.actuator_length[k], input.actuator_velocity[k]);
    let lengthrange = &m.actuator_lengthrange[2 * k..2 * k + 2];
    let force = &mut out.actuator_force[k];
    let bp = &m.actuator_biasprm[10 * i..10 * i + 9];
    // bias type none still adds +0, which turns a -0 force into +0
    let bias = match m.actuator_biastype[i] {
        0 => 0.0,
        MUSCLE => muscle_bias(length, lengthrange, m.actuator_acc0[k], bp),
        BIAS_DCMOTOR => dcmotor::bias(m, velocity, gain, i),
        _ => bp[2] * velocity + (bp[1] * length + bp[0]),
    };
    *force += bias;
}

/// `qfrc_actuator`: the moments transposed times the forces (output by output, skipping zero
/// forces), plus gravity compensation routed through actuators, then joint force limits.
fn joint_forces(m: &ActuatorModel, input: &ActuationInput, out: &mut ActuationOutput) {
    let qfrc = &mut out.qfrc_actuator[..m.nv];
    qfrc.fill(0.0);
    for (k, &f) in out.actuator_force[..m.nout].iter().enumerate() {
        let nnz = input.moment_rownnz[k];
        #[allow(clippy::float_cmp)]
        if f == 0.0 || nnz <= 0 {
            continue;
        }
        let adr = input.moment_rowadr[k] as usize;
        let row = adr..adr + nnz as usize;
        for (&col, &moment) in input.moment_colind[row.clone()].iter().zip(&input.actuator_moment[row]) {
            let c = col as usize;
            qfrc[c] += f * moment;
        }
    }
    let g = m.gravity;
    #[allow(clippy::float_cmp)]
    let gravity =
        m.flg_gravcomp && m.disableflags & DSBL_GRAVITY == 0 && (g[0] * g[0] + g[1] * g[1]) + g[2] * g[2] != 0.0;
    if gravity {
        for j in 0..m.njnt() {
            if m.jnt_actgravcomp[j] == 1 {
                let adr = m.jnt_dofadr[j] as usize;
                let n = dof_count(m.jnt_type[j]).unwrap_or(0) as usize;
                for (q, &gc) in qfrc[adr..adr + n].iter_mut().zip(&input.qfrc_gravcomp[adr..adr + n]) {
                    *q += gc;
                }
            }
        }
    }
    // the limit clamps the joint's first dof only
    for j in 0..m.njnt() {
        if m.jnt_actfrclimited[j] == 1 {
            let d = m.jnt_dofadr[j] as usize;
            qfrc[d] = clip(qfrc[d], m.jnt_actfrcrange[2 * j], m.jnt_actfrcrange[2 * j + 1]);
        }
    }
}
