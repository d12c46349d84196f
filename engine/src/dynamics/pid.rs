//! PID actuators in `mj_fwdActuation` as MuJoCo 4.0.0 computes them (`docs/measurements.md`
//! D91): the optional slew-limited setpoint and integral states, and the force from the
//! position, velocity and feedforward inputs before the affine bias adds the feedback terms.

use super::actuation::{next_activation, wrap, wrap_period, ActuationInput, ActuatorModel};
use super::dcmotor::anti_windup;
use crate::math::clip;

/// `mjDYN_PID`.
pub const DYN_PID: i32 = 6;
/// `mjGAIN_PID`.
pub const GAIN_PID: i32 = 5;

/// `mjINPUT_POS | mjINPUT_VEL | mjINPUT_FF`: the inputs a PID actuator takes.
const INPUTS: i32 = 7;

/// Number of activations a PID actuator's parameters call for: a slew state (`dynprm[1] > 0`)
/// and an integral (`gainprm[0] > 0`), in this order.
fn states(m: &ActuatorModel, i: usize) -> i32 {
    i32::from(m.actuator_dynprm[10 * i + 1] > 0.0) + i32::from(m.actuator_gainprm[10 * i] > 0.0)
}

/// Whether actuator `i`, with a PID gain or PID dynamics, is one the stage follows: PID gain
/// with no or affine bias, no dynamics and no state or PID dynamics with one activation per
/// state, and a control block matching its input signature.
pub fn in_scope(m: &ActuatorModel, i: usize) -> bool {
    let Some(&spec) = m.actuator_ctrlspec.get(i) else { return false };
    if m.actuator_gaintype[i] != GAIN_PID || !matches!(m.actuator_biastype[i], 0 | 1) {
        return false;
    }
    let (actadr, actnum) = (m.actuator_actadr[i], m.actuator_actnum[i]);
    let states_ok = match m.actuator_dyntype[i] {
        0 => actadr == -1 && actnum == 0,
        DYN_PID => {
            let n = states(m, i);
            n > 0 && actnum == n && actadr >= 0 && actadr as i64 + actnum as i64 <= m.na as i64
        }
        _ => false,
    };
    let (ctrladr, ctrlnum) = (m.actuator_ctrladr[i], m.actuator_ctrlnum[i]);
    let controls_ok = spec != 0
        && spec & !INPUTS == 0
        && ctrlnum == spec.count_ones() as i32
        && ctrladr >= 0
        && ctrladr as i64 + ctrlnum as i64 <= m.nu as i64;
    states_ok && controls_ok
}

/// `act_dot` of PID actuator `i` (stateful, [`in_scope`]): the slew moves the setpoint (wrapped
/// to the nearest turn of a rotation) at most `slewmax` per second and writes it back into the
/// clamped copy `ctrl`; the integral takes the position error, held at `imax`.
pub fn rates(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], act_dot: &mut [f64], i: usize) {
    let dp = &m.actuator_dynprm[10 * i..10 * i + 10];
    let period = wrap_period(m, i);
    let mut adr = m.actuator_actadr[i] as usize;
    let u = m.actuator_ctrladr[i] as usize;
    if dp[1] > 0.0 {
        let prev = input.act[adr];
        let target = if period > 0.0 { wrap(ctrl[u], prev, period) } else { ctrl[u] };
        let h = m.timestep;
        let step = dp[1] * h;
        let limited = clip(target, prev - step, prev + step);
        act_dot[adr] = (limited - prev) / h;
        ctrl[u] = limited;
        adr += 1;
    }
    if m.actuator_gainprm[10 * i] > 0.0 {
        let mut error = ctrl[u] - input.actuator_length[m.actuator_outadr[i] as usize];
        if period > 0.0 {
            error = wrap(error, 0.0, period);
        }
        act_dot[adr] = anti_windup(input.act[adr], dp[0], error);
    }
}

/// The force of PID actuator `i` before its bias: `kp` times the position setpoint (wrapped
/// around the length on a rotation), `kv` times the velocity setpoint, the feedforward, and
/// `ki` times the integral.
pub fn force(m: &ActuatorModel, input: &ActuationInput, ctrl: &[f64], act_dot: &[f64], i: usize) -> f64 {
    let spec = m.actuator_ctrlspec[i];
    let u = m.actuator_ctrladr[i] as usize;
    let mut next = u;
    let mut take = |bit: i32| {
        if spec & bit != 0 {
            next += 1;
            ctrl[next - 1]
        } else {
            0.0
        }
    };
    let (mut pos, vel, ff) = (take(1), take(2), take(4));
    let k = m.actuator_outadr[i] as usize;
    let period = wrap_period(m, i);
    if period > 0.0 {
        pos = wrap(pos, input.actuator_length[k], period);
    }
    let bp = &m.actuator_biasprm[10 * i..10 * i + 3];
    let mut f = ((-bp[1]) * pos - vel * bp[2]) + ff;
    let actnum = m.actuator_actnum[i];
    let ki = m.actuator_gainprm[10 * i];
    if actnum != 0 && ki > 0.0 {
        let last = (m.actuator_actadr[i] + actnum - 1) as usize;
        let x = if m.actuator_actearly[i] == 1 {
            next_activation(m, input.act, i, last, act_dot[last])
        } else {
            input.act[last]
        };
        f += ki * x;
    }
    f
}
