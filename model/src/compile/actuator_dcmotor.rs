//! The `dcmotor` and `pid` shortcuts' parameters, as MuJoCo 4.0.0's `mjs_setToDCMotor` and
//! `mjs_setToPID` write them (read from the 4.0.0 binary, checked against it by `specula check`).
//!
//! A DC motor's parameters are the shortcut's attributes, each starting from the class's
//! default when that default is a DC motor too (its arrays read back from the stored
//! parameters: the motor constant and resistance from `gainprm[1]` and `gainprm[0]`, the
//! electrical time constant from `dynprm[0]`, a symmetric limited force range as the saturation
//! torque, ...), else from zero. Then:
//! - the motor constant `K` is `sqrt(Kt Ke)` when both are positive, else the positive one; an
//!   unset `Ke` comes from the nominal point (`voltage / no_load_speed`, corrected for the
//!   actuator's linear damping), and an unset resistance from it too (`K voltage / stall`);
//! - every parameter array is cleared, then: `gainprm` = R, K, tempcoef, reftemp, kp, ki, kd,
//!   Vmax; `dynprm` = te, current rate, thermal R and C, ambient, LuGre stiffness and damping,
//!   slewmax, Imax; `biasprm` = cogging (3), LuGre coulomb, static, stribeck;
//! - one activation state each for a positive electrical time constant, slew limit, integral
//!   gain, thermal model and LuGre stiffness; activation unlimited, `actearly` on.

use super::actuator::ActuatorSpec;
use super::attrs::{arr, num, Res};
use crate::xml::Element;

/// The `dcmotor` shortcut's attributes.
#[derive(Default)]
pub(super) struct Dc {
    /// Torque and back-EMF constants.
    pub(super) motorconst: [f64; 2],
    /// Armature resistance.
    pub(super) resistance: f64,
    /// Nominal voltage, stall torque, no-load speed.
    pub(super) nominal: [f64; 3],
    /// Saturation torque, current, current rate.
    pub(super) saturation: [f64; 3],
    /// Inductance and electrical time constant.
    pub(super) inductance: [f64; 2],
    cogging: [f64; 3],
    /// kp, ki, kd, slew rate, integral limit, voltage limit.
    pub(super) controller: [f64; 6],
    /// Thermal resistance, capacitance, time constant, temperature coefficient, reference and
    /// ambient temperatures.
    pub(super) thermal: [f64; 6],
    lugre: [f64; 5],
}

impl Dc {
    /// The attributes a DC motor default passes on, read back from its parameters.
    fn from_default(s: &ActuatorSpec) -> Dc {
        let (g, d, b, p) = (&s.gainprm, &s.dynprm, &s.params.biasprm, &s.params);
        let fr = p.forcerange;
        // a saturation torque is recognised as a limited, symmetric, positive force range
        #[allow(clippy::float_cmp)]
        let sat = if fr[1] > 0.0 && p.limited[1] == 1 && fr[0] == -fr[1] { fr[1] } else { 0.0 };
        Dc {
            motorconst: [g[1], 0.0],
            resistance: g[0],
            nominal: [0.0; 3],
            saturation: [sat, 0.0, d[1]],
            inductance: [0.0, d[0]],
            cogging: [b[0], b[1], b[2]],
            controller: [g[4], g[5], g[6], d[7], d[8], g[7]],
            thermal: [d[2], d[3], 0.0, g[2], g[3], d[4]],
            lugre: [d[5], d[6], b[3], b[4], b[5]],
        }
    }
}

/// Applies a `dcmotor` element on `spec` (types already set, common attributes read); `prev`
/// is its parameter source when `src`.
pub(super) fn dcmotor(spec: &mut ActuatorSpec, el: &Element, prev: &ActuatorSpec, src: bool) -> Res<()> {
    let s = attributes(el, prev, src)?;
    set(spec, &s);
    // a saturation attribute without a positive torque or current clears an inherited limit
    // (M19: under a class with saturation="3", saturation="0" compiles unlimited, range 0)
    let sat = &s.saturation;
    if el.attr("saturation").is_some() && !(sat[0] > 0.0 || sat[1] > 0.0) {
        spec.params.forcerange = [0.0; 2];
        spec.params.limited[1] = 0;
    }
    Ok(())
}

/// The attributes of a `dcmotor` element after its parameter source `prev` (used when `src`).
pub(super) fn attributes(el: &Element, prev: &ActuatorSpec, src: bool) -> Res<Dc> {
    let mut s = if src { Dc::from_default(prev) } else { Dc::default() };
    arr(el, "motorconst", &mut s.motorconst, false)?;
    num(el, "resistance", &mut s.resistance)?;
    arr(el, "nominal", &mut s.nominal, false)?;
    arr(el, "saturation", &mut s.saturation, false)?;
    // (measured: an inductance attribute replaces both inherited entries)
    if el.attr("inductance").is_some() {
        s.inductance = [0.0; 2];
        arr(el, "inductance", &mut s.inductance, false)?;
    }
    arr(el, "cogging", &mut s.cogging, false)?;
    arr(el, "controller", &mut s.controller, false)?;
    arr(el, "thermal", &mut s.thermal, false)?;
    arr(el, "lugre", &mut s.lugre, false)?;
    Ok(s)
}

/// The motor constant from `motorconst` and the nominal point (`damping`: the actuator's
/// linear damping, which lowers the no-load speed).
fn motor_constant(s: &Dc, resistance: f64, damping: f64) -> f64 {
    let [kt, mut ke] = s.motorconst;
    let [v, stall, w0] = s.nominal;
    if v > 0.0 && ke <= 0.0 && w0 > 0.0 {
        ke = v / w0;
        if resistance > 0.0 && damping > 0.0 {
            // the larger root of K^2 w0 - V K + R b w0 = 0
            let disc = v * v + resistance * -4.0 * damping * w0 * w0;
            if disc > 0.0 {
                ke = (v + disc.sqrt()) / (w0 + w0);
            }
        } else if damping > 0.0 && stall > 0.0 {
            let k = v / w0 - v * damping / stall;
            if 0.0 < k {
                ke = k;
            }
        }
    }
    if kt > 0.0 && ke > 0.0 {
        (kt * ke).sqrt()
    } else if 0.0 < kt {
        kt
    } else {
        ke
    }
}

/// Writes the DC motor parameters of `s` into `spec` (the value checks are the compiler's,
/// `actuator_values`).
fn set(spec: &mut ActuatorSpec, s: &Dc) {
    let p = &mut spec.params;
    let k = motor_constant(s, s.resistance, p.damping);
    let [v, stall, _] = s.nominal;
    let mut r = s.resistance;
    #[allow(clippy::float_cmp)]
    if stall > 0.0 && v > 0.0 && r == 0.0 && 0.0 < k {
        r = v * k / stall;
    }
    spec.gainprm = [0.0; 10];
    spec.dynprm = [0.0; 10];
    p.biasprm = [0.0; 10];
    spec.gainprm[0] = r;
    spec.gainprm[1] = k;
    let c = &s.controller;
    spec.gainprm[4..7].copy_from_slice(&c[..3]);
    spec.dynprm[7] = c[3];
    spec.dynprm[8] = c[4];
    if c[5] > 0.0 {
        spec.gainprm[7] = c[5];
    }
    let sat = &s.saturation;
    if sat[0] > 0.0 || sat[1] > 0.0 {
        #[allow(clippy::float_cmp)]
        let t = if sat[0] == 0.0 && sat[1] > 0.0 { k * sat[1] } else { sat[0] };
        p.forcerange = [-t, t];
        p.limited[1] = 1;
    }
    if sat[2] > 0.0 {
        spec.dynprm[1] = sat[2];
    }
    p.biasprm[..3].copy_from_slice(&s.cogging);
    let [l, tc] = s.inductance;
    let te = if l > 0.0 { l / r } else { tc };
    spec.dynprm[0] = te;
    let mut actdim = i32::from(te > 0.0) + i32::from(c[3] > 0.0) + i32::from(c[1] > 0.0);
    let t = &s.thermal;
    if let Some((rth, cth)) = thermal(t[0], t[1], t[2]) {
        spec.dynprm[2] = rth;
        spec.dynprm[3] = cth;
        spec.dynprm[4] = t[5];
        spec.gainprm[2] = t[3];
        spec.gainprm[3] = t[4];
        actdim += 1;
    }
    let lg = &s.lugre;
    if lg[0] > 0.0 {
        spec.dynprm[5] = lg[0];
        spec.dynprm[6] = lg[1];
        p.biasprm[3..6].copy_from_slice(&lg[2..5]);
        actdim += 1;
    }
    spec.actdim = actdim;
    p.limited[2] = 0;
    p.actearly = true;
}

/// The thermal resistance and capacitance from any two of resistance, capacitance and time
/// constant (the capacitance recomputed when all three are given); `None` when the model is off
/// (all three non-positive). A non-positive result is refused by the compiler.
fn thermal(r: f64, c: f64, tau: f64) -> Option<(f64, f64)> {
    if r > 0.0 {
        return Some(if tau > 0.0 { (r, tau / r) } else { (r, c) });
    }
    if c > 0.0 || tau > 0.0 {
        #[allow(clippy::float_cmp)]
        let rr = if r == 0.0 && tau > 0.0 && 0.0 < c { tau / c } else { r };
        return Some((rr, c));
    }
    None
}

/// Applies a `pid` element's gains on `spec` (its integral and slew states were set by
/// [`ActuatorSpec::apply`]): stiffness `kp` in `biasprm[1]` negated, damping as `kv` (negated)
/// or `dampratio` (positive) in `biasprm[2]`, every other gain and bias parameter cleared.
pub(super) fn pid(spec: &mut ActuatorSpec, el: &Element, prev: &ActuatorSpec, src: bool) -> Res<()> {
    let b = &prev.params.biasprm;
    let mut kp = if src { -b[1] } else { 1.0 };
    let (mut kv, mut dampratio) =
        if src { ((b[2] < 0.0).then_some(-b[2]), (b[2] > 0.0).then_some(b[2])) } else { (None, None) };
    let mut inheritrange = if src { prev.params.inheritrange } else { 0.0 };
    num(el, "kp", &mut kp)?;
    super::actuator_params::read_damping(el, &mut kv, &mut dampratio, &mut inheritrange)?;
    let ki = spec.gainprm[0];
    spec.gainprm[1..].fill(0.0);
    spec.dynprm[2..].fill(0.0);
    if ki == 0.0 {
        spec.dynprm[0] = 0.0;
    }
    let p = &mut spec.params;
    p.biasprm = [0.0; 10];
    p.biasprm[1] = -kp;
    if let Some(kv) = kv {
        p.biasprm[2] = -kv;
    }
    if let Some(d) = dampratio {
        p.biasprm[2] = d;
    }
    p.inheritrange = inheritrange;
    p.actearly = false;
    p.limited[2] = 2;
    Ok(())
}
