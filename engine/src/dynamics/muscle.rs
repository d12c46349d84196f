//! MuJoCo 4.0.0's muscle model: the activation rate of `mjDYN_MUSCLE` (two time constants,
//! optionally blended by a smooth step), the active force-length-velocity gain
//! (`mju_muscleGain`) and the passive force (`mju_muscleBias`), in the library's operation
//! order as read from its binary (`docs/measurements.md` D63).
//!
//! Parameter layout of `gainprm`/`biasprm`: range (2), force, scale, lmin, lmax, vmax, fpmax,
//! fvmax; of `dynprm`: activation and deactivation time constants, smoothing width.

use crate::math::MINVAL;

/// `x` unless `mjMINVAL > x` (the library's `mju_max(mjMINVAL, x)`, NaN kept).
#[inline]
fn floor_minval(x: f64) -> f64 {
    if MINVAL > x {
        MINVAL
    } else {
        x
    }
}

/// `min(1, x)` as `vminsd` with 1 first: NaN gives NaN.
#[inline]
fn min_one(x: f64) -> f64 {
    if 1.0 < x {
        1.0
    } else {
        x
    }
}

/// The quintic smooth step on `[0, 1]` (`mju_sigmoid`): 0 below, 1 above.
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else if x >= 1.0 {
        1.0
    } else {
        (x * (x * x)) * ((x * 3.0) * ((x + x) + -5.0) + 10.0)
    }
}

/// Activation rate of a muscle from its control and activation (`mju_muscleDynamics`): the
/// control clamped to `[0, 1]` minus the activation, over a time constant that grows with the
/// activation when activating and shrinks when deactivating.
#[inline]
pub fn muscle_dynamics(ctrl: f64, act: f64, prm: &[f64]) -> f64 {
    // the activation enters the time constants clamped to [0, 1], the difference unclamped
    let scale = if act < 0.0 { 0.5 } else { min_one(act) * 1.5 + 0.5 };
    let c = if ctrl < 0.0 { 0.0 } else { min_one(ctrl) };
    let tau_act = scale * prm[0];
    let tau_deact = prm[1] / scale;
    let smooth = prm[2];
    let dctrl = c - act;
    let tau = if MINVAL > smooth {
        if 0.0 < dctrl {
            tau_act
        } else {
            tau_deact
        }
    } else {
        (tau_act - tau_deact) * sigmoid(dctrl / smooth + 0.5) + tau_deact
    };
    dctrl / floor_minval(tau)
}

/// Peak force of a muscle: `force`, or `scale / acc0` when `force` is negative.
#[inline]
fn peak_force(prm: &[f64], acc0: f64) -> f64 {
    if 0.0 > prm[2] {
        prm[3] / floor_minval(acc0)
    } else {
        prm[2]
    }
}

/// Normalized length `L` and the optimal length `L0` of a muscle of length `len`.
#[inline]
fn normalized(len: f64, lengthrange: &[f64], prm: &[f64]) -> (f64, f64) {
    let l0 = (lengthrange[1] - lengthrange[0]) / floor_minval(prm[1] - prm[0]);
    (prm[0] + (len - lengthrange[0]) / floor_minval(l0), l0)
}

/// The active force-length curve (`mju_muscleGainLength`): four quadratic pieces from `lmin`
/// through 1 at `L = 1` to `lmax`, zero outside (and for NaN).
#[inline]
pub fn gain_length(l: f64, lmin: f64, lmax: f64) -> f64 {
    if !(l >= lmin && lmax >= l) {
        return 0.0;
    }
    let a = (lmin + 1.0) * 0.5;
    if a >= l {
        let x = (l - lmin) / floor_minval(a - lmin);
        return x * (x * 0.5);
    }
    if 1.0 >= l {
        let x = (1.0 - l) / floor_minval(1.0 - a);
        return (x * -0.5) * x + 1.0;
    }
    let b = (lmax + 1.0) * 0.5;
    if b >= l {
        let x = (l + -1.0) / floor_minval(b + -1.0);
        return (x * -0.5) * x + 1.0;
    }
    let x = (lmax - l) / floor_minval(lmax - b);
    x * (x * 0.5)
}

/// Active muscle gain (`mju_muscleGain`): minus the peak force times the force-length and
/// force-velocity curves.
pub fn muscle_gain(len: f64, vel: f64, lengthrange: &[f64], acc0: f64, prm: &[f64]) -> f64 {
    let force = peak_force(prm, acc0);
    let (l, l0) = normalized(len, lengthrange, prm);
    let v = vel / floor_minval(l0 * prm[6]);
    let fl = gain_length(l, prm[4], prm[5]);
    let fvmax = prm[8];
    let y = fvmax + -1.0;
    // NaN falls through every test to fvmax, as the library's comparisons do
    let fv = if -1.0 >= v {
        0.0
    } else if 0.0 >= v {
        let s = v + 1.0;
        s * s
    } else if y >= v {
        let d = y - v;
        fvmax - (d * d) / floor_minval(y)
    } else {
        fvmax
    };
    (-force * fl) * fv
}

/// Passive muscle force (`mju_muscleBias`): zero up to the optimal length, quadratic to the
/// midpoint of 1 and `lmax`, linear beyond.
pub fn muscle_bias(len: f64, lengthrange: &[f64], acc0: f64, prm: &[f64]) -> f64 {
    let force = peak_force(prm, acc0);
    let (l, _) = normalized(len, lengthrange, prm);
    if 1.0 >= l {
        return 0.0;
    }
    let b = (1.0 + prm[5]) * 0.5;
    let width = floor_minval(b + -1.0);
    let top = -force * prm[7];
    if b >= l {
        let x = (l + -1.0) / width;
        x * ((top * 0.5) * x)
    } else {
        let x = (l - b) / width;
        top * (x + 0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curves_have_their_landmarks() {
        // the length curve is 1 at the optimum, 0.5 at the quarter points, 0 at the ends
        assert_eq!(gain_length(1.0, 0.5, 1.6), 1.0);
        assert_eq!(gain_length(0.75, 0.5, 1.6), 0.5);
        assert_eq!(gain_length(0.5, 0.5, 1.6), 0.0);
        assert_eq!(gain_length(1.7, 0.5, 1.6), 0.0);
        assert_eq!(gain_length(f64::NAN, 0.5, 1.6), 0.0);
        assert_eq!(sigmoid(0.5), 0.5);
        // activation is faster than deactivation at zero activation: 10 ms vs 40 ms
        let prm = [0.01, 0.04, 0.0];
        assert_eq!(muscle_dynamics(1.0, 0.0, &prm), 1.0 / (0.01 * 0.5));
        assert_eq!(muscle_dynamics(0.0, 0.0, &prm), 0.0 / (0.04 / 0.5));
    }
}
