//! Stage 4: the effective contact distance that makes the solver remove `(1 - t)` of the
//! closing speed and land the geoms on each other at the end of the step.
//!
//! With the single-step damping `b0` and stiffness `k0` of the contact *without* impedance
//! (`b0 = h B dmax`, `k0 = h^2 K dmax^2`, i.e. `b0 = 2h / tc`, `k0 = h^2 / (tc dr)^2` for
//! standard `solref = (tc, dr)` with `tc >= 2h` unless refsafe is off, and `b0 = -h solref[1]`,
//! `k0 = -h^2 solref[0]` for direct `solref <= 0`):
//!
//! - Euler, implicit, implicitfast and RK4: `delta = ((1 - t) - b0) / k0 * h|v_n|`;
//! - discrete: `delta = ((1 - t) - t (b0 + k0)) / k0 * h|v_n|`;
//! - `dist = margin - delta`; when `k0 < 1e-15` (no stiffness), `dist = margin - solimp[2]`.
//!
//! Measured (10 mm ball over a 10 mm plate, h = 1.25 ms, default contacts): 20 m/s at a 10 mm
//! gap gives `dist = -3.0912`, 10 m/s at 5 mm gives -1.5456 (Euler, implicit, implicitfast, RK4)
//! and -1.7839 (discrete); solref (0.05, 0.7) gives -10.9368 / -11.5228; solref (-1e4, -50)
//! gives -0.8728; solref (0.001, 1) (clamped to 2h) gives +0.0392. Changing solimp (0.5 0.95
//! 10, or power 6) changes nothing: the impedance factors of `K` and `B` cancel, which is why the
//! measurements' impedance form `((1-t)/d - h B) / (h^2 K d)` and the docs' form agree once the
//! docs' `b0`, `k0` are read without impedance. With `solref = (0, -499)` (`k0 = 0`) the
//! distance is `margin - width` (-0.001 for width 0.001, 0 for margin 0.001); bisecting the
//! stiffness put the switch at `h^2 (-solref[0]) = 1e-15` (MuJoCo's `mjMINVAL`).

use crate::math::MINVAL;
pub use specula_model::types::Integrator;

/// Single-step damping and stiffness `(b0, k0)` of a contact without impedance.
///
/// `refsafe` is true unless `mjDSBL_REFSAFE` is set: then a standard time constant is raised to
/// at least `2h`.
pub fn step_damping_stiffness(solref: &[f64; 2], h: f64, refsafe: bool) -> (f64, f64) {
    if solref[0] > 0.0 {
        let tc = if refsafe { solref[0].max(2.0 * h) } else { solref[0] };
        let dr = solref[1];
        (2.0 * h / tc, h * h / (tc * tc * dr * dr))
    } else {
        (-h * solref[1], -h * h * solref[0])
    }
}

/// Effective `contact.dist` of a speculative contact: `margin - delta` (see the module notes).
///
/// `h_vn` is the closing normal displacement over the whole step, `h |v_n|` (see
/// [`super::advance::Impact::h_vn`]), `t` the time of impact, `width` is `solimp[2]`.
pub fn effective_distance(margin: f64, t: f64, h_vn: f64, b0: f64, k0: f64, width: f64, integrator: Integrator) -> f64 {
    if k0 < MINVAL {
        return margin - width;
    }
    let num = match integrator {
        Integrator::Discrete => (1.0 - t) - t * (b0 + k0),
        _ => (1.0 - t) - b0,
    };
    margin - num / k0 * h_vn
}

/// Effective `contact.dist` of a speculative contact as MuJoCo 4.0.0 computes it
/// (`contactDist`, read from the released library), `t` being the time of impact and `hvn` the
/// closing displacement `h |v_n|`:
/// - a `solref` whose two entries differ in sign is replaced by the default `(0.02, 1)`;
/// - `width = max(1e-4, solimp[2])`; a non-positive timestep or `k0 <= 1e-15` gives
///   `margin - width`;
/// - standard `solref`: `tc = solref[0]` raised to `2h` (refsafe) except under the discrete
///   integrator or with refsafe disabled, where it is only kept above 1e-15; `dr =
///   max(1e-15, solref[1])`; `b0 = 2h / tc`, `k0 = h^2 / max(1e-15, tc^2 dr^2)`;
///   direct `solref`: `b0 = -h solref[1]`, `k0 = -h^2 solref[0]`;
/// - discrete integrator with a standard `solref` and refsafe on: when `k0` exceeds
///   `dmax = min(0.9999, max(1e-4, solimp[1]))`, `k0 = dmax` and `b0` becomes the smaller of
///   `b0 / sqrt(k0 / dmax)` and `dmax max(0, 0.9999 (1 - dmax) / max(1e-15, dmax 1e-4) - 2)`
///   (the largest damping that keeps the update stable);
/// - then as [`effective_distance`]: `margin - ((1 - t) - b0) / k0 hvn`, or under the discrete
///   integrator `margin - ((1 - t) - t (b0 + k0)) / k0 hvn`.
#[allow(clippy::too_many_arguments)]
pub fn contact_distance(
    margin: f64,
    t: f64,
    hvn: f64,
    solref: &[f64; 2],
    solimp: &[f64; 5],
    h: f64,
    integrator: Integrator,
    refsafe: bool,
) -> f64 {
    let (mut r0, mut r1) = (solref[0], solref[1]);
    if (r0 > 0.0) != (r1 > 0.0) {
        (r0, r1) = (0.02, 1.0);
    }
    let width = if 1e-4 >= solimp[2] { 1e-4 } else { solimp[2] };
    if h <= 0.0 {
        return margin - width;
    }
    let discrete = integrator == Integrator::Discrete;
    let (mut b0, mut k0);
    if r0 > 0.0 {
        let h2 = h + h;
        let tc = if !refsafe || discrete {
            r0.max(MINVAL)
        } else if r0 <= h2 {
            h2
        } else {
            r0
        };
        let dr = r1.max(MINVAL);
        b0 = h2 / tc;
        k0 = (h * h) / (dr * ((tc * tc) * dr)).max(MINVAL);
    } else {
        b0 = h * -r1;
        k0 = h * (h * -r0);
    }
    if discrete {
        if r0 > 0.0 {
            let dmax = solimp[1].clamp(1e-4, 0.9999);
            if k0 > dmax && refsafe {
                let limit = ((1.0 - dmax) * 0.9999) / (dmax * 9.999999999998899e-05).max(MINVAL) + -2.0;
                let limit = dmax * if limit <= 0.0 { 0.0 } else { limit };
                let scaled = b0 / (k0 / dmax).sqrt();
                b0 = if scaled <= limit { scaled } else { limit };
                k0 = dmax;
            }
        }
        if k0 <= MINVAL {
            return margin - width;
        }
        return margin - (((1.0 - t) - t * (b0 + k0)) / k0) * hvn;
    }
    if k0 <= MINVAL {
        return margin - width;
    }
    margin - (((1.0 - t) - b0) / k0) * hvn
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_plate_case() {
        // 10 mm ball, 20 m/s, gap 10 mm, h = 1.25 ms: t = 0.392, h|v_n| = 0.025
        let (b0, k0) = step_damping_stiffness(&[0.02, 1.0], 0.00125, true);
        let d = effective_distance(0.0, 0.392, 0.025, b0, k0, 0.001, Integrator::Euler);
        assert!((d + 3.0912).abs() < 1e-12, "{d}");
    }
}
