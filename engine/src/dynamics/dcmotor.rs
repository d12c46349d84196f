//! DC motors in `mj_fwdActuation` and `mj_nextActivation` as MuJoCo 4.0.0 computes them
//! (`docs/measurements.md` D88-D90): the optional activation slots (slew, integral, winding
//! temperature, LuGre bristle, armature current), the drive voltage of the on-board controller,
//! the gain `K` or `K/R`, the back-EMF bias, and cogging and bristle friction added after the
//! force limits.

use super::actuation::{at_least_minval, ActuationInput, ActuatorModel};
use crate::math::{clip, MINVAL};

/// `mjDYN_DCMOTOR`.
pub const DYN_DCMOTOR: i32 = 5;
/// `mjGAIN_DCMOTOR`.
pub const GAIN_DCMOTOR: i32 = 3;
/// `mjBIAS_DCMOTOR`.
pub const BIAS_DCMOTOR: i32 = 3;

/// `mjINPUT_*` bits of `actuator_ctrlspec`, in the order their controls follow each other.
mod input {
    pub const POS: i32 = 1;
    pub const VEL: i32 = 2;
    pub const FF: i32 = 4;
    pub const VOLTAGE: i32 = 8;
    pub const NONE: i32 = 16;
    /// The controller's inputs (position and velocity setpoints, feedforward).
    pub const CONTROLLER: i32 = POS | VEL | FF;
}

/// Whether a parameter switches its feature on (`> 0`; NaN does not).
#[inline]
fn on(x: f64) -> bool {
    x > 0.0
}

/// Offsets of a DC motor's activations from its `actadr`, -1 when the feature is off; the
/// slots follow each other in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slots {
    /// Rate-limited first control (`dynprm[7] > 0`).
    pub slew: i32,
    /// Controller integral (`gainprm[5] > 0`).
    pub integral: i32,
    /// Winding temperature above ambient (`dynprm[2] > 0`).
    pub temperature: i32,
    /// LuGre bristle deflection (`dynprm[5] > 0`).
    pub bristle: i32,
    /// Armature current (`dynprm[0] > 0`).
    pub current: i32,
    /// Number of slots in use.
    pub num: i32,
}

/// The activation slots of actuator `i` from its dynamics and gain parameters.
pub fn slots(m: &ActuatorModel, i: usize) -> Slots {
    let (dp, gp) = (&m.actuator_dynprm[10 * i..10 * i + 10], &m.actuator_gainprm[10 * i..10 * i + 10]);
    let mut num = 0;
    let mut take = |flag: bool| {
        if flag {
            num += 1;
            num - 1
        } else {
            -1
        }
    };
    let slew = take(on(dp[7]));
    let integral = take(on(gp[5]));
    let temperature = take(on(dp[2]));
    let bristle = take(on(dp[5]));
    let current = take(on(dp[0]));
    Slots { slew, integral, temperature, bristle, current, num }
}

/// Whether actuator `i`, a DC motor in any of its three types, is one the stage follows: all
/// three types DC motor, one activation per slot (`actadr` -1 without any), a control block
/// matching its input signature and room for what the slew and integral read.
pub fn in_scope(m: &ActuatorModel, i: usize) -> bool {
    let Some(&spec) = m.actuator_ctrlspec.get(i) else { return false };
    if m.actuator_dyntype[i] != DYN_DCMOTOR
        || m.actuator_gaintype[i] != GAIN_DCMOTOR
        || m.actuator_biastype[i] != BIAS_DCMOTOR
    {
        return false;
    }
    let s = slots(m, i);
    let (actadr, actnum) = (m.actuator_actadr[i], m.actuator_actnum[i]);
    let states_ok = if s.num == 0 {
        actadr == -1 && actnum == 0
    } else {
        actnum == s.num && actadr >= 0 && actadr as i64 + actnum as i64 <= m.na as i64
    };
    let controls = if spec == input::NONE {
        0
    } else if spec & !(input::CONTROLLER | input::VOLTAGE) != 0 || spec == 0 {
        return false;
    } else {
        spec.count_ones() as i32
    };
    let (ctrladr, ctrlnum) = (m.actuator_ctrladr[i], m.actuator_ctrlnum[i]);
    let controls_ok = ctrlnum == controls
        && (ctrlnum == 0 || (ctrladr >= 0 && ctrladr as i64 + ctrlnum as i64 <= m.nu as i64))
        && (ctrlnum > 0 || (s.slew < 0 && s.integral < 0));
    states_ok && controls_ok
}

/// The rate of an integral state `xi` of position error `error` with anti-windup at `imax`
/// (off unless `> 0`): at or beyond the limit only an error back towards zero integrates.
pub(super) fn anti_windup(xi: f64, imax: f64, error: f64) -> f64 {
    if !on(imax) {
        error
    } else if xi >= imax {
        if error <= 0.0 {
            error
        } else {
            0.0
        }
    } else if -imax >= xi {
        if 0.0 <= error {
            error
        } else {
            0.0
        }
    } else {
        error
    }
}

/// The terminal voltage: the controller's drive voltage (torque command over `K/R` plus back-EMF
/// compensation, clamped to `Vmax`) when a controller input is present, plus the raw voltage
/// input. `block` is the actuator's control block, `xi` the integral state.
fn terminal_voltage(gp: &[f64], spec: i32, block: &[f64], length: f64, velocity: f64, xi: f64) -> f64 {
    let mut next = 0;
    let mut take = |bit: i32| {
        if spec & bit != 0 {
            next += 1;
            block[next - 1]
        } else {
            0.0
        }
    };
    let (pos, vel, ff, raw) = (take(input::POS), take(input::VEL), take(input::FF), take(input::VOLTAGE));
    let drive = if spec & input::CONTROLLER != 0 {
        let torque = ff + (xi * gp[5] + ((pos - length) * gp[4] + (vel - velocity) * gp[6]));
        let v = (gp[0] / gp[1]) * torque + velocity * gp[1];
        if on(gp[7]) {
            clip(v, -gp[7], gp[7])
        } else {
            v
        }
    } else {
        0.0
    };
    raw + drive
}

/// `R (1 + alpha (T + T_ambient - T_ref))` with the library's operation order.
#[inline]
fn hot_resistance(r: f64, dp: &[f64], gp: &[f64], t: f64) -> f64 {
    r * (((t + dp[4]) - gp[3]) * gp[2] + 1.0)
}

/// The LuGre bristle's Stribeck curve `F_C + (F_S - F_C) exp(-(v / v_S)^2)`.
#[inline]
fn stribeck(bp: &[f64], velocity: f64) -> f64 {
    let ratio = velocity / at_least_minval(bp[5]);
    (ratio * -ratio).exp() * (bp[4] - bp[3]) + bp[3]
}

/// `act_dot` of DC motor `i` (stateful, [`in_scope`]); the slew writes the rate-limited first
/// control back into the clamped copy `ctrl`, which the force pass then reads.
pub fn rates(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], act_dot: &mut [f64], i: usize) {
    let (dp, gp) = (&m.actuator_dynprm[10 * i..10 * i + 10], &m.actuator_gainprm[10 * i..10 * i + 10]);
    let first = m.actuator_actadr[i] as usize;
    let last = first + m.actuator_actnum[i] as usize - 1;
    let mut adr = first;
    let (u, k) = (m.actuator_ctrladr[i] as usize, m.actuator_outadr[i] as usize);
    let (length, velocity) = (input.actuator_length[k], input.actuator_velocity[k]);
    let (mut r, kc) = (gp[0], gp[1]);
    if on(dp[7]) {
        let prev = input.act[adr];
        let h = m.timestep;
        let step = dp[7] * h;
        let limited = clip(ctrl[u], prev - step, prev + step);
        act_dot[adr] = (limited - prev) / h;
        ctrl[u] = limited;
        adr += 1;
    }
    let mut xi = 0.0;
    if on(gp[5]) {
        xi = input.act[adr];
        let imax = dp[8];
        let error = ctrl[u] - length;
        act_dot[adr] = anti_windup(xi, imax, error);
        adr += 1;
    }
    let nctrl = m.actuator_ctrlnum[i] as usize;
    let block = if nctrl > 0 { &ctrl[u..u + nctrl] } else { &[][..] };
    let volts = terminal_voltage(gp, m.actuator_ctrlspec[i], block, length, velocity, xi);
    if on(dp[2]) {
        let t = input.act[adr];
        r = hot_resistance(r, dp, gp, t);
        let current = if on(dp[0]) { input.act[last] } else { (volts - kc * velocity) / r };
        act_dot[adr] = ((r * current) * current - t / dp[2]) / dp[3];
        adr += 1;
    }
    if on(dp[5]) {
        let bp = &m.actuator_biasprm[10 * i..10 * i + 10];
        let z = input.act[adr];
        let g = stribeck(bp, velocity);
        let decay = (velocity.abs() * dp[5]) / at_least_minval(g);
        act_dot[adr] = velocity - decay * z;
    }
    if on(dp[0]) {
        let rate = ((volts / r - velocity * (kc / r)) - input.act[last]) / dp[0];
        act_dot[last] = if on(dp[1]) { clip(rate, -dp[1], dp[1]) } else { rate };
    }
}

/// The gain of DC motor `i` (`K` with a current state, else `K / R` with the resistance at the
/// winding temperature), and its input: the armature current when it is a state, otherwise the
/// terminal voltage, which a controller writes into the clamped copy `ctrl` first. Returns
/// `(gain, Some(voltage))`, or `(gain, None)` when the input is the last activation.
pub fn gain(m: &ActuatorModel, input: &ActuationInput, ctrl: &mut [f64], i: usize) -> (f64, Option<f64>) {
    let (dp, gp) = (&m.actuator_dynprm[10 * i..10 * i + 10], &m.actuator_gainprm[10 * i..10 * i + 10]);
    let actadr = m.actuator_actadr[i];
    let slew = usize::from(on(dp[7]));
    let mut r = gp[0];
    if on(dp[2]) {
        let t = input.act[actadr as usize + slew + usize::from(on(gp[5]))];
        r = hot_resistance(r, dp, gp, t);
    }
    let te = dp[0];
    let g = if on(te) { gp[1] } else { gp[1] / at_least_minval(r) };
    let (u, nctrl) = (m.actuator_ctrladr[i] as usize, m.actuator_ctrlnum[i] as usize);
    let spec = m.actuator_ctrlspec[i];
    if spec != input::VOLTAGE && nctrl > 0 {
        let xi = if on(gp[5]) { input.act[actadr as usize + slew] } else { 0.0 };
        let k = m.actuator_outadr[i] as usize;
        let (length, velocity) = (input.actuator_length[k], input.actuator_velocity[k]);
        ctrl[u] = terminal_voltage(gp, spec, &ctrl[u..u + nctrl], length, velocity, xi);
    }
    // a NaN time constant counts as a current state
    let from_ctrl = 0.0 >= te || m.actuator_actnum[i] == 0;
    let voltage = if nctrl != 0 { ctrl[u] } else { 0.0 };
    (g, from_ctrl.then_some(voltage))
}

/// The back-EMF bias `-gain K velocity` of DC motor `i` without a current state (0 with one).
pub fn bias(m: &ActuatorModel, velocity: f64, gain: f64, i: usize) -> f64 {
    if 0.0 >= m.actuator_dynprm[10 * i] {
        0.0 - (gain * m.actuator_gainprm[10 * i + 1]) * velocity
    } else {
        0.0
    }
}

/// Cogging `A sin(N length + phase)` and LuGre bristle friction `-(sigma0 z + sigma1 z_dot)`
/// added to the force of DC motor `i` after the force limits.
pub fn mechanical(m: &ActuatorModel, input: &ActuationInput, act_dot: &[f64], force: &mut [f64], i: usize) {
    let k = m.actuator_outadr[i] as usize;
    let bp = &m.actuator_biasprm[10 * i..10 * i + 10];
    #[allow(clippy::float_cmp)]
    if bp[0] != 0.0 {
        force[k] += (bp[1] * input.actuator_length[k] + bp[2]).sin() * bp[0];
    }
    let dp = &m.actuator_dynprm[10 * i..10 * i + 10];
    if on(dp[5]) {
        let s = slots(m, i);
        let z = (m.actuator_actadr[i] + s.bristle) as usize;
        force[k] -= dp[5] * input.act[z] + dp[6] * act_dot[z];
    }
}

/// `mj_nextActivation` for activation `adr` of DC motor `i`: exact integration of the current
/// filter, zero-order-hold integration of the bristle (which needs the actuator's velocity),
/// Euler for the others with the integral clamped to `Imax`; never clamped to `actrange`.
pub fn next_activation(m: &ActuatorModel, act: &[f64], velocity: f64, i: usize, adr: usize, act_dot: f64) -> f64 {
    let dp = &m.actuator_dynprm[10 * i..10 * i + 10];
    let s = slots(m, i);
    let offset = adr as i64 - m.actuator_actadr[i] as i64;
    let a = act[adr];
    let h = m.timestep;
    if offset == s.current as i64 {
        let te = at_least_minval(dp[0]);
        let scaled = act_dot * te;
        (1.0 - (-h / te).exp()) * scaled + a
    } else if offset == s.bristle as i64 {
        let bp = &m.actuator_biasprm[10 * i..10 * i + 10];
        let g = stribeck(bp, velocity);
        let rate = (velocity.abs() * -dp[5]) / at_least_minval(g);
        let decay = (h * rate).exp();
        let gain = if rate.abs() > MINVAL { (decay + -1.0) / rate } else { h };
        decay * a + gain * velocity
    } else {
        let next = act_dot * h + a;
        if offset == s.integral as i64 && on(dp[8]) {
            clip(next, -dp[8], dp[8])
        } else {
            next
        }
    }
}
